//! `scenetree live URL tree|run|record`: a data layer's scene from the command line, as one
//! more client of the host. Exit codes (also in README): 0 done; 1 a file or an action failed;
//! 3 no data layer answered (unreachable, timed out, closed during the handshake); 4 something
//! answered that is not a data layer; 5 the host broke the protocol or sent a scene that does
//! not decode; 6 a host on another machine without `--allow-remote`; 7 the connection dropped
//! before the host acknowledged everything.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use scenetree_core::crdt::scenario::{self, ScenarioAction};
use scenetree_core::model::{Entity, decode_name, ids};
use scenetree_editor::{Command, Document, LinkState, LiveError, LiveNote, LiveSettings, RecordTo};
use scenetree_live::ConnectError;

/// How long the host may take to acknowledge what `run` wrote, and to answer Save.
const ACK_TIMEOUT: Duration = Duration::from_secs(30);

/// `scenetree live URL …`
#[derive(Debug, clap::Subcommand)]
pub enum LiveAction {
    /// Print the host's scene as `scenetree tree` prints a file (same rows, same JSON).
    Tree {
        /// Print a JSON list, one object per entity.
        #[arg(long)]
        json: bool,
    },
    /// Perform the edit actions of a lesson-format file (move, rename, put,
    /// delete_component, delete_entity, and `{"do": "create", "name": N, "parent": P}`, which
    /// lessons lack) as this client, wait until the host acknowledged them, and exit. Its
    /// `initial` and peer numbers are ignored; entities are ids or names of the host's scene.
    Run {
        /// A `*.scenario.json` file.
        file: std::path::PathBuf,
        /// Then ask the host to save main.composite.
        #[arg(long)]
        save: bool,
    },
    /// Write every message seen, in and out, as a session recording (a scenario file whose
    /// steps are the messages with their writer and time).
    Record {
        /// Where to write the recording (`*.scenario.json`).
        out: std::path::PathBuf,
        /// Stop after this many seconds (default: at Ctrl+C or when the connection drops).
        #[arg(long, value_name = "N")]
        seconds: Option<f64>,
    },
}

/// Runs `scenetree live URL action`.
pub fn run(url: &str, allow_remote: bool, action: &LiveAction) -> ExitCode {
    let record_to = match action {
        LiveAction::Record { out, .. } => RecordTo::File(out.clone()),
        LiveAction::Tree { .. } | LiveAction::Run { .. } => RecordTo::Off,
    };
    let settings = LiveSettings {
        allow_remote,
        record: record_to,
        ..LiveSettings::default()
    };
    let mut doc = match Document::connect_live(url, settings) {
        Ok(doc) => doc,
        Err(e) => return fail(connect_code(&e), &e.to_string()),
    };
    let result = match action {
        LiveAction::Tree { json } => {
            super::print_replica_tree(doc.replica(), *json).map_err(failure)
        }
        LiveAction::Run { file, save } => run_file(&mut doc, file, *save),
        LiveAction::Record { out, seconds } => record(&mut doc, out, *seconds),
    };
    doc.close_live_and_wait();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, message)) => fail(code, &message),
    }
}

/// A failed step: the exit code and what to print.
type Failure = (u8, String);

fn failure(message: String) -> Failure {
    (1, message)
}

fn fail(code: u8, message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(code)
}

/// The exit code of a connection that could not start.
fn connect_code(e: &LiveError) -> u8 {
    match e {
        LiveError::Connect(c) => match c {
            ConnectError::RemoteNotAllowed { .. } => 6,
            ConnectError::NotADataLayer { .. } | ConnectError::InvalidUrl { .. } => 4,
            ConnectError::Protocol { .. } | ConnectError::Remote { .. } => 5,
            _ if c.is_transient() => 3,
            _ => 1,
        },
        LiveError::Snapshot { .. } => 5,
        LiveError::Record { .. } => 1,
    }
}

/// Performs a lesson file's edit actions as this client, then waits for the host.
fn run_file(doc: &mut Document, file: &Path, save: bool) -> Result<(), Failure> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| failure(format!("{}: cannot read: {e}", file.display())))?;
    let edits = edit_actions(&text).map_err(|e| failure(format!("{}: {e}", file.display())))?;
    let mut notes = Vec::new();
    for (path, action) in &edits {
        let command = if action.get("do").and_then(Value::as_str) == Some("create") {
            create_command(doc, action)
        } else {
            parse_action(doc, action).and_then(|action| command_of(doc, &action))
        };
        let command =
            command.map_err(|e| failure(format!("{}: at {path}: {e}", file.display())))?;
        let applied = doc
            .apply(command)
            .map_err(|e| failure(format!("{}: at {path}: {e}", file.display())))?;
        for entity in applied.created {
            eprintln!("created entity {entity}");
        }
        notes.extend(doc.poll_live(None));
    }
    let acknowledged = doc.poll_live_until(ACK_TIMEOUT, all_acknowledged, &mut notes);
    report_notes(&notes);
    if !acknowledged {
        return Err(lost(doc, "the host did not acknowledge every write"));
    }
    if save {
        doc.save_live().map_err(|e| (7, e))?;
        let deadline = Instant::now() + ACK_TIMEOUT;
        loop {
            let now = doc.poll_live(Some(Duration::from_millis(50)));
            report_notes(&now);
            if now.contains(&LiveNote::Saved) {
                break;
            }
            if let Some(LiveNote::SaveFailed(why)) =
                now.iter().find(|n| matches!(n, LiveNote::SaveFailed(_)))
            {
                return Err((5, format!("the host could not save: {why}")));
            }
            if Instant::now() > deadline || !connected(doc) {
                return Err(lost(doc, "the host did not answer Save"));
            }
        }
    }
    eprintln!(
        "applied {} action(s) as this client; the host acknowledged them{}",
        edits.len(),
        if save {
            " and saved main.composite"
        } else {
            ""
        }
    );
    Ok(())
}

fn all_acknowledged(doc: &Document) -> bool {
    doc.live()
        .is_none_or(|l| l.waiting() == 0 && l.state() == LinkState::Connected)
}

fn connected(doc: &Document) -> bool {
    doc.live()
        .is_some_and(|l| l.state() == LinkState::Connected)
}

fn lost(doc: &Document, what: &str) -> Failure {
    let live = doc.live();
    let waiting = live.map_or(0, |l| l.waiting());
    let why = live
        .and_then(|l| l.offline_reason())
        .map(|r| format!(" ({r})"))
        .unwrap_or_default();
    (
        7,
        format!("{what}: {waiting} message(s) unacknowledged{why}"),
    )
}

fn report_notes(notes: &[LiveNote]) {
    for note in notes {
        match note {
            LiveNote::Problem(p) | LiveNote::Refused(p) => eprintln!("warning: {p}"),
            LiveNote::RecordingStopped(why) => eprintln!("warning: {why}"),
            LiveNote::Disconnected(r) => eprintln!("warning: the connection dropped: {r}"),
            LiveNote::Reconnected { resent, .. } => {
                eprintln!("note: reconnected; {resent} write(s) sent again")
            }
            _ => {}
        }
    }
}

/// The edit actions of a lesson-format file as JSON, with their paths; the simulator's
/// actions (deliver, tick, …, which mean nothing for one real client) are left out, said so.
fn edit_actions(text: &str) -> Result<Vec<(String, Value)>, String> {
    let json: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    let steps = json
        .get("steps")
        .and_then(Value::as_array)
        .ok_or("a lesson file lists its actions under \"steps\"")?;
    let mut kept = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let Some(actions) = step.get("actions").and_then(Value::as_array) else {
            continue;
        };
        for (j, action) in actions.iter().enumerate() {
            let path = format!("steps[{i}].actions[{j}]");
            let verb = action.get("do").and_then(Value::as_str).unwrap_or_default();
            if EDITS.contains(&verb) {
                kept.push((path, action.clone()));
            } else {
                eprintln!("note: {path}: \"{verb}\" is a simulator action; skipped");
            }
        }
    }
    Ok(kept)
}

/// One action as this client: its peer is ours, its entity names are looked up in the host's
/// scene as it is now (an earlier action may have renamed one), and the core's parser reads
/// the rest (components by name, base64, quaternions).
fn parse_action(doc: &Document, action: &Value) -> Result<ScenarioAction, String> {
    let mut action = action.clone();
    let object = action.as_object_mut().ok_or("not an object")?;
    object.insert("peer".into(), Value::from(1));
    for key in ["entity", "parent"] {
        if let Some(Value::String(name)) = object.get(key) {
            let entity = entity_named(doc, name).map_err(|e| format!("{key}: {e}"))?;
            object.insert(key.into(), Value::from(entity.0));
        }
    }
    let one = serde_json::json!({
        "format": scenario::FORMAT,
        "title": "live run",
        "peers": 2,
        "steps": [{ "actions": [action] }],
    });
    let parsed = scenario::parse(&one.to_string()).map_err(|e| {
        e.to_string()
            .replace("at steps[0].actions[0]", "in the action")
    })?;
    parsed
        .steps
        .into_iter()
        .next()
        .and_then(|s| s.actions.into_iter().next())
        .ok_or_else(|| "no action".to_owned())
}

/// The actions `live run` performs.
const EDITS: [&str; 6] = [
    "move",
    "rename",
    "put",
    "delete_component",
    "delete_entity",
    "create",
];

/// `{"do": "create", "name": N, "parent": P}`: a new entity named N under P (an id or a name;
/// the root when left out), numbered from this client's block, with what the hierarchy's
/// Create gives it (a Transform at the parent's origin, an `inspector::Nodes` entry).
fn create_command(doc: &Document, action: &Value) -> Result<Command, String> {
    let name = (action.get("name").and_then(Value::as_str))
        .ok_or("\"create\" needs a \"name\" (a string)")?;
    let parent = match action.get("parent") {
        None => Entity::ROOT,
        Some(Value::String(parent)) => {
            entity_named(doc, parent).map_err(|e| format!("parent: {e}"))?
        }
        Some(id) => (id.as_u64().and_then(|n| u32::try_from(n).ok()))
            .map(Entity)
            .ok_or("\"parent\" is an entity id or an entity's name")?,
    };
    Ok(Command::Create {
        parent,
        name: name.to_owned(),
        components: Vec::new(),
    })
}

/// The entity of the host's scene named `name` (exactly one).
fn entity_named(doc: &Document, name: &str) -> Result<Entity, String> {
    let replica = doc.replica();
    let found: Vec<Entity> = (replica.live_entities())
        .filter(|&e| {
            replica
                .component_data(e, ids::NAME)
                .and_then(decode_name)
                .as_deref()
                == Some(name)
        })
        .collect();
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(format!("no entity of the host's scene is named {name:?}")),
        many => Err(format!(
            "{} entities are named {name:?}; use an id",
            many.len()
        )),
    }
}

/// The editor command an action is, as this client (so Nodes follows, values are checked).
fn command_of(doc: &Document, action: &ScenarioAction) -> Result<Command, String> {
    Ok(match action.clone() {
        ScenarioAction::Move {
            entity,
            parent,
            position,
            rotation,
            scale,
            ..
        } => {
            let t = scenario::moved(
                doc.local_transform(entity),
                parent,
                position,
                rotation,
                scale,
            );
            Command::SetTransforms(vec![(entity, t)])
        }
        ScenarioAction::Rename { entity, name, .. } => Command::Rename { entity, name },
        ScenarioAction::Put {
            entity,
            component,
            data,
            ..
        } => Command::SetComponent {
            entity,
            component,
            value: Some(data),
        },
        ScenarioAction::DeleteComponent {
            entity, component, ..
        } => Command::SetComponent {
            entity,
            component,
            value: None,
        },
        ScenarioAction::DeleteEntity { entity, .. } => Command::Delete {
            entities: vec![entity],
        },
        other => return Err(format!("{other:?} is not an edit")),
    })
}

/// Records until `seconds` pass, Ctrl+C, or the connection drops. The recording goes to a
/// file beside `out` as the session runs (the session keeps no history in memory) and takes
/// its place at the end; a poll handles what arrived for at most a slice of 40 ms, so the
/// deadline is kept within that whatever the host sends.
fn record(doc: &mut Document, out: &Path, seconds: Option<f64>) -> Result<(), Failure> {
    let stop = Arc::new(AtomicBool::new(false));
    watch_interrupts(&stop);
    let deadline = seconds.map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0)));
    eprintln!("recording to {} (Ctrl+C ends it)", out.display());
    let mut dropped = None;
    while !stop.load(Ordering::Relaxed) {
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        if left.is_some_and(|left| left.is_zero()) {
            break;
        }
        let wait = left.map_or(Duration::from_millis(50), |l| {
            l.min(Duration::from_millis(50))
        });
        let notes = doc.poll_live(Some(wait));
        report_notes(&notes);
        if let Some(LiveNote::Disconnected(reason)) = notes
            .into_iter()
            .find(|n| matches!(n, LiveNote::Disconnected(_)))
        {
            dropped = Some(reason);
            break;
        }
    }
    let summary = doc
        .finish_live_recording()
        .map_err(|e| failure(format!("{}: cannot write: {e}", out.display())))?;
    eprintln!(
        "recorded {} message(s) from the host and {} of this client's in {} step(s) to {}",
        summary.arrived,
        summary.written,
        summary.steps,
        out.display()
    );
    match dropped {
        Some(reason) => Err((
            7,
            format!("the connection dropped: {reason} (what came before it is recorded)"),
        )),
        None => Ok(()),
    }
}

/// Ctrl+C (and SIGTERM) end a recording cleanly instead of killing the process.
fn watch_interrupts(stop: &Arc<AtomicBool>) {
    #[cfg(unix)]
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register(signal, Arc::clone(stop));
    }
    #[cfg(not(unix))]
    let _ = stop;
}
