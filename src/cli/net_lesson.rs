//! `scenetree scenario run [--json] FILE` for a multiplayer lesson (`scenetree-net-scenario/1`):
//! plays every step and prints, after each, where the timeline is, the deliveries in flight
//! (with the hazards each leads to), each player's renderer tree in its own numbers with the
//! network identities, and the hazards so far with their causes.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Value, json};

use scenetree_core::model::{Entity, Transform, ids};
use scenetree_core::net::lesson::NetLesson;
use scenetree_core::net::run::{DeliveryRow, NetRun, RunState};
use scenetree_dcl::io;

/// Plays the lesson in `file` and prints the report.
pub(super) fn run(file: &Path, as_json: bool) -> Result<(), String> {
    let scenario = io::scenario::read_net_scenario(file).map_err(|e| e.to_string())?;
    let mut lesson = NetLesson::new(scenario).map_err(|e| format!("{}: {e}", file.display()))?;
    let mut steps = Vec::new();
    let mut text = String::new();
    let _ = writeln!(text, "{}", lesson.scenario().title);
    for (at, player) in lesson.scenario().players.iter().enumerate() {
        let _ = writeln!(
            text,
            "  {} {}",
            lesson.run().player_name(at),
            player.address
        );
    }
    while lesson
        .next_step()
        .map_err(|e| format!("{}: {e}", file.display()))?
    {
        let run = lesson.run();
        let state = run.state();
        let flying = run.in_flight();
        let n = lesson.steps_shown();
        let _ = writeln!(text, "step {n}: {}", lesson.text());
        write_step(&mut text, run, &state, &flying);
        steps.push(json!({
            "step": n,
            "text": lesson.text(),
            "timeline": run.cursor(),
            "last_tick": run.cursor().checked_sub(1).map(|s| run.tick_label(s)),
            "in_flight": flying.iter().map(|r| row_json(run, r)).collect::<Vec<_>>(),
            "players": players_json(run, &state),
        }));
    }
    let out = if as_json {
        let doc = json!({
            "title": lesson.scenario().title,
            "players": lesson.scenario().players.iter().map(|p| json!({
                "name": p.name, "address": p.address,
                "network_id": scenetree_core::net::network_id_from_address(&p.address),
            })).collect::<Vec<_>>(),
            "ticks": lesson.run().script().len(),
            "steps": steps,
        });
        serde_json::to_string_pretty(&doc).unwrap_or_default()
    } else {
        text.trim_end().to_string()
    };
    super::net::print(&out)
}

fn write_step(out: &mut String, run: &NetRun, state: &RunState, flying: &[DeliveryRow]) {
    let _ = writeln!(
        out,
        "  timeline: {} of {} ticks{}",
        run.cursor(),
        run.script().len(),
        run.cursor()
            .checked_sub(1)
            .map_or(String::new(), |s| format!(" (last: {})", run.tick_label(s)))
    );
    for row in flying {
        let hazards = hazard_kinds(row);
        let _ = writeln!(
            out,
            "  in flight: {}{}",
            row_summary(run, row),
            if hazards.is_empty() {
                String::new()
            } else {
                format!(" ⚠ {}", hazards.join(", "))
            }
        );
    }
    for player in 0..run.players().len() {
        let tree: Vec<String> = (state.scenes[player].tree().into_iter())
            .map(|(entity, parent)| {
                let identity = state
                    .identity(player, entity)
                    .map_or(String::new(), |i| format!(" [{}]", run.identity_label(i)));
                format!("{entity} → {parent}{identity}")
            })
            .collect();
        let _ = writeln!(out, "  {}: {}", run.player_name(player), tree.join(", "));
    }
    for (step, h) in run.hazards_until_cursor() {
        let _ = writeln!(
            out,
            "  hazard: {} {} on {}: {}",
            run.tick_label(step),
            h.hazard.kind,
            h.hazard.entity,
            h.hazard.cause
        );
    }
}

/// "A tick 2 → B, arrives B tick 4" for a delivery.
fn row_summary(run: &NetRun, row: &DeliveryRow) -> String {
    let from = row
        .from
        .map_or(row.content.sender.clone(), |p| run.player_name(p));
    let sent = row.sent_step.map_or(from, |s| run.tick_label(s));
    let kind = row.content.kind.map_or("?", |k| k.name());
    let arrives = row.arrives.map_or("arrives at no tick".to_string(), |s| {
        format!("arrives {}", run.tick_label(s))
    });
    format!("{sent} → {} {kind}, {arrives}", run.player_name(row.to))
}

fn row_json(run: &NetRun, row: &DeliveryRow) -> Value {
    json!({
        "from": row.from.map(|p| run.player_name(p)),
        "sent": row.sent_step.map(|s| run.script()[s].tick),
        "to": run.player_name(row.to),
        "arrives": row.arrives.map(|s| run.script()[s].tick),
        "kind": row.content.kind.map(|k| k.name()),
        "entities": row.content.identities().into_iter().map(|i| run.identity_label(i)).collect::<Vec<_>>(),
        "hazards": hazard_kinds(row),
    })
}

fn players_json(run: &NetRun, state: &RunState) -> Vec<Value> {
    (0..run.players().len())
        .map(|player| {
            let tree: Vec<Value> = (state.scenes[player].tree().into_iter())
                .map(|(entity, parent): (Entity, Entity)| {
                    let transform = (state.scenes[player].value(entity, ids::TRANSFORM))
                        .and_then(|bytes| Transform::from_bytes(bytes).ok());
                    json!({
                        "entity": entity.0,
                        "parent": parent.0,
                        "identity": state.identity(player, entity).map(|i| run.identity_label(i)),
                        "position": transform.map(|t| t.position.to_array()),
                    })
                })
                .collect();
            let hazards: Vec<Value> = (run.hazards_until_cursor())
                .filter(|(step, _)| run.script()[*step].player == player)
                .map(|(_, h)| {
                    json!({
                        "kind": h.hazard.kind.as_str(),
                        "entity": h.hazard.entity.0,
                        "tick": h.hazard.tick,
                        "cause": h.hazard.cause,
                    })
                })
                .collect();
            json!({
                "name": run.player_name(player),
                "renderer_tree": tree,
                "hazards": hazards,
            })
        })
        .collect()
}

/// The kinds of hazard a delivery leads to, each once.
fn hazard_kinds(row: &DeliveryRow) -> Vec<&'static str> {
    let mut kinds: Vec<&'static str> = Vec::new();
    for h in &row.hazards {
        if !kinds.contains(&h.hazard.kind.as_str()) {
            kinds.push(h.hazard.kind.as_str());
        }
    }
    kinds
}
