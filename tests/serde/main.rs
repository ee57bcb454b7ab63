//! The serde form (feature `serde`): round trips over every golden vector, the golden JSON of
//! `testdata/json/`, properties over arbitrary values, and the xattr document the tool prints.
//! One test binary; a module per part.

mod arbitrary_values;
#[path = "../common/mod.rs"]
mod common;
mod json;
#[path = "../require/mod.rs"]
mod require;
mod xattr_doc;
