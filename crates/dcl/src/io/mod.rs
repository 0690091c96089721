//! Files in and out: scenetree's native JSON, Decentraland's `main.crdt` and `main.composite`,
//! scenario (lesson) files, atomic saves. Every reader is all or nothing and reports the file,
//! the place in it, and what was wrong.
//!
//! [`open_scene`] returns the replica with a [`SaveContext`]: what the file held beyond the
//! replica (a main.crdt's message order, a composite's structure and the values scenetree keeps
//! without loading). The editor keeps the context with its document and passes it to
//! [`save_scene_with`], so a file opened and saved unedited comes back unchanged.

pub mod atomic;
pub mod dcl_composite;
pub mod dcl_crdt;
pub mod entity_names;
mod error;
pub mod native;
pub mod project;
pub mod recovery;
/// Scenario files of the peers simulation.
pub mod scenario;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use atomic::{
    ContentHash, FileLook, FileStamp, FileVersion, PreparedFile, StreamedFile, WriteConsent,
    WriteError, is_read_only, write_atomic, write_atomic_with,
};
pub use dcl_composite::{CompositeDoc, CompositeReport};
pub use dcl_crdt::CrdtLayout;
pub use error::{LoadError, Location, SaveError, SaveErrorKind};

use scenetree_core::crdt::Replica;
use scenetree_core::model::{Entity, TransformProblem, present};

/// The file formats scenetree reads and writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SceneFormat {
    /// `*.json` in the native `scenetree/1` format.
    Native,
    /// Decentraland's binary `main.crdt` (`*.crdt`).
    DclCrdt,
    /// The Decentraland Inspector's `main.composite` (`*.composite`).
    DclComposite,
}

impl SceneFormat {
    /// The format a path's extension names, if any.
    pub fn from_path(path: &Path) -> Option<SceneFormat> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "json" => Some(SceneFormat::Native),
            "crdt" => Some(SceneFormat::DclCrdt),
            "composite" => Some(SceneFormat::DclComposite),
            _ => None,
        }
    }

    /// The format of a file to open, by its extension, or an error that lists the formats
    /// scenetree opens.
    pub fn of_file_to_open(path: &Path) -> Result<SceneFormat, LoadError> {
        Self::from_path(path).ok_or_else(|| {
            LoadError::file(
                path,
                format!("unknown file type: scenetree opens {KNOWN_EXTENSIONS} files"),
            )
        })
    }

    /// A short name for messages (`main.crdt`, …).
    pub fn label(self) -> &'static str {
        match self {
            SceneFormat::Native => "native scene (.json)",
            SceneFormat::DclCrdt => "main.crdt",
            SceneFormat::DclComposite => "main.composite",
        }
    }
}

const KNOWN_EXTENSIONS: &str =
    ".json (native), .crdt (Decentraland main.crdt) or .composite (Decentraland main.composite)";

/// What a scene file held beyond its replica, needed to write it back faithfully. Empty
/// (`Default`) for a new scene.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SaveContext {
    /// The message order of the main.crdt the scene was read from.
    pub crdt_layout: Option<CrdtLayout>,
    /// The composite the scene was read from (structure, untouched JSON, preserved values).
    /// Shared, never changed after reading: a save on a worker thread takes it along without
    /// copying every value's JSON (43 MB of text for the 65,024-entity example).
    pub composite: Option<Arc<CompositeDoc>>,
}

impl SaveContext {
    /// What a save in `format` cannot hold of this context: components a composite keeps only
    /// as JSON are lost in any other format.
    fn lost_outside_composite(&self, format: SceneFormat) -> Vec<String> {
        match (&self.composite, format) {
            (Some(doc), SceneFormat::Native | SceneFormat::DclCrdt) => doc
                .preserved_components()
                .into_iter()
                .map(|(name, n)| {
                    let name = present::excerpt(name, present::VALUE_CHARS);
                    format!("{name}: {n} value(s) kept only as main.composite JSON")
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// A scene file read into memory.
#[derive(Debug)]
pub struct OpenedScene {
    /// The scene state.
    pub replica: Replica,
    /// The format it was read as.
    pub format: SceneFormat,
    /// What a faithful save needs; keep it with the document.
    pub context: SaveContext,
    /// Things worth telling the user (messages skipped, values kept but not loaded).
    pub notes: Vec<String>,
}

/// Opens a scene file of any supported format (by extension).
pub fn open_scene(path: &Path) -> Result<OpenedScene, LoadError> {
    SceneFormat::of_file_to_open(path)?;
    let bytes =
        std::fs::read(path).map_err(|e| LoadError::file(path, format!("cannot read: {e}")))?;
    open_scene_bytes(path, &bytes)
}

/// Opens a scene from its file's bytes (already read, e.g. with progress); `path` names the
/// file in errors and decides the format by its extension.
pub fn open_scene_bytes(path: &Path, bytes: &[u8]) -> Result<OpenedScene, LoadError> {
    let format = SceneFormat::of_file_to_open(path)?;
    let text = || {
        std::str::from_utf8(bytes).map_err(|e| LoadError {
            path: path.to_path_buf(),
            location: Location::Byte(e.valid_up_to()),
            message: format!("not UTF-8 text; a {} is JSON", format.label()),
        })
    };
    let mut context = SaveContext::default();
    let mut notes = Vec::new();
    let replica = match format {
        SceneFormat::Native => native::parse_native(path, text()?)?,
        SceneFormat::DclCrdt => {
            if bytes.is_empty() {
                // Valid (a stream of no messages), but rarely meant: say so.
                notes.push(format!("{EMPTY_FILE_NOTE}: it holds no messages"));
            }
            crdt_replica(dcl_crdt::parse_crdt(path, bytes)?, &mut context, &mut notes)
        }
        SceneFormat::DclComposite => {
            let (replica, doc, report) = dcl_composite::parse_composite(path, text()?)?;
            notes.extend(report.preserved.iter().map(|(name, n, why)| {
                let name = present::excerpt(name, present::VALUE_CHARS);
                format!("{name}: {n} value(s) kept as written, not loaded: {why}")
            }));
            notes.extend(report.warnings);
            context.composite = Some(Arc::new(doc));
            replica
        }
    };
    Ok(opened_with_notes(replica, format, context, notes))
}

/// What can still be read of a damaged `main.crdt` (see [`salvage_scene_bytes`]).
#[derive(Debug)]
pub struct SalvagedScene {
    /// The messages before the damage, opened as a scene; its notes say what was left out.
    pub opened: OpenedScene,
    /// Where the damage is and what precedes it.
    pub damage: Damage,
}

/// Where a damaged stream stops being readable.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Damage {
    /// How many messages precede it.
    pub messages: usize,
    /// The byte offset of the first message that could not be read.
    pub at: usize,
    /// The file's length in bytes.
    pub len: usize,
}

/// The messages of a damaged `.crdt` file before its first unreadable one, opened as a scene,
/// for the user to look at and save elsewhere; `None` for the other formats (JSON has no
/// self-contained prefix), for a file that reads whole, or when nothing precedes the damage.
pub fn salvage_scene_bytes(path: &Path, bytes: &[u8]) -> Option<SalvagedScene> {
    if SceneFormat::from_path(path) != Some(SceneFormat::DclCrdt) {
        return None;
    }
    let damaged = dcl_crdt::readable_start(bytes)?;
    let messages = damaged.before.messages.len();
    if messages == 0 {
        return None;
    }
    let damaged_at = damaged.damage.offset;
    let mut context = SaveContext::default();
    let mut notes = vec![format!(
        "read only the {messages} message(s) before byte {damaged_at} of {}: {} (the {} byte(s) \
         from there on are not in this scene)",
        damaged.len,
        damaged.damage.kind,
        damaged.len - damaged_at,
    )];
    let replica = crdt_replica(damaged.before, &mut context, &mut notes);
    Some(SalvagedScene {
        opened: opened_with_notes(replica, SceneFormat::DclCrdt, context, notes),
        damage: Damage {
            messages,
            at: damaged_at,
            len: damaged.len,
        },
    })
}

/// The replica of a main.crdt's messages, its order kept in `context` for a faithful save and
/// the skipped unknown messages told in `notes`.
fn crdt_replica(
    file: dcl_crdt::CrdtFile,
    context: &mut SaveContext,
    notes: &mut Vec<String>,
) -> Replica {
    notes.extend(
        file.skipped_unknown.iter().map(|(offset, ty)| {
            format!("at byte {offset}: skipped a message of unknown type {ty}")
        }),
    );
    context.crdt_layout = Some(CrdtLayout::from_messages(&file.messages));
    Replica::from_messages(&file.messages)
}

/// An opened scene, with the notes every format's replica may need added to `notes`.
fn opened_with_notes(
    replica: Replica,
    format: SceneFormat,
    context: SaveContext,
    mut notes: Vec<String>,
) -> OpenedScene {
    notes.extend(retired_entity_notes(&replica));
    notes.extend(non_finite_notes(&replica));
    OpenedScene {
        replica,
        format,
        context,
        notes,
    }
}

/// Notes naming the entities that hold components although a newer version of their number
/// retired them (a main.crdt with messages for 512 and for 512v1, id 66048): as in @dcl/ecs,
/// a message for version v retires the versions below it, which then ignore every message. The
/// editor still shows what the file held for them, but a save writes the numbers' newest
/// versions only (a native file lists them as deleted). At most ten are named, then a count.
fn retired_entity_notes(replica: &Replica) -> Vec<String> {
    const NAMED: usize = 10;
    let mut retired: Vec<Entity> = (replica.live_entities())
        .filter(|&e| replica.is_deleted(e))
        .collect();
    if retired.is_empty() {
        return Vec::new();
    }
    retired.sort_unstable();
    // The newest live version of each number, which the note names as the one that stays.
    let mut newest: rustc_hash::FxHashMap<u16, Entity> = rustc_hash::FxHashMap::default();
    for e in replica.live_entities().filter(|&e| !replica.is_deleted(e)) {
        let slot = newest.entry(e.number()).or_insert(e);
        *slot = (*slot).max(e);
    }
    let mut notes: Vec<String> = (retired.iter().take(NAMED))
        .map(|&e| {
            let by = match newest.get(&e.number()) {
                Some(kept) => format!(
                    "entity {kept} (id {}), a newer version of its number",
                    kept.0
                ),
                None => "a newer version of its number".to_owned(),
            };
            format!(
                "entity {e} (id {}) is retired by {by}: Decentraland's runtime ignores every \
                 message for a retired version, so its components are shown as read but are \
                 not saved",
                e.0
            )
        })
        .collect();
    if retired.len() > NAMED {
        notes.push(format!(
            "{} more entities are retired by newer versions of their numbers and are not saved",
            retired.len() - NAMED
        ));
    }
    notes
}

/// Notes naming the Transforms that give no finite local matrix: a value that is not a finite
/// number (a NaN, an infinity, or a JSON number beyond `f32`'s range), or a rotation too large
/// to normalize (see [`scenetree_core::model::TransformProblem`]). The viewport cannot draw those
/// entities or anything below them; `tree`, the hierarchy and the inspector count the same
/// entities. The values stay as they are (a save writes them back unchanged) until the user
/// types others. At most ten are named, then a count.
fn non_finite_notes(replica: &Replica) -> Vec<String> {
    const NAMED: usize = 10;
    let mut bad: Vec<(Entity, TransformProblem)> = replica
        .live_entities()
        .filter_map(|e| {
            replica
                .transform(e)
                .and_then(|t| t.problem())
                .map(|p| (e, p))
        })
        .collect();
    bad.sort_unstable_by_key(|(e, _)| *e);
    let mut notes: Vec<String> = bad
        .iter()
        .take(NAMED)
        .map(|(e, problem)| {
            format!(
                "entity {e}: its Transform {}, so it and everything under it cannot be drawn; \
                 type other values in the inspector to fix it",
                scenetree_core::model::present::transform_problem(problem)
            )
        })
        .collect();
    if bad.len() > NAMED {
        notes.push(format!(
            "{} more entities have Transforms that cannot be drawn (values that are not finite \
             numbers, or rotations too large to normalize)",
            bad.len() - NAMED
        ));
    }
    notes
}

/// The start of the note [`open_scene`] adds for a file of 0 bytes.
pub const EMPTY_FILE_NOTE: &str = "the file is empty (0 bytes)";

/// Loads a scene file of any supported format into a fresh replica (the context is dropped;
/// use [`open_scene`] to save back faithfully).
pub fn load_scene(path: &Path) -> Result<Replica, LoadError> {
    open_scene(path).map(|s| s.replica)
}

/// A scene encoded for one format.
#[derive(Clone, Debug, PartialEq)]
pub struct EncodedScene {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// What the format cannot hold of the scene (empty when nothing is lost).
    pub lost: Vec<String>,
}

/// Encodes a replica in `format`, using what `context` kept of the file it came from.
pub fn encode_scene(replica: &Replica, format: SceneFormat, context: &SaveContext) -> EncodedScene {
    let mut lost = context.lost_outside_composite(format);
    let bytes = match format {
        SceneFormat::Native => native::to_native_json(replica).into_bytes(),
        SceneFormat::DclCrdt => match (&context.crdt_layout, &context.composite) {
            (Some(layout), _) => dcl_crdt::to_crdt_bytes_in_layout(replica, layout),
            // A composite's scene in the order the SDK writes its main.crdt.
            (None, Some(doc)) => dcl_crdt::to_composite_crdt_bytes(replica, &doc.sdk_crdt_layout()),
            (None, None) => dcl_crdt::to_state_crdt_bytes(replica),
        },
        SceneFormat::DclComposite => {
            let fresh;
            let doc = match &context.composite {
                Some(doc) => doc,
                None => {
                    fresh = CompositeDoc::new();
                    &fresh
                }
            };
            let out = dcl_composite::composite_json(replica, doc);
            lost.extend(out.lost);
            out.text.into_bytes()
        }
    };
    EncodedScene { bytes, lost }
}

/// Saves a replica atomically in the format the path's extension names, with `context` from
/// [`open_scene`]. When the format cannot hold everything, nothing is written and the error
/// lists what would be lost, unless `allow_loss`; the list is returned either way. A read-only
/// target is refused (see [`save_scene_consenting`]).
pub fn save_scene_with(
    replica: &Replica,
    context: &SaveContext,
    path: &Path,
    allow_loss: bool,
) -> Result<Vec<String>, SaveError> {
    save_scene_consenting(replica, context, path, allow_loss, WriteConsent::default())
}

/// [`save_scene_with`], replacing a read-only target when `consent` says the user agreed.
pub fn save_scene_consenting(
    replica: &Replica,
    context: &SaveContext,
    path: &Path,
    allow_loss: bool,
    consent: WriteConsent,
) -> Result<Vec<String>, SaveError> {
    let format = SceneFormat::from_path(path).ok_or_else(|| {
        SaveError::new(
            path,
            SaveErrorKind::UnknownFormat,
            format!("unknown file type: save as {KNOWN_EXTENSIONS}"),
        )
    })?;
    let encoded = encode_scene(replica, format, context);
    if !encoded.lost.is_empty() && !allow_loss {
        return Err(SaveError::new(
            path,
            SaveErrorKind::WouldLose,
            format!(
                "a {} cannot hold all of this scene, so nothing was written; it would lose: {}",
                format.label(),
                encoded.lost.join("; ")
            ),
        ));
    }
    write_encoded(path, encoded, consent)
}

/// Writes a scene already encoded (whose losses the caller accepted) atomically; returns what
/// it lost.
pub fn write_encoded(
    path: &Path,
    encoded: EncodedScene,
    consent: WriteConsent,
) -> Result<Vec<String>, SaveError> {
    write_atomic_with(path, &encoded.bytes, consent)?;
    Ok(encoded.lost)
}

/// Saves a replica atomically in the format the path's extension names (no saved context;
/// components a composite cannot name are left out of one).
pub fn save_scene(replica: &Replica, path: &Path) -> Result<(), SaveError> {
    save_scene_with(replica, &SaveContext::default(), path, true).map(|_| ())
}

/// `path` from the root: its folder resolved (`..` and links in it), its last part kept as
/// named, so a linked scene file stays the link and a save writes through it. The document's
/// path outlives this process in the recent list and the recovery folder, where a path
/// relative to today's working folder would name another file.
pub fn whole_path(path: &Path) -> PathBuf {
    let resolved = match (path.parent(), path.file_name()) {
        (Some(folder), Some(name)) if !folder.as_os_str().is_empty() => {
            folder.canonicalize().map(|f| f.join(name))
        }
        (_, Some(name)) => std::env::current_dir().map(|f| f.join(name)),
        _ => path.canonicalize(),
    };
    resolved
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::whole_path;

    #[cfg(unix)]
    #[test]
    fn a_whole_path_resolves_the_folder_and_keeps_a_linked_file_as_named() {
        let root = tempfile::tempdir().unwrap();
        let folder = root.path().join("scenes");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("room.json"), "{}").unwrap();
        std::os::unix::fs::symlink("room.json", folder.join("link.json")).unwrap();
        let named = root.path().join("scenes/../scenes/link.json");
        let real_folder = folder.canonicalize().unwrap();
        assert_eq!(whole_path(&named), real_folder.join("link.json"));
        // A folder that is not there (yet): from the working folder, as written.
        let missing = std::path::Path::new("not-there/room.json");
        let here = std::env::current_dir().unwrap();
        assert_eq!(whole_path(missing), here.join("not-there/room.json"));
    }
}
