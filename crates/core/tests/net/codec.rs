//! The comms codec never panics and names the offset of what is wrong.

use proptest::prelude::*;
use scenetree_core::crdt::stream::{Dialect, StreamReader};
use scenetree_core::net::comms::{decode_inbound, decode_outbound, decode_state_response};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn random_bytes_decode_or_fail_with_an_offset_inside_the_item(
        bytes in proptest::collection::vec(any::<u8>(), 0..96),
        authoritative in any::<bool>(),
    ) {
        let dialect = if authoritative { Dialect::Authoritative } else { Dialect::Mainline };
        match decode_inbound(&bytes, dialect) {
            Ok(item) => {
                prop_assert!(item.item_offset < bytes.len());
                let _ = decode_state_response(item.item.payload);
                for message in StreamReader::with_dialect(item.item.payload, dialect) {
                    if let Err(e) = message {
                        prop_assert!(e.offset < item.item.payload.len());
                        let prefix = format!("at byte {}", e.offset);
                        prop_assert!(e.to_string().starts_with(&prefix));
                    }
                }
            }
            Err(e) => prop_assert!(e.offset <= bytes.len()),
        }
        let _ = decode_outbound(&bytes, dialect);
    }
}
