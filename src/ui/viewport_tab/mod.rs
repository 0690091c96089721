//! The Viewport tab: builds the 3D scene from the document (world matrices from the render
//! tree, shapes from MeshRenderer / GltfContainer, selection, editor-only hidden flags) and turns
//! picks and gizmo drags into actions.

use std::collections::HashSet;

use egui::Color32;

use super::action::{Action, SelectAction};
use super::style;
use super::viewport::{
    DragPhase, DrawItem, GizmoTarget, Shape, Viewport, ViewportRenderer, ViewportScene,
};
use crate::editor::{Command, Document};
use crate::model::{Entity, ids};
use crate::scene::Fallback;

/// Viewport state kept between frames.
pub struct ViewportTab {
    /// The widget (camera, gizmo settings).
    pub viewport: Viewport,
    scene: ViewportScene,
    built_for: Option<BuildKey>,
    drag_key: u64,
    /// Frame the whole scene after the next build (a document was opened).
    frame_all_pending: bool,
    /// Animate the next change of world matrices (a delivery, a timeline step), so the jump a
    /// remote message causes is visible.
    animate_next_change: bool,
    /// The user's setting (View menu): show remote changes as motion.
    pub animate_remote_changes: bool,
    animation: Option<Animation>,
}

/// Moving drawn entities from where they were to where a remote change put them.
struct Animation {
    from: std::collections::HashMap<Entity, glam::Mat4>,
    target: ViewportScene,
    started: f64,
}

/// How long a remote change takes to glide into place, seconds.
const ANIMATION_SECONDS: f64 = 0.6;
/// Above this many entities, changes are shown at once (re-uploading every frame costs).
const ANIMATION_MAX_ITEMS: usize = 5000;

impl Default for ViewportTab {
    fn default() -> Self {
        ViewportTab {
            viewport: Viewport::default(),
            scene: ViewportScene::default(),
            built_for: None,
            drag_key: 0,
            frame_all_pending: true,
            animate_next_change: false,
            animate_remote_changes: true,
            animation: None,
        }
    }
}

/// The aspect ratio framing assumes (the tab's shape varies; this keeps a margin).
const FRAMING_ASPECT: f32 = 1.4;

/// What the built scene depends on.
#[derive(Clone, Debug, PartialEq, Eq)]
struct BuildKey {
    view_generation: u64,
    replica: crate::crdt::ReplicaVersion,
    selection: Vec<Entity>,
    hidden: Vec<Entity>,
    locked: Vec<Entity>,
}

impl ViewportTab {
    /// The scene as last built (for tests).
    pub fn scene(&self) -> &ViewportScene {
        &self.scene
    }

    /// Animates the next change of world matrices (called before a delivery or timeline step).
    pub fn animate_next_change(&mut self) {
        self.animate_next_change = self.animate_remote_changes;
    }

    /// True while entities glide to the positions a remote change gave them.
    pub fn is_animating(&self) -> bool {
        self.animation.is_some()
    }

    /// Points the camera at the whole scene on the next frame (a document was opened).
    pub fn frame_all_next(&mut self) {
        self.frame_all_pending = true;
    }

    fn frame_all(&mut self) {
        let bounds = self
            .scene
            .items
            .iter()
            .map(|i| {
                i.shape
                    .local_bounds()
                    .transformed(&i.shape.instance_matrix(&i.world))
            })
            .filter(|b| b.min.is_finite() && b.max.is_finite())
            .reduce(super::viewport::Aabb::union);
        if let Some(b) = bounds {
            self.viewport
                .camera
                .frame_bounds(b.min, b.max, FRAMING_ASPECT);
            self.viewport.request_render();
        }
    }

    /// Draws the viewport and returns what the user did in it.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        doc: &Document,
        hidden: &HashSet<Entity>,
        locked: &HashSet<Entity>,
        renderer: &mut dyn ViewportRenderer,
    ) -> Vec<Action> {
        let now = ui.input(|i| i.time);
        self.rebuild_if_needed(doc, hidden, locked, now);
        if std::mem::take(&mut self.frame_all_pending) {
            self.frame_all();
        }
        let animated = self
            .animation
            .as_ref()
            .map(|a| a.frame(now, self.scene.generation));
        if animated.is_some() {
            ui.ctx().request_repaint();
        }
        if self
            .animation
            .as_ref()
            .is_some_and(|a| now - a.started >= ANIMATION_SECONDS)
        {
            self.animation = None;
            self.scene.generation += 1; // draw the final state exactly
        }
        let shown = animated.as_ref().unwrap_or(&self.scene);
        let response = self.viewport.ui(ui, shown, renderer);
        let mut actions = Vec::new();
        if let Some(pick) = response.pick {
            match pick.entity {
                Some(e) if locked.contains(&e) => {}
                Some(e) if pick.ctrl || pick.shift => {
                    actions.push(Action::Select(SelectAction::Toggle(e)))
                }
                Some(e) => actions.push(Action::Select(SelectAction::Only(e))),
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

    fn rebuild_if_needed(
        &mut self,
        doc: &Document,
        hidden: &HashSet<Entity>,
        locked: &HashSet<Entity>,
        now: f64,
    ) {
        let sorted = |set: &HashSet<Entity>| {
            let mut v: Vec<Entity> = set.iter().copied().collect();
            v.sort_unstable();
            v
        };
        let key = BuildKey {
            view_generation: doc.view().generation(),
            replica: doc.replica().version(),
            selection: doc.selection.entities().to_vec(),
            hidden: sorted(hidden),
            locked: sorted(locked),
        };
        if self.built_for.as_ref() == Some(&key) {
            return;
        }
        let previous: std::collections::HashMap<Entity, glam::Mat4> =
            if std::mem::take(&mut self.animate_next_change)
                && self.scene.items.len() <= ANIMATION_MAX_ITEMS
            {
                // From where things are drawn now (mid-animation included).
                let shown = self.animation.as_ref().map(|a| a.frame(now, 0));
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
        build_scene(&mut self.scene, doc, hidden, locked);
        self.scene.generation += 1;
        self.built_for = Some(key);
        let moved = self
            .scene
            .items
            .iter()
            .any(|i| previous.get(&i.entity).is_some_and(|w| *w != i.world));
        self.animation = moved.then(|| Animation {
            from: previous,
            target: self.scene.clone(),
            started: now,
        });
    }
}

impl Animation {
    /// The scene at time `now`: each entity between its old and new pose (translation and
    /// scale interpolated linearly, rotation by slerp), eased.
    fn frame(&self, now: f64, generation: u64) -> ViewportScene {
        let t = ((now - self.started) / ANIMATION_SECONDS).clamp(0.0, 1.0) as f32;
        let ease = t * t * (3.0 - 2.0 * t);
        let mut scene = self.target.clone();
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

/// Fills `scene` from the document. Hidden entities hide their subtrees; implicit parents (no
/// components) are not drawn.
fn build_scene(
    scene: &mut ViewportScene,
    doc: &Document,
    hidden: &HashSet<Entity>,
    locked: &HashSet<Entity>,
) {
    let view = doc.view();
    let replica = doc.replica();
    scene.items.clear();
    let mut stack: Vec<Entity> = view.children_of(Entity::ROOT).collect();
    while let Some(e) = stack.pop() {
        if hidden.contains(&e) {
            continue;
        }
        stack.extend(view.children_of(e));
        if !view.is_live(e) {
            continue;
        }
        let shape = Shape::for_entity(
            replica.component_data(e, ids::MESH_RENDERER),
            replica.component_data(e, ids::GLTF_CONTAINER),
        );
        scene.items.push(DrawItem {
            entity: e,
            world: view.world_matrix(e).unwrap_or_default(),
            shape,
            color: color_for(e, view.fallback_reason(e)),
            selected: doc.selection.contains(e),
        });
    }
    scene.gizmo_targets = doc
        .selection
        .entities()
        .iter()
        .filter(|e| view.contains(**e) && !locked.contains(e) && !hidden.contains(e))
        .map(|&e| {
            let parent = view.effective_parent_of(e).unwrap_or(Entity::ROOT);
            GizmoTarget {
                entity: e,
                local: doc.local_transform(e),
                parent_world: view.world_matrix(parent).unwrap_or_default(),
            }
        })
        .collect();
}

/// A stable, pleasant colour per entity; re-rooted entities are tinted so the fallback shows.
fn color_for(entity: Entity, reason: Fallback<'_>) -> Color32 {
    match reason {
        Fallback::Cycle(_) => return style::CYCLE_TINT,
        Fallback::MissingParent => return style::MISSING_PARENT_TINT,
        Fallback::None => {}
    }
    let h = entity.0.wrapping_mul(0x9E37_79B9) >> 29;
    style::ENTITY_PALETTE[h as usize % style::ENTITY_PALETTE.len()]
}
