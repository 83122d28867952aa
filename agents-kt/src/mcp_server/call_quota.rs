//! How many `tools/call`s the server runs at once: a cap for all clients together, and a share
//! of it for each client, so one client holding its calls open cannot make every other wait.
//! A client is its principal (the HTTP authenticator's name), else the name it declared.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

pub(crate) struct CallQuota {
    all: Arc<Semaphore>,
    /// The cap for all clients, and each client's share of it (as set, for rebuilding).
    pub cap: usize,
    pub share: usize,
    /// The share the application set, kept when the cap changes after it.
    pub chosen_share: Option<usize>,
    /// Keyed by shared names: a call of a client already in the table copies no name.
    clients: Mutex<HashMap<Arc<str>, Arc<Semaphore>>>,
}

/// A call's two slots, its client's and the server's; given back when dropped.
pub(crate) struct Slots<'a> {
    quota: &'a CallQuota,
    client: Arc<str>,
    mine: Option<OwnedSemaphorePermit>,
    all: Option<OwnedSemaphorePermit>,
}

impl CallQuota {
    /// `cap` calls at once in all, `share` (at most `cap`) for any one client.
    pub(crate) fn new(cap: usize, share: usize) -> Self {
        let cap = cap.max(1);
        CallQuota {
            all: Arc::new(Semaphore::new(cap)),
            cap,
            share: share.clamp(1, cap),
            chosen_share: None,
            clients: Mutex::default(),
        }
    }

    /// The default share of a cap: half of it (at least one), so two busy clients fill the
    /// server and a third still gets in once one of their calls ends.
    pub(crate) fn half(cap: usize) -> usize {
        cap.div_ceil(2).max(1)
    }

    /// Waits for a slot of `client`'s share, then one of the server's (in that order: a client
    /// waiting on its own share holds none of the others'). `None`: the server is closing.
    pub(crate) async fn enter(&self, client: &str) -> Option<Slots<'_>> {
        let (name, own) = {
            let mut clients = self
                .clients
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            match clients.get_key_value(client) {
                Some((name, own)) => (Arc::clone(name), Arc::clone(own)),
                None => {
                    let (name, own) = (
                        Arc::<str>::from(client),
                        Arc::new(Semaphore::new(self.share)),
                    );
                    clients.insert(Arc::clone(&name), Arc::clone(&own));
                    (name, own)
                }
            }
        };
        let mut slots = Slots {
            quota: self,
            client: name,
            mine: None,
            all: None,
        };
        slots.mine = Some(own.acquire_owned().await.ok()?);
        slots.all = Some(Arc::clone(&self.all).acquire_owned().await.ok()?);
        Some(slots)
    }
}

impl Drop for Slots<'_> {
    fn drop(&mut self) {
        self.all.take();
        self.mine.take();
        // A client with nothing running and nobody waiting is kept while the table holds at
        // most `cap` clients — a client calling one tool at a time (the common case) would
        // otherwise be removed and put back on every call — and forgotten past that, so the
        // table holds at most `cap` idle clients beside those with calls.
        let mut clients = self
            .quota
            .clients
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if clients.len() > self.quota.cap
            && let Some(own) = clients.get(&*self.client)
            && Arc::strong_count(own) == 1
            && own.available_permits() == self.quota.share
        {
            clients.remove(&*self.client);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::CallQuota;

    fn clients(quota: &CallQuota) -> usize {
        quota.clients.lock().map_or(0, |clients| clients.len())
    }

    #[tokio::test]
    async fn an_idle_client_is_kept_up_to_the_cap_and_forgotten_past_it() {
        let quota = CallQuota::new(2, 1);
        for _ in 0..3 {
            let slots = quota.enter("one at a time").await;
            assert!(slots.is_some());
        }
        assert_eq!(clients(&quota), 1, "kept between its calls, not re-added");
        drop(quota.enter("second").await);
        assert_eq!(clients(&quota), 2);
        // A third client makes three entries, over the cap of 2: the idle one leaving goes.
        let third = quota.enter("third").await;
        drop(quota.enter("fourth").await);
        assert_eq!(
            clients(&quota),
            3,
            "past the cap, an idle client is forgotten"
        );
        drop(third);
        assert_eq!(clients(&quota), 2);
        // A client's share still holds: its second call waits while its first runs.
        let first = quota.enter("one at a time").await;
        let waiting = tokio::time::timeout(
            std::time::Duration::from_millis(50),
            quota.enter("one at a time"),
        )
        .await;
        assert!(waiting.is_err(), "the share of 1 is taken");
        drop(first);
    }
}
