//! `net::capture::import_logs` on the logs of `tests/fixtures/net-logs` (the capture module run
//! inside real `@dcl/sdk` players by oracle-net, its lines wrapped as each explorer prints them):
//! every form gives the expected capture, and every kind of damage is an error naming the file
//! and line.

use std::path::Path;

use scenetree_core::net::capture::{
    Capture, ImportOptions, LogFile, console_strings, import_logs, parse_netcap,
};

fn fixture(name: &str) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/net-logs");
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The explorers' forms: (name, file of player A, file of player B).
const FORMS: [(&str, &str, &str); 4] = [
    (
        "godot Scene Inspector",
        "godot-scene-inspector-A.jsonl",
        "godot-scene-inspector-B.jsonl",
    ),
    ("bevy stdout", "bevy-stdout-A.log", "bevy-stdout-B.log"),
    (
        "Unity console",
        "unity-console-A.txt",
        "unity-console-B.txt",
    ),
    (
        "Unity MCP get_scene_logs",
        "unity-mcp-get_scene_logs-A.txt",
        "unity-mcp-get_scene_logs-B.txt",
    ),
];

fn import(files: &[(&str, &str)], options: &ImportOptions) -> Result<String, String> {
    let logs: Vec<LogFile<'_>> = files
        .iter()
        .map(|&(name, text)| LogFile { name, text })
        .collect();
    import_logs(&logs, options)
        .map(|i| i.capture.to_jsonl())
        .map_err(|e| e.to_string())
}

#[test]
fn every_explorer_form_imports_to_the_expected_capture() {
    let expected = fixture("expected-import.jsonl");
    for (form, a, b) in FORMS {
        let (a_text, b_text) = (fixture(a), fixture(b));
        let got = import(&[(a, &a_text), (b, &b_text)], &ImportOptions::default())
            .unwrap_or_else(|e| panic!("{form}: {e}"));
        assert_eq!(got, expected, "{form}");
    }
    // The capture holds every non-empty tick of the oracle's own record of the same run.
    let full = Capture::parse(&fixture("capture.jsonl")).unwrap();
    let imported = Capture::parse(&expected).unwrap();
    let non_empty = (full.ticks.iter())
        .filter(|(_, t)| {
            !t.received.is_empty()
                || !t.sent.is_empty()
                || t.renderer.as_ref().is_some_and(|r| !r.0.is_empty())
        })
        .count();
    assert_eq!(imported.ticks.len(), non_empty);
    assert_eq!(imported.header.players, full.header.players);
}

#[test]
fn players_are_listed_in_the_order_their_logs_are_given() {
    let (a, b) = (fixture("bevy-stdout-A.log"), fixture("unity-console-B.txt"));
    let got = import(&[("b", &b), ("a", &a)], &ImportOptions::default()).unwrap();
    let capture = Capture::parse(&got).unwrap();
    let names: Vec<_> = (capture.header.players.iter())
        .map(|p| p.name.clone().unwrap())
        .collect();
    assert_eq!(names, ["B", "A"]);
    // Mixed forms merge the same way; ticks at equal times go in the order given.
    let mut times = capture
        .ticks
        .iter()
        .map(|(_, t)| t.t.as_ref().unwrap().as_f64().unwrap());
    let mut last = f64::MIN;
    assert!(times.all(|t| std::mem::replace(&mut last, t) <= t));
}

/// The fixture's bevy log of player A with one line replaced by `edit(line)`.
fn edited_bevy(which: usize, edit: impl Fn(&str) -> String) -> String {
    let text = fixture("bevy-stdout-A.log");
    let netcap: Vec<usize> = (text.lines().enumerate())
        .filter(|(_, l)| l.contains("NETCAP"))
        .map(|(n, _)| n)
        .collect();
    let target = netcap[which];
    text.lines()
        .enumerate()
        .map(|(n, l)| if n == target { edit(l) } else { l.to_string() })
        .collect::<Vec<_>>()
        .join("\n")
}

fn error_of(text: &str, options: &ImportOptions) -> String {
    import(&[("A.log", text)], options).expect_err("an error")
}

#[test]
fn damaged_logs_are_errors_naming_file_and_line() {
    let strict = ImportOptions::default();
    // A line cut short (bevy cuts at 8 KiB): the JSON string does not end.
    let cut = edited_bevy(2, |l| l[..l.len() - 40].to_string());
    let e = error_of(&cut, &strict);
    assert!(e.starts_with("A.log:5: bevy-explorer's LOG"), "{e}");
    // A module line whose header is broken.
    let broken = edited_bevy(2, |l| l.replacen("1/", "0/", 1));
    let e = error_of(&broken, &strict);
    assert!(e.starts_with("A.log:5: a NETCAP line is"), "{e}");
    assert!(e.contains("1 ≤ k ≤ n"), "{e}");
    // A line lost: a record lacks a part, or a whole record is gone.
    let without = |n: usize| {
        let text = fixture("bevy-stdout-A.log");
        let netcap: Vec<usize> = (text.lines().enumerate())
            .filter(|(_, l)| l.contains("NETCAP"))
            .map(|(n, _)| n)
            .collect();
        let target = netcap[n];
        (text.lines().enumerate())
            .filter(|(k, _)| *k != target)
            .map(|(_, l)| l)
            .collect::<Vec<_>>()
            .join("\n")
    };
    let multi_part = (fixture("bevy-stdout-A.log").lines())
        .filter(|l| l.contains("NETCAP"))
        .position(|l| l.contains(" 2/"))
        .expect("a record in parts");
    let e = error_of(&without(multi_part), &strict);
    assert!(e.starts_with("A.log: session 0: record"), "{e}");
    assert!(e.contains("lacks part 2/"), "{e}");
    let e = error_of(&without(1), &strict);
    assert!(e.contains("records 1 of 0..="), "{e}");
    assert!(e.contains("--allow-gaps"), "{e}");
    let gaps = ImportOptions {
        allow_gaps: true,
        ..ImportOptions::default()
    };
    let imported = import_logs(
        &[LogFile {
            name: "A.log",
            text: &without(1),
        }],
        &gaps,
    )
    .unwrap();
    assert_eq!(imported.warnings.len(), 1, "{:?}", imported.warnings);
    // A record whose JSON is not a capture line names the field.
    let bad_field = edited_bevy(1, |l| {
        l.replacen(r#"\"tick\":0"#, r#"\"tick\":\"zero\""#, 1)
    });
    let e = error_of(&bad_field, &strict);
    assert!(
        e.starts_with("A.log:4: record 1 of session 0, field tick:"),
        "{e}"
    );
    // The same part twice with other text.
    let text = fixture("bevy-stdout-A.log");
    let line = text.lines().find(|l| l.contains("NETCAP 0 1 ")).unwrap();
    let twice = format!("{text}\n{}", line.replace(r#"\"tick\":0"#, r#"\"tick\":9"#));
    let e = error_of(&twice, &strict);
    assert!(e.contains("differs from the one on line 4"), "{e}");
    // …and with the same text, as overlapping MCP pages give it, is one part.
    let overlap = format!("{text}\n{line}");
    assert_eq!(
        import(&[("A.log", &overlap)], &strict),
        import(&[("A.log", &text)], &strict)
    );
    // A godot entry that is not JSON.
    let godot = fixture("godot-scene-inspector-A.jsonl").replacen(
        "{\"type\":\"op_call_start\"",
        "{\"type\":op_call_start",
        3,
    );
    let e = error_of(&godot, &strict);
    assert!(
        e.starts_with("A.log:3: a godot Scene Inspector line is one JSON object"),
        "{e}"
    );
}

#[test]
fn a_reloaded_scene_is_two_sessions_and_the_last_can_be_kept() {
    let text = fixture("unity-console-A.txt");
    let again = text.replace("NETCAP 0 ", "NETCAP 1a ");
    let both = format!("{text}\n{again}");
    let e = error_of(&both, &ImportOptions::default());
    assert!(
        e.contains("has two sessions, 0 (A.log) and 1a (A.log)"),
        "{e}"
    );
    let last = ImportOptions {
        last_session: true,
        ..ImportOptions::default()
    };
    assert_eq!(
        import(&[("A.log", &both)], &last),
        import(&[("A.log", &text)], &last)
    );
}

#[test]
fn several_players_need_times_to_merge() {
    let a = fixture("unity-console-A.txt").replace(r#","t":"#, r#","u":"#);
    let b = fixture("unity-console-B.txt");
    let e = import(&[("A.txt", &a), ("B.txt", &b)], &ImportOptions::default()).unwrap_err();
    assert!(e.starts_with("A.txt:4: tick 0 has no `t`"), "{e}");
}

#[test]
fn console_strings_of_each_form() {
    let inner = r#"NETCAP k9 3 1/2 {"a":"\u00e9"}"#;
    let quoted = serde_json::to_string(inner).unwrap();
    let godot = serde_json::json!({"type":"op_call_start","op_name":"op_log","args":format!("LOG {quoted}")}).to_string();
    let ws = serde_json::json!({"type":"SCENE_INSPECTOR","payload":{"sessionId":"s","entries":[
        {"type":"op_call_start","op_name":"op_log","args":format!("LOG {quoted}")},
        {"type":"crdt","d":"s2r","payload":"NETCAP but not a log"}]}})
    .to_string();
    let bevy = format!(
        "2026-09-15T10:00:00.000000Z  INFO scene_runner::renderer_context: [[0, 0] 1.25] LOG {quoted}"
    );
    let unity = format!("#17 [10:00:00] [Log] SceneLog: {inner}");
    for line in [godot, ws, bevy, unity, inner.to_string()] {
        let strings = console_strings(&line).unwrap();
        assert_eq!(strings.len(), 1, "{line}");
        let part = parse_netcap(&strings[0]).unwrap().unwrap();
        assert_eq!(
            (part.session, part.record, part.part, part.parts, part.text),
            ("k9", 3, 1, 2, r#"{"a":"\u00e9"}"#),
            "{line}"
        );
    }
    assert!(console_strings("plain chatter").unwrap().is_empty());
    assert_eq!(parse_netcap("scene started").unwrap(), None);
    for bad in [
        "NETCAP x",
        "NETCAP K 1 1/1 x",
        "NETCAP a b 1/1 x",
        "NETCAP a 1 2/1 x",
        "NETCAP a 1 1/1 ",
    ] {
        assert!(parse_netcap(bad).is_err(), "{bad}");
    }
}
