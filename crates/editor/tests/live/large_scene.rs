//! Joining a large scene on the real data layer: the 65,024-entity example (the most entities
//! a scene holds) as the project's main.composite. The host builds its 8.2 MB snapshot for
//! seconds after the stream opens, answering nobody meanwhile; the client waits as long as the
//! host is not silent for its limit (`LiveOptions::stall_timeout`), and a progress handle shows
//! the snapshot coming. (`scenetree live URL tree` joins through the same `connect_live` with
//! the same defaults.)

use std::time::Instant;

use scenetree_core::model::Transform;
use scenetree_dcl::io::{self, project};
use scenetree_editor::{Document, LiveSettings};
use scenetree_live::{ConnectProgress, ConnectStage, Phase};

use crate::dcl_host::DclHost;

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
    let host = DclHost::start_with(|dir| {
        let composite = project::Project::at_root(dir).composite_path();
        io::save_scene(&scenetree_core::examples::large(usize::MAX), &composite)
            .expect("write the large scene");
    });
    let progress = ConnectProgress::new();
    // The defaults, as the window and `scenetree live` use them.
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
}
