//! The material of MeshRenderer shapes and placeholders, and the meshes three-d does not have
//! (a capped cone, the marker diamond).

use glam::Vec3;
use three_d::{
    ColorMapping, CpuMesh, Cull, EffectMaterialId, Indices, Light, Material, MaterialType,
    Positions, Program, RenderStates, Texture2DRef, Viewer, WriteMask,
};

use super::shape::MARKER_SIZE;

/// Diffuse shading with a key light and a sky term, in each instance's colour, optionally
/// times a base-colour texture (`core::Material`). Normals are turned towards the viewer, so
/// planes are lit from both sides and the mirrored winding of the left-handed view (see
/// `camera.rs`) does not matter.
#[derive(Clone)]
pub(crate) struct ShadedMaterial {
    /// Unit direction towards the key light, world space.
    pub light_direction: Vec3,
    /// A base-colour texture in linear sRGB; the mesh must have texture coordinates.
    pub texture: Option<Texture2DRef>,
}

impl Material for ShadedMaterial {
    fn fragment_shader_source(&self, _lights: &[&dyn Light]) -> String {
        let texture = if self.texture.is_some() {
            "#define USE_TEXTURE\nuniform sampler2D baseTexture;\nin vec2 uvs;\n"
        } else {
            ""
        };
        format!(
            "{}{}{}",
            ColorMapping::fragment_shader_source(),
            texture,
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
    vec3 base = col.rgb;
#ifdef USE_TEXTURE
    base *= texture(baseTexture, uvs).rgb;
#endif
    outColor = vec4(color_mapping(base * (0.28 + 0.17 * sky + 0.6 * key)), 1.0);
}
"#
        )
    }
    fn id(&self) -> EffectMaterialId {
        // In three-d's range for user materials; one id per shader variant.
        EffectMaterialId(if self.texture.is_some() {
            0x0101
        } else {
            0x0100
        })
    }
    fn use_uniforms(&self, program: &Program, viewer: &dyn Viewer, _lights: &[&dyn Light]) {
        viewer.color_mapping().use_uniforms(program);
        let l = self.light_direction;
        program.use_uniform("lightDirection", three_d::vec3(l.x, l.y, l.z));
        program.use_uniform("eyePosition", viewer.position());
        if let Some(texture) = &self.texture {
            program.use_texture("baseTexture", &texture.texture);
        }
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

/// Render states that leave the target's alpha alone: the image egui shows stays opaque
/// whatever alpha a material computes.
pub(crate) fn opaque_write_mask() -> WriteMask {
    WriteMask {
        alpha: false,
        ..WriteMask::COLOR_AND_DEPTH
    }
}

/// A (truncated) cone along Y from y = −0.5 (radius `bottom`) to +0.5 (radius `top`), capped,
/// with texture coordinates wrapped around the side (u) from bottom to top (v).
pub(crate) fn cone_mesh(top: f32, bottom: f32, segments: u32) -> CpuMesh {
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut uvs = Vec::new();
    let mut indices: Vec<u32> = Vec::new();
    let v = three_d::vec3;
    let slope = bottom - top; // the side normal leans up by this over a height of 1
    for s in 0..=segments {
        let f = s as f32 / segments as f32;
        let (sin, cos) = (f * std::f32::consts::TAU).sin_cos();
        let n = v(cos, slope, sin);
        let n = n / (n.x * n.x + n.y * n.y + n.z * n.z).sqrt();
        positions.extend([
            v(cos * bottom, -0.5, sin * bottom),
            v(cos * top, 0.5, sin * top),
        ]);
        normals.extend([n, n]);
        uvs.extend([three_d::vec2(f, 1.0), three_d::vec2(f, 0.0)]);
    }
    for s in 0..segments {
        let i = 2 * s;
        indices.extend([i, i + 1, i + 2, i + 1, i + 3, i + 2]);
    }
    for (y, r, ny) in [(0.5, top, 1.0), (-0.5, bottom, -1.0)] {
        let center = positions.len() as u32;
        positions.push(v(0.0, y, 0.0));
        normals.push(v(0.0, ny, 0.0));
        uvs.push(three_d::vec2(0.5, 0.5));
        for s in 0..=segments {
            let a = s as f32 / segments as f32 * std::f32::consts::TAU;
            positions.push(v(a.cos() * r, y, a.sin() * r));
            normals.push(v(0.0, ny, 0.0));
            uvs.push(three_d::vec2(0.5 + 0.5 * a.cos(), 0.5 + 0.5 * a.sin()));
        }
        for s in 0..segments {
            indices.extend([center, center + 1 + s, center + 2 + s]);
        }
    }
    CpuMesh {
        positions: Positions::F32(positions),
        normals: Some(normals),
        uvs: Some(uvs),
        indices: Indices::U32(indices),
        ..Default::default()
    }
}

/// An octahedron [`MARKER_SIZE`] tip to tip, with flat faces.
pub(crate) fn marker_mesh() -> CpuMesh {
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
