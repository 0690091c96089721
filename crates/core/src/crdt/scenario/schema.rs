//! The scenario file's schema, once: the structs serde reads a file into ([`super::parse`]
//! resolves names and peers after) and [`Scenario::to_json`] writes, so what is written is
//! what is read. Fields are listed in the order files have always been written; optional ones
//! are left out when empty, as they always were.

use serde::{Deserialize, Serialize};

use super::values::{Base64Bytes, ComponentRef, EntityRef, Floats, Order, StateStream, Stream};
use super::{
    FORMAT, InitialEntity, InitialState, Scenario, ScenarioAction, ScenarioStep, Selector,
};
use crate::crdt::network::{DeliveryOrder, PeerId};

/// A whole file. Its actions are `A`: raw JSON when read (each is read once its `"do"` is
/// known, with its own JSON path: `parse_action.rs`), [`ActionFile`] when written.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ScenarioFile<A> {
    pub format: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub explanation: String,
    pub peers: u64,
    /// Written only when there are names, so files without them read as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer_names: Option<Vec<String>>,
    #[serde(default)]
    pub seed: u64,
    /// Files written before the setting existed leave it out: off.
    #[serde(default)]
    pub one_message_per_tick: bool,
    /// Written only when off (a live session's recording), so files without it read as
    /// before: on.
    #[serde(default = "on", skip_serializing_if = "is_on")]
    pub replies: bool,
    #[serde(default)]
    pub initial: InitialFile,
    pub steps: Vec<StepFile<A>>,
}

/// `initial`: a CRDT stream applied first, then hand-declared entities.
#[derive(Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct InitialFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<StateStream>,
    #[serde(default)]
    pub entities: Vec<EntityFile>,
}

/// One of `initial.entities`: a Transform is written unless `"transform": false`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EntityFile {
    pub entity: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<EntityRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<Floats<3>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<Floats<4>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<Floats<3>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transform: Option<bool>,
    /// 1 when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<u32>,
}

/// One step: the text shown, and its actions.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StepFile<A> {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    pub actions: Vec<A>,
}

/// What an action does: its `"do"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum Kind {
    Move,
    Rename,
    Put,
    Append,
    DeleteComponent,
    DeleteEntity,
    Authored,
    Deliver,
    DeliverAll,
    Drop,
    Duplicate,
    Reorder,
    Offline,
    Online,
    Tick,
    Advance,
    AutoDelivery,
    OneMessagePerTick,
}

impl Kind {
    /// Whether the action is one peer's (a write, or going offline): it has a `peer`.
    pub(super) fn has_peer(self) -> bool {
        !matches!(
            self,
            Kind::Deliver
                | Kind::DeliverAll
                | Kind::Drop
                | Kind::Duplicate
                | Kind::Reorder
                | Kind::Tick
                | Kind::Advance
                | Kind::AutoDelivery
                | Kind::OneMessagePerTick
        )
    }
}

/// `move`: any of the Transform's fields, the rest kept.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MoveFields {
    #[serde(rename = "do")]
    pub kind: Kind,
    pub peer: u64,
    pub entity: EntityRef,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<EntityRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<Floats<3>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<Floats<4>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<Floats<3>>,
}

/// `rename`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RenameFields {
    #[serde(rename = "do")]
    pub kind: Kind,
    pub peer: u64,
    pub entity: EntityRef,
    pub name: String,
}

/// `put` and `append`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ValueFields {
    #[serde(rename = "do")]
    pub kind: Kind,
    pub peer: u64,
    pub entity: EntityRef,
    pub component: ComponentRef,
    pub base64: Base64Bytes,
}

/// `delete_component`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ComponentFields {
    #[serde(rename = "do")]
    pub kind: Kind,
    pub peer: u64,
    pub entity: EntityRef,
    pub component: ComponentRef,
}

/// `delete_entity`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EntityFields {
    #[serde(rename = "do")]
    pub kind: Kind,
    pub peer: u64,
    pub entity: EntityRef,
}

/// `authored`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AuthoredFields {
    #[serde(rename = "do")]
    pub kind: Kind,
    pub peer: u64,
    pub stream: Stream,
}

/// `deliver`, `drop`, `duplicate`, `reorder`: one message in flight, by its `id`, or where it
/// goes and which of those (`nth`, from 1).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MessageFields {
    #[serde(rename = "do")]
    pub kind: Kind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<u64>,
    /// Only for `reorder`: the message's new position in flight, from 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u64>,
}

/// `deliver_all`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DeliverAllFields {
    #[serde(rename = "do")]
    pub kind: Kind,
    /// `"send"` when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<Order>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<u64>,
}

/// `offline` and `online`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PeerFields {
    #[serde(rename = "do")]
    pub kind: Kind,
    pub peer: u64,
}

/// `tick` and `advance`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TickFields {
    #[serde(rename = "do")]
    pub kind: Kind,
    pub ticks: u64,
}

/// `auto_delivery`: `latency` (and `jitter`) to turn it on, or `"off": true`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AutoDeliveryFields {
    #[serde(rename = "do")]
    pub kind: Kind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off: Option<bool>,
}

/// `one_message_per_tick`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SwitchFields {
    #[serde(rename = "do")]
    pub kind: Kind,
    pub on: bool,
}

/// An action as written: its field struct, whose `kind` is written first as `"do"`.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum ActionFile {
    Move(MoveFields),
    Rename(RenameFields),
    Value(ValueFields),
    Component(ComponentFields),
    Entity(EntityFields),
    Authored(AuthoredFields),
    Message(MessageFields),
    DeliverAll(DeliverAllFields),
    Peer(PeerFields),
    Tick(TickFields),
    AutoDelivery(AutoDeliveryFields),
    Switch(SwitchFields),
}

fn peer(p: PeerId) -> u64 {
    u64::from(p.0)
}

fn entity(e: crate::model::Entity) -> EntityRef {
    EntityRef::Id(e.0)
}

fn message(kind: Kind, selector: &Selector, index: Option<usize>) -> MessageFields {
    let (id, from, to, nth) = match *selector {
        Selector::Id(id) => (Some(id.0), None, None, None),
        Selector::Route { from, to, nth } => (None, from.map(peer), to.map(peer), Some(nth as u64)),
    };
    MessageFields {
        kind,
        id,
        from,
        to,
        nth,
        index: index.map(|i| i as u64),
    }
}

impl ActionFile {
    /// How `action` is written (entities as ids).
    pub(super) fn of(action: &ScenarioAction) -> ActionFile {
        match action {
            ScenarioAction::Move {
                peer: p,
                entity: e,
                parent,
                position,
                rotation,
                scale,
            } => ActionFile::Move(MoveFields {
                kind: Kind::Move,
                peer: peer(*p),
                entity: entity(*e),
                parent: parent.map(entity),
                position: position.map(|v| Floats(v.to_array())),
                rotation: rotation.map(|r| Floats(r.to_array())),
                scale: scale.map(|v| Floats(v.to_array())),
            }),
            ScenarioAction::Rename {
                peer: p,
                entity: e,
                name,
            } => ActionFile::Rename(RenameFields {
                kind: Kind::Rename,
                peer: peer(*p),
                entity: entity(*e),
                name: name.clone(),
            }),
            ScenarioAction::Put {
                peer: p,
                entity: e,
                component,
                data,
            }
            | ScenarioAction::Append {
                peer: p,
                entity: e,
                component,
                data,
            } => ActionFile::Value(ValueFields {
                kind: match action {
                    ScenarioAction::Put { .. } => Kind::Put,
                    _ => Kind::Append,
                },
                peer: peer(*p),
                entity: entity(*e),
                component: ComponentRef::Id(*component),
                base64: Base64Bytes(data.clone()),
            }),
            ScenarioAction::DeleteComponent {
                peer: p,
                entity: e,
                component,
            } => ActionFile::Component(ComponentFields {
                kind: Kind::DeleteComponent,
                peer: peer(*p),
                entity: entity(*e),
                component: ComponentRef::Id(*component),
            }),
            ScenarioAction::DeleteEntity { peer: p, entity: e } => {
                ActionFile::Entity(EntityFields {
                    kind: Kind::DeleteEntity,
                    peer: peer(*p),
                    entity: entity(*e),
                })
            }
            ScenarioAction::Authored { peer: p, messages } => {
                ActionFile::Authored(AuthoredFields {
                    kind: Kind::Authored,
                    peer: peer(*p),
                    stream: Stream(messages.clone()),
                })
            }
            ScenarioAction::Deliver(s) => ActionFile::Message(message(Kind::Deliver, s, None)),
            ScenarioAction::Drop(s) => ActionFile::Message(message(Kind::Drop, s, None)),
            ScenarioAction::Duplicate(s) => ActionFile::Message(message(Kind::Duplicate, s, None)),
            ScenarioAction::Reorder { message: s, index } => {
                ActionFile::Message(message(Kind::Reorder, s, Some(*index)))
            }
            ScenarioAction::DeliverAll { order, filter } => {
                ActionFile::DeliverAll(DeliverAllFields {
                    kind: Kind::DeliverAll,
                    order: (*order != DeliveryOrder::Send).then_some(Order(*order)),
                    from: filter.from.map(peer),
                    to: filter.to.map(peer),
                })
            }
            ScenarioAction::SetOnline { peer: p, online } => ActionFile::Peer(PeerFields {
                kind: if *online { Kind::Online } else { Kind::Offline },
                peer: peer(*p),
            }),
            ScenarioAction::Tick { ticks } => ActionFile::Tick(TickFields {
                kind: Kind::Tick,
                ticks: *ticks,
            }),
            ScenarioAction::Advance { ticks } => ActionFile::Tick(TickFields {
                kind: Kind::Advance,
                ticks: *ticks,
            }),
            ScenarioAction::SetAutoDelivery(auto) => ActionFile::AutoDelivery(AutoDeliveryFields {
                kind: Kind::AutoDelivery,
                latency: auto.map(|a| a.latency),
                jitter: auto.map(|a| a.jitter),
                off: auto.is_none().then_some(true),
            }),
            ScenarioAction::SetOneMessagePerTick(on) => ActionFile::Switch(SwitchFields {
                kind: Kind::OneMessagePerTick,
                on: *on,
            }),
        }
    }
}

impl EntityFile {
    /// How `e` is written (its parent as an id).
    fn of(e: &InitialEntity) -> EntityFile {
        let t = e.transform.as_ref();
        EntityFile {
            entity: e.entity.0,
            name: e.name.clone(),
            parent: t.map(|t| entity(t.parent)),
            position: t.map(|t| Floats(t.position.to_array())),
            rotation: t.map(|t| Floats(t.rotation.to_array())),
            scale: t.map(|t| Floats(t.scale.to_array())),
            transform: t.is_none().then_some(false),
            timestamp: Some(e.timestamp),
        }
    }
}

impl InitialFile {
    fn of(initial: &InitialState) -> InitialFile {
        InitialFile {
            stream: (!initial.stream.is_empty()).then(|| StateStream(initial.stream.clone())),
            entities: initial.entities.iter().map(EntityFile::of).collect(),
        }
    }
}

fn on() -> bool {
    true
}

fn is_on(value: &bool) -> bool {
    *value
}

impl StepFile<ActionFile> {
    /// How `step` is written.
    pub(super) fn of(step: &ScenarioStep) -> StepFile<ActionFile> {
        StepFile {
            text: step.text.clone(),
            actions: step.actions.iter().map(ActionFile::of).collect(),
        }
    }
}

impl ScenarioFile<ActionFile> {
    /// How `scenario` is written.
    pub(super) fn of(scenario: &Scenario) -> ScenarioFile<ActionFile> {
        ScenarioFile {
            steps: scenario.steps.iter().map(StepFile::of).collect(),
            ..ScenarioFile::head_of(scenario)
        }
    }

    /// How `scenario` is written, without its steps (a file written a step at a time starts
    /// so).
    pub(super) fn head_of(scenario: &Scenario) -> ScenarioFile<ActionFile> {
        ScenarioFile {
            format: FORMAT.to_owned(),
            title: scenario.title.clone(),
            explanation: scenario.explanation.clone(),
            peers: scenario.peers as u64,
            peer_names: (!scenario.peer_names.is_empty()).then(|| scenario.peer_names.clone()),
            seed: scenario.seed,
            one_message_per_tick: scenario.one_message_per_tick,
            replies: scenario.replies,
            initial: InitialFile::of(&scenario.initial),
            steps: Vec::new(),
        }
    }
}
