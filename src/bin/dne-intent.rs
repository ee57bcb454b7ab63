//! `dne-intent`: decode, encode and inspect DNE prepare-intent messages.
fn main() {}
