//! The `core::*` components of `@dcl/ecs` 7.28.0 with their fixed ids (its
//! `componentDefinitionByName`, plus `core::Transform`, which the engine defines itself).
//! A composite names core components; the runtime numbers them from this table, not by hash.

/// (id, name, grow-only) for every core component, sorted by id.
pub const CORE_COMPONENTS: &[(u32, &str, bool)] = &[
    (1, "core::Transform", false),
    (1017, "core::Material", false),
    (1018, "core::MeshRenderer", false),
    (1019, "core::MeshCollider", false),
    (1020, "core::AudioSource", false),
    (1021, "core::AudioStream", false),
    (1030, "core::TextShape", false),
    (1040, "core::NftShape", false),
    (1041, "core::GltfContainer", false),
    (1042, "core::Animator", false),
    (1043, "core::VideoPlayer", false),
    (1044, "core::VideoEvent", true),
    (1048, "core::EngineInfo", false),
    (1049, "core::GltfContainerLoadingState", false),
    (1050, "core::UiTransform", false),
    (1052, "core::UiText", false),
    (1053, "core::UiBackground", false),
    (1054, "core::UiCanvasInformation", false),
    (1060, "core::TriggerArea", false),
    (1061, "core::TriggerAreaResult", true),
    (1062, "core::PointerEvents", false),
    (1063, "core::PointerEventsResult", true),
    (1067, "core::Raycast", false),
    (1068, "core::RaycastResult", false),
    (1070, "core::AvatarModifierArea", false),
    (1071, "core::CameraModeArea", false),
    (1072, "core::CameraMode", false),
    (1073, "core::AvatarAttach", false),
    (1074, "core::PointerLock", false),
    (1075, "core::MainCamera", false),
    (1076, "core::VirtualCamera", false),
    (1078, "core::InputModifier", false),
    (1079, "core::LightSource", false),
    (1080, "core::AvatarShape", false),
    (1081, "core::VisibilityComponent", false),
    (1087, "core::AvatarBase", false),
    (1088, "core::AvatarEmoteCommand", true),
    (1089, "core::PlayerIdentityData", false),
    (1090, "core::Billboard", false),
    (1091, "core::AvatarEquippedData", false),
    (1093, "core::UiInput", false),
    (1094, "core::UiDropdown", false),
    (1095, "core::UiInputResult", false),
    (1096, "core::UiDropdownResult", false),
    (1099, "core::GltfNodeModifiers", false),
    (1102, "core::Tween", false),
    (1103, "core::TweenState", false),
    (1104, "core::TweenSequence", false),
    (1105, "core::AudioEvent", true),
    (1106, "core::RealmInfo", false),
    (1209, "core::PrimaryPointerInfo", false),
    (1210, "core::SkyboxTime", false),
    (1211, "core::AvatarLocomotionSettings", false),
    (1212, "core::AudioAnalysis", false),
    (1213, "core::AssetLoad", false),
    (1214, "core::AssetLoadLoadingState", true),
    (1215, "core::PhysicsCombinedImpulse", false),
    (1216, "core::PhysicsCombinedForce", false),
    (1217, "core::ParticleSystem", false),
    (1218, "core::TouchScreenControls", false),
    (1219, "core::UiInputBinding", false),
    (1220, "core::ExplorerUiEventsResult", true),
    (1221, "core::AvatarNametag", false),
];

/// The fixed id of a `core::*` component name, or `None` when 7.28.0 has no such component.
pub fn core_component_id(name: &str) -> Option<u32> {
    CORE_COMPONENTS
        .iter()
        .find(|(_, n, _)| *n == name)
        .map(|(id, _, _)| *id)
}

/// The name of a core component id, if it is one.
pub fn core_component_name(id: u32) -> Option<&'static str> {
    CORE_COMPONENTS
        .iter()
        .find(|(i, _, _)| *i == id)
        .map(|(_, n, _)| *n)
}

/// True when the core component is a grow-only set (APPEND_VALUE), which composites never hold.
pub fn is_core_grow_only(id: u32) -> bool {
    CORE_COMPONENTS.iter().any(|(i, _, g)| *i == id && *g)
}
