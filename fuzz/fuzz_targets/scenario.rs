//! Lessons (`.scenario.json`): any text is an error or a scenario that plays to its end, step
//! by step, without a panic (a step that cannot run is an error, as the editor shows it).
#![no_main]

use libfuzzer_sys::fuzz_target;
use scenetree_core::crdt::scenario::{ScenarioPlayer, parse};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(scenario) = parse(text) else {
        return;
    };
    let Ok(mut player) = ScenarioPlayer::new(scenario) else {
        return;
    };
    // Each call plays one step or says the lesson is over; a bound keeps a bug from looping.
    for _ in 0..10_000 {
        if player.next_step_lenient().is_none() {
            break;
        }
    }
});
