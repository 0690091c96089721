//! The `core::*` components of `@dcl/ecs` 7.28.0 with their fixed ids (its
//! `componentDefinitionByName`, plus `core::Transform`, which the engine defines itself).
//! A composite names core components; the runtime numbers them from this table, not by hash.

/// (id, name, grow-only, protobuf message) for every core component, sorted by id.
pub const CORE_COMPONENTS: &[(u32, &str, bool, &str)] = &[
    (1, "core::Transform", false, ""),
    (1017, "core::Material", false, "PBMaterial"),
    (1018, "core::MeshRenderer", false, "PBMeshRenderer"),
    (1019, "core::MeshCollider", false, "PBMeshCollider"),
    (1020, "core::AudioSource", false, "PBAudioSource"),
    (1021, "core::AudioStream", false, "PBAudioStream"),
    (1030, "core::TextShape", false, "PBTextShape"),
    (1040, "core::NftShape", false, "PBNftShape"),
    (1041, "core::GltfContainer", false, "PBGltfContainer"),
    (1042, "core::Animator", false, "PBAnimator"),
    (1043, "core::VideoPlayer", false, "PBVideoPlayer"),
    (1044, "core::VideoEvent", true, "PBVideoEvent"),
    (1048, "core::EngineInfo", false, "PBEngineInfo"),
    (
        1049,
        "core::GltfContainerLoadingState",
        false,
        "PBGltfContainerLoadingState",
    ),
    (1050, "core::UiTransform", false, "PBUiTransform"),
    (1052, "core::UiText", false, "PBUiText"),
    (1053, "core::UiBackground", false, "PBUiBackground"),
    (
        1054,
        "core::UiCanvasInformation",
        false,
        "PBUiCanvasInformation",
    ),
    (1060, "core::TriggerArea", false, "PBTriggerArea"),
    (1061, "core::TriggerAreaResult", true, "PBTriggerAreaResult"),
    (1062, "core::PointerEvents", false, "PBPointerEvents"),
    (
        1063,
        "core::PointerEventsResult",
        true,
        "PBPointerEventsResult",
    ),
    (1067, "core::Raycast", false, "PBRaycast"),
    (1068, "core::RaycastResult", false, "PBRaycastResult"),
    (
        1070,
        "core::AvatarModifierArea",
        false,
        "PBAvatarModifierArea",
    ),
    (1071, "core::CameraModeArea", false, "PBCameraModeArea"),
    (1072, "core::CameraMode", false, "PBCameraMode"),
    (1073, "core::AvatarAttach", false, "PBAvatarAttach"),
    (1074, "core::PointerLock", false, "PBPointerLock"),
    (1075, "core::MainCamera", false, "PBMainCamera"),
    (1076, "core::VirtualCamera", false, "PBVirtualCamera"),
    (1078, "core::InputModifier", false, "PBInputModifier"),
    (1079, "core::LightSource", false, "PBLightSource"),
    (1080, "core::AvatarShape", false, "PBAvatarShape"),
    (
        1081,
        "core::VisibilityComponent",
        false,
        "PBVisibilityComponent",
    ),
    (1087, "core::AvatarBase", false, "PBAvatarBase"),
    (
        1088,
        "core::AvatarEmoteCommand",
        true,
        "PBAvatarEmoteCommand",
    ),
    (
        1089,
        "core::PlayerIdentityData",
        false,
        "PBPlayerIdentityData",
    ),
    (1090, "core::Billboard", false, "PBBillboard"),
    (
        1091,
        "core::AvatarEquippedData",
        false,
        "PBAvatarEquippedData",
    ),
    (1093, "core::UiInput", false, "PBUiInput"),
    (1094, "core::UiDropdown", false, "PBUiDropdown"),
    (1095, "core::UiInputResult", false, "PBUiInputResult"),
    (1096, "core::UiDropdownResult", false, "PBUiDropdownResult"),
    (
        1099,
        "core::GltfNodeModifiers",
        false,
        "PBGltfNodeModifiers",
    ),
    (1102, "core::Tween", false, "PBTween"),
    (1103, "core::TweenState", false, "PBTweenState"),
    (1104, "core::TweenSequence", false, "PBTweenSequence"),
    (1105, "core::AudioEvent", true, "PBAudioEvent"),
    (1106, "core::RealmInfo", false, "PBRealmInfo"),
    (
        1209,
        "core::PrimaryPointerInfo",
        false,
        "PBPrimaryPointerInfo",
    ),
    (1210, "core::SkyboxTime", false, "PBSkyboxTime"),
    (
        1211,
        "core::AvatarLocomotionSettings",
        false,
        "PBAvatarLocomotionSettings",
    ),
    (1212, "core::AudioAnalysis", false, "PBAudioAnalysis"),
    (1213, "core::AssetLoad", false, "PBAssetLoad"),
    (
        1214,
        "core::AssetLoadLoadingState",
        true,
        "PBAssetLoadLoadingState",
    ),
    (
        1215,
        "core::PhysicsCombinedImpulse",
        false,
        "PBPhysicsCombinedImpulse",
    ),
    (
        1216,
        "core::PhysicsCombinedForce",
        false,
        "PBPhysicsCombinedForce",
    ),
    (1217, "core::ParticleSystem", false, "PBParticleSystem"),
    (
        1218,
        "core::TouchScreenControls",
        false,
        "PBTouchScreenControls",
    ),
    (1219, "core::UiInputBinding", false, "PBUiInputBinding"),
    (
        1220,
        "core::ExplorerUiEventsResult",
        true,
        "PBExplorerUiEventsResult",
    ),
    (1221, "core::AvatarNametag", false, "PBAvatarNametag"),
];

/// The fixed id of a `core::*` component name, or `None` when 7.28.0 has no such component.
pub fn core_component_id(name: &str) -> Option<u32> {
    CORE_COMPONENTS
        .iter()
        .find(|(_, n, _, _)| *n == name)
        .map(|(id, _, _, _)| *id)
}

/// The name of a core component id, if it is one.
pub fn core_component_name(id: u32) -> Option<&'static str> {
    core_entry(id).map(|(_, n, _, _)| *n)
}

/// True when the core component is a grow-only set (APPEND_VALUE), which composites never hold.
pub fn is_core_grow_only(id: u32) -> bool {
    // Hot: every CRDT message asks. Scene components (ids ≥ 2048, hashed) never are.
    id < 2048 && core_entry(id).is_some_and(|(_, _, grow_only, _)| *grow_only)
}

/// The table row of a core component (binary search: the table is sorted by id).
fn core_entry(id: u32) -> Option<&'static (u32, &'static str, bool, &'static str)> {
    CORE_COMPONENTS
        .binary_search_by_key(&id, |(i, _, _, _)| *i)
        .ok()
        .map(|i| &CORE_COMPONENTS[i])
}

/// The protobuf message name of a core component (`"PBMeshRenderer"`), as its `jsonSchema`'s
/// `protocolBuffer` says; `None` for Transform and unknown ids.
pub fn core_protocol_buffer(id: u32) -> Option<&'static str> {
    CORE_COMPONENTS
        .iter()
        .find(|(i, _, _, pb)| *i == id && !pb.is_empty())
        .map(|(_, _, _, pb)| *pb)
}

#[cfg(test)]
mod sorted_tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_by_id_for_binary_search() {
        assert!(CORE_COMPONENTS.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(is_core_grow_only(1063));
        assert!(!is_core_grow_only(1));
        assert_eq!(core_component_name(1018), Some("core::MeshRenderer"));
    }
}
