//! Entity ids exactly as Decentraland's SDK7 runtime (`@dcl/ecs`) packs them.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A Decentraland entity id: the entity *number* in the low 16 bits and its *version* in the
/// high 16 bits (`id = number | version << 16`).
///
/// Numbers below [`Entity::RESERVED_STATIC_COUNT`] are reserved for the engine (the root, the
/// player, the camera, remote avatars); scene-created entities start at 512. When a number is
/// deleted it may come back with `version + 1`.
#[derive(
    Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Entity(pub u32);

impl Entity {
    /// The scene's root entity (number 0): the parent of every top-level entity.
    pub const ROOT: Entity = Entity(0);
    /// The local player's avatar (number 1), written by the renderer, not by the scene.
    pub const PLAYER: Entity = Entity(1);
    /// The camera (number 2), written by the renderer.
    pub const CAMERA: Entity = Entity(2);
    /// Entity numbers below this are reserved for the engine (`RESERVED_STATIC_ENTITIES`).
    pub const RESERVED_STATIC_COUNT: u16 = 512;
    /// The first number a scene allocates for its own entities.
    pub const FIRST_SCENE_NUMBER: u16 = Self::RESERVED_STATIC_COUNT;

    /// Packs a number and a version into an id.
    pub const fn from_parts(number: u16, version: u16) -> Entity {
        Entity(number as u32 | (version as u32) << 16)
    }

    /// The entity number (low 16 bits).
    pub const fn number(self) -> u16 {
        (self.0 & 0xFFFF) as u16
    }

    /// The entity version (high 16 bits): how many times this number was deleted and reused.
    pub const fn version(self) -> u16 {
        (self.0 >> 16) as u16
    }

    /// True when the number is one of the engine's reserved static entities (below 512), at any
    /// version. The runtime never tombstones these: a DELETE_ENTITY only clears their components.
    pub const fn is_reserved(self) -> bool {
        self.number() < Self::RESERVED_STATIC_COUNT
    }

    /// True for the scene root (id 0).
    pub const fn is_root(self) -> bool {
        self.0 == 0
    }

    /// The name Decentraland's tools use for the well-known reserved entities, if any.
    pub const fn reserved_name(self) -> Option<&'static str> {
        match self.0 {
            0 => Some("Root"),
            1 => Some("Player"),
            2 => Some("Camera"),
            _ => None,
        }
    }
}

impl fmt::Display for Entity {
    /// `512` for version 0, `512v3` for a reused number, as a user would read it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.version() == 0 {
            write!(f, "{}", self.number())
        } else {
            write!(f, "{}v{}", self.number(), self.version())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_number_low_and_version_high_like_dcl_ecs() {
        let e = Entity::from_parts(513, 2);
        assert_eq!(e.0, 513 | 2 << 16);
        assert_eq!(e.number(), 513);
        assert_eq!(e.version(), 2);
        assert_eq!(Entity(0xFFFF_FFFF).number(), 0xFFFF);
        assert_eq!(Entity(0xFFFF_FFFF).version(), 0xFFFF);
    }

    #[test]
    fn reserved_range_ignores_the_version() {
        assert!(Entity::ROOT.is_reserved());
        assert!(Entity::from_parts(511, 7).is_reserved());
        assert!(!Entity::from_parts(512, 0).is_reserved());
    }

    #[test]
    fn displays_version_only_when_reused() {
        assert_eq!(Entity::from_parts(512, 0).to_string(), "512");
        assert_eq!(Entity::from_parts(512, 3).to_string(), "512v3");
    }
}
