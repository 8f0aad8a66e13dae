//! Analysis: pure functions from the run model to figures. Each is
//! unit-tested on small hand-made cases with numbers worked out by hand.

pub mod contention;
pub mod costs;
pub mod critical;
pub mod fleet;
pub mod intervals;
pub mod join;
pub mod node_time;
pub mod nodes;
pub mod phases;
pub mod pooling;
pub mod replay;
pub mod spread;
pub mod step_diff;
pub mod steps;
pub mod targets;
pub mod uploads;
pub mod window;
pub mod write_cuts;
