//! The Peers workspace in multiplayer mode, driven like a person would: a capture of real SDK
//! players (`tests/fixtures/net-captures/`) opened as players side by side, one delivery
//! dragged earlier and the self-parent badge going, one held back and the badge coming back,
//! every badge's tooltip saying its cause; a multiplayer lesson opened from the lessons list
//! and played with Next step.

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use scenetree::ui::Workbench;
use scenetree::ui::lessons::{BundledLesson, open_lesson};
use scenetree::ui::workbench::{AppRequest, Multiplayer, Workspace};
use scenetree_core::net::capture::Capture;
use scenetree_editor::Document;
use scenetree_viewport::NullRenderer;

const SELF_PARENT: &str = "⚠ self_parent";

/// A capture of `tests/fixtures/net-captures/` (see its SOURCE.txt).
fn capture(name: &str) -> Capture {
    let path = format!(
        "{}/tests/fixtures/net-captures/{name}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    Capture::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A workbench whose lesson buttons open lessons as the app does.
fn harness(bench: Workbench) -> Harness<'static, Workbench> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .build_ui_state(
            |ui, bench: &mut Workbench| {
                bench.ui(ui, &mut NullRenderer::default());
                for request in bench.take_app_requests() {
                    if let AppRequest::OpenLesson(index) = request {
                        match open_lesson(index).unwrap() {
                            BundledLesson::Peers(doc, _) => bench.set_document(*doc),
                            BundledLesson::Multiplayer(lesson) => {
                                bench.open_multiplayer(Multiplayer::from_lesson(*lesson))
                            }
                        }
                    }
                }
            },
            bench,
        );
    h.run();
    h
}

/// The capture opened as `scenetree net replay CAPTURE` opens it.
fn opened(name: &str) -> Harness<'static, Workbench> {
    let mut bench = Workbench::new(Document::default());
    bench.open_multiplayer(Multiplayer::from_capture(
        &capture(name),
        format!("{name}.jsonl"),
    ));
    harness(bench)
}

fn click(h: &mut Harness<'static, Workbench>, label: &str) {
    h.get_by_label(label).click();
    h.run();
}

/// The timeline's position (steps run).
fn cursor(h: &Harness<'static, Workbench>) -> usize {
    h.state().multiplayer.as_ref().unwrap().run().cursor()
}

/// Steps the timeline back with ⏴ until `steps` steps are run.
fn back_to(h: &mut Harness<'static, Workbench>, steps: usize) {
    while cursor(h) > steps {
        click(h, "⏴");
    }
    assert_eq!(cursor(h), steps);
}

/// The centre of the table cell showing `text` in the row whose "sent → to" cell is `row`.
fn in_row(h: &Harness<'static, Workbench>, row: &str, text: &str) -> egui::Pos2 {
    let y = h.get_by_label(row).rect().center().y;
    h.get_all_by_label(text)
        .map(|n| n.rect().center())
        .find(|c| (c.y - y).abs() < 6.0)
        .unwrap_or_else(|| panic!("no {text:?} in the row of {row:?}"))
}

/// Drags from one point to another in small steps, as a hand would.
fn drag(h: &mut Harness<'static, Workbench>, from: egui::Pos2, to: egui::Pos2) {
    crate::ui_flows::drag_and_hold(h, from, to);
    h.drop_at(to);
    h.run();
}

/// Hovers the point and returns whether a label containing `text` shows then.
fn tooltip_says(h: &mut Harness<'static, Workbench>, at: egui::Pos2, text: &str) -> bool {
    tooltip_says_one_of(h, at, &[text.to_string()])
}

/// Hovers the point and returns whether a label containing one of `texts` shows then.
fn tooltip_says_one_of(
    h: &mut Harness<'static, Workbench>,
    at: egui::Pos2,
    texts: &[String],
) -> bool {
    h.hover_at(at);
    h.run();
    h.run();
    let shown = (texts.iter()).any(|text| h.query_by_label_contains(text).is_some());
    h.hover_at(egui::pos2(2.0, 500.0));
    h.run();
    shown
}

#[test]
fn a_capture_opens_as_players_and_one_drag_unmakes_the_self_parent() {
    let mut h = opened("hazard-1-child-before-parent");
    assert_eq!(h.state().layout.workspace, Workspace::Peers);
    // B's renderer holds the child (A:513) as its 512, under 512: badged in its column, and in
    // the list of its hazards.
    h.get_by_label("512  ·  0xaaaa…aaaa:513");
    assert_eq!(h.query_all_by_label(SELF_PARENT).count(), 2);
    // Back to just after A sent the child: both frames are in flight to B, the child's first,
    // its row badged.
    back_to(&mut h, 15);
    assert!(h.query_by_label("512  ·  0xaaaa…aaaa:513").is_none());
    assert_eq!(h.query_all_by_label(SELF_PARENT).count(), 1);
    let badge = in_row(&h, "A tick 4 → B", SELF_PARENT);
    assert!(tooltip_says(
        &mut h,
        badge,
        "which had not arrived here, so its raw id 512 stood in"
    ));
    assert!(tooltip_says(&mut h, badge, "(when B tick 6 applies it)"));
    // Drag the parent's frame (A's tick 3) onto the child's row: it arrives first, and the
    // badge goes.
    let parent = in_row(&h, "A tick 3 → B", "⠿ 2");
    let child = in_row(&h, "A tick 4 → B", "⠿ 1");
    drag(&mut h, parent, child);
    assert_eq!(
        h.query_all_by_label(SELF_PARENT).count(),
        0,
        "the child's row lost its badge"
    );
    let b_tick_5 = |h: &Harness<'static, Workbench>| h.get_all_by_label("B tick 5").count();
    assert_eq!(b_tick_5(&h), 2, "both frames now arrive at B's tick 5");
    click(&mut h, "⏭");
    assert_eq!(h.query_all_by_label(SELF_PARENT).count(), 0);
    // Every player now holds P as 512 and the child as 513 under it.
    assert_eq!(h.query_all_by_label("512  ·  0xaaaa…aaaa:512").count(), 3);
    assert_eq!(h.query_all_by_label("513  ·  0xaaaa…aaaa:513").count(), 3);
    // Held back one of B's ticks, the parent's frame makes the self-parent again.
    back_to(&mut h, 15);
    let delay = in_row(&h, "A tick 3 → B", "Delay");
    h.get_all_by_label("Delay")
        .find(|n| n.rect().center() == delay)
        .unwrap()
        .click();
    h.run();
    assert_eq!(h.query_all_by_label(SELF_PARENT).count(), 1);
    assert!(
        h.query_by_label_contains("1 hazard(s) in all (before: 0)")
            .is_some()
    );
}

#[test]
fn every_badge_of_the_hazard_captures_says_its_cause() {
    for (name, kinds) in [
        ("hazard-2-raw-parent", &["raw_parent"][..]),
        ("hazard-3-late-join", &["repeated_state_response"][..]),
        (
            "hazard-4-remote-delete",
            &["wrong_entity_deleted", "unmapped_parent"][..],
        ),
        ("hazard-5-remove-parent", &["parent_not_removed"][..]),
    ] {
        let mut h = opened(name);
        let hazards: Vec<_> = (h.state().multiplayer.as_ref().unwrap().run().hazards())
            .map(|(_, h)| h.hazard.clone())
            .collect();
        for kind in kinds {
            let label = format!("⚠ {kind}");
            let badges: Vec<egui::Pos2> = h
                .get_all_by_label(&label)
                .map(|n| n.rect().center())
                .collect();
            assert!(!badges.is_empty(), "{name}: no {label} badge");
            // Each badge says the cause of its own hazard (entities differ).
            let causes: Vec<String> = (hazards.iter())
                .filter(|hz| hz.kind.as_str() == *kind)
                .map(|hz| hz.cause.clone())
                .collect();
            for badge in badges {
                assert!(
                    tooltip_says_one_of(&mut h, badge, &causes),
                    "{name}: {label} at {badge:?}"
                );
            }
        }
    }
}

#[test]
fn a_multiplayer_lesson_opens_from_the_lessons_list_and_plays_to_the_end() {
    let mut bench = Workbench::new(Document::default());
    bench.layout.workspace = Workspace::Peers;
    let mut h = harness(bench);
    h.get_by_label_contains("9. Multiplayer: a child applied before its parent")
        .click();
    h.run();
    assert_eq!(h.state().layout.workspace, Workspace::Peers);
    assert!(h.query_by_label_contains("Step 0 of 8").is_some());
    for _ in 0..3 {
        click(&mut h, "Next step ⏵");
    }
    // Step 3: the child's frame to B is badged before anything is applied.
    assert_eq!(h.query_all_by_label(SELF_PARENT).count(), 1);
    in_row(&h, "A tick 3 → B", SELF_PARENT);
    click(&mut h, "Next step ⏵");
    // Step 4: B's renderer holds the child as 512 under 512: a one-entity cycle, badged.
    h.get_by_label("512  ·  0xaaaa…aaaa:513");
    assert!(h.query_by_label("⟲ cycle").is_some());
    for _ in 0..3 {
        click(&mut h, "Next step ⏵");
    }
    // Step 7: the lesson dragged P's frame first: the badge is gone.
    assert_eq!(h.query_all_by_label(SELF_PARENT).count(), 0);
    click(&mut h, "Next step ⏵");
    assert!(h.query_by_label_contains("Step 8 of 8").is_some());
    assert!(h.query_by_label_contains("Lesson finished").is_some());
    assert_eq!(h.get_all_by_label("513  ·  0xaaaa…aaaa:513").count(), 3);
    click(&mut h, "Close");
    assert!(h.state().multiplayer.is_none());
}

#[test]
fn the_window_opens_a_capture_given_at_launch_or_as_a_file_and_a_multiplayer_lesson_file() {
    use crate::app_flows::{app, settle};
    use scenetree::ui::app::Launch;
    let fixtures = format!("{}/tests/fixtures/net-captures", env!("CARGO_MANIFEST_DIR"));
    // `scenetree net replay CAPTURE`: read by the command line, replayed in the background.
    let h = app(
        Launch {
            capture: Some((
                format!("{fixtures}/hazard-1-child-before-parent.jsonl").into(),
                capture("hazard-1-child-before-parent"),
            )),
            ..Launch::default()
        },
        None,
    );
    let bench = h.state().workbench();
    assert_eq!(bench.layout.workspace, Workspace::Peers);
    let title = &bench.multiplayer.as_ref().unwrap().title;
    assert_eq!(title, "hazard-1-child-before-parent.jsonl");
    h.get_by_label("512  ·  0xaaaa…aaaa:513");
    // `scenetree CAPTURE.jsonl` or File ▸ Open: loaded in the background like a scene.
    let mut h = app(
        Launch {
            file: Some(format!("{fixtures}/hazard-4-remote-delete.jsonl").into()),
            ..Launch::default()
        },
        None,
    );
    settle(&mut h);
    let bench = h.state().workbench();
    let run = bench.multiplayer.as_ref().unwrap().run();
    assert!(
        run.hazards()
            .any(|(_, h)| h.hazard.kind.as_str() == "wrong_entity_deleted")
    );
    assert!(
        h.query_by_label_contains("Opened hazard-4-remote-delete.jsonl")
            .is_some()
    );
    // A multiplayer lesson file opens as the lesson.
    let lesson = format!(
        "{}/scenes/12-mp-remote-delete.scenario.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut h = app(
        Launch {
            file: Some(lesson.into()),
            lesson_steps: 2,
            ..Launch::default()
        },
        None,
    );
    settle(&mut h);
    assert!(
        h.query_by_label_contains("Step 2 of 7").is_some(),
        "--steps 2 played"
    );
    assert!(h.query_by_label("Next step ⏵").is_some());
}

#[test]
fn comma_and_period_step_the_runs_timeline() {
    let mut h = opened("hazard-1-child-before-parent");
    let end = cursor(&h);
    h.key_press(egui::Key::Comma);
    h.run();
    h.key_press(egui::Key::Comma);
    h.run();
    assert_eq!(cursor(&h), end - 2);
    h.key_press(egui::Key::Period);
    h.run();
    assert_eq!(cursor(&h), end - 1);
}

#[test]
fn the_players_columns_keep_the_margin_of_the_panels_above_and_below() {
    use crate::app_flows::app;
    use scenetree::ui::app::Launch;
    let name = "hazard-5-remove-parent";
    let fixtures = format!("{}/tests/fixtures/net-captures", env!("CARGO_MANIFEST_DIR"));
    let h = app(
        Launch {
            capture: Some((format!("{fixtures}/{name}.jsonl").into(), capture(name))),
            ..Launch::default()
        },
        None,
    );
    // The header's title and Close sit inside its panel's margin; the columns are drawn in the
    // same width (egui_kittest insets the whole window by 8 points, so edges are not at 0).
    let title = h.get_by_label(&format!("{name}.jsonl")).rect();
    let close = h.get_by_label("Close").rect();
    let badges: Vec<egui::Rect> = (h.query_all_by_label("⚠ parent_not_removed"))
        .map(|n| n.rect())
        .collect();
    // Each of the three players shows the hazard's line and its row's badge.
    assert_eq!(badges.len(), 6, "{badges:?}");
    let rightmost = badges.iter().map(|r| r.max.x).fold(0.0, f32::max);
    assert!(
        rightmost <= close.max.x + 1.0,
        "the last column's badge ends at {rightmost}, the header's Close at {}",
        close.max.x
    );
    let first = h.get_by_label("A").rect();
    assert!(
        first.min.x >= title.min.x - 1.0,
        "the first column starts at {}, the header's title at {}",
        first.min.x,
        title.min.x
    );
}

#[test]
fn the_deliveries_message_kinds_show_whole_at_1280_by_800() {
    use crate::app_flows::app;
    use crate::clipping::painted;
    use scenetree::ui::app::Launch;
    let name = "hazard-5-remove-parent";
    let fixtures = format!("{}/tests/fixtures/net-captures", env!("CARGO_MANIFEST_DIR"));
    let mut h = app(
        Launch {
            capture: Some((format!("{fixtures}/{name}.jsonl").into(), capture(name))),
            ..Launch::default()
        },
        None,
    );
    h.get_by_label("every delivery of the run").click();
    h.run();
    // Elided, not clipped: the table's last visible row is cut by its scroll area, rightly.
    // The network identities beside the kinds are short addresses, with their own "…".
    for text in ["REQ_CRDT_STATE", "CRDT", "0xaaaa…aaaa:512, 0xaaaa…aaaa:513"] {
        let shown = painted(&h, text);
        assert!(!shown.is_empty(), "{text:?} is not painted");
        for p in shown {
            assert!(!p.galley.elided, "{text:?} is elided in {:?}", p.rect);
        }
    }
}
