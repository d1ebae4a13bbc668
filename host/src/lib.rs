//! The Tenka host runtime.
