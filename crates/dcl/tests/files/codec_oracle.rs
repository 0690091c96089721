//! The component codec against the SDK itself: `oracle/random-components.cjs` makes random
//! values of every protocol-buffer component and serializes them with `@dcl/ecs` 7.28.0's own
//! schemas; scenetree must write the same bytes from the same JSON (or refuse the value where
//! the SDK throws), and decode those bytes to the same JSON, printed the same way. A value
//! holding a wrong JavaScript type (a string where a number belongs), which the SDK coerces,
//! may be refused instead, but never written differently.

use std::collections::BTreeMap;
use std::path::Path;

use scenetree_dcl::codec::{ProtoMessage, protocol_components};
use scenetree_dcl::js::stringify;
use serde_json::Value;

use crate::dcl::node;

/// Random values per component (the run takes a few seconds in node).
const VALUES_PER_COMPONENT: &str = "300";

#[derive(Default)]
struct Tally {
    encoded: usize,
    refused: usize,
    exotic_refused: usize,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn every_component_encodes_and_decodes_as_the_sdk_does() {
    let out = node(
        "random-components.cjs",
        &[Path::new("20261123"), Path::new(VALUES_PER_COMPONENT)],
    );
    let text = String::from_utf8(out).unwrap();
    let mut tally: BTreeMap<String, Tally> = BTreeMap::new();
    let mut failures = Vec::new();
    for line in text.lines() {
        let case: Value = serde_json::from_str(line).unwrap();
        let name = case["component"].as_str().unwrap().to_owned();
        let id = case["id"].as_u64().unwrap() as u32;
        let message = ProtoMessage::of_component(id)
            .unwrap_or_else(|| panic!("{name} ({id}) has no message in the shipped protocol"));
        let input = &case["input"];
        let ours = message.encode(input);
        let t = tally.entry(name.clone()).or_default();
        match (case["bytes"].as_str(), ours) {
            (None, Err(_)) => t.refused += 1,
            (None, Ok(bytes)) => failures.push(format!(
                "{name}: the SDK throws on {input} but scenetree wrote {}",
                hex(&bytes)
            )),
            (Some(_), Err(_)) if case["exotic"] == true => t.exotic_refused += 1,
            (Some(_), Err(e)) => failures.push(format!("{name}: {input} refused: {e}")),
            (Some(theirs), Ok(bytes)) => {
                t.encoded += 1;
                if hex(&bytes) != theirs {
                    failures.push(format!(
                        "{name}: {input}\n  sdk:       {theirs}\n  scenetree: {}",
                        hex(&bytes)
                    ));
                    continue;
                }
                let expected = case["output"].as_str().unwrap();
                match message.decode(&bytes) {
                    Ok(json) if stringify(&json) == expected => {}
                    Ok(json) => failures.push(format!(
                        "{name}: bytes {theirs}\n  sdk:       {expected}\n  scenetree: {}",
                        stringify(&json)
                    )),
                    Err(e) => failures.push(format!("{name}: bytes {theirs} not decoded: {e}")),
                }
            }
        }
    }
    let components: Vec<u32> = protocol_components().map(|(id, _)| id).collect();
    assert_eq!(
        tally.len(),
        components.len(),
        "every component of the protocol is checked"
    );
    let encoded: usize = tally.values().map(|t| t.encoded).sum();
    let refused: usize = tally.values().map(|t| t.refused).sum();
    let exotic: usize = tally.values().map(|t| t.exotic_refused).sum();
    assert!(
        failures.is_empty(),
        "{} of {} values differ from the SDK; first ones:\n{}",
        failures.len(),
        encoded + refused + failures.len(),
        failures[..failures.len().min(8)].join("\n")
    );
    assert!(
        encoded >= 250 * components.len(),
        "{encoded} values compared"
    );
    eprintln!(
        "{} components, {encoded} values identical to the SDK (bytes and JSON), {refused} refused \
         as the SDK refuses them, {exotic} with a wrong JavaScript type refused (the SDK coerces)",
        tally.len()
    );
}
