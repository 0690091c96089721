//! What a save keeps of the file it replaces: its permission mode and owner, a symbolic link
//! (the file it names is replaced, the link stays), and a read-only file (refused without the
//! user's consent); temporaries of killed saves are cleaned up; retired entity versions are
//! named at load and never contradict a native file; a native scene named scene.json is a scene.

use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use scenetree_core::crdt::{CrdtMessage, Replica, encode_stream};
use scenetree_core::model::{Entity, Transform};
use scenetree_dcl::io::{self, PreparedFile, SaveContext, SaveErrorKind, WriteConsent, project};

fn scene() -> Replica {
    let mut r = Replica::new();
    r.put_transform(Entity(512), &Transform::IDENTITY).unwrap();
    r
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Every temporary file (`.NAME.PID.tmp`) in `dir`.
pub fn temporaries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".tmp"))
        .collect()
}

#[test]
fn a_save_keeps_the_permission_mode_of_the_file_it_replaces() {
    let dir = tempfile::tempdir().unwrap();
    for (i, wanted) in [0o600, 0o664, 0o640, 0o755, 0o604].into_iter().enumerate() {
        for name in [
            format!("s{i}.json"),
            format!("s{i}.crdt"),
            format!("s{i}.composite"),
        ] {
            let path = dir.path().join(name);
            io::save_scene(&scene(), &path).unwrap();
            chmod(&path, wanted);
            io::save_scene(&scene(), &path).unwrap();
            assert_eq!(mode(&path), wanted, "{}", path.display());
        }
    }
    assert!(temporaries(dir.path()).is_empty());
}

#[test]
fn a_new_file_gets_the_usual_mode_for_new_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.crdt");
    io::write_atomic(&path, b"x").unwrap();
    let reference = dir.path().join("reference");
    std::fs::write(&reference, b"x").unwrap();
    assert_eq!(mode(&path), mode(&reference), "0666 less the umask");
}

#[test]
fn a_save_keeps_the_owner_and_group_where_the_system_allows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("owned.crdt");
    io::write_atomic(&path, b"old").unwrap();
    // Only root may give a file away; as another user the file stays the saver's.
    if std::os::unix::fs::chown(&path, Some(4321), Some(4321)).is_err() {
        eprintln!("skipped: not allowed to change a file's owner here");
        return;
    }
    io::write_atomic(&path, b"new").unwrap();
    let meta = std::fs::metadata(&path).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (4321, 4321));
    assert_eq!(std::fs::read(&path).unwrap(), b"new");
}

#[test]
fn a_save_through_a_chain_of_links_replaces_the_file_they_name_and_keeps_the_links() {
    let dir = tempfile::tempdir().unwrap();
    let real_dir = dir.path().join("real");
    let link_dir = dir.path().join("links");
    std::fs::create_dir_all(&real_dir).unwrap();
    std::fs::create_dir_all(&link_dir).unwrap();
    let real = real_dir.join("scene.crdt");
    io::save_scene(&Replica::new(), &real).unwrap();
    chmod(&real, 0o640);
    // links/first.crdt → second.crdt (relative) → ../real/scene.crdt (relative)
    let up = Path::new(std::path::Component::ParentDir.as_os_str());
    symlink(up.join("real/scene.crdt"), link_dir.join("second.crdt")).unwrap();
    symlink("second.crdt", link_dir.join("first.crdt")).unwrap();
    let first = link_dir.join("first.crdt");
    io::save_scene_with(&scene(), &SaveContext::default(), &first, false).unwrap();
    for link in ["first.crdt", "second.crdt"] {
        let meta = std::fs::symlink_metadata(link_dir.join(link)).unwrap();
        assert!(meta.file_type().is_symlink(), "{link} is still a link");
    }
    assert_eq!(io::load_scene(&real).unwrap().digest(), scene().digest());
    assert_eq!(mode(&real), 0o640);
    assert!(temporaries(&real_dir).is_empty() && temporaries(&link_dir).is_empty());
}

#[test]
fn a_save_to_a_dangling_link_creates_the_file_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("link.json");
    symlink("target.json", &link).unwrap();
    io::save_scene(&scene(), &link).unwrap();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(dir.path().join("target.json").is_file());
}

#[test]
fn a_read_only_file_is_refused_and_kept_unless_the_user_consents() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("locked.crdt");
    std::fs::write(&path, b"old").unwrap();
    chmod(&path, 0o444);
    let refused = io::save_scene_with(&scene(), &SaveContext::default(), &path, false).unwrap_err();
    assert_eq!(refused.kind, SaveErrorKind::ReadOnly, "{refused}");
    assert!(refused.to_string().contains("read-only"), "{refused}");
    assert_eq!(std::fs::read(&path).unwrap(), b"old");
    assert!(io::is_read_only(&path));
    let error = io::write_atomic(&path, b"new").unwrap_err();
    assert!(error.is_read_only(), "{error}");
    let error = PreparedFile::write(&path, b"new").unwrap_err();
    assert!(error.is_read_only(), "{error}");
    assert_eq!(std::fs::read(&path).unwrap(), b"old");
    assert!(temporaries(dir.path()).is_empty());

    let consent = WriteConsent {
        overwrite_read_only: true,
    };
    io::save_scene_consenting(&scene(), &SaveContext::default(), &path, false, consent).unwrap();
    assert_eq!(io::load_scene(&path).unwrap().digest(), scene().digest());
    assert_eq!(mode(&path), 0o444, "still read-only");
    assert!(temporaries(dir.path()).is_empty());
}

#[test]
fn a_read_only_link_target_is_refused_too() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.json");
    std::fs::write(&real, b"old").unwrap();
    chmod(&real, 0o444);
    let link = dir.path().join("link.json");
    symlink("real.json", &link).unwrap();
    let refused = io::save_scene(&scene(), &link).unwrap_err();
    assert_eq!(refused.kind, SaveErrorKind::ReadOnly);
    assert_eq!(std::fs::read(&real).unwrap(), b"old");
}

#[test]
fn a_project_save_with_one_read_only_file_replaces_none_until_the_user_consents() {
    let (_dir, root) = crate::project_fixtures::gallery_copy();
    let target = project::resolve_open(&root).unwrap();
    let project = target.project().unwrap().clone();
    let opened = project::open_project_scene(&project, target.scene_path()).unwrap();
    let files = project::encode_project(&opened.replica, &opened.context, &project);
    let composite_before = std::fs::read(project.composite_path()).unwrap();
    chmod(&project.composite_path(), 0o640);
    chmod(&project.crdt_path(), 0o444);
    let failure = project::write_project(&files).unwrap_err();
    assert_eq!(failure.error.kind, SaveErrorKind::ReadOnly);
    assert_eq!(failure.error.path, project.crdt_path());
    assert!(failure.written.is_empty());
    assert_eq!(
        std::fs::read(project.composite_path()).unwrap(),
        composite_before
    );
    let consent = WriteConsent {
        overwrite_read_only: true,
    };
    project::write_project_consenting(&files, consent).unwrap();
    assert_eq!(mode(&project.composite_path()), 0o640);
    assert_eq!(mode(&project.crdt_path()), 0o444);
    assert!(temporaries(&root).is_empty());
}

/// The id of a process that has ended.
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

#[test]
fn a_save_removes_the_temporaries_of_killed_saves_but_never_a_running_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut running = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let stale = dir.path().join(format!(".other.crdt.{}.tmp", dead_pid()));
    let stale_same = dir.path().join(format!(".scene.json.{}.tmp", dead_pid()));
    let live = dir.path().join(format!(".other.crdt.{}.tmp", running.id()));
    let folder = dir.path().join(format!(".folder.{}.tmp", dead_pid()));
    let unrelated = dir.path().join("notes.tmp");
    for file in [&stale, &stale_same, &live, &unrelated] {
        std::fs::write(file, vec![7; 4096]).unwrap();
    }
    std::fs::create_dir(&folder).unwrap();
    io::save_scene(&scene(), &dir.path().join("scene.json")).unwrap();
    let left = temporaries(dir.path());
    running.kill().ok();
    running.wait().ok();
    assert!(!stale.exists() && !stale_same.exists(), "{left:?}");
    assert!(live.exists(), "a running save's temporary stays");
    assert!(
        folder.is_dir() && unrelated.exists(),
        "only files of the pattern go"
    );
}

/// A main.crdt PUT_COMPONENT of a Transform (44 bytes), as the issue's generator writes it.
fn transform_put(entity: u32, parent: u32) -> CrdtMessage {
    let t = Transform {
        parent: Entity(parent),
        ..Transform::IDENTITY
    };
    CrdtMessage::put_transform(Entity(entity), 1, &t)
}

#[test]
fn retired_entity_versions_are_named_at_load_and_a_native_file_never_contradicts_itself() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("versions.crdt");
    // 512 version 0, then 512 version 1 (id 512 | 1 << 16 = 66048), and 513 alone.
    let messages = [
        transform_put(512, 0),
        transform_put(66048, 0),
        transform_put(513, 0),
    ];
    std::fs::write(&input, encode_stream(&messages)).unwrap();
    let opened = io::open_scene(&input).unwrap();
    let retired: Vec<&String> = (opened.notes.iter())
        .filter(|n| n.contains("retired"))
        .collect();
    assert_eq!(retired.len(), 1, "{:?}", opened.notes);
    assert!(
        retired[0].contains("entity 512 (id 512)") && retired[0].contains("512v1 (id 66048)"),
        "{}",
        retired[0]
    );

    let out = dir.path().join("versions.json");
    io::save_scene_with(&opened.replica, &opened.context, &out, false).unwrap();
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let listed: Vec<u64> = (json["entities"].as_array().unwrap().iter())
        .map(|e| e["entity"].as_u64().unwrap())
        .collect();
    let deleted: Vec<u64> = (json["deleted_entities"].as_array().unwrap().iter())
        .map(|e| e.as_u64().unwrap())
        .collect();
    assert!(
        listed.iter().all(|e| !deleted.contains(e)),
        "listed {listed:?}, deleted {deleted:?}"
    );
    assert_eq!(listed, [513, 66048]);
    assert_eq!(deleted, [512]);
    // Read back, the scene is what the runtime keeps, and nothing is retired any more.
    let back = io::open_scene(&out).unwrap();
    assert_eq!(back.replica.digest(), opened.replica.digest());
    assert!(!back.notes.iter().any(|n| n.contains("retired")));
}

/// The entities holding components that no newer version of their number retired.
fn kept_entities(replica: &Replica) -> Vec<u32> {
    let mut kept: Vec<u32> = (replica.live_entities())
        .filter(|&e| !replica.is_deleted(e))
        .map(|e| e.0)
        .collect();
    kept.sort_unstable();
    kept
}

#[test]
fn retired_entity_versions_are_left_out_of_every_format_alike() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("versions.crdt");
    // 512 and 514 retired by their version 1 (66048, 66050); 513 alone; 66050 under 66048.
    let messages = [
        transform_put(512, 0),
        transform_put(513, 512),
        transform_put(514, 513),
        transform_put(66048, 0),
        transform_put(66050, 66048),
    ];
    std::fs::write(&input, encode_stream(&messages)).unwrap();
    let opened = io::open_scene(&input).unwrap();
    assert_eq!(kept_entities(&opened.replica), [513, 66048, 66050]);
    for name in ["out.json", "out.crdt", "out.composite"] {
        let out = dir.path().join(name);
        io::save_scene_with(&opened.replica, &opened.context, &out, false).unwrap();
        let back = io::open_scene(&out).unwrap();
        let listed: Vec<u32> = {
            let mut all: Vec<u32> = back.replica.live_entities().map(|e| e.0).collect();
            all.sort_unstable();
            all
        };
        assert_eq!(
            listed,
            [513, 66048, 66050],
            "{name} holds what the runtime keeps"
        );
        assert!(!back.notes.iter().any(|n| n.contains("retired")), "{name}");
    }
}

#[test]
fn a_native_scene_named_scene_json_opens_as_a_scene_not_as_a_project() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scene.json");
    io::save_scene(&scene(), &path).unwrap();
    match project::resolve_open(&path) {
        Ok(project::OpenTarget::File { path: p, project }) => {
            assert_eq!(p, path);
            assert_eq!(project, None);
        }
        other => panic!("{other:?}"),
    }
    // Its folder is no project either: there is nothing to open as one.
    let folder = project::resolve_open(dir.path()).unwrap_err();
    assert!(
        folder.message.contains("not a Decentraland project"),
        "{folder}"
    );
    assert!(!project::is_project_manifest(&path));
    assert_eq!(project::Project::find_root(&path), None);
    // A Decentraland scene.json beside it is a project again, decided by content.
    std::fs::write(
        &path,
        br#"{"main": "bin/index.js", "scene": {"parcels": ["0,0"], "base": "0,0"}}"#,
    )
    .unwrap();
    assert!(project::is_project_manifest(&path));
    assert_eq!(
        project::Project::find_root(&path).as_deref(),
        Some(dir.path())
    );
}
