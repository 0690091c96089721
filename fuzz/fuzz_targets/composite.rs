//! main.composite reader and writer: any text is an error or a document that writes back and
//! reads again as the same values.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use scenetree_dcl::io::dcl_composite::{composite_json, parse_composite};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok((replica, doc, _)) = parse_composite(Path::new("fuzz.composite"), text) else {
        return;
    };
    let written = composite_json(&replica, &doc);
    let (again, _, _) = parse_composite(Path::new("again.composite"), &written.text)
        .expect("what the writer writes reads back");
    assert_eq!(again.state_messages(), replica.state_messages());
});
