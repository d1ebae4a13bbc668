//! Integration tests, one module per area.
