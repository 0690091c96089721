//! Reading the actions of a scenario step (the table in [`super::parse`]).

use glam::{Quat, Vec3};

use super::parse::{Node, Parser};
use super::{ScenarioAction, ScenarioError, Selector};
use crate::crdt::network::{AutoDelivery, DeliveryOrder, MessageFilter, MessageId};
use crate::crdt::stream::decode_stream;

impl Parser {
    fn selector(&self, node: &Node) -> Result<Selector, ScenarioError> {
        if let Some(id) = node.get("id") {
            for key in ["from", "to", "nth"] {
                if node.get(key).is_some() {
                    return Err(node.error(format!("give either \"id\" or \"{key}\", not both")));
                }
            }
            return Ok(Selector::Id(MessageId(id.uint()?)));
        }
        let from = self.opt_peer(node, "from")?;
        let to = self.opt_peer(node, "to")?;
        if from.is_none() && to.is_none() {
            return Err(node.error("name the message: \"id\", or \"from\" and/or \"to\""));
        }
        let nth = match node.get("nth") {
            Some(n) => match n.uint()? {
                0 => return Err(n.error("\"nth\" counts from 1")),
                k => usize::try_from(k).unwrap_or(usize::MAX),
            },
            None => 1,
        };
        Ok(Selector::Route { from, to, nth })
    }

    pub(super) fn action(&self, node: &Node) -> Result<ScenarioAction, ScenarioError> {
        const MESSAGE: [&str; 5] = ["do", "id", "from", "to", "nth"];
        let what = node.req("do")?;
        let kind = what.str()?;
        let peer = || self.peer(&node.req("peer")?);
        let entity = || self.entity(&node.req("entity")?);
        let component = || self.component(&node.req("component")?);
        Ok(match kind {
            "move" => {
                node.only(&[
                    "do", "peer", "entity", "parent", "position", "rotation", "scale",
                ])?;
                let vec3 = |key: &str| {
                    node.get(key)
                        .map(|v| v.floats::<3>().map(Vec3::from_array))
                        .transpose()
                };
                ScenarioAction::Move {
                    peer: peer()?,
                    entity: entity()?,
                    parent: node.get("parent").map(|p| self.entity(&p)).transpose()?,
                    position: vec3("position")?,
                    rotation: node
                        .get("rotation")
                        .map(|r| r.floats::<4>().map(Quat::from_array))
                        .transpose()?,
                    scale: vec3("scale")?,
                }
            }
            "rename" => {
                node.only(&["do", "peer", "entity", "name"])?;
                ScenarioAction::Rename {
                    peer: peer()?,
                    entity: entity()?,
                    name: node.req("name")?.str()?.to_string(),
                }
            }
            "put" | "append" => {
                node.only(&["do", "peer", "entity", "component", "base64"])?;
                let (peer, entity, component) = (peer()?, entity()?, component()?);
                let data = node.req("base64")?.base64()?;
                if kind == "put" {
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
            "delete_component" => {
                node.only(&["do", "peer", "entity", "component"])?;
                ScenarioAction::DeleteComponent {
                    peer: peer()?,
                    entity: entity()?,
                    component: component()?,
                }
            }
            "delete_entity" => {
                node.only(&["do", "peer", "entity"])?;
                ScenarioAction::DeleteEntity {
                    peer: peer()?,
                    entity: entity()?,
                }
            }
            "authored" => {
                node.only(&["do", "peer", "stream"])?;
                let stream = node.req("stream")?;
                let bytes = stream.base64()?;
                let decoded = decode_stream(&bytes).map_err(|e| {
                    stream.error(format!("at byte {} of the stream: {}", e.offset, e.kind))
                })?;
                ScenarioAction::Authored {
                    peer: peer()?,
                    messages: decoded.messages,
                }
            }
            "deliver" | "drop" | "duplicate" => {
                node.only(&MESSAGE)?;
                let sel = self.selector(node)?;
                match kind {
                    "deliver" => ScenarioAction::Deliver(sel),
                    "drop" => ScenarioAction::Drop(sel),
                    _ => ScenarioAction::Duplicate(sel),
                }
            }
            "reorder" => {
                node.only(&["do", "id", "from", "to", "nth", "index"])?;
                ScenarioAction::Reorder {
                    message: self.selector(node)?,
                    index: usize::try_from(node.req("index")?.uint()?).unwrap_or(usize::MAX),
                }
            }
            "deliver_all" => {
                node.only(&["do", "order", "from", "to"])?;
                let order = match node.get("order") {
                    None => DeliveryOrder::Send,
                    Some(o) => match o.str()? {
                        "send" => DeliveryOrder::Send,
                        "reverse" => DeliveryOrder::Reverse,
                        "random" => DeliveryOrder::Random,
                        other => {
                            return Err(o.error(format!(
                                "expected \"send\", \"reverse\" or \"random\", found \"{other}\""
                            )));
                        }
                    },
                };
                ScenarioAction::DeliverAll {
                    order,
                    filter: MessageFilter {
                        from: self.opt_peer(node, "from")?,
                        to: self.opt_peer(node, "to")?,
                    },
                }
            }
            "offline" | "online" => {
                node.only(&["do", "peer"])?;
                ScenarioAction::SetOnline {
                    peer: peer()?,
                    online: kind == "online",
                }
            }
            "tick" | "advance" => {
                node.only(&["do", "ticks"])?;
                let ticks = node.req("ticks")?.uint()?;
                if kind == "tick" {
                    ScenarioAction::Tick { ticks }
                } else {
                    ScenarioAction::Advance { ticks }
                }
            }
            "auto_delivery" => {
                node.only(&["do", "latency", "jitter", "off"])?;
                if let Some(off) = node.get("off") {
                    if !off.bool()? {
                        return Err(off.error("write \"off\": true, or leave it out"));
                    }
                    if node.get("latency").is_some() || node.get("jitter").is_some() {
                        return Err(off.error("\"off\" takes no latency or jitter"));
                    }
                    ScenarioAction::SetAutoDelivery(None)
                } else {
                    ScenarioAction::SetAutoDelivery(Some(AutoDelivery {
                        latency: node.req("latency")?.uint()?,
                        jitter: node
                            .get("jitter")
                            .map(|j| j.uint())
                            .transpose()?
                            .unwrap_or(0),
                    }))
                }
            }
            "one_message_per_tick" => {
                node.only(&["do", "on"])?;
                ScenarioAction::SetOneMessagePerTick(node.req("on")?.bool()?)
            }
            other => {
                return Err(what.error(format!(
                    "unknown action \"{other}\" (expected move, rename, put, append, \
                     delete_component, delete_entity, authored, deliver, deliver_all, drop, duplicate, \
                     reorder, offline, online, tick, advance, auto_delivery or one_message_per_tick)"
                )));
            }
        })
    }
}
