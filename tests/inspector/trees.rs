//! The two editors' trees: equal at start, and each one's edits in the other's.

use std::collections::BTreeSet;
use std::time::Instant;

use serde_json::json;

use crate::browser::{Inspector, POLL, Row, environment, wait_until};
use crate::dcl_host::DclHost;
use crate::scenetree::{Entry, as_the_inspector_shows, compare, entry, live_run, live_tree};
use crate::{SHOWN_WITHIN, one_browser_at_a_time};

/// The art gallery's Elevator, at the root, x 14.8.
pub const ELEVATOR: u32 = 512;
/// "1st_floor_image_2", at the root.
pub const IMAGE: u32 = 513;
/// "1st_floor_image_3", at the root.
const OTHER_IMAGE: u32 = 528;
/// "NFT_2", at the root.
const NFT: u32 = 520;
/// "Java Fern", at the root, x 27.5: a plain model, no smart item.
const FERN: u32 = 529;
/// The art gallery template's entities (all at the root).
const TEMPLATE_ENTITIES: usize = 25;

/// Waits until the Inspector's tree shows `entries` (scenetree's tree) and returns it. Rows
/// are opened only once every drawn row agrees with scenetree: a row opened earlier, from a
/// tree the Inspector had not yet brought up to date with scenetree's last edit, would write
/// `inspector::Nodes` from the older tree, with the timestamp of scenetree's edit, and one of
/// the two would be lost (seen: the Inspector's won, undoing scenetree's reparent in its tree).
pub fn wait_agree(inspector: &mut Inspector, entries: &[Entry]) -> BTreeSet<Row> {
    let expected = as_the_inspector_shows(entries);
    let deadline = Instant::now() + SHOWN_WITHIN;
    let mut to_open = Vec::new();
    loop {
        let drawn = inspector.rows(&to_open);
        let comparison = compare(&expected, &drawn);
        if comparison.differences.is_empty() && comparison.to_open.is_empty() {
            return expected;
        }
        assert!(
            Instant::now() < deadline,
            "waited {SHOWN_WITHIN:?} for the Inspector's tree to be scenetree's; they differ:\n{}\nrows to open: {:?}\n{}",
            comparison.differences.join("\n"),
            comparison.to_open,
            inspector.log()
        );
        to_open = if comparison.differences.is_empty() {
            comparison.to_open
        } else {
            Vec::new()
        };
        if to_open.is_empty() {
            std::thread::sleep(POLL);
        }
    }
}

fn name_of(entries: &[Entry], id: u32) -> Option<&str> {
    entry(entries, id).and_then(|e| e.name.as_deref())
}

#[test]
fn the_inspectors_tree_is_scenetrees_live_tree_at_start() {
    let Some(env) = environment("the_inspectors_tree_is_scenetrees_live_tree_at_start") else {
        return;
    };
    let _turn = one_browser_at_a_time();
    let host = DclHost::start();
    let mut inspector = Inspector::open(&env, &host);
    eprintln!(
        "the Inspector showed its tree {:?} after starting",
        inspector.load_time
    );
    let scenetree = live_tree(&host.url());
    let expected = wait_agree(&mut inspector, &scenetree);
    assert_eq!(expected.len(), TEMPLATE_ENTITIES, "{expected:#?}");
    inspector.assert_no_page_errors();
}

#[test]
fn scenetrees_create_rename_delete_and_reparent_appear_in_the_inspectors_tree() {
    let Some(env) =
        environment("scenetrees_create_rename_delete_and_reparent_appear_in_the_inspectors_tree")
    else {
        return;
    };
    let _turn = one_browser_at_a_time();
    let host = DclHost::start();
    let url = host.url();
    let mut inspector = Inspector::open(&env, &host);
    wait_agree(&mut inspector, &live_tree(&url));

    // Each edit is made, then seen in scenetree's own tree (so the check cannot pass on an
    // edit that did nothing), then waited for in the Inspector's.
    let said = live_run(
        &url,
        json!([{ "do": "create", "name": "Made in scenetree" }]),
    );
    let tree = live_tree(&url);
    let made = (tree.iter())
        .find(|e| e.name.as_deref() == Some("Made in scenetree"))
        .expect("scenetree created the entity");
    assert!(
        said.contains(&format!("created entity {}", made.id)),
        "{said}"
    );
    assert_eq!(made.effective_parent, Some(0));
    wait_agree(&mut inspector, &tree);

    live_run(
        &url,
        json!([{ "do": "rename", "entity": IMAGE, "name": "Renamed in scenetree" }]),
    );
    let tree = live_tree(&url);
    assert_eq!(name_of(&tree, IMAGE), Some("Renamed in scenetree"));
    wait_agree(&mut inspector, &tree);

    live_run(
        &url,
        json!([{ "do": "delete_entity", "entity": OTHER_IMAGE }]),
    );
    let tree = live_tree(&url);
    assert!(entry(&tree, OTHER_IMAGE).is_none(), "{tree:#?}");
    wait_agree(&mut inspector, &tree);

    // Last: the Inspector shows a new parent's children only once its row is opened, which
    // writes `inspector::Nodes` (see `wait_agree`); nothing of scenetree's follows that write.
    live_run(
        &url,
        json!([{ "do": "move", "entity": IMAGE, "parent": ELEVATOR }]),
    );
    let tree = live_tree(&url);
    assert_eq!(
        entry(&tree, IMAGE).and_then(|e| e.effective_parent),
        Some(ELEVATOR)
    );
    wait_agree(&mut inspector, &tree);
    inspector.assert_no_page_errors();
}

#[test]
fn the_inspectors_rename_position_edit_and_undo_reach_scenetree() {
    let Some(env) = environment("the_inspectors_rename_position_edit_and_undo_reach_scenetree")
    else {
        return;
    };
    let _turn = one_browser_at_a_time();
    let host = DclHost::start();
    let url = host.url();
    let mut inspector = Inspector::open(&env, &host);
    let start = live_tree(&url);
    wait_agree(&mut inspector, &start);

    inspector.must(json!({ "cmd": "rename", "id": NFT, "name": "Renamed in the Inspector" }));
    wait_until(
        "scenetree to see the Inspector's rename",
        SHOWN_WITHIN,
        || name_of(&live_tree(&url), NFT).map(str::to_owned),
        |name| name.as_deref() == Some("Renamed in the Inspector"),
    );

    // A plain entity: moving a smart item (the Elevator) makes the Inspector rewrite its Tween
    // too, and the host's Undo then takes back that Tween write, not the move.
    let x_of = |tree: &[Entry]| entry(tree, FERN).map(|e| e.world_position(0));
    let x_at_start = x_of(&start).expect("the fern");
    assert!((x_at_start - 27.5).abs() < 1e-4, "{x_at_start}");
    inspector.must(json!({ "cmd": "set_position", "id": FERN, "axis": "x", "value": 3.5 }));
    wait_until(
        "scenetree to see the Inspector's move to x 3.5",
        SHOWN_WITHIN,
        || x_of(&live_tree(&url)),
        |x| x.is_some_and(|x| (x - 3.5).abs() < 1e-4),
    );

    // The toolbar's Undo is the host's (one stack for every client): it takes back the move.
    inspector.must(json!({ "cmd": "undo" }));
    wait_until(
        "scenetree to see the Inspector's undo of the move",
        SHOWN_WITHIN,
        || x_of(&live_tree(&url)),
        |x| x.is_some_and(|x| (x - x_at_start).abs() < 1e-4),
    );
    let tree = live_tree(&url);
    assert_eq!(name_of(&tree, NFT), Some("Renamed in the Inspector"));
    wait_agree(&mut inspector, &tree);
    inspector.assert_no_page_errors();
}
