//! `scenario run --policy NAME|all`: each peer's tree under each tree policy, and whether the
//! peers agree, after every event.

use std::io::Write;

use serde_json::{Map, Value, json};

use scenetree_core::crdt::{Network, PeerId};
use scenetree_core::model::{Entity, present};
use scenetree_core::scene::policy::{PolicyAgreement, PolicyBoard, TreePolicy};

/// The policies `--policy` names: one by name, or `all`.
pub fn parse_policies(text: &str) -> Result<Vec<TreePolicy>, String> {
    if text.eq_ignore_ascii_case("all") {
        return Ok(TreePolicy::ALL.to_vec());
    }
    TreePolicy::from_name(text).map(|p| vec![p]).ok_or_else(|| {
        let names: Vec<&str> = TreePolicy::ALL.iter().map(|p| p.name()).collect();
        format!(
            "unknown policy {text:?}: use one of {} or all",
            names.join(", ")
        )
    })
}

/// One peer's tree under one policy: every entity it draws or hides, ascending, with its
/// parent (`None` = hidden).
pub struct PolicyTree {
    /// The policy.
    pub policy: TreePolicy,
    /// Every entity it draws or hides, ascending, with its parent (`None`: hidden).
    pub placements: Vec<(Entity, Option<Entity>)>,
}

/// The policies' trees for every peer, and each policy's agreement, at the network's position.
pub struct PolicyStates {
    /// Per peer (peer 1 first), its tree under each policy asked for.
    pub peers: Vec<Vec<PolicyTree>>,
    /// Per policy asked for, whether the peers agree under it.
    pub agreement: Vec<(TreePolicy, PolicyAgreement)>,
}

/// Reads `policies` off the board (synced to `network` first).
pub fn policy_states(
    board: &mut PolicyBoard,
    network: &Network,
    policies: &[TreePolicy],
) -> PolicyStates {
    board.sync(network);
    let peers = network
        .peers()
        .map(|peer| {
            let mut entities: Vec<Entity> = board
                .view(peer)
                .map(|v| v.entities().filter(|e| !e.is_root()).collect())
                .unwrap_or_default();
            entities.sort_unstable();
            policies
                .iter()
                .map(|&policy| PolicyTree {
                    policy,
                    placements: entities
                        .iter()
                        .filter_map(|&e| board.placement(peer, policy, e).map(|p| (e, p.parent())))
                        .collect(),
                })
                .collect()
        })
        .collect();
    let agreement = policies
        .iter()
        .map(|&policy| (policy, board.agreement(policy)))
        .collect();
    PolicyStates { peers, agreement }
}

/// `{"RootFallback": {"512": 513, "513": 0, "514": null}, …}` for one peer (0 = the root,
/// null = hidden).
pub(super) fn peer_policies_json(trees: &[PolicyTree]) -> Value {
    let mut out = Map::new();
    for tree in trees {
        let placements: Map<String, Value> = tree
            .placements
            .iter()
            .map(|(e, p)| (e.0.to_string(), p.map_or(Value::Null, |p| json!(p.0))))
            .collect();
        out.insert(tree.policy.name().to_string(), Value::Object(placements));
    }
    Value::Object(out)
}

/// `{"RootFallback": {"agree": true, "differing": []}, …}`.
pub(super) fn agreement_json(agreement: &[(TreePolicy, PolicyAgreement)]) -> Value {
    let mut out = Map::new();
    for (policy, a) in agreement {
        out.insert(
            policy.name().to_string(),
            json!({ "agree": a.agree, "differing": a.differing.iter().map(|e| e.0).collect::<Vec<_>>() }),
        );
    }
    Value::Object(out)
}

/// One line per policy: `RootFallback  Lamp → root, Table → Lamp, Bulb hidden`.
pub(super) fn write_peer_policies(
    out: &mut impl Write,
    trees: &[PolicyTree],
    name: impl Fn(Entity) -> String,
) -> std::io::Result<()> {
    for tree in trees {
        let placed: Vec<String> = tree
            .placements
            .iter()
            .map(|(e, p)| match p {
                Some(p) if p.is_root() => format!("{} → root", name(*e)),
                Some(p) => format!("{} → {}", name(*e), name(*p)),
                None => format!("{} hidden", name(*e)),
            })
            .collect();
        writeln!(
            out,
            "      {:<22} {}",
            tree.policy.name(),
            placed.join(", ")
        )?;
    }
    Ok(())
}

/// `peers agree: RootFallback yes, IgnoreCyclicChange no (Lamp, Table), …`.
pub(super) fn write_agreement(
    out: &mut impl Write,
    label: &str,
    agreement: &[(TreePolicy, PolicyAgreement)],
    name: impl Fn(Entity) -> String,
) -> std::io::Result<()> {
    let parts: Vec<String> = agreement
        .iter()
        .map(|(policy, a)| {
            if a.agree {
                format!("{} yes", policy.name())
            } else {
                let differing: Vec<String> = a.differing.iter().map(|e| name(*e)).collect();
                format!("{} no ({})", policy.name(), differing.join(", "))
            }
        })
        .collect();
    writeln!(out, "    {label}: {}", parts.join(", "))
}

/// An entity's name as the peers know it (see [`present::entity_name`]).
pub(super) fn short_name(network: &Network, entity: Entity, peer: Option<PeerId>) -> String {
    present::entity_name(entity, network.name_of(entity, peer.as_slice()).as_deref())
}
