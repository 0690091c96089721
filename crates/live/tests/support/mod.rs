//! Shared by the test binaries (and the bench, by path); each uses only part of it.
#![allow(dead_code)]

pub mod crdt;
pub mod dcl_host;
pub mod fake_host;
