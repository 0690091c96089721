//! The 3D viewport: an orbit camera, click picking, a translate/rotate/scale gizmo and a
//! three-d renderer drawing into an offscreen texture shown as an egui image.
//!
//! Everything here works in Decentraland's world frame: left-handed, +Y up, +Z forward,
//! meters. [`camera`] is the one place where that frame meets OpenGL (see its docs).
//!
//! How the app uses it, each frame:
//!
//! 1. Keep a [`ViewportScene`] built from the derived render tree: one [`DrawItem`] per entity
//!    and the selected entities as [`GizmoTarget`]s. Rebuild the items, and bump
//!    [`ViewportScene::generation`], only when something in them changed (world matrices,
//!    shapes, colours or selection); the renderer re-uploads instances only then. Name the
//!    items that changed in [`ViewportScene::changes`] and it rewrites only theirs when it can.
//! 2. Call [`Viewport::ui`] with a [`ViewportRenderer`]: [`GlowViewportRenderer`] in the app,
//!    [`NullRenderer`] in UI tests that have no GPU.
//! 3. Turn the returned [`ViewportResponse`] into editor commands: a [`Pick`] changes the
//!    selection; [`GizmoEvent`]s carry new local Transforms (write them on `Update`, close
//!    one undo step on `End`, restore on `Cancel`).
//!
//! Controls: left-drag orbits, right- or middle-drag (or Shift + left-drag) pans, the wheel
//! zooms, a click picks (Ctrl/Shift are reported), holding Ctrl while dragging the gizmo snaps.
//! Keys (W/E/R mode, X axes, F frame, Escape cancels a drag) belong to the editor's command
//! table (`ui::command`), which gives them to the widget as [`ViewportCommand`]s.

pub mod bounds;
pub mod camera;
pub mod demo;
pub mod gizmo;
mod gizmo_drag;
mod gpu_instances;
mod gpu_models;
pub mod gpu_scene;
mod gpu_upload;
mod grid;
pub mod headless;
pub mod models;
pub mod picking;
pub mod renderer;
mod shaded;
pub mod shape;
pub mod style;
mod widget;

use eframe::egui::Color32;
use glam::Mat4;

use scenetree_core::model::{Entity, Transform};

pub use bounds::Aabb;
pub use camera::{OrbitCamera, Ray};
pub use gizmo::{GizmoMode, GizmoSettings, Handle, Orientation, PivotMode, SnapSteps};
pub use gizmo_drag::{DragPhase, DragTarget, GizmoDelta, GizmoEvent, apply_delta};
pub use renderer::{
    GlowViewportRenderer, NullRenderer, RenderRequest, RenderStats, RendererError, ViewportRenderer,
};
pub use shape::Shape;
pub use widget::{Pick, ToolbarHints, Viewport, ViewportCommand, ViewportResponse};

/// One entity as the viewport draws it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct DrawItem {
    /// The entity drawn (reported back when picked).
    pub entity: Entity,
    /// The entity's world matrix: Decentraland world space from its local space, meters.
    pub world: Mat4,
    /// What to draw (sizes in the entity's local space, see [`Shape`]).
    pub shape: Shape,
    /// Base colour (sRGB, opaque); multiplies the texture and a model's own colours.
    pub color: Color32,
    /// A base-colour texture for a MeshRenderer shape (`core::Material`), in the scene's
    /// [`ViewportScene::assets`]; `None` draws the plain colour.
    pub texture: Option<models::AssetId>,
    /// Drawn with the selection outline and tint.
    pub selected: bool,
    /// Not selected but below a selected entity (it moves with it): outlined in
    /// [`style::SELECTION_CHILD`], not tinted, as Unity
    /// outlines a selected object's children.
    pub below_selected: bool,
}

impl DrawItem {
    /// The item's world-space bounds (a model by its real bounds), meters; `None` when its
    /// matrix is not finite (such an item is not drawn).
    pub fn world_bounds(&self) -> Option<Aabb> {
        let bounds =
            (self.shape.local_bounds()).transformed(&self.shape.instance_matrix(&self.world));
        (bounds.min.is_finite() && bounds.max.is_finite()).then_some(bounds)
    }
}

/// An entity the gizmo moves: its declared local Transform and the world matrix of the parent
/// it is drawn under. The gizmo derives the world pose from these and, when dragged, returns
/// new local Transforms under the same parent.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct GizmoTarget {
    /// The entity.
    pub entity: Entity,
    /// Its local Transform (parent space; `local.parent` is kept unchanged in drag results).
    pub local: Transform,
    /// World matrix of the parent it is drawn under (the effective parent; identity at the
    /// root or for re-rooted cycle members).
    pub parent_world: Mat4,
}

impl GizmoTarget {
    /// World matrix: `parent_world * local`.
    pub fn world(&self) -> Mat4 {
        self.parent_world * self.local.local_matrix()
    }
}

/// Everything the viewport draws in one frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViewportScene {
    /// Every entity to draw. Order does not matter.
    pub items: Vec<DrawItem>,
    /// Changes whenever `items` change; equal generations promise equal items, so the
    /// renderer can skip re-uploading instances and the widget can skip re-rendering.
    pub generation: u64,
    /// The selected entities the gizmo acts on; the first is the pivot and gives the local
    /// orientation. Empty hides the gizmo.
    pub gizmo_targets: Vec<GizmoTarget>,
    /// The loaded models and textures the items name.
    pub assets: models::SceneAssets,
    /// Which items changed since an earlier generation, when the builder knows; the renderer
    /// then rewrites only their instances (see [`ItemChanges`]). `None`: every instance is
    /// uploaded again.
    pub changes: Option<ItemChanges>,
}

/// The items that differ from those of generation `since` of the same scene. A promise:
/// every other item, the item count and the assets are as they were then. The renderer uses
/// it only when `since` is the generation it has on the GPU and each changed item keeps its
/// batch (shape, texture, model, outline pass); otherwise it rebuilds every instance.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ItemChanges {
    /// The generation the items are compared with.
    pub since: u64,
    /// Indices into [`ViewportScene::items`], ascending.
    pub items: Vec<u32>,
}

impl ItemChanges {
    /// The indices where `new` differs from `old` (generation `since`), when the counts are
    /// equal and at most `max` differ; `None` otherwise.
    pub fn between(since: u64, old: &[DrawItem], new: &[DrawItem], max: usize) -> Option<Self> {
        if old.len() != new.len() {
            return None;
        }
        let mut items = Vec::new();
        for (i, (a, b)) in old.iter().zip(new).enumerate() {
            if a != b {
                if items.len() == max {
                    return None;
                }
                items.push(i as u32);
            }
        }
        Some(ItemChanges { since, items })
    }
}

impl ViewportScene {
    /// World-space bounds of the selected items and what lies below them (a group is framed
    /// with its children, as in Unity), or of all items when none is selected;
    /// `None` for an empty scene. Non-finite matrices are ignored.
    pub fn focus_bounds(&self) -> Option<Aabb> {
        self.selection_bounds().or_else(|| self.all_bounds())
    }

    /// World-space bounds of the selected items and what lies below them; `None` when
    /// nothing drawn is selected.
    pub fn selection_bounds(&self) -> Option<Aabb> {
        self.bounds_of(|i| i.selected || i.below_selected)
    }

    /// World-space bounds of every item (models by their real bounds); `None` for an empty
    /// scene. Non-finite matrices are ignored.
    pub fn all_bounds(&self) -> Option<Aabb> {
        self.bounds_of(|_| true)
    }

    fn bounds_of(&self, wanted: impl Fn(&DrawItem) -> bool) -> Option<Aabb> {
        self.items
            .iter()
            .filter(|i| wanted(i))
            .filter_map(DrawItem::world_bounds)
            .reduce(Aabb::union)
    }
}
