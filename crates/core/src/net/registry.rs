//! Which components a player's engine knows, in which order, and which the transports pass.
//!
//! The runtime walks its components in the order they were registered whenever it sends a
//! tick's updates (`getCrdtUpdates` component by component) and whenever it dumps its state, so
//! that order is part of the bytes. `@dcl/ecs` 7.28.0 registers Transform first (the engine
//! itself), NetworkEntity and NetworkParent next (the CRDT system), then the SDK's components
//! as its modules load; [`SDK_REGISTRATION_ORDER`] is that order as the `@dcl/ecs` bundle
//! leaves it. A component the table does not name (a scene's own) is registered when a player
//! first meets it, after all of these.

use std::sync::LazyLock;

use crate::model::{component_id_from_name, ids};

use super::components::SYNC_COMPONENTS;

/// Component ids in the order `@dcl/ecs` 7.28.0's default engine registers them (read from
/// `engine.componentsIter()` after loading the package).
pub const SDK_REGISTRATION_ORDER: &[u32] = &[
    ids::TRANSFORM,
    ids::NETWORK_ENTITY,
    ids::NETWORK_PARENT,
    1063, // PointerEventsResult
    1062, // PointerEvents
    1067, // Raycast
    1068, // RaycastResult
    1043, // VideoPlayer
    1044, // VideoEvent
    1020, // AudioSource
    1021, // AudioStream
    1105, // AudioEvent
    1214, // AssetLoadLoadingState
    1102, // Tween
    1103, // TweenState
    1104, // TweenSequence
    1061, // TriggerAreaResult
    1215, // PhysicsCombinedImpulse
    1048, // EngineInfo
    1216, // PhysicsCombinedForce
    1019, // MeshCollider
    1041, // GltfContainer
    1050, // UiTransform
    1042, // Animator
    1212, // AudioAnalysis
    1017, // Material
    1018, // MeshRenderer
    ids::NAME,
    4_148_173_090, // core-schema::Tags
    1076,          // VirtualCamera
    1078,          // InputModifier
    1079,          // LightSource
    1060,          // TriggerArea
    1217,          // ParticleSystem
    1218,          // TouchScreenControls
    SYNC_COMPONENTS,
    1213, // AssetLoad
    1073, // AvatarAttach
    1087, // AvatarBase
    1088, // AvatarEmoteCommand
    1091, // AvatarEquippedData
    1211, // AvatarLocomotionSettings
    1070, // AvatarModifierArea
    1221, // AvatarNametag
    1080, // AvatarShape
    1090, // Billboard
    1072, // CameraMode
    1071, // CameraModeArea
    1220, // ExplorerUiEventsResult
    1049, // GltfContainerLoadingState
    1099, // GltfNodeModifiers
    1075, // MainCamera
    1040, // NftShape
    1089, // PlayerIdentityData
    1074, // PointerLock
    1209, // PrimaryPointerInfo
    1106, // RealmInfo
    1210, // SkyboxTime
    1030, // TextShape
    1053, // UiBackground
    1054, // UiCanvasInformation
    1094, // UiDropdown
    1096, // UiDropdownResult
    1093, // UiInput
    1219, // UiInputBinding
    1095, // UiInputResult
    1052, // UiText
    1081, // VisibilityComponent
];

/// Components the sync layer never puts on the network (`NOT_SYNC_COMPONENTS` of
/// `@dcl/sdk/network/state`): VideoEvent, TweenState, AudioEvent, EngineInfo,
/// GltfContainerLoadingState, PhysicsCombinedForce, PhysicsCombinedImpulse, PointerEventsResult,
/// RaycastResult, RealmInfo, UiDropdown, UiDropdownResult, UiInput, UiInputResult, UiTransform,
/// UiText, TriggerAreaResult.
const NOT_SYNC_IDS: &[u32] = &[
    1044, 1103, 1105, 1048, 1049, 1216, 1215, 1063, 1068, 1106, 1094, 1096, 1093, 1095, 1050, 1052,
    1061,
];

/// Components excluded from sync by name (`NOT_SYNC_COMPONENTS_NAMES`).
const NOT_SYNC_NAMES: &[&str] = &["asset-packs::Script", "asset-packs::ActionTypes"];

/// The ids of [`NOT_SYNC_NAMES`], hashed once.
static NOT_SYNC_NAMED_IDS: LazyLock<Vec<u32>> = LazyLock::new(|| {
    NOT_SYNC_NAMES
        .iter()
        .map(|n| component_id_from_name(n))
        .collect()
});

/// The SDK's `shouldSyncComponent`: false for the components that never travel.
pub fn should_sync_component(component: u32) -> bool {
    !NOT_SYNC_IDS.contains(&component) && !NOT_SYNC_NAMED_IDS.contains(&component)
}

/// The renderer transport's filter for component messages: only the protocol's own components
/// (ids up to `MAX_STATIC_COMPONENT`, 2048) reach the renderer; NetworkEntity, NetworkParent,
/// SyncComponents and every scene-defined component do not.
pub fn reaches_renderer(component: Option<u32>) -> bool {
    component.is_none_or(|c| c <= crate::model::MAX_STATIC_COMPONENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_starts_as_the_engine_registers_and_has_no_repeats() {
        assert_eq!(
            &SDK_REGISTRATION_ORDER[..3],
            &[ids::TRANSFORM, ids::NETWORK_ENTITY, ids::NETWORK_PARENT]
        );
        let mut sorted = SDK_REGISTRATION_ORDER.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), SDK_REGISTRATION_ORDER.len());
    }

    #[test]
    fn transforms_sync_and_realm_info_does_not() {
        assert!(should_sync_component(ids::TRANSFORM));
        assert!(!should_sync_component(1106));
        assert!(!should_sync_component(component_id_from_name(
            "asset-packs::Script"
        )));
        assert!(reaches_renderer(Some(ids::TRANSFORM)));
        assert!(reaches_renderer(None));
        assert!(!reaches_renderer(Some(ids::NETWORK_PARENT)));
    }
}
