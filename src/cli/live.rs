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
use scenetree_core::model::{Entity, decode_name, ids, present};
use scenetree_editor::{
    Command, Document, LinkState, LiveError, LiveNote, LiveSettings, RecordTo, THIS_EDITOR,
};
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
        // The host's own words (a refused call's message) may be of any length.
        Err(e) => {
            let message = e.to_string();
            return fail(
                connect_code(&e),
                &present::excerpt(&message, present::MESSAGE_CHARS),
            );
        }
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
        let at = |e: &dyn std::fmt::Display| failure(format!("{}: at {path}: {e}", file.display()));
        let command = if action.get("do").and_then(Value::as_str) == Some("create") {
            create_command(doc, action).map_err(|e| at(&e))?
        } else {
            // As this client; names are looked up in the host's scene as it is now (an
            // earlier action may have renamed one).
            let named = |name: &str| entity_named(doc, name);
            let action = scenario::parse_action(action, THIS_EDITOR, &named)
                .map_err(|e| failure(format!("{}: {}", file.display(), e.within(path))))?;
            command_of(doc, &action).map_err(|e| at(&e))?
        };
        let applied = doc.apply(command).map_err(|e| at(&e))?;
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
        doc.save_live().map_err(|e| (7, e.to_string()))?;
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
                let why = present::excerpt(why, present::MESSAGE_CHARS);
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
        [] => Err(format!(
            "no entity of the host's scene is named {}",
            present::quoted(name)
        )),
        many => Err(format!(
            "{} entities are named {}; use an id",
            many.len(),
            present::quoted(name)
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

/// Records until `seconds` pass, Ctrl+C, or the connection drops. The recording is written
/// beside `out` as the session goes (the session keeps no history in memory) and takes its
/// place at the end; a poll handles what arrived for at most a 40 ms slice, so the deadline
/// is kept within that whatever the host sends. Bytes from the host that are not CRDT
/// messages are skipped (what came before them in their element is kept), and messages the
/// editor refuses are not applied: each is said on stderr as it comes and in a step of the
/// recording at its time, and the command then exits 5, as the recording lacks what they held.
fn record(doc: &mut Document, out: &Path, seconds: Option<f64>) -> Result<(), Failure> {
    let stop = Arc::new(AtomicBool::new(false));
    watch_interrupts(&stop);
    let start = Instant::now();
    let deadline = seconds.map(|s| start + Duration::from_secs_f64(s.max(0.0)));
    // Connected, the host's scene in: from here on, every message is recorded. Scripts (and
    // the tests) wait for this line before they act.
    let url = doc.live().map(|l| l.url().to_owned()).unwrap_or_default();
    match seconds {
        Some(s) => eprintln!("recording from {url} for {s} s; Ctrl+C ends it sooner"),
        None => eprintln!("recording from {url}; Ctrl+C ends it"),
    }
    let mut dropped = None;
    let mut problems = 0;
    while !stop.load(Ordering::Relaxed) {
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        if left.is_some_and(|left| left.is_zero()) {
            break;
        }
        let wait = Duration::from_millis(50).min(left.unwrap_or(Duration::MAX));
        let notes = doc.poll_live(Some(wait));
        take_notes(notes, &mut dropped, &mut problems);
        if dropped.is_some() {
            break;
        }
    }
    let summary = doc
        .finish_live_recording()
        .map_err(|e| failure(format!("{}: cannot write: {e}", out.display())))?;
    eprintln!(
        "recorded {} message(s) ({} written by this editor, {} by the host) in {} step(s) to \
         {}",
        summary.written + summary.arrived,
        summary.written,
        summary.arrived,
        summary.steps,
        out.display()
    );
    match (dropped, problems) {
        (Some(reason), _) => Err((
            7,
            format!("the connection dropped: {reason} (what came before it is recorded)"),
        )),
        (None, 0) => Ok(()),
        (None, n) => Err((
            5,
            format!(
                "the host sent {n} element(s) this editor could not take whole; what it could \
                 not is not in the recording (see the warnings above and the recording's steps \
                 at their times)"
            ),
        )),
    }
}

/// Keeps from a recording's `notes` why the connection dropped, and counts the problems (each
/// said on stderr as it comes; the recording holds them as steps).
fn take_notes(notes: Vec<LiveNote>, dropped: &mut Option<String>, problems: &mut usize) {
    for note in notes {
        match note {
            LiveNote::Disconnected(reason) => *dropped = dropped.take().or(Some(reason)),
            LiveNote::Problem(problem) | LiveNote::Refused(problem) => {
                eprintln!("warning: {problem}");
                *problems += 1;
            }
            LiveNote::RecordingStopped(why) => eprintln!("warning: {why}"),
            _ => {}
        }
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
