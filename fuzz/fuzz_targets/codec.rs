//! The protobuf component codec: the first byte picks one of the 62 components; the rest is
//! read both as protobuf bytes (decode, then the decoded JSON must encode and read back to
//! itself) and as JSON text (encode: bytes or an error naming the field, never a panic).
#![no_main]

use libfuzzer_sys::fuzz_target;
use scenetree_dcl::codec::{ProtoMessage, protocol_components};
use scenetree_dcl::js::contains_null;
use serde_json::Value;


fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let components: Vec<ProtoMessage> = protocol_components().map(|(_, m)| m).collect();
    let m = components[pick as usize % components.len()];
    if let Ok(json) = m.decode(rest) {
        let bytes = m.encode(&json).expect("decoded JSON encodes");
        if !contains_null(&json) {
            assert_eq!(m.decode(&bytes).expect("written bytes decode"), json);
        }
    }
    if let Ok(value) = serde_json::from_slice::<Value>(rest) {
        if let Ok(bytes) = m.encode(&value) {
            let json = m.decode(&bytes).expect("written bytes decode");
            if !contains_null(&json) {
                let again = m.encode(&json).expect("decoded JSON encodes");
                assert_eq!(m.decode(&again).expect("written bytes decode"), json);
            }
        } else if let Err(e) = m.encode(&value) {
            assert!(!e.message.is_empty());
        }
    }
});
