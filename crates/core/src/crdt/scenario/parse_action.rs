//! Reading the actions of a scenario step (the table in [`super::parse`]): the `"do"` tag is a
//! serde enum, each action's fields a struct of the schema (`schema.rs`) that refuses unknown
//! fields, and the values that need the scenario (entity names, peer numbers, which message)
//! are resolved after, each error at its field's JSON path.

use glam::{Quat, Vec3};
use serde::Deserialize;
use serde_json::Value;

use super::parse::{Names, Node, Parser, read as fields};
use super::schema::{
    AuthoredFields, AutoDeliveryFields, ComponentFields, DeliverAllFields, EntityFields, Kind,
    MessageFields, MoveFields, PeerFields, RenameFields, SwitchFields, TickFields, ValueFields,
};
use super::values::{ComponentRef, EntityRef};
use super::{ScenarioAction, ScenarioError, Selector};
use crate::crdt::network::{AutoDelivery, DeliveryOrder, MessageFilter, MessageId, PeerId};
use crate::model::Entity;

/// Reads one action as a scenario's steps list it (`{"do": "move", "entity": 512, …}`, see
/// [`super::parse`]) outside a scenario file, as `peer` performs it: the action's own
/// `"peer"` (a lesson's numbering, meaningless for one writer) may be left out and is not
/// read. An entity given by name is the one `entity_named` finds (or its message says why
/// none). An error's path is inside the action (`entity`, `position`; empty for the action
/// itself): [`ScenarioError::within`] puts it under the action's place in a file.
pub fn parse_action(
    action: &Value,
    peer: PeerId,
    entity_named: &dyn Fn(&str) -> Result<Entity, String>,
) -> Result<ScenarioAction, ScenarioError> {
    let mut action = action.clone();
    let Some(fields) = action.as_object_mut() else {
        return Err(ScenarioError::at("", "expected an object"));
    };
    let kind = fields.get("do").and_then(|k| Kind::deserialize(k).ok());
    if kind.is_some_and(Kind::has_peer) {
        fields.insert("peer".into(), Value::from(peer.0));
    }
    let parser = Parser {
        peers: usize::from(peer.0),
        names: Names::Lookup(entity_named),
    };
    parser.action(&Node::root(&action))
}

impl Parser<'_> {
    /// `peer` (a number from 1), checked against the scenario's peers, at `node.key`.
    fn peer_at(&self, node: &Node, key: &str, n: u64) -> Result<PeerId, ScenarioError> {
        self.peer_number(n)
            .map_err(|message| ScenarioError::at(node.child_path(key), message))
    }

    fn opt_peer_at(
        &self,
        node: &Node,
        key: &str,
        n: Option<u64>,
    ) -> Result<Option<PeerId>, ScenarioError> {
        n.map(|n| self.peer_at(node, key, n)).transpose()
    }

    fn entity_at(&self, node: &Node, key: &str, e: &EntityRef) -> Result<Entity, ScenarioError> {
        self.resolve_entity(e)
            .map_err(|message| ScenarioError::at(node.child_path(key), message))
    }

    fn component_at(&self, node: &Node, key: &str, c: &ComponentRef) -> Result<u32, ScenarioError> {
        c.resolve()
            .map_err(|message| ScenarioError::at(node.child_path(key), message))
    }

    fn selector(&self, node: &Node, f: &MessageFields) -> Result<Selector, ScenarioError> {
        if let Some(id) = f.id {
            for (key, given) in [("from", f.from), ("to", f.to), ("nth", f.nth)] {
                if given.is_some() {
                    return Err(node.error(format!("give either \"id\" or \"{key}\", not both")));
                }
            }
            return Ok(Selector::Id(MessageId(id)));
        }
        let from = self.opt_peer_at(node, "from", f.from)?;
        let to = self.opt_peer_at(node, "to", f.to)?;
        if from.is_none() && to.is_none() {
            return Err(node.error("name the message: \"id\", or \"from\" and/or \"to\""));
        }
        let nth = match f.nth {
            Some(0) => {
                return Err(ScenarioError::at(
                    node.child_path("nth"),
                    "\"nth\" counts from 1",
                ));
            }
            Some(k) => usize::try_from(k).unwrap_or(usize::MAX),
            None => 1,
        };
        Ok(Selector::Route { from, to, nth })
    }

    pub(super) fn action(&self, node: &Node) -> Result<ScenarioAction, ScenarioError> {
        node.only_object()?;
        let what = node.req("do")?;
        let kind = Kind::deserialize(what.value).map_err(|_| {
            what.error(format!(
                "unknown action {} (expected move, rename, put, append, delete_component, \
                 delete_entity, authored, deliver, deliver_all, drop, duplicate, reorder, \
                 offline, online, tick, advance, auto_delivery or one_message_per_tick)",
                what.value
            ))
        })?;
        Ok(match kind {
            Kind::Move => {
                let f: MoveFields = fields(node)?;
                ScenarioAction::Move {
                    peer: self.peer_at(node, "peer", f.peer)?,
                    entity: self.entity_at(node, "entity", &f.entity)?,
                    parent: (f.parent.as_ref())
                        .map(|p| self.entity_at(node, "parent", p))
                        .transpose()?,
                    position: f.position.map(|v| Vec3::from_array(v.0)),
                    rotation: f.rotation.map(|r| Quat::from_array(r.0)),
                    scale: f.scale.map(|v| Vec3::from_array(v.0)),
                }
            }
            Kind::Rename => {
                let f: RenameFields = fields(node)?;
                ScenarioAction::Rename {
                    peer: self.peer_at(node, "peer", f.peer)?,
                    entity: self.entity_at(node, "entity", &f.entity)?,
                    name: f.name,
                }
            }
            Kind::Put | Kind::Append => {
                let f: ValueFields = fields(node)?;
                let peer = self.peer_at(node, "peer", f.peer)?;
                let entity = self.entity_at(node, "entity", &f.entity)?;
                let component = self.component_at(node, "component", &f.component)?;
                let data = f.base64.0;
                if kind == Kind::Put {
                    ScenarioAction::Put {
                        peer,
                        entity,
                        component,
                        data,
                    }
                } else {
                    ScenarioAction::Append {
                        peer,
                        entity,
                        component,
                        data,
                    }
                }
            }
            Kind::DeleteComponent => {
                let f: ComponentFields = fields(node)?;
                ScenarioAction::DeleteComponent {
                    peer: self.peer_at(node, "peer", f.peer)?,
                    entity: self.entity_at(node, "entity", &f.entity)?,
                    component: self.component_at(node, "component", &f.component)?,
                }
            }
            Kind::DeleteEntity => {
                let f: EntityFields = fields(node)?;
                ScenarioAction::DeleteEntity {
                    peer: self.peer_at(node, "peer", f.peer)?,
                    entity: self.entity_at(node, "entity", &f.entity)?,
                }
            }
            Kind::Authored => {
                let f: AuthoredFields = fields(node)?;
                ScenarioAction::Authored {
                    peer: self.peer_at(node, "peer", f.peer)?,
                    messages: f.stream.0,
                }
            }
            Kind::Deliver | Kind::Drop | Kind::Duplicate | Kind::Reorder => {
                let f: MessageFields = fields(node)?;
                let selector = self.selector(node, &f)?;
                match (kind, f.index) {
                    (Kind::Reorder, Some(index)) => ScenarioAction::Reorder {
                        message: selector,
                        index: usize::try_from(index).unwrap_or(usize::MAX),
                    },
                    (Kind::Reorder, None) => return Err(node.error("missing \"index\"")),
                    (_, Some(_)) => {
                        return Err(ScenarioError::at(
                            node.child_path("index"),
                            "only \"reorder\" takes an index",
                        ));
                    }
                    (Kind::Deliver, None) => ScenarioAction::Deliver(selector),
                    (Kind::Drop, None) => ScenarioAction::Drop(selector),
                    (_, None) => ScenarioAction::Duplicate(selector),
                }
            }
            Kind::DeliverAll => {
                let f: DeliverAllFields = fields(node)?;
                ScenarioAction::DeliverAll {
                    order: f.order.map_or(DeliveryOrder::Send, |o| o.0),
                    filter: MessageFilter {
                        from: self.opt_peer_at(node, "from", f.from)?,
                        to: self.opt_peer_at(node, "to", f.to)?,
                    },
                }
            }
            Kind::Offline | Kind::Online => {
                let f: PeerFields = fields(node)?;
                ScenarioAction::SetOnline {
                    peer: self.peer_at(node, "peer", f.peer)?,
                    online: kind == Kind::Online,
                }
            }
            Kind::Tick | Kind::Advance => {
                let ticks = fields::<TickFields>(node)?.ticks;
                if kind == Kind::Tick {
                    ScenarioAction::Tick { ticks }
                } else {
                    ScenarioAction::Advance { ticks }
                }
            }
            Kind::AutoDelivery => {
                let f: AutoDeliveryFields = fields(node)?;
                let off_error = |message| Err(ScenarioError::at(node.child_path("off"), message));
                match f.off {
                    Some(false) => return off_error("write \"off\": true, or leave it out"),
                    Some(true) if f.latency.is_some() || f.jitter.is_some() => {
                        return off_error("\"off\" takes no latency or jitter");
                    }
                    Some(true) => ScenarioAction::SetAutoDelivery(None),
                    None => ScenarioAction::SetAutoDelivery(Some(AutoDelivery {
                        latency: f.latency.ok_or_else(|| node.error("missing \"latency\""))?,
                        jitter: f.jitter.unwrap_or(0),
                    })),
                }
            }
            Kind::OneMessagePerTick => {
                ScenarioAction::SetOneMessagePerTick(fields::<SwitchFields>(node)?.on)
            }
        })
    }
}
