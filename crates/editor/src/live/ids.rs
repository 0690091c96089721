//! Entity ids for entities a live session creates. The Inspector's `engine.addEntity` takes
//! the next number from 512 upwards, so scenetree takes its numbers from the upper half
//! (32,768 to 65,535), in blocks of 256: each session starts in a block chosen at random among
//! those no entity of the snapshot uses, so two scenetree windows creating entities at once
//! almost never pick the same numbers (1 in 128 when both start in an empty upper half).

use std::hash::{BuildHasher, Hasher};

use scenetree_core::crdt::Replica;
use scenetree_core::model::Entity;

/// The first entity number a live session creates entities from.
pub const FIRST_LIVE_NUMBER: u16 = 32_768;
/// Numbers per block.
const BLOCK_LEN: u16 = 256;
/// Blocks in the live range.
const BLOCKS: u16 = ((u16::MAX as u32 + 1 - FIRST_LIVE_NUMBER as u32) / BLOCK_LEN as u32) as u16;

/// Where a session takes new entity numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdRange {
    /// The block tried first (0 to 127).
    first_block: u16,
}

impl IdRange {
    /// A block no entity of `replica` uses, chosen at random (any block when all are used).
    pub fn choose(replica: &Replica) -> IdRange {
        let mut used = vec![false; usize::from(BLOCKS)];
        for e in replica.live_entities() {
            if let Some(b) = block_of(e.number()) {
                used[usize::from(b)] = true;
            }
        }
        let free: Vec<u16> = (0..BLOCKS).filter(|&b| !used[usize::from(b)]).collect();
        let pick = random() as usize;
        let first_block = match free.len() {
            0 => (pick % usize::from(BLOCKS)) as u16,
            n => free[pick % n],
        };
        IdRange { first_block }
    }

    /// This range starting at block `first_block` (tests).
    pub fn at_block(first_block: u16) -> IdRange {
        IdRange {
            first_block: first_block % BLOCKS,
        }
    }

    /// The first number of the block tried first.
    pub fn first_number(&self) -> u16 {
        FIRST_LIVE_NUMBER + self.first_block * BLOCK_LEN
    }

    /// `n` free ids: from the session's block, then the blocks after it (wrapping), smallest
    /// numbers first within a block; `taken(number)` marks numbers in use beyond the replica's
    /// (an implicit parent someone points at). Fewer than `n` when the range is full.
    pub fn free(&self, replica: &Replica, n: usize, taken: impl Fn(u16) -> bool) -> Vec<Entity> {
        let mut out: Vec<Entity> = Vec::with_capacity(n);
        for step in 0..BLOCKS {
            if out.len() >= n {
                break;
            }
            // Each block is visited once, so nothing found so far lies in this one.
            let block = (self.first_block + step) % BLOCKS;
            let found = replica.free_entities(n - out.len(), |number| {
                block_of(number) != Some(block) || taken(number)
            });
            out.extend(found);
        }
        out
    }
}

/// The live block a number falls in.
fn block_of(number: u16) -> Option<u16> {
    number
        .checked_sub(FIRST_LIVE_NUMBER)
        .map(|offset| offset / BLOCK_LEN)
}

/// A random number from the standard library's per-process hash keys (no generator needed for
/// one pick per session).
fn random() -> u64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    hasher.write_u32(std::process::id());
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use scenetree_core::crdt::CrdtMessage;
    use scenetree_core::model::Transform;

    fn with_entity(number: u16) -> Replica {
        Replica::from_messages(&[CrdtMessage::PutComponent {
            entity: Entity::from_parts(number, 0),
            component: Transform::COMPONENT_ID,
            timestamp: 1,
            data: Transform::IDENTITY.to_bytes().to_vec(),
        }])
    }

    #[test]
    fn ids_come_from_the_block_then_the_next() {
        let replica = with_entity(FIRST_LIVE_NUMBER + 1);
        let range = IdRange::at_block(0);
        let ids = range.free(&replica, 3, |_| false);
        let numbers: Vec<u16> = ids.iter().map(|e| e.number()).collect();
        assert_eq!(numbers, [32_768, 32_770, 32_771]);
        let last = IdRange::at_block(BLOCKS - 1);
        let wrapped = last.free(&Replica::new(), 257, |_| false);
        assert_eq!(wrapped.len(), 257);
        assert_eq!(wrapped[255].number(), u16::MAX);
        assert_eq!(wrapped[256].number(), FIRST_LIVE_NUMBER);
    }

    #[test]
    fn a_session_avoids_blocks_the_scene_uses() {
        for _ in 0..20 {
            let range = IdRange::choose(&with_entity(FIRST_LIVE_NUMBER + 5));
            assert_ne!(range.first_number(), FIRST_LIVE_NUMBER);
            assert!(range.first_number() >= FIRST_LIVE_NUMBER);
        }
    }
}
