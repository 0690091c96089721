//! `scenetree scenario run [--policy NAME|all] [--json] FILE`: replays a scenario headlessly
//! and prints every event with each peer's digest and re-rooted entities (and, with
//! `--policy`, its tree under each policy and whether the peers agree), then whether the peers
//! converged.

use std::io::Write;
use std::path::Path;

use serde_json::{Value, json};

use scenetree_core::crdt::{Network, PeerId, ScenarioPlayer};
use scenetree_core::model::{Entity, present};
use scenetree_core::scene::policy::{PolicyBoard, TreePolicy};
use scenetree_core::scene::{Fallback, SceneView};
use scenetree_dcl::io;

use scenetree_editor::{NodesMismatch, nodes_mismatches};

use super::policies::{
    PolicyStates, agreement_json, peer_policies_json, policy_states, short_name, write_agreement,
    write_peer_policies,
};

/// One peer after one event.
struct PeerState {
    peer: PeerId,
    digest: u128,
    /// (entity, its name, why it is re-rooted).
    rerooted: Vec<(Entity, Option<String>, Rerooted)>,
    /// Entities whose parent in `inspector::Nodes` is not their effective parent.
    misplaced: Vec<NodesMismatch>,
}

enum Rerooted {
    Cycle(Vec<Entity>),
    MissingParent(Entity),
}

/// One event of the run and the peers after it.
struct StepLine {
    /// The scenario step (from 1) that recorded the event.
    step: usize,
    /// The event's number on the timeline (from 1).
    index: usize,
    kind: &'static str,
    at: u64,
    summary: String,
    peers: Vec<PeerState>,
    in_flight: usize,
    /// With `--policy`: the peers' trees under each policy.
    policies: Option<PolicyStates>,
}

/// Every state of one run: the peers before the first event and after each one.
struct Replayed {
    initial: Vec<PeerState>,
    /// With `--policy`: the peers' trees under each policy before the first event.
    initial_policies: Option<PolicyStates>,
    lines: Vec<StepLine>,
}

impl Replayed {
    /// The policy trees after the last event (or at the start, when nothing happened).
    fn final_policies(&self) -> Option<&PolicyStates> {
        (self.lines.last()).map_or(self.initial_policies.as_ref(), |l| l.policies.as_ref())
    }
}

/// Runs the scenario in `file` and prints the report; `policies` (may be empty) adds each
/// peer's tree under those tree policies.
pub(super) fn run(file: &Path, as_json: bool, policies: &[TreePolicy]) -> Result<(), String> {
    let scenario = io::scenario::read_scenario(file).map_err(|e| e.to_string())?;
    let player = scenario
        .run()
        .map_err(|e| format!("{}: {e}", file.display()))?;
    let replayed = replay(&player, policies)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let result = if as_json {
        let doc = report_json(&player, &replayed);
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&doc).expect("JSON values serialize")
        )
    } else {
        write_report(&mut out, &player, &replayed)
    };
    match result {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(|e| format!("cannot write output: {e}")),
    }
}

/// Replays the finished run one event at a time to read every intermediate state; the views
/// follow the replay's replicas incrementally.
fn replay(player: &ScenarioPlayer, policies: &[TreePolicy]) -> Result<Replayed, String> {
    let mut replay = player.network().clone();
    replay.seek(0).map_err(|e| e.to_string())?;
    let mut views: Vec<SceneView> = replay
        .replicas()
        .iter()
        .map(SceneView::from_source)
        .collect();
    let initial = peer_states(&replay, &mut views);
    let mut board = PolicyBoard::new();
    let mut states = |network: &Network| {
        (!policies.is_empty()).then(|| policy_states(&mut board, network, policies))
    };
    let initial_policies = states(&replay);
    let mut lines = Vec::new();
    for (index, event) in player.network().events()[..player.network().cursor()]
        .iter()
        .enumerate()
    {
        replay.step_forward();
        lines.push(StepLine {
            step: player.step_of_event(index).map_or(0, |s| s + 1),
            index: index + 1,
            kind: event.kind.name(),
            at: event.at,
            summary: replay.describe_event(event),
            peers: peer_states(&replay, &mut views),
            in_flight: replay.in_flight().len(),
            policies: states(&replay),
        });
    }
    Ok(Replayed {
        initial,
        initial_policies,
        lines,
    })
}

/// The report as one JSON document (`--json`).
fn report_json(player: &ScenarioPlayer, replayed: &Replayed) -> Value {
    let scenario = player.scenario();
    let convergence = player.network().convergence();
    let Replayed {
        initial,
        initial_policies,
        lines,
    } = replayed;
    let mut doc = json!({
        "title": scenario.title,
        "peers": scenario.peers,
        "seed": scenario.seed,
        "initial": peers_json(initial, initial_policies.as_ref()),
        "steps": lines.iter().map(|l| {
            let mut step = json!({
                "step": l.step,
                "event": { "index": l.index, "kind": l.kind, "at": l.at, "summary": l.summary },
                "peers": peers_json(&l.peers, l.policies.as_ref()),
                "in_flight": l.in_flight,
            });
            if let Some(p) = &l.policies {
                step["agreement"] = agreement_json(&p.agreement);
            }
            step
        }).collect::<Vec<_>>(),
        "converged": convergence.converged,
        "in_flight": convergence.in_flight,
        "differing": convergence.differing.iter().map(|e| e.0).collect::<Vec<_>>(),
    });
    if let Some(p) = replayed.final_policies() {
        doc["policies_agree"] = agreement_json(&p.agreement);
    }
    doc
}

/// The report as text: each step with its events and the peers after each, then whether the
/// peers converged.
fn write_report(
    out: &mut impl Write,
    player: &ScenarioPlayer,
    replayed: &Replayed,
) -> std::io::Result<()> {
    let network = player.network();
    let named = |e: Entity| short_name(network, e, None);
    let scenario = player.scenario();
    writeln!(
        out,
        "{} ({} peers, seed {})",
        scenario.title, scenario.peers, scenario.seed
    )?;
    writeln!(out, "start")?;
    let initial_policies = replayed.initial_policies.as_ref();
    write_peers(out, &replayed.initial, initial_policies, &named)?;
    for (i, step) in scenario.steps.iter().enumerate() {
        writeln!(
            out,
            "step {}: {}",
            i + 1,
            step.text.as_deref().unwrap_or("")
        )?;
        for line in replayed.lines.iter().filter(|l| l.step == i + 1) {
            writeln!(
                out,
                "  event {} ({}): {}",
                line.index, line.kind, line.summary
            )?;
            write_peers(out, &line.peers, line.policies.as_ref(), &named)?;
        }
    }
    if let Some(p) = replayed.final_policies() {
        write_agreement(out, "peers agree at the end", &p.agreement, named)?;
    }
    write_convergence(out, network)
}

/// Whether the peers converged: the digest they share, or what is in flight and which
/// entities differ.
fn write_convergence(out: &mut impl Write, network: &Network) -> std::io::Result<()> {
    let convergence = network.convergence();
    if convergence.converged {
        let digest = convergence.digests.first().copied().unwrap_or_default();
        return writeln!(
            out,
            "converged: yes (every peer has digest {}, nothing in flight)",
            short(digest)
        );
    }
    let differing: Vec<String> = convergence
        .differing
        .iter()
        .map(|e| present::entity_tag(*e, network.name_of(*e, &[]).as_deref()))
        .collect();
    writeln!(
        out,
        "converged: no ({} in flight; entities that differ: {})",
        convergence.in_flight,
        if differing.is_empty() {
            "none yet".to_string()
        } else {
            differing.join(", ")
        }
    )
}

fn peer_states(network: &Network, views: &mut [SceneView]) -> Vec<PeerState> {
    network
        .peers()
        .zip(views.iter_mut())
        .map(|(peer, view)| {
            let replica = network.replica(peer).expect("peers() lists existing peers");
            view.update(replica);
            let rerooted = view
                .rerooted()
                .into_iter()
                .filter_map(|(e, reason)| {
                    let why = match reason {
                        Fallback::Cycle(members) => Rerooted::Cycle(members.to_vec()),
                        Fallback::MissingParent => {
                            Rerooted::MissingParent(view.declared_parent_of(e)?)
                        }
                        Fallback::None => return None,
                    };
                    Some((e, network.name_of(e, &[peer]), why))
                })
                .collect();
            PeerState {
                peer,
                digest: replica.digest(),
                rerooted,
                misplaced: nodes_mismatches(replica, view).list,
            }
        })
        .collect()
}

fn peers_json(peers: &[PeerState], policies: Option<&PolicyStates>) -> Value {
    Value::Array(
        peers
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let mut obj = json!({
                    "peer": p.peer.0,
                    "digest": format!("{:032x}", p.digest),
                    "rerooted": p.rerooted.iter().map(|(e, name, why)| {
                        let mut obj = json!({ "entity": e.0, "name": name });
                        match why {
                            Rerooted::Cycle(members) => {
                                obj["reason"] = json!("cycle");
                                obj["cycle"] = json!(members.iter().map(|m| m.0).collect::<Vec<_>>());
                            }
                            Rerooted::MissingParent(parent) => {
                                obj["reason"] = json!("missing_parent");
                                obj["parent"] = json!(parent.0);
                            }
                        }
                        obj
                    }).collect::<Vec<_>>(),
                });
                if let Some(trees) = policies.and_then(|s| s.peers.get(i)) {
                    obj["policies"] = peer_policies_json(trees);
                }
                // The Inspector's tree against the Transforms (empty without inspector::Nodes).
                obj["nodes_mismatch"] = json!(p.misplaced.iter().map(|m| json!({
                    "entity": m.entity.0,
                    "nodes_parent": m.in_nodes.map(|e| e.0),
                    "effective_parent": m.effective.0,
                })).collect::<Vec<_>>());
                obj
            })
            .collect(),
    )
}

fn write_peers(
    out: &mut impl Write,
    peers: &[PeerState],
    policies: Option<&PolicyStates>,
    name: &impl Fn(Entity) -> String,
) -> std::io::Result<()> {
    for (i, p) in peers.iter().enumerate() {
        let rerooted: Vec<String> = p
            .rerooted
            .iter()
            .map(|(e, name, why)| {
                let what = match why {
                    Rerooted::Cycle(members) => {
                        format!("cycle {}", present::cycle_ring(members, |m| m.to_string()))
                    }
                    Rerooted::MissingParent(parent) => {
                        format!("parent {parent} has no Transform")
                    }
                };
                format!("{} ({what})", present::entity_tag(*e, name.as_deref()))
            })
            .collect();
        let tail = if rerooted.is_empty() {
            String::new()
        } else {
            format!("  re-rooted: {}", rerooted.join(", "))
        };
        writeln!(out, "    {}  digest {}{tail}", p.peer, short(p.digest))?;
        if !p.misplaced.is_empty() {
            let misplaced: Vec<String> = (p.misplaced.iter())
                .map(|m| {
                    let nodes = m.in_nodes.map_or("nowhere".into(), |e| e.to_string());
                    format!(
                        "{} (Nodes: under {nodes}; Transform: under {})",
                        m.entity, m.effective
                    )
                })
                .collect();
            writeln!(
                out,
                "      inspector tree differs: {}",
                misplaced.join(", ")
            )?;
        }
        if let Some(trees) = policies.and_then(|s| s.peers.get(i)) {
            write_peer_policies(out, trees, name)?;
        }
    }
    if let Some(p) = policies {
        write_agreement(out, "peers agree", &p.agreement, name)?;
    }
    Ok(())
}

/// The first 16 hex digits of a digest: enough to tell states apart by eye.
fn short(digest: u128) -> String {
    format!("{:016x}", digest >> 64)
}
