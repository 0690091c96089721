//! Decentraland projects: finding the root from any path inside, the title from scene.json,
//! asset paths, and saving main.composite with the matching main.crdt.

use std::path::{Path, PathBuf};

use crate::project_fixtures::{gallery, gallery_copy};

use scenetree_core::crdt::{CrdtMessage, decode_stream};
use scenetree_core::model::{Entity, Transform, encode_name, ids};
use scenetree_dcl::io::project::{
    self, AssetPathError, OpenTarget, Project, encode_project, open_project_scene, resolve_open,
    write_project,
};
use scenetree_dcl::io::{self, SceneFormat};

fn expect_project(target: OpenTarget) -> (Project, PathBuf) {
    match target {
        OpenTarget::Project { project, scene } => (project, scene),
        other => panic!("expected a project, got {other:?}"),
    }
}

#[test]
fn a_folder_or_any_file_inside_opens_the_project_and_its_composite() {
    let root = gallery();
    for path in [
        root.clone(),
        root.join("assets/scene"),
        root.join("assets/scene/Models/shelf/shelf.glb"),
        root.join("scene.json"),
        root.join("assets/scene/main.composite"),
    ] {
        let (project, scene) = expect_project(resolve_open(&path).unwrap());
        assert_eq!(
            project.title.as_deref(),
            Some("Art Gallery Template"),
            "{path:?}"
        );
        assert!(project.notes.is_empty(), "{:?}", project.notes);
        assert!(scene.ends_with("assets/scene/main.composite"), "{scene:?}");
        assert_eq!(
            project.root.canonicalize().unwrap(),
            root.canonicalize().unwrap()
        );
    }
}

#[test]
fn another_scene_file_inside_a_project_opens_alone_but_knows_its_project() {
    // main.crdt is not the scene the project opens (main.composite is), so it opens as itself.
    match resolve_open(&gallery().join("main.crdt")).unwrap() {
        OpenTarget::File { path, project } => {
            assert!(path.ends_with("main.crdt"));
            assert_eq!(
                project.and_then(|p| p.title).as_deref(),
                Some("Art Gallery Template")
            );
        }
        other => panic!("{other:?}"),
    }
    // A scene file outside any project has none.
    let loose = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/dcl/art-gallery-template/main.composite");
    assert_eq!(
        resolve_open(&loose).unwrap(),
        OpenTarget::File {
            path: loose,
            project: None
        }
    );
}

#[test]
fn a_project_with_only_main_crdt_opens_that() {
    let (_dir, root) = gallery_copy();
    std::fs::remove_file(root.join(project::COMPOSITE_PATH)).unwrap();
    let (project, scene) = expect_project(resolve_open(&root).unwrap());
    assert!(scene.ends_with("main.crdt"));
    // Saved, it stays a main.crdt project: no composite, and no Inspector enum of names.
    let opened = open_project_scene(&project, &scene).unwrap();
    let files = encode_project(&opened.replica, &opened.context, &project);
    assert_eq!(files.names(), "main.crdt");
    std::fs::remove_file(root.join(project::CRDT_PATH)).unwrap();
    let err = resolve_open(&root).unwrap_err().to_string();
    assert!(err.contains("has no scene"), "{err}");
}

#[test]
fn folders_and_files_outside_any_project_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let err = resolve_open(dir.path()).unwrap_err().to_string();
    assert!(err.contains("no scene.json"), "{err}");
    let model = dir.path().join("thing.glb");
    std::fs::write(&model, b"glTF").unwrap();
    let err = resolve_open(&model).unwrap_err().to_string();
    assert!(err.contains("not a scene file"), "{err}");
    let err = resolve_open(&dir.path().join("nope"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("cannot read"), "{err}");
    let err = resolve_open(&dir.path().join("nope.txt"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown file type"), "{err}");
}

#[test]
fn a_broken_scene_json_opens_the_project_without_a_title_and_says_why() {
    let (_dir, root) = gallery_copy();
    std::fs::write(
        root.join("scene.json"),
        b"{\n  \"display\": {\"title\": \"Gall",
    )
    .unwrap();
    let (project, scene) = expect_project(resolve_open(&root).unwrap());
    assert_eq!(project.title, None);
    assert_eq!(
        project.display_name(),
        "gallery",
        "the folder's name stands in"
    );
    let note = project.notes.join("\n");
    assert!(
        note.contains("scene.json") && note.contains("line 2"),
        "{note}"
    );
    // The scene itself still opens, and the note travels with it.
    let opened = open_project_scene(&project, &scene).unwrap();
    assert!(opened.notes.iter().any(|n| n.contains("scene.json")));
    assert!(
        opened
            .replica
            .component_data(Entity(523), ids::GLTF_CONTAINER)
            .is_some()
    );

    std::fs::write(root.join("scene.json"), b"[1, 2]").unwrap();
    let project = Project::at_root(&root);
    assert!(
        project.notes[0].contains("not a JSON object"),
        "{:?}",
        project.notes
    );
    std::fs::write(root.join("scene.json"), br#"{"display": {"title": "  "}}"#).unwrap();
    assert_eq!(
        Project::at_root(&root).title,
        None,
        "a blank title is no title"
    );
}

#[test]
fn asset_paths_resolve_inside_the_project_only() {
    let project = Project::containing(&gallery()).unwrap();
    let shelf = project
        .resolve_asset("assets/scene/Models/shelf/shelf.glb")
        .unwrap();
    assert!(shelf.is_file());
    // Backslashes and a different letter case, as scenes made on Windows write them.
    let same = project
        .resolve_asset("Assets\\Scene\\models\\SHELF\\shelf.GLB")
        .unwrap();
    assert_eq!(same.canonicalize().unwrap(), shelf.canonicalize().unwrap());
    assert!(matches!(
        project.resolve_asset("assets/scene/Models/art_gallery/art_gallery.glb"),
        Err(AssetPathError::Missing { .. })
    ));
    assert_eq!(
        project.resolve_asset("https://example.com/a.png"),
        Err(AssetPathError::Remote("https://example.com/a.png".into()))
    );
    let up = std::path::Component::ParentDir
        .as_os_str()
        .to_str()
        .unwrap();
    for outside in [
        format!("{up}/secret.glb"),
        "/etc/passwd".to_string(),
        format!("assets/{up}/{up}/x.glb"),
    ] {
        assert_eq!(
            project.resolve_asset(&outside),
            Err(AssetPathError::OutsideProject(outside.clone())),
            "{outside}"
        );
    }
    assert_eq!(project.resolve_asset("  "), Err(AssetPathError::Empty));
    let err = project.resolve_asset("assets/nope.glb").unwrap_err();
    assert!(err.to_string().contains("nope.glb"), "{err}");
}

#[test]
fn a_file_of_the_project_is_named_by_its_path_in_the_project() {
    let project = Project::containing(&gallery()).unwrap();
    let src = "assets/scene/Models/shelf/shelf.glb";
    let shelf = project.resolve_asset(src).unwrap();
    assert_eq!(project.asset_src(&shelf).as_deref(), Ok(src));
    // Spelled through `..`, it is still the same file.
    let roundabout = gallery().join("assets/scene/../scene/Models/shelf/shelf.glb");
    assert_eq!(project.asset_src(&roundabout).as_deref(), Ok(src));
    let elsewhere = tempfile::NamedTempFile::new().unwrap();
    assert!(matches!(
        project.asset_src(elsewhere.path()),
        Err(AssetPathError::OutsideProject(_))
    ));
    assert!(matches!(
        project.asset_src(&gallery().join("assets/none.glb")),
        Err(AssetPathError::Missing { .. })
    ));
    assert!(
        project.asset_src(&gallery()).is_err(),
        "the folder itself is no file of it"
    );
}

#[test]
fn a_projects_model_files_are_listed_by_path_without_dependencies_or_hidden_folders() {
    let (_dir, root) = gallery_copy();
    for skipped in ["node_modules/pkg", ".git/objects", "bin"] {
        std::fs::create_dir_all(root.join(skipped)).unwrap();
        std::fs::write(root.join(skipped).join("x.glb"), b"glTF").unwrap();
    }
    let project = Project::containing(&root).unwrap();
    let models = project.model_files(1000);
    assert!(models.contains(&"assets/scene/Models/shelf/shelf.glb".to_string()));
    assert!(
        models.iter().all(|m| m.starts_with("assets/")),
        "{models:?}"
    );
    assert!(models.windows(2).all(|w| w[0] < w[1]), "sorted");
    for src in &models {
        assert!(project.resolve_asset(src).is_ok(), "{src} names its file");
    }
    assert_eq!(project.model_files(2).len(), 2, "at most the limit");
}

#[test]
fn saving_a_project_writes_the_composite_and_the_matching_main_crdt() {
    let (_dir, root) = gallery_copy();
    let (project, scene) = expect_project(resolve_open(&root).unwrap());
    let composite_before = std::fs::read(project.composite_path()).unwrap();
    let mut opened = open_project_scene(&project, &scene).unwrap();
    assert_eq!(opened.format, SceneFormat::DclComposite);
    assert!(
        opened.context.crdt_layout.is_some(),
        "main.crdt lends its message order"
    );

    // Unedited: the composite comes back byte for byte. The gallery's entity-names.ts still
    // lists a name of the past (see dcl_files.rs), so it is written fresh, once.
    let files = encode_project(&opened.replica, &opened.context, &project);
    assert_eq!(
        files.names(),
        "main.composite, main.crdt and entity-names.ts"
    );
    assert_eq!(files.files[0].1.bytes, composite_before);
    for lost in files.lost() {
        assert!(lost.starts_with("main.crdt: "), "{lost}");
    }
    write_project(&files).unwrap();
    let files = encode_project(&opened.replica, &opened.context, &project);
    assert_eq!(
        files.names(),
        "main.composite and main.crdt",
        "names unchanged"
    );

    // Renamed: the Inspector's enum of names follows.
    opened
        .replica
        .put(Entity(521), ids::NAME, encode_name("Book shelf"))
        .unwrap();
    let files = encode_project(&opened.replica, &opened.context, &project);
    let (path, names) = files.files.last().unwrap();
    assert_eq!(path, &project.entity_names_path());
    let names = String::from_utf8(names.bytes.clone()).unwrap();
    assert!(
        names.contains("  Book_shelf = \"Book shelf\",\n"),
        "{names}"
    );
    assert!(!names.contains("shelf.glb"), "{names}");

    // Edited: both files carry the new position and read back alike.
    let shelf = Entity(521);
    let mut moved = Transform::from_bytes(
        opened
            .replica
            .component_data(shelf, ids::TRANSFORM)
            .unwrap(),
    )
    .unwrap();
    moved.position.x += 2.5;
    opened
        .replica
        .put(shelf, ids::TRANSFORM, moved.to_bytes().to_vec())
        .unwrap();
    // Deleted: the entity leaves both files.
    let bench = Entity(532);
    opened.replica.delete_entity(bench).unwrap();
    let files = encode_project(&opened.replica, &opened.context, &project);
    write_project(&files).unwrap();
    // main.crdt is what the SDK's build writes for the composite: a PUT per value at timestamp
    // 0, with no tombstones or deletions, whatever timestamps the edits carried.
    let messages = decode_stream(&std::fs::read(project.crdt_path()).unwrap())
        .unwrap()
        .messages;
    assert!(messages.len() > 100);
    for m in &messages {
        assert!(
            matches!(m, CrdtMessage::PutComponent { timestamp: 0, .. }),
            "{m:?}"
        );
        assert_ne!(m.entity(), bench);
    }
    assert!(
        opened.replica.timestamp(shelf, ids::TRANSFORM) > 0,
        "the edit itself did carry a timestamp"
    );
    for path in [project.composite_path(), project.crdt_path()] {
        let replica = io::load_scene(&path).unwrap();
        let read = Transform::from_bytes(replica.component_data(shelf, ids::TRANSFORM).unwrap());
        assert_eq!(read.unwrap().position, moved.position, "{path:?}");
    }
    // No temporary files are left beside them.
    let scene_dir: Vec<_> = std::fs::read_dir(root.join("assets/scene"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(scene_dir.is_empty(), "{scene_dir:?}");
}

#[test]
fn a_main_crdt_that_does_not_parse_is_a_note_not_a_failure() {
    let (_dir, root) = gallery_copy();
    std::fs::write(root.join("main.crdt"), [1, 2, 3]).unwrap();
    let (project, scene) = expect_project(resolve_open(&root).unwrap());
    let opened = open_project_scene(&project, &scene).unwrap();
    assert!(opened.context.crdt_layout.is_none());
    let note = opened.notes.join("\n");
    assert!(
        note.contains("main.crdt") && note.contains("canonical order"),
        "{note}"
    );
}

/// The gallery, copied, opened and edited (the shelf renamed), encoded for a save: the files
/// on disk and the bytes a save would write.
fn edited_gallery_save() -> (tempfile::TempDir, Project, project::ProjectFiles) {
    let (dir, root) = gallery_copy();
    let (project, scene) = expect_project(resolve_open(&root).unwrap());
    let mut opened = open_project_scene(&project, &scene).unwrap();
    opened
        .replica
        .put(Entity(521), ids::NAME, encode_name("Book shelf"))
        .unwrap();
    let files = encode_project(&opened.replica, &opened.context, &project);
    assert_eq!(
        files.names(),
        "main.composite, main.crdt and entity-names.ts"
    );
    (dir, project, files)
}

/// Every file of the project folder (but `.git`), with its bytes.
fn project_contents(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push((path.clone(), std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_project_save_that_cannot_write_one_file_replaces_none() {
    let (_dir, project, files) = edited_gallery_save();
    let before = project_contents(&project.root);
    // main.crdt's temporary cannot be created (a folder stands where it would go), as when
    // the project folder refuses writes or the disk is full: the composite is ready by then.
    let blocker = project
        .root
        .join(format!(".main.crdt.{}.tmp", std::process::id()));
    std::fs::create_dir(&blocker).unwrap();
    let failure = write_project(&files).unwrap_err();
    std::fs::remove_dir(&blocker).unwrap();
    assert_eq!(failure.error.path, project.crdt_path());
    assert!(failure.written.is_empty(), "{failure:?}");
    assert_eq!(failure.not_written.len(), 3);
    assert!(
        project_contents(&project.root) == before,
        "every file as it was, and no temporary left behind"
    );
}

#[test]
fn a_project_save_stopped_by_a_failed_rename_names_the_files_it_replaced() {
    let (_dir, project, files) = edited_gallery_save();
    let crdt_before = std::fs::read(project.crdt_path()).unwrap();
    let names_before = std::fs::read(project.entity_names_path()).unwrap();
    // A folder (with something in it) where main.crdt should be: its new contents are
    // written beside it, but cannot be renamed over it.
    std::fs::remove_file(project.crdt_path()).unwrap();
    std::fs::create_dir_all(project.crdt_path().join("in-the-way")).unwrap();
    let failure = write_project(&files).unwrap_err();
    assert_eq!(failure.written, [project.composite_path()]);
    assert_eq!(
        failure.not_written,
        [project.crdt_path(), project.entity_names_path()]
    );
    assert_eq!(
        std::fs::read(project.composite_path()).unwrap(),
        files.files[0].1.bytes,
        "the composite was replaced before the rename failed"
    );
    assert_eq!(
        std::fs::read(project.entity_names_path()).unwrap(),
        names_before
    );
    std::fs::remove_dir_all(project.crdt_path()).unwrap();
    std::fs::write(project.crdt_path(), &crdt_before).unwrap();
    let temporaries = project_contents(&project.root)
        .into_iter()
        .filter(|(p, _)| p.to_string_lossy().ends_with(".tmp"))
        .count();
    assert_eq!(temporaries, 0);
}

#[test]
fn a_project_save_writes_main_crdt_exactly_as_convert_writes_the_saved_composite() {
    // Ctrl+D in a project, then Ctrl+S: the new entity takes the smallest free number, in a
    // gap of the numbering, and main.crdt must list it where the SDK's build (and `scenetree
    // convert` of the saved main.composite) lists it: sorted, not after the last entity.
    let (_dir, root) = gallery_copy();
    let (project, scene) = expect_project(resolve_open(&root).unwrap());
    let mut opened = open_project_scene(&project, &scene).unwrap();
    let fresh = opened.replica.free_entities(1, |_| false)[0];
    let last = opened.replica.live_entities().max().unwrap();
    assert!(
        fresh < last,
        "the gallery's numbering has a gap before {last}"
    );
    let copied = Entity(521);
    for component in opened.replica.components_of(copied) {
        if let Some(data) = opened.replica.component_data(copied, component) {
            let data = data.to_vec();
            opened.replica.put(fresh, component, data).unwrap();
        }
    }
    let files = encode_project(&opened.replica, &opened.context, &project);
    write_project(&files).unwrap();
    let saved = std::fs::read(project.crdt_path()).unwrap();
    // What `scenetree convert main.composite main.crdt` writes.
    let reread = io::open_scene(&project.composite_path()).unwrap();
    let converted = io::encode_scene(&reread.replica, SceneFormat::DclCrdt, &reread.context);
    assert!(
        saved == converted.bytes,
        "the saved main.crdt differs from the converted composite at byte {:?}",
        saved.iter().zip(&converted.bytes).position(|(a, b)| a != b)
    );
}
