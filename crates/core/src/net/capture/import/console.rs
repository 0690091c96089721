//! The console strings in an explorer's log, and the capture module's `NETCAP` lines among them.
//!
//! Each explorer prints a scene's `console.log(s)` its own way:
//! - godot-explorer's Scene Inspector file: one JSON entry a line; a log is
//!   `{"type":"op_call_start",…,"op_name":"op_log","args":"LOG " + JSON text of s}` (the live
//!   WebSocket form wraps entries as `{"type":"SCENE_INSPECTOR","payload":{"entries":[…]}}`);
//! - bevy-explorer with `--scene_log_to_console`: a tracing line ending in
//!   `[<base parcel> <seconds>] LOG ` + the JSON text of s;
//! - the Unity explorer's Scene Debug Console (Copy All) and its MCP `get_scene_logs` answers:
//!   `… SceneLog: ` + s as it is;
//! - anything else: a line holding `NETCAP ` is taken from there to its end.

use std::borrow::Cow;

/// One part of a record the capture module logged:
/// `NETCAP <session> <record> <part>/<parts> <text>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetcapPart<'a> {
    /// The scene run (base-36 `Date.now()` when the scene started).
    pub session: &'a str,
    /// The record: 0 for the player's identity, then one per logged tick.
    pub record: u64,
    /// This part's number, from 1.
    pub part: u32,
    /// How many parts the record has.
    pub parts: u32,
    /// This part's slice of the record's JSON text.
    pub text: &'a str,
}

/// The marker every line of the capture module starts with.
const MARKER: &str = "NETCAP ";

/// The console strings a log line carries that may be module lines: none for a line without the
/// marker, several for a Scene Inspector WebSocket batch. An error says why a line that names
/// the marker cannot be read.
pub fn console_strings(line: &str) -> Result<Vec<Cow<'_, str>>, String> {
    if !line.contains("NETCAP") {
        return Ok(Vec::new());
    }
    let trimmed = line.trim();
    if trimmed.starts_with('{') {
        return godot_strings(trimmed);
    }
    if let Some(at) = trimmed.find("] LOG \"") {
        let literal = &trimmed[at + "] LOG ".len()..];
        return serde_json::from_str::<String>(literal)
            .map(|s| vec![Cow::Owned(s)])
            .map_err(|e| {
                format!(
                    "bevy-explorer's LOG \"…\" is not one whole JSON string ({e}); bevy cuts lines \
                     at 8 KiB, the module's parts fit unless the line was edited"
                )
            });
    }
    if let Some(at) = trimmed.find("SceneLog: ") {
        return Ok(vec![Cow::Borrowed(&trimmed[at + "SceneLog: ".len()..])]);
    }
    match trimmed.find(MARKER) {
        Some(at) => Ok(vec![Cow::Borrowed(&trimmed[at..])]),
        None => Ok(Vec::new()),
    }
}

/// The `op_log` strings of a godot Scene Inspector line (an entry, or a WebSocket batch).
fn godot_strings(line: &str) -> Result<Vec<Cow<'_, str>>, String> {
    let value: serde_json::Value = serde_json::from_str(line).map_err(|e| {
        format!("a godot Scene Inspector line is one JSON object, this one does not parse: {e}")
    })?;
    let entries: Vec<&serde_json::Value> = match value.get("type").and_then(|t| t.as_str()) {
        Some("SCENE_INSPECTOR") => value
            .pointer("/payload/entries")
            .and_then(|e| e.as_array())
            .map(|e| e.iter().collect())
            .unwrap_or_default(),
        _ => vec![&value],
    };
    let mut out = Vec::new();
    for entry in entries {
        let is_log = entry.get("type").and_then(|t| t.as_str()) == Some("op_call_start")
            && entry.get("op_name").and_then(|t| t.as_str()) == Some("op_log");
        let Some(args) = entry
            .get("args")
            .and_then(|a| a.as_str())
            .filter(|_| is_log)
        else {
            continue;
        };
        let Some(literal) = args.strip_prefix("LOG ") else {
            continue;
        };
        let text = serde_json::from_str::<String>(literal).map_err(|e| {
            format!(
                "op_log's args are \"LOG \" and a JSON string; this one is not whole ({e}); godot \
                 cuts a log at 8,192 bytes"
            )
        })?;
        out.push(Cow::Owned(text));
    }
    Ok(out)
}

/// Reads a console string: `None` when it is not a module line, an error when it starts like
/// one but breaks the grammar.
pub fn parse_netcap(text: &str) -> Result<Option<NetcapPart<'_>>, String> {
    let Some(rest) = text.strip_prefix(MARKER) else {
        return Ok(None);
    };
    let bad = |what: &str| {
        let shown: String = text.chars().take(60).collect();
        format!(
            "a NETCAP line is `NETCAP <session> <record> <part>/<parts> <text>`; {what} in {shown:?}…"
        )
    };
    let mut fields = rest.splitn(4, ' ');
    let (Some(session), Some(record), Some(part), Some(body)) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Err(bad("fields are missing"));
    };
    if session.is_empty()
        || !session
            .bytes()
            .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
    {
        return Err(bad("the session is not base-36"));
    }
    let number = |s: &str| {
        s.parse::<u64>()
            .ok()
            .filter(|_| s.bytes().all(|b| b.is_ascii_digit()))
    };
    let record = number(record).ok_or_else(|| bad("the record is not a number"))?;
    let (part, parts) = part
        .split_once('/')
        .and_then(|(p, n)| Some((number(p)?, number(n)?)))
        .and_then(|(p, n)| Some((u32::try_from(p).ok()?, u32::try_from(n).ok()?)))
        .filter(|&(p, n)| (1..=n).contains(&p))
        .ok_or_else(|| bad("the part is not `k/n` with 1 ≤ k ≤ n"))?;
    if body.is_empty() {
        return Err(bad("the text is empty"));
    }
    Ok(Some(NetcapPart {
        session,
        record,
        part,
        parts,
        text: body,
    }))
}
