//! The capture format `scenetree-net-capture/1`: JSON Lines, UTF-8. The first line is a header
//! naming the players; every later line is one tick of one player, in the order the ticks ran:
//!
//! ```text
//! {"format":"scenetree-net-capture/1","sdk":"7.28.0","players":[{"address":"0x…","name":"A"},…]}
//! {"player":"0x…","tick":0,"received":["<base64>",…],"sent":[{"to":[],"data":"<base64>"}],"renderer":"<base64>","t":0}
//! ```
//!
//! - `received`: each item `sendBinary` returned to the player's scene that tick, as the SDK
//!   gets it (`[u8 len][sender address][CommsMessage][payload]`);
//! - `sent`: each item the scene passed to `sendBinary` (`to`: addresses, `[]` = everyone;
//!   `data`: `[CommsMessage][payload]`);
//! - `renderer` (optional): the CRDT bytes the scene sent to its renderer that tick;
//! - `t` (optional): wall-clock milliseconds, to merge the logs of several players.
//!
//! The header may also say `"dialect":"authoritative"` for the authoritative-server SDK's
//! numbering (mainline when absent). The reader and the writer are the same serde structs, so
//! what one writes the other reads. Blank lines are skipped; every other problem is an error
//! naming the line and the field.

use std::fmt;

use base64::Engine as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::crdt::stream::Dialect;
use crate::model::present::json_syntax_problem;

/// The `format` value of the header.
pub const FORMAT: &str = "scenetree-net-capture/1";

/// Bytes, written as standard base64 with padding.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Base64(pub Vec<u8>);

impl Serialize for Base64 {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&base64::engine::general_purpose::STANDARD.encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for Base64 {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        base64::engine::general_purpose::STANDARD
            .decode(text.as_bytes())
            .map(Base64)
            .map_err(|e| serde::de::Error::custom(format!("not base64: {e}")))
    }
}

/// Which SDK numbering the capture's items use.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DialectName {
    /// `@dcl/sdk` as published: CRDT = 1, REQ = 2, RES = 3.
    #[default]
    Mainline,
    /// The authoritative-server SDK: CRDT = 7, REQ = 8, RES = 9, and CRDT type 8.
    Authoritative,
}

impl From<DialectName> for Dialect {
    fn from(name: DialectName) -> Dialect {
        match name {
            DialectName::Mainline => Dialect::Mainline,
            DialectName::Authoritative => Dialect::Authoritative,
        }
    }
}

/// A player named in the header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CapturePlayer {
    /// The player's address, exactly as its scene's `getUserData` returned it.
    pub address: String,
    /// A short name for people (`"A"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The first line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaptureHeader {
    /// Always [`FORMAT`].
    pub format: String,
    /// The SDK version the players ran (`"7.28.0"`).
    pub sdk: String,
    /// The players, in the order people list them.
    pub players: Vec<CapturePlayer>,
    /// The CommsMessage numbering; mainline when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect: Option<DialectName>,
}

/// An item a scene passed to `sendBinary`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SentItem {
    /// The addresses it was for; empty for everyone.
    pub to: Vec<String>,
    /// `[CommsMessage][payload]`.
    pub data: Base64,
}

/// One tick of one player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaptureTick {
    /// The player's address (one of the header's).
    pub player: String,
    /// The player's tick, counted by the player.
    pub tick: u32,
    /// The items `sendBinary` returned this tick.
    pub received: Vec<Base64>,
    /// The items the scene passed to `sendBinary` this tick.
    pub sent: Vec<SentItem>,
    /// The CRDT bytes sent to the renderer this tick, when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renderer: Option<Base64>,
    /// Wall-clock milliseconds, when recorded (kept as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t: Option<serde_json::Number>,
}

/// A whole capture.
#[derive(Clone, Debug, PartialEq)]
pub struct Capture {
    /// The header line.
    pub header: CaptureHeader,
    /// The ticks, in the order they ran, with the line each was read from (1-based; 0 for
    /// ticks not read from text).
    pub ticks: Vec<(usize, CaptureTick)>,
}

/// A bad line: where, which field, what.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct CaptureError {
    /// The line, from 1.
    pub line: usize,
    /// The JSON path of the bad field (`received[2]`), or empty for the line as a whole.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for CaptureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "line {}: {}", self.line, self.message)
        } else {
            write!(
                f,
                "line {}, field {}: {}",
                self.line, self.field, self.message
            )
        }
    }
}

/// Reads one line as `T`, naming the field of any error.
pub(super) fn read_line<T: for<'de> Deserialize<'de>>(
    line: usize,
    text: &str,
) -> Result<T, CaptureError> {
    let mut json = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut json).map_err(|e| {
        let field = e.path().to_string();
        let inner = e.into_inner();
        let message = if inner.is_syntax() || inner.is_eof() {
            json_syntax_problem(&inner)
        } else {
            let text = inner.to_string();
            let place = format!(" at line {} column {}", inner.line(), inner.column());
            text.strip_suffix(&place).unwrap_or(&text).to_string()
        };
        CaptureError {
            line,
            field: if field == "." { String::new() } else { field },
            message,
        }
    })
}

impl CaptureTick {
    /// The line for a tick the model ran for the player at `address` (what a capture of a
    /// simulated session holds).
    pub fn from_output(address: &str, output: &crate::net::player::TickOutput) -> CaptureTick {
        CaptureTick {
            player: address.to_string(),
            tick: output.tick,
            received: output.inbound.iter().cloned().map(Base64).collect(),
            sent: (output.sent.iter())
                .map(|item| SentItem {
                    to: item.to.clone(),
                    data: Base64(item.data.clone()),
                })
                .collect(),
            renderer: Some(Base64(output.renderer.clone())),
            t: None,
        }
    }
}

impl Capture {
    /// An empty capture of players with these addresses (named A, B, C, … in order), by
    /// `@dcl/sdk` 7.28.0, mainline.
    pub fn new<'a>(addresses: impl IntoIterator<Item = &'a str>) -> Capture {
        let players = (addresses.into_iter().enumerate())
            .map(|(at, address)| CapturePlayer {
                address: address.to_string(),
                name: u8::try_from(at)
                    .ok()
                    .filter(|&n| n < 26)
                    .map(|n| char::from(b'A' + n).to_string()),
            })
            .collect();
        Capture {
            header: CaptureHeader {
                format: FORMAT.to_string(),
                sdk: "7.28.0".to_string(),
                players,
                dialect: None,
            },
            ticks: Vec::new(),
        }
    }

    /// The dialect of the capture's items.
    pub fn dialect(&self) -> Dialect {
        self.header.dialect.unwrap_or_default().into()
    }

    /// Reads a capture (see the module docs).
    pub fn parse(text: &str) -> Result<Capture, CaptureError> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(n, line)| (n + 1, line))
            .filter(|(_, line)| !line.trim().is_empty());
        let Some((first, header_text)) = lines.next() else {
            return Err(CaptureError {
                line: 1,
                field: String::new(),
                message: "the capture is empty: its first line is the header".to_string(),
            });
        };
        let header: CaptureHeader = read_line(first, header_text)?;
        let header_error = |field: String, message: String| CaptureError {
            line: first,
            field,
            message,
        };
        if header.format != FORMAT {
            return Err(header_error(
                "format".into(),
                format!("{:?} is not {FORMAT:?}", header.format),
            ));
        }
        for (at, player) in header.players.iter().enumerate() {
            if header.players[..at]
                .iter()
                .any(|p| p.address == player.address)
            {
                return Err(header_error(
                    format!("players[{at}].address"),
                    format!("{} is listed twice", player.address),
                ));
            }
        }
        let mut ticks = Vec::new();
        for (line, text) in lines {
            let tick: CaptureTick = read_line(line, text)?;
            if !header.players.iter().any(|p| p.address == tick.player) {
                return Err(CaptureError {
                    line,
                    field: "player".into(),
                    message: format!("{} is not among the header's players", tick.player),
                });
            }
            ticks.push((line, tick));
        }
        Ok(Capture { header, ticks })
    }

    /// Writes the capture: the header line, then one line per tick, each ending in `\n`.
    pub fn to_jsonl(&self) -> String {
        let mut out = String::new();
        push_line(&mut out, &self.header);
        for (_, tick) in &self.ticks {
            push_line(&mut out, tick);
        }
        out
    }

    /// The position of a player in the header, by address.
    pub fn player_index(&self, address: &str) -> Option<usize> {
        self.header
            .players
            .iter()
            .position(|p| p.address == address)
    }
}

/// Appends `value` as one line of JSON.
fn push_line(out: &mut String, value: &impl Serialize) {
    // Plain data with string keys: serializing cannot fail.
    out.push_str(&serde_json::to_string(value).unwrap_or_default());
    out.push('\n');
}
