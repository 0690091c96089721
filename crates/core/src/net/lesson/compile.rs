//! A lesson file turned into a run: its rounds into the script (each player's ticks counted
//! from 0, each write a [`SceneOp`]), its actions checked against the players and ticks.

use rustc_hash::FxHashMap;

use super::format::{ActionJson, EntityJson, FrameJson, NetScenario, OpJson};
use crate::crdt::scenario::ScenarioError;
use crate::crdt::stream::Dialect;
use crate::model::{Entity, Transform, encode_name, ids};
use crate::net::address::network_id_from_address;
use crate::net::components::NetworkIdentity;
use crate::net::ops::{EntityRef, SceneOp};
use crate::net::run::{FrameKey, NetRun, ScriptTick};
use crate::net::session::Routing;

/// The position of the player named `name`.
fn player_index(scenario: &NetScenario, name: &str) -> Option<usize> {
    (scenario.players.iter()).position(|p| p.name.as_deref() == Some(name))
}

/// Each player's scene entities by the names the lesson gives them (`EntityRef::Scene(k)`).
#[derive(Default)]
struct SceneNames(FxHashMap<(usize, String), u32>, Vec<u32>);

impl SceneNames {
    fn scene_entity(&mut self, player: usize, name: &str) -> EntityRef {
        if self.1.len() <= player {
            self.1.resize(player + 1, 0);
        }
        let next = &mut self.1[player];
        let k = *self.0.entry((player, name.to_string())).or_insert_with(|| {
            *next += 1;
            *next - 1
        });
        EntityRef::Scene(k)
    }
}

/// The run a lesson scripts, its timeline at the end; each player enters the room when the
/// round of its first tick starts.
pub(super) fn run_of(scenario: &NetScenario) -> Result<NetRun, ScenarioError> {
    for (at, player) in scenario.players.iter().enumerate() {
        let path = format!("players[{at}]");
        let Some(name) = &player.name else {
            return Err(ScenarioError::at(
                path,
                "a lesson's player needs a name: rounds and actions name players",
            ));
        };
        if player_index(scenario, name) != Some(at) {
            return Err(ScenarioError::at(path, format!("{name:?} is listed twice")));
        }
    }
    let mut names = SceneNames::default();
    let mut ticks = vec![0u32; scenario.players.len()];
    let mut script = Vec::new();
    // A player enters the room when its first round starts.
    let mut joins = vec![usize::MAX; scenario.players.len()];
    for (r, round) in scenario.rounds.iter().enumerate() {
        let round_start = script.len();
        for (name, ops) in &round.0 {
            let path = format!("rounds[{r}].{name}");
            let player = player_index(scenario, name).ok_or_else(|| {
                ScenarioError::at(&path, format!("there is no player named {name:?}"))
            })?;
            let ops = (ops.iter().enumerate())
                .map(|(i, op)| scene_op(scenario, &mut names, player, op, &format!("{path}[{i}]")))
                .collect::<Result<Vec<_>, _>>()?;
            joins[player] = joins[player].min(round_start);
            script.push(ScriptTick {
                player,
                tick: ticks[player],
                ops,
            });
            ticks[player] += 1;
        }
    }
    Ok(NetRun::with_joins(
        scenario.players.clone(),
        Dialect::Mainline,
        Routing::Targeted,
        script,
        joins,
    ))
}

/// One write of `player`'s scene as the model runs it.
fn scene_op(
    scenario: &NetScenario,
    names: &mut SceneNames,
    player: usize,
    op: &OpJson,
    path: &str,
) -> Result<SceneOp, ScenarioError> {
    let mut entity = |e: &EntityJson, field: &str| -> Result<EntityRef, ScenarioError> {
        Ok(match e {
            EntityJson::Named(name) => names.scene_entity(player, name),
            EntityJson::Number(n) => EntityRef::Local(Entity(*n)),
            EntityJson::Fixed(id) => EntityRef::Network(NetworkIdentity::new(0, *id)),
            EntityJson::Remote { player, entity } => {
                let owner = player_index(scenario, player).ok_or_else(|| {
                    ScenarioError::at(
                        format!("{path}.{field}.player"),
                        format!("there is no player named {player:?}"),
                    )
                })?;
                let net = network_id_from_address(&scenario.players[owner].address);
                EntityRef::Network(NetworkIdentity::new(net, *entity))
            }
        })
    };
    Ok(match op {
        OpJson::Transform {
            entity: e,
            position,
            parent,
        } => {
            let transform = Transform {
                position: position.map_or(glam::Vec3::ZERO, glam::Vec3::from),
                parent: Entity(parent.unwrap_or(0)),
                ..Transform::IDENTITY
            };
            SceneOp::transform(entity(e, "entity")?, &transform)
        }
        OpJson::Name { entity: e, name } => SceneOp::Put {
            entity: entity(e, "entity")?,
            component: ids::NAME,
            data: encode_name(name),
            unseen: 0,
        },
        OpJson::Sync {
            entity: e,
            components,
            fixed_id,
        } => SceneOp::SyncEntity {
            entity: entity(e, "entity")?,
            components: components.clone().unwrap_or_else(|| vec![ids::TRANSFORM]),
            fixed_id: *fixed_id,
        },
        OpJson::Parent { entity: e, parent } => SceneOp::ParentEntity {
            entity: entity(e, "entity")?,
            parent: entity(parent, "parent")?,
        },
        OpJson::RemoveParent { entity: e } => SceneOp::RemoveParent {
            entity: entity(e, "entity")?,
        },
        OpJson::Remove { entity: e } => SceneOp::Remove {
            entity: entity(e, "entity")?,
        },
        OpJson::Put {
            entity: e,
            component,
            base64,
        } => SceneOp::Put {
            entity: entity(e, "entity")?,
            component: *component,
            data: base64.0.clone(),
            unseen: 0,
        },
        OpJson::Delete {
            entity: e,
            component,
        } => SceneOp::Delete {
            entity: entity(e, "entity")?,
            component: *component,
            unseen: 0,
        },
    })
}

/// The frame an action names, checked against the players and their ticks.
pub(super) fn frame_key(
    scenario: &NetScenario,
    run: &NetRun,
    frame: &FrameJson,
) -> Result<FrameKey, String> {
    let player = |name: &str| {
        player_index(scenario, name).ok_or_else(|| format!("there is no player named {name:?}"))
    };
    let (from, to) = (player(&frame.from)?, player(&frame.to)?);
    if from == to {
        return Err(format!("{} does not send to itself", frame.from));
    }
    let sender_step = run
        .step_of(from, frame.tick)
        .ok_or_else(|| format!("{} has no tick {}", frame.from, frame.tick))?;
    Ok(FrameKey {
        sender_step,
        item: frame.item,
        to,
    })
}

/// Checks that every action names players and ticks that exist (whether the delivery is in
/// flight then is known only when the step plays).
pub(super) fn check_actions(scenario: &NetScenario, run: &NetRun) -> Result<(), ScenarioError> {
    for (s, step) in scenario.steps.iter().enumerate() {
        for (a, action) in step.actions.iter().enumerate() {
            let path = format!("steps[{s}].actions[{a}]");
            let frames: Vec<(&FrameJson, String)> = match action {
                ActionJson::Play { .. } | ActionJson::Seek { .. } => Vec::new(),
                ActionJson::Deliver { frame }
                | ActionJson::Drop { frame }
                | ActionJson::Duplicate { frame }
                | ActionJson::Delay { frame, .. } => vec![(frame, path.clone())],
                ActionJson::Reorder { frame, before } => {
                    vec![(frame, path.clone()), (before, format!("{path}.before"))]
                }
            };
            for (frame, at) in frames {
                frame_key(scenario, run, frame).map_err(|e| ScenarioError::at(at, e))?;
            }
        }
    }
    Ok(())
}
