//! Loaded glTF models on the GPU: each model's meshes and PBR materials uploaded once, drawn
//! instanced for every entity that uses the model, lit by a key light and a sky environment.
//!
//! Uploading happens on the UI thread (the GL context lives there), so it is spread over
//! frames: [`GpuModels::upload_within`] uploads models until its time budget is spent and
//! reports whether any are left.

use std::sync::Arc;
use std::time::{Duration, Instant};

use glam::Vec3;
use rustc_hash::FxHashMap as HashMap;
use three_d::{
    AmbientLight, Blend, Context, CpuTexture, Cull, DirectionalLight, EffectMaterialId,
    Environment, EnvironmentOptions, InstancedMesh, Instances, Interpolation, Light, Material,
    MaterialType, PhysicalMaterial, Program, RenderStates, Srgba, Texture2DRef, TextureCubeMap,
    TextureData, Viewer, Wrapping, WriteMask,
};

use super::gpu_upload::{PendingModel, SurfaceSlots, set_instances};
use super::models::{AlphaMode, AssetId, LoadedModel, SceneAssets};
use super::shaded::opaque_write_mask;

/// A model material: three-d's PBR material, plus glTF's alpha cutoff, which three-d's
/// forward shader supports (`ALPHACUT`) but its material type does not expose.
#[derive(Clone)]
pub(crate) struct ModelSurface {
    pbr: PhysicalMaterial,
    cutoff: Option<f32>,
}

impl ModelSurface {
    /// The material on the GPU. Base colour, metallic-roughness and emissive textures are
    /// always bound (`white` where the model has none, which leaves the factors as they are),
    /// so nearly every model material is the same shader variant: each variant is a shader
    /// compile, which costs a visible pause on software GL.
    fn new(
        material: &super::models::load::ModelMaterial,
        textures: &SurfaceSlots,
        white: &Texture2DRef,
    ) -> ModelSurface {
        let cpu = &material.cpu;
        let [albedo, metallic_roughness, occlusion, emissive] = textures.clone();
        let occlusion = if material.textures.occlusion_in_metallic_roughness {
            metallic_roughness.clone()
        } else {
            occlusion
        };
        let metallic_roughness = metallic_roughness.or_else(|| Some(white.clone()));
        let blend = material.alpha == AlphaMode::Blend;
        let mut render_states = RenderStates {
            write_mask: opaque_write_mask(),
            cull: if material.double_sided {
                Cull::None
            } else {
                Cull::Back
            },
            ..Default::default()
        };
        if blend {
            render_states.write_mask = WriteMask {
                alpha: false,
                ..WriteMask::COLOR
            };
            render_states.blend = Blend::TRANSPARENCY;
        }
        let cutoff = match material.alpha {
            AlphaMode::Mask(c) if albedo.is_some() => Some(c),
            _ => None,
        };
        ModelSurface {
            pbr: PhysicalMaterial {
                name: cpu.name.clone(),
                albedo: cpu.albedo,
                albedo_texture: albedo.or_else(|| Some(white.clone())),
                metallic: cpu.metallic,
                roughness: cpu.roughness,
                metallic_roughness_texture: metallic_roughness,
                occlusion_strength: cpu.occlusion_strength,
                occlusion_texture: occlusion,
                normal_scale: cpu.normal_scale,
                normal_texture: None,
                render_states,
                is_transparent: blend,
                emissive: cpu.emissive,
                emissive_texture: emissive.or_else(|| Some(white.clone())),
                lighting_model: cpu.lighting_model,
            },
            cutoff,
        }
    }

    /// glTF's default material: white, fully rough, not metallic.
    fn default_surface(white: &Texture2DRef) -> ModelSurface {
        ModelSurface {
            pbr: PhysicalMaterial {
                albedo_texture: Some(white.clone()),
                metallic_roughness_texture: Some(white.clone()),
                emissive_texture: Some(white.clone()),
                lighting_model: three_d::LightingModel::Cook(
                    three_d::NormalDistributionFunction::TrowbridgeReitzGGX,
                    three_d::GeometryFunction::SmithSchlickGGX,
                ),
                render_states: RenderStates {
                    write_mask: opaque_write_mask(),
                    ..Default::default()
                },
                ..Default::default()
            },
            cutoff: None,
        }
    }

    fn is_blended(&self) -> bool {
        self.pbr.is_transparent
    }
}

impl Material for ModelSurface {
    fn fragment_shader_source(&self, lights: &[&dyn Light]) -> String {
        let inner = self.pbr.fragment_shader_source(lights);
        match self.cutoff {
            Some(_) => format!("#define ALPHACUT;\nuniform float acut;\n{inner}"),
            None => inner,
        }
    }
    fn id(&self) -> EffectMaterialId {
        let inner = self.pbr.id();
        match self.cutoff {
            // Our own range (three-d leaves 0x0000–0x4FFF to users), keeping the texture bits.
            Some(_) => EffectMaterialId(0x0200 | (inner.0 & 0x1F)),
            None => inner,
        }
    }
    fn use_uniforms(&self, program: &Program, viewer: &dyn Viewer, lights: &[&dyn Light]) {
        self.pbr.use_uniforms(program, viewer, lights);
        if let Some(cutoff) = self.cutoff {
            program.use_uniform_if_required("acut", cutoff);
        }
    }
    fn render_states(&self) -> RenderStates {
        self.pbr.render_states
    }
    fn material_type(&self) -> MaterialType {
        self.pbr.material_type()
    }
}

struct GpuPart {
    material: Option<usize>,
    normal: InstancedMesh,
    /// Created the first time an instance of this model is selected.
    selected: Option<InstancedMesh>,
    outline: Option<InstancedMesh>,
}

struct GpuModel {
    source: Arc<LoadedModel>,
    parts: Vec<GpuPart>,
    surfaces: Vec<ModelSurface>,
}

/// Instances of one model, by pass.
#[derive(Default)]
pub(crate) struct ModelInstances {
    /// Entities without an outline.
    pub normal: Instances,
    /// Outlined entities: the selected ones (tinted) and those below them.
    pub selected: Instances,
    /// Enlarged copies of the outlined entities, each in its outline colour.
    pub outline: Instances,
}

/// Which pass to draw.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum ModelPass {
    /// Unselected, opaque and alpha-tested parts.
    Normal,
    /// Selected, opaque and alpha-tested parts.
    Selected,
    /// Blended parts, selected or not, after everything opaque.
    Blended,
}

/// Every uploaded model, its instances, and the lights models are drawn with.
pub(crate) struct GpuModels {
    context: Context,
    models: HashMap<AssetId, GpuModel>,
    /// The model being uploaded, step by step.
    pending: Option<(AssetId, PendingModel)>,
    instances: HashMap<AssetId, ModelInstances>,
    default_surface: ModelSurface,
    white: Texture2DRef,
    ambient: Option<AmbientLight>,
    key: DirectionalLight,
    /// Models uploaded so far.
    pub uploaded: usize,
}

impl GpuModels {
    pub fn new(context: &Context) -> GpuModels {
        let white = Texture2DRef::from_cpu_texture(
            context,
            &CpuTexture {
                data: TextureData::RgbaU8(vec![[255; 4]]),
                width: 1,
                height: 1,
                mipmap: None,
                ..Default::default()
            },
        );
        GpuModels {
            context: context.clone(),
            models: HashMap::default(),
            pending: None,
            instances: HashMap::default(),
            default_surface: ModelSurface::default_surface(&white),
            white,
            ambient: None,
            key: DirectionalLight::new(context, 2.2, Srgba::WHITE, three_d::vec3(0.0, -1.0, 0.0)),
            uploaded: 0,
        }
    }

    /// Replaces every model's instances (the scene changed).
    pub fn set_instances(&mut self, instances: HashMap<AssetId, ModelInstances>) {
        for (id, model) in self.models.iter_mut() {
            apply_instances(&self.context, model, instances.get(id));
        }
        self.instances = instances;
    }

    /// Overwrites instance `index` of `asset`'s normal or `outlined` pass (and, outlined, its
    /// outline copy) in the instances kept for it; [`Self::reapply`] puts them on the GPU.
    pub fn write(
        &mut self,
        asset: AssetId,
        outlined: bool,
        index: u32,
        transformation: three_d::Mat4,
        color: Srgba,
        outline: Option<(three_d::Mat4, Srgba)>,
    ) {
        let Some(kept) = self.instances.get_mut(&asset) else {
            return;
        };
        let i = index as usize;
        let set = |pass: &mut Instances, m: three_d::Mat4, c: Srgba| {
            pass.transformations[i] = m;
            if let Some(colors) = &mut pass.colors {
                colors[i] = c;
            }
        };
        if outlined {
            set(&mut kept.selected, transformation, color);
        } else {
            set(&mut kept.normal, transformation, color);
        }
        if let Some((m, c)) = outline {
            set(&mut kept.outline, m, c);
        }
    }

    /// Uploads `asset`'s kept instances again (three-d's meshes re-upload a model's instances
    /// as a whole; the other models are untouched).
    pub fn reapply(&mut self, asset: AssetId) {
        if let Some(model) = self.models.get_mut(&asset) {
            apply_instances(&self.context, model, self.instances.get(&asset));
        }
    }

    /// Uploads models of `assets` that are not on the GPU yet, in small steps until `budget` is
    /// spent (at least one step per call); true when some are still waiting. Models no longer
    /// in `assets` are dropped.
    pub fn upload_within(&mut self, assets: &SceneAssets, budget: Duration) -> bool {
        let current = |id: &AssetId, source: &Arc<LoadedModel>| {
            assets
                .models
                .get(id)
                .is_some_and(|a| Arc::ptr_eq(a, source))
        };
        self.models.retain(|id, m| current(id, &m.source));
        if self
            .pending
            .as_ref()
            .is_some_and(|(id, p)| !current(id, &p.source))
        {
            self.pending = None;
        }
        let started = Instant::now();
        let mut first = true;
        loop {
            if self.pending.is_none() {
                let waiting = assets
                    .models
                    .iter()
                    .find(|(id, _)| !self.models.contains_key(*id));
                let Some((id, model)) = waiting else {
                    return false;
                };
                self.pending = Some((*id, PendingModel::new(model.clone())));
            }
            if !first && started.elapsed() >= budget {
                return true;
            }
            first = false;
            let (_, pending) = self.pending.as_mut().expect("a model is pending");
            if pending.step(&self.context) {
                let (id, pending) = self.pending.take().expect("a model is pending");
                self.finish(id, pending);
            }
        }
    }

    /// Puts a fully uploaded model in place, with its instances.
    fn finish(&mut self, id: AssetId, pending: PendingModel) {
        if self.ambient.is_none() {
            self.ambient = Some(sky_light(&self.context));
        }
        let source = pending.source;
        let surfaces = source
            .materials
            .iter()
            .zip(&pending.textures)
            .map(|(m, textures)| ModelSurface::new(m, textures, &self.white))
            .collect();
        let parts = source
            .parts
            .iter()
            .zip(pending.meshes)
            .map(|(p, normal)| GpuPart {
                material: p.material,
                normal,
                selected: None,
                outline: None,
            })
            .collect();
        let mut gpu = GpuModel {
            source,
            parts,
            surfaces,
        };
        apply_instances(&self.context, &mut gpu, self.instances.get(&id));
        self.models.insert(id, gpu);
        self.uploaded += 1;
    }

    /// Points the key light along `towards_light` (unit, world space, from the scene to the light).
    pub fn set_key_direction(&mut self, towards_light: Vec3) {
        let d = -towards_light;
        self.key.direction = three_d::vec3(d.x, d.y, d.z);
    }

    /// Draws one pass of every model into `target`.
    pub fn render(&self, target: &three_d::RenderTarget, viewer: &dyn Viewer, pass: ModelPass) {
        let Some(ambient) = &self.ambient else {
            return;
        };
        let lights: [&dyn Light; 2] = [ambient, &self.key];
        for model in self.models.values() {
            for part in &model.parts {
                let surface = part
                    .material
                    .and_then(|i| model.surfaces.get(i))
                    .unwrap_or(&self.default_surface);
                let meshes: [Option<&InstancedMesh>; 2] = match pass {
                    ModelPass::Normal if !surface.is_blended() => [Some(&part.normal), None],
                    ModelPass::Selected if !surface.is_blended() => [part.selected.as_ref(), None],
                    ModelPass::Blended if surface.is_blended() => {
                        [Some(&part.normal), part.selected.as_ref()]
                    }
                    _ => [None, None],
                };
                for mesh in meshes.into_iter().flatten() {
                    if mesh.instance_count() > 0 {
                        target.render_with_material(surface, viewer, [mesh], &lights);
                    }
                }
            }
        }
    }

    /// Draws the outline copies with `material` (their colours are per instance).
    pub fn render_outline(
        &self,
        target: &three_d::RenderTarget,
        viewer: &dyn Viewer,
        material: &dyn Material,
    ) {
        let meshes: Vec<&InstancedMesh> = self
            .models
            .values()
            .flat_map(|m| m.parts.iter())
            .filter_map(|p| p.outline.as_ref())
            .filter(|m| m.instance_count() > 0)
            .collect();
        if !meshes.is_empty() {
            target.render_with_material(material, viewer, meshes, &[]);
        }
    }
}

fn apply_instances(context: &Context, model: &mut GpuModel, instances: Option<&ModelInstances>) {
    let empty = ModelInstances::default();
    let instances = instances.unwrap_or(&empty);
    let source = model.source.clone();
    for (part, cpu) in model.parts.iter_mut().zip(&source.parts) {
        set_instances(&mut part.normal, &instances.normal);
        for (slot, wanted) in [
            (&mut part.selected, &instances.selected),
            (&mut part.outline, &instances.outline),
        ] {
            match slot {
                Some(mesh) => set_instances(mesh, wanted),
                None if !wanted.transformations.is_empty() => {
                    *slot = Some(InstancedMesh::new(context, wanted, &cpu.mesh));
                }
                None => {}
            }
        }
    }
}

/// Ambient light from a sky: a small cube map, light blue above, a warm grey below, fading
/// across the horizon, so shape reads everywhere and metals reflect something.
fn sky_light(context: &Context) -> AmbientLight {
    const SIZE: u32 = 16;
    let sky = [0.78f32, 0.86, 1.0];
    let ground = [0.42f32, 0.38, 0.34];
    let face = |rows: &dyn Fn(u32) -> [f32; 3]| CpuTexture {
        data: TextureData::RgbF32((0..SIZE * SIZE).map(|i| rows(i / SIZE)).collect()),
        width: SIZE,
        height: SIZE,
        min_filter: Interpolation::Linear,
        mag_filter: Interpolation::Linear,
        mipmap: None,
        wrap_s: Wrapping::ClampToEdge,
        wrap_t: Wrapping::ClampToEdge,
        ..Default::default()
    };
    let mix = |t: f32| {
        let t = t.clamp(0.0, 1.0);
        [0, 1, 2].map(|c| sky[c] * (1.0 - t) + ground[c] * t)
    };
    // Side faces run from the sky (row 0) to the ground (last row).
    let side = face(&|row| mix(row as f32 / (SIZE - 1) as f32));
    let top = face(&|_| sky);
    let bottom = face(&|_| ground);
    let map = TextureCubeMap::new(context, &side, &side, &top, &bottom, &side, &side);
    // Small maps and few samples: a soft sky needs no detail, and this runs on software GL.
    let options = EnvironmentOptions {
        irradiance_map_size: 8,
        irradiance_sample_count: 32,
        prefilter_map_size: 16,
        prefilter_map_max_mip_levels: 3,
        prefilter_sample_count: 32,
        brdf_map_size: 32,
        brdf_sample_count: 32,
        ..Default::default()
    };
    AmbientLight {
        intensity: 0.9,
        color: Srgba::WHITE,
        environment: Some(Environment::new_with_options(context, &map, options)),
    }
}
