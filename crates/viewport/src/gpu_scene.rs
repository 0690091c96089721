//! The three-d side of the viewport: one instanced draw per mesh kind (and texture), one per
//! part of each loaded model, a selection outline, the ground grid and axes. It draws into
//! whatever three-d `RenderTarget` it is given, so the app (offscreen FBO shown in egui) and
//! the headless tests run the same code.
//!
//! Draw order per frame: unselected items → selection outline (enlarged copies of the selected
//! items in the highlight colour, and of what lies below them in the child colour, not writing
//! depth) → those items on top of their outline, so only a rim of the outline stays visible →
//! blended model parts → the grid, depth-tested, after any multisample resolve.
//!
//! Selected items hidden behind others are not shown through them: a flat see-through fill
//! (tried) tinted everything standing on a selected floor; an outline of only the hidden parts
//! needs a stencil pass three-d does not offer.

use std::sync::Arc;
use std::time::Duration;

use eframe::egui::Color32;
use glam::{Mat4, Vec3};
use rustc_hash::FxHashMap as HashMap;
use three_d::{
    ClearState, ColorMapping, ColorMaterial, Context, CpuMesh, Cull, Instances, RenderStates,
    RenderTarget, Srgba, Texture2DRef, ToneMapping, Viewer, Viewport, WriteMask,
};

use crate::style;

mod incremental;

use super::gpu_instances::InstancedShapes;
use super::gpu_models::{GpuModels, ModelInstances, ModelPass};
use super::models::load::LoadedTexture;
use super::models::{AssetId, SceneAssets};
use super::shaded::{ShadedMaterial, cone_mesh, marker_mesh};
use super::{DrawItem, OrbitCamera, ViewportScene, grid::Grid, shape::Shape};

/// How far the outline extends beyond a selected shape, meters (world space).
const OUTLINE_MARGIN: f32 = 0.04;
/// How much a selected item's own colour moves towards [`style::SELECTION`].
const SELECTION_TINT: f32 = 0.2;

/// Which GPU mesh an item uses. Cylinders are keyed by their radii in millimetres, so cones
/// and cylinders of different proportions get their own (small) meshes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MeshKey {
    /// Unit cube.
    Box,
    /// Radius-0.5 sphere.
    Sphere,
    /// Cylinder with (top, bottom) radii in millimetres.
    Cylinder(u32, u32),
    /// 1 × 1 quad.
    Plane,
    /// The diamond marker.
    Marker,
    /// The glTF stand-in cube.
    Gltf,
}

impl MeshKey {
    /// The mesh of a shape; `None` for a model, which brings its own meshes.
    fn of(shape: &Shape) -> Option<MeshKey> {
        let mm = |r: f32| (r.clamp(0.0, 1000.0) * 1000.0).round() as u32;
        Some(match *shape {
            Shape::Box => MeshKey::Box,
            Shape::Sphere => MeshKey::Sphere,
            Shape::Cylinder {
                radius_top,
                radius_bottom,
            } => MeshKey::Cylinder(mm(radius_top), mm(radius_bottom)),
            Shape::Plane => MeshKey::Plane,
            Shape::Marker => MeshKey::Marker,
            Shape::GltfPlaceholder => MeshKey::Gltf,
            Shape::Model { .. } => return None,
        })
    }

    /// Whether the mesh has texture coordinates (a texture on the others is not drawn).
    fn has_uvs(self) -> bool {
        matches!(self, MeshKey::Box | MeshKey::Plane | MeshKey::Cylinder(..))
    }

    fn cpu_mesh(self) -> CpuMesh {
        let half = three_d::Mat4::from_scale(0.5);
        let mut mesh = match self {
            MeshKey::Box | MeshKey::Gltf => CpuMesh::cube(),
            MeshKey::Sphere => CpuMesh::sphere(8),
            MeshKey::Plane => CpuMesh::square(),
            MeshKey::Cylinder(top, bottom) => {
                return cone_mesh(top as f32 / 1000.0, bottom as f32 / 1000.0, 20);
            }
            MeshKey::Marker => return marker_mesh(),
        };
        mesh.transform(half).expect("scaling a built-in mesh");
        mesh
    }
}

/// The instances of one mesh kind, split by pass.
#[derive(Default)]
pub struct BatchInstances {
    /// Items without an outline.
    pub normal: Instances,
    /// Outlined items: the selected ones (tinted) and those below them.
    pub selected: Instances,
    /// Enlarged copies of the outlined items, each in its outline colour.
    pub outline: Instances,
}

/// Which instanced draw an item of a MeshRenderer shape joins: its mesh and its texture.
pub type BatchKey = (MeshKey, Option<AssetId>);

/// Which instance list an item joins.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A MeshRenderer shape's batch.
    Shape(BatchKey),
    /// A loaded model's.
    Model(AssetId),
}

/// Where an item's instance went in a [`build_batches`]: its list, pass and position there.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// `None`: not drawn (a non-finite matrix).
    pub target: Option<Target>,
    /// In the outlined pass (`selected`, with its copy at the same position in `outline`).
    pub outlined: bool,
    /// Position in the pass's instance arrays.
    pub index: u32,
}

/// Instance lists built from the scene's items (CPU work only): per mesh kind and texture, and
/// per model.
#[derive(Default)]
pub struct Batches {
    /// Shapes, by mesh and texture.
    pub shapes: HashMap<BatchKey, BatchInstances>,
    /// Models, by model.
    pub models: HashMap<AssetId, BatchInstances>,
    /// Where each item went, in the items' order.
    pub slots: Vec<Slot>,
}

impl Batches {
    /// Total number of items placed (outline copies not counted).
    pub fn instance_count(&self) -> usize {
        self.shapes
            .values()
            .chain(self.models.values())
            .map(|b| b.normal.transformations.len() + b.selected.transformations.len())
            .sum()
    }
}

pub(crate) fn to_three(m: &Mat4) -> three_d::Mat4 {
    three_d::Mat4::from(m.to_cols_array_2d())
}

pub(crate) fn srgba(c: Color32) -> Srgba {
    Srgba::new(c.r(), c.g(), c.b(), 255)
}

/// What one item adds to its batch.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct Placement {
    pub target: Target,
    /// The instance matrix: the shape's space to world space.
    pub instance: Mat4,
    pub color: Color32,
    /// An outlined item's outline colour and the enlarged copy's instance matrix.
    pub outline: Option<(Color32, Mat4)>,
}

/// Where and how `item` is drawn; `None` when it is not (a non-finite matrix). Models are
/// drawn in their own colours: their unselected instances carry white, selected ones a warm
/// tint.
pub(crate) fn place(item: &DrawItem) -> Option<Placement> {
    let instance = item.shape.instance_matrix(&item.world);
    if !instance.is_finite() {
        return None;
    }
    let (target, color) = match (MeshKey::of(&item.shape), item.shape) {
        (Some(mesh), _) => {
            let texture = item.texture.filter(|_| mesh.has_uvs());
            let color = if item.selected {
                item.color.lerp_to_gamma(style::SELECTION, SELECTION_TINT)
            } else {
                item.color
            };
            (Target::Shape((mesh, texture)), color)
        }
        (None, Shape::Model { asset, .. }) => {
            // White leaves the model's own colours; every instance has a colour, so
            // selected and unselected instances share one shader.
            let color = if item.selected {
                Color32::WHITE.lerp_to_gamma(style::SELECTION, SELECTION_TINT * 2.0)
            } else {
                Color32::WHITE
            };
            (Target::Model(asset), color)
        }
        (None, _) => return None,
    };
    // Outlined items are drawn after the outlines, so only a rim of each stays visible.
    let outline = if item.selected {
        Some(style::SELECTION)
    } else if item.below_selected {
        Some(style::SELECTION_CHILD)
    } else {
        None
    };
    Some(Placement {
        target,
        instance,
        color,
        outline: outline.map(|c| (c, instance * outline_scale(&item.shape, &instance))),
    })
}

/// Groups the items by mesh kind, texture (or model) and pass (see `place`). Items with
/// non-finite matrices are skipped.
pub fn build_batches(items: &[DrawItem]) -> Batches {
    let mut batches = Batches {
        slots: Vec::with_capacity(items.len()),
        ..Default::default()
    };
    for item in items {
        let Some(placed) = place(item) else {
            let none = Slot {
                target: None,
                outlined: false,
                index: 0,
            };
            batches.slots.push(none);
            continue;
        };
        let batch = match placed.target {
            Target::Shape(key) => batches.shapes.entry(key).or_default(),
            Target::Model(asset) => batches.models.entry(asset).or_default(),
        };
        let pass = if placed.outline.is_some() {
            &mut batch.selected
        } else {
            &mut batch.normal
        };
        let index = pass.transformations.len() as u32;
        pass.transformations.push(to_three(&placed.instance));
        (pass.colors.get_or_insert_with(Vec::new)).push(srgba(placed.color));
        if let Some((color, copy)) = placed.outline {
            batch.outline.transformations.push(to_three(&copy));
            (batch.outline.colors.get_or_insert_with(Vec::new)).push(srgba(color));
        }
        batches.slots.push(Slot {
            target: Some(placed.target),
            outlined: placed.outline.is_some(),
            index,
        });
    }
    batches
}

/// Scales shape space about the shape's centre so the outline sticks out by about
/// [`OUTLINE_MARGIN`] world meters on every side, whatever the item's own scale.
fn outline_scale(shape: &Shape, instance: &Mat4) -> Mat4 {
    let bounds = shape.local_bounds();
    let centre = (bounds.min + bounds.max) * 0.5;
    let half = (bounds.max - bounds.min) * 0.5;
    let axis_len = [
        instance.x_axis.truncate().length(),
        instance.y_axis.truncate().length(),
        instance.z_axis.truncate().length(),
    ];
    let factor = |i: usize| {
        let world_half = (half[i] * axis_len[i]).max(1e-3);
        1.0 + OUTLINE_MARGIN / world_half
    };
    Mat4::from_translation(centre)
        * Mat4::from_scale(Vec3::new(factor(0), factor(1), factor(2)))
        * Mat4::from_translation(-centre)
}

struct GpuBatch {
    normal: InstancedShapes,
    selected: InstancedShapes,
    outline: InstancedShapes,
    /// The batch's material: the shared one, or one with the batch's texture.
    material: Option<ShadedMaterial>,
}

/// How long one frame may spend uploading models before leaving the rest to the next frames,
/// so the UI stays responsive while a scene's models arrive.
const MODEL_UPLOAD_BUDGET: Duration = Duration::from_millis(6);

/// The viewport's GPU state on one GL context.
pub(crate) struct GpuScene {
    context: Context,
    batches: HashMap<BatchKey, GpuBatch>,
    shaded: ShadedMaterial,
    outline: ColorMaterial,
    grid: Grid,
    models: GpuModels,
    /// Each texture on the GPU with the loaded file it came from (a file read again is a new
    /// one: see [`Self::sync_textures`]).
    textures: HashMap<AssetId, (Arc<LoadedTexture>, Texture2DRef)>,
    uploaded_generation: Option<u64>,
    /// Where the last full build put each item (for [`Self::try_update`]).
    slots: Vec<Slot>,
    /// Models of the scene not uploaded yet (see [`MODEL_UPLOAD_BUDGET`]).
    pub models_waiting: bool,
    /// Full instance uploads done so far.
    pub uploads: u64,
    /// Generation changes taken by rewriting only the changed items' instances.
    pub incremental_updates: u64,
    /// Items placed by the last upload.
    pub instances: usize,
}

impl GpuScene {
    pub fn new(context: &Context) -> GpuScene {
        GpuScene {
            context: context.clone(),
            batches: HashMap::default(),
            shaded: ShadedMaterial {
                light_direction: Vec3::Y,
                texture: None,
            },
            // White: each outline copy carries its colour (selected or below the selection).
            outline: ColorMaterial {
                color: Srgba::WHITE,
                render_states: RenderStates {
                    write_mask: WriteMask::COLOR,
                    cull: Cull::None,
                    ..Default::default()
                },
                ..Default::default()
            },
            grid: Grid::new(context),
            models: GpuModels::new(context),
            textures: HashMap::default(),
            uploaded_generation: None,
            slots: Vec::new(),
            models_waiting: false,
            uploads: 0,
            incremental_updates: 0,
            instances: 0,
        }
    }

    /// Models uploaded so far.
    pub fn models_uploaded(&self) -> usize {
        self.models.uploaded
    }

    /// Brings the instance buffers to `scene` when its generation differs from the last
    /// upload (in place for the few changed items when `scene.changes` allows it, else all of
    /// them again), and uploads models that are not on the GPU yet (within a time budget per
    /// call).
    pub fn upload(&mut self, scene: &ViewportScene) {
        if self.uploaded_generation != Some(scene.generation) && !self.try_update(scene) {
            self.upload_instances(scene);
        }
        self.models_waiting = self
            .models
            .upload_within(&scene.assets, MODEL_UPLOAD_BUDGET);
    }

    fn upload_instances(&mut self, scene: &ViewportScene) {
        let mut built = build_batches(&scene.items);
        self.instances = built.instance_count();
        self.slots = std::mem::take(&mut built.slots);
        self.sync_textures(&scene.assets);
        // Kinds that disappeared keep their GPU meshes, emptied, for when they come back.
        for (key, gpu) in self.batches.iter_mut() {
            let fresh = built.shapes.remove(key).unwrap_or_default();
            gpu.normal.set_instances(&fresh.normal);
            gpu.selected.set_instances(&fresh.selected);
            gpu.outline.set_instances(&fresh.outline);
        }
        for (key, fresh) in built.shapes {
            let (mesh_key, texture) = key;
            let material = match texture {
                None => None,
                Some(id) => match self.textures.get(&id) {
                    Some((_, texture)) => Some(ShadedMaterial {
                        texture: Some(texture.clone()),
                        ..self.shaded.clone()
                    }),
                    None => None, // not loaded: drawn in its plain colour
                },
            };
            let mesh = mesh_key.cpu_mesh();
            let shapes = |instances: &Instances| {
                let mut shapes = InstancedShapes::new(&self.context, &mesh);
                shapes.set_instances(instances);
                shapes
            };
            self.batches.insert(
                key,
                GpuBatch {
                    normal: shapes(&fresh.normal),
                    selected: shapes(&fresh.selected),
                    outline: shapes(&fresh.outline),
                    material,
                },
            );
        }
        let models = built
            .models
            .into_iter()
            .map(|(id, b)| {
                let instances = ModelInstances {
                    normal: b.normal,
                    selected: b.selected,
                    outline: b.outline,
                };
                (id, instances)
            })
            .collect();
        self.models.set_instances(models);
        self.uploaded_generation = Some(scene.generation);
        self.uploads += 1;
    }

    /// Uploads the scene's textures that are new, and forgets the ones it no longer has or
    /// that were read again (a file changed on disk), with the batches that draw them: those
    /// are built again below with the new texture.
    fn sync_textures(&mut self, assets: &SceneAssets) {
        let current = |id: &AssetId, source: &Arc<LoadedTexture>| {
            (assets.textures.get(id)).is_some_and(|t| Arc::ptr_eq(t, source))
        };
        self.textures.retain(|id, (source, _)| current(id, source));
        let kept = &self.textures;
        self.batches
            .retain(|(_, texture), _| texture.is_none_or(|t| kept.contains_key(&t)));
        for (id, texture) in &assets.textures {
            self.textures.entry(*id).or_insert_with(|| {
                let gpu = Texture2DRef::from_cpu_texture(&self.context, &texture.cpu);
                (texture.clone(), gpu)
            });
        }
    }

    /// Draws the ground grid and axes over what `target` holds, depth-tested against it. It is
    /// drawn last, into the resolved (not multisampled) image, so its one-pixel lines stay
    /// crisp; the depth buffer must hold the scene's depth.
    pub fn render_grid(&self, target: &RenderTarget, camera: &OrbitCamera, size_px: [u32; 2]) {
        let viewer = DclViewer::new(camera, size_px);
        target
            .write::<three_d::RendererError>(|| {
                self.grid
                    .draw(viewer.projection * viewer.view, camera, viewer.viewport);
                Ok(())
            })
            .expect("the grid draws without fallible steps");
    }

    /// Clears `target` to `background` and draws the scene as `camera` sees it, without the
    /// grid (see [`Self::render_grid`]).
    pub fn render(
        &mut self,
        target: &RenderTarget,
        camera: &OrbitCamera,
        size_px: [u32; 2],
        background: Color32,
    ) {
        let viewer = DclViewer::new(camera, size_px);
        // A key light from above and to the right of the eye keeps every view readable.
        let key = (-camera.forward() + camera.up() * 0.8 + camera.right() * 0.5).normalize();
        self.shaded.light_direction = key;
        self.models.set_key_direction(key);
        for batch in self.batches.values_mut() {
            if let Some(m) = &mut batch.material {
                m.light_direction = key;
            }
        }
        // Markers keep their size on screen: scaled in their own space before the instance
        // matrix, which three-d's animation transform is.
        let marker_scale = three_d::Mat4::from_scale(camera.marker_scale());
        for (key, batch) in &mut self.batches {
            if key.0 == MeshKey::Marker {
                for mesh in [&mut batch.normal, &mut batch.selected, &mut batch.outline] {
                    mesh.set_animation_transform(marker_scale);
                }
            }
        }
        let [r, g, b, _] = background.to_normalized_gamma_f32();
        target.clear(ClearState::color_and_depth(r, g, b, 1.0, 1.0));
        self.render_shapes(target, &viewer, Pass::Normal);
        self.models.render(target, &viewer, ModelPass::Normal);
        self.render_shapes(target, &viewer, Pass::Outline);
        self.models.render_outline(target, &viewer, &self.outline);
        self.render_shapes(target, &viewer, Pass::Selected);
        self.models.render(target, &viewer, ModelPass::Selected);
        self.models.render(target, &viewer, ModelPass::Blended);
    }

    /// Draws one pass of the shapes: the plain ones in one call, each textured batch in its own.
    fn render_shapes(&self, target: &RenderTarget, viewer: &DclViewer, pass: Pass) {
        fn mesh_of(b: &GpuBatch, pass: Pass) -> &InstancedShapes {
            match pass {
                Pass::Normal => &b.normal,
                Pass::Selected => &b.selected,
                Pass::Outline => &b.outline,
            }
        }
        // The outline draws every batch, textured or not, in its outline colours.
        let flat = pass == Pass::Outline;
        let plain: Vec<&InstancedShapes> = self
            .batches
            .values()
            .filter(|b| flat || b.material.is_none())
            .map(|b| mesh_of(b, pass))
            .filter(|m| m.instance_count() > 0)
            .collect();
        let material: &dyn three_d::Material = match pass {
            Pass::Outline => &self.outline,
            Pass::Normal | Pass::Selected => &self.shaded,
        };
        if !plain.is_empty() {
            target.render_with_material(material, viewer, plain, &[]);
        }
        if flat {
            return;
        }
        for batch in self.batches.values() {
            let mesh = mesh_of(batch, pass);
            if let Some(material) = &batch.material
                && mesh.instance_count() > 0
            {
                target.render_with_material(material, viewer, [mesh], &[]);
            }
        }
    }
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Pass {
    Normal,
    Selected,
    Outline,
}

/// three-d's view of our camera: the exact matrices of [`OrbitCamera`], so the left-handed
/// frame is handled in one place.
struct DclViewer {
    eye: Vec3,
    view: three_d::Mat4,
    projection: three_d::Mat4,
    viewport: Viewport,
    z_near: f32,
    z_far: f32,
}

impl DclViewer {
    fn new(camera: &OrbitCamera, size_px: [u32; 2]) -> DclViewer {
        let aspect = size_px[0].max(1) as f32 / size_px[1].max(1) as f32;
        DclViewer {
            eye: camera.eye(),
            view: to_three(&camera.view_matrix()),
            projection: to_three(&camera.projection_matrix(aspect)),
            viewport: Viewport::new_at_origo(size_px[0].max(1), size_px[1].max(1)),
            z_near: camera.z_near(),
            z_far: camera.z_far(),
        }
    }
}

impl Viewer for DclViewer {
    fn position(&self) -> three_d::Vec3 {
        three_d::vec3(self.eye.x, self.eye.y, self.eye.z)
    }
    fn view(&self) -> three_d::Mat4 {
        self.view
    }
    fn projection(&self) -> three_d::Mat4 {
        self.projection
    }
    fn viewport(&self) -> Viewport {
        self.viewport
    }
    fn z_near(&self) -> f32 {
        self.z_near
    }
    fn z_far(&self) -> f32 {
        self.z_far
    }
    fn color_mapping(&self) -> ColorMapping {
        ColorMapping::ComputeToSrgb
    }
    fn tone_mapping(&self) -> ToneMapping {
        ToneMapping::None // colours stay the colours the scene asked for
    }
}
