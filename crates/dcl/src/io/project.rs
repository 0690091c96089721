//! Decentraland projects: a folder with a `scene.json`, the scene in
//! `assets/scene/main.composite` (what the Inspector edits) and `main.crdt` (what the runtime
//! loads), and the models and textures the scene names by paths relative to the folder.
//!
//! [`resolve_open`] decides what opening a path means (a project, or one scene file that may
//! sit inside a project); [`open_project_scene`] reads the project's scene; [`encode_project`]
//! and [`write_project`] save it as main.composite, the matching main.crdt and the Inspector's
//! `entity-names.ts`, each atomically;
//! [`Project::resolve_asset`] turns a component's `src` into a file path.

use std::path::{Component, Path, PathBuf};

use super::entity_names::{ENTITY_NAMES_PATH, entity_names_ts};
use super::{
    CrdtLayout, EncodedScene, LoadError, OpenedScene, PreparedFile, SaveContext, SaveError,
    SaveErrorKind, SceneFormat, WriteConsent, dcl_crdt, encode_scene, open_scene, open_scene_bytes,
};
use scenetree_core::crdt::Replica;

/// The file that marks a project's root folder.
pub const SCENE_JSON: &str = "scene.json";
/// Where a project keeps the Inspector's scene, relative to the root.
pub const COMPOSITE_PATH: &str = "assets/scene/main.composite";
/// Where a project keeps the runtime's scene, relative to the root.
pub const CRDT_PATH: &str = "main.crdt";

/// A Decentraland project folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Project {
    /// The folder holding `scene.json`; asset paths are relative to it.
    pub root: PathBuf,
    /// `display.title` from scene.json, when it has one.
    pub title: Option<String>,
    /// What was wrong with scene.json (unreadable, not JSON, no title); the project opens anyway.
    pub notes: Vec<String>,
}

/// Why a component's asset path does not name a file of the project.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AssetPathError {
    /// The path is empty.
    #[error("the path is empty")]
    Empty,
    /// A URL: scenetree does not download anything.
    #[error("{0} is a URL; scenetree shows only the project's own files")]
    Remote(String),
    /// An absolute path or one that climbs out of the project with `..`.
    #[error("{0} is outside the project folder")]
    OutsideProject(String),
    /// The scene is not inside a project, so there is no folder to resolve the path against.
    #[error(
        "{0} cannot be found: the scene is not inside a Decentraland project (no scene.json above it)"
    )]
    NoProject(String),
    /// No file at that path (also compared without regard to case).
    #[error("{path} does not exist")]
    Missing {
        /// The path looked for.
        path: PathBuf,
    },
}

impl Project {
    /// The nearest folder at or above `path` that holds a `scene.json`.
    pub fn find_root(path: &Path) -> Option<PathBuf> {
        let start = std::path::absolute(path).ok()?;
        let start = if start.is_dir() {
            start.as_path()
        } else {
            start.parent()?
        };
        start
            .ancestors()
            .find(|dir| is_project_manifest(&dir.join(SCENE_JSON)))
            .map(Path::to_path_buf)
    }

    /// The project whose root is `root`, with its title read from scene.json. Never fails: a
    /// scene.json that cannot be read or is not JSON leaves the title unknown and says why in
    /// [`Project::notes`].
    pub fn at_root(root: &Path) -> Project {
        let path = root.join(SCENE_JSON);
        let mut project = Project {
            root: root.to_path_buf(),
            title: None,
            notes: Vec::new(),
        };
        match std::fs::read(&path) {
            Err(e) => project
                .notes
                .push(format!("{}: cannot read: {e}", path.display())),
            Ok(bytes) => match scene_title(&bytes) {
                Ok(title) => project.title = title,
                Err(why) => project.notes.push(format!(
                    "{}: {why}; the project opens without its title",
                    path.display()
                )),
            },
        }
        project
    }

    /// The project containing `path` (a folder or any file inside it), if any.
    pub fn containing(path: &Path) -> Option<Project> {
        Self::find_root(path).map(|root| Self::at_root(&root))
    }

    /// `assets/scene/main.composite` under the root.
    pub fn composite_path(&self) -> PathBuf {
        self.root.join(COMPOSITE_PATH)
    }

    /// `assets/scene/entity-names.ts` under the root: the Inspector's enum of entity names.
    pub fn entity_names_path(&self) -> PathBuf {
        self.root.join(ENTITY_NAMES_PATH)
    }

    /// `main.crdt` under the root.
    pub fn crdt_path(&self) -> PathBuf {
        self.root.join(CRDT_PATH)
    }

    /// The scene file the project opens: main.composite, else main.crdt.
    pub fn scene_file(&self) -> Result<PathBuf, LoadError> {
        let composite = self.composite_path();
        if composite.is_file() {
            return Ok(composite);
        }
        let crdt = self.crdt_path();
        if crdt.is_file() {
            return Ok(crdt);
        }
        Err(LoadError::file(
            &self.root,
            format!(
                "this Decentraland project has no scene: neither {COMPOSITE_PATH} nor {CRDT_PATH} exists"
            ),
        ))
    }

    /// A name for titles: the scene's title, else the folder's name.
    pub fn display_name(&self) -> String {
        self.title.clone().unwrap_or_else(|| {
            self.root.file_name().map_or_else(
                || self.root.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        })
    }

    /// The file a component's `src` names (`assets/scene/Models/x.glb`, relative to the root, `/`
    /// or `\` separated). When no file has exactly that name, a file whose path differs only in
    /// letter case is accepted: Decentraland serves scene files case-insensitively, so scenes
    /// made on Windows or macOS often spell paths differently from the files.
    pub fn resolve_asset(&self, src: &str) -> Result<PathBuf, AssetPathError> {
        let src = src.trim();
        if src.is_empty() {
            return Err(AssetPathError::Empty);
        }
        if src.contains("://") || src.starts_with("data:") {
            return Err(AssetPathError::Remote(src.to_string()));
        }
        let relative = PathBuf::from(src.replace('\\', "/"));
        let mut parts = Vec::new();
        for part in relative.components() {
            match part {
                Component::Normal(p) => parts.push(p.to_os_string()),
                Component::CurDir => {}
                Component::ParentDir if parts.pop().is_some() => {}
                _ => return Err(AssetPathError::OutsideProject(src.to_string())),
            }
        }
        let exact = parts.iter().fold(self.root.clone(), |p, part| p.join(part));
        if exact.is_file() {
            return Ok(exact);
        }
        find_ignoring_case(&self.root, &parts).ok_or(AssetPathError::Missing { path: exact })
    }
}

/// Whether a path names a glTF model file (`.glb` or `.gltf`, any case): what a
/// `core::GltfContainer` can draw.
pub fn is_model_file(path: &Path) -> bool {
    (path.extension().and_then(|e| e.to_str()))
        .is_some_and(|e| e.eq_ignore_ascii_case("glb") || e.eq_ignore_ascii_case("gltf"))
}

/// Folders a project's models never live in (tools, dependencies, build output, hidden).
const NOT_ASSET_FOLDERS: [&str; 3] = ["node_modules", "bin", "target"];

impl Project {
    /// The `src` of every glTF model file (`.glb`, `.gltf`) in the project, sorted, what a
    /// model picker offers; dependencies, build output and hidden folders are skipped. At
    /// most `limit` are listed (a folder of thousands would make no usable list).
    pub fn model_files(&self, limit: usize) -> Vec<String> {
        let mut found = Vec::new();
        let mut folders = vec![self.root.clone()];
        while let Some(folder) = folders.pop() {
            if found.len() >= limit {
                break; // listed enough: the rest of the tree need not be read
            }
            let Ok(entries) = std::fs::read_dir(&folder) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let path = entry.path();
                if kind.is_dir() {
                    if !name.starts_with('.') && !NOT_ASSET_FOLDERS.contains(&name.as_ref()) {
                        folders.push(path);
                    }
                } else if is_model_file(&path)
                    && found.len() < limit
                    && let Ok(src) = self.asset_src(&path)
                {
                    found.push(src);
                }
            }
        }
        found.sort();
        found
    }

    /// The `src` a component gives to name `file` (`assets/scene/Models/x.glb`: relative to the
    /// root, `/` separated), the inverse of [`Self::resolve_asset`]. `Err` when the file is not
    /// inside the project folder (or cannot be found to tell).
    pub fn asset_src(&self, file: &Path) -> Result<String, AssetPathError> {
        let outside = || AssetPathError::OutsideProject(file.display().to_string());
        let file = file.canonicalize().map_err(|_| AssetPathError::Missing {
            path: file.to_path_buf(),
        })?;
        let root = self.root.canonicalize().map_err(|_| outside())?;
        let relative = file.strip_prefix(&root).map_err(|_| outside())?;
        let parts: Option<Vec<&str>> = relative
            .components()
            .map(|c| c.as_os_str().to_str())
            .collect();
        let parts = parts.filter(|p| !p.is_empty()).ok_or_else(outside)?;
        Ok(parts.join("/"))
    }
}

/// Whether the file at `path` is a Decentraland project's `scene.json` (its manifest) rather
/// than a native scenetree scene that happens to have that name; every path that looks for a
/// project asks this. Decided by content: a native scene says `"format": "scenetree/…"` and has
/// neither of the manifest's `main` and `scene` keys. Any other file is a manifest, also one
/// that cannot be read or parsed (the project then opens with a note saying why).
pub fn is_project_manifest(path: &Path) -> bool {
    if !path.is_file() {
        return false;
    }
    std::fs::read(path).map_or(true, |bytes| !is_native_scene_json(&bytes))
}

/// Whether JSON bytes are a native scene by their top-level keys (values are skipped unread,
/// so a large scene costs one pass over its text).
fn is_native_scene_json(bytes: &[u8]) -> bool {
    use serde::de::IgnoredAny;
    #[derive(serde::Deserialize)]
    struct TopLevel {
        format: Option<serde_json::Value>,
        main: Option<IgnoredAny>,
        scene: Option<IgnoredAny>,
    }
    let Ok(top) = serde_json::from_slice::<TopLevel>(bytes) else {
        return false;
    };
    let native_tag = top
        .format
        .as_ref()
        .and_then(|f| f.as_str())
        .is_some_and(|f| f.starts_with("scenetree/"));
    native_tag && top.main.is_none() && top.scene.is_none()
}

/// `display.title` of a scene.json's bytes (`None` when it has none); `Err` says what is wrong.
fn scene_title(bytes: &[u8]) -> Result<Option<String>, String> {
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| {
        format!(
            "not valid JSON at line {}, column {}: {}",
            e.line(),
            e.column(),
            scenetree_core::model::present::json_syntax_problem(&e)
        )
    })?;
    if !value.is_object() {
        return Err("not a JSON object".into());
    }
    Ok(value
        .pointer("/display/title")
        .and_then(|t| t.as_str())
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string))
}

/// The file under `root` whose path components equal `parts` ignoring ASCII case.
fn find_ignoring_case(root: &Path, parts: &[std::ffi::OsString]) -> Option<PathBuf> {
    let mut dir = root.to_path_buf();
    for (i, part) in parts.iter().enumerate() {
        let want = part.to_string_lossy().to_lowercase();
        let found = std::fs::read_dir(&dir)
            .ok()?
            .flatten()
            .find(|e| e.file_name().to_string_lossy().to_lowercase() == want)?;
        dir = found.path();
        let last = i + 1 == parts.len();
        if last != dir.is_file() {
            return None;
        }
    }
    Some(dir)
}

/// What opening a path means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpenTarget {
    /// A project: its scene file (main.composite, else main.crdt) is opened and saved with both.
    Project {
        /// The project.
        project: Project,
        /// Its scene file.
        scene: PathBuf,
    },
    /// One scene file, saved on its own; `project` is the project it sits in, if any (its
    /// models are drawn and its title shown).
    File {
        /// The scene file.
        path: PathBuf,
        /// The project around it.
        project: Option<Project>,
    },
}

impl OpenTarget {
    /// The scene file to read.
    pub fn scene_path(&self) -> &Path {
        match self {
            OpenTarget::Project { scene, .. } => scene,
            OpenTarget::File { path, .. } => path,
        }
    }

    /// The project, if any.
    pub fn project(&self) -> Option<&Project> {
        match self {
            OpenTarget::Project { project, .. } => Some(project),
            OpenTarget::File { project, .. } => project.as_ref(),
        }
    }
}

/// Decides what to open for `path`: a folder, or any file inside a project other than a scene
/// file, opens the project (the folder with scene.json at or above it); a scene file
/// (`.json`, `.crdt`, `.composite`) opens itself, as the project when it is the project's scene
/// file.
pub fn resolve_open(path: &Path) -> Result<OpenTarget, LoadError> {
    if let Err(e) = std::fs::metadata(path) {
        // An unknown file type says which types there are; a known one (or a folder's name)
        // why it cannot be read.
        if path.extension().is_some() {
            SceneFormat::of_file_to_open(path)?;
        }
        return Err(LoadError::file(path, format!("cannot read: {e}")));
    }
    let is_scene_file = path.is_file()
        && SceneFormat::from_path(path).is_some()
        && !(path.file_name().is_some_and(|n| n == SCENE_JSON) && is_project_manifest(path));
    let project = Project::containing(path);
    if is_scene_file {
        return Ok(match project {
            Some(project) if is_project_scene(&project, path) => OpenTarget::Project {
                scene: path.to_path_buf(),
                project,
            },
            project => OpenTarget::File {
                path: path.to_path_buf(),
                project,
            },
        });
    }
    let Some(project) = project else {
        return Err(LoadError::file(
            path,
            if path.is_dir() {
                "not a Decentraland project: no scene.json in this folder or any folder above it"
            } else {
                "not a scene file (.json, .crdt, .composite) and not inside a Decentraland project (no scene.json above it)"
            },
        ));
    };
    let scene = project.scene_file()?;
    Ok(OpenTarget::Project { project, scene })
}

/// A scene file a folder that is not a project holds, where a project keeps its scene:
/// `assets/scene/main.composite`, `main.composite`, `assets/scene/main.crdt` or `main.crdt`.
pub fn scene_file_in(folder: &Path) -> Option<PathBuf> {
    [
        "assets/scene/main.composite",
        "main.composite",
        "assets/scene/main.crdt",
        "main.crdt",
    ]
    .iter()
    .map(|relative| folder.join(relative))
    .find(|candidate| candidate.is_file())
}

/// True when `path` is the scene file the project opens.
fn is_project_scene(project: &Project, path: &Path) -> bool {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    project.scene_file().is_ok_and(|scene| same(&scene, path))
}

/// Reads a project's scene file. When it is main.composite, the project's main.crdt lends its
/// message order to the save context, so saving rewrites main.crdt in its own order; a main.crdt
/// that cannot be read only adds a note.
pub fn open_project_scene(project: &Project, scene: &Path) -> Result<OpenedScene, LoadError> {
    let mut opened = open_scene(scene)?;
    attach_crdt_layout(project, &mut opened);
    Ok(opened)
}

/// Adds the project's main.crdt message order to a scene opened from its main.composite.
pub fn attach_crdt_layout(project: &Project, opened: &mut OpenedScene) {
    opened.notes.extend(project.notes.iter().cloned());
    if opened.format != SceneFormat::DclComposite {
        return;
    }
    let crdt = project.crdt_path();
    if !crdt.is_file() {
        return;
    }
    match dcl_crdt::read_crdt(&crdt) {
        Ok(file) => opened.context.crdt_layout = Some(CrdtLayout::from_messages(&file.messages)),
        Err(e) => opened.notes.push(format!(
            "{e}; saving the project writes a new main.crdt in canonical order"
        )),
    }
}

/// The files a project save writes, encoded: main.composite (when the project has one, or has
/// neither file), main.crdt, and `assets/scene/entity-names.ts` when its text changes.
#[derive(Clone, Debug, PartialEq)]
pub struct ProjectFiles {
    /// Each file and its bytes, in the order they are written.
    pub files: Vec<(PathBuf, EncodedScene)>,
}

impl ProjectFiles {
    /// What the files cannot hold, each entry prefixed with the file's name.
    pub fn lost(&self) -> Vec<String> {
        self.files
            .iter()
            .flat_map(|(path, encoded)| {
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
                encoded
                    .lost
                    .iter()
                    .map(move |l| format!("{}: {l}", name.as_deref().unwrap_or("?")))
            })
            .collect()
    }

    /// The files' names in writing order, as a phrase: "main.composite, main.crdt and
    /// entity-names.ts".
    pub fn names(&self) -> String {
        let names: Vec<String> = self
            .files
            .iter()
            .map(|(path, _)| {
                path.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            Some((last, _)) => last.clone(),
            None => String::new(),
        }
    }
}

/// Encodes the replica as the project's files: main.composite (kept structure and untouched
/// JSON from `context`), the matching main.crdt (as the SDK's build writes it: a PUT per
/// value at timestamp 0, in the project's message order when known) and, as the Inspector
/// does beside its composite, `entity-names.ts` when the names changed (see
/// [`super::entity_names`]). A project with only a main.crdt gets only a main.crdt, with the
/// replica's whole state: there it is the scene itself.
pub fn encode_project(replica: &Replica, context: &SaveContext, project: &Project) -> ProjectFiles {
    let crdt_only = !project.composite_path().is_file() && project.crdt_path().is_file();
    let mut files = Vec::new();
    let crdt = if crdt_only {
        encode_scene(replica, SceneFormat::DclCrdt, context)
    } else {
        let composite = encode_scene(replica, SceneFormat::DclComposite, context);
        // The composite is the scene; main.crdt is what the SDK's build derives from it, and
        // exactly what `scenetree convert` writes from the saved composite: its entities
        // sorted as the SDK sorts them (a main.crdt's own order put a new entity last, and
        // the next SDK build rewrote the file).
        let crdt = match open_scene_bytes(&project.composite_path(), &composite.bytes) {
            Ok(saved) => EncodedScene {
                bytes: encode_scene(&saved.replica, SceneFormat::DclCrdt, &saved.context).bytes,
                lost: context.lost_outside_composite(SceneFormat::DclCrdt),
            },
            // Not expected (scenetree reads what it writes); the replica in the SDK's order.
            Err(_) => EncodedScene {
                bytes: dcl_crdt::to_sdk_build_bytes(replica, &sdk_layout(context)),
                lost: context.lost_outside_composite(SceneFormat::DclCrdt),
            },
        };
        files.push((project.composite_path(), composite));
        crdt
    };
    files.push((project.crdt_path(), crdt));
    if !crdt_only {
        // Written only when its text changes, as the Inspector does: an unchanged file keeps
        // its time, so the SDK's watcher does not rebuild the scene for nothing.
        let path = project.entity_names_path();
        let text = entity_names_ts(replica);
        if std::fs::read(&path).ok().as_deref() != Some(text.as_bytes()) {
            let encoded = EncodedScene {
                bytes: text.into_bytes(),
                lost: Vec::new(),
            };
            files.push((path, encoded));
        }
    }
    ProjectFiles { files }
}

/// The order the SDK writes a main.crdt in for the composite `context` holds (canonical
/// without one).
fn sdk_layout(context: &SaveContext) -> CrdtLayout {
    (context.composite.as_ref()).map_or_else(CrdtLayout::default, |doc| doc.sdk_crdt_layout())
}

/// Writes encoded project files, each atomically, and all of them or none as far as the file
/// system allows: every file's new contents are written and synced beside it first (a full
/// disk, a folder that refuses writes or a read-only file stops the save there, before any
/// file is replaced), then each is renamed into place, the composite first (it is what the
/// Inspector edits).
pub fn write_project(files: &ProjectFiles) -> Result<(), ProjectWriteError> {
    write_project_consenting(files, WriteConsent::default())
}

/// [`write_project`], replacing read-only files when `consent` says the user agreed.
pub fn write_project_consenting(
    files: &ProjectFiles,
    consent: WriteConsent,
) -> Result<(), ProjectWriteError> {
    let unwritten = |error| ProjectWriteError {
        error,
        written: Vec::new(),
        not_written: files.files.iter().map(|(p, _)| p.clone()).collect(),
    };
    let mut prepared = Vec::with_capacity(files.files.len());
    for (path, encoded) in &files.files {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| {
                unwritten(SaveError::new(
                    dir,
                    SaveErrorKind::Io {
                        os_error: e.raw_os_error(),
                    },
                    format!("cannot create the folder: {e}; nothing was replaced"),
                ))
            })?;
        }
        let file = PreparedFile::write_with(path, &encoded.bytes, consent)
            .map_err(|e| unwritten(e.into()))?;
        prepared.push(file);
    }
    let mut written = Vec::with_capacity(prepared.len());
    let mut prepared = prepared.into_iter();
    while let Some(file) = prepared.next() {
        let path = file.path().to_path_buf();
        if let Err(e) = file.commit() {
            // Renames within a folder the temporary was just written to rarely fail; when one
            // does, the files after it are left as they were (their temporaries are dropped).
            return Err(ProjectWriteError {
                error: e.into(),
                written,
                not_written: std::iter::once(path)
                    .chain(prepared.map(|f| f.path().to_path_buf()))
                    .collect(),
            });
        }
        written.push(path);
    }
    Ok(())
}

/// A project save that failed: why, and which of its files were replaced before it stopped
/// (none, unless renaming one into place failed after the others were renamed).
#[derive(Clone, Debug, PartialEq)]
pub struct ProjectWriteError {
    /// What failed, on which file.
    pub error: SaveError,
    /// Files already replaced with their new contents.
    pub written: Vec<PathBuf>,
    /// Files left as they were.
    pub not_written: Vec<PathBuf>,
}

impl std::fmt::Display for ProjectWriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.error)
    }
}
