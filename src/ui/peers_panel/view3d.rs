//! A small 3D view of one peer's scene: the editor's viewport widget and renderer (an extra
//! view of it), looking through the editor viewport's camera, so two peers' pictures differ
//! only where their scenes do and a re-rooted entity's jump is seen side by side. A click
//! selects, as in the editor's viewport; there is no gizmo (edits go through the editor).

use std::collections::HashSet;

use super::super::viewport_tab::{LookCache, draw_items};
use crate::ui::action::{Action, SelectAction};
use scenetree_core::crdt::{Replica, ReplicaVersion};
use scenetree_core::model::Entity;
use scenetree_core::scene::SceneView;
use scenetree_viewport::Aabb;
use scenetree_viewport::models::AssetLibrary;
use scenetree_viewport::{OrbitCamera, Viewport, ViewportCommand, ViewportRenderer, ViewportScene};

/// One peer's view: its widget (camera copied in and out each frame) and the scene it draws.
/// Every peer's 3D view, and what they share: one camera, and when to frame them.
#[derive(Default)]
pub(super) struct PeerViews {
    /// One view per peer, peer 1 first.
    pub(super) each: Vec<PeerView3d>,
    /// The one camera every peer's view looks through, so the same entity is at the same place
    /// on screen in each and orbiting one orbits all.
    pub(super) camera: OrbitCamera,
    /// The run the views were last framed for; a new run frames them again.
    pub(super) framed_for: Option<super::RunIdentity>,
    /// Frame the views on the next frame.
    pub(super) frame_now: bool,
    /// On the next frame, frame the views if something a peer draws is out of its view.
    pub(super) frame_if_needed: bool,
}

impl PeerViews {
    /// Points the shared camera at what every peer draws (the selection where some peer draws
    /// it, else everything), so that an entity two peers place apart is in both views.
    pub(super) fn frame_on_every_peer(&mut self) {
        let union = |bounds: &dyn Fn(&ViewportScene) -> Option<Aabb>| {
            self.each
                .iter()
                .filter_map(|v| bounds(v.scene()))
                .reduce(Aabb::union)
        };
        let bounds =
            union(&ViewportScene::selection_bounds).or_else(|| union(&ViewportScene::all_bounds));
        if let (Some(first), Some(bounds)) = (self.each.first_mut(), bounds) {
            first.frame_next(bounds);
        }
    }
}

#[derive(Default)]
pub(super) struct PeerView3d {
    viewport: Viewport,
    scene: ViewportScene,
    built_for: Option<BuildKey>,
    /// This peer's decoded component looks, kept between rebuilds.
    looks: LookCache,
}

/// What the drawn items depend on.
#[derive(Clone, Debug, PartialEq, Eq)]
struct BuildKey {
    view_generation: u64,
    replica: ReplicaVersion,
    selection: Vec<Entity>,
    hidden: Vec<Entity>,
    assets_generation: u64,
}

/// What one peer's view needs for a frame.
pub(super) struct ViewInput<'a> {
    /// The view's size, points.
    pub size: egui::Vec2,
    /// The peer's render tree.
    pub view: &'a SceneView,
    /// The peer's replica (shapes, materials, models).
    pub replica: &'a Replica,
    /// The editor's selection (outlined).
    pub selection: &'a [Entity],
    /// The peer's hidden entities (`inspector::Hide`): not drawn, nor their subtrees.
    pub hidden: &'a HashSet<Entity>,
}

impl PeerView3d {
    /// Draws the view (`input.size` points large) through `camera` (which the user may orbit, pan or
    /// zoom here, for every view at once) with `renderer`; a click becomes a selection.
    pub(super) fn ui(
        &mut self,
        ui: &mut egui::Ui,
        input: &ViewInput<'_>,
        camera: &mut OrbitCamera,
        renderer: &mut dyn ViewportRenderer,
        library: &mut AssetLibrary,
        actions: &mut Vec<Action>,
    ) {
        self.prepare(input, library);
        self.viewport.show_toolbar = false;
        self.viewport.show_axes = false;
        self.viewport.camera = camera.clone();
        let response = ui
            .allocate_ui(input.size, |ui| self.viewport.ui(ui, &self.scene, renderer))
            .inner;
        if self.viewport.camera != *camera {
            *camera = self.viewport.camera.clone();
        }
        if let Some(pick) = response.pick {
            actions.push(Action::Select(match pick.entity {
                Some(e) if pick.ctrl || pick.shift => SelectAction::Toggle(e),
                Some(e) => SelectAction::Only(e),
                None => SelectAction::Clear,
            }));
        }
    }

    /// The scene the view draws.
    pub(super) fn scene(&self) -> &ViewportScene {
        &self.scene
    }

    /// True when everything the view draws is inside it (as last drawn, through the camera it
    /// was last drawn with).
    pub(super) fn shows_its_whole_scene(&self) -> bool {
        self.viewport.shows_all_of(&self.scene)
    }

    /// Drops the image shown, so the next frame draws the scene at once, even while its
    /// models upload (normally a change waits for them).
    pub(super) fn forget_image(&mut self) {
        self.viewport.request_render();
    }

    /// The view's widget.
    pub(super) fn viewport(&self) -> &Viewport {
        &self.viewport
    }

    /// Points the camera at `bounds` (world space) on the next frame, when the view's shape is
    /// known.
    pub(super) fn frame_next(&mut self, bounds: Aabb) {
        self.viewport.run(ViewportCommand::FrameBounds(bounds));
    }

    /// Builds the drawn items for `input` unless they are up to date (the view's `size` is not
    /// used): before drawing, or to know what every view will draw.
    pub(super) fn prepare(&mut self, input: &ViewInput<'_>, library: &mut AssetLibrary) {
        let mut hidden: Vec<Entity> = input.hidden.iter().copied().collect();
        hidden.sort_unstable();
        let key = BuildKey {
            view_generation: input.view.generation(),
            replica: input.replica.version(),
            selection: input.selection.to_vec(),
            hidden,
            assets_generation: library.generation(),
        };
        if self.built_for.as_ref() == Some(&key) {
            return;
        }
        draw_items(
            input.view,
            input.replica,
            input.hidden,
            |e| input.selection.contains(&e),
            None,
            library,
            &mut self.looks,
            &mut self.scene,
        );
        self.scene.generation += 1;
        self.built_for = Some(key);
    }
}
