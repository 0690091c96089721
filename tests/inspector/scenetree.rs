//! scenetree's side, through its command line as a user would script it: `scenetree live URL
//! tree --json` to read the host's scene, `scenetree live URL run FILE` to edit it.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::{Value, json};

use crate::browser::{Drawn, Row};

/// Entities below this number are the engine's own (root, player, camera…).
const FIRST_SCENE_ENTITY: u32 = 512;

/// One row of `scenetree live URL tree --json`.
#[derive(Clone, Debug)]
pub struct Entry {
    pub id: u32,
    pub name: Option<String>,
    /// `None` for an entity with no Transform.
    pub declared_parent: Option<u32>,
    pub effective_parent: Option<u32>,
    /// The world matrix, column-major (the translation is 12, 13, 14), in meters.
    pub world: [f32; 16],
    /// The number of the cycle the entity is on, if it is.
    pub cycle: Option<u64>,
}

impl Entry {
    /// The world position's `axis` (0 x, 1 y, 2 z), in meters.
    pub fn world_position(&self, axis: usize) -> f32 {
        self.world[12 + axis]
    }
}

fn scenetree(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_scenetree"))
        .args(args)
        .output()
        .expect("run scenetree")
}

/// The host's scene as `scenetree live URL tree --json` prints it.
pub fn live_tree(url: &str) -> Vec<Entry> {
    let out = scenetree(&["live", url, "tree", "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "scenetree live tree: {stderr}");
    let json: Value = serde_json::from_slice(&out.stdout).expect("tree --json prints JSON");
    let id = |v: &Value| v.as_u64().and_then(|n| u32::try_from(n).ok());
    (json["entities"]
        .as_array()
        .expect("an entities list")
        .iter())
    .map(|row| Entry {
        id: id(&row["entity"]).expect("an entity id"),
        name: row["name"].as_str().map(str::to_owned),
        declared_parent: id(&row["declared_parent"]),
        effective_parent: id(&row["effective_parent"]),
        world: std::array::from_fn(|i| row["world"][i].as_f64().unwrap_or(f64::NAN) as f32),
        cycle: row["cycle"].as_u64(),
    })
    .collect()
}

/// The entry of `id`, if the host's scene has it.
pub fn entry(entries: &[Entry], id: u32) -> Option<&Entry> {
    entries.iter().find(|e| e.id == id)
}

/// Performs `actions` (a lesson file's action objects) with `scenetree live URL run`, which
/// returns once the host acknowledged them; returns what it printed on stderr.
pub fn live_run(url: &str, actions: Value) -> String {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let file = dir.path().join("edits.scenario.json");
    let lesson = json!({ "steps": [{ "actions": actions }] });
    std::fs::write(&file, lesson.to_string()).expect("write the edits");
    let out = scenetree(&["live", url, "run", file.to_str().expect("a UTF-8 path")]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "scenetree live run {lesson}: {stderr}"
    );
    stderr
}

/// What the Inspector's tree should show of scenetree's: every scene entity with a Transform,
/// named as in scenetree and inside its parent (the scene's root is the Inspector's "Scene" row,
/// 0). Entities with no Transform (left by deleted entities in official templates: editor data
/// only) are not in the Inspector's tree, and the reserved ones (the player, 1; the camera, 2)
/// are its own rows beside "Scene".
pub fn as_the_inspector_shows(entries: &[Entry]) -> BTreeSet<Row> {
    (entries.iter())
        .filter(|e| e.declared_parent.is_some() && e.id >= FIRST_SCENE_ENTITY)
        .map(|e| Row {
            id: e.id,
            name: e.name.clone().unwrap_or_default(),
            parent: Some(e.effective_parent.unwrap_or(0)),
        })
        .collect()
}

/// How the Inspector's drawn tree compares with scenetree's.
#[derive(Debug, Default)]
pub struct Comparison {
    /// One line per entity drawn otherwise than scenetree has it, or not drawn though its
    /// parent's row is open.
    pub differences: Vec<String>,
    /// Closed rows whose children scenetree has: the rows to open next.
    pub to_open: Vec<u32>,
}

/// Compares the rows the Inspector draws inside its "Scene" row (rows under closed rows are
/// not drawn) with `expected` (scenetree's tree as the Inspector should show it).
pub fn compare(expected: &BTreeSet<Row>, drawn: &[Drawn]) -> Comparison {
    let expected: BTreeMap<u32, &Row> = expected.iter().map(|r| (r.id, r)).collect();
    let with_children: BTreeSet<u32> = expected.values().filter_map(|r| r.parent).collect();
    let drawn_ids: BTreeSet<u32> = drawn.iter().map(|d| d.row.id).collect();
    let open: BTreeSet<u32> = (drawn.iter())
        .filter(|d| !d.closed && (d.row.id == 0 || d.row.parent.is_some()))
        .map(|d| d.row.id)
        .collect();
    let mut out = Comparison::default();
    for d in drawn.iter().filter(|d| d.row.parent.is_some()) {
        let r = &d.row;
        match expected.get(&r.id) {
            None => out.differences.push(format!(
                "{} ({:?}): in the Inspector, not in scenetree",
                r.id, r.name
            )),
            Some(e) if *e != r => out.differences.push(format!(
                "{}: scenetree {:?} under {:?}, the Inspector {:?} under {:?}",
                r.id, e.name, e.parent, r.name, r.parent
            )),
            Some(_) => {}
        }
    }
    for e in expected.values() {
        let parent_open = e.parent.is_some_and(|p| open.contains(&p));
        if parent_open && !drawn_ids.contains(&e.id) {
            out.differences.push(format!(
                "{} ({:?}): in scenetree under {:?}, not in the Inspector",
                e.id, e.name, e.parent
            ));
        }
    }
    for d in drawn.iter().filter(|d| d.closed) {
        if with_children.contains(&d.row.id) {
            out.to_open.push(d.row.id);
        } else {
            out.differences.push(format!(
                "{}: the Inspector has children under it, scenetree none",
                d.row.id
            ));
        }
    }
    out
}
