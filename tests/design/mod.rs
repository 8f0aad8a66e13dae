//! Tests of the code's shape rather than its behaviour: the rules the tree
//! keeps on its own (one-way module graph, one source per rule, sizes, the
//! library's public surface, documents that speak to users).

mod documents;
mod field_tables;
mod module_graph;
mod one_input;
mod one_source;
mod public_surface;
mod sizes;
mod source;
