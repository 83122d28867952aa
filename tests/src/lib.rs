//! Shared fixtures for the end-to-end tests in `tests/tests/`: small tools with observable side
//! effects, and helpers to collect what observers saw.
