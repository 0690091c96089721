//! Reading one glTF model or texture image from disk into CPU data the viewport can upload and
//! pick against. Runs on the loader's worker threads; nothing here touches GL.
//!
//! The parsing is three-d's own asset loader (`three-d-asset` with its glTF and image
//! features). What this adds: node transforms baked into the vertices, the conversion from
//! glTF's right-handed frame to Decentraland's left-handed one, sRGB textures converted to
//! linear once here instead of on the UI thread, each material's alpha mode and sidedness
//! (read with the `gltf` crate, which three-d-asset does not pass on), the model's bounds and
//! its triangles for picking.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use glam::{Mat4, Vec3};
use three_d::{CpuMaterial, CpuMesh, CpuTexture, Positions, TextureData};

use super::levels::StagedTexture;
use crate::bounds::Aabb;

/// How a material treats the alpha of its base colour (glTF `alphaMode`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum AlphaMode {
    /// Alpha is ignored.
    Opaque,
    /// Fragments with alpha below the cutoff are discarded; the rest are opaque.
    Mask(f32),
    /// Blended over what is behind.
    Blend,
}

/// One material of a model, textures already in the colour space the GPU wants.
#[derive(Clone, Debug)]
pub struct ModelMaterial {
    /// three-d's CPU material, its textures moved out into [`Self::textures`].
    pub cpu: CpuMaterial,
    /// The material's textures, staged for upload.
    pub textures: SurfaceTextures,
    /// Alpha handling.
    pub alpha: AlphaMode,
    /// Drawn from both sides (otherwise back faces are culled, as the runtime does).
    pub double_sided: bool,
}

/// A model material's textures, staged for upload (the albedo and emissive ones in linear
/// sRGB already). Normal maps are left out (see `prepare`).
#[derive(Clone, Debug, Default)]
pub struct SurfaceTextures {
    /// Base colour.
    pub albedo: Option<StagedTexture>,
    /// Metallic in blue, roughness in green (glTF's layout).
    pub metallic_roughness: Option<StagedTexture>,
    /// Ambient occlusion in red, when it is a texture of its own.
    pub occlusion: Option<StagedTexture>,
    /// The metallic-roughness texture holds the occlusion too, in red (glTF's packed ORM).
    pub occlusion_in_metallic_roughness: bool,
    /// Emitted light.
    pub emissive: Option<StagedTexture>,
}

impl SurfaceTextures {
    /// Moves the textures out of `cpu` and stages them.
    fn take_from(cpu: &mut CpuMaterial) -> SurfaceTextures {
        let stage = |t: &mut Option<CpuTexture>| t.take().map(StagedTexture::new);
        let packed = stage(&mut cpu.occlusion_metallic_roughness_texture);
        let occlusion_in_metallic_roughness = packed.is_some();
        let metallic_roughness = packed.or_else(|| stage(&mut cpu.metallic_roughness_texture));
        SurfaceTextures {
            albedo: stage(&mut cpu.albedo_texture),
            metallic_roughness,
            occlusion: stage(&mut cpu.occlusion_texture),
            occlusion_in_metallic_roughness,
            emissive: stage(&mut cpu.emissive_texture),
        }
    }

    /// The staged textures in upload order: albedo, metallic-roughness, occlusion, emissive.
    pub fn slots(&self) -> [Option<&StagedTexture>; 4] {
        [
            self.albedo.as_ref(),
            self.metallic_roughness.as_ref(),
            self.occlusion.as_ref(),
            self.emissive.as_ref(),
        ]
    }
}

/// One drawable piece of a model: a triangle mesh in model space and its material.
#[derive(Clone, Debug)]
pub struct ModelPart {
    /// Vertices in model space (node transforms applied, Decentraland's frame), meters.
    pub mesh: CpuMesh,
    /// Index into [`LoadedModel::materials`]; `None` draws glTF's default material.
    pub material: Option<usize>,
}

/// Counts shown in the inspector.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelStats {
    /// Triangles over all parts.
    pub triangles: usize,
    /// Drawable parts (glTF primitives).
    pub parts: usize,
    /// Textures over all materials.
    pub textures: usize,
}

/// A glTF model ready to upload, in *model space*: the space of the entity that holds the
/// `GltfContainer` (Decentraland's left-handed frame, +Y up, meters; the entity's world matrix
/// maps it to world space).
#[derive(Clone, Debug)]
pub struct LoadedModel {
    /// The file it came from.
    pub path: PathBuf,
    /// The meshes with their materials.
    pub parts: Vec<ModelPart>,
    /// The materials the parts index.
    pub materials: Vec<ModelMaterial>,
    /// The box around every vertex, model space.
    pub bounds: Aabb,
    /// Every triangle, model space, for picking.
    pub triangles: Vec<[Vec3; 3]>,
    /// Counts.
    pub stats: ModelStats,
    /// The other files it was read from (buffers and images named by URI).
    pub dependencies: Vec<PathBuf>,
}

/// A texture image for a `core::Material`, decoded and converted to linear sRGB.
#[derive(Clone, Debug)]
pub struct LoadedTexture {
    /// The file it came from.
    pub path: PathBuf,
    /// The pixels.
    pub cpu: CpuTexture,
    /// Some pixel is not fully opaque.
    pub has_alpha: bool,
}

/// glTF is right-handed with +X to the model's left when it faces +Z; Decentraland (like
/// Unity, whose glTF importer does the same) is left-handed with +X to the right. Mirroring X
/// maps one onto the other, so a model looks the same in both.
pub fn gltf_to_decentraland() -> Mat4 {
    Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0))
}

/// Whether a path names a glTF model (`.glb` or `.gltf`, any case); see
/// [`scenetree_dcl::io::project::is_model_file`].
pub use scenetree_dcl::io::project::is_model_file as is_model_path;

/// Why a model or a texture could not be loaded; shown to the user as one line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AssetLoadError {
    /// The path does not name a `.glb` or `.gltf` file.
    #[error("not a glTF model (.glb or .gltf)")]
    NotAModel,
    /// The file, or one it names (a buffer, an image), could not be read.
    #[error("{0}")]
    Unreadable(String),
    /// The loader refused the file; its message and causes.
    #[error("{0}")]
    Loader(String),
    /// The file is not valid glTF.
    #[error("not a valid glTF file: {0}")]
    NotGltf(String),
    /// The glTF has no scene, so nothing to show.
    #[error("the glTF file has no scene to show")]
    NoScene,
    /// The loader read the file but could not build the model.
    #[error("cannot read the model: {0}")]
    Unusable(String),
    /// A mesh's placement could not be applied.
    #[error("cannot place a mesh: {0}")]
    Placement(String),
    /// A mesh's data is inconsistent (index out of range, attribute lengths differ).
    #[error("a mesh is malformed: {0}")]
    MalformedMesh(String),
    /// Nothing to draw: no triangles in any visible mesh.
    #[error("the model has no triangles to draw")]
    NoTriangles,
    /// A vertex position is a NaN or an infinity.
    #[error("the model has vertices that are not finite numbers")]
    NotFinite,
    /// A texture that is not a PNG or JPEG this loader decodes.
    #[error("not an image scenetree can read (PNG or JPEG): {0}")]
    NotAnImage(String),
    /// The third-party parser panicked on this file (caught).
    #[error("the glTF reader failed on this file: {0}")]
    ReaderPanicked(String),
}

/// Reads and prepares a model. A panic inside the third-party parser (it has a few `unwrap`s
/// on malformed input) is caught and reported as [`AssetLoadError::ReaderPanicked`].
pub fn load_model(path: &Path) -> Result<LoadedModel, AssetLoadError> {
    guarded(|| load_model_unguarded(path))
}

/// Reads and decodes a texture image (PNG or JPEG).
pub fn load_texture(path: &Path) -> Result<LoadedTexture, AssetLoadError> {
    guarded(|| {
        let bytes = std::fs::read(path)
            .map_err(|e| AssetLoadError::Unreadable(format!("cannot read: {e}")))?;
        let mut cpu: CpuTexture = three_d_asset::io::deserialize(&path.to_string_lossy(), bytes)
            .map_err(|e| AssetLoadError::NotAnImage(describe(path, &e)))?;
        to_color_data(&mut cpu.data);
        let has_alpha = matches!(&cpu.data, TextureData::RgbaU8(d) if d.iter().any(|p| p[3] < 255));
        cpu.data.to_linear_srgb();
        Ok(LoadedTexture {
            path: path.to_path_buf(),
            cpu,
            has_alpha,
        })
    })
}

fn guarded<T>(f: impl FnOnce() -> Result<T, AssetLoadError>) -> Result<T, AssetLoadError> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown error".into());
        Err(AssetLoadError::ReaderPanicked(why))
    })
}

fn load_model_unguarded(path: &Path) -> Result<LoadedModel, AssetLoadError> {
    if !is_model_path(path) {
        return Err(AssetLoadError::NotAModel);
    }
    let mut raw = three_d_asset::io::load(&[path]).map_err(|e| loader_error(path, &e))?;
    let bytes = raw
        .get(path)
        .map_err(|e| AssetLoadError::Loader(e.to_string()))?;
    let document = gltf::Gltf::from_slice(bytes)
        .map_err(|e| AssetLoadError::NotGltf(e.to_string()))?
        .document;
    if document.scenes().next().is_none() {
        return Err(AssetLoadError::NoScene);
    }
    let dependencies = dependencies_of(path, &document);
    let looks: Vec<(AlphaMode, bool)> = document
        .materials()
        .filter(|m| m.index().is_some())
        .map(|m| {
            let alpha = match m.alpha_mode() {
                gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
                gltf::material::AlphaMode::Mask => AlphaMode::Mask(m.alpha_cutoff().unwrap_or(0.5)),
                gltf::material::AlphaMode::Blend => AlphaMode::Blend,
            };
            (alpha, m.double_sided())
        })
        .collect();
    let scene: three_d_asset::Scene = raw
        .deserialize(path)
        .map_err(|e| AssetLoadError::Unusable(describe(path, &e)))?;
    let mut model = prepare(path, scene, &looks)?;
    model.dependencies = dependencies;
    Ok(model)
}

/// The files a glTF model names by URI (its buffers and texture images; data URLs are inside
/// it), resolved as the loader resolves them: joined to the model's folder as written.
fn dependencies_of(path: &Path, document: &gltf::Document) -> Vec<PathBuf> {
    let folder = path.parent().unwrap_or(Path::new(""));
    let buffers = document.buffers().filter_map(|b| match b.source() {
        gltf::buffer::Source::Uri(uri) => Some(uri),
        gltf::buffer::Source::Bin => None,
    });
    let images = document
        .textures()
        .filter_map(|t| match t.source().source() {
            gltf::image::Source::Uri { uri, .. } => Some(uri),
            gltf::image::Source::View { .. } => None,
        });
    let mut files: Vec<PathBuf> = buffers
        .chain(images)
        .filter(|uri| !uri.starts_with("data:"))
        .map(|uri| folder.join(uri))
        .collect();
    files.sort();
    files.dedup();
    files
}

/// The files a model names, read from the model file alone: for a model that failed to load
/// (a buffer or image missing, say), so that adding the file is noticed. Empty when the model
/// file itself cannot be read or parsed.
pub fn model_dependencies(path: &Path) -> Vec<PathBuf> {
    std::fs::read(path)
        .ok()
        .and_then(|bytes| gltf::Gltf::from_slice(&bytes).ok())
        .map_or_else(Vec::new, |g| dependencies_of(path, &g.document))
}

/// A mesh of the model with its placement: the product of its nodes' transforms (glTF space).
struct Placed {
    mesh: CpuMesh,
    transformation: Mat4,
    material: Option<usize>,
}

/// Every mesh under `node`, with the nodes' static transforms (their animations are left out:
/// the editor shows the rest pose). Nodes named `…_collider` are Decentraland's invisible
/// collision meshes and are skipped with their subtrees, as the runtime does.
fn visible_meshes(node: three_d_asset::Node, parent: Mat4, out: &mut Vec<Placed>) {
    if node.name.to_ascii_lowercase().contains("_collider") {
        return;
    }
    let transformation = parent * Mat4::from_cols_array_2d(&node.transformation.into());
    if let Some(three_d::CpuGeometry::Triangles(mesh)) = node.geometry {
        out.push(Placed {
            mesh,
            transformation,
            material: node.material_index,
        });
    }
    for child in node.children {
        visible_meshes(child, transformation, out);
    }
}

/// A loader error of reading the model: unreadable files apart from the rest.
fn loader_error(path: &Path, e: &three_d_asset::Error) -> AssetLoadError {
    match e {
        three_d_asset::Error::FailedLoading(..) => AssetLoadError::Unreadable(describe(path, e)),
        _ => AssetLoadError::Loader(describe(path, e)),
    }
}

/// A loader error as one line, with the causes three-d-asset keeps as sources.
fn describe(path: &Path, e: &three_d_asset::Error) -> String {
    if let three_d_asset::Error::FailedLoading(file, io) = e {
        return if Path::new(file) == path {
            format!("cannot read: {io}")
        } else {
            format!("cannot read {file}, which the model names: {io}")
        };
    }
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

/// Bakes transforms, converts frames and colour spaces, and measures the model.
fn prepare(
    path: &Path,
    scene: three_d_asset::Scene,
    looks: &[(AlphaMode, bool)],
) -> Result<LoadedModel, AssetLoadError> {
    let to_dcl = gltf_to_decentraland();
    let mut placed = Vec::new();
    for node in scene.children {
        visible_meshes(node, Mat4::IDENTITY, &mut placed);
    }
    let materials: Vec<ModelMaterial> = scene
        .materials
        .into_iter()
        .enumerate()
        .map(|(i, mut cpu)| {
            let (alpha, double_sided) = looks.get(i).copied().unwrap_or((AlphaMode::Opaque, false));
            for texture in [&mut cpu.albedo_texture, &mut cpu.emissive_texture]
                .into_iter()
                .flatten()
            {
                to_color_data(&mut texture.data);
                texture.data.to_linear_srgb();
            }
            // Normal maps are left out: every variant of a material is another shader to
            // compile, which costs a noticeable pause on software GL, and an editor's view
            // reads fine without them.
            cpu.normal_texture = None;
            let textures = SurfaceTextures::take_from(&mut cpu);
            ModelMaterial {
                cpu,
                textures,
                alpha,
                double_sided,
            }
        })
        .collect();
    let mut parts = Vec::new();
    let mut triangles = Vec::new();
    let mut stats = ModelStats {
        textures: materials
            .iter()
            .map(|m| m.textures.slots().iter().flatten().count())
            .sum(),
        ..Default::default()
    };
    for Placed {
        mut mesh,
        transformation,
        material,
    } in placed
    {
        let placed = to_dcl * transformation;
        if !placed.is_finite() || placed.determinant().abs() < 1e-20 {
            continue; // a degenerate node shows nothing
        }
        mesh.transform(three_d::Mat4::from(placed.to_cols_array_2d()))
            .map_err(|e| AssetLoadError::Placement(e.to_string()))?;
        mesh.validate()
            .map_err(|e| AssetLoadError::MalformedMesh(e.to_string()))?;
        let material = material.filter(|&i| i < materials.len());
        uniform_attributes(&mut mesh);
        let before = triangles.len();
        collect_triangles(&mesh, &mut triangles);
        if triangles.len() == before {
            continue;
        }
        stats.parts += 1;
        parts.push(ModelPart { mesh, material });
    }
    stats.triangles = triangles.len();
    let bounds = Aabb::from_points(triangles.iter().flatten().copied())
        .ok_or(AssetLoadError::NoTriangles)?;
    if !bounds.min.is_finite() || !bounds.max.is_finite() {
        return Err(AssetLoadError::NotFinite);
    }
    Ok(LoadedModel {
        path: path.to_path_buf(),
        parts,
        materials,
        bounds,
        triangles,
        stats,
        dependencies: Vec::new(),
    })
}

/// Gives every mesh the same vertex attributes (normals, texture coordinates, colours), so
/// all models share one shader: a missing attribute would be another shader variant.
fn uniform_attributes(mesh: &mut CpuMesh) {
    if mesh.normals.is_none() {
        mesh.compute_normals();
    }
    let n = mesh.vertex_count();
    if mesh.uvs.as_ref().is_none_or(|uvs| uvs.len() != n) {
        mesh.uvs = Some(vec![three_d::vec2(0.0, 0.0); n]);
    }
    if mesh.colors.as_ref().is_none_or(|c| c.len() != n) {
        mesh.colors = Some(vec![three_d::Srgba::WHITE; n]);
    }
    mesh.tangents = None;
}

/// Grey and grey-alpha images become RGB(A), which is what the colour shaders read.
fn to_color_data(data: &mut TextureData) {
    match data {
        TextureData::RU8(_) => data.to_color(),
        TextureData::RgU8(grey_alpha) => {
            let rgba = grey_alpha.iter().map(|[g, a]| [*g, *g, *g, *a]).collect();
            *data = TextureData::RgbaU8(rgba);
        }
        _ => {}
    }
}

fn collect_triangles(mesh: &CpuMesh, out: &mut Vec<[Vec3; 3]>) {
    let positions: Vec<Vec3> = match &mesh.positions {
        Positions::F32(p) => p.iter().map(|v| Vec3::new(v.x, v.y, v.z)).collect(),
        Positions::F64(p) => p
            .iter()
            .map(|v| Vec3::new(v.x as f32, v.y as f32, v.z as f32))
            .collect(),
    };
    mesh.for_each_triangle(|a, b, c| out.push([positions[a], positions[b], positions[c]]));
}
