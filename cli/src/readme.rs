//! Only for `cargo test --doc`: the top-level README's examples (the codec's and the model's) run
//! as doc tests of the tool's package, the one that depends on every crate and is never
//! published.

#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
