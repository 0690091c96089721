//! The command line: open the editor, or run a headless command.

mod live;
mod net;
mod net_lesson;
mod open_capture;
mod scenario;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::json;

pub use open_capture::capture_to_open;

use scenetree_core::crdt::{Replica, encode_stream};
use scenetree_core::model::{Entity, TransformProblem, decode_name, ids, present};
use scenetree_core::scene::{Fallback, SceneView};
use scenetree_dcl::io::{self, dcl_crdt};

/// scenetree: a scene-hierarchy editor on Decentraland's Transform/CRDT semantics.
#[derive(Debug, Parser)]
#[command(name = "scenetree", version, args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// A scene to open in the editor (.json native scene, .crdt main.crdt or .composite), or a
    /// Decentraland project: its folder or any file in it (the folder with scene.json).
    pub file: Option<PathBuf>,
    /// Open the scene, render a few frames, save a PNG of the window to this path and exit.
    #[arg(long, value_name = "OUT.png")]
    pub screenshot: Option<PathBuf>,
    /// The window's size in points, e.g. 1600x1000.
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub window_size: Option<[f32; 2]>,
    /// When FILE is a lesson (*.scenario.json), play its first N steps on opening.
    #[arg(long, value_name = "N")]
    pub steps: Option<usize>,
    /// Select this entity (id) when the scene opens, e.g. for a screenshot; repeat for more.
    #[arg(long, value_name = "ENTITY")]
    pub select: Vec<u32>,
    /// Join a Decentraland data layer (`sdk-commands start --data-layer`) instead of opening a
    /// file, e.g. ws://127.0.0.1:8000/data-layer. FILE, if given too, names the project (its
    /// folder or a file in it) whose models and textures the viewport shows.
    #[arg(long, value_name = "URL")]
    pub connect: Option<String>,
    /// Allow `--connect` (and `live`) to reach a host on another machine. The data layer has
    /// no authentication: whoever reaches it can read and change the scene.
    #[arg(long, global = true)]
    pub allow_remote: bool,
    #[command(subcommand)]
    pub command: Option<Command>,
}

fn parse_size(text: &str) -> Result<[f32; 2], String> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or("expected WIDTHxHEIGHT, e.g. 1600x1000")?;
    let parse = |v: &str| {
        v.trim()
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 200.0)
    };
    match (parse(w), parse(h)) {
        (Some(w), Some(h)) => Ok([w, h]),
        _ => Err("expected WIDTHxHEIGHT with both at least 200, e.g. 1600x1000".into()),
    }
}

/// Headless commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Work with binary CRDT streams.
    Crdt {
        #[command(subcommand)]
        action: CrdtAction,
    },
    /// Write a bundled example scene to a file (.json or .crdt).
    Example {
        /// Which example.
        which: ExampleScene,
        /// Where to write it.
        out: PathBuf,
    },
    /// Convert a scene between formats, chosen by extension: .json (native), .crdt
    /// (main.crdt), .composite (main.composite).
    Convert {
        /// The scene to read.
        input: PathBuf,
        /// Where to write it.
        output: PathBuf,
        /// Write even when the output format cannot hold everything (what is lost is printed).
        #[arg(long)]
        lossy: bool,
        /// Replace the output file even when it is read-only for you (its mode is kept).
        #[arg(long)]
        force: bool,
    },
    /// Print the effective render tree of a scene.
    Tree {
        /// Print a JSON list, one object per entity.
        #[arg(long)]
        json: bool,
        /// A scene (.json, .crdt, .composite) or a Decentraland project folder.
        file: PathBuf,
    },
    /// Play multi-peer CRDT scenarios (lessons) headlessly.
    Scenario {
        #[command(subcommand)]
        action: ScenarioAction,
    },
    /// Multiplayer captures (`scenetree-net-capture/1`).
    Net {
        #[command(subcommand)]
        action: net::NetAction,
    },
    /// Join a Decentraland data layer as one more client: print its scene, run edits, or
    /// record its traffic (exit codes: 3 unreachable, 4 not a data layer, 5 protocol error,
    /// 6 remote host not allowed, 7 connection lost).
    Live {
        /// The data layer's URL, e.g. ws://127.0.0.1:8000/data-layer.
        url: String,
        #[command(subcommand)]
        action: live::LiveAction,
    },
}

/// The bundled example scenes.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum ExampleScene {
    /// A small showroom: 17 nested entities with shapes, rotated and scaled parents.
    Showroom,
    /// A generated scene of 65,024 entities (every scene number from 512 up), for speed checks.
    Large,
}

/// `scenetree crdt …`
#[derive(Debug, Subcommand)]
pub enum CrdtAction {
    /// Apply CRDT streams in order to a fresh replica and write its canonical main.crdt.
    Apply {
        /// Binary CRDT streams, applied in the order given.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Where to write the canonical stream.
        #[arg(long, value_name = "OUT.crdt")]
        out: PathBuf,
    },
}

/// `scenetree scenario …`
#[derive(Debug, Subcommand)]
pub enum ScenarioAction {
    /// Replay a scenario: every event with each peer's digest and re-rooted entities, then
    /// whether all peers converged. A multiplayer lesson (`scenetree-net-scenario/1`) prints,
    /// after each step, the deliveries in flight and each player's renderer tree and hazards.
    Run {
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Also print each peer's tree under a tree policy (RootFallback, IgnoreCyclicChange,
        /// RevertToEarlierParent, MoveOpSkip, HideCycle) or `all`, and whether the peers agree.
        #[arg(long, value_name = "NAME|all")]
        policy: Option<String>,
        /// A `*.scenario.json` file.
        file: PathBuf,
    },
}

/// Runs a headless command. Returns `None` when the editor should open instead.
pub fn run_headless(cli: &Cli) -> Option<ExitCode> {
    let command = cli.command.as_ref()?;
    if let Command::Live { url, action } = command {
        return Some(live::run(url, cli.allow_remote, action));
    }
    if let Command::Net {
        action:
            net::NetAction::Replay {
                json: false,
                text: false,
                ..
            },
    } = command
    {
        return None; // the window opens the capture
    }
    let result = match command {
        Command::Live { .. } => unreachable!("handled above"),
        Command::Crdt {
            action: CrdtAction::Apply { files, out },
        } => crdt_apply(files, out),
        Command::Convert {
            input,
            output,
            lossy,
            force,
        } => convert(input, output, *lossy, *force),
        Command::Scenario {
            action: ScenarioAction::Run { json, file, policy },
        } if io::scenario::is_net_scenario_file(file) => match policy {
            Some(_) => Err(format!(
                "{}: --policy draws the peers' trees of a peers scenario; a multiplayer lesson \
                 has renderer trees, printed without it",
                file.display()
            )),
            None => net_lesson::run(file, *json),
        },
        Command::Scenario {
            action: ScenarioAction::Run { json, file, policy },
        } => match policy
            .as_deref()
            .map(scenetree_editor::replay::parse_policies)
            .transpose()
        {
            Ok(chosen) => scenario::run(file, *json, &chosen.unwrap_or_default()),
            Err(e) => Err(e),
        },
        Command::Tree { json, file } => print_tree(file, *json),
        Command::Net { action } => net::run(action),
        Command::Example { which, out } => {
            let replica = match which {
                ExampleScene::Showroom => scenetree_core::examples::showroom(),
                ExampleScene::Large => scenetree_core::examples::large(usize::MAX),
            };
            io::save_scene(&replica, out).map_err(|e| e.to_string())
        }
    };
    Some(match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    })
}

fn crdt_apply(files: &[PathBuf], out: &Path) -> Result<(), String> {
    let mut replica = Replica::new();
    for file in files {
        let parsed = dcl_crdt::read_crdt(file).map_err(|e| e.to_string())?;
        for (offset, ty) in &parsed.skipped_unknown {
            eprintln!(
                "warning: {}: at byte {offset}: skipped a message of unknown type {ty}",
                file.display()
            );
        }
        for msg in &parsed.messages {
            replica.apply(msg);
        }
    }
    let bytes = encode_stream(&replica.canonical_messages());
    io::write_atomic(out, &bytes).map_err(|e| e.to_string())
}

fn convert(input: &Path, output: &Path, lossy: bool, force: bool) -> Result<(), String> {
    let opened = io::open_scene(input).map_err(|e| e.to_string())?;
    for note in &opened.notes {
        eprintln!("note: {}: {note}", input.display());
    }
    let consent = io::WriteConsent {
        overwrite_read_only: force,
    };
    let lost = io::save_scene_consenting(&opened.replica, &opened.context, output, lossy, consent)
        .map_err(|e| match e.kind {
            // Only these refusals can be overridden; a failed write cannot be helped by a flag.
            io::SaveErrorKind::WouldLose => format!("{e} (pass --lossy to write it anyway)"),
            io::SaveErrorKind::ReadOnly => format!("{e} (pass --force to replace it anyway)"),
            io::SaveErrorKind::UnknownFormat | io::SaveErrorKind::Io { .. } => e.to_string(),
        })?;
    for item in lost {
        eprintln!("warning: {}: not written: {item}", output.display());
    }
    Ok(())
}

/// Prints the render tree: one row per entity, each cycle once. A row on a cycle names its
/// cycle by number; the cycles follow the rows (text) or sit beside them (JSON: `entities` and
/// `cycles`), so the output grows with the scene, not with the square of a cycle's size.
fn print_tree(file: &Path, as_json: bool) -> Result<(), String> {
    // A project folder (or a file in one) prints the project's scene.
    let target = io::project::resolve_open(file).map_err(|e| e.to_string())?;
    let replica = io::load_scene(target.scene_path()).map_err(|e| e.to_string())?;
    print_replica_tree(&replica, as_json)
}

/// Prints `replica`'s effective render tree as `scenetree tree` does (rows, or JSON) on
/// standard output.
fn print_replica_tree(replica: &Replica, as_json: bool) -> Result<(), String> {
    let view = SceneView::from_source(replica);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = write_tree(replica, &view, as_json, &mut out).and_then(|()| out.flush());
    match result {
        // A closed pipe (`scenetree tree … | head`) is the reader's choice, not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(|e| format!("cannot write output: {e}")),
    }
}

/// Writes what `scenetree tree` prints for a replica and its render tree: text, or JSON when
/// `as_json` (`{"entities": [one object per row], "cycles": [{"cycle": 1, "members": […]}]}`,
/// and `"inspector_tree": {"misplaced": [ids], "leftovers": [ids]}` when the scene holds
/// `inspector::Nodes`).
/// Either grows linearly with the scene: a cycle is written once and its rows name it by number,
/// and rows deeper than 32 levels write their depth instead of more indentation.
pub fn write_tree(
    replica: &Replica,
    view: &SceneView,
    as_json: bool,
    out: &mut impl Write,
) -> std::io::Result<()> {
    if as_json {
        tree_json(replica, view, out)
    } else {
        tree_text(replica, view, out)
    }
}

/// The scene's cycles numbered from 1 in [`SceneView::cycles`] order, and each cycle's number
/// by its first member (a cycle's members are listed from its smallest entity, and an entity
/// is on one cycle at most).
fn numbered_cycles(view: &SceneView) -> (Vec<&[Entity]>, rustc_hash::FxHashMap<Entity, usize>) {
    let cycles = view.cycles();
    let numbers = (cycles.iter().enumerate())
        .filter_map(|(i, members)| members.first().map(|&first| (first, i + 1)))
        .collect();
    (cycles, numbers)
}

/// What keeps `e` from being drawn, when its own Transform does.
fn transform_problem(replica: &Replica, view: &SceneView, e: Entity) -> Option<TransformProblem> {
    view.has_non_finite_local(e)
        .then(|| replica.transform(e).and_then(|t| t.problem()))
        .flatten()
}

/// Levels `tree` indents before it writes a row's depth instead.
const MAX_INDENT: u32 = 32;

fn tree_text(replica: &Replica, view: &SceneView, out: &mut impl Write) -> std::io::Result<()> {
    let name_of = |e: Entity| replica.component_data(e, ids::NAME).and_then(decode_name);
    let (cycles, numbers) = numbered_cycles(view);
    for (e, depth) in view.preorder() {
        if e.is_root() {
            writeln!(out, "root")?;
            continue;
        }
        // Indented up to a depth, then the depth written out, so a deep chain's output grows
        // with its length and not with its square (as the hierarchy's rows do).
        let indent = if depth <= MAX_INDENT {
            "  ".repeat(depth as usize)
        } else {
            format!("{}{depth}› ", "  ".repeat(MAX_INDENT as usize))
        };
        let label = present::entity_tag(e, name_of(e).as_deref());
        let declared = view.declared_parent_of(e).unwrap_or(Entity::ROOT);
        write!(out, "{indent}{label}")?;
        if view.is_implicit(e) {
            write!(out, "  (implicit: no components)")?;
        }
        match view.fallback_reason(e) {
            Fallback::None => {}
            Fallback::MissingParent => {
                write!(out, "  [missing parent: {declared} has no Transform]")?;
            }
            Fallback::Cycle(members) => {
                let number = members.first().and_then(|m| numbers.get(m)).copied();
                let number = number.unwrap_or_default();
                write!(
                    out,
                    "  [re-rooted: cycle {number}; declared parent {declared}]"
                )?;
            }
        }
        if let Some(problem) = transform_problem(replica, view, e) {
            let tag = match problem {
                TransformProblem::NotFinite { .. } => "not finite",
                TransformProblem::RotationNotNormalizable => "rotation not normalizable",
                TransformProblem::MatrixOverflow => "overflow",
            };
            let why = present::transform_problem(&problem);
            write!(out, "  [{tag}: its Transform {why}; not drawn]")?;
        }
        writeln!(out)?;
    }
    for (i, members) in cycles.iter().enumerate() {
        let ring = present::cycle_ring_full(members, |m| m.to_string());
        let count = present::thousands(members.len());
        writeln!(out, "cycle {}: {count} entities, {ring}", i + 1)?;
    }
    Ok(())
}

/// One row of `tree --json`, serialized straight to the output (no `Value` per row: a
/// 100,000-row tree spent most of its time building and dropping those maps).
#[derive(serde::Serialize)]
struct JsonRow {
    entity: u32,
    name: Option<String>,
    declared_parent: Option<u32>,
    effective_parent: Option<u32>,
    reason: &'static str,
    implicit: bool,
    not_finite: bool,
    transform_problem: Option<String>,
    world: [f32; 16],
    /// The number of the row's cycle in `cycles`, only on a cycle's rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    cycle: Option<usize>,
}

fn tree_json(replica: &Replica, view: &SceneView, out: &mut impl Write) -> std::io::Result<()> {
    let name_of = |e: Entity| replica.component_data(e, ids::NAME).and_then(decode_name);
    let (cycles, numbers) = numbered_cycles(view);
    // Written row by row: a tree of values for the whole scene would hold it all twice.
    writeln!(out, "{{\n  \"entities\": [")?;
    let mut first = true;
    for (e, _) in view.preorder().into_iter().filter(|(e, _)| !e.is_root()) {
        let reason = view.fallback_reason(e);
        let problem = transform_problem(replica, view, e);
        let row = JsonRow {
            entity: e.0,
            name: name_of(e),
            declared_parent: view.declared_parent_of(e).map(|p| p.0),
            effective_parent: view.effective_parent_of(e).map(|p| p.0),
            reason: reason.as_str(),
            implicit: view.is_implicit(e),
            not_finite: matches!(problem, Some(TransformProblem::NotFinite { .. })),
            transform_problem: problem.map(|p| present::transform_problem(&p)),
            world: view.world_matrix(e).unwrap_or_default().to_cols_array(),
            cycle: match reason {
                Fallback::Cycle(members) => members.first().and_then(|m| numbers.get(m)).copied(),
                _ => None,
            },
        };
        out.write_all(if std::mem::take(&mut first) {
            b"    "
        } else {
            b",\n    "
        })?;
        serde_json::to_writer(&mut *out, &row)?;
    }
    writeln!(out, "\n  ],\n  \"cycles\": [")?;
    for (i, members) in cycles.iter().enumerate() {
        let ids: Vec<u32> = members.iter().map(|m| m.0).collect();
        let cycle = json!({ "cycle": i + 1, "members": ids });
        let separator = if i == 0 { "" } else { ",\n" };
        write!(out, "{separator}    {}", serde_json::to_string(&cycle)?)?;
    }
    write!(out, "\n  ]")?;
    // Scenes the Inspector edited: where its tree (inspector::Nodes) and the Transforms
    // disagree, and the leftovers it rightly shows nowhere.
    let inspector_tree = scenetree_editor::nodes_mismatches(replica, view);
    if inspector_tree.has_nodes {
        let tree = json!({
            "misplaced": inspector_tree.list.iter().map(|m| m.entity.0).collect::<Vec<_>>(),
            "leftovers": inspector_tree.leftovers.iter().map(|e| e.0).collect::<Vec<_>>(),
        });
        write!(
            out,
            ",\n  \"inspector_tree\": {}",
            serde_json::to_string(&tree)?
        )?;
    }
    writeln!(out, "\n}}")
}
