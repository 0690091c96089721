//! Joining a large scene on the real data layer: the 65,024-entity example (`scenetree example
//! large`) as the project's main.composite. The host builds its 8.2 MB snapshot for seconds
//! after the stream opens, longer than the handshake's deadline; the client waits for it as
//! long as it comes, and a progress handle shows it coming.

use std::process::Command;
use std::time::Instant;

use scenetree::editor::{Document, LiveSettings};
use scenetree_core::model::Transform;
use scenetree_dcl::io::{self, project};
use scenetree_live::{ConnectProgress, ConnectStage, Phase};

use crate::dcl_host::DclHost;

/// The data layer serving a copy of the art gallery whose scene is the large example.
fn large_host() -> DclHost {
    DclHost::start_with(|dir| {
        let composite = project::Project::at_root(dir).composite_path();
        io::save_scene(&scenetree_core::examples::large(usize::MAX), &composite)
            .expect("write the large scene");
    })
}

/// Entities holding a Transform: the example's 65,024 (the host adds components of its own
/// to the root entity, which holds none).
fn with_transforms(doc: &Document) -> usize {
    let replica = doc.replica();
    (replica.live_entities())
        .filter(|&e| replica.component_data(e, Transform::COMPONENT_ID).is_some())
        .count()
}

#[test]
fn a_65024_entity_scene_is_joined_with_the_default_limits_and_its_progress_shows() {
    let host = large_host();
    let progress = ConnectProgress::new();
    // The defaults, as the window and `scenetree live` use them: 5 s for the handshake.
    let settings = LiveSettings {
        progress: Some(progress.clone()),
        ..LiveSettings::default()
    };
    let started = Instant::now();
    let doc = Document::connect_live(&host.url(), settings)
        .unwrap_or_else(|e| panic!("{e}\nthe host printed:\n{}", host.log()));
    eprintln!("joined 65,024 entities in {:?}", started.elapsed());
    assert_eq!(with_transforms(&doc), 65_024);
    let status = progress.status().expect("the attempt reported");
    assert_eq!(status.stage, ConnectStage::Rpc(Phase::AwaitingFirstTick));
    assert!(status.bytes > 5_000_000, "{status}");
    drop(doc);

    // The command line joins the same way.
    let started = Instant::now();
    let tree = Command::new(env!("CARGO_BIN_EXE_scenetree"))
        .args(["live", &host.url(), "tree", "--json"])
        .output()
        .expect("run scenetree");
    eprintln!(
        "`scenetree live URL tree --json` took {:?}",
        started.elapsed()
    );
    assert!(
        tree.status.success(),
        "{}",
        String::from_utf8_lossy(&tree.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&tree.stdout).expect("JSON");
    assert_eq!(json["entities"].as_array().map(Vec::len), Some(65_024));
}
