//! The GL boundary: a small trait the widget renders through, a stub for tests without a GPU,
//! and the real renderer that draws with three-d into an offscreen texture egui shows.
//!
//! The offscreen path: our own RGBA8 texture and depth renderbuffer on an FBO that three-d
//! renders into; the texture is registered with egui once and resized by re-specifying its
//! storage under the same GL name, so the `TextureId` stays valid (egui's paint callback would
//! instead re-render on every egui repaint). With multisampling (4× where the driver has it),
//! three-d renders into a multisampled FBO instead, which is resolved into the texture after
//! each frame.

use std::sync::Arc;

use eframe::egui::{self, Color32};
use eframe::glow::{self, HasContext};

use super::{OrbitCamera, ViewportScene, gpu_scene::GpuScene};

/// What to draw: the scene seen by `camera` into an image of `size_px` physical pixels.
#[derive(Copy, Clone, Debug)]
pub struct RenderRequest<'a> {
    /// The items.
    pub scene: &'a ViewportScene,
    /// The camera.
    pub camera: &'a OrbitCamera,
    /// Image size, physical pixels (width, height), both at least 1.
    pub size_px: [u32; 2],
    /// Clear colour (sRGB).
    pub background: Color32,
    /// Smooth edges with multisampling. The widget turns it off while the camera or a
    /// gizmo moves (software GL renders several times faster without it) and renders
    /// once more with it when the view comes to rest.
    pub multisample: bool,
}

/// Draws the 3D scene for the viewport widget. The widget calls it only when the request
/// differs from the previous one and shows the returned texture flipped vertically (GL rows
/// run bottom-up); `None` makes it paint the background colour instead.
pub trait ViewportRenderer {
    /// Renders `request` and returns the egui texture holding the image.
    fn render(&mut self, request: &RenderRequest<'_>) -> Option<egui::TextureId>;

    /// Does this frame's share of GPU uploads for `scene` (instances when its generation
    /// changed, a time-boxed slice of the model uploads) without drawing; true while some
    /// are still waiting. The widget calls it every frame and redraws, at most a few times a
    /// second, while uploads continue.
    fn prepare(&mut self, _scene: &super::ViewportScene) -> bool {
        false
    }

    /// The renderer of extra view number `index` (the Peers workspace draws each simulated
    /// peer in a view of its own), with an image of its own; `None` when there is none.
    fn extra(&mut self, index: usize) -> Option<&mut dyn ViewportRenderer> {
        let _ = index;
        None
    }
}

/// A renderer that draws nothing and counts calls: for UI tests without a GPU.
#[derive(Clone, Debug, Default)]
pub struct NullRenderer {
    /// How many times the widget asked for a render.
    pub renders: usize,
    /// The scene generation of the last request.
    pub last_generation: Option<u64>,
    /// The image size of the last request, physical pixels.
    pub last_size_px: Option<[u32; 2]>,
    /// The extra views' renderers, made when first asked for.
    pub extras: Vec<NullRenderer>,
}

impl ViewportRenderer for NullRenderer {
    fn render(&mut self, request: &RenderRequest<'_>) -> Option<egui::TextureId> {
        self.renders += 1;
        self.last_generation = Some(request.scene.generation);
        self.last_size_px = Some(request.size_px);
        None
    }

    fn extra(&mut self, index: usize) -> Option<&mut dyn ViewportRenderer> {
        if self.extras.len() <= index {
            self.extras.resize_with(index + 1, NullRenderer::default);
        }
        Some(&mut self.extras[index])
    }
}

/// Why the GL renderer could not be created or could not draw.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RendererError {
    /// eframe runs without a glow context (e.g. the wgpu backend).
    #[error("the viewport needs eframe's glow renderer, but no GL context is available")]
    NoGlContext,
    /// three-d refused the GL context.
    #[error("three-d could not use the GL context: {0}")]
    Context(String),
    /// A GL object could not be created.
    #[error("could not create a GL {what}: {message}")]
    GlObject {
        /// Which object.
        what: &'static str,
        /// The driver's message.
        message: String,
    },
    /// The offscreen framebuffer is not complete (GL status code).
    #[error("the offscreen framebuffer is incomplete (GL status {0:#x})")]
    IncompleteFramebuffer(u32),
}

/// Counters for tests and diagnostics.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RenderStats {
    /// Frames rendered.
    pub frames: u64,
    /// Full instance uploads (on a scene generation change the incremental path could not
    /// take).
    pub uploads: u64,
    /// Scene generation changes taken by rewriting only the changed items' instances.
    pub incremental_updates: u64,
    /// Items placed by the last upload.
    pub instances: usize,
    /// Current image size, physical pixels.
    pub size_px: [u32; 2],
    /// glTF models uploaded to the GPU so far.
    pub models_uploaded: usize,
    /// Samples per pixel (1 without multisampling).
    pub samples: u32,
}

/// The multisampled framebuffer three-d draws into before the resolve into the texture.
struct Msaa {
    /// `None` only while three-d holds it during a render.
    fbo: Option<glow::Framebuffer>,
    color: glow::Renderbuffer,
    depth: glow::Renderbuffer,
    samples: i32,
}

/// Samples per pixel the viewport asks for.
const MSAA_SAMPLES: i32 = 4;

/// The real renderer: three-d on eframe's glow context, into an offscreen texture.
pub struct GlowViewportRenderer {
    gl: Arc<glow::Context>,
    three: three_d::Context,
    scene: GpuScene,
    texture: glow::Texture,
    depth: glow::Renderbuffer,
    /// `None` only while three-d holds it during a render.
    fbo: Option<glow::Framebuffer>,
    msaa: Option<Msaa>,
    size_px: [u32; 2],
    max_size: u32,
    texture_id: Option<egui::TextureId>,
    frames: u64,
    last_error: Option<RendererError>,
    /// Renderers of extra views (one per simulated peer), each with its own texture.
    extras: Vec<GlowViewportRenderer>,
}

impl GlowViewportRenderer {
    /// Makes sure `count` extra views can be drawn ([`ViewportRenderer::extra`]), each with a
    /// texture of its own registered with egui. Call it from `App::ui`, which has the frame.
    pub fn ensure_extras(&mut self, count: usize, frame: &mut eframe::Frame) {
        while self.extras.len() < count {
            match GlowViewportRenderer::from_frame(frame) {
                Ok(extra) => self.extras.push(extra),
                Err(e) => {
                    self.last_error = Some(e);
                    break;
                }
            }
        }
    }

    /// Creates the renderer on eframe's GL context and registers its texture with egui.
    /// Call it from `App::ui` (the only place with an `eframe::Frame`), once.
    pub fn from_frame(frame: &mut eframe::Frame) -> Result<Self, RendererError> {
        let gl = frame.gl().ok_or(RendererError::NoGlContext)?.clone();
        let mut renderer = Self::new(gl)?;
        renderer.texture_id = Some(frame.register_native_glow_texture(renderer.texture));
        Ok(renderer)
    }

    /// Creates the renderer on a current GL context without registering it with egui (for
    /// headless rendering: render with [`Self::render_offscreen`], read with
    /// [`Self::read_pixels`]).
    pub fn new(gl: Arc<glow::Context>) -> Result<Self, RendererError> {
        let three = three_d::Context::from_gl_context(gl.clone())
            .map_err(|e| RendererError::Context(e.to_string()))?;
        let gl_err =
            |what: &'static str| move |message: String| RendererError::GlObject { what, message };
        // SAFETY: plain object creation on the caller's current context.
        let (texture, depth, fbo, max_size) = unsafe {
            let texture = gl.create_texture().map_err(gl_err("texture"))?;
            let depth = gl.create_renderbuffer().map_err(gl_err("renderbuffer"))?;
            let fbo = gl.create_framebuffer().map_err(gl_err("framebuffer"))?;
            gl.bind_texture(glow::TEXTURE_2D, Some(texture));
            // Without LINEAR the default mipmap filter leaves the texture incomplete (black).
            for (param, value) in [
                (glow::TEXTURE_MIN_FILTER, glow::LINEAR),
                (glow::TEXTURE_MAG_FILTER, glow::LINEAR),
                (glow::TEXTURE_WRAP_S, glow::CLAMP_TO_EDGE),
                (glow::TEXTURE_WRAP_T, glow::CLAMP_TO_EDGE),
            ] {
                gl.tex_parameter_i32(glow::TEXTURE_2D, param, value as i32);
            }
            gl.bind_texture(glow::TEXTURE_2D, None);
            let max = gl.get_parameter_i32(glow::MAX_TEXTURE_SIZE).max(1) as u32;
            (texture, depth, fbo, max)
        };
        // SAFETY: as above.
        let msaa = unsafe {
            let samples = gl.get_parameter_i32(glow::MAX_SAMPLES).min(MSAA_SAMPLES);
            match (
                samples >= 2,
                gl.create_framebuffer(),
                gl.create_renderbuffer(),
                gl.create_renderbuffer(),
            ) {
                (true, Ok(fbo), Ok(color), Ok(depth)) => Some(Msaa {
                    fbo: Some(fbo),
                    color,
                    depth,
                    samples,
                }),
                _ => None, // no multisampling: render straight into the texture
            }
        };
        let scene = GpuScene::new(&three);
        let mut renderer = GlowViewportRenderer {
            gl,
            three,
            scene,
            texture,
            depth,
            fbo: Some(fbo),
            msaa,
            size_px: [0, 0],
            max_size,
            texture_id: None,
            frames: 0,
            last_error: None,
            extras: Vec::new(),
        };
        renderer.resize([1, 1])?;
        Ok(renderer)
    }

    /// The egui texture showing the image (set by [`Self::from_frame`]).
    pub fn texture_id(&self) -> Option<egui::TextureId> {
        self.texture_id
    }

    /// The last error a render hit, if any (renders after it are attempted again).
    pub fn last_error(&self) -> Option<&RendererError> {
        self.last_error.as_ref()
    }

    /// Counters: frames, uploads, instances, size.
    pub fn stats(&self) -> RenderStats {
        RenderStats {
            frames: self.frames,
            uploads: self.scene.uploads,
            incremental_updates: self.scene.incremental_updates,
            instances: self.scene.instances,
            size_px: self.size_px,
            models_uploaded: self.scene.models_uploaded(),
            samples: self.msaa.as_ref().map_or(1, |m| m.samples as u32),
        }
    }

    /// (Re)allocates the texture and depth storage; the GL names stay the same.
    fn resize(&mut self, size_px: [u32; 2]) -> Result<(), RendererError> {
        let [w, h] = size_px.map(|v| v.clamp(1, self.max_size));
        if [w, h] == self.size_px {
            return Ok(());
        }
        let gl = &self.gl;
        // SAFETY: our own objects on the current context; the FBO is bound only here.
        let status = unsafe {
            gl.bind_texture(glow::TEXTURE_2D, Some(self.texture));
            gl.tex_image_2d(
                glow::TEXTURE_2D,
                0,
                glow::RGBA8 as i32,
                w as i32,
                h as i32,
                0,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelUnpackData::Slice(None),
            );
            gl.bind_texture(glow::TEXTURE_2D, None);
            gl.bind_renderbuffer(glow::RENDERBUFFER, Some(self.depth));
            gl.renderbuffer_storage(
                glow::RENDERBUFFER,
                glow::DEPTH_COMPONENT24,
                w as i32,
                h as i32,
            );
            gl.bind_renderbuffer(glow::RENDERBUFFER, None);
            gl.bind_framebuffer(glow::FRAMEBUFFER, self.fbo);
            gl.framebuffer_texture_2d(
                glow::FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::TEXTURE_2D,
                Some(self.texture),
                0,
            );
            gl.framebuffer_renderbuffer(
                glow::FRAMEBUFFER,
                glow::DEPTH_ATTACHMENT,
                glow::RENDERBUFFER,
                Some(self.depth),
            );
            let status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
            // egui_glow never binds framebuffer 0 itself: leave it bound.
            gl.bind_framebuffer(glow::FRAMEBUFFER, None);
            status
        };
        if status != glow::FRAMEBUFFER_COMPLETE {
            return Err(RendererError::IncompleteFramebuffer(status));
        }
        if let Some(msaa) = &self.msaa {
            // SAFETY: as above, for the multisampled objects.
            let complete = unsafe {
                for (buffer, format) in [
                    (msaa.color, glow::RGBA8),
                    (msaa.depth, glow::DEPTH_COMPONENT24),
                ] {
                    gl.bind_renderbuffer(glow::RENDERBUFFER, Some(buffer));
                    gl.renderbuffer_storage_multisample(
                        glow::RENDERBUFFER,
                        msaa.samples,
                        format,
                        w as i32,
                        h as i32,
                    );
                }
                gl.bind_renderbuffer(glow::RENDERBUFFER, None);
                gl.bind_framebuffer(glow::FRAMEBUFFER, msaa.fbo);
                for (attachment, buffer) in [
                    (glow::COLOR_ATTACHMENT0, msaa.color),
                    (glow::DEPTH_ATTACHMENT, msaa.depth),
                ] {
                    gl.framebuffer_renderbuffer(
                        glow::FRAMEBUFFER,
                        attachment,
                        glow::RENDERBUFFER,
                        Some(buffer),
                    );
                }
                let status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
                gl.bind_framebuffer(glow::FRAMEBUFFER, None);
                status == glow::FRAMEBUFFER_COMPLETE
            };
            if !complete {
                self.drop_msaa(); // the driver cannot: render without multisampling
            }
        }
        self.size_px = [w, h];
        Ok(())
    }

    fn drop_msaa(&mut self) {
        if let Some(msaa) = self.msaa.take() {
            // SAFETY: deleting our own objects on the current context.
            unsafe {
                if let Some(fbo) = msaa.fbo {
                    self.gl.delete_framebuffer(fbo);
                }
                self.gl.delete_renderbuffer(msaa.color);
                self.gl.delete_renderbuffer(msaa.depth);
            }
        }
    }

    /// Uploads the scene's instances when its generation differs from the last upload (a
    /// no-op otherwise). [`Self::render_offscreen`] does this itself; it is public for
    /// measuring. The GL context must be current.
    pub fn upload(&mut self, scene: &ViewportScene) {
        self.scene.upload(scene);
    }

    /// True while models of the last scene are still waiting to be uploaded (see
    /// [`ViewportRenderer::prepare`]); rendering again uploads more of them.
    pub fn models_waiting(&self) -> bool {
        self.scene.models_waiting
    }

    /// Renders `request` into the offscreen texture (uploading instances first when the
    /// scene generation changed, and a time-boxed slice of the waiting models). The GL
    /// context must be current.
    pub fn render_offscreen(&mut self, request: &RenderRequest<'_>) -> Result<(), RendererError> {
        self.resize(request.size_px)?;
        self.scene.upload(request.scene);
        let multisample = request.multisample && self.msaa.is_some();
        let slot = match &mut self.msaa {
            Some(msaa) if multisample => &mut msaa.fbo,
            _ => &mut self.fbo,
        };
        let fbo = slot.take().expect("an FBO is only taken during a render");
        let [w, h] = self.size_px;
        let target = three_d::RenderTarget::from_framebuffer(&self.three, w, h, fbo);
        self.scene
            .render(&target, request.camera, self.size_px, request.background);
        // `from_framebuffer` owns the FBO and would delete it on drop: take it back.
        *slot = target.into_framebuffer();
        let (wi, hi) = (w as i32, h as i32);
        // SAFETY: resolving our own complete FBOs (colour and depth: the grid is depth-tested
        // against the scene after the resolve).
        unsafe {
            if let Some(msaa) = self.msaa.as_ref().filter(|_| multisample) {
                self.gl.bind_framebuffer(glow::READ_FRAMEBUFFER, msaa.fbo);
                self.gl.bind_framebuffer(glow::DRAW_FRAMEBUFFER, self.fbo);
                self.gl.blit_framebuffer(
                    0,
                    0,
                    wi,
                    hi,
                    0,
                    0,
                    wi,
                    hi,
                    glow::COLOR_BUFFER_BIT | glow::DEPTH_BUFFER_BIT,
                    glow::NEAREST,
                );
            }
        }
        let fbo = self
            .fbo
            .take()
            .expect("the FBO is only taken during a render");
        let target = three_d::RenderTarget::from_framebuffer(&self.three, w, h, fbo);
        self.scene
            .render_grid(&target, request.camera, self.size_px);
        self.fbo = target.into_framebuffer();
        // SAFETY: binding the default framebuffer back so egui paints to the window.
        unsafe { self.gl.bind_framebuffer(glow::FRAMEBUFFER, None) };
        self.frames += 1;
        Ok(())
    }

    /// The last rendered image as RGBA8 rows, top row first (`size_px[0] * size_px[1] * 4`
    /// bytes).
    pub fn read_pixels(&self) -> Vec<u8> {
        let [w, h] = self.size_px;
        let mut data = vec![0u8; (w * h * 4) as usize];
        // SAFETY: reading our own complete FBO into a buffer of exactly the right size.
        unsafe {
            self.gl.bind_framebuffer(glow::READ_FRAMEBUFFER, self.fbo);
            self.gl.pixel_store_i32(glow::PACK_ALIGNMENT, 1);
            self.gl.read_pixels(
                0,
                0,
                w as i32,
                h as i32,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelPackData::Slice(Some(&mut data)),
            );
            self.gl.bind_framebuffer(glow::READ_FRAMEBUFFER, None);
        }
        let row = (w * 4) as usize;
        data.chunks_exact(row).rev().flatten().copied().collect()
    }
}

impl ViewportRenderer for GlowViewportRenderer {
    fn prepare(&mut self, scene: &super::ViewportScene) -> bool {
        self.scene.upload(scene);
        self.scene.models_waiting
    }

    fn render(&mut self, request: &RenderRequest<'_>) -> Option<egui::TextureId> {
        match self.render_offscreen(request) {
            Ok(()) => {
                self.last_error = None;
                self.texture_id
            }
            Err(e) => {
                self.last_error = Some(e);
                None
            }
        }
    }

    fn extra(&mut self, index: usize) -> Option<&mut dyn ViewportRenderer> {
        self.extras
            .get_mut(index)
            .map(|r| r as &mut dyn ViewportRenderer)
    }
}

impl Drop for GlowViewportRenderer {
    fn drop(&mut self) {
        self.drop_msaa();
        // SAFETY: deleting our own objects; eframe keeps the context alive while the app lives.
        unsafe {
            if let Some(fbo) = self.fbo.take() {
                self.gl.delete_framebuffer(fbo);
            }
            self.gl.delete_renderbuffer(self.depth);
            self.gl.delete_texture(self.texture);
        }
    }
}
