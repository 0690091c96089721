//! Which tree policy the viewport draws while peers are simulated: a selector over the view,
//! and the active peer's [`PolicyWorlds`] under it, kept until that policy's tree changes.

use scenetree_core::crdt::network::PeerId;
use scenetree_core::model::Entity;
use scenetree_core::scene::SceneView;
use scenetree_core::scene::policy::{PolicyBoard, PolicyWorlds, TreePolicy};
use scenetree_viewport::ViewportScene;

/// The viewport's tree policy and what it draws differently from the render tree.
#[derive(Debug)]
pub struct PolicyDrawing {
    /// The policy drawn; [`TreePolicy::RootFallback`] is what the runtime draws.
    pub policy: TreePolicy,
    /// (policy, peer, the board's generation of that tree) and its worlds.
    worlds: Option<((TreePolicy, PeerId, u64), PolicyWorlds)>,
}

impl Default for PolicyDrawing {
    fn default() -> Self {
        PolicyDrawing {
            policy: TreePolicy::RootFallback,
            worlds: None,
        }
    }
}

impl PolicyDrawing {
    /// Follows the board for `peer`; `None` (no simulation, or the render tree's own policy)
    /// draws the render tree.
    pub(super) fn update(&mut self, board: Option<(&PolicyBoard, PeerId)>) {
        let Some((board, peer)) = board.filter(|_| self.policy != TreePolicy::RootFallback) else {
            self.worlds = None;
            return;
        };
        let key = (self.policy, peer, board.generation(peer, self.policy));
        if self.worlds.as_ref().is_none_or(|(k, _)| *k != key) {
            self.worlds = Some((key, board.worlds(peer, self.policy)));
        }
    }

    /// What the built scene depends on.
    pub(super) fn key(&self) -> Option<(TreePolicy, PeerId, u64)> {
        self.worlds.as_ref().map(|(k, _)| *k)
    }

    /// The policy's differences, when it is not the render tree's.
    pub(super) fn worlds(&self) -> Option<&PolicyWorlds> {
        self.worlds.as_ref().map(|(_, w)| w)
    }

    /// The selector, over the bottom-right corner of the view (`rect`): at the top it covered
    /// the Scale and World buttons of a narrow view (the Peers workspace at 1024×700).
    pub(super) fn selector_ui(&mut self, ui: &mut egui::Ui, rect: egui::Rect) {
        let corner = rect.right_bottom() + egui::vec2(-8.0, -8.0);
        egui::Area::new(ui.id().with("viewport-policy"))
            .fixed_pos(corner)
            .pivot(egui::Align2::RIGHT_BOTTOM)
            .show(ui.ctx(), |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    egui::ComboBox::from_id_salt("viewport-policy-combo")
                        .selected_text(format!("Draw: {}", self.policy.name()))
                        .show_ui(ui, |ui| {
                            for policy in TreePolicy::ALL {
                                ui.selectable_value(&mut self.policy, policy, policy.name())
                                    .on_hover_text(policy.source());
                            }
                        })
                        .response
                        .on_hover_text(
                            "The rule for cycles this view draws the active peer's tree with \
                             (RootFallback is what the runtime draws)",
                        );
                });
            });
    }
}

/// Moves and hides `scene`'s items as `worlds` says.
pub(super) fn apply(scene: &mut ViewportScene, worlds: &PolicyWorlds) {
    scene.items.retain(|i| !worlds.hidden.contains(&i.entity));
    for item in &mut scene.items {
        if let Some(world) = worlds.moved.get(&item.entity) {
            item.world = *world;
        }
    }
}

/// The world matrix of `entity`'s parent under the drawn policy (for the gizmo): its world
/// there without its local, or the render tree's parent world.
pub(super) fn parent_world(
    view: &SceneView,
    worlds: Option<&PolicyWorlds>,
    entity: Entity,
) -> glam::Mat4 {
    let moved = worlds.and_then(|w| w.moved.get(&entity));
    let local = view.local_affine(entity).map(glam::Mat4::from);
    match (moved, local) {
        (Some(world), Some(local)) if local.determinant().abs() > 1e-12 => *world * local.inverse(),
        _ => {
            let parent = view.effective_parent_of(entity).unwrap_or(Entity::ROOT);
            view.world_matrix(parent).unwrap_or_default()
        }
    }
}
