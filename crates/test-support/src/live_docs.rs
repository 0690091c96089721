//! What the live tests share: connecting documents, waiting for what a session reports.

use std::time::{Duration, Instant};

use scenetree_core::model::{Entity, Transform};
use scenetree_editor::{Command, Document, LinkState, LiveNote, LiveSettings};

use crate::dcl_host::DclHost;

/// Only a guard against hanging: every wait ends as soon as what it waits for happened.
pub const WAIT: Duration = Duration::from_secs(30);

/// The Elevator, the art gallery's first entity (at the root, x 14.8).
pub const ELEVATOR: Entity = Entity(512);
/// Another entity at the root.
pub const IMAGE: Entity = Entity(513);

/// Settings for tests: a generous connect timeout for a loaded machine.
pub fn settings() -> LiveSettings {
    LiveSettings {
        connect_timeout: Some(Duration::from_secs(15)),
        ..LiveSettings::default()
    }
}

/// A live document on `host`.
pub fn open(host: &DclHost) -> Document {
    Document::connect_live(&host.url(), settings())
        .unwrap_or_else(|e| panic!("{e}\nthe host printed:\n{}", host.log()))
}

/// Polls `doc` until `done` holds; fails the test with `what` and the notes seen otherwise.
pub fn wait_for(
    doc: &mut Document,
    what: &str,
    done: impl FnMut(&Document) -> bool,
) -> Vec<LiveNote> {
    let mut notes = Vec::new();
    assert!(
        doc.poll_live_until(WAIT, done, &mut notes),
        "waiting for {what}; notes: {notes:?}"
    );
    notes
}

/// Polls until the host has acknowledged every write of `doc`.
pub fn wait_acknowledged(doc: &mut Document) {
    wait_for(doc, "the host's acknowledgements", |d| {
        d.live()
            .is_some_and(|l| l.waiting() == 0 && l.state() == LinkState::Connected)
    });
}

/// `entity`'s Transform in `doc`.
pub fn transform(doc: &Document, entity: Entity) -> Transform {
    doc.replica()
        .transform(entity)
        .unwrap_or_else(|| panic!("{entity} has no Transform"))
}

/// Moves `entity` to x = `x` (other fields kept).
/// The command of a drop of `entity` onto `parent` with Shift held (local values kept).
pub fn reparent(entity: Entity, parent: Entity) -> Command {
    Command::Reparent {
        entities: vec![entity],
        parent,
        keep_world: false,
    }
}

pub fn move_x(doc: &mut Document, entity: Entity, x: f32) {
    let mut t = transform(doc, entity);
    t.position.x = x;
    doc.apply(Command::SetTransforms(vec![(entity, t)]))
        .expect("the move applies");
}

/// Polls `doc` until a note satisfies `wanted`; returns every note seen.
pub fn wait_note(
    doc: &mut Document,
    what: &str,
    wanted: impl Fn(&LiveNote) -> bool,
) -> Vec<LiveNote> {
    let deadline = Instant::now() + WAIT;
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        let notes = doc.poll_live(Some(Duration::from_millis(50)));
        let found = notes.iter().any(&wanted);
        seen.extend(notes);
        if found {
            return seen;
        }
    }
    panic!("waiting for {what}; notes: {seen:?}");
}
