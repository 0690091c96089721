//! The three-d side of the viewport: one instanced draw per mesh kind, a selection outline, the
//! ground grid and axes. It draws into whatever three-d `RenderTarget` it is given, so the
//! app (offscreen FBO shown in egui) and the headless tests run the same code.
//!
//! Draw order per frame: unselected items → grid → selection outline (enlarged copies of the
//! selected items in the highlight colour, not writing depth) → selected items on top of
//! their outline, so only a rim of the outline stays visible.

use eframe::egui::Color32;
use glam::{Mat4, Vec3};
use rustc_hash::FxHashMap as HashMap;
use three_d::{
    ClearState, ColorMapping, ColorMaterial, Context, CpuMesh, Cull, EffectMaterialId, Indices,
    InstancedMesh, Instances, Light, Material, MaterialType, Positions, Program, RenderStates,
    RenderTarget, Srgba, ToneMapping, Viewer, Viewport, WriteMask,
};

use crate::ui::style;

use super::{DrawItem, OrbitCamera, ViewportScene, grid::Grid, shape::MARKER_SIZE, shape::Shape};

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
    fn of(shape: &Shape) -> MeshKey {
        let mm = |r: f32| (r.clamp(0.0, 1000.0) * 1000.0).round() as u32;
        match *shape {
            Shape::Box => MeshKey::Box,
            Shape::Sphere => MeshKey::Sphere,
            Shape::Cylinder {
                radius_top,
                radius_bottom,
            } => MeshKey::Cylinder(mm(radius_top), mm(radius_bottom)),
            Shape::Plane => MeshKey::Plane,
            Shape::Marker => MeshKey::Marker,
            Shape::GltfPlaceholder => MeshKey::Gltf,
        }
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
    /// Unselected items.
    pub normal: Instances,
    /// Selected items (tinted).
    pub selected: Instances,
    /// Enlarged copies of the selected items for the outline (no colours).
    pub outline: Instances,
}

/// Per-mesh-kind instance lists built from the scene's items (CPU work only).
pub struct Batches(pub HashMap<MeshKey, BatchInstances>);

impl Batches {
    /// Total number of items placed (outline copies not counted).
    pub fn instance_count(&self) -> usize {
        self.0
            .values()
            .map(|b| b.normal.transformations.len() + b.selected.transformations.len())
            .sum()
    }
}

fn to_three(m: &Mat4) -> three_d::Mat4 {
    three_d::Mat4::from(m.to_cols_array_2d())
}

fn srgba(c: Color32) -> Srgba {
    Srgba::new(c.r(), c.g(), c.b(), 255)
}

/// Groups the items by mesh kind and pass. Items with non-finite matrices are skipped.
pub fn build_batches(items: &[DrawItem]) -> Batches {
    let mut batches: HashMap<MeshKey, BatchInstances> = HashMap::default();
    for item in items {
        let instance = item.shape.instance_matrix(&item.world);
        if !instance.is_finite() {
            continue;
        }
        let batch = batches.entry(MeshKey::of(&item.shape)).or_default();
        let pass = if item.selected {
            &mut batch.selected
        } else {
            &mut batch.normal
        };
        pass.transformations.push(to_three(&instance));
        let color = if item.selected {
            item.color.lerp_to_gamma(style::SELECTION, SELECTION_TINT)
        } else {
            item.color
        };
        pass.colors.get_or_insert_with(Vec::new).push(srgba(color));
        if item.selected {
            batch.outline.transformations.push(to_three(
                &(instance * outline_scale(&item.shape, &instance)),
            ));
        }
    }
    Batches(batches)
}

/// Scales shape space so the outline sticks out by about [`OUTLINE_MARGIN`] world meters on
/// every side, whatever the item's own scale.
fn outline_scale(shape: &Shape, instance: &Mat4) -> Mat4 {
    let half = shape.local_bounds().max;
    let axis_len = [
        instance.x_axis.truncate().length(),
        instance.y_axis.truncate().length(),
        instance.z_axis.truncate().length(),
    ];
    let factor = |i: usize| {
        let world_half = (half[i] * axis_len[i]).max(1e-3);
        1.0 + OUTLINE_MARGIN / world_half
    };
    Mat4::from_scale(Vec3::new(factor(0), factor(1), factor(2)))
}

struct GpuBatch {
    normal: InstancedMesh,
    selected: InstancedMesh,
    outline: InstancedMesh,
}

/// The viewport's GPU state on one GL context.
pub(crate) struct GpuScene {
    context: Context,
    batches: HashMap<MeshKey, GpuBatch>,
    shaded: ShadedMaterial,
    outline: ColorMaterial,
    grid: Grid,
    uploaded_generation: Option<u64>,
    /// Instance uploads done so far (one per generation change).
    pub uploads: u64,
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
            },
            outline: ColorMaterial {
                color: srgba(style::SELECTION),
                render_states: RenderStates {
                    write_mask: WriteMask::COLOR,
                    cull: Cull::None,
                    ..Default::default()
                },
                ..Default::default()
            },
            grid: Grid::new(context),
            uploaded_generation: None,
            uploads: 0,
            instances: 0,
        }
    }

    /// Re-uploads the instance buffers when `scene.generation` differs from the last upload.
    pub fn upload(&mut self, scene: &ViewportScene) {
        if self.uploaded_generation == Some(scene.generation) {
            return;
        }
        let mut built = build_batches(&scene.items);
        self.instances = built.instance_count();
        // Kinds that disappeared keep their GPU meshes, emptied, for when they come back.
        for (key, gpu) in self.batches.iter_mut() {
            let fresh = built.0.remove(key).unwrap_or_default();
            set_instances(&mut gpu.normal, &fresh.normal);
            set_instances(&mut gpu.selected, &fresh.selected);
            set_instances(&mut gpu.outline, &fresh.outline);
        }
        for (key, fresh) in built.0 {
            let mesh = key.cpu_mesh();
            self.batches.insert(
                key,
                GpuBatch {
                    normal: InstancedMesh::new(&self.context, &fresh.normal, &mesh),
                    selected: InstancedMesh::new(&self.context, &fresh.selected, &mesh),
                    outline: InstancedMesh::new(&self.context, &fresh.outline, &mesh),
                },
            );
        }
        self.uploaded_generation = Some(scene.generation);
        self.uploads += 1;
    }

    /// Clears `target` to `background` and draws the scene as `camera` sees it.
    pub fn render(
        &mut self,
        target: &RenderTarget,
        camera: &OrbitCamera,
        size_px: [u32; 2],
        background: Color32,
    ) {
        let viewer = DclViewer::new(camera, size_px);
        // A headlight from above and to the right of the eye keeps every view readable.
        self.shaded.light_direction =
            (-camera.forward() + camera.up() * 0.8 + camera.right() * 0.5).normalize();
        let [r, g, b, _] = background.to_normalized_gamma_f32();
        target.clear(ClearState::color_and_depth(r, g, b, 1.0, 1.0));
        target.render_with_material(&self.shaded, &viewer, self.pass(Pass::Normal), &[]);
        target
            .write::<three_d::RendererError>(|| {
                self.grid
                    .draw(viewer.projection * viewer.view, camera, viewer.viewport);
                Ok(())
            })
            .expect("the grid draws without fallible steps");
        target.render_with_material(&self.outline, &viewer, self.pass(Pass::Outline), &[]);
        target.render_with_material(&self.shaded, &viewer, self.pass(Pass::Selected), &[]);
    }

    /// The non-empty meshes of one pass.
    fn pass(&self, pass: Pass) -> Vec<&InstancedMesh> {
        self.batches
            .values()
            .map(|b| match pass {
                Pass::Normal => &b.normal,
                Pass::Selected => &b.selected,
                Pass::Outline => &b.outline,
            })
            .filter(|m| m.instance_count() > 0)
            .collect()
    }
}

#[derive(Copy, Clone)]
enum Pass {
    Normal,
    Selected,
    Outline,
}

fn set_instances(mesh: &mut InstancedMesh, instances: &Instances) {
    if mesh.instance_count() > 0 || !instances.transformations.is_empty() {
        mesh.set_instances(instances);
    }
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

/// Diffuse shading with a headlight and a sky term. Normals are turned towards the viewer, so
/// planes are lit from both sides and the mirrored winding of the left-handed view (see
/// `camera.rs`) does not matter.
struct ShadedMaterial {
    /// Unit direction towards the light, world space.
    light_direction: Vec3,
}

impl Material for ShadedMaterial {
    fn fragment_shader_source(&self, _lights: &[&dyn Light]) -> String {
        format!(
            "{}{}",
            ColorMapping::fragment_shader_source(),
            r#"
uniform vec3 lightDirection;
uniform vec3 eyePosition;
in vec3 pos;
in vec3 nor;
in vec4 col;
layout (location = 0) out vec4 outColor;
void main() {
    vec3 n = normalize(nor);
    if (dot(n, eyePosition - pos) < 0.0) { n = -n; }
    float key = max(dot(n, lightDirection), 0.0);
    float sky = 0.5 + 0.5 * n.y;
    outColor = vec4(color_mapping(col.rgb * (0.28 + 0.17 * sky + 0.6 * key)), 1.0);
}
"#
        )
    }
    fn id(&self) -> EffectMaterialId {
        EffectMaterialId(0x0100) // in three-d's range for user materials
    }
    fn use_uniforms(&self, program: &Program, viewer: &dyn Viewer, _lights: &[&dyn Light]) {
        viewer.color_mapping().use_uniforms(program);
        let l = self.light_direction;
        program.use_uniform("lightDirection", three_d::vec3(l.x, l.y, l.z));
        program.use_uniform("eyePosition", viewer.position());
    }
    fn render_states(&self) -> RenderStates {
        RenderStates {
            cull: Cull::None,
            ..Default::default()
        }
    }
    fn material_type(&self) -> MaterialType {
        MaterialType::Opaque
    }
}

/// A (truncated) cone along Y from y = −0.5 (radius `bottom`) to +0.5 (radius `top`), capped.
fn cone_mesh(top: f32, bottom: f32, segments: u32) -> CpuMesh {
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut indices: Vec<u32> = Vec::new();
    let v = three_d::vec3;
    let slope = bottom - top; // the side normal leans up by this over a height of 1
    for s in 0..=segments {
        let a = s as f32 / segments as f32 * std::f32::consts::TAU;
        let (sin, cos) = a.sin_cos();
        let n = v(cos, slope, sin);
        let n = n / (n.x * n.x + n.y * n.y + n.z * n.z).sqrt();
        positions.extend([
            v(cos * bottom, -0.5, sin * bottom),
            v(cos * top, 0.5, sin * top),
        ]);
        normals.extend([n, n]);
    }
    for s in 0..segments {
        let i = 2 * s;
        indices.extend([i, i + 1, i + 2, i + 1, i + 3, i + 2]);
    }
    for (y, r, ny) in [(0.5, top, 1.0), (-0.5, bottom, -1.0)] {
        let center = positions.len() as u32;
        positions.push(v(0.0, y, 0.0));
        normals.push(v(0.0, ny, 0.0));
        for s in 0..=segments {
            let a = s as f32 / segments as f32 * std::f32::consts::TAU;
            positions.push(v(a.cos() * r, y, a.sin() * r));
            normals.push(v(0.0, ny, 0.0));
        }
        for s in 0..segments {
            indices.extend([center, center + 1 + s, center + 2 + s]);
        }
    }
    CpuMesh {
        positions: Positions::F32(positions),
        normals: Some(normals),
        indices: Indices::U32(indices),
        ..Default::default()
    }
}

/// An octahedron [`MARKER_SIZE`] tip to tip, with flat faces.
fn marker_mesh() -> CpuMesh {
    let h = MARKER_SIZE * 0.5;
    let v = three_d::vec3;
    let tips = [
        v(h, 0.0, 0.0),
        v(0.0, 0.0, h),
        v(-h, 0.0, 0.0),
        v(0.0, 0.0, -h),
    ];
    let mut positions = Vec::new();
    for i in 0..4 {
        let (a, b) = (tips[i], tips[(i + 1) % 4]);
        positions.extend([a, b, v(0.0, h, 0.0), b, a, v(0.0, -h, 0.0)]);
    }
    let mut mesh = CpuMesh {
        positions: Positions::F32(positions),
        ..Default::default()
    };
    mesh.compute_normals();
    mesh
}
