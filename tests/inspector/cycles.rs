//! A parenting cycle freezes the Inspector's tab (its renderer recurses up Babylon's parent
//! chain): scenetree must not make one beside it.

use std::time::Duration;

use scenetree_core::model::Entity;
use scenetree_editor::{Command, Document, EditError};
use serde_json::json;

use crate::browser::{Inspector, environment, wait_until};
use crate::dcl_host::DclHost;
use crate::live_docs::{open, wait_acknowledged, wait_for};
use crate::scenetree::{entry, live_run, live_tree};
use crate::trees::{ELEVATOR, IMAGE, wait_agree};
use crate::{SHOWN_WITHIN, one_browser_at_a_time};

/// How long a healthy tab takes to answer is milliseconds; a frozen one never does.
const ANSWERS_WITHIN: Duration = Duration::from_secs(10);
/// Animation frames the Inspector must draw after it had the undo's writes (it froze within
/// a second of a cycle arriving: one or two frames under SwiftShader).
const FRAMES: u32 = 30;
/// "1st_floor_image_3", renamed after the undo to know when the Inspector has had it.
const OTHER: u32 = 528;

/// Polls `window` until it sees `entity` under `parent`.
fn wait_parent(window: &mut Document, entity: u32, parent: u32) {
    wait_for(window, &format!("{entity} under {parent}"), |d| {
        d.replica().transform(Entity(entity)).map(|t| t.parent) == Some(Entity(parent))
    });
}

#[test]
fn after_an_undo_that_would_close_a_cycle_the_inspectors_tab_still_answers() {
    let Some(env) =
        environment("after_an_undo_that_would_close_a_cycle_the_inspectors_tab_still_answers")
    else {
        return;
    };
    let _turn = one_browser_at_a_time();
    let host = DclHost::start();
    let url = host.url();
    let mut inspector = Inspector::open(&env, &host);
    wait_agree(&mut inspector, &live_tree(&url));

    // Another client puts the Elevator under the image.
    live_run(
        &url,
        json!([{ "do": "move", "entity": ELEVATOR, "parent": IMAGE }]),
    );
    // A scenetree window moves it back to the root…
    let mut window = open(&host);
    wait_parent(&mut window, ELEVATOR, IMAGE);
    window
        .apply(Command::Reparent {
            entities: vec![Entity(ELEVATOR)],
            parent: Entity::ROOT,
            keep_world: true,
        })
        .expect("the reparent applies");
    wait_acknowledged(&mut window);
    // …then the other client puts the image under the Elevator, valid where it is made…
    live_run(
        &url,
        json!([{ "do": "move", "entity": IMAGE, "parent": ELEVATOR }]),
    );
    wait_parent(&mut window, IMAGE, ELEVATOR);
    wait_agree(&mut inspector, &live_tree(&url));

    // …so undoing the window's move would put the Elevator under the image again: a cycle.
    // The guard refuses it (the window asks the user first) and writes nothing.
    let refused = window.undo().expect_err("the undo would close a cycle");
    assert!(
        matches!(refused.cause, EditError::WouldCycleLive { .. }),
        "{refused:?}"
    );
    wait_acknowledged(&mut window);
    // The host relays in order: once the Inspector shows a rename sent after the undo, it has
    // had whatever the undo wrote; then its viewport must go on drawing (a cycle hangs it in
    // its next frames).
    live_run(
        &url,
        json!([{ "do": "rename", "entity": OTHER, "name": "After the undo" }]),
    );
    let shown = wait_until(
        "the Inspector to show a rename made after the undo",
        SHOWN_WITHIN,
        || {
            (inspector.try_rows(&[])).map(|rows| {
                rows.into_iter()
                    .find(|d| d.row.id == OTHER)
                    .map(|d| d.row.name)
            })
        },
        // A tab that stopped answering ends the wait too.
        |shown| match shown {
            Ok(name) => name.as_deref() == Some("After the undo"),
            Err(_) => true,
        },
    );
    let answered = shown.and_then(|_| inspector.answers(FRAMES, ANSWERS_WITHIN));
    if let Err(e) = answered {
        panic!(
            "the Inspector's tab froze after the undo: {e}\n{}",
            inspector.log()
        );
    }
    let tree = live_tree(&url);
    let on_cycles: Vec<u32> = (tree.iter().filter(|e| e.cycle.is_some()))
        .map(|e| e.id)
        .collect();
    assert!(on_cycles.is_empty(), "entities on a cycle: {on_cycles:?}");
    assert_eq!(
        entry(&tree, ELEVATOR).and_then(|e| e.effective_parent),
        Some(0)
    );
    wait_agree(&mut inspector, &tree);
}
