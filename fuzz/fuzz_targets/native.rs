//! scenetree's own JSON format: any text is an error or a replica, never a panic, and what the
//! writer writes reads back as the same state.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use scenetree_dcl::io::native::{parse_native, to_native_json};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(replica) = parse_native(Path::new("fuzz.json"), text) else {
        return;
    };
    let written = to_native_json(&replica);
    let again = parse_native(Path::new("again.json"), &written)
        .expect("what the writer writes reads back");
    assert_eq!(again.state_messages(), replica.state_messages());
});
