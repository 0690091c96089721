//! Finding a tick's hazards in what the player's renderer was told.

use rustc_hash::FxHashSet;

use super::{Player, TickOutput};
use crate::crdt::CrdtMessage;
use crate::model::{Entity, Transform, ids};
use crate::net::engine::{ParentSource, ReceiveNote, WriteOrigin};
use crate::net::hazard::{self, Hazard, HazardKind};
use crate::net::store::Update;

impl Player {
    /// The hazards of a tick whose renderer writes are `out`'s; `removed_parents` are the
    /// entities whose NetworkParent the scene itself deleted.
    pub(super) fn find_hazards(
        &mut self,
        tick: u32,
        out: &TickOutput,
        removed_parents: &[Entity],
    ) -> Vec<Hazard> {
        let mut found = Vec::new();
        let mut seen = FxHashSet::default();
        let mut push = |kind: HazardKind, entity: Entity, cause: String| {
            if seen.insert((kind, entity)) {
                found.push(Hazard {
                    kind,
                    entity,
                    tick,
                    cause,
                });
            }
        };
        let mut lost_parent: Vec<Entity> = removed_parents.to_vec();
        for note in &out.received {
            match note {
                ReceiveNote::Applied {
                    entity,
                    component,
                    update,
                    delete,
                    state_response,
                } if *update != Update::Outdated => {
                    if let Some(serial) = state_response {
                        self.first_state_response.get_or_insert(*serial);
                    }
                    if *component == ids::NETWORK_PARENT && *delete && *update == Update::Accepted {
                        lost_parent.push(*entity);
                    }
                }
                ReceiveNote::Deleted { entity } => lost_parent.retain(|e| e != entity),
                _ => {}
            }
        }
        let mut transform_sent = FxHashSet::default();
        for write in &out.renderer_writes {
            let entity = write.message.entity();
            if let (
                CrdtMessage::PutComponent {
                    component: Transform::COMPONENT_ID,
                    data,
                    ..
                },
                WriteOrigin::Forwarded {
                    state_response: Some(serial),
                    sender,
                    ..
                },
            ) = (&write.message, &write.origin)
                && self
                    .first_state_response
                    .is_some_and(|first| first != *serial)
            {
                let _ = data;
                push(
                    HazardKind::RepeatedStateResponse,
                    entity,
                    hazard::repeated_state_response_cause(entity, sender.as_deref()),
                );
            }
            match &write.message {
                CrdtMessage::PutComponent {
                    component: Transform::COMPONENT_ID,
                    data,
                    ..
                } => {
                    transform_sent.insert(entity);
                    let parent = parent_field(data);
                    self.transform_hazards(entity, parent, &write.parent, &write.origin, &mut push);
                }
                CrdtMessage::DeleteEntity { .. } => {
                    if let WriteOrigin::Forwarded {
                        deleted_local: Some(real),
                        ..
                    } = write.origin
                        && real != entity
                    {
                        push(
                            HazardKind::WrongEntityDeleted,
                            entity,
                            hazard::wrong_entity_deleted_cause(entity, real),
                        );
                    }
                }
                _ => {}
            }
        }
        for entity in lost_parent {
            if transform_sent.contains(&entity) {
                continue;
            }
            if let Some(kept) = self.renderer.parent(entity)
                && kept != Entity::ROOT
            {
                push(
                    HazardKind::ParentNotRemoved,
                    entity,
                    hazard::parent_not_removed_cause(entity, kept),
                );
            }
        }
        found
    }

    fn transform_hazards(
        &self,
        entity: Entity,
        parent: Entity,
        source: &ParentSource,
        origin: &WriteOrigin,
        push: &mut impl FnMut(HazardKind, Entity, String),
    ) {
        let label = |identity| hazard::identity_label(identity, self.address_of_identity(identity));
        match source {
            ParentSource::Mapped(identity) | ParentSource::Unmapped(identity)
                if parent == entity =>
            {
                let mapped = matches!(source, ParentSource::Mapped(_));
                push(
                    HazardKind::SelfParent,
                    entity,
                    hazard::self_parent_cause(entity, &label(*identity), mapped),
                );
            }
            ParentSource::Unmapped(identity) => push(
                HazardKind::UnmappedParent,
                entity,
                hazard::unmapped_parent_cause(entity, &label(*identity), parent),
            ),
            ParentSource::Raw => {
                if let WriteOrigin::Forwarded { sender, .. } = origin
                    && parent != Entity::ROOT
                    && self.engine.has(entity, ids::NETWORK_ENTITY)
                {
                    push(
                        HazardKind::RawParent,
                        entity,
                        hazard::raw_parent_cause(entity, parent, sender.as_deref()),
                    );
                }
            }
            _ => {}
        }
    }

    fn address_of_identity(
        &self,
        identity: crate::net::components::NetworkIdentity,
    ) -> Option<&str> {
        u32::try_from(identity.network_id)
            .ok()
            .and_then(|net| self.address_of(net))
    }
}

/// The parent field of a Transform's bytes (`ROOT` when too short to hold one).
fn parent_field(data: &[u8]) -> Entity {
    data.get(40..44)
        .and_then(|b| b.first_chunk::<4>())
        .map_or(Entity::ROOT, |b| Entity(u32::from_le_bytes(*b)))
}
