//! `dne-intent wireshark-lua`.

/// The dissector.
pub fn dissector() -> String {
    String::new()
}
