//! The line reader (blocks, chunks, sinks in file order, the incremental
//! resume) lives in the line engine, `perfreport_scan::lines`, beside the
//! JSON field extraction its sinks use; the parsers here are its sinks.

pub use perfreport_scan::lines::*;
