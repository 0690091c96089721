//! A session recording from a real data layer (two scenetree clients making a cycle at once)
//! replays in the simulator to the live session's final state, and delivered in another order
//! shows the cycle the live session had.

use scenetree_core::crdt::network::{DeliveryOrder, MessageFilter, Network};
use scenetree_core::scene::SceneView;
use scenetree_dcl::io::scenario::read_scenario;
use scenetree_editor::{Document, HOST, THIS_EDITOR};

use crate::dcl_host::DclHost;
use crate::support::{ELEVATOR, IMAGE, open, reparent, wait_acknowledged, wait_for};

fn in_cycle(network: &Network, peer: scenetree_core::crdt::PeerId) -> bool {
    let view = SceneView::from_source(network.replica(peer).unwrap());
    view.cycles()
        .iter()
        .any(|c| c.contains(&ELEVATOR) && c.contains(&IMAGE))
}

#[test]
fn a_recorded_cycle_replays_to_the_live_state_and_in_another_order() {
    let host = DclHost::start();
    let mut a = open(&host);
    let mut b = open(&host);
    // Some time passes before the edits: the recording's clock says when they were made.
    std::thread::sleep(std::time::Duration::from_millis(400));
    a.poll_live(None);
    a.apply(reparent(ELEVATOR, IMAGE)).unwrap();
    b.apply(reparent(IMAGE, ELEVATOR)).unwrap();
    let cycle = |d: &Document| !d.view().cycles().is_empty();
    wait_for(&mut a, "the cycle in A", cycle);
    wait_for(&mut b, "the cycle in B", cycle);
    wait_acknowledged(&mut a);
    wait_acknowledged(&mut b);

    // Saved and read back as a scenario file, as File ▸ Save Session Recording… does.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.scenario.json");
    let summary = a.save_live_recording(&path).unwrap();
    let recording = read_scenario(&path).unwrap();
    assert_eq!(summary.steps, recording.steps.len() as u64);
    assert!(
        !recording.replies,
        "the session sent no replies, nor does its replay"
    );
    assert_eq!(
        recording.peers, 2,
        "one peer per writer: this editor and the host"
    );
    assert!(
        (recording.steps.iter()).all(|s| s.text.as_deref().is_some_and(|t| t.contains(" s · "))),
        "every step names its time and writer"
    );

    // Replayed in full: the live session's final state, the cycle on both peers.
    let played = recording.run().unwrap();
    let network = played.network();
    assert_eq!(
        network.replica(THIS_EDITOR).unwrap().digest(),
        a.replica().digest()
    );
    assert_eq!(
        network.replica(HOST).unwrap().digest(),
        a.replica().digest()
    );
    assert!(in_cycle(network, THIS_EDITOR) && in_cycle(network, HOST));

    // Opened as the Peers workspace opens it: every step plays, and the editor shows peer 1.
    let mut doc = Document::default();
    doc.open_lesson(recording.clone()).unwrap();
    while doc.next_lesson_step().is_some() {}
    assert_eq!(doc.replica().digest(), a.replica().digest());
    assert!(cycle(&doc));

    let seconds = |text: &str| -> f64 { text.split(" s · ").next().unwrap().parse().unwrap() };
    let times: Vec<f64> = (recording.steps.iter())
        .map(|s| seconds(s.text.as_deref().unwrap()))
        .collect();
    assert!(
        times.windows(2).all(|w| w[0] <= w[1]),
        "in order: {times:?}"
    );
    assert!(
        times[0] >= 0.4,
        "the first write's time is when it was made: {times:?}"
    );

    // Another order: right after this editor's move, the host's message is delivered first
    // (held back in the live session by nothing but timing); peer 1 shows the cycle at once.
    let first_write = (recording.steps.iter())
        .position(|s| {
            s.text
                .as_deref()
                .is_some_and(|t| t.contains("written by this editor"))
        })
        .expect("this editor's move is recorded");
    let mut replay = recording.start().unwrap();
    for step in 0..=first_write {
        recording.play_step(&mut replay, step).unwrap();
    }
    assert!(
        !in_cycle(&replay, THIS_EDITOR),
        "one move alone makes no cycle"
    );
    // The other client's move as the host relayed it, then everything in reverse order.
    let host_write = (recording.steps.iter())
        .position(|s| {
            s.text
                .as_deref()
                .is_some_and(|t| t.contains("written by the host"))
        })
        .expect("the other window's move is recorded");
    recording.play_step(&mut replay, host_write).unwrap();
    replay.deliver_all(DeliveryOrder::Reverse, MessageFilter::default());
    assert!(in_cycle(&replay, THIS_EDITOR) && in_cycle(&replay, HOST));
}
