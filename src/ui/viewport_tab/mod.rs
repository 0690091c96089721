//! The Viewport tab: builds the 3D scene from the document (see `build`), loads the models
//! it names in the background, and turns picks and gizmo drags into actions.

mod build;
mod policy;

use std::collections::HashSet;

use super::action::{Action, SelectAction};
use scenetree_core::crdt::network::PeerId;
use scenetree_core::model::Entity;
use scenetree_core::scene::policy::{PolicyBoard, TreePolicy};
use scenetree_editor::{Command, Document};
use scenetree_viewport::models::AssetLibrary;
use scenetree_viewport::{
    DragPhase, DrawItem, ItemChanges, OrbitCamera, Viewport, ViewportRenderer, ViewportScene,
};

pub use build::{LookCache, ModelState, draw_items};
pub use policy::PolicyDrawing;

/// Viewport state kept between frames.
pub struct ViewportTab {
    /// The widget (camera, gizmo settings).
    pub viewport: Viewport,
    /// What is drawn.
    scene: ViewportScene,
    /// What `scene` was built from, and what is kept to build it again quickly.
    built: Built,
    /// Tells one gizmo drag's edits from the next one's (they coalesce into one step).
    drag_key: u64,
    /// When and how the camera frames the scene on its own.
    framing: Framing,
    /// Remote changes shown as motion.
    motion: Motion,
    /// The user's setting (View menu): show remote changes as motion.
    pub animate_remote_changes: bool,
    /// The models and textures of the open project, loaded in the background.
    pub assets: AssetLibrary,
    /// The 3D view's area in the last frame (points).
    rect: Option<egui::Rect>,
    /// The tree policy drawn while peers are simulated (a selector over the view).
    pub policy: PolicyDrawing,
}

/// What the drawn scene was built from, and what a rebuild or an update reuses.
struct Built {
    /// What the scene depends on, as of its last build (`None`: build it).
    key: Option<BuildKey>,
    /// When the scene last took in newly loaded models (UI clock, seconds).
    assets_shown_at: f64,
    /// Decoded component looks of the document's entities, kept between rebuilds.
    looks: LookCache,
    /// The items before the last rebuild (compared with the new ones, then reused).
    previous_items: Vec<DrawItem>,
    /// Where each entity's item is in `scene.items`, for updating a few in place.
    index: build::ItemIndex,
    /// Builds of every item so far (see [`ViewportTab::full_builds`]).
    full_builds: u64,
    /// Updates of the changed items only (see [`ViewportTab::incremental_updates`]).
    incremental_updates: u64,
}

/// When the camera frames the scene without being asked.
struct Framing {
    /// Frame the whole scene after the next build (a document was opened).
    all_pending: bool,
    /// After the next build, frame the whole scene if some of it is out of view (a lesson
    /// step moved it).
    all_if_out_of_view: bool,
    /// Where the last automatic framing put the camera: while models load, the view is
    /// framed again as they arrive, until the user moves the camera.
    auto_framed: Option<OrbitCamera>,
    /// The space the view had in the last frame (its aspect ratio frames a new scene).
    available: Option<egui::Vec2>,
}

/// Remote changes drawn as motion.
#[derive(Default)]
struct Motion {
    /// Animate the next change of world matrices (a delivery, a timeline step), so the jump
    /// a remote message causes is visible.
    next: bool,
    /// The motion being drawn.
    running: Option<Animation>,
}

/// Moving drawn entities from where they were to where a remote change put them.
struct Animation {
    from: std::collections::HashMap<Entity, glam::Mat4>,
    target: ViewportScene,
    started: f64,
}

/// While a scene's models load, how often the view takes in the ones that arrived (seconds).
const ASSETS_REFRESH_WHILE_LOADING: f64 = 2.0;

/// How long a remote change takes to glide into place, seconds.
const ANIMATION_SECONDS: f64 = 0.6;
/// Above this many entities, changes are shown at once (re-uploading every frame costs).
const ANIMATION_MAX_ITEMS: usize = 5000;
/// At most this many changed items are handed to the renderer as changes, to rewrite in place;
/// beyond, one upload of everything. Measured on software GL with 65,535 items (see
/// docs/performance.md): 4,096 items in place cost a third of a full upload (the break-even
/// would be near 13,000), and a district's subtree (about 1,000) stays in place.
const MAX_CHANGED_ITEMS: usize = 4096;
/// Above this many changed entities (journal entries, with repeats) since the last build, the
/// items are built again from scratch instead of updating the changed subtrees. Measured with
/// 65,024 entities (docs/performance.md): updating 4,096 moved leaves took half a full build
/// (8 ms against 16), 512 a twentieth.
const MAX_INCREMENTAL_ENTITIES: usize = 8192;

impl Default for ViewportTab {
    fn default() -> Self {
        ViewportTab {
            viewport: Viewport::default(),
            scene: ViewportScene::default(),
            built: Built {
                key: None,
                assets_shown_at: f64::NEG_INFINITY,
                looks: LookCache::default(),
                previous_items: Vec::new(),
                index: build::ItemIndex::default(),
                full_builds: 0,
                incremental_updates: 0,
            },
            drag_key: 0,
            framing: Framing {
                all_pending: true,
                all_if_out_of_view: false,
                auto_framed: None,
                available: None,
            },
            motion: Motion::default(),
            animate_remote_changes: true,
            assets: AssetLibrary::new(),
            rect: None,
            policy: PolicyDrawing::default(),
        }
    }
}

/// The aspect ratio framing assumes before the view has been laid out.
const FRAMING_ASPECT: f32 = 1.4;

/// What the built scene depends on.
#[derive(Clone, Debug, PartialEq, Eq)]
struct BuildKey {
    view_generation: u64,
    /// The render tree's structure and child order: the items' set and order (see
    /// `SceneView::child_order_generation`).
    child_order: u64,
    replica: scenetree_core::crdt::ReplicaVersion,
    selection: u64,
    hidden: Vec<Entity>,
    locked: Vec<Entity>,
    assets_generation: u64,
    policy: Option<(TreePolicy, PeerId, u64)>,
}

impl ViewportTab {
    /// The scene as last built (for tests).
    pub fn scene(&self) -> &ViewportScene {
        &self.scene
    }

    /// Where something added to the scene goes (a dropped model): the point at the centre of
    /// the view, on the first surface there (a model, a shape) or else on the ground (y = 0),
    /// or else the point the camera orbits. World space, meters.
    pub fn placement_point(&self) -> glam::Vec3 {
        let camera = &self.viewport.camera;
        let square = glam::Vec2::ONE;
        let ray = camera.ray(square * 0.5, square);
        let on_surface = scenetree_viewport::picking::pick(
            &ray,
            &self.scene.items,
            &self.scene.assets,
            camera.marker_scale(),
        )
        .map(|hit| hit.distance);
        // The ground, in front of the camera and not beyond the far reaches of a scene.
        let on_ground = (ray.direction.y < -1e-3)
            .then(|| -ray.origin.y / ray.direction.y)
            .filter(|&t| t > 0.0 && t < 1000.0);
        match on_surface.or(on_ground) {
            Some(t) => ray.origin + ray.direction * t,
            None => camera.target,
        }
    }

    /// Builds every item again on the next update, as after an unknown change (benchmarks
    /// compare that with the incremental update; tests with its result).
    pub fn rebuild_next(&mut self) {
        self.built.key = None;
    }

    /// How many times the items were all built again (a structural change, a file opened,
    /// models arriving, …), for tests.
    pub fn full_builds(&self) -> u64 {
        self.built.full_builds
    }

    /// How many document changes were taken by updating only the changed entities' items
    /// and their subtrees', for tests.
    pub fn incremental_updates(&self) -> u64 {
        self.built.incremental_updates
    }

    /// Animates the next change of world matrices (called before a delivery or timeline step).
    pub fn animate_next_change(&mut self) {
        self.motion.next = self.animate_remote_changes;
    }

    /// True while entities glide to the positions a remote change gave them.
    pub fn is_animating(&self) -> bool {
        self.motion.running.is_some()
    }

    /// Points the camera at the whole scene on the next frame (a document was opened), and
    /// again as its models arrive, until they all have or the user moves the camera.
    pub fn frame_all_next(&mut self) {
        self.framing.all_pending = true;
        self.framing.auto_framed = None;
    }

    /// After the next build, points the camera at the whole scene if some of it is out of
    /// view; otherwise the camera stays (a lesson step moved entities).
    pub fn keep_scene_in_view(&mut self) {
        self.framing.all_if_out_of_view = true;
    }

    /// The scene as it will be drawn: while a remote change animates, the scene drawn is on
    /// its way there.
    fn final_scene(&self) -> &ViewportScene {
        self.motion
            .running
            .as_ref()
            .map_or(&self.scene, |a| &a.target)
    }

    fn frame_all(&mut self) {
        if let Some(b) = self.final_scene().all_bounds() {
            // The view's own shape once it has been laid out; a typical one before that.
            let aspect = self
                .framing
                .available
                .filter(|s| s.x > 1.0 && s.y > 1.0)
                .map_or(FRAMING_ASPECT, |s| s.x / s.y);
            // The widget notices the new camera itself (and, while models upload, waits).
            self.viewport.camera.frame_bounds(b.min, b.max, aspect);
        }
    }

    /// Frames a freshly opened scene, and keeps framing it while its models load (their real
    /// bounds replace the placeholders'), unless the user has moved the camera since.
    fn auto_frame(&mut self, rebuilt: bool) {
        let user_moved = self
            .framing
            .auto_framed
            .as_ref()
            .is_some_and(|c| *c != self.viewport.camera);
        let loading = self.assets.progress().pending() > 0;
        if std::mem::take(&mut self.framing.all_pending)
            || (rebuilt && !user_moved && self.framing.auto_framed.is_some())
        {
            self.frame_all();
            self.framing.auto_framed = Some(self.viewport.camera.clone());
        }
        if user_moved || !loading {
            self.framing.auto_framed = None;
        }
        if std::mem::take(&mut self.framing.all_if_out_of_view)
            && !self.viewport.shows_all_of(self.final_scene())
        {
            self.frame_all();
        }
    }

    /// Takes finished model loads and rebuilds the scene if anything it depends on changed
    /// (framing a new document); `now` is the UI clock in seconds (for remote-change
    /// animations). [`Self::ui`] calls it every frame; headless renderers call it directly.
    pub fn update_scene(
        &mut self,
        doc: &Document,
        hidden: &HashSet<Entity>,
        locked: &HashSet<Entity>,
        now: f64,
    ) -> &ViewportScene {
        self.assets.poll();
        let rebuilt = self.rebuild_if_needed(doc, hidden, locked, now);
        self.auto_frame(rebuilt);
        &self.scene
    }

    /// True when every model and texture the scene names has loaded (or failed) and the view
    /// shows them all: what a screenshot waits for.
    pub fn is_settled(&self) -> bool {
        self.assets.progress().pending() == 0
            && self
                .built
                .key
                .as_ref()
                .is_some_and(|k| k.assets_generation == self.assets.generation())
            && self.viewport.image_is_final()
    }

    /// The 3D view's area in the last frame, in points (for tests that click in it).
    pub fn rect(&self) -> Option<egui::Rect> {
        self.rect
    }

    /// The document's entities whose model or texture file is missing or failed to load, in
    /// the order given.
    pub fn entities_with_asset_problems(
        &mut self,
        doc: &Document,
        entities: impl IntoIterator<Item = Entity>,
    ) -> Vec<Entity> {
        build::entities_with_asset_problems(
            doc.replica(),
            entities,
            &mut self.built.looks,
            &self.assets,
        )
    }

    /// What the viewport knows of `entity`'s glTF model (`None`: it has no GltfContainer).
    pub fn model_state(&mut self, doc: &Document, entity: Entity) -> Option<ModelState> {
        build::model_state(doc, entity, &mut self.assets)
    }

    /// Draws the viewport and returns what the user did in it. `policies` is given while peers
    /// are simulated (the selector shows): the board, needed only while the view draws a
    /// policy other than the render tree's, and the active peer.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        doc: &Document,
        hidden: &HashSet<Entity>,
        locked: &HashSet<Entity>,
        policies: Option<(Option<&PolicyBoard>, PeerId)>,
        renderer: &mut dyn ViewportRenderer,
    ) -> Vec<Action> {
        let now = ui.input(|i| i.time);
        self.framing.available = Some(ui.available_size());
        let simulated = policies.is_some();
        self.policy
            .update(policies.and_then(|(board, peer)| Some((board?, peer))));
        self.update_scene(doc, hidden, locked, now);
        let animated = self
            .motion
            .running
            .as_ref()
            .map(|a| a.frame(now, self.scene.generation));
        if animated.is_some() {
            ui.ctx().request_repaint();
        }
        if self
            .motion
            .running
            .as_ref()
            .is_some_and(|a| now - a.started >= ANIMATION_SECONDS)
        {
            self.motion.running = None;
            self.scene.generation += 1; // draw the final state exactly
            self.scene.changes = None;
        }
        let shown = animated.as_ref().unwrap_or(&self.scene);
        let response = self.viewport.ui(ui, shown, renderer);
        self.rect = Some(response.response.rect);
        if simulated {
            self.policy.selector_ui(ui, response.response.rect);
        }
        let mut actions = Vec::new();
        if let Some(pick) = response.pick {
            match pick.entity {
                Some(e) if locked.contains(&e) => {}
                Some(e) if pick.ctrl || pick.shift => {
                    actions.push(Action::Select(SelectAction::Toggle(e)))
                }
                Some(e) => {
                    actions.push(Action::Select(SelectAction::Only(e)));
                    // As Unity and Godot do: the picked entity's row comes into view.
                    actions.push(Action::Reveal(e));
                }
                None if pick.ctrl || pick.shift => {}
                None => actions.push(Action::Select(SelectAction::Clear)),
            }
        }
        if let Some(event) = response.gizmo {
            if event.phase == DragPhase::Begin {
                self.drag_key = self.drag_key.wrapping_add(1);
            }
            let key = egui::Id::new(("gizmo-drag", self.drag_key)).value();
            let items = event.targets.iter().map(|t| (t.entity, t.local)).collect();
            match event.phase {
                DragPhase::Begin | DragPhase::Update => {
                    actions.push(Action::EditCoalesced(Command::SetTransforms(items), key));
                }
                DragPhase::End => {
                    actions.push(Action::EditCoalesced(Command::SetTransforms(items), key));
                    actions.push(Action::EndGesture);
                }
                DragPhase::Cancel => actions.push(Action::CancelGesture),
            }
        }
        actions
    }

    /// The library state the scene should show: while files are still loading, models that
    /// arrived are taken in only every [`ASSETS_REFRESH_WHILE_LOADING`] seconds (each take is
    /// a re-upload and a render, which software GL makes slow); once all are in, at once.
    fn assets_generation_to_show(&self, now: f64) -> u64 {
        match &self.built.key {
            Some(built)
                if self.assets.progress().pending() > 0
                    && now - self.built.assets_shown_at < ASSETS_REFRESH_WHILE_LOADING =>
            {
                built.assets_generation
            }
            _ => self.assets.generation(),
        }
    }

    /// After edits of a few entities (a gizmo drag, a colour), and nothing else the build
    /// depends on, updates only their items and their subtrees' (world matrices), and names
    /// them in `scene.changes`: what a full build would give, without visiting every entity.
    /// False, with nothing changed, when the change is not one of those (the tree's structure,
    /// the selection or the assets changed, a policy or an animation is drawn, many entities
    /// changed, or an entity is drawn or hidden anew).
    fn update_changed_items(
        &mut self,
        doc: &Document,
        hidden: &HashSet<Entity>,
        locked: &HashSet<Entity>,
        key: &BuildKey,
    ) -> bool {
        let Some(built) = &self.built.key else {
            return false;
        };
        let only_the_document_changed = *built
            == (BuildKey {
                view_generation: built.view_generation,
                replica: built.replica,
                ..key.clone()
            });
        if !only_the_document_changed
            || key.policy.is_some()
            || self.motion.next
            || self.motion.running.is_some()
        {
            return false;
        }
        let Some(changed) = doc.replica().entities_changed_since(built.replica) else {
            return false;
        };
        if changed.len() > MAX_INCREMENTAL_ENTITIES {
            return false;
        }
        let since = self.scene.generation;
        let Some(items) = build::update_items(
            &mut self.scene,
            &self.built.index,
            changed,
            doc.view(),
            doc.replica(),
            hidden,
            |e| doc.selection.contains(e),
            &mut self.assets,
            &mut self.built.looks,
        ) else {
            return false;
        };
        let targets = build::gizmo_targets(doc, hidden, locked, None);
        // Equal generations promise equal items: a change that draws nothing differently (a
        // name, a component the view does not show) keeps the generation, so nothing renders.
        if !items.is_empty() || targets != self.scene.gizmo_targets {
            self.scene.generation += 1;
            self.scene.changes =
                (items.len() <= MAX_CHANGED_ITEMS).then_some(ItemChanges { since, items });
            self.scene.gizmo_targets = targets;
        }
        self.built.incremental_updates += 1;
        // Asking the library for files may have started loads, as in a full build.
        self.built.key = Some(BuildKey {
            assets_generation: self.assets.generation(),
            ..key.clone()
        });
        true
    }

    /// Rebuilds the scene when anything it depends on changed; true when it did.
    fn rebuild_if_needed(
        &mut self,
        doc: &Document,
        hidden: &HashSet<Entity>,
        locked: &HashSet<Entity>,
        now: f64,
    ) -> bool {
        let sorted = |set: &HashSet<Entity>| {
            let mut v: Vec<Entity> = set.iter().copied().collect();
            v.sort_unstable();
            v
        };
        let key = BuildKey {
            view_generation: doc.view().generation(),
            child_order: doc.view().child_order_generation(),
            replica: doc.replica().version(),
            selection: doc.selection.generation(),
            hidden: sorted(hidden),
            locked: sorted(locked),
            assets_generation: self.assets_generation_to_show(now),
            policy: self.policy.key(),
        };
        if self.built.key.as_ref() == Some(&key) {
            return false;
        }
        if let Some(built) = &self.built.key
            && *built
                == (BuildKey {
                    selection: built.selection,
                    ..key.clone()
                })
        {
            // Only the selection changed: outlines and gizmo targets, not every item again.
            let worlds = self.policy.worlds();
            build::reselect(&mut self.scene, doc, hidden, locked, worlds);
            if let Some(animation) = &mut self.motion.running {
                build::reselect(&mut animation.target, doc, hidden, locked, worlds);
            }
            self.scene.generation += 1;
            // Outlines change pass: the renderer rebuilds every instance anyway.
            self.scene.changes = None;
            self.built.key = Some(key);
            return true;
        }
        if self.update_changed_items(doc, hidden, locked, &key) {
            return true;
        }
        if key.assets_generation != self.built.key.as_ref().map_or(0, |k| k.assets_generation) {
            self.built.assets_shown_at = now;
        }
        let previous: std::collections::HashMap<Entity, glam::Mat4> =
            if std::mem::take(&mut self.motion.next)
                && self.scene.items.len() <= ANIMATION_MAX_ITEMS
            {
                // From where things are drawn now (mid-animation included).
                let shown = self.motion.running.as_ref().map(|a| a.frame(now, 0));
                shown
                    .as_ref()
                    .unwrap_or(&self.scene)
                    .items
                    .iter()
                    .map(|i| (i.entity, i.world))
                    .collect()
            } else {
                Default::default()
            };
        let worlds = self.policy.worlds();
        let since = self.scene.generation;
        std::mem::swap(&mut self.built.previous_items, &mut self.scene.items);
        build::build_scene(
            &mut self.scene,
            doc,
            hidden,
            locked,
            worlds,
            &mut self.assets,
            &mut self.built.looks,
        );
        self.scene.generation += 1;
        self.built.full_builds += 1;
        self.built.index.rebuild(&self.scene.items);
        // A move or a colour edit changes few items: the renderer rewrites only theirs.
        self.scene.changes = ItemChanges::between(
            since,
            &self.built.previous_items,
            &self.scene.items,
            MAX_CHANGED_ITEMS,
        );
        // Building asked the library for files (and may have started loads): remember the
        // generation after that, so the next frame does not rebuild for it.
        self.built.key = Some(BuildKey {
            assets_generation: self.assets.generation(),
            ..key
        });
        let moved = self
            .scene
            .items
            .iter()
            .any(|i| previous.get(&i.entity).is_some_and(|w| *w != i.world));
        self.motion.running = moved.then(|| Animation {
            from: previous,
            target: self.scene.clone(),
            started: now,
        });
        true
    }
}

impl Animation {
    /// The scene at time `now`: each entity between its old and new pose (translation and
    /// scale interpolated linearly, rotation by slerp), eased.
    fn frame(&self, now: f64, generation: u64) -> ViewportScene {
        let t = ((now - self.started) / ANIMATION_SECONDS).clamp(0.0, 1.0) as f32;
        let ease = t * t * (3.0 - 2.0 * t);
        let mut scene = self.target.clone();
        scene.changes = None; // the items are on their way: every one may differ
        for item in &mut scene.items {
            if let Some(from) = self.from.get(&item.entity) {
                let (s0, r0, p0) = from.to_scale_rotation_translation();
                let (s1, r1, p1) = item.world.to_scale_rotation_translation();
                item.world = glam::Mat4::from_scale_rotation_translation(
                    s0.lerp(s1, ease),
                    r0.normalize().slerp(r1.normalize(), ease),
                    p0.lerp(p1, ease),
                );
            }
        }
        // A new generation every frame re-uploads the (few) moving instances.
        scene.generation = generation.wrapping_add((t * 1000.0) as u64 + 1_000_000);
        scene
    }
}
