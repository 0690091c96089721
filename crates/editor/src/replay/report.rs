//! `scenetree scenario run`'s report, written as the replay goes: text for people (each step's
//! text, then its events, every peer after each), or JSON (one object whose `steps` list holds
//! one object per event, each on a line of its own). Nothing is kept per event, so a run of a
//! million events is reported in memory that does not grow with it (besides the run itself).

use std::io::{self, Write};

use serde_json::{Value, json};

use scenetree_core::crdt::Network;
use scenetree_core::model::{Entity, present};
use scenetree_core::scene::policy::{PolicyBoard, TreePolicy};

use super::policies::{
    PolicyStates, agreement_json, peer_policies_json, policy_states, short_name, write_agreement,
    write_peer_policies,
};
use super::{EventReport, PeerReport, Replay, Rerooted};

/// How the report is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Lines for people.
    Text,
    /// One JSON object.
    Json,
}

/// Replays `replay` to its end and writes the report to `out`; `policies` (may be empty) adds
/// each peer's tree under those tree policies after every event.
pub fn write_report(
    replay: &mut Replay,
    policies: &[TreePolicy],
    format: Format,
    out: &mut impl Write,
) -> io::Result<()> {
    let mut writer = Writer {
        replay,
        policies,
        board: PolicyBoard::new(),
        last_policies: None,
    };
    match format {
        Format::Text => writer.text(out),
        Format::Json => writer.json(out),
    }
}

struct Writer<'a> {
    replay: &'a mut Replay,
    policies: &'a [TreePolicy],
    board: PolicyBoard,
    /// The policies' states at the replay's position (with `--policy`).
    last_policies: Option<PolicyStates>,
}

impl Writer<'_> {
    /// The peers now and, with policies, their trees under each.
    fn now(&mut self) -> Vec<PeerReport> {
        let peers = self.replay.peers();
        self.sync_policies();
        peers
    }

    fn sync_policies(&mut self) {
        if !self.policies.is_empty() {
            let network = self.replay.network();
            self.last_policies = Some(policy_states(&mut self.board, network, self.policies));
        }
    }

    /// The next event, with the policies synced to it.
    fn next_event(&mut self) -> Option<EventReport> {
        let event = self.replay.next()?;
        self.sync_policies();
        Some(event)
    }

    fn text(&mut self, out: &mut impl Write) -> io::Result<()> {
        let scenario = self.replay.player().scenario();
        let steps = scenario.steps.len();
        let (title, peers, seed) = (&scenario.title, scenario.peers, scenario.seed);
        writeln!(out, "{title} ({peers} peers, seed {seed})")?;
        writeln!(out, "start")?;
        let initial = self.now();
        write_peers(
            out,
            &initial,
            self.last_policies.as_ref(),
            self.replay.network(),
        )?;
        let mut next = self.next_event();
        for i in 0..steps {
            let text = self.replay.player().scenario().steps[i].text.as_deref();
            writeln!(out, "step {}: {}", i + 1, text.unwrap_or(""))?;
            while let Some(event) = next.take_if(|e| e.step == i + 1) {
                writeln!(
                    out,
                    "  event {} ({}): {}",
                    event.index, event.kind, event.summary
                )?;
                write_peers(
                    out,
                    &event.peers,
                    self.last_policies.as_ref(),
                    self.replay.network(),
                )?;
                next = self.next_event();
            }
        }
        // Events no played step recorded are not listed (there are none after a full run).
        while next.is_some() {
            next = self.next_event();
        }
        let network = self.replay.network();
        if let Some(p) = &self.last_policies {
            let name = |e: Entity| short_name(network, e, None);
            write_agreement(out, "peers agree at the end", &p.agreement, name)?;
        }
        let convergence = network.convergence();
        if convergence.converged {
            let digest = convergence.digests.first().copied().unwrap_or_default();
            writeln!(
                out,
                "converged: yes (every peer has digest {}, nothing in flight)",
                short(digest)
            )
        } else {
            let differing: Vec<String> = (convergence.differing.iter())
                .map(|&e| present::entity_tag(e, network.name_of(e, &[]).as_deref()))
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
    }

    fn json(&mut self, out: &mut impl Write) -> io::Result<()> {
        let scenario = self.replay.player().scenario();
        let (title, peers, seed) = (json!(scenario.title), scenario.peers, scenario.seed);
        write!(
            out,
            "{{\n\"title\": {title},\n\"peers\": {peers},\n\"seed\": {seed},\n"
        )?;
        let initial = self.now();
        let initial = peers_json(&initial, self.last_policies.as_ref());
        write!(out, "\"initial\": {initial},\n\"steps\": [")?;
        let mut first = true;
        while let Some(event) = self.next_event() {
            let mut step = json!({
                "step": event.step,
                "event": {
                    "index": event.index,
                    "kind": event.kind,
                    "at": event.at,
                    "summary": event.summary,
                },
                "peers": peers_json(&event.peers, self.last_policies.as_ref()),
                "in_flight": event.in_flight,
            });
            if let Some(p) = &self.last_policies {
                step["agreement"] = agreement_json(&p.agreement);
            }
            write!(out, "{}\n{step}", if first { "" } else { "," })?;
            first = false;
        }
        let convergence = self.replay.network().convergence();
        let differing: Vec<u32> = convergence.differing.iter().map(|e| e.0).collect();
        write!(
            out,
            "\n],\n\"converged\": {},\n\"in_flight\": {},\n\"differing\": {}",
            convergence.converged,
            convergence.in_flight,
            json!(differing)
        )?;
        if let Some(p) = &self.last_policies {
            write!(
                out,
                ",\n\"policies_agree\": {}",
                agreement_json(&p.agreement)
            )?;
        }
        writeln!(out, "\n}}")
    }
}

fn peers_json(peers: &[PeerReport], policies: Option<&PolicyStates>) -> Value {
    Value::Array(
        peers
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let mut obj = json!({
                    "peer": p.peer.0,
                    "digest": format!("{:032x}", p.digest),
                    "rerooted": p.rerooted.iter().map(|r| {
                        let mut obj = json!({ "entity": r.entity.0, "name": r.name });
                        match &r.reason {
                            Rerooted::Cycle(members) => {
                                obj["reason"] = json!("cycle");
                                // The whole cycle once, at its first member listed; the others
                                // name that member (listing it at each was quadratic).
                                match cycle_head(members) {
                                    Some(head) if head != r.entity => {
                                        obj["cycle_of"] = json!(head.0);
                                    }
                                    _ => {
                                        obj["cycle"] = json!(members.iter().map(|m| m.0).collect::<Vec<_>>());
                                    }
                                }
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
                obj["nodes_mismatch"] = json!(p.misplaced.list.iter().map(|m| json!({
                    "entity": m.entity.0,
                    "nodes_parent": m.in_nodes.map(|e| e.0),
                    "effective_parent": m.effective.0,
                })).collect::<Vec<_>>());
                obj
            })
            .collect(),
    )
}

/// Every peer's lines: its digest and re-rooted entities, where the Inspector's tree differs,
/// and with policies its tree under each; names as `network` knows them now.
fn write_peers(
    out: &mut impl Write,
    peers: &[PeerReport],
    policies: Option<&PolicyStates>,
    network: &Network,
) -> io::Result<()> {
    let name = |e: Entity| short_name(network, e, None);
    for (i, p) in peers.iter().enumerate() {
        let rerooted: Vec<String> = (p.rerooted.iter())
            .map(|r| {
                let what = match &r.reason {
                    Rerooted::Cycle(members) => match cycle_head(members) {
                        Some(head) if head != r.entity => format!("on {head}'s cycle"),
                        _ => format!("cycle {}", present::cycle_ring(members, |m| m.to_string())),
                    },
                    Rerooted::MissingParent(parent) => {
                        format!("parent {parent} has no Transform")
                    }
                };
                format!(
                    "{} ({what})",
                    present::entity_tag(r.entity, r.name.as_deref())
                )
            })
            .collect();
        let tail = if rerooted.is_empty() {
            String::new()
        } else {
            format!("  re-rooted: {}", rerooted.join(", "))
        };
        // The digest's first 16 hex digits, as `short` writes them, without a String each.
        writeln!(out, "    {}  digest {:016x}{tail}", p.peer, p.digest >> 64)?;
        if !p.misplaced.list.is_empty() {
            let misplaced: Vec<String> = (p.misplaced.list.iter())
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

/// The member a cycle is listed at in full: its smallest, the first of them in a re-rooted
/// list (which is sorted by entity).
fn cycle_head(members: &[Entity]) -> Option<Entity> {
    members.iter().copied().min()
}

/// The first 16 hex digits of a digest: enough to tell states apart by eye.
fn short(digest: u128) -> String {
    format!("{:016x}", digest >> 64)
}
