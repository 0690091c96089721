//! The ground grid and world axes, drawn as GL lines with a small three-d program.

use three_d::{
    Blend, Context, Cull, DepthTest, Program, RenderStates, VertexBuffer, Viewport, WriteMask,
};

use super::OrbitCamera;
use crate::style;

/// Ground grid on the y = 0 plane: 1 m lines and 16 m parcel lines around the camera's target,
/// plus the X (red) and Z (blue) axes through the world origin, bright on the positive side,
/// and a short green +Y axis at the origin.
pub(super) struct Grid {
    context: Context,
    program: Program,
    positions: VertexBuffer<three_d::Vec3>,
    colors: VertexBuffer<three_d::Vec4>,
    /// Vertices `0..grid_vertices` are the movable grid, the rest the fixed axes.
    grid_vertices: i32,
    total_vertices: i32,
}

/// Half extent of the grid around the target, meters (16 parcels each way).
const GRID_EXTENT: i32 = 256;
/// Length of each drawn half axis, meters.
const AXIS_LENGTH: f32 = 10_000.0;
/// Grid lines fade out where they come closer than about this on screen, pixels.
const MIN_SPACING_PX: f32 = 2.5;

/// A colour as the grid shader takes it: sRGB components in 0..1, with `alpha` (which the
/// shader reads as the line's kind, see below).
fn rgb_alpha(color: egui::Color32, alpha: f32) -> [f32; 4] {
    let [r, g, b, _] = color.to_normalized_gamma_f32();
    [r, g, b, alpha]
}

impl Grid {
    pub fn new(context: &Context) -> Grid {
        let mut positions = Vec::new();
        let mut colors = Vec::new();
        let mut line = |a: three_d::Vec3, b: three_d::Vec3, c: [f32; 4]| {
            positions.extend([a, b]);
            colors.extend([three_d::Vec4::from(c), three_d::Vec4::from(c)]);
            positions.len() as i32
        };
        let e = GRID_EXTENT as f32;
        let v = three_d::vec3;
        let mut grid_vertices = 0;
        for i in -GRID_EXTENT..=GRID_EXTENT {
            // Alpha encodes the kind for the shader's fade: < 0.5 minor, else parcel or axis.
            let c = if i % 16 == 0 {
                rgb_alpha(style::GRID_PARCEL_LINE, 0.8)
            } else {
                rgb_alpha(style::GRID_MINOR_LINE, 0.35)
            };
            let f = i as f32;
            line(v(f, 0.0, -e), v(f, 0.0, e), c);
            grid_vertices = line(v(-e, 0.0, f), v(e, 0.0, f), c);
        }
        let [red, green, blue] = style::AXIS_COLORS.map(|c| rgb_alpha(c, 1.0));
        let dim = |c: [f32; 4]| [c[0] * 0.5, c[1] * 0.5, c[2] * 0.5, 1.0];
        let (o, a) = (v(0.0, 0.0, 0.0), AXIS_LENGTH);
        line(o, v(a, 0.0, 0.0), red);
        line(o, v(-a, 0.0, 0.0), dim(red));
        line(o, v(0.0, 0.0, a), blue);
        line(o, v(0.0, 0.0, -a), dim(blue));
        line(o, v(0.0, 1.0, 0.0), green);
        let program = Program::from_source(
            context,
            r#"
uniform mat4 viewProjection;
uniform vec3 offset;
in vec3 position;
in vec4 color;
out vec4 col;
out vec3 wpos;
void main() {
    col = color;
    wpos = position + offset;
    gl_Position = viewProjection * vec4(wpos, 1.0);
}
"#,
            r#"
uniform vec3 eyePosition;
uniform float pixelsPerMeterAt1m;
in vec4 col;
in vec3 wpos;
layout (location = 0) out vec4 outColor;
void main() {
    // The axes (alpha 1) never fade.
    if (col.a > 0.95) { outColor = col; return; }
    // Fade lines out where they come closer than a few pixels on screen: spacing shrinks
    // with distance, and again with the grazing angle towards the horizon.
    float d = max(distance(wpos, eyePosition), 1e-3);
    float spacing = col.a < 0.5 ? 1.0 : 16.0;
    float grazing = clamp(abs(eyePosition.y - wpos.y) / d, 0.0, 1.0);
    float px = spacing * pixelsPerMeterAt1m / d * grazing;
    outColor = vec4(col.rgb, col.a * smoothstep(MIN_PX, 3.0 * MIN_PX, px));
}
"#
            .replace("MIN_PX", &format!("{MIN_SPACING_PX:.1}"))
            .as_str(),
        )
        .expect("the grid shaders are fixed and compile");
        Grid {
            context: context.clone(),
            grid_vertices,
            total_vertices: positions.len() as i32,
            positions: VertexBuffer::new_with_data(context, &positions),
            colors: VertexBuffer::new_with_data(context, &colors),
            program,
        }
    }

    /// Draws into the bound target: lines depth-tested against what is there, blended.
    pub fn draw(&self, view_projection: three_d::Mat4, camera: &OrbitCamera, viewport: Viewport) {
        let p = &self.program;
        p.use_uniform("viewProjection", view_projection);
        let eye = camera.eye();
        p.use_uniform("eyePosition", three_d::vec3(eye.x, eye.y, eye.z));
        let ppm = viewport.height as f32 / (2.0 * (camera.fov_y * 0.5).tan());
        p.use_uniform("pixelsPerMeterAt1m", ppm);
        let states = RenderStates {
            blend: Blend::TRANSPARENCY,
            depth_test: DepthTest::LessOrEqual,
            cull: Cull::None,
            write_mask: WriteMask::default(),
        };
        // The grid follows the target in whole parcels, so it never runs out under the camera.
        let snap = |x: f32| (x / 16.0).round() * 16.0;
        let offset = three_d::vec3(snap(camera.target.x), 0.0, snap(camera.target.z));
        let draws = [
            (offset, 0, self.grid_vertices),
            (
                three_d::vec3(0.0, 0.0, 0.0),
                self.grid_vertices,
                self.total_vertices - self.grid_vertices,
            ),
        ];
        for (offset, first, count) in draws {
            p.use_uniform("offset", offset);
            // draw_with disables the attributes afterwards: bind them for every draw.
            p.use_vertex_attribute("position", &self.positions);
            p.use_vertex_attribute("color", &self.colors);
            // SAFETY: a plain draw call on three-d's current context, inside draw_with, which
            // has bound this program and its vertex buffers; `first + count` stays within the
            // vertices uploaded in `new`.
            p.draw_with(states, viewport, || unsafe {
                use three_d::context::HasContext;
                self.context
                    .draw_arrays(three_d::context::LINES, first, count);
            });
        }
    }
}
