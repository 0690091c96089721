//! The orbit camera and the one place where Decentraland's left-handed frame meets OpenGL.
//!
//! Decentraland's world is left-handed: +X right, +Y up, +Z forward (into the screen when you
//! look along +Z). OpenGL's clip space expects the right-handed convention where the camera
//! looks down −Z. Instead of mirroring meshes or matrices by hand, the camera builds its
//! matrices with glam's *left-handed* constructors (`glam::camera::lh`): the view matrix is a
//! plain rotation + translation in the left-handed world, and the left-handed OpenGL projection
//! maps "+Z in front of the camera" to OpenGL depth. Rendering (three-d gets these exact
//! matrices), picking ([`OrbitCamera::ray`]) and the gizmo ([`OrbitCamera::project`]) all use
//! them, so they agree by construction.
//!
//! One consequence for rendering: triangles authored counter-clockwise (three-d's meshes)
//! appear clockwise on screen. The renderer therefore never culls faces and its shading does
//! not rely on `gl_FrontFacing`.

use std::f32::consts::FRAC_PI_2;

use glam::{Mat4, Vec2, Vec3};

/// A ray in Decentraland world space. `origin` in meters; `direction` has unit length, so a
/// ray parameter `t` is a distance in meters.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Ray {
    /// Start point, world space, meters.
    pub origin: Vec3,
    /// Unit direction, world space.
    pub direction: Vec3,
}

impl Ray {
    /// The point `t` meters along the ray (world space).
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.direction * t
    }
}

/// A view along a world axis, as the numeric keypad gives them in Blender and Godot.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, strum::EnumIter)]
pub enum ViewDirection {
    /// Looking along +Z (Decentraland's forward), +X to the right.
    #[default]
    Front,
    /// Looking along −Z.
    Back,
    /// Looking along −X, from the right-hand side (+X).
    Right,
    /// Looking along +X, from the left-hand side.
    Left,
    /// Looking down (along −Y), +Z up the screen.
    Top,
    /// Looking up (along +Y).
    Bottom,
}

impl ViewDirection {
    /// The camera's (yaw, pitch) in radians for this view (see [`OrbitCamera`]). Straight up
    /// and down stop at the pitch limit, where the orbit keeps its left and right.
    pub fn yaw_pitch(self) -> (f32, f32) {
        use std::f32::consts::PI;
        match self {
            ViewDirection::Front => (0.0, 0.0),
            ViewDirection::Back => (PI, 0.0),
            ViewDirection::Right => (-FRAC_PI_2, 0.0),
            ViewDirection::Left => (FRAC_PI_2, 0.0),
            ViewDirection::Top => (0.0, -OrbitCamera::PITCH_LIMIT),
            ViewDirection::Bottom => (0.0, OrbitCamera::PITCH_LIMIT),
        }
    }
}

/// An orbit camera: it looks at `target` from `distance` meters away, turned by `yaw` about
/// the world +Y axis and tilted by `pitch`.
///
/// With `yaw = 0` and `pitch = 0` the camera looks along world +Z, with +X to the right and +Y
/// up, which is how Decentraland shows its left-handed frame.
#[derive(Clone, Debug, PartialEq)]
pub struct OrbitCamera {
    /// The point orbited and looked at (world space, meters).
    pub target: Vec3,
    /// Turn about world +Y, radians. Positive turns the view direction from +Z towards +X.
    pub yaw: f32,
    /// Tilt, radians, within ±[`OrbitCamera::PITCH_LIMIT`]. Negative looks down.
    pub pitch: f32,
    /// Distance from the eye to `target`, meters, within the `DISTANCE_*` limits.
    pub distance: f32,
    /// Vertical field of view, radians.
    pub fov_y: f32,
}

/// The camera's distance from its target when it starts, meters.
pub const DEFAULT_DISTANCE: f32 = 12.0;

impl Default for OrbitCamera {
    /// Looks along +Z at the origin from 12 m away, about 27° above the ground.
    fn default() -> Self {
        OrbitCamera {
            target: Vec3::ZERO,
            yaw: 0.0,
            pitch: -0.47,
            distance: DEFAULT_DISTANCE,
            fov_y: 50f32.to_radians(),
        }
    }
}

impl OrbitCamera {
    /// Pitch stays this far from straight up or down (radians), so "up" stays defined.
    pub const PITCH_LIMIT: f32 = FRAC_PI_2 - 0.01;
    /// Closest the eye may come to the target, meters.
    pub const DISTANCE_MIN: f32 = 0.05;
    /// Farthest the eye may go from the target, meters.
    pub const DISTANCE_MAX: f32 = 20_000.0;
    /// Radians of orbit per point of pointer movement.
    pub const ORBIT_SPEED: f32 = 0.008;

    /// Turns the camera to look along an axis, about the same target from the same distance.
    pub fn look_along(&mut self, view: ViewDirection) {
        (self.yaw, self.pitch) = view.yaw_pitch();
    }

    /// Unit vector the camera looks along (world space).
    pub fn forward(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        Vec3::new(sy * cp, sp, cy * cp)
    }

    /// Unit vector pointing to the right of the screen (world space, horizontal).
    pub fn right(&self) -> Vec3 {
        // Left-handed: right = up × forward with the ordinary cross product formula.
        let (sy, cy) = self.yaw.sin_cos();
        Vec3::new(cy, 0.0, -sy)
    }

    /// Unit vector pointing to the top of the screen (world space).
    pub fn up(&self) -> Vec3 {
        self.forward().cross(self.right())
    }

    /// The eye position (world space, meters).
    pub fn eye(&self) -> Vec3 {
        self.target - self.forward() * self.distance
    }

    /// How much a marker ([`crate::Shape::Marker`]) is scaled in this view: markers keep their
    /// size on screen as the camera zooms (1 at [`DEFAULT_DISTANCE`], proportional to the
    /// distance to the target), since a marker stands for an entity, not for a thing of a size.
    pub fn marker_scale(&self) -> f32 {
        let scale = self.distance / DEFAULT_DISTANCE;
        if scale.is_finite() {
            scale.clamp(1e-3, 1e4)
        } else {
            1.0
        }
    }

    /// Near clip distance, meters: small enough to get close, large enough for depth precision.
    pub fn z_near(&self) -> f32 {
        (self.distance * 0.01).clamp(0.005, 10.0)
    }

    /// Far clip distance, meters: covers a large scene seen from far away.
    pub fn z_far(&self) -> f32 {
        self.distance * 20.0 + 2_000.0
    }

    /// World → view matrix (left-handed view space: +X right, +Y up, +Z away from the eye).
    pub fn view_matrix(&self) -> Mat4 {
        glam::camera::lh::view::look_to_mat4(self.eye(), self.forward(), Vec3::Y)
    }

    /// View → OpenGL clip space for a viewport of `aspect` = width / height.
    pub fn projection_matrix(&self, aspect: f32) -> Mat4 {
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect
        } else {
            1.0
        };
        glam::camera::lh::proj::opengl::perspective(self.fov_y, aspect, self.z_near(), self.z_far())
    }

    /// World → OpenGL clip space for a viewport of `size` (any unit, only the ratio matters).
    pub fn view_projection(&self, size: Vec2) -> Mat4 {
        self.projection_matrix(size.x / size.y) * self.view_matrix()
    }

    /// Where a world point lands in a viewport of `size` pixels: x right and y down from the
    /// top-left corner, plus the OpenGL depth (−1 near … 1 far) in `z`. `None` when the point
    /// is behind the eye.
    pub fn project(&self, world: Vec3, size: Vec2) -> Option<Vec3> {
        let clip = self.view_projection(size) * world.extend(1.0);
        if clip.w <= 1e-6 {
            return None;
        }
        let ndc = clip.truncate() / clip.w;
        Some(Vec3::new(
            (ndc.x + 1.0) * 0.5 * size.x,
            (1.0 - ndc.y) * 0.5 * size.y,
            ndc.z,
        ))
    }

    /// The world-space ray from the eye through pixel `pixel` (x right, y down from the top-left)
    /// of a viewport of `size` pixels.
    pub fn ray(&self, pixel: Vec2, size: Vec2) -> Ray {
        let ndc = Vec2::new(2.0 * pixel.x / size.x - 1.0, 1.0 - 2.0 * pixel.y / size.y);
        let half_h = (self.fov_y * 0.5).tan();
        let half_w = half_h * size.x / size.y;
        let direction =
            (self.forward() + self.right() * (ndc.x * half_w) + self.up() * (ndc.y * half_h))
                .normalize();
        Ray {
            origin: self.eye(),
            direction,
        }
    }

    /// How many meters one pixel covers at `world` (measured at its depth) in a viewport
    /// `height_px` pixels tall. Used to give the gizmo a constant size on screen.
    pub fn meters_per_pixel(&self, world: Vec3, height_px: f32) -> f32 {
        let depth = (world - self.eye()).dot(self.forward()).max(self.z_near());
        2.0 * depth * (self.fov_y * 0.5).tan() / height_px.max(1.0)
    }

    /// Orbits around the target by a pointer movement of `delta` points: moving right turns
    /// the scene as if grabbed, moving down tilts the camera to look more from above.
    pub fn orbit(&mut self, delta: Vec2) {
        if !delta.is_finite() {
            return;
        }
        self.yaw = (self.yaw + delta.x * Self::ORBIT_SPEED).rem_euclid(std::f32::consts::TAU);
        self.pitch =
            (self.pitch - delta.y * Self::ORBIT_SPEED).clamp(-Self::PITCH_LIMIT, Self::PITCH_LIMIT);
    }

    /// Slides the target in the screen plane so the point under the pointer follows a pointer
    /// movement of `delta_px` pixels in a viewport `height_px` tall.
    pub fn pan(&mut self, delta_px: Vec2, height_px: f32) {
        if !delta_px.is_finite() {
            return;
        }
        let scale = self.meters_per_pixel(self.target, height_px);
        self.target += (-self.right() * delta_px.x + self.up() * delta_px.y) * scale;
    }

    /// Moves towards the target (`steps > 0`) or away from it; each step is 10 %.
    pub fn zoom(&mut self, steps: f32) {
        if !steps.is_finite() {
            return;
        }
        self.distance =
            (self.distance * 0.9f32.powf(steps)).clamp(Self::DISTANCE_MIN, Self::DISTANCE_MAX);
    }

    /// Aims at the centre of the world-space box `min`..`max` and moves as close as the box's
    /// corners allow in a viewport of `aspect` = width / height (with a 5 % margin), keeping the
    /// current direction; a flat or long box fills the view instead of its bounding sphere.
    /// Boxes that are empty or not finite leave the camera unchanged.
    pub fn frame_bounds(&mut self, min: Vec3, max: Vec3, aspect: f32) {
        if !(min.is_finite() && max.is_finite()) || min.cmpgt(max).any() {
            return;
        }
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect
        } else {
            1.0
        };
        let tan_y = (self.fov_y * 0.5).tan() / 1.05;
        let tan_x = tan_y * aspect;
        let centre = (min + max) * 0.5;
        let half = ((max - min) * 0.5).max(Vec3::splat(0.125));
        let (right, up, forward) = (self.right(), self.up(), self.forward());
        // A corner at (x, y) across and z beyond the target is in view from distance d when
        // |x| ≤ (d + z)·tan_x and |y| ≤ (d + z)·tan_y, and in front of the eye when d + z > 0.
        let mut distance = 0.0f32;
        for i in 0..8 {
            let sign = |bit: usize| if i & bit == 0 { -1.0 } else { 1.0 };
            let c = half * Vec3::new(sign(1), sign(2), sign(4));
            let (x, y, z) = (c.dot(right), c.dot(up), c.dot(forward));
            distance = distance
                .max(x.abs() / tan_x - z)
                .max(y.abs() / tan_y - z)
                .max(self.z_near() - z);
        }
        self.target = centre;
        self.distance = distance.clamp(Self::DISTANCE_MIN, Self::DISTANCE_MAX);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_view_looks_along_its_axis_with_the_screen_the_right_way_up() {
        let close = |a: Vec3, b: Vec3| (a - b).length() < 0.02;
        let cases = [
            (ViewDirection::Front, Vec3::Z, Vec3::X),
            (ViewDirection::Back, Vec3::NEG_Z, Vec3::NEG_X),
            (ViewDirection::Right, Vec3::NEG_X, Vec3::Z),
            (ViewDirection::Left, Vec3::X, Vec3::NEG_Z),
            (ViewDirection::Top, Vec3::NEG_Y, Vec3::X),
            (ViewDirection::Bottom, Vec3::Y, Vec3::X),
        ];
        for (view, forward, right) in cases {
            let mut camera = OrbitCamera {
                target: Vec3::new(1.0, 2.0, 3.0),
                distance: 7.0,
                ..OrbitCamera::default()
            };
            camera.look_along(view);
            assert!(
                close(camera.forward(), forward),
                "{view:?}: {}",
                camera.forward()
            );
            assert!(close(camera.right(), right), "{view:?}: {}", camera.right());
            assert_eq!(
                (camera.target, camera.distance),
                (Vec3::new(1.0, 2.0, 3.0), 7.0)
            );
        }
        // From above, +Z (Decentraland's forward) points up the screen.
        let mut camera = OrbitCamera::default();
        camera.look_along(ViewDirection::Top);
        assert!(close(camera.up(), Vec3::Z), "{}", camera.up());
    }
}
