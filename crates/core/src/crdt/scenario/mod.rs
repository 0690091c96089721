//! Scenario files: a scripted run of a [`Network`] (peers, initial state, seed, and a list of
//! steps, each with the text a lesson shows and the actions it performs).
//!
//! ```json
//! {
//!   "format": "scenetree-scenario/1",
//!   "title": "Two peers reparent at once",
//!   "explanation": "Shown before the first step.",
//!   "peers": 2,
//!   "seed": 1,
//!   "initial": { "entities": [ { "entity": 512, "name": "Lamp", "position": [1, 0, 0] },
//!                              { "entity": 513, "name": "Table", "parent": "Lamp" } ] },
//!   "steps": [
//!     { "text": "Peer 1 puts Lamp under Table.",
//!       "actions": [ { "do": "move", "peer": 1, "entity": "Lamp", "parent": "Table" } ] },
//!     { "actions": [ { "do": "deliver", "from": 1, "to": 2 } ] }
//!   ]
//! }
//! ```
//!
//! Entities are ids or names declared in `initial.entities`; peers are numbered from 1. The
//! actions (`"do"`) are listed in [`ScenarioAction`]; [`parse`] documents each one's fields. Parsing is
//! pure (`&str` in, [`Scenario`] or an error with its JSON path out); reading files is `io`'s job.
//! A scenario is only good when it also *plays*: [`Scenario::run`] reports the first action
//! that cannot run (say, a delivery when nothing is in flight) with its path.

mod parse;
mod parse_action;
mod play;
mod schema;
mod values;
mod write;

use std::fmt;

use glam::{Quat, Vec3};

use super::message::CrdtMessage;
use super::network::{AutoDelivery, DeliveryOrder, MessageFilter, MessageId, Network, PeerId};
use super::replica::Replica;
use crate::model::{Entity, Transform, encode_name, ids};

pub use parse::parse;
pub use parse_action::parse_action;
pub use play::ScenarioPlayer;
pub use write::ScenarioWriter;

/// The format tag scenario files start with.
pub const FORMAT: &str = "scenetree-scenario/1";

/// A scripted network run.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// A short title.
    pub title: String,
    /// What the lesson is about, shown before the first step.
    pub explanation: String,
    /// Number of peers (2 to 8).
    pub peers: usize,
    /// What each peer is called in the Peers workspace, peer 1 first (empty: "Peer N"); a
    /// session recording names this editor and the host.
    pub peer_names: Vec<String>,
    /// The seed of the network's random choices.
    pub seed: u64,
    /// Whether the run starts with "one message per tick" on (see
    /// [`Network::one_message_per_tick`]). Files that do not say so start with it off, as
    /// they were written before the setting existed.
    pub one_message_per_tick: bool,
    /// Whether deliveries send replies and announcements (see [`Network::with_replies`]):
    /// true unless a file says `"replies": false`, as a live session's recording does.
    pub replies: bool,
    /// The state every peer starts with.
    pub initial: InitialState,
    /// The steps, played one at a time.
    pub steps: Vec<ScenarioStep>,
}

/// The state every peer starts with: `stream` applied first, then `entities` written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InitialState {
    /// Entities declared by hand, with names the actions may use.
    pub entities: Vec<InitialEntity>,
    /// An exact state as CRDT messages (how a saved run stores its start).
    pub stream: Vec<CrdtMessage>,
}

/// One hand-declared entity of the initial state.
#[derive(Clone, Debug, PartialEq)]
pub struct InitialEntity {
    /// Its id.
    pub entity: Entity,
    /// Its `core-schema::Name`, if any (also the name actions can refer to it by).
    pub name: Option<String>,
    /// Its Transform (local, relative to `parent`; meters and a unit quaternion), or `None`
    /// for an entity without one.
    pub transform: Option<Transform>,
    /// The Lamport timestamp of both components (1 unless given).
    pub timestamp: u32,
}

/// One step: the text shown while it is the current step, and what it does.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioStep {
    /// What the user should look at after this step.
    pub text: Option<String>,
    /// The actions, run in order.
    pub actions: Vec<ScenarioAction>,
}

/// Which in-flight message an action means.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Selector {
    /// By id (ids are 1, 2, 3, … in send order, the same on every replay).
    Id(MessageId),
    /// The `nth` (from 1) message in list order from `from` to `to` (either may be any peer).
    Route {
        from: Option<PeerId>,
        to: Option<PeerId>,
        nth: usize,
    },
}

/// One scripted action. Each maps to network operations; see [`parse`] for the JSON.
#[derive(Clone, Debug, PartialEq)]
pub enum ScenarioAction {
    /// `"move"`: write the entity's Transform on `peer`; fields left out keep that peer's
    /// current values (identity when it has no Transform). Position in meters, local.
    Move {
        peer: PeerId,
        entity: Entity,
        parent: Option<Entity>,
        position: Option<Vec3>,
        rotation: Option<Quat>,
        scale: Option<Vec3>,
    },
    /// `"rename"`: write the entity's `core-schema::Name`.
    Rename {
        peer: PeerId,
        entity: Entity,
        name: String,
    },
    /// `"put"`: write any last-writer-wins component's bytes.
    Put {
        peer: PeerId,
        entity: Entity,
        component: u32,
        data: Vec<u8>,
    },
    /// `"append"`: add a value to a grow-only set.
    Append {
        peer: PeerId,
        entity: Entity,
        component: u32,
        data: Vec<u8>,
    },
    /// `"delete_component"`: remove a component.
    DeleteComponent {
        peer: PeerId,
        entity: Entity,
        component: u32,
    },
    /// `"delete_entity"`: delete an entity.
    DeleteEntity { peer: PeerId, entity: Entity },
    /// `"authored"`: messages the peer wrote outside the network (see
    /// [`LocalWrite::Authored`](crate::crdt::LocalWrite::Authored)).
    Authored {
        peer: PeerId,
        messages: Vec<CrdtMessage>,
    },
    /// `"deliver"`: deliver one message.
    Deliver(Selector),
    /// `"deliver_all"`: deliver everything that passes the filter, replies included.
    DeliverAll {
        order: DeliveryOrder,
        filter: MessageFilter,
    },
    /// `"drop"`: lose one message.
    Drop(Selector),
    /// `"duplicate"`: send a second copy of one message.
    Duplicate(Selector),
    /// `"reorder"`: move one message to a position (from 0) of the in-flight list.
    Reorder { message: Selector, index: usize },
    /// `"offline"` / `"online"`.
    SetOnline { peer: PeerId, online: bool },
    /// `"tick"`: move the clock without delivering.
    Tick { ticks: u64 },
    /// `"advance"`: let time pass; auto-delivery delivers what falls due.
    Advance { ticks: u64 },
    /// `"auto_delivery"`: turn auto-delivery on (latency, jitter) or off.
    SetAutoDelivery(Option<AutoDelivery>),
    /// `"one_message_per_tick"`: turn merging a peer's writes per tick on or off.
    SetOneMessagePerTick(bool),
}

/// `current` with what a `"move"` action gives replaced: its parent, position, rotation and
/// scale where given, the rest kept.
pub fn moved(
    current: Transform,
    parent: Option<Entity>,
    position: Option<Vec3>,
    rotation: Option<Quat>,
    scale: Option<Vec3>,
) -> Transform {
    Transform {
        parent: parent.unwrap_or(current.parent),
        position: position.unwrap_or(current.position),
        rotation: rotation.unwrap_or(current.rotation),
        scale: scale.unwrap_or(current.scale),
    }
}

/// Where in a scenario file a problem is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorAt {
    /// The text is not JSON (1-based line and column).
    Syntax { line: usize, column: usize },
    /// A JSON path such as `steps[2].actions[0].peer` (empty for the whole document).
    Path(String),
}

/// A scenario that cannot be read or played, with where and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Where.
    pub at: ErrorAt,
    /// What was expected and what was found.
    pub message: String,
}

impl ScenarioError {
    /// An error at a JSON path. Both are cut to a readable length
    /// ([`present::excerpt`](crate::model::present::excerpt)): they may repeat the file's text.
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> Self {
        use crate::model::present::{MESSAGE_CHARS, excerpt};
        let (path, message) = (path.into(), message.into());
        ScenarioError {
            at: ErrorAt::Path(excerpt(&path, MESSAGE_CHARS).into_owned()),
            message: excerpt(&message, MESSAGE_CHARS).into_owned(),
        }
    }
}

impl ScenarioError {
    /// This error with its JSON path put under `outer`: an error `at entity` of the action at
    /// `steps[0].actions[2]` is `at steps[0].actions[2].entity`.
    pub fn within(self, outer: &str) -> Self {
        match self.at {
            ErrorAt::Path(inner) => ScenarioError {
                at: ErrorAt::Path(parse::join_path(outer, &inner)),
                message: self.message,
            },
            ErrorAt::Syntax { .. } => self,
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.at {
            ErrorAt::Syntax { line, column } => write!(f, "{line}:{column}: {}", self.message),
            ErrorAt::Path(p) if p.is_empty() => write!(f, "{}", self.message),
            ErrorAt::Path(p) => write!(f, "at {p}: {}", self.message),
        }
    }
}

impl std::error::Error for ScenarioError {}

impl InitialState {
    /// The replica every peer starts with.
    pub fn replica(&self) -> Replica {
        let mut replica = Replica::from_messages(&self.stream);
        for e in &self.entities {
            if let Some(t) = &e.transform {
                replica.apply(&CrdtMessage::PutComponent {
                    entity: e.entity,
                    component: Transform::COMPONENT_ID,
                    timestamp: e.timestamp,
                    data: t.to_bytes().to_vec(),
                });
            }
            if let Some(name) = &e.name {
                replica.apply(&CrdtMessage::PutComponent {
                    entity: e.entity,
                    component: ids::NAME,
                    timestamp: e.timestamp,
                    data: encode_name(name),
                });
            }
        }
        replica
    }
}

impl Scenario {
    /// The network before the first step.
    pub fn start(&self) -> Result<Network, ScenarioError> {
        Network::new(self.peers, self.seed, &self.initial.replica())
            .map(|n| {
                n.with_one_message_per_tick(self.one_message_per_tick)
                    .with_replies(self.replies)
            })
            .map_err(|e| ScenarioError::at("peers", e.to_string()))
    }

    /// Plays step `index` (from 0) on `network`.
    pub fn play_step(&self, network: &mut Network, index: usize) -> Result<(), ScenarioError> {
        let step = self
            .steps
            .get(index)
            .ok_or_else(|| ScenarioError::at("steps", format!("there is no step {index}")))?;
        for (i, action) in step.actions.iter().enumerate() {
            play::perform(network, action).map_err(|message| {
                ScenarioError::at(format!("steps[{index}].actions[{i}]"), message)
            })?;
        }
        Ok(())
    }

    /// Plays step `index`, skipping actions that cannot run (the user already delivered that
    /// message by hand, say). Returns why each skipped action was skipped.
    pub fn play_step_lenient(&self, network: &mut Network, index: usize) -> Vec<String> {
        let Some(step) = self.steps.get(index) else {
            return vec![format!("there is no step {index}")];
        };
        step.actions
            .iter()
            .filter_map(|action| play::perform(network, action).err())
            .collect()
    }

    /// Plays every step. Fails at the first action that cannot run.
    pub fn run(&self) -> Result<ScenarioPlayer, ScenarioError> {
        self.clone().into_run()
    }

    /// [`Self::run`] without a copy of the steps (a recording holds one per message).
    pub fn into_run(self) -> Result<ScenarioPlayer, ScenarioError> {
        let mut player = ScenarioPlayer::new(self)?;
        while player.next_step()? {}
        Ok(player)
    }
}
