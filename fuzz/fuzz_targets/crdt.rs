//! main.crdt reader and the order-keeping writer: any bytes are an error or a stream whose
//! save reads back as the same state.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use scenetree_core::crdt::Replica;
use scenetree_dcl::io::dcl_crdt::{CrdtLayout, parse_crdt, to_crdt_bytes_in_layout};

fuzz_target!(|data: &[u8]| {
    let Ok(file) = parse_crdt(Path::new("fuzz.crdt"), data) else {
        return;
    };
    let replica = Replica::from_messages(&file.messages);
    let layout = CrdtLayout::from_messages(&file.messages);
    let saved = to_crdt_bytes_in_layout(&replica, &layout);
    let again = parse_crdt(Path::new("again.crdt"), &saved).expect("the writer writes a valid stream");
    let back = Replica::from_messages(&again.messages);
    assert_eq!(back.digest(), replica.digest());
});
