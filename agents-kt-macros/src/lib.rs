//! Procedural macros for [agents-kt](https://docs.rs/agents-kt).
//!
//! Use them through the `agents_kt` crate, which re-exports every macro; this crate is an
//! implementation detail and is not meant to be depended on directly.
