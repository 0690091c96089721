//! The command line's side of file safety: `convert` refuses a read-only output unless
//! `--force`, and says what failed without suggesting `--lossy` when the file system refuses
//! (a full disk, a read-only file system, a folder the user may not write); `tree` opens a
//! native scene named scene.json.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;


fn scenetree(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_scenetree"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn stderr(run: &std::process::Output) -> String {
    String::from_utf8_lossy(&run.stderr).into_owned()
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
fn tree_opens_a_native_scene_named_scene_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scene.json");
    let run = scenetree(&["example", "showroom", path.to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    let run = scenetree(&["tree", path.to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(String::from_utf8_lossy(&run.stdout).starts_with("root\n"));
}
