//! The one error type of every file reader: which file, where in it, and what was expected.

use std::fmt;
use std::path::PathBuf;

use scenetree_core::model::present::{MESSAGE_CHARS, excerpt};

/// Where in a file a problem is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// The whole file (unreadable, wrong kind).
    File,
    /// A byte offset in a binary file.
    Byte(usize),
    /// A line and column in a text file (1-based).
    LineColumn { line: usize, column: usize },
    /// A JSON path such as `entities[3].components["core::Transform"].value.scale`.
    JsonPath(String),
}

/// A file could not be loaded. Loading is all or nothing: the caller never gets half a scene.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// The file that was being read.
    pub path: PathBuf,
    /// Where the problem is.
    pub location: Location,
    /// What was expected and what was found.
    pub message: String,
}

impl LoadError {
    /// An error about the whole file.
    pub fn file(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        LoadError {
            path: path.into(),
            location: Location::File,
            message: message.into(),
        }
    }

    /// A file that is not valid JSON: the line and column serde_json reports.
    pub fn json_syntax(path: impl Into<PathBuf>, error: &serde_json::Error) -> Self {
        LoadError {
            path: path.into(),
            location: Location::LineColumn {
                line: error.line(),
                column: error.column(),
            },
            message: format!(
                "not valid JSON: {}",
                scenetree_core::model::present::json_syntax_problem(error)
            ),
        }
    }

    /// An error at a JSON path.
    pub fn at_json(
        path: impl Into<PathBuf>,
        json_path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        LoadError {
            path: path.into(),
            location: Location::JsonPath(json_path.into()),
            message: message.into(),
        }
    }
}

impl fmt::Display for LoadError {
    /// The file, the place and the message, the message and a JSON path cut to a readable
    /// length ([`excerpt`]): both may repeat the file's text (a key, a name, a parser's
    /// quote of a value), which must not make an 8 MB line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        let message = excerpt(&self.message, MESSAGE_CHARS);
        match &self.location {
            Location::File => write!(f, "{path}: {message}"),
            Location::Byte(offset) => write!(f, "{path}: at byte {offset}: {message}"),
            Location::LineColumn { line, column } => {
                write!(f, "{path}:{line}:{column}: {message}")
            }
            Location::JsonPath(p) => {
                write!(f, "{path}: at {}: {message}", excerpt(p, MESSAGE_CHARS))
            }
        }
    }
}

impl std::error::Error for LoadError {}

/// Why a save wrote nothing. The old file on disk is intact whatever the reason (a project
/// save that stopped half way says which files it did replace: `project::ProjectWriteError`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SaveError {
    /// The file that was to be written, as the caller named it.
    pub path: PathBuf,
    /// Which kind of refusal or failure.
    pub kind: SaveErrorKind,
    /// What failed, for people, without the path.
    pub message: String,
}

/// The kinds of [`SaveError`]: what the user can do about it differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaveErrorKind {
    /// The extension names no format scenetree writes.
    UnknownFormat,
    /// The format cannot hold everything; the user may accept the loss (`--lossy`).
    WouldLose,
    /// The target is read-only for the saving user; the user may consent (`--force`).
    ReadOnly,
    /// The file system refused (a full disk, a read-only file system, a folder the user may
    /// not write): `os_error` is the system's error number when there is one.
    Io {
        /// 28: no space left on the device, 30: read-only file system, 13: permission denied.
        os_error: Option<i32>,
    },
}

impl SaveError {
    /// A save refused or failed for the whole file.
    pub fn new(path: impl Into<PathBuf>, kind: SaveErrorKind, message: impl Into<String>) -> Self {
        SaveError {
            path: path.into(),
            kind,
            message: message.into(),
        }
    }
}

impl From<super::atomic::WriteError> for SaveError {
    fn from(e: super::atomic::WriteError) -> Self {
        let kind = if e.is_read_only() {
            SaveErrorKind::ReadOnly
        } else {
            SaveErrorKind::Io {
                os_error: e.os_error(),
            }
        };
        SaveError::new(e.path(), kind, e.reason())
    }
}

impl fmt::Display for SaveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for SaveError {}
