//! Saving a large Decentraland project: the 65,024-entity example (`scenetree example large`)
//! as the main.composite of a copy of the art gallery project, opened as the editor opens it.
//!
//! - `project_save_65024/window_part`: what the window's thread pays to start a save: the copy
//!   of the replica and of what the composite kept (shared, not copied) that the save's worker
//!   thread encodes and writes (`src/ui/app/save_job.rs`).
//! - `project_save_65024/encode`: the worker's encoding of main.composite, the matching main.crdt
//!   and entity-names.ts (`encode_project`), which the window's thread did itself before saves
//!   moved to a worker. Writing and syncing the 51 MB follow it there; they depend on the disk.
//!
//! Run: `cargo bench --bench project_save`.

// A benchmark: a failed unwrap fails the run (unwrap is denied in library code only).
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU32;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use scenetree::ui::files::load_document;
use scenetree_dcl::io::{self, project};

use scenetree_test_support::projects;

/// The allocator the editor runs with (main.rs): huge pages under large arrays.
#[global_allocator]
static ALLOC: scenetree_core::model::HugePageAlloc = scenetree_core::model::HugePageAlloc;

/// A copy of the art gallery project whose scene is the large example, in `dir`.
fn large_project(dir: &Path) -> PathBuf {
    let root = dir.join("large");
    projects::copy_dir(&projects::gallery(), &root);
    let composite = project::Project::at_root(&root).composite_path();
    io::save_scene(&scenetree_core::examples::large(usize::MAX), &composite).unwrap();
    root
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let root = large_project(dir.path());
    let doc = load_document(&root, &AtomicU32::new(0)).expect("the project opens");
    let project = doc.project.clone().expect("a project");
    assert_eq!(doc.scene_entity_count(), 65_024);
    let mut group = c.benchmark_group("project_save_65024");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    group.bench_function("window_part", |b| {
        b.iter(|| black_box((doc.replica().clone(), doc.save_context.clone())))
    });
    group.bench_function("encode", |b| {
        b.iter(|| {
            black_box(project::encode_project(
                doc.replica(),
                &doc.save_context,
                &project,
            ))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
