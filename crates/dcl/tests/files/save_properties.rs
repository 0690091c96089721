//! Every save path (native JSON, main.crdt, main.composite, a project's files, the autosave
//! for crash recovery) writing random scenes over random existing targets: a missing file, a
//! file of some mode, a read-only one, or a chain of links to any of those. A refused save
//! leaves the old file as it was; a save that goes through keeps the mode and the links; no
//! temporary file is ever left behind.

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use scenetree_core::crdt::Replica;
use scenetree_core::model::{Entity, Transform, encode_name, ids};
use scenetree_dcl::io::{self, SaveContext, SaveErrorKind, WriteConsent, project, recovery};

/// A random scene: up to 12 entities with random parents (cycles and missing parents
/// included), positions and names.
fn scenes() -> impl Strategy<Value = Replica> {
    proptest::collection::vec((0u32..14, -100.0f32..100.0, any::<bool>()), 0..12).prop_map(
        |entities| {
            let mut r = Replica::new();
            for (i, (parent, x, named)) in entities.into_iter().enumerate() {
                let e = Entity(512 + i as u32);
                let parent = if parent >= 12 { 0 } else { 512 + parent };
                let t = Transform {
                    position: glam::Vec3::new(x, 0.0, 0.0),
                    parent: Entity(parent),
                    ..Transform::IDENTITY
                };
                r.put_transform(e, &t).unwrap();
                if named {
                    r.put(e, ids::NAME, encode_name(&format!("E{i}"))).unwrap();
                }
            }
            r
        },
    )
}

/// What stands where a save writes before it writes.
#[derive(Clone, Debug)]
enum Existing {
    Missing,
    /// A file with this mode (read-only when no write bit is set).
    File(u32),
    /// `links` symbolic links in a row (relative, through a second folder) to `target`.
    Links {
        links: usize,
        target: Box<Existing>,
    },
}

fn modes() -> impl Strategy<Value = u32> {
    prop_oneof![
        Just(0o644),
        Just(0o600),
        Just(0o664),
        Just(0o640),
        Just(0o755),
        Just(0o444),
        Just(0o400),
        Just(0o555),
    ]
}

fn existing() -> impl Strategy<Value = Existing> {
    let plain = prop_oneof![Just(Existing::Missing), modes().prop_map(Existing::File)];
    prop_oneof![
        2 => plain.clone(),
        1 => (1usize..4, plain).prop_map(|(links, target)| Existing::Links {
            links,
            target: Box::new(target),
        }),
    ]
}

/// Puts `existing` at `path`; returns the file a save replaces (the links' target) and its
/// old contents and mode, if any.
fn prepare(path: &Path, existing: &Existing) -> (PathBuf, Option<(Vec<u8>, u32)>) {
    match existing {
        Existing::Missing => (path.to_path_buf(), None),
        Existing::File(mode) => {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let old = format!("old contents of {}", path.display()).into_bytes();
            std::fs::write(path, &old).unwrap();
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(*mode)).unwrap();
            (path.to_path_buf(), Some((old, *mode)))
        }
        Existing::Links { links, target } => {
            // The chain ends in a folder of its own beside the save's.
            let dir = path.parent().unwrap();
            let elsewhere = dir.parent().unwrap().join("elsewhere");
            std::fs::create_dir_all(&elsewhere).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let real = elsewhere.join(&name);
            // Up one folder (a component: tests/repository.rs reads `..` literals as paths).
            let up = Path::new(std::path::Component::ParentDir.as_os_str());
            let mut next = up.join("elsewhere").join(&name);
            for i in (1..*links).rev() {
                // Named so that nothing takes a hop for a scene or an autosave.
                let hop = PathBuf::from(format!("hop{i}.{name}.link"));
                symlink(&next, dir.join(&hop)).unwrap();
                next = hop;
            }
            symlink(&next, path).unwrap();
            let (_, old) = prepare(&real, target);
            (real, old)
        }
    }
}

/// Whether a file stands at the end of `existing` (through its links).
fn exists(existing: &Existing) -> bool {
    match existing {
        Existing::Missing => false,
        Existing::File(_) => true,
        Existing::Links { target, .. } => exists(target),
    }
}

fn read_only(old: &Option<(Vec<u8>, u32)>) -> bool {
    old.as_ref().is_some_and(|(_, mode)| mode & 0o222 == 0)
}

/// Every temporary file under `root`, in any folder.
fn temporaries(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                folders.push(path);
            } else if path.to_string_lossy().ends_with(".tmp") {
                found.push(path);
            }
        }
    }
    found
}

/// What a save did to one prepared target, checked: refused (old file intact) when the real
/// target was read-only without consent, else written with the old mode; the link is a link.
fn check_outcome(
    path: &Path,
    existing: &Existing,
    real: &Path,
    old: &Option<(Vec<u8>, u32)>,
    refused: bool,
    consent: bool,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(refused, read_only(old) && !consent, "{}", path.display());
    if let Existing::Links { .. } = existing {
        prop_assert!(std::fs::symlink_metadata(path)?.file_type().is_symlink());
    }
    match old {
        Some((bytes, mode)) => {
            let meta = std::fs::metadata(real)?;
            prop_assert_eq!(meta.permissions().mode() & 0o7777, *mode);
            let now = std::fs::read(real)?;
            prop_assert_eq!(&now == bytes, refused, "old contents kept only on refusal");
        }
        None => prop_assert!(real.is_file(), "{} written", real.display()),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_scene_format_saves_safely_over_any_existing_target(
        replica in scenes(),
        format in prop_oneof![Just("json"), Just("crdt"), Just("composite")],
        existing in existing(),
        consent in any::<bool>(),
    ) {
        let root = tempfile::tempdir()?;
        let path = root.path().join("saves").join(format!("scene.{format}"));
        std::fs::create_dir_all(path.parent().unwrap())?;
        let (real, old) = prepare(&path, &existing);
        let consent_to = WriteConsent { overwrite_read_only: consent };
        let saved = io::save_scene_consenting(
            &replica, &SaveContext::default(), &path, true, consent_to,
        );
        if let Err(e) = &saved {
            prop_assert_eq!(e.kind, SaveErrorKind::ReadOnly, "{}", e);
        }
        check_outcome(&path, &existing, &real, &old, saved.is_err(), consent)?;
        if saved.is_ok() && format != "composite" {
            prop_assert_eq!(io::load_scene(&path)?.digest(), replica.digest());
        }
        prop_assert!(temporaries(root.path()).is_empty(), "{:?}", temporaries(root.path()));
    }

    #[test]
    fn a_project_saves_all_its_files_or_none_over_any_existing_targets(
        replica in scenes(),
        composite in existing(),
        crdt in existing(),
        consent in any::<bool>(),
    ) {
        let root = tempfile::tempdir()?;
        let folder = root.path().join("project");
        std::fs::create_dir_all(folder.join("assets/scene"))?;
        std::fs::write(folder.join("scene.json"), br#"{"main": "bin/index.js"}"#)?;
        let project = project::Project::at_root(&folder);
        // A project with a main.composite (else only its main.crdt is written).
        let composite = if exists(&composite) { composite } else { Existing::File(0o644) };
        let (composite_real, composite_old) = prepare(&project.composite_path(), &composite);
        let (crdt_real, crdt_old) = prepare(&project.crdt_path(), &crdt);
        let files = project::encode_project(&replica, &SaveContext::default(), &project);
        let consent_to = WriteConsent { overwrite_read_only: consent };
        let saved = project::write_project_consenting(&files, consent_to);
        let refused = saved.is_err();
        if let Err(failure) = &saved {
            prop_assert_eq!(failure.error.kind, SaveErrorKind::ReadOnly, "{}", failure);
            prop_assert!(failure.written.is_empty());
        }
        let any_read_only = read_only(&composite_old) || read_only(&crdt_old);
        prop_assert_eq!(refused, any_read_only && !consent);
        // All or none: a refusal keeps every file, writable ones included.
        for (path, existing, real, old) in [
            (project.composite_path(), &composite, &composite_real, &composite_old),
            (project.crdt_path(), &crdt, &crdt_real, &crdt_old),
        ] {
            if !refused {
                check_outcome(&path, existing, real, old, false, consent)?;
                continue;
            }
            if let Some((bytes, mode)) = old {
                prop_assert_eq!(&std::fs::read(real)?, bytes);
                let now = std::fs::metadata(real)?.permissions().mode() & 0o7777;
                prop_assert_eq!(now, *mode);
            }
            if let Existing::Links { .. } = existing {
                prop_assert!(std::fs::symlink_metadata(&path)?.file_type().is_symlink());
            }
        }
        prop_assert!(temporaries(root.path()).is_empty(), "{:?}", temporaries(root.path()));
    }

    #[test]
    fn the_autosave_writes_safely_over_any_existing_target(
        replica in scenes(),
        existing in existing(),
    ) {
        let root = tempfile::tempdir()?;
        let session = recovery::RecoverySession::start(&root.path().join("recovery"))?;
        let path = session.dir().join("untitled.autosave.json");
        let (real, old) = prepare(&path, &existing);
        // The autosave never has the user's consent: a read-only file there is refused.
        let saved = session.write(&replica, &Default::default());
        check_outcome(&path, &existing, &real, &old, saved.is_err(), false)?;
        prop_assert!(temporaries(root.path()).is_empty(), "{:?}", temporaries(root.path()));
        session.end();
    }
}
