//! `scenetree net import-log`: one capture from the logs of the capture module
//! (`assets/net-capture.ts`) as explorers print them ([`console`] reads the forms).
//!
//! The module logs, per scene run (a *session*), record 0 = `{"address","name"}` and then one
//! record per tick that received, sent or rendered anything, each a capture line; a record longer
//! than 4,000 characters is split into numbered parts. Importing reassembles each session's
//! records, checks they are all there (the ticks of a replay must be), and merges the players'
//! ticks by `t`, ties in the order the logs are given, each player's ticks in its own order.
//! Ticks with nothing in them are not logged; a replay needs none of them.
//!
//! Every problem is an error naming the file and, where there is one, the line: a module line
//! that breaks the grammar, a part missing or logged twice with other text, a record that is
//! not a capture line, a record number missing (a log that began late or a ring that
//! overflowed), a scene reloaded (two sessions of one player) unless the last is asked for.

mod console;

use std::collections::BTreeMap;
use std::fmt;

use rustc_hash::FxHashMap;

pub use console::{NetcapPart, console_strings, parse_netcap};

use super::format::{Capture, CaptureError, CapturePlayer, CaptureTick, read_line};

/// One log, as read: what to call it in errors, and its text.
#[derive(Copy, Clone, Debug)]
pub struct LogFile<'a> {
    /// The name errors give (its path).
    pub name: &'a str,
    /// The whole log.
    pub text: &'a str,
}

/// What an import may do beyond the strict default.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// The header's `sdk` (the module cannot tell which SDK the scene ran).
    pub sdk: String,
    /// A player with several sessions (its scene reloaded): keep its last one, not an error.
    pub last_session: bool,
    /// Missing records: keep what is there, with a warning, not an error.
    pub allow_gaps: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            sdk: "7.28.0".to_string(),
            last_session: false,
            allow_gaps: false,
        }
    }
}

/// The capture made, and what the import let pass that a user should know.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The capture.
    pub capture: Capture,
    /// One sentence each.
    pub warnings: Vec<String>,
}

/// Why logs could not be imported.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ImportError {
    /// The log's name.
    pub file: String,
    /// The line (from 1), when one is at fault.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// A part's text and the line it came from.
type Part = (String, usize);

/// One record being reassembled.
struct Record {
    parts: Vec<Option<Part>>,
}

/// One scene run in one log.
struct Session {
    file: usize,
    id: String,
    records: BTreeMap<u64, Record>,
}

/// A session reassembled: its player and its ticks in order.
struct Run {
    file: usize,
    id: String,
    player: CapturePlayer,
    ticks: Vec<(usize, CaptureTick)>,
}

/// Builds one capture from `logs` (see the module docs).
pub fn import_logs(logs: &[LogFile<'_>], options: &ImportOptions) -> Result<Imported, ImportError> {
    let mut warnings = Vec::new();
    let mut sessions: Vec<Session> = Vec::new();
    for (file, log) in logs.iter().enumerate() {
        let mut index: FxHashMap<String, usize> = FxHashMap::default();
        for (n, line) in log.text.lines().enumerate() {
            let err = |message: String| ImportError {
                file: log.name.to_string(),
                line: Some(n + 1),
                message,
            };
            for text in console_strings(line).map_err(err)? {
                let Some(part) = parse_netcap(&text).map_err(err)? else {
                    continue;
                };
                let at = *index.entry(part.session.to_string()).or_insert_with(|| {
                    sessions.push(Session {
                        file,
                        id: part.session.to_string(),
                        records: BTreeMap::new(),
                    });
                    sessions.len() - 1
                });
                add_part(&mut sessions[at], &part, n + 1).map_err(err)?;
            }
        }
    }
    let mut runs = Vec::with_capacity(sessions.len());
    for session in sessions {
        let name = logs[session.file].name;
        runs.push(reassemble(session, name, options, &mut warnings)?);
    }
    let runs = one_run_per_player(runs, logs, options, &mut warnings)?;
    let mut capture = Capture::new(std::iter::empty::<&str>());
    capture.header.sdk = options.sdk.clone();
    capture.header.players = runs.iter().map(|r| r.player.clone()).collect();
    capture.ticks = merge_by_time(runs, logs)?;
    Ok(Imported { capture, warnings })
}

fn add_part(session: &mut Session, part: &NetcapPart<'_>, line: usize) -> Result<(), String> {
    let record = session
        .records
        .entry(part.record)
        .or_insert_with(|| Record {
            parts: vec![None; part.parts as usize],
        });
    if record.parts.len() != part.parts as usize {
        return Err(format!(
            "record {} of session {} has {} parts here, {} on an earlier line",
            part.record,
            part.session,
            part.parts,
            record.parts.len()
        ));
    }
    let slot = &mut record.parts[part.part as usize - 1];
    match slot {
        // The same part read twice (overlapping MCP pages, a log given twice) is one part.
        Some((text, _)) if text == part.text => Ok(()),
        Some((_, earlier)) => Err(format!(
            "part {}/{} of record {} of session {} differs from the one on line {earlier}",
            part.part, part.parts, part.record, part.session
        )),
        None => {
            *slot = Some((part.text.to_string(), line));
            Ok(())
        }
    }
}

/// A session's records joined and read: its identity and its ticks.
fn reassemble(
    session: Session,
    name: &str,
    options: &ImportOptions,
    warnings: &mut Vec<String>,
) -> Result<Run, ImportError> {
    let err = |line: Option<usize>, message: String| ImportError {
        file: name.to_string(),
        line,
        message,
    };
    let last = session.records.keys().next_back().copied().unwrap_or(0);
    let missing: Vec<u64> = (0..=last)
        .filter(|r| !session.records.contains_key(r))
        .collect();
    if !missing.is_empty() {
        let message = format!(
            "session {}: records {} of 0..={last} are missing (the log began after the scene did, \
             or the explorer dropped lines); a replay without those ticks is not the session",
            session.id,
            ranges(&missing)
        );
        if !options.allow_gaps {
            return Err(err(
                None,
                format!("{message}; --allow-gaps imports it anyway"),
            ));
        }
        warnings.push(format!("{name}: {message}"));
    }
    let mut identity: Option<CapturePlayer> = None;
    let mut ticks: Vec<(usize, CaptureTick)> = Vec::new();
    for (number, record) in &session.records {
        let mut text = String::new();
        let mut first_line = 0;
        for (k, part) in record.parts.iter().enumerate() {
            let Some((part, line)) = part else {
                return Err(err(
                    None,
                    format!(
                        "session {}: record {number} lacks part {}/{}",
                        session.id,
                        k + 1,
                        record.parts.len()
                    ),
                ));
            };
            if k == 0 {
                first_line = *line;
            }
            text.push_str(part);
        }
        let from_record = |e: CaptureError| {
            let field = if e.field.is_empty() {
                String::new()
            } else {
                format!(", field {}", e.field)
            };
            err(
                Some(first_line),
                format!(
                    "record {number} of session {}{field}: {}",
                    session.id, e.message
                ),
            )
        };
        if *number == 0 {
            identity = Some(read_line(first_line, &text).map_err(from_record)?);
            continue;
        }
        let tick: CaptureTick = read_line(first_line, &text).map_err(from_record)?;
        if let Some((_, previous)) = ticks.last()
            && tick.tick <= previous.tick
        {
            return Err(err(
                Some(first_line),
                format!(
                    "record {number} of session {} is tick {} after tick {}: a session's ticks go up",
                    session.id, tick.tick, previous.tick
                ),
            ));
        }
        ticks.push((first_line, tick));
    }
    let player = match identity {
        Some(identity) => identity,
        // Record 0 lost (allowed above): the ticks still name the player.
        None => match ticks.first() {
            Some((_, tick)) => CapturePlayer {
                address: tick.player.clone(),
                name: None,
            },
            None => {
                return Err(err(
                    None,
                    format!(
                        "session {} logged no record that names its player",
                        session.id
                    ),
                ));
            }
        },
    };
    if let Some((line, tick)) = ticks.iter().find(|(_, t)| t.player != player.address) {
        return Err(err(
            Some(*line),
            format!(
                "session {} is {}'s, yet its tick {} names {}",
                session.id, player.address, tick.tick, tick.player
            ),
        ));
    }
    Ok(Run {
        file: session.file,
        id: session.id,
        player,
        ticks,
    })
}

/// "3, 5-9" for sorted record numbers.
fn ranges(numbers: &[u64]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut at = 0;
    while at < numbers.len() {
        let start = numbers[at];
        let mut end = start;
        while at + 1 < numbers.len() && numbers[at + 1] == end + 1 {
            at += 1;
            end += 1;
        }
        out.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        at += 1;
    }
    out.join(", ")
}

/// Each player's one run: several (its scene reloaded, or its log given twice) are an error
/// unless `last_session` keeps the last one given.
fn one_run_per_player(
    runs: Vec<Run>,
    logs: &[LogFile<'_>],
    options: &ImportOptions,
    warnings: &mut Vec<String>,
) -> Result<Vec<Run>, ImportError> {
    let mut kept: Vec<Run> = Vec::new();
    for run in runs {
        let Some(at) = kept
            .iter()
            .position(|k| k.player.address == run.player.address)
        else {
            kept.push(run);
            continue;
        };
        let earlier = &kept[at];
        let message = format!(
            "{} has two sessions, {} ({}) and {} ({}): its scene reloaded, or a log was given twice",
            run.player.address, earlier.id, logs[earlier.file].name, run.id, logs[run.file].name
        );
        if !options.last_session {
            return Err(ImportError {
                file: logs[run.file].name.to_string(),
                line: None,
                message: format!("{message}; --last-session keeps the last one"),
            });
        }
        warnings.push(format!("{message}; kept {}", run.id));
        kept[at] = run;
    }
    Ok(kept)
}

/// The players' ticks in one order: by `t`, ties to the player given first, each player's in
/// its own order.
fn merge_by_time(
    runs: Vec<Run>,
    logs: &[LogFile<'_>],
) -> Result<Vec<(usize, CaptureTick)>, ImportError> {
    let mut times: Vec<Vec<f64>> = Vec::with_capacity(runs.len());
    for run in &runs {
        let mut run_times = Vec::with_capacity(run.ticks.len());
        for (line, tick) in &run.ticks {
            let t = tick.t.as_ref().and_then(|t| t.as_f64());
            match t {
                Some(t) => run_times.push(t),
                None if runs.len() == 1 => run_times.push(0.0),
                None => {
                    return Err(ImportError {
                        file: logs[run.file].name.to_string(),
                        line: Some(*line),
                        message: format!(
                            "tick {} has no `t`: the logs of several players merge by it",
                            tick.tick
                        ),
                    });
                }
            }
        }
        times.push(run_times);
    }
    let total = runs.iter().map(|r| r.ticks.len()).sum();
    let mut out = Vec::with_capacity(total);
    let mut next = vec![0usize; runs.len()];
    let mut ticks: Vec<std::vec::IntoIter<(usize, CaptureTick)>> =
        runs.into_iter().map(|r| r.ticks.into_iter()).collect();
    while out.len() < total {
        // Few players: a scan per tick is cheaper than a heap.
        let chosen = (0..ticks.len())
            .filter(|&p| next[p] < times[p].len())
            .min_by(|&a, &b| {
                times[a][next[a]]
                    .total_cmp(&times[b][next[b]])
                    .then(a.cmp(&b))
            });
        let Some(p) = chosen else { break };
        next[p] += 1;
        if let Some((_, tick)) = ticks[p].next() {
            // Line numbers of the logs mean nothing in the capture.
            out.push((0, tick));
        }
    }
    Ok(out)
}
