//! What a user can ask the editor to do. Panels build these; [`super::Document::apply`] is the
//! one place that turns them into replica writes.

use scenetree_core::model::{Entity, Transform, TransformDecodeError};

/// A user edit.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Replace the local Transforms (parent space) of entities, e.g. an inspector edit or a
    /// gizmo drag. A changed `parent` is checked for cycles like a reparent.
    SetTransforms(Vec<(Entity, Transform)>),
    /// Move entities under `parent` (the root is [`Entity::ROOT`]). With `keep_world` the local
    /// values are recomputed so each entity stays where it is in the world; without it the local
    /// values are kept and the entity moves with its new parent.
    Reparent {
        entities: Vec<Entity>,
        parent: Entity,
        keep_world: bool,
    },
    /// Move entities among `parent`'s children, right after the child `after` (`None`: first),
    /// as a drop between two rows does: the sibling order is stored in `inspector::Nodes` (built
    /// from the scene the way the Decentraland Inspector builds it when the scene has none).
    /// Entities from another parent are reparented as by [`Command::Reparent`] with
    /// `keep_world`. Several entities keep their display order.
    Reorder {
        entities: Vec<Entity>,
        parent: Entity,
        after: Option<Entity>,
        keep_world: bool,
    },
    /// Set (or with an empty string, remove) the `core-schema::Name`.
    Rename { entity: Entity, name: String },
    /// Create an entity under `parent` at its origin, with a name and optional extra components
    /// (component id, value), e.g. a MeshRenderer. A Transform among them (whose parent must be
    /// `parent`) places it elsewhere. A name already in use is numbered ("Entity" →
    /// "Entity_2", as the Decentraland Inspector does).
    Create {
        parent: Entity,
        name: String,
        components: Vec<(u32, Vec<u8>)>,
    },
    /// Copy entities with their whole subtrees (every component), next to the originals; each
    /// copied top is numbered ("Lamp" → "Lamp_2"), its descendants keep their names.
    Duplicate { entities: Vec<Entity> },
    /// What Duplicate does, for a paste of copied entities (named "Paste" in the history).
    Paste { entities: Vec<Entity> },
    /// Remove entities with their whole subtrees (every component value is deleted; the ids stay
    /// valid so the deletion can be undone exactly).
    Delete { entities: Vec<Entity> },
    /// Hide or show entities with everything below them, as the Decentraland Inspector does:
    /// `inspector::Hide` on each (removed to show).
    SetHidden { entities: Vec<Entity>, hidden: bool },
    /// Lock or unlock entities (not their children), as the Inspector does: `inspector::Lock`.
    SetLocked { entities: Vec<Entity>, locked: bool },
    /// Set or remove one component value, as raw bytes.
    SetComponent {
        entity: Entity,
        component: u32,
        value: Option<Vec<u8>>,
    },
}

impl Command {
    /// The verb that names the command's undo step ("Reparent"); the step's label adds what it
    /// acted on (see `Document::step_label`).
    pub fn label(&self) -> &'static str {
        match self {
            Command::SetTransforms(_) => "Transform",
            Command::Reparent { .. } => "Reparent",
            Command::Reorder { .. } => "Reorder",
            Command::Rename { .. } => "Rename",
            Command::Create { .. } => "Create Entity",
            Command::Duplicate { .. } => "Duplicate",
            Command::Paste { .. } => "Paste",
            Command::Delete { .. } => "Delete",
            Command::SetHidden { hidden: true, .. } => "Hide",
            Command::SetHidden { hidden: false, .. } => "Show",
            Command::SetLocked { locked: true, .. } => "Lock",
            Command::SetLocked { locked: false, .. } => "Unlock",
            Command::SetComponent { .. } => "Edit Component",
        }
    }
}

/// Why an edit was refused. Nothing was written when this is returned.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EditError {
    /// A number was NaN or infinite.
    #[error("{field} of entity {entity} must be a finite number")]
    NotFinite { entity: Entity, field: &'static str },
    /// A rotation quaternion of (near) zero length has no direction.
    #[error("the rotation of entity {entity} has zero length; a quaternion needs a direction")]
    ZeroRotation { entity: Entity },
    /// The new parent is the entity itself or one of its descendants.
    #[error(
        "cannot put {entity} under {parent}: {parent} is {entity} itself or one of its descendants"
    )]
    WouldCycle { entity: Entity, parent: Entity },
    /// Keeping the world pose is impossible under a parent with zero scale.
    #[error("cannot keep the world position of {entity} under {parent}: its scale is zero")]
    DegenerateParent { entity: Entity, parent: Entity },
    /// The entity is not in the scene.
    #[error("entity {0} is not in the scene")]
    UnknownEntity(Entity),
    /// The entity is one of the engine's reserved entities (numbers below 512: the root, the
    /// player, the camera, other players' avatars), which an edit may not move, rename, duplicate
    /// or delete: the root has no Transform, the renderer writes the others' Transforms (a
    /// scene's value would be overwritten), and the runtime never deletes or allocates those
    /// numbers. Other components may still be set on them, and entities may be put under them.
    #[error(
        "entity {0} is reserved by the engine (numbers below 512: root, player, camera, \
         avatars): it cannot be moved, renamed, duplicated or deleted"
    )]
    Reserved(Entity),
    /// A Transform value that is not the 44 bytes of the wire layout.
    #[error("the Transform of entity {entity} is malformed: {source}")]
    MalformedTransform {
        entity: Entity,
        source: TransformDecodeError,
    },
    /// The replica refused the write.
    #[error(transparent)]
    Write(#[from] scenetree_core::crdt::WriteError),
    /// Nothing to do (an empty selection).
    #[error("nothing to {0}")]
    Nothing(&'static str),
    /// The simulated network refused the write (the active peer is offline, say).
    #[error("the peers simulation refused the write: {0}")]
    Peers(#[from] scenetree_core::crdt::network::NetworkError),
    /// Another writer (a peer, another editor) deleted the entity since the step was made: a
    /// replay would bring it back holding only what this step wrote.
    #[error("{0} was deleted meanwhile by another writer")]
    DeletedMeanwhile(Entity),
    /// The live session refused the write: a value the host could not decode, or one this
    /// editor's replica refuses.
    #[error(transparent)]
    Live(#[from] crate::live::WriteRefused),
    /// While live, the write would close a parenting cycle in the host's scene (`members`, from
    /// the written entity along declared parents): the Decentraland web Inspector freezes on
    /// one, so the user is asked first.
    #[error(
        "this would make a parenting cycle in the live scene ({}); web Inspectors on the \
         session freeze on a cycle",
        scenetree_core::model::present::cycle_ring(members, |e| e.to_string())
    )]
    WouldCycleLive { members: Vec<Entity> },
    /// Fewer free entity numbers than the edit creates entities (a scene has 65,024 numbers,
    /// 512 to 65,535; a live session only its own range's).
    #[error(
        "this needs {needed} new entit(ies) but only {free} entity number(s) are free (a scene \
         has 65,024, 512 to 65,535): delete entities first, or act on fewer"
    )]
    Full { needed: usize, free: usize },
}

/// The command that adds a glTF model of a project to the scene, as the Decentraland
/// Inspector adds a model dropped on its viewport: an entity at the root named after the file
/// (`shelf.glb` → "shelf"), at `position` (world space, meters), with a `core::GltfContainer`
/// naming the file by its path in the project and the Inspector's collision layers (no
/// collider from the visible meshes; pointer and physics from the `_collider` ones).
pub fn add_model(
    project: &scenetree_dcl::io::project::Project,
    file: &std::path::Path,
    position: glam::Vec3,
) -> Result<Command, scenetree_dcl::io::project::AssetPathError> {
    use scenetree_core::model::ids;
    use scenetree_dcl::GltfModel;
    let src = project.asset_src(file)?;
    let name = file
        .file_stem()
        .map_or_else(|| "Model".to_string(), |s| s.to_string_lossy().into_owned());
    let transform = Transform {
        position,
        ..Transform::IDENTITY
    };
    let model = GltfModel {
        src,
        visible_meshes_collision_mask: Some(0),
        invisible_meshes_collision_mask: Some(3),
    };
    Ok(Command::Create {
        parent: Entity::ROOT,
        name,
        components: vec![
            (ids::TRANSFORM, transform.to_bytes().to_vec()),
            (ids::GLTF_CONTAINER, model.encode()),
        ],
    })
}
