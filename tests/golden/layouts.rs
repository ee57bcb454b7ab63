//! Every structure's [`Layout`] as a debug dump, pinned in `testdata/layouts.txt`: the C header,
//! the dissector, the series and the mutator read these, so a change to a declaration shows
//! here first. `UPDATE_GOLDEN=1` rewrites the file (review the diff).

use lustre_dne_intent::structures;

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/layouts.txt");

#[test]
fn every_layout_is_as_pinned() {
    let mut dump = String::new();
    for l in structures::ALL {
        dump.push_str(&format!("{l:#?}\n"));
    }
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(PATH, &dump).expect("write testdata/layouts.txt");
    }
    let pinned = std::fs::read_to_string(PATH).expect("testdata/layouts.txt");
    assert!(
        pinned == dump,
        "layouts differ from testdata/layouts.txt (UPDATE_GOLDEN=1 to rewrite)"
    );
}
