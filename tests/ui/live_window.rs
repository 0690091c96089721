//! The editor window on a live session, driven with egui_kittest: `--connect` joins, the title
//! and status bar say live and to which host, another client's edit shows, a dropped host
//! brings the offline bar while edits go on, and a host on another machine brings the
//! warning that the data layer has no authentication; File ▸ Save Session Recording… writes
//! the session, and the recording opens in the Peers workspace. While connecting, a modal
//! holds the scene (Cancel drops the attempt); the live scene reads its models from the
//! project named with `--connect` or open when joining.

use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{By, Queryable};
use scenetree::ui::app::{Launch, ScenetreeApp};
use scenetree::ui::workbench::Workspace;
use scenetree_editor::LinkState;
use scenetree_viewport::NullRenderer;

use crate::dcl_host::DclHost;
use crate::support::{ELEVATOR, IMAGE, WAIT, move_x, open, transform, wait_acknowledged};

fn window(launch: Launch) -> Harness<'static, ScenetreeApp> {
    let ctx = egui::Context::default();
    let app = ScenetreeApp::with_storage(&ctx, launch, None, None);
    Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_ui_state(
            |ui, app: &mut ScenetreeApp| app.draw(ui, &mut NullRenderer::default()),
            app,
        )
}

/// Runs frames until `done` holds (the session's threads wake the window in real use).
fn frames_until(
    h: &mut Harness<'static, ScenetreeApp>,
    what: &str,
    done: impl Fn(&ScenetreeApp) -> bool,
) {
    let deadline = Instant::now() + WAIT;
    while !done(h.state()) {
        assert!(Instant::now() < deadline, "waiting for {what}");
        h.step();
        std::thread::sleep(Duration::from_millis(10));
    }
    h.step();
}

/// Runs frames until `shown` holds of what the window shows, and two more.
fn frames_until_shown(
    h: &mut Harness<'static, ScenetreeApp>,
    what: &str,
    shown: impl Fn(&Harness<'static, ScenetreeApp>) -> bool,
) {
    let deadline = Instant::now() + WAIT;
    while !shown(h) {
        assert!(Instant::now() < deadline, "waiting for {what}");
        h.step();
        std::thread::sleep(Duration::from_millis(10));
    }
    // A window's first frame sizes it; its buttons take clicks from the next.
    h.run_steps(2);
}

/// Runs frames for `time` of the real clock.
fn frames_for(h: &mut Harness<'static, ScenetreeApp>, time: Duration) {
    let until = Instant::now() + time;
    while Instant::now() < until {
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    h.step();
}

fn live_state(app: &ScenetreeApp) -> Option<LinkState> {
    app.workbench().doc.live().map(|l| l.state())
}

/// A fresh host, and a window that joined it with `--connect`.
fn joined_window() -> (DclHost, Harness<'static, ScenetreeApp>) {
    let host = DclHost::start();
    let mut h = window(Launch {
        connect: Some(host.url()),
        ..Launch::default()
    });
    frames_until(&mut h, "the connection", |a| {
        live_state(a) == Some(LinkState::Connected)
    });
    (host, h)
}

#[test]
fn connect_shows_the_host_live_and_offline_in_the_title_and_bars() {
    let (mut host, mut h) = joined_window();
    let label = format!("127.0.0.1:{}", host.port);
    assert!(
        h.state().title().starts_with(&format!("Live: {label}")),
        "{}",
        h.state().title()
    );
    assert!(
        h.query_by_label_contains(&format!("● live {label}"))
            .is_some()
    );
    // Another window's edit arrives.
    let mut other = open(&host);
    move_x(&mut other, ELEVATOR, 9.25);
    wait_acknowledged(&mut other);
    frames_until(&mut h, "the other window's edit", |a| {
        transform(&a.workbench().doc, ELEVATOR).position.x == 9.25
    });
    // The host goes away: the bar says so, and an edit waits.
    host.kill_between_writes();
    frames_until(&mut h, "the dropped connection", |a| {
        live_state(a) != Some(LinkState::Connected)
    });
    move_x(&mut h.state_mut().workbench_mut().doc, IMAGE, 4.5);
    h.step();
    assert!(
        h.query_by_label_contains(&format!("Offline from {label}"))
            .is_some()
    );
    assert!(
        h.state().title().contains("(offline)"),
        "{}",
        h.state().title()
    );
    assert!(
        h.state().title().contains("1 waiting for the host"),
        "{}",
        h.state().title()
    );
    host.restart();
    frames_until(&mut h, "the reconnect and the write", |a| {
        a.workbench()
            .doc
            .live()
            .is_some_and(|l| l.state() == LinkState::Connected && l.waiting() == 0)
    });
    assert!(h.query_by_label_contains("Offline from").is_none());
    let fresh = open(&host);
    assert_eq!(transform(&fresh, IMAGE).position.x, 4.5);
}

#[test]
fn the_offline_bar_waits_for_a_held_pointer_to_be_released() {
    // The bar moves everything below it: coming up in the middle of a drag, it would put
    // another row under the pointer, and the drop would land there.
    let (mut host, mut h) = joined_window();
    let held = egui::pos2(700.0, 400.0);
    h.event(egui::Event::PointerMoved(held));
    h.event(egui::Event::PointerButton {
        pos: held,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: egui::Modifiers::NONE,
    });
    h.step();
    h.step();
    assert!(h.ctx.input(|i| i.pointer.any_down()), "the press arrived");
    host.kill();
    frames_until(&mut h, "the dropped connection", |a| {
        live_state(a).is_some_and(|s| s != LinkState::Connected)
    });
    assert!(
        h.query_by_label_contains("Offline from").is_none(),
        "the bar came up under a held pointer"
    );
    assert!(
        h.state().title().contains("(offline)"),
        "the title says it at once"
    );
    h.event(egui::Event::PointerButton {
        pos: held,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: egui::Modifiers::NONE,
    });
    h.step();
    h.step();
    assert!(h.query_by_label_contains("Offline from").is_some());
}

#[test]
fn a_host_on_another_machine_asks_first_and_warns() {
    let mut h = window(Launch {
        connect: Some("ws://192.0.2.1:8000/data-layer".into()),
        ..Launch::default()
    });
    frames_until(&mut h, "the refusal", |a| {
        a.workbench()
            .status
            .as_ref()
            .is_some_and(|(s, _)| s.starts_with("Could not connect"))
    });
    assert!(
        h.query_all_by_label_contains("has no authentication")
            .next()
            .is_some()
    );
    assert!(
        h.query_all_by_label_contains("connect anyway")
            .next()
            .is_some()
    );
    assert!(h.state().workbench().doc.live().is_none());
}

/// Where the test's "system" file dialog saves the session recording.
static RECORDING: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();

fn picks_the_recording(pick: &scenetree::ui::file_dialog::FilePick) -> Option<std::path::PathBuf> {
    use scenetree::ui::file_dialog::DialogPurpose;
    (pick.purpose == DialogPurpose::SaveRecording)
        .then(|| RECORDING.get().cloned())
        .flatten()
}

#[test]
fn save_session_recording_writes_the_session_and_it_opens_in_the_peers_workspace() {
    let host = DclHost::start();
    let mut h = window(Launch {
        connect: Some(host.url()),
        ..Launch::default()
    });
    frames_until(&mut h, "the connection", |a| {
        live_state(a) == Some(LinkState::Connected)
    });
    // This window and another client reparent at once: a real cycle.
    let mut other = open(&host);
    let reparent = |entity, parent| scenetree_editor::Command::Reparent {
        entities: vec![entity],
        parent,
        keep_world: false,
    };
    (h.state_mut().workbench_mut().doc)
        .apply(reparent(ELEVATOR, IMAGE))
        .unwrap();
    other.apply(reparent(IMAGE, ELEVATOR)).unwrap();
    wait_acknowledged(&mut other);
    frames_until(&mut h, "the cycle, acknowledged", |a| {
        let doc = &a.workbench().doc;
        !doc.view().cycles().is_empty() && doc.live().is_some_and(|l| l.waiting() == 0)
    });
    let live_digest = h.state().workbench().doc.replica().digest();
    // The Peers workspace shows the session: both columns with the cycle, the real messages.
    h.state_mut().workbench_mut().layout.workspace = Workspace::Peers;
    h.run_steps(3);
    assert!(h.query_by_label("● Live").is_some());
    assert!(
        (h.query_all_by_label_contains(&format!("Host 127.0.0.1:{}", host.port)))
            .next()
            .is_some()
    );
    for row in ["this editor → host (#1)", "host → this editor (#1)"] {
        assert!(h.query_all_by_label(row).next().is_some(), "a row {row}");
    }
    assert!(
        h.query_all_by_label("⟲ cycle").count() >= 2,
        "the cycle in both columns"
    );
    h.state_mut().workbench_mut().layout.workspace = Workspace::Editor;
    h.run_steps(2);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.scenario.json");
    RECORDING.set(path.clone()).unwrap();
    h.state_mut().set_native_file_picker(picks_the_recording);
    h.get_by_label("File").click();
    h.step();
    h.get_by_label("Save Session Recording…").click();
    frames_until(&mut h, "the recording saved", |a| {
        (a.workbench().status.as_ref()).is_some_and(|(s, _)| s.starts_with("Saved the session"))
    });

    // Opened like any scenario file: the Peers workspace, this editor and the host as peers,
    // the timeline stepping through what happened until the live state and its cycle.
    let mut r = window(Launch {
        file: Some(path),
        ..Launch::default()
    });
    frames_until(&mut r, "the recording open", |a| !a.is_loading());
    assert_eq!(r.state().workbench().layout.workspace, Workspace::Peers);
    let (sim, _) = r
        .state()
        .workbench()
        .doc
        .simulation()
        .expect("simulated peers");
    assert_eq!(sim.network().peer_count(), 2, "this editor and the host");
    assert!(r.query_by_label("This editor (peer 1) (editing)").is_some());
    let host_column = format!("Host 127.0.0.1:{} (peer 2)", host.port);
    assert!(r.query_by_label(&host_column).is_some());
    let steps = sim
        .lesson()
        .expect("played as a lesson")
        .scenario()
        .steps
        .len();
    assert!(
        r.query_by_label_contains(&format!("Step 0 of {steps}"))
            .is_some()
    );
    for _ in 0..steps {
        r.get_by_label("Next step ⏵").click();
        r.run_steps(3);
    }
    let shown = (r.state().workbench().doc.simulation())
        .and_then(|(s, _)| s.lesson().map(|p| p.steps_shown()));
    assert_eq!(shown, Some(steps));
    assert_eq!(r.state().workbench().doc.replica().digest(), live_digest);
    assert!(
        r.query_all_by_label("⟲ cycle").next().is_some(),
        "the cycle, badged"
    );
}

#[test]
fn while_connecting_a_modal_holds_the_scene_and_cancel_drops_the_attempt() {
    let host = DclHost::start();
    host.pause(); // the WebSocket upgrade waits for the host
    let mut h = window(Launch {
        connect: Some(host.url()),
        ..Launch::default()
    });
    h.run_steps(3); // a spinner keeps asking for frames
    let connecting = |h: &Harness<'static, ScenetreeApp>| {
        // The modal's line and the status bar's.
        h.query_all_by_label_contains("Connecting to").count() == 2
            && h.query_by_label("Cancel").is_some()
    };
    assert!(connecting(&h));
    // The line of progress says what it waits for and what came.
    assert!(
        h.query_by_label_contains("Upgrading to a WebSocket: 0 bytes received in 0 message(s)")
            .is_some(),
        "the progress line"
    );
    // The scene the live one is about to replace cannot change meanwhile (nor could
    // recovered work take its place: the modal is on top).
    let entities = h.state().workbench().doc.scene_entity_count();
    h.get_by_label("+ Entity").click();
    h.run_steps(3);
    assert_eq!(h.state().workbench().doc.scene_entity_count(), entities);
    h.get_by_label("Cancel").click();
    h.run();
    assert!(!connecting(&h));
    assert!(h.query_by_label_contains("Did not connect to").is_some());
    // The host answers the dropped attempt late: nothing replaces the scene.
    host.resume();
    frames_for(&mut h, Duration::from_secs(2));
    assert!(h.state().workbench().doc.live().is_none());
    h.get_by_label("+ Entity").click();
    h.run();
    assert_eq!(h.state().workbench().doc.scene_entity_count(), entities + 1);
}

#[test]
fn the_live_scene_reads_its_models_from_the_project_named_or_open_when_joining() {
    let host = DclHost::start();
    let root = host.dir.path().canonicalize().unwrap();
    let project_root = |h: &Harness<'static, ScenetreeApp>| {
        let doc = &h.state().workbench().doc;
        (doc.project.as_ref()).map(|p| p.root.canonicalize().unwrap())
    };
    // `--connect URL PROJECT`
    let mut h = window(Launch {
        connect: Some(host.url()),
        file: Some(host.dir.path().to_path_buf()),
        ..Launch::default()
    });
    frames_until(&mut h, "the connection", |a| {
        live_state(a) == Some(LinkState::Connected)
    });
    assert_eq!(project_root(&h), Some(root.clone()));
    assert!(
        !h.state().workbench().doc.saves_as_project,
        "Save asks the host"
    );
    // Without PROJECT the scene has none; joining from an open project takes that one.
    let mut h = window(Launch {
        connect: Some(host.url()),
        ..Launch::default()
    });
    frames_until(&mut h, "the connection", |a| {
        live_state(a) == Some(LinkState::Connected)
    });
    assert_eq!(project_root(&h), None);
    let mut h = window(Launch {
        file: Some(host.dir.path().to_path_buf()),
        ..Launch::default()
    });
    frames_until(&mut h, "the project", |a| {
        a.workbench().doc.project.is_some()
    });
    h.get_by_label("File").click();
    h.run_steps(3); // the models' progress keeps asking for frames
    h.get_by_label("Connect to Data Layer…").click();
    h.run_steps(3);
    h.get(
        By::new()
            .role(Role::TextInput)
            .value("ws://127.0.0.1:8000/data-layer"),
    )
    .click();
    h.run_steps(3);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by(|n| n.is_focused()).type_text(&host.url());
    h.run_steps(3);
    h.get_by_label("Connect").click();
    frames_until(&mut h, "the connection", |a| {
        live_state(a) == Some(LinkState::Connected)
    });
    assert_eq!(project_root(&h), Some(root));
}

#[test]
fn quit_waits_for_the_host_to_acknowledge_this_windows_edits_then_asks() {
    let (host, mut h) = joined_window();
    // The host stops answering: the edit is sent but not acknowledged.
    host.pause();
    move_x(&mut h.state_mut().workbench_mut().doc, IMAGE, 3.25);
    h.step();
    h.state_mut().request_quit();
    h.run_steps(2);
    assert!(
        !h.state().is_quitting(),
        "not while the edit may still be lost"
    );
    assert!(h.query_by_label_contains("Quit follows once").is_some());
    // It answers: the quit goes on by itself.
    host.resume();
    frames_until(&mut h, "the acknowledgement and the quit", |a| {
        a.is_quitting()
    });
    assert_eq!(transform(&open(&host), IMAGE).position.x, 3.25);

    // Silent for longer than the grace (shortened from 3 s): asked, and Cancel keeps the
    // window.
    let (host, mut h) = joined_window();
    h.state_mut().set_host_grace(Duration::from_millis(200));
    host.pause();
    move_x(&mut h.state_mut().workbench_mut().doc, IMAGE, 5.5);
    h.step();
    h.state_mut().request_quit();
    let asked = |h: &Harness<'static, ScenetreeApp>| {
        h.query_by_label("Edits not on the host yet").is_some()
    };
    frames_until_shown(&mut h, "the question past the grace", asked);
    h.get_by_label("Cancel").click();
    h.run_steps(2);
    assert!(!h.state().is_quitting());
    assert!(!asked(&h));
    // Asked again, the user goes on anyway.
    h.state_mut().request_quit();
    frames_until_shown(&mut h, "the question past the grace", asked);
    h.get_by_label("Quit anyway").click();
    h.run_steps(2);
    assert!(h.state().is_quitting());
    host.resume();
}
