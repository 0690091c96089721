//! The incremental path: when the scene says which items changed since the generation on the
//! GPU ([`ItemChanges`](crate::ItemChanges)) and each of them stays in its batch and pass,
//! only their instances are rewritten in place; anything else (an item changing shape,
//! texture, model or outline pass, items added or removed, other textures) is a full rebuild.
//!
//! Keeping every other item at its position keeps the instance order a full rebuild gives,
//! so both draw the same pixels (`tests/ui/viewport_render.rs`).

use rustc_hash::FxHashMap as HashMap;
use three_d::{Mat4, Srgba};

use super::{BatchKey, GpuScene, Placement, Slot, Target, place, srgba, to_three};
use crate::{DrawItem, ViewportScene};

/// An instance to write: its position in its arrays, its matrix and its colour.
type Instance = (u32, Mat4, Srgba);

/// A shape batch's instance arrays: the plain items', the outlined items' and their copies'.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Pass {
    Normal,
    Selected,
    Outline,
}

/// The instance writes that bring a build with `slots` (one per item) to `items`, when only
/// the items at `changed` differ from those it was built from; `None` when one of them
/// changes batch or pass, is drawn or hidden anew, or the item count changed.
pub(crate) fn plan(
    slots: &[Slot],
    items: &[DrawItem],
    changed: &[u32],
) -> Option<Vec<(Slot, Placement)>> {
    if slots.len() != items.len() {
        return None;
    }
    let mut writes = Vec::with_capacity(changed.len());
    for &i in changed {
        let slot = *slots.get(i as usize)?;
        match (slot.target, place(&items[i as usize])) {
            (None, None) => {} // still not drawn
            (Some(target), Some(placed))
                if target == placed.target && slot.outlined == placed.outline.is_some() =>
            {
                writes.push((slot, placed));
            }
            _ => return None,
        }
    }
    Some(writes)
}

impl GpuScene {
    /// Rewrites only the changed items' instances when `scene.changes` allows it (see the
    /// module's docs); false when a full rebuild is needed (nothing was written then).
    pub(super) fn try_update(&mut self, scene: &ViewportScene) -> bool {
        let Some(changes) = &scene.changes else {
            return false;
        };
        if self.uploaded_generation != Some(changes.since) || !self.textures_current(scene) {
            return false;
        }
        let Some(writes) = plan(&self.slots, &scene.items, &changes.items) else {
            return false;
        };
        // Every batch a slot names was made by the build that made the slots.
        let known = |(slot, _): &(Slot, Placement)| match slot.target {
            Some(Target::Shape(key)) => self.batches.contains_key(&key),
            _ => true,
        };
        if !writes.iter().all(known) {
            return false;
        }
        let mut models = Vec::new();
        // A shape batch's instances by pass, written after the loop in runs of consecutive
        // positions: a moved subtree's items are consecutive in each batch they join, and one
        // buffer write per run and array costs about what one instance's did (four arrays,
        // twice for an outlined item: on software GL 0.2-0.4 µs a write).
        let mut shapes: HashMap<(BatchKey, Pass), Vec<Instance>> = HashMap::default();
        for (slot, placed) in &writes {
            let instance = to_three(&placed.instance);
            let color = srgba(placed.color);
            let outline = placed.outline.map(|(c, m)| (to_three(&m), srgba(c)));
            match slot.target {
                Some(Target::Shape(key)) => {
                    let pass = if slot.outlined {
                        Pass::Selected
                    } else {
                        Pass::Normal
                    };
                    (shapes.entry((key, pass)).or_default()).push((slot.index, instance, color));
                    if let Some((copy, color)) = outline {
                        (shapes.entry((key, Pass::Outline)).or_default())
                            .push((slot.index, copy, color));
                    }
                }
                Some(Target::Model(asset)) => {
                    self.models
                        .write(asset, slot.outlined, slot.index, instance, color, outline);
                    models.push(asset);
                }
                None => {}
            }
        }
        for ((key, pass), mut instances) in shapes {
            let gpu = self.batches.get_mut(&key).expect("checked above");
            let buffers = match pass {
                Pass::Normal => &mut gpu.normal,
                Pass::Selected => &mut gpu.selected,
                Pass::Outline => &mut gpu.outline,
            };
            instances.sort_unstable_by_key(|(index, ..)| *index);
            for run in instances.chunk_by(|a, b| b.0 == a.0 + 1) {
                let values: Vec<(Mat4, Srgba)> = run.iter().map(|&(_, m, c)| (m, c)).collect();
                buffers.write_run(run[0].0, &values);
            }
        }
        models.sort_unstable();
        models.dedup();
        for asset in models {
            self.models.reapply(asset);
        }
        self.uploaded_generation = Some(scene.generation);
        self.incremental_updates += 1;
        true
    }

    /// Whether the GPU textures are those of `scene` (a texture added, dropped or read again
    /// changes batches: a full rebuild).
    fn textures_current(&self, scene: &ViewportScene) -> bool {
        let textures = &scene.assets.textures;
        textures.len() == self.textures.len()
            && (textures.iter()).all(|(id, t)| {
                (self.textures.get(id)).is_some_and(|(source, _)| std::sync::Arc::ptr_eq(t, source))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Shape;
    use crate::gpu_scene::build_batches;
    use eframe::egui::Color32;
    use glam::{Mat4, Vec3};
    use scenetree_core::model::Entity;

    fn items() -> Vec<DrawItem> {
        (0..6)
            .map(|i| DrawItem {
                entity: Entity(i + 1),
                world: Mat4::from_translation(Vec3::new(i as f32, 0.0, 0.0)),
                shape: if i % 2 == 0 {
                    Shape::Box
                } else {
                    Shape::Sphere
                },
                color: Color32::RED,
                texture: None,
                selected: i == 3,
                below_selected: false,
            })
            .collect()
    }

    #[test]
    fn a_move_and_a_colour_edit_rewrite_only_those_instances_where_they_were() {
        let before = items();
        let slots = build_batches(&before).slots;
        let mut after = before.clone();
        after[2].world = Mat4::from_translation(Vec3::new(9.0, 1.0, 0.0));
        after[3].color = Color32::GREEN;
        let writes = plan(&slots, &after, &[2, 3]).expect("an in-place update");
        assert_eq!(writes.len(), 2);
        assert_eq!(writes[0].0, slots[2]);
        assert_eq!(
            writes[0].1.instance,
            after[2].shape.instance_matrix(&after[2].world)
        );
        // The selected item keeps its outline copy at the same position.
        assert!(writes[1].0.outlined && writes[1].1.outline.is_some());
        // The rebuilt batches put every item where the plan wrote it.
        assert_eq!(build_batches(&after).slots, slots);
    }

    #[test]
    fn an_edit_that_changes_batch_or_pass_falls_back_to_a_full_rebuild() {
        let before = items();
        let slots = build_batches(&before).slots;
        type Edit = (&'static str, fn(&mut DrawItem));
        let edits: [Edit; 4] = [
            ("shape", |i| i.shape = Shape::Sphere),
            ("selected", |i| i.selected = true),
            ("below the selection", |i| i.below_selected = true),
            ("not finite", |i| {
                i.world = Mat4::from_scale(Vec3::splat(f32::NAN))
            }),
        ];
        for (what, edit) in edits {
            let mut after = before.clone();
            edit(&mut after[0]);
            assert!(plan(&slots, &after, &[0]).is_none(), "{what}");
        }
        // Items added or removed.
        let mut more = before.clone();
        more.push(before[0]);
        assert!(plan(&slots, &more, &[0]).is_none());
        assert!(plan(&slots, &before[..5], &[0]).is_none());
        // An index past the items.
        assert!(plan(&slots, &before, &[6]).is_none());
    }
}
