//! The surfaces an embedder uses: errors, the one entry point for either kind of message,
//! values validated once, views re-encoded without validating again, the hex reader against the
//! real dump tools, the text forms of flags and enumerations, and the benchmarks' owned
//! baseline held to the crate. One test binary; a module per surface.

mod baseline;
#[path = "../common/mod.rs"]
mod common;
mod ergonomics;
mod hex;
mod hex_fixtures;
mod message;
#[path = "../require/mod.rs"]
mod require;
mod require_check;
mod text_forms;
mod validated_value;
mod validated_view;
