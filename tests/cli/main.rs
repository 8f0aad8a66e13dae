//! End-to-end tests: the real binary on real fixtures, the bundled sample
//! runs and hand-made runs. Each test is named after the feature or bug it pins.

#[path = "../browser/mod.rs"]
mod page;

#[path = "../hostile/inputs.rs"]
mod hostile;

#[path = "../tools/outputs.rs"]
mod tools;

#[path = "../hostile/paths.rs"]
mod hostile_paths;

#[path = "../charts/pictures.rs"]
mod pictures;

#[path = "../hostile/links.rs"]
mod links;

#[path = "../hostile/named_outputs.rs"]
mod named_outputs;

#[path = "../hostile/named_inputs.rs"]
mod named_inputs;

#[path = "../hostile/strings/mod.rs"]
mod strings;

#[path = "../serve/limits.rs"]
mod serve_limits;

#[path = "../hostile/bounds.rs"]
mod bounds;

#[path = "../trust/nulls.rs"]
mod trust;

#[path = "../placement/mod.rs"]
mod placement;

#[path = "../history/mod.rs"]
mod history;

#[path = "../perf/family.rs"]
mod family;

#[path = "../perf/samples_fold.rs"]
mod samples_fold;

#[path = "../perf/allocations.rs"]
mod allocations;

#[path = "../design/mod.rs"]
mod design;

#[path = "../prometheus/mod.rs"]
mod prometheus;

mod buildlog;
mod check;
mod compare;
mod critical;
mod gate;
mod metrics;
mod publish;
mod ratios;
mod report;
mod serve;
mod trace;
mod util;
mod window;

// The area modules above name the shared helpers as `super::…`.
use util::*;
