//! scenetree's own JSON format: any text is an error or a replica. The fast typed reader and
//! the detailed reader it falls back to must agree (one accepting what the other refuses
//! would make a file's meaning depend on the reader), and what the writer writes reads back as
//! the same state.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use scenetree_dcl::io::native::{parse_native, parse_native_detailed, to_native_json};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("fuzz.json");
    let read = parse_native(path, text);
    let detailed = parse_native_detailed(path, text);
    let replica = match (read, detailed) {
        (Ok(fast), Ok(slow)) => {
            assert_eq!(fast.state_messages(), slow.state_messages(), "the readers disagree");
            fast
        }
        (Err(_), Err(_)) => return,
        (fast, slow) => panic!(
            "one reader accepts what the other refuses: {:?} / {:?}",
            fast.map(|_| ()),
            slow.map(|_| ())
        ),
    };
    let written = to_native_json(&replica);
    let again = parse_native(Path::new("again.json"), &written)
        .expect("what the writer writes reads back");
    assert_eq!(again.state_messages(), replica.state_messages());
});
