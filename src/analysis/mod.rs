//! Analysis: pure functions from the run model to figures. Each is
//! unit-tested on small hand-made cases with numbers worked out by hand.

pub(crate) mod contention;
pub(crate) mod costs;
pub(crate) mod critical;
pub(crate) mod fleet;
pub(crate) mod intervals;
pub(crate) mod join;
pub(crate) mod levels;
pub(crate) mod node_time;
pub mod nodes;
pub(crate) mod phases;
pub(crate) mod pooling;
pub(crate) mod replay;
pub(crate) mod spread;
pub(crate) mod step_diff;
pub(crate) mod steps;
pub mod targets;
pub(crate) mod uploads;
pub(crate) mod window;
pub(crate) mod write_cuts;
