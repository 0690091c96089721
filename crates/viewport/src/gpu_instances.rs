//! An instanced mesh whose instances can be rewritten in place. three-d's `InstancedMesh`
//! keeps its instance buffers private and rebuilds all of them on every change (with each
//! instance's bounds), so moving one of 65,535 entities re-uploaded every instance; this one
//! owns its buffers and overwrites one instance's sub-range ([`InstancedShapes::write`]).
//!
//! It draws what `InstancedMesh` drew for the viewport's shapes: per-instance rows of the
//! transformation and a colour, times an animation transform (the markers' screen scale),
//! through the same attribute and varying names, so three-d's and our materials take it as is.

use three_d::{
    AxisAlignedBoundingBox, ColorTexture, Context, CpuMesh, DepthTexture, Effect, ElementBuffer,
    Geometry, GeometryId, InstanceBuffer, Instances, Light, Mat4, Material, Program, RenderStates,
    Srgba, Vec2, Vec3, Vec4, VertexBuffer, Viewer,
};

/// The vertex shader: three-d's `mesh.vert` (MIT, see `third-party/three-d-LICENSE.txt`) reduced
/// to instance transforms and colours, with the same arithmetic, so shapes look exactly as they
/// did under `InstancedMesh`.
const VERTEX_SHADER: &str = r#"
uniform mat4 viewProjection;
uniform mat4 animationTransform;
in vec3 position;
in vec4 row1;
in vec4 row2;
in vec4 row3;
in vec4 instance_color;
out vec3 pos;
#ifdef USE_NORMALS
in vec3 normal;
out vec3 nor;
#endif
#ifdef USE_UVS
in vec2 uv_coordinates;
out vec2 uvs;
#endif
out vec4 col;

void main()
{
    mat4 transform;
    transform[0] = vec4(row1.x, row2.x, row3.x, 0.0);
    transform[1] = vec4(row1.y, row2.y, row3.y, 0.0);
    transform[2] = vec4(row1.z, row2.z, row3.z, 0.0);
    transform[3] = vec4(row1.w, row2.w, row3.w, 1.0);
    mat4 local2World = transform * animationTransform;
    vec4 worldPosition = local2World * vec4(position, 1.);
    gl_Position = viewProjection * worldPosition;
    pos = worldPosition.xyz / worldPosition.w;
#ifdef USE_NORMALS
    mat3 normalMat = mat3(transpose(inverse(local2World)));
    nor = normalize(normalMat * normal);
#endif
#ifdef USE_UVS
    uvs = uv_coordinates;
#endif
    col = instance_color;
}
"#;

/// Our geometry ids, in three-d's range for user geometries; one per shader variant.
const GEOMETRY_ID: u16 = 0x0200;

/// A mesh drawn once per instance, each instance a transformation (the mesh's space to world
/// space) and a colour (sRGB, multiplied onto the material).
pub(crate) struct InstancedShapes {
    context: Context,
    positions: VertexBuffer<Vec3>,
    normals: Option<VertexBuffer<Vec3>>,
    uvs: Option<VertexBuffer<Vec2>>,
    /// `None` for an unindexed mesh.
    indices: Option<ElementBuffer<u32>>,
    vertex_count: u32,
    /// The transformations' first three rows (the last is always 0, 0, 0, 1).
    rows: [InstanceBuffer<Vec4>; 3],
    /// Linear colours.
    colors: InstanceBuffer<Vec4>,
    count: u32,
    /// Applied before each instance's transformation (mesh space to mesh space).
    animation: Mat4,
}

impl InstancedShapes {
    /// Uploads `mesh` (positions, normals and texture coordinates; no instances yet).
    pub fn new(context: &Context, mesh: &CpuMesh) -> InstancedShapes {
        let positions = mesh.positions.to_f32();
        let indices = mesh.indices.to_u32();
        InstancedShapes {
            context: context.clone(),
            vertex_count: indices.as_ref().map_or(positions.len(), Vec::len) as u32,
            positions: VertexBuffer::new_with_data(context, &positions),
            normals: (mesh.normals.as_ref()).map(|n| VertexBuffer::new_with_data(context, n)),
            // three-d's meshes flip v (images' first row is their top).
            uvs: mesh.uvs.as_ref().map(|uvs| {
                let flipped: Vec<Vec2> = uvs.iter().map(|uv| Vec2::new(uv.x, 1.0 - uv.y)).collect();
                VertexBuffer::new_with_data(context, &flipped)
            }),
            indices: indices.map(|i| ElementBuffer::new_with_data(context, &i)),
            rows: std::array::from_fn(|_| InstanceBuffer::new(context)),
            colors: InstanceBuffer::new(context),
            count: 0,
            animation: Mat4::from_scale(1.0),
        }
    }

    /// Instances drawn.
    pub fn instance_count(&self) -> u32 {
        self.count
    }

    /// Replaces every instance (`instances.colors` must be given, one per transformation).
    pub fn set_instances(&mut self, instances: &Instances) {
        let count = instances.transformations.len();
        if self.count == 0 && count == 0 {
            return;
        }
        let colors = instances.colors.as_deref().unwrap_or_default();
        debug_assert_eq!(colors.len(), count, "one colour per instance");
        for (r, buffer) in self.rows.iter_mut().enumerate() {
            let rows: Vec<Vec4> = (instances.transformations.iter())
                .map(|m| row(m, r))
                .collect();
            buffer.fill(&rows);
        }
        let linear: Vec<Vec4> = colors.iter().map(|c| c.to_linear_srgb()).collect();
        self.colors.fill(&linear);
        self.count = count as u32;
    }

    /// Overwrites the consecutive instances from `first` on (all below
    /// [`Self::instance_count`]) in place: one buffer write per array, however many.
    pub fn write_run(&mut self, first: u32, instances: &[(Mat4, Srgba)]) {
        debug_assert!(
            first as usize + instances.len() <= self.count as usize,
            "instances {first}..+{} of {}",
            instances.len(),
            self.count
        );
        // three-d 0.19 hands `fill_subset`'s offset to glBufferSubData unscaled, as bytes (the
        // element count it then keeps is too large, but only `self.count` is drawn).
        let offset = first * size_of::<Vec4>() as u32;
        for (r, buffer) in self.rows.iter_mut().enumerate() {
            let rows: Vec<Vec4> = instances.iter().map(|(m, _)| row(m, r)).collect();
            buffer.fill_subset(offset, &rows);
        }
        let colors: Vec<Vec4> = instances.iter().map(|(_, c)| c.to_linear_srgb()).collect();
        self.colors.fill_subset(offset, &colors);
    }

    /// Sets the transform applied to the mesh before each instance's own (mesh space).
    pub fn set_animation_transform(&mut self, transform: Mat4) {
        self.animation = transform;
    }
}

/// Row `r` of `m`.
fn row(m: &Mat4, r: usize) -> Vec4 {
    Vec4::new(m.x[r], m.y[r], m.z[r], m.w[r])
}

impl<'a> IntoIterator for &'a InstancedShapes {
    type Item = &'a dyn Geometry;
    type IntoIter = std::iter::Once<&'a dyn Geometry>;

    fn into_iter(self) -> Self::IntoIter {
        std::iter::once(self)
    }
}

impl Geometry for InstancedShapes {
    fn draw(&self, viewer: &dyn Viewer, program: &Program, render_states: RenderStates) {
        program.use_uniform("viewProjection", viewer.projection() * viewer.view());
        program.use_uniform("animationTransform", self.animation);
        for (name, buffer) in ["row1", "row2", "row3"].iter().zip(&self.rows) {
            program.use_instance_attribute(name, buffer);
        }
        if program.requires_attribute("instance_color") {
            program.use_instance_attribute("instance_color", &self.colors);
        }
        program.use_vertex_attribute("position", &self.positions);
        if let Some(normals) = &self.normals
            && program.requires_attribute("normal")
        {
            program.use_vertex_attribute("normal", normals);
        }
        if let Some(uvs) = &self.uvs
            && program.requires_attribute("uv_coordinates")
        {
            program.use_vertex_attribute("uv_coordinates", uvs);
        }
        let viewport = viewer.viewport();
        match &self.indices {
            Some(indices) => {
                program.draw_elements_instanced(render_states, viewport, indices, self.count)
            }
            None => program.draw_arrays_instanced(
                render_states,
                viewport,
                self.vertex_count,
                self.count,
            ),
        }
    }

    fn vertex_shader_source(&self) -> String {
        let normals = if self.normals.is_some() {
            "#define USE_NORMALS\n"
        } else {
            ""
        };
        let uvs = if self.uvs.is_some() {
            "#define USE_UVS\n"
        } else {
            ""
        };
        format!("{normals}{uvs}{VERTEX_SHADER}")
    }

    fn id(&self) -> GeometryId {
        let normals = u16::from(self.normals.is_some());
        let uvs = u16::from(self.uvs.is_some()) << 1;
        GeometryId(GEOMETRY_ID | normals | uvs)
    }

    fn render_with_material(
        &self,
        material: &dyn Material,
        viewer: &dyn Viewer,
        lights: &[&dyn Light],
    ) {
        if let Err(e) = three_d::render_with_material(&self.context, viewer, self, material, lights)
        {
            panic!("{e}");
        }
    }

    fn render_with_effect(
        &self,
        effect: &dyn Effect,
        viewer: &dyn Viewer,
        lights: &[&dyn Light],
        color_texture: Option<ColorTexture>,
        depth_texture: Option<DepthTexture>,
    ) {
        let result = three_d::render_with_effect(
            &self.context,
            viewer,
            self,
            effect,
            lights,
            color_texture,
            depth_texture,
        );
        if let Err(e) = result {
            panic!("{e}");
        }
    }

    /// Unbounded: the viewport does not cull, and bounds over every instance would cost as
    /// much as the upload this type avoids.
    fn aabb(&self) -> AxisAlignedBoundingBox {
        AxisAlignedBoundingBox::INFINITE
    }
}
