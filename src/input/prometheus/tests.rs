//! The read against answers written here: the steps, the polls they make,
//! and what is said of what is missing.
