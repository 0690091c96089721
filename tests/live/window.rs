//! The editor window on a live session, driven with egui_kittest: `--connect` joins, the title
//! and status bar say live and to which host, another client's edit shows, a dropped host
//! brings the offline bar while edits go on, and a host on another machine brings the
//! warning that the data layer has no authentication.

use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use scenetree::editor::LinkState;
use scenetree::ui::app::{Launch, ScenetreeApp};
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

fn live_state(app: &ScenetreeApp) -> Option<LinkState> {
    app.workbench().doc.live().map(|l| l.state())
}

#[test]
fn connect_shows_the_host_live_and_offline_in_the_title_and_bars() {
    let mut host = DclHost::start();
    let mut h = window(Launch {
        connect: Some(host.url()),
        ..Launch::default()
    });
    frames_until(&mut h, "the connection", |a| {
        live_state(a) == Some(LinkState::Connected)
    });
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
    host.settle_files();
    host.kill();
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
