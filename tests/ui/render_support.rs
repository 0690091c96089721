//! Reading back what the real renderer drew (surfaceless EGL on Mesa's software device), for
//! the pixel tests. Set `SCENETREE_RENDER_OUT=dir` to also write the images as PNG files.

use eframe::egui::Color32;
use scenetree_viewport::{GlowViewportRenderer, OrbitCamera, RenderRequest, ViewportScene};

/// An RGBA8 image, top row first.
pub struct Image {
    pub w: u32,
    pub h: u32,
    pub rgba: Vec<u8>,
}

impl Image {
    pub fn px(&self, x: u32, y: u32) -> [u8; 3] {
        let i = ((y * self.w + x) * 4) as usize;
        [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2]]
    }
    pub fn pixels(&self) -> impl Iterator<Item = (u32, u32, [u8; 3])> + '_ {
        (0..self.h).flat_map(move |y| (0..self.w).map(move |x| (x, y, self.px(x, y))))
    }
    pub fn count(&self, pred: impl Fn(u32, u32, [u8; 3]) -> bool) -> usize {
        self.pixels().filter(|&(x, y, c)| pred(x, y, c)).count()
    }
    /// Writes the image to `$SCENETREE_RENDER_OUT/name.png` when that variable is set.
    pub fn save(&self, name: &str) {
        if let Ok(dir) = std::env::var("SCENETREE_RENDER_OUT") {
            let path = std::path::Path::new(&dir).join(format!("{name}.png"));
            image::save_buffer(
                &path,
                &self.rgba,
                self.w,
                self.h,
                image::ExtendedColorType::Rgba8,
            )
            .expect("write PNG");
        }
    }
}

/// Renders `scene` as `camera` sees it into a `[w, h]` image, multisampled, again and again
/// until every model of the scene is uploaded (uploads are time-boxed per render), and reads
/// it back.
pub fn render(
    renderer: &mut GlowViewportRenderer,
    scene: &ViewportScene,
    camera: &OrbitCamera,
    [w, h]: [u32; 2],
    background: Color32,
) -> Image {
    for _ in 0..100 {
        renderer
            .render_offscreen(&RenderRequest {
                scene,
                camera,
                size_px: [w, h],
                background,
                multisample: true,
            })
            .expect("render");
        if !renderer.models_waiting() {
            break;
        }
    }
    assert!(!renderer.models_waiting(), "every model uploaded");
    Image {
        w,
        h,
        rgba: renderer.read_pixels(),
    }
}
