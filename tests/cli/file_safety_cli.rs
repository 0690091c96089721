//! The command line's side of file safety and of large scenes: `convert` refuses a read-only
//! output unless `--force`, says what failed without suggesting `--lossy` when the file system
//! refuses (a full disk, a read-only file system, a folder the user may not write), `tree`
//! prints a cycle once and grows linearly with the scene, names what is wrong with a Transform
//! and opens a native scene named scene.json.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use scenetree_core::crdt::{CrdtMessage, encode_stream};
use scenetree_core::model::{Entity, Transform};

fn scenetree(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_scenetree"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn stderr(run: &std::process::Output) -> String {
    String::from_utf8_lossy(&run.stderr).into_owned()
}

fn transform(entity: u32, t: Transform) -> CrdtMessage {
    CrdtMessage::put_transform(Entity(entity), 1, &t)
}

fn under(entity: u32, parent: u32) -> CrdtMessage {
    let t = Transform {
        parent: Entity(parent),
        ..Transform::IDENTITY
    };
    transform(entity, t)
}

/// A main.crdt of one parenting cycle through `n` entities (512 → 513 → … → 512).
fn cycle_file(dir: &Path, n: u32) -> String {
    let messages: Vec<CrdtMessage> = (0..n).map(|i| under(512 + i, 512 + (i + 1) % n)).collect();
    let path = dir.join(format!("cycle{n}.crdt"));
    std::fs::write(&path, encode_stream(&messages)).unwrap();
    path.to_string_lossy().into_owned()
}

/// A main.crdt of a chain `n` entities deep (512 at the root, each next one under the last).
fn chain_file(dir: &Path, n: u32) -> String {
    let messages: Vec<CrdtMessage> = (0..n)
        .map(|i| under(512 + i, if i == 0 { 0 } else { 511 + i }))
        .collect();
    let path = dir.join(format!("chain{n}.crdt"));
    std::fs::write(&path, encode_stream(&messages)).unwrap();
    path.to_string_lossy().into_owned()
}

fn showroom(dir: &Path) -> String {
    let path = dir.join("showroom.json");
    let run = scenetree(&["example", "showroom", path.to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    path.to_string_lossy().into_owned()
}

#[test]
fn convert_refuses_a_read_only_output_unless_forced_and_keeps_its_mode() {
    let dir = tempfile::tempdir().unwrap();
    let input = showroom(dir.path());
    let out = dir.path().join("out.crdt");
    std::fs::write(&out, b"old").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o444)).unwrap();
    let run = scenetree(&["convert", &input, out.to_str().unwrap()]);
    assert!(!run.status.success());
    let message = stderr(&run);
    assert!(message.contains("read-only"), "{message}");
    assert!(
        message.contains("--force") && !message.contains("--lossy"),
        "{message}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"old");

    let run = scenetree(&["convert", "--force", &input, out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert_ne!(std::fs::read(&out).unwrap(), b"old");
    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o444);
}

/// Checks a `convert` the file system refused: the message says what failed and that the old
/// file is intact, and never suggests `--lossy`, which could not help.
fn assert_io_refusal(message: &str, os_error: &str) {
    assert!(message.contains(os_error), "{message}");
    assert!(message.contains("the old file is intact"), "{message}");
    assert!(!message.contains("--lossy"), "{message}");
}

#[test]
fn a_failed_write_says_what_failed_and_never_suggests_lossy() {
    let dir = tempfile::tempdir().unwrap();
    let input = showroom(dir.path());
    // A folder with something in it where the file should go: the rename fails.
    let out = dir.path().join("out.crdt");
    std::fs::create_dir_all(out.join("in-the-way")).unwrap();
    let run = scenetree(&["convert", &input, out.to_str().unwrap()]);
    assert!(!run.status.success());
    assert_io_refusal(&stderr(&run), "os error");
    assert!(out.join("in-the-way").is_dir());
}

/// Runs `script` as root in a mount namespace of its own (so it may mount a small or
/// read-only file system), with `$BIN` the scenetree binary; `None` where that is not allowed.
fn in_own_mounts(script: &str) -> Option<String> {
    let run = Command::new("unshare")
        .args(["-m", "sh", "-c", script])
        .env("BIN", env!("CARGO_BIN_EXE_scenetree"))
        .output()
        .ok()?;
    let out = String::from_utf8_lossy(&run.stdout).into_owned() + &stderr(&run);
    if out.contains("SETUP-FAILED") || !out.contains("SETUP-DONE") {
        eprintln!("skipped: cannot mount a file system here ({out})");
        return None;
    }
    Some(out)
}

#[test]
fn a_full_disk_and_a_read_only_file_system_are_named_and_leave_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = showroom(dir.path());
    let mount = dir.path().join("mnt");
    std::fs::create_dir(&mount).unwrap();
    let (m, i) = (mount.display(), input);
    let full = format!(
        "mount -t tmpfs -o size=64k tmpfs {m} || echo SETUP-FAILED; echo old > {m}/out.crdt; \
         dd if=/dev/zero of={m}/fill bs=1k 2>/dev/null; echo SETUP-DONE; \
         \"$BIN\" convert {i} {m}/out.crdt; echo \"exit $?\"; cat {m}/out.crdt; ls -a {m}"
    );
    if let Some(out) = in_own_mounts(&full) {
        assert_io_refusal(&out, "os error 28");
        assert!(out.contains("exit 1") && out.contains("\nold\n"), "{out}");
        let listed_temporary = out.lines().any(|l| l.ends_with(".tmp"));
        assert!(!listed_temporary, "no temporary left: {out}");
    }
    let read_only = format!(
        "mount -t tmpfs tmpfs {m} || echo SETUP-FAILED; echo old > {m}/out.crdt; \
         mount -o remount,ro {m} || echo SETUP-FAILED; echo SETUP-DONE; \
         \"$BIN\" convert {i} {m}/out.crdt; echo \"exit $?\"; cat {m}/out.crdt"
    );
    if let Some(out) = in_own_mounts(&read_only) {
        assert_io_refusal(&out, "os error 30");
        assert!(out.contains("exit 1") && out.contains("\nold\n"), "{out}");
    }
}

#[test]
fn a_folder_the_user_may_not_write_is_named_and_never_suggests_lossy() {
    let dir = tempfile::tempdir().unwrap();
    let input = showroom(dir.path());
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    let out = locked.join("out.crdt");
    std::fs::write(&out, b"old").unwrap();
    for (path, mode) in [(dir.path(), 0o755), (&locked, 0o755), (&out, 0o666)] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    std::fs::set_permissions(&input, std::fs::Permissions::from_mode(0o644)).unwrap();
    // As another user (root may write any folder): nobody may write the file, not the folder.
    let run = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_scenetree"))
        .args(["convert", &input, out.to_str().unwrap()])
        .output();
    let Some(run) = run.ok().filter(|r| !stderr(r).contains("setpriv:")) else {
        eprintln!("skipped: cannot run as another user here");
        return;
    };
    assert!(!run.status.success());
    assert_io_refusal(&stderr(&run), "os error 13");
    assert_eq!(std::fs::read(&out).unwrap(), b"old");
}

#[test]
fn tree_prints_a_cycle_once_and_both_outputs_grow_linearly_with_the_scene() {
    let dir = tempfile::tempdir().unwrap();
    let mut sizes = Vec::new();
    for n in [4_000, 8_000] {
        for file in [cycle_file(dir.path(), n), chain_file(dir.path(), n)] {
            let text = scenetree(&["tree", &file]);
            let json = scenetree(&["tree", "--json", &file]);
            assert!(text.status.success() && json.status.success());
            sizes.push((file, n, text.stdout.len(), json.stdout.len()));
        }
    }
    for (small, large) in [(0, 2), (1, 3)] {
        let (file, _, text_small, json_small) = &sizes[small];
        let (_, _, text_large, json_large) = &sizes[large];
        let text_ratio = *text_large as f64 / *text_small as f64;
        let json_ratio = *json_large as f64 / *json_small as f64;
        assert!(
            text_ratio < 2.5,
            "{file}: text grew {text_ratio:.2}× for 2× the entities"
        );
        assert!(
            json_ratio < 2.5,
            "{file}: JSON grew {json_ratio:.2}× for 2× the entities"
        );
    }
    // The cycle is listed once, its rows name it.
    let file = cycle_file(dir.path(), 3);
    let text = String::from_utf8(scenetree(&["tree", &file]).stdout).unwrap();
    assert!(
        text.contains("512  [re-rooted: cycle 1; declared parent 513]"),
        "{text}"
    );
    assert!(
        text.contains("cycle 1: 3 entities, 512 → 513 → 514 → 512"),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&scenetree(&["tree", "--json", &file]).stdout).unwrap();
    assert_eq!(
        json["cycles"],
        serde_json::json!([{"cycle": 1, "members": [512, 513, 514]}])
    );
    let rows = json["entities"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert!(
        rows.iter()
            .all(|r| r["cycle"] == 1 && r["reason"] == "cycle")
    );
}

#[test]
fn tree_and_the_load_notes_name_the_same_transform_problems_once_each() {
    let dir = tempfile::tempdir().unwrap();
    let with_rotation = |x: f32, y: f32, z: f32, w: f32| Transform {
        rotation: glam::Quat::from_xyzw(x, y, z, w),
        ..Transform::IDENTITY
    };
    let nan = Transform {
        position: glam::Vec3::new(f32::NAN, 0.0, 0.0),
        ..Transform::IDENTITY
    };
    let messages = [
        transform(512, with_rotation(f32::MAX, 0.0, 0.0, 1.0)),
        transform(513, with_rotation(1e30, 1e30, 1e30, 1e30)),
        transform(514, nan),
        transform(515, Transform::IDENTITY),
        under(516, 512), // below a bad one: not drawn, but not tagged itself
    ];
    let file = dir.path().join("bad.crdt");
    std::fs::write(&file, encode_stream(&messages)).unwrap();
    let file = file.to_string_lossy().into_owned();
    let text = String::from_utf8(scenetree(&["tree", &file]).stdout).unwrap();
    let tagged: Vec<&str> = text.lines().filter(|l| l.contains("not drawn]")).collect();
    assert_eq!(tagged.len(), 3, "{text}");
    assert!(
        tagged[0].contains("512  [rotation not normalizable:"),
        "{text}"
    );
    assert!(!tagged[0].contains("not finite"), "{text}");
    assert!(
        tagged[2].contains("514  [not finite: its Transform holds position x (NaN), which"),
        "{text}"
    );
    let opened = scenetree_dcl::io::open_scene(Path::new(&file)).unwrap();
    let noted = (opened.notes.iter())
        .filter(|n| n.contains("cannot be drawn"))
        .count();
    assert_eq!(noted, tagged.len(), "{:?}", opened.notes);
    let json: serde_json::Value =
        serde_json::from_slice(&scenetree(&["tree", "--json", &file]).stdout).unwrap();
    let rows = json["entities"].as_array().unwrap();
    let problems = rows
        .iter()
        .filter(|r| !r["transform_problem"].is_null())
        .count();
    let not_finite = rows.iter().filter(|r| r["not_finite"] == true).count();
    assert_eq!((problems, not_finite), (3, 1));
}

#[test]
fn tree_opens_a_native_scene_named_scene_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scene.json");
    let run = scenetree(&["example", "showroom", path.to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    let run = scenetree(&["tree", path.to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(String::from_utf8_lossy(&run.stdout).starts_with("root\n"));
}

#[test]
fn tree_and_convert_refuse_a_transform_shorter_than_44_bytes_naming_its_offset() {
    let dir = tempfile::tempdir().unwrap();
    for length in [0, 12, 43] {
        let short = CrdtMessage::PutComponent {
            entity: Entity(513),
            component: Transform::COMPONENT_ID,
            timestamp: 1,
            data: vec![0; length],
        };
        let first = under(512, 0);
        let messages = [first.clone(), short, under(514, 0)];
        let input = dir.path().join(format!("short{length}.crdt"));
        std::fs::write(&input, encode_stream(&messages)).unwrap();
        let input = input.to_str().unwrap();
        let out = dir.path().join(format!("out{length}.crdt"));
        let place = format!("at byte {}", first.encoded_len());
        for run in [
            scenetree(&["tree", input]),
            scenetree(&["convert", input, out.to_str().unwrap()]),
        ] {
            assert_eq!(run.status.code(), Some(1), "{length}: {}", stderr(&run));
            let message = stderr(&run);
            assert!(
                message.contains(&place) && message.contains("entity 513 holds"),
                "{message}"
            );
            assert!(run.stdout.is_empty(), "nothing printed of a refused scene");
        }
        assert!(!out.exists(), "nothing written");
    }
}

#[test]
fn a_failed_save_of_a_new_file_says_no_file_was_made_not_that_an_old_one_is_intact() {
    let dir = tempfile::tempdir().unwrap();
    let input = showroom(dir.path());
    let out = dir.path().join("no-such-folder/out.crdt");
    let run = scenetree(&["convert", &input, out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(1));
    let message = stderr(&run);
    assert!(message.contains("no file was created"), "{message}");
    assert!(!message.contains("old file"), "{message}");
    assert!(!message.contains("  "), "no runs of spaces: {message:?}");
}
