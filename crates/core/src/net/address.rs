//! A player's network id, derived from its address as `@dcl/sdk` 7.28.0 derives it.

use crate::model::component_id_from_name;

/// The network id `@dcl/sdk` gives the player with this address (`fetchProfile`, which calls
/// `componentNumberFromName(userId)`): CRC-32 of the address's UTF-8 bytes zero-padded to 128
/// bytes (longer addresses are cut at 128), plus 2048, modulo 2³². The address is used as
/// given: `0xAB…` and `0xab…` are different players.
pub fn network_id_from_address(address: &str) -> u32 {
    component_id_from_name(address)
}

/// An address shortened for columns and badges: `0x1234…5678` (the first six and last four
/// characters), or the whole address when it is short.
pub fn short_address(address: &str) -> String {
    let chars: Vec<char> = address.chars().collect();
    if chars.len() <= 12 {
        return address.to_string();
    }
    let head: String = chars[..6].iter().collect();
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{head}…{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_sdk_for_a_known_address() {
        // Checked with `componentNumberFromName` of @dcl/ecs 7.28.0 in Node.
        assert_eq!(
            network_id_from_address("0x1234567890123456789012345678901234567890"),
            3_626_379_942
        );
        assert_eq!(
            network_id_from_address("0xabcdef0000000000000000000000000000000001"),
            1_085_414_731
        );
        // The CRC of the address alone (no padding to 128 bytes) gives another id.
        let unpadded = crc32fast::hash(b"0x1234567890123456789012345678901234567890");
        assert_ne!(unpadded.wrapping_add(2048), 3_626_379_942);
    }

    #[test]
    fn letter_case_matters() {
        assert_ne!(
            network_id_from_address("0xabcdef0000000000000000000000000000000001"),
            network_id_from_address("0xABCDEF0000000000000000000000000000000001")
        );
    }

    #[test]
    fn short_addresses_keep_both_ends() {
        assert_eq!(
            short_address("0x1234567890123456789012345678901234567890"),
            "0x1234…7890"
        );
        assert_eq!(short_address("alice"), "alice");
    }
}
