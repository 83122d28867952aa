//! The tree's record of its tool calls, for call constraints (`max_calls`, `only_after`,
//! `never_after`): one per tree of runs — the run a caller started creates it, every sub-agent
//! run shares it — so a constraint counts the calls of every agent under the one declaring it.
//!
//! A run continuing a remembered conversation starts from the calls its earlier runs made (read
//! back from the stored messages), so the constraints count per conversation.
//!
//! Deterministic under parallel calls: a constraint decides and reserves in one step under one
//! lock, keyed by the call's number in the tree, so of eight calls against `max_calls(3)` exactly three are let
//! through whatever their order, and a guard that runs again for the same call (an approver's
//! edit) does not count it twice.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// What the tree's calls did so far.
#[derive(Default)]
pub(crate) struct CallLedger {
    calls: Mutex<Calls>,
    /// Whether some run of the tree constrains calls: only then are successes recorded (a tree
    /// without constraints pays one load per call). Set when such a run starts, so a constraint
    /// declared below counts the successes from its run on.
    watched: AtomicBool,
    /// The last call number handed out: each call the tree guards gets its own, so a
    /// reservation is the call's, whatever ids the model repeats or agents share.
    numbered: AtomicU64,
}

#[derive(Default)]
struct Calls {
    /// Per tool, the calls (by number) a constraint let through (or saw let through).
    reserved: HashMap<String, HashSet<u64>>,
    /// The tools whose body ran and returned an output.
    succeeded: HashSet<String>,
}

impl CallLedger {
    fn calls(&self) -> MutexGuard<'_, Calls> {
        // A panic while holding the lock leaves counts that are still counts.
        self.calls
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A new call's number, unique in the tree.
    pub(crate) fn next_call(&self) -> u64 {
        self.numbered.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Reserve call number `call` of `tool` if fewer than `max` are reserved (or it is one of
    /// them: its guard runs again after an approver's edit); otherwise how many are.
    pub(crate) fn reserve_within(&self, tool: &str, call: u64, max: u32) -> Result<(), usize> {
        let mut calls = self.calls();
        let reserved = calls.reserved.entry(tool.to_string()).or_default();
        if reserved.contains(&call) {
            return Ok(());
        }
        if reserved.len() >= max as usize {
            return Err(reserved.len());
        }
        reserved.insert(call);
        Ok(())
    }

    /// Note that call number `call` of `tool` is let through.
    pub(crate) fn note(&self, tool: &str, call: u64) {
        let mut calls = self.calls();
        calls
            .reserved
            .entry(tool.to_string())
            .or_default()
            .insert(call);
    }

    /// Whether a call of `tool` was let through.
    pub(crate) fn let_through(&self, tool: &str) -> bool {
        self.calls()
            .reserved
            .get(tool)
            .is_some_and(|reserved| !reserved.is_empty())
    }

    /// Record a call of `tool` made by an earlier run of a remembered conversation: let
    /// through, and `succeeded` when it returned an output.
    pub(crate) fn carry(&self, tool: &str, succeeded: bool) {
        self.note(tool, self.next_call());
        if succeeded {
            self.calls().succeeded.insert(tool.to_string());
        }
    }

    /// Whether some run of the tree constrains calls.
    pub(crate) fn is_watched(&self) -> bool {
        self.watched.load(Ordering::Relaxed)
    }

    /// Record calls from now on: a run of the tree constrains them.
    pub(crate) fn watch(&self) {
        self.watched.store(true, Ordering::Relaxed);
    }

    /// Record that `tool`'s body ran and returned an output.
    pub(crate) fn succeeded(&self, tool: &str) {
        if !self.watched.load(Ordering::Relaxed) {
            return;
        }
        let mut calls = self.calls();
        if !calls.succeeded.contains(tool) {
            calls.succeeded.insert(tool.to_string());
        }
    }

    /// Whether `tool`'s body ran and returned an output.
    pub(crate) fn has_succeeded(&self, tool: &str) -> bool {
        self.calls().succeeded.contains(tool)
    }
}
