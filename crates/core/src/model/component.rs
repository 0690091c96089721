//! Component ids: Decentraland's well-known numbers, and the hash the runtime uses to number
//! components it only knows by name.

/// Numbers of the components scenetree understands or names. Ids of the `core::*` components
/// are fixed by the protocol; `core-schema::*` and `inspector::*` ids are derived from their
/// names with [`component_id_from_name`] (values checked against `@dcl/ecs` 7.28.0).
pub mod ids {
    /// `core::Transform`.
    pub const TRANSFORM: u32 = 1;
    /// `core::Material`.
    pub const MATERIAL: u32 = 1017;
    /// `core::MeshRenderer`.
    pub const MESH_RENDERER: u32 = 1018;
    /// `core::MeshCollider`.
    pub const MESH_COLLIDER: u32 = 1019;
    /// `core::TextShape`.
    pub const TEXT_SHAPE: u32 = 1030;
    /// `core::NftShape`.
    pub const NFT_SHAPE: u32 = 1040;
    /// `core::GltfContainer`.
    pub const GLTF_CONTAINER: u32 = 1041;
    /// `core::Animator`.
    pub const ANIMATOR: u32 = 1042;
    /// `core::VisibilityComponent`.
    pub const VISIBILITY: u32 = 1081;
    /// `core-schema::Name`.
    pub const NAME: u32 = 3_864_921_337;
    /// `core-schema::Network-Entity`.
    pub const NETWORK_ENTITY: u32 = 1_075_645_054;
    /// `core-schema::Network-Parent`.
    pub const NETWORK_PARENT: u32 = 1_420_531_287;
}

/// Names of the components scenetree names that are numbered by hashing their name (the
/// `core::*` components have fixed numbers: see [`super::CORE_COMPONENTS`]).
const HASHED_NAMES: &[(u32, &str)] = &[
    (ids::NAME, "core-schema::Name"),
    (ids::NETWORK_ENTITY, "core-schema::Network-Entity"),
    (ids::NETWORK_PARENT, "core-schema::Network-Parent"),
    (4_148_173_090, "core-schema::Tags"),
    (2_241_712_969, "core-schema::Sync-Components"),
    (2_032_030_903, "inspector::Nodes"),
];

/// The first id the runtime gives to a component known only by name (`MAX_STATIC_COMPONENT`).
pub const MAX_STATIC_COMPONENT: u32 = 1 << 11;

/// The id `@dcl/ecs` derives from a component name that has no fixed number: CRC-32 (IEEE) of
/// the name's UTF-8 bytes zero-padded to 128 bytes, plus 2048, modulo 2³².
pub fn component_id_from_name(name: &str) -> u32 {
    if let Some(id) = super::core_ids::core_component_id(name) {
        return id;
    }
    let mut padded = [0u8; 128];
    let bytes = name.as_bytes();
    let n = bytes.len().min(128); // the runtime writes into a 128-byte buffer and drops the rest
    padded[..n].copy_from_slice(&bytes[..n]);
    crc32fast::hash(&padded).wrapping_add(MAX_STATIC_COMPONENT)
}

/// The component's name when scenetree knows it (`"core::Transform"`), else `None`.
pub fn component_name(id: u32) -> Option<&'static str> {
    super::core_ids::core_component_name(id).or_else(|| {
        HASHED_NAMES
            .iter()
            .find(|(known, _)| *known == id)
            .map(|(_, name)| *name)
    })
}

/// True for the protocol's grow-only value-set components (written with APPEND_VALUE); every
/// other id is a last-writer-wins element set.
pub fn is_grow_only(id: u32) -> bool {
    super::core_ids::is_core_grow_only(id)
}

/// Names of non-core components that Decentraland's tools write into scenes (the Inspector's
/// `inspector::*` and the smart items' `asset-packs::*`), known here only to show their names.
/// Their ids are hashed from the names.
const TOOL_COMPONENT_NAMES: &[&str] = &[
    "composite::root",
    "inspector::Selection",
    "inspector::Nodes",
    "inspector::SceneMetadata",
    "inspector::SceneMetadata-v1",
    "inspector::TransformConfig",
    "inspector::Config",
    "inspector::Lock",
    "inspector::Hide",
    "inspector::UIState",
    "inspector::Ground",
    "inspector::Tile",
    "inspector::CustomAsset",
    "asset-packs::ActionTypes",
    "asset-packs::Actions",
    "asset-packs::Counter",
    "asset-packs::Triggers",
    "asset-packs::States",
    "asset-packs::AdminTools",
    "asset-packs::CounterBar",
    "asset-packs::Rewards",
    "asset-packs::VideoControlState",
    "asset-packs::Script",
];

/// The id the runtime gives a component name: the fixed number of a `core::*` component (`None`
/// when `@dcl/ecs` 7.28.0 has no such core component), else the hash of the name.
pub fn component_id(name: &str) -> Option<u32> {
    if name.starts_with("core::") {
        super::core_ids::core_component_id(name)
    } else {
        Some(component_id_from_name(name))
    }
}

/// The component's name when scenetree knows it: core components, `core-schema::*`, and the
/// Inspector's and smart items' components.
pub fn known_component_name(id: u32) -> Option<&'static str> {
    component_name(id).or_else(|| {
        // The ids are hashes of the names: hashed once, not on every lookup (the
        // inspector and the peers' message table name components every frame).
        static TOOL_IDS: std::sync::OnceLock<Vec<(u32, &'static str)>> = std::sync::OnceLock::new();
        TOOL_IDS
            .get_or_init(|| {
                (TOOL_COMPONENT_NAMES.iter())
                    .map(|&n| (component_id_from_name(n), n))
                    .collect()
            })
            .iter()
            .find(|&&(known, _)| known == id)
            .map(|&(_, name)| name)
    })
}

/// The component's name for display: its known name, else `component #<id>`.
pub fn display_component_name(id: u32) -> String {
    known_component_name(id).map_or_else(|| format!("component #{id}"), str::to_owned)
}

/// Decodes the `core-schema::Name` value: a UTF-8 string with a little-endian u32 length
/// prefix (`Schemas.Map({ value: Schemas.String })`). `None` when the bytes are not exactly that.
pub fn decode_name(bytes: &[u8]) -> Option<String> {
    let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    let text = bytes.get(4..)?;
    (text.len() == len)
        .then(|| String::from_utf8(text.to_vec()).ok())
        .flatten()
}

/// Encodes a `core-schema::Name` value.
pub fn encode_name(name: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + name.len());
    out.extend_from_slice(&(name.len() as u32).to_le_bytes());
    out.extend_from_slice(name.as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_malformed_ones_are_refused() {
        assert_eq!(
            decode_name(&encode_name("Lamp ✨")).as_deref(),
            Some("Lamp ✨")
        );
        assert_eq!(
            decode_name(&[3, 0, 0, 0, b'a']),
            None,
            "length prefix says 3, one byte follows"
        );
        assert_eq!(decode_name(&[1, 0, 0, 0, 0xFF]), None, "not UTF-8");
        assert_eq!(decode_name(&[]), None);
    }

    #[test]
    fn hashed_ids_match_dcl_ecs() {
        // Values printed by @dcl/ecs 7.28.0's componentNumberFromName.
        assert_eq!(component_id_from_name("core-schema::Name"), ids::NAME);
        assert_eq!(
            component_id_from_name("core-schema::Network-Entity"),
            ids::NETWORK_ENTITY
        );
        assert_eq!(component_id_from_name("inspector::Nodes"), 2_032_030_903);
        assert_eq!(component_id_from_name("scenetree::OpaqueA"), 2_471_556_448);
    }

    #[test]
    fn core_components_keep_their_fixed_numbers() {
        assert_eq!(component_id_from_name("core::Transform"), 1);
        assert_eq!(component_id_from_name("core::GltfContainer"), 1041);
        assert_eq!(component_name(1018), Some("core::MeshRenderer"));
        assert!(is_grow_only(1063));
        assert!(!is_grow_only(1));
    }

    #[test]
    fn every_listed_hashed_name_agrees_with_its_id() {
        for &(id, name) in HASHED_NAMES {
            assert!(id >= MAX_STATIC_COMPONENT);
            assert_eq!(component_id_from_name(name), id, "{name}");
        }
    }
}
