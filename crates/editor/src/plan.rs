//! Planning a command: validation and the list of register writes it needs, computed from the
//! document without writing anything ([`Document::apply`] writes them).

use rustc_hash::FxHashMap;

use scenetree_core::model::{Entity, Transform, decode_name, encode_name, ids};
use scenetree_dcl::nodes::{flag_value, hide_id, lock_id};

use super::command::{Command, EditError};
use super::document::{Applied, Document};
use super::inspector::NodesPlan;

/// A register write a command plans: the entity, the component, the value (`None`: remove it).
pub(super) type Write = (Entity, u32, Option<Vec<u8>>);

/// What planning a command builds up.
struct Plan {
    /// The writes, in order.
    writes: Vec<Write>,
    /// What the command reports (entities created, deleted, copied).
    applied: Applied,
    /// The Inspector's tree, kept in step with the writes.
    nodes: NodesPlan,
}

impl Document {
    /// Validates a command and lists the register writes it needs, without writing anything.
    pub(super) fn plan(&self, command: Command) -> Result<(Vec<Write>, Applied), EditError> {
        let mut plan = Plan {
            writes: Vec::new(),
            applied: Applied::default(),
            nodes: NodesPlan::new(self),
        };
        match command {
            Command::SetTransforms(items) => self.plan_set_transforms(&mut plan, items)?,
            Command::Reparent {
                entities,
                parent,
                keep_world,
            } => self.plan_reparent(&mut plan, entities, parent, keep_world)?,
            Command::Reorder {
                entities,
                parent,
                after,
                keep_world,
            } => self.plan_reorder(&mut plan, entities, parent, after, keep_world)?,
            Command::Rename { entity, name } => {
                self.check_editable(entity)?;
                let value = (!name.is_empty()).then(|| encode_name(&name));
                plan.writes.push((entity, ids::NAME, value));
            }
            Command::Create {
                parent,
                name,
                components,
            } => self.plan_create(&mut plan, parent, name, components)?,
            Command::Duplicate { entities } | Command::Paste { entities } => {
                self.plan_duplicate(&mut plan, entities)?
            }
            Command::Delete { entities } => self.plan_delete(&mut plan, entities)?,
            Command::SetHidden { entities, hidden } => {
                self.plan_hidden(&mut plan, entities, hidden)?
            }
            Command::SetLocked { entities, locked } => {
                self.plan_locked(&mut plan, entities, locked)?
            }
            Command::SetComponent {
                entity,
                component,
                value,
            } => self.plan_set_component(&mut plan, entity, component, value)?,
        }
        let Plan {
            mut writes,
            applied,
            nodes,
        } = plan;
        writes.extend(nodes.write());
        Ok((writes, applied))
    }

    /// Transform values written as they are, each checked (finite, not under itself).
    fn plan_set_transforms(
        &self,
        plan: &mut Plan,
        items: Vec<(Entity, Transform)>,
    ) -> Result<(), EditError> {
        if items.is_empty() {
            return Err(EditError::Nothing("transform"));
        }
        for (entity, t) in items {
            self.check_editable(entity)?;
            check_transform(entity, &t)?;
            if t.parent != self.local_transform(entity).parent && self.would_cycle(entity, t.parent)
            {
                return Err(EditError::WouldCycle {
                    entity,
                    parent: t.parent,
                });
            }
            let old = self.replica().transform(entity).map(|t| t.parent);
            plan.nodes.reparented(entity, old, t.parent);
            plan.writes
                .push((entity, ids::TRANSFORM, Some(t.to_bytes().to_vec())));
        }

        Ok(())
    }

    /// The top-most of `entities` under `parent`, keeping their world pose or local values.
    fn plan_reparent(
        &self,
        plan: &mut Plan,
        entities: Vec<Entity>,
        parent: Entity,
        keep_world: bool,
    ) -> Result<(), EditError> {
        let movers = self.top_level(&entities);
        if movers.is_empty() {
            return Err(EditError::Nothing("move"));
        }
        for entity in movers {
            // Already there: nothing to write (keeping the world pose through its
            // matrices would change the last bits of the values, and so the
            // timestamp, the history and the peers, for nothing).
            if self.declared_parent(entity) == parent {
                self.check_editable(entity)?;
                continue;
            }
            let t = self.transform_under(entity, parent, keep_world)?;
            let old = self.replica().transform(entity).map(|t| t.parent);
            plan.nodes.reparented(entity, old, parent);
            plan.writes
                .push((entity, ids::TRANSFORM, Some(t.to_bytes().to_vec())));
        }

        Ok(())
    }

    /// A drop between rows: the movers under `parent`, placed after `after` in its children.
    fn plan_reorder(
        &self,
        plan: &mut Plan,
        entities: Vec<Entity>,
        parent: Entity,
        after: Option<Entity>,
        keep_world: bool,
    ) -> Result<(), EditError> {
        let movers = self.in_display_order(self.top_level(&entities));
        if movers.is_empty() {
            return Err(EditError::Nothing("reorder"));
        }
        for &entity in &movers {
            if self.replica().transform(entity).map(|t| t.parent) == Some(parent) {
                self.check_editable(entity)?;
            } else {
                let t = self.transform_under(entity, parent, keep_world)?;
                plan.writes
                    .push((entity, ids::TRANSFORM, Some(t.to_bytes().to_vec())));
            }
        }
        // `after` may be one of the movers (a drop right below a dragged row): the
        // movers go after the nearest sibling above it that stays.
        let shown = self.ordered_children(parent);
        let after = after.and_then(|a| {
            let at = shown.iter().position(|&c| c == a)?;
            shown[..=at]
                .iter()
                .rev()
                .find(|c| !movers.contains(c))
                .copied()
        });
        plan.nodes
            .placed(self.replica(), parent, &shown, &movers, after);

        Ok(())
    }

    /// A new entity under `parent`, named (as numbered by the caller) and holding `components`.
    fn plan_create(
        &self,
        plan: &mut Plan,
        parent: Entity,
        name: String,
        components: Vec<(u32, Vec<u8>)>,
    ) -> Result<(), EditError> {
        let entity = self.free_entities(1)?[0];
        if !components.iter().any(|(c, _)| *c == ids::TRANSFORM) {
            plan.writes.push((
                entity,
                ids::TRANSFORM,
                Some(Transform::identity_under(parent).to_bytes().to_vec()),
            ));
        }
        if !name.is_empty() {
            plan.writes
                .push((entity, ids::NAME, Some(encode_name(&name))));
        }
        // The Inspector gives every entity it creates a TransformConfig (and adds one on
        // an entity's first edit there): one made here reads the same to it.
        let config = scenetree_dcl::nodes::transform_config_id();
        if plan.nodes.tracks() && !components.iter().any(|(c, _)| *c == config) {
            let value = scenetree_dcl::nodes::transform_config_value();
            plan.writes.push((entity, config, Some(value)));
        }
        for (component, value) in components {
            plan.writes.push((entity, component, Some(value)));
        }
        plan.nodes.created(parent, entity);
        plan.applied.created.push(entity);

        Ok(())
    }

    /// Copies of the top-most of `entities` with their subtrees, under fresh numbers.
    fn plan_duplicate(&self, plan: &mut Plan, entities: Vec<Entity>) -> Result<(), EditError> {
        let tops = self.top_level(&entities);
        if tops.is_empty() {
            return Err(EditError::Nothing("duplicate"));
        }
        // Each subtree as its rows are listed: the copies take fresh ids in that
        // order, so that a scene listing siblings by id lists the copies' children as
        // it lists the originals'.
        let order = self.sibling_order();
        let originals: Vec<Vec<Entity>> = tops
            .iter()
            .map(|&t| self.editable_nodes(t, order.subtree(self.view(), t)))
            .collect::<Result<_, _>>()?;
        let total: usize = originals.iter().map(Vec::len).sum();
        let mut fresh = self.free_entities(total)?.into_iter();
        // Built on first use: most copies have a name, and the scan is one pass.
        let mut names: Option<super::names::SceneNames> = None;
        for nodes in originals {
            let pairs: Vec<(Entity, Entity)> = nodes
                .iter()
                .map(|&old| (old, fresh.next().expect("enough ids")))
                .collect();
            let map: FxHashMap<Entity, Entity> = pairs.iter().copied().collect();
            let new_id = |e: Entity| map.get(&e).copied();
            for (i, &(old, new)) in pairs.iter().enumerate() {
                for component in self.replica().components_of(old) {
                    let Some(data) = self.replica().component_data(old, component) else {
                        continue;
                    };
                    let mut data = data.to_vec();
                    if component == ids::TRANSFORM {
                        if let Ok(mut t) = Transform::from_bytes(&data) {
                            t.parent = new_id(t.parent).unwrap_or(t.parent);
                            data = t.to_bytes().to_vec();
                        }
                    } else if component == ids::NAME
                        && i == 0
                        && let Some(name) = decode_name(&data)
                    {
                        // Numbered as the Inspector numbers copies: "Lamp" → "Lamp_2".
                        if !name.is_empty() {
                            let names = names.get_or_insert_with(|| self.scene_names());
                            data = encode_name(&names.take(&name));
                        }
                    }
                    plan.writes.push((new, component, Some(data)));
                }
                if i == 0 {
                    plan.applied.created.push(new);
                }
            }
            plan.nodes.duplicated(self.replica(), &pairs);
            plan.applied.copies.extend(pairs);
        }

        Ok(())
    }

    /// Every component of the top-most of `entities` and their subtrees removed (numbers kept).
    fn plan_delete(&self, plan: &mut Plan, entities: Vec<Entity>) -> Result<(), EditError> {
        let tops = self.top_level(&entities);
        if tops.is_empty() {
            return Err(EditError::Nothing("delete"));
        }
        let mut removed = rustc_hash::FxHashSet::default();
        for &top in &tops {
            for e in self.editable_subtree(top)? {
                removed.insert(e);
                for component in self.replica().components_of(e) {
                    if self.replica().component_data(e, component).is_some() {
                        plan.writes.push((e, component, None));
                    }
                }
            }
        }
        plan.nodes.deleted(&removed);
        plan.applied.deleted = tops;

        Ok(())
    }

    /// `inspector::Hide` set or cleared on the entities and their Transform subtrees.
    fn plan_hidden(
        &self,
        plan: &mut Plan,
        entities: Vec<Entity>,
        hidden: bool,
    ) -> Result<(), EditError> {
        if entities.is_empty() {
            return Err(EditError::Nothing("hide"));
        }
        let mut done = std::collections::HashSet::new();
        for top in entities {
            self.check_not_deleted(top)?;
            for e in self.transform_tree(top) {
                if done.insert(e) && self.is_hidden(e) != hidden {
                    plan.writes.push((e, hide_id(), hidden.then(flag_value)));
                }
            }
        }

        Ok(())
    }

    /// `inspector::Lock` set or cleared on the entities.
    fn plan_locked(
        &self,
        plan: &mut Plan,
        entities: Vec<Entity>,
        locked: bool,
    ) -> Result<(), EditError> {
        if entities.is_empty() {
            return Err(EditError::Nothing("lock"));
        }
        for e in entities {
            self.check_not_deleted(e)?;
            if self.is_locked(e) != locked {
                plan.writes.push((e, lock_id(), locked.then(flag_value)));
            }
        }

        Ok(())
    }

    /// One component value written as given (a Transform checked first).
    fn plan_set_component(
        &self,
        plan: &mut Plan,
        entity: Entity,
        component: u32,
        value: Option<Vec<u8>>,
    ) -> Result<(), EditError> {
        if component == ids::TRANSFORM {
            self.check_editable(entity)?;
        } else {
            // Scenes put components on reserved entities (MainCamera on the camera).
            self.check_not_deleted(entity)?;
        }
        if component == ids::TRANSFORM
            && let Some(v) = &value
        {
            let t = Transform::from_bytes(v)
                .map_err(|source| EditError::MalformedTransform { entity, source })?;
            check_transform(entity, &t)?;
        }
        plan.writes.push((entity, component, value));
        Ok(())
    }

    /// The local Transform that puts `entity` under `parent`: recomputed so the entity keeps
    /// its world pose (`keep_world`), or its local values kept. Refuses reserved entities, a
    /// parent below the entity, and keeping the world pose under a parent of zero scale.
    fn transform_under(
        &self,
        entity: Entity,
        parent: Entity,
        keep_world: bool,
    ) -> Result<Transform, EditError> {
        self.check_editable(entity)?;
        if self.would_cycle(entity, parent) {
            return Err(EditError::WouldCycle { entity, parent });
        }
        let mut t = self.local_transform(entity);
        if keep_world {
            let world = self.view().world_affine(entity).unwrap_or_default();
            let parent_world = self.view().world_affine(parent).unwrap_or_default();
            t = Transform::from_world_under(&world, &parent_world, parent)
                .ok_or(EditError::DegenerateParent { entity, parent })?;
        } else {
            t.parent = parent;
        }
        Ok(t)
    }

    /// The parent `entity`'s Transform names; the root without a Transform (where it is
    /// drawn).
    pub fn declared_parent(&self, entity: Entity) -> Entity {
        self.replica()
            .transform(entity)
            .map_or(Entity::ROOT, |t| t.parent)
    }

    /// Whether `entity` may be moved, renamed, duplicated or deleted: not one of the engine's
    /// reserved entities (see [`EditError::Reserved`]), and not deleted.
    fn check_editable(&self, entity: Entity) -> Result<(), EditError> {
        if entity.is_reserved() {
            return Err(EditError::Reserved(entity));
        }
        self.check_not_deleted(entity)
    }

    /// `top` and everything drawn below it, parents first, when all of it may be duplicated or
    /// deleted (a reserved entity can hang below a scene entity).
    fn editable_subtree(&self, top: Entity) -> Result<Vec<Entity>, EditError> {
        self.editable_nodes(top, self.subtree(top))
    }

    /// `nodes`, the subtree of `top` in some order, when every one of them may be edited.
    fn editable_nodes(&self, top: Entity, nodes: Vec<Entity>) -> Result<Vec<Entity>, EditError> {
        self.check_editable(top)?;
        match nodes.iter().find(|e| e.is_reserved()) {
            Some(&reserved) => Err(EditError::Reserved(reserved)),
            None => Ok(nodes),
        }
    }

    fn check_not_deleted(&self, entity: Entity) -> Result<(), EditError> {
        if self.replica().is_deleted(entity) {
            return Err(EditError::Write(
                scenetree_core::crdt::WriteError::EntityDeleted(entity),
            ));
        }
        Ok(())
    }

    /// `n` entity ids that are free in this replica, smallest numbers first.
    fn free_entities(&self, n: usize) -> Result<Vec<Entity>, EditError> {
        // Numbers the tree still shows (implicit parents someone points at) are taken too.
        let shown: std::collections::HashSet<u16> =
            self.view().entities().map(|e| e.number()).collect();
        // Live: from the session's range, away from the numbers the Inspector takes.
        let out = match self.live() {
            Some(live) => live.free_entities(n, |number| shown.contains(&number)),
            None => self
                .replica()
                .free_entities(n, |number| shown.contains(&number)),
        };
        if out.len() < n {
            Err(EditError::Full {
                needed: n,
                free: out.len(),
            })
        } else {
            Ok(out)
        }
    }
}

fn check_transform(entity: Entity, t: &Transform) -> Result<(), EditError> {
    if !t.position.is_finite() {
        return Err(EditError::NotFinite {
            entity,
            field: "position",
        });
    }
    if !t.rotation.is_finite() {
        return Err(EditError::NotFinite {
            entity,
            field: "rotation",
        });
    }
    if !t.scale.is_finite() {
        return Err(EditError::NotFinite {
            entity,
            field: "scale",
        });
    }
    if t.rotation.length_squared() < 1e-12 {
        return Err(EditError::ZeroRotation { entity });
    }
    Ok(())
}
