//! Tests of the code's shape rather than its behaviour: the rules the tree
//! keeps on its own (one-way module graph, one source per rule, sizes).

mod field_tables;
mod module_graph;
mod one_source;
mod sizes;
mod source;
