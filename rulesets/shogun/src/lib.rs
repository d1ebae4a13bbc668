//! Shogun.
