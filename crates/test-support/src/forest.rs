//! Deterministic, shuffled test forests shared by the criterion benches (`benches/`) and the
//! bevy comparison (`bench/vs-bevy/`, which includes this file by path), so that both measure
//! exactly the same hierarchies.
//!
//! Every forest is generated in *tree order* (each node after its parent) and then given entity
//! ids by a seeded random permutation, so ids are not in tree order: a source iterated by id, or
//! an ECS that spawns in id order, sees parents and children scattered. Spawn order = id order.
//!
//! Local transforms: translation in [-4, 4] m per axis, a rotation of at most 0.5 rad about a
//! random axis, scale 1 (products of non-unit scales overflow along a 100,000-deep chain);
//! [`Forest::with_non_uniform_scale`] gives a share of the nodes of the shallower forests
//! a scale of 0.5 to 2 per axis, so that comparisons check T·R·S under rotated, non-uniformly
//! scaled parents.

use glam::{Quat, Vec3};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use scenetree_core::model::{Entity, Transform};
use scenetree_core::scene::TransformTable;

/// The first entity id used (ids are `FIRST_ID .. FIRST_ID + len`, shuffled over tree order).
pub const FIRST_ID: u32 = 512;

/// A generated hierarchy: `entities[i]` has local transform `transforms[i]` (whose `parent` is
/// [`Entity::ROOT`] for the top nodes of the trees). Indices are spawn order = ascending id.
#[derive(Clone)]
pub struct Forest {
    /// Short name used in benchmark ids.
    pub name: &'static str,
    /// One-line description for reports.
    pub description: &'static str,
    /// Entity ids in spawn order (ascending).
    pub entities: Vec<Entity>,
    /// Local transforms, parallel to `entities`.
    pub transforms: Vec<Transform>,
    /// Spawn index of each node in tree order (`tree_order[pos]`; parents before children).
    pub tree_order: Vec<u32>,
    /// Tree position of each spawn index (the inverse of `tree_order`).
    pub position: Vec<u32>,
}

/// A set of entities with replacement transforms, applied alternately with the originals so
/// that every application is a real change.
#[derive(Clone)]
pub struct ChangeSet {
    /// Spawn indices of the changed entities.
    pub indices: Vec<u32>,
    /// Their replacement transforms (same order as `indices`).
    pub changed: Vec<Transform>,
    /// How many of them also change parent.
    pub reparented: usize,
}

impl Forest {
    /// Number of entities.
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// True for a forest of no entities.
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// A table holding the whole forest, inserted in spawn order.
    pub fn table(&self) -> TransformTable {
        let mut table = TransformTable::new();
        for (e, t) in self.entities.iter().zip(&self.transforms) {
            table.set(*e, *t);
        }
        table
    }

    /// Every entity with a moved translation (same parents): "all locals changed".
    pub fn all_changed(&self) -> ChangeSet {
        ChangeSet {
            indices: (0..self.len() as u32).collect(),
            changed: self.transforms.iter().map(nudged).collect(),
            reparented: 0,
        }
    }

    /// `percent`% of the entities (at least one), chosen uniformly with `seed`, get a moved
    /// translation. With `reparent_every = Some(k)`, every k-th of them also moves under a
    /// random node that precedes it in tree order (so the forest stays acyclic).
    pub fn random_changes(
        &self,
        percent: f64,
        reparent_every: Option<usize>,
        seed: u64,
    ) -> ChangeSet {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let n = self.len();
        let k = ((n as f64 * percent / 100.0).round() as usize).clamp(1, n);
        let mut indices: Vec<u32> = rand::seq::index::sample(&mut rng, n, k)
            .into_iter()
            .map(|i| i as u32)
            .collect();
        indices.sort_unstable();
        let mut reparented = 0;
        let changed = indices
            .iter()
            .enumerate()
            .map(|(j, &i)| {
                let mut t = nudged(&self.transforms[i as usize]);
                let pos = self.position[i as usize] as usize;
                if reparent_every.is_some_and(|every| j % every == 0) && pos > 0 {
                    let new_pos = rng.random_range(0..pos);
                    t.parent = self.entities[self.tree_order[new_pos] as usize];
                    if t.parent != self.transforms[i as usize].parent {
                        reparented += 1;
                    }
                }
                t
            })
            .collect();
        ChangeSet {
            indices,
            changed,
            reparented,
        }
    }

    /// The same forest with `share` (0 to 1) of its nodes, chosen with `seed`, scaled by 0.5 to
    /// 2 along each local axis independently. Change sets made afterwards keep those scales.
    pub fn with_non_uniform_scale(mut self, share: f64, seed: u64) -> Forest {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for t in &mut self.transforms {
            if rng.random_bool(share) {
                let mut factor = || rng.random_range(0.5f32..=2.0);
                t.scale = Vec3::new(factor(), factor(), factor());
            }
        }
        self
    }

    /// Writes the change set (`forward`) or the original transforms (`!forward`) into `table`.
    pub fn apply(&self, set: &ChangeSet, forward: bool, table: &mut TransformTable) {
        for (j, &i) in set.indices.iter().enumerate() {
            let t = if forward {
                set.changed[j]
            } else {
                self.transforms[i as usize]
            };
            table.set(self.entities[i as usize], t);
        }
    }

    /// Builds a forest from parent positions given in tree order (`parents[pos] < pos`, or
    /// `None` for a top node under the scene root), shuffling ids with `seed`.
    pub fn from_tree_order(
        name: &'static str,
        description: &'static str,
        parents: &[Option<u32>],
        top_spread: f32,
        seed: u64,
    ) -> Forest {
        let n = parents.len();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut tree_order: Vec<u32> = (0..n as u32).collect();
        tree_order.shuffle(&mut rng);
        let mut position = vec![0u32; n];
        for (pos, &spawn) in tree_order.iter().enumerate() {
            position[spawn as usize] = pos as u32;
        }
        let entities: Vec<Entity> = (0..n as u32).map(|i| Entity(FIRST_ID + i)).collect();
        let mut transforms = vec![Transform::IDENTITY; n];
        for (pos, parent) in parents.iter().enumerate() {
            debug_assert!(parent.is_none_or(|p| (p as usize) < pos), "tree order");
            let spawn = tree_order[pos] as usize;
            let parent_entity =
                parent.map_or(Entity::ROOT, |p| entities[tree_order[p as usize] as usize]);
            let spread = if parent.is_none() { top_spread } else { 4.0 };
            transforms[spawn] = random_local(&mut rng, spread, parent_entity);
        }
        Forest {
            name,
            description,
            entities,
            transforms,
            tree_order,
            position,
        }
    }
}

fn random_local(rng: &mut ChaCha8Rng, spread: f32, parent: Entity) -> Transform {
    let mut coord = || rng.random_range(-spread..=spread);
    let position = Vec3::new(coord(), coord(), coord());
    let axis = Vec3::new(
        rng.random_range(-1.0..=1.0),
        rng.random_range(-1.0..=1.0),
        rng.random_range(-1.0..=1.0),
    )
    .try_normalize()
    .unwrap_or(Vec3::Y);
    let angle = rng.random_range(-0.5..=0.5);
    Transform {
        position,
        rotation: Quat::from_axis_angle(axis, angle),
        scale: Vec3::ONE,
        parent,
    }
}

/// The same transform moved 0.25 m along X (a real change, same parent).
fn nudged(t: &Transform) -> Transform {
    Transform {
        position: t.position + Vec3::new(0.25, 0.0, 0.0),
        ..*t
    }
}

/// wide: one top node with three full levels of 58 children below it (198,535 entities).
pub fn wide() -> Forest {
    const BRANCH: u32 = 58;
    let n = 1 + BRANCH + BRANCH.pow(2) + BRANCH.pow(3);
    let parents: Vec<Option<u32>> = (0..n).map(|i| (i > 0).then(|| (i - 1) / BRANCH)).collect();
    Forest::from_tree_order(
        "wide",
        "1 top node, 3 levels of 58 children",
        &parents,
        4.0,
        1,
    )
}

/// deep: a complete binary tree of 17 levels (2^17 - 1 = 131,071 entities).
pub fn deep() -> Forest {
    let n: u32 = (1 << 17) - 1;
    let parents: Vec<Option<u32>> = (0..n).map(|i| (i > 0).then(|| (i - 1) / 2)).collect();
    Forest::from_tree_order("deep", "complete binary tree, 17 levels", &parents, 4.0, 2)
}

/// chain: one chain 100,000 entities deep.
pub fn chain() -> Forest {
    let n: u32 = 100_000;
    let parents: Vec<Option<u32>> = (0..n).map(|i| i.checked_sub(1)).collect();
    Forest::from_tree_order("chain", "a single chain 100,000 deep", &parents, 4.0, 3)
}

/// forest: 1,000 random recursive trees of 1,000 entities (1,000,000 entities): node j of a tree
/// hangs under a uniformly chosen earlier node of the same tree.
pub fn forest() -> Forest {
    const TREES: u32 = 1_000;
    const SIZE: u32 = 1_000;
    let mut rng = ChaCha8Rng::seed_from_u64(40);
    let mut parents = Vec::with_capacity((TREES * SIZE) as usize);
    for t in 0..TREES {
        let base = t * SIZE;
        parents.push(None);
        for j in 1..SIZE {
            parents.push(Some(base + rng.random_range(0..j)));
        }
    }
    Forest::from_tree_order(
        "forest",
        "1,000 random recursive trees of 1,000",
        &parents,
        100.0,
        4,
    )
}

/// A 40-bone humanoid rig: parent of each bone in rig order (hips first).
pub const HUMANOID_RIG: [Option<u32>; 40] = {
    const fn p(i: u32) -> Option<u32> {
        Some(i)
    }
    [
        None,  // 0 hips
        p(0),  // 1 spine
        p(1),  // 2 spine 1
        p(2),  // 3 spine 2
        p(3),  // 4 neck
        p(4),  // 5 head
        p(5),  // 6 head end
        p(5),  // 7 jaw
        p(5),  // 8 left eye
        p(5),  // 9 right eye
        p(3),  // 10 left shoulder
        p(10), // 11 left arm
        p(11), // 12 left forearm
        p(12), // 13 left hand
        p(13), // 14 left thumb 1
        p(14), // 15 left thumb 2
        p(13), // 16 left index 1
        p(16), // 17 left index 2
        p(13), // 18 left middle 1
        p(18), // 19 left middle 2
        p(13), // 20 left ring
        p(13), // 21 left pinky
        p(3),  // 22 right shoulder
        p(22), // 23 right arm
        p(23), // 24 right forearm
        p(24), // 25 right hand
        p(25), // 26 right thumb 1
        p(26), // 27 right thumb 2
        p(25), // 28 right index 1
        p(28), // 29 right index 2
        p(25), // 30 right middle 1
        p(30), // 31 right middle 2
        p(25), // 32 right ring
        p(25), // 33 right pinky
        p(0),  // 34 left up leg
        p(34), // 35 left leg
        p(35), // 36 left foot
        p(0),  // 37 right up leg
        p(37), // 38 right leg
        p(38), // 39 right foot
    ]
};

/// humanoids: 4,000 rigs of 40 bones (160,000 entities), each rig's hips under the root.
pub fn humanoids() -> Forest {
    const RIGS: u32 = 4_000;
    let bones = HUMANOID_RIG.len() as u32;
    let parents: Vec<Option<u32>> = (0..RIGS)
        .flat_map(|r| HUMANOID_RIG.iter().map(move |p| p.map(|b| r * bones + b)))
        .collect();
    Forest::from_tree_order(
        "humanoids",
        "4,000 humanoid rigs of 40 bones",
        &parents,
        250.0,
        5,
    )
}

/// Builds one forest.
pub type Maker = fn() -> Forest;

/// The five forests by name, in the order the benches run them.
pub const BY_NAME: [(&str, Maker); 5] = [
    ("wide", wide),
    ("deep", deep),
    ("chain", chain),
    ("forest", forest),
    ("humanoids", humanoids),
];
