//! A surfaceless EGL context on Mesa's software device (llvmpipe): real OpenGL with no
//! display, no window and no GPU. Shared by the rendering tests and the viewport benchmark.
//! With `SCENETREE_HEADLESS_GPU=1` in the environment ([`headless_gl`]) or
//! [`EglDevice::Hardware`] ([`headless_gl_on`]) it takes the first hardware EGL device instead
//! (a GPU's driver, such as NVIDIA's), so the benchmarks can be timed on a real GPU.

use std::sync::Arc;

use glutin::api::egl::{context::PossiblyCurrentContext, device::Device, display::Display};
use glutin::config::{ConfigSurfaceTypes, ConfigTemplateBuilder};
use glutin::context::{ContextApi, ContextAttributesBuilder, Version};
use glutin::prelude::*;

/// A current GL context; keep it alive while rendering (it is not `Send`: one per thread).
pub struct Headless {
    pub gl: Arc<eframe::glow::Context>,
    _context: PossiblyCurrentContext,
}

impl Headless {
    /// The GL implementation drawing (`GL_VENDOR` and `GL_RENDERER`), for benchmark output.
    pub fn renderer_name(&self) -> String {
        use eframe::glow::HasContext as _;
        // SAFETY: the context is current on this thread (made so by `headless_gl`).
        unsafe {
            format!(
                "{} {}",
                self.gl.get_parameter_string(eframe::glow::VENDOR),
                self.gl.get_parameter_string(eframe::glow::RENDERER)
            )
        }
    }
}

/// Why no headless context could be made: the step that failed and EGL's reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{step}: {reason}")]
pub struct HeadlessGlError {
    /// What was being done ("EGL display", "make current", …).
    pub step: &'static str,
    /// What EGL said, or what was missing.
    pub reason: String,
}

fn failed(step: &'static str) -> impl FnOnce(glutin::error::Error) -> HeadlessGlError {
    move |e| HeadlessGlError {
        step,
        reason: e.to_string(),
    }
}

/// The environment variable that asks [`headless_gl`] for a hardware device (value `1`).
pub const GPU_VARIABLE: &str = "SCENETREE_HEADLESS_GPU";

/// Which EGL device a headless context draws with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EglDevice {
    /// Mesa's software rasterizer (llvmpipe), the one every test machine has.
    Software,
    /// The first device that is not Mesa's software one: a GPU's driver.
    Hardware,
}

impl EglDevice {
    /// [`EglDevice::Hardware`] when [`GPU_VARIABLE`] is `1`, else [`EglDevice::Software`].
    pub fn from_environment() -> EglDevice {
        if std::env::var(GPU_VARIABLE).is_ok_and(|v| v == "1") {
            EglDevice::Hardware
        } else {
            EglDevice::Software
        }
    }
}

/// Creates an OpenGL 3.3 context on the device [`EglDevice::from_environment`] names (Mesa's
/// software one unless asked otherwise) and makes it current, or says why it cannot.
pub fn headless_gl() -> Result<Headless, HeadlessGlError> {
    headless_gl_on(EglDevice::from_environment())
}

/// Creates an OpenGL 3.3 context on `device` and makes it current, or says why it cannot.
pub fn headless_gl_on(device: EglDevice) -> Result<Headless, HeadlessGlError> {
    let want_gpu = device == EglDevice::Hardware;
    let device = Device::query_devices()
        .map_err(failed("EGL devices"))?
        .find(|d| d.extensions().contains("EGL_MESA_device_software") != want_gpu)
        .ok_or_else(|| HeadlessGlError {
            step: "EGL devices",
            reason: if want_gpu {
                "no hardware device (is the GPU's EGL driver installed?)"
            } else {
                "none with EGL_MESA_device_software (is Mesa's libEGL installed?)"
            }
            .into(),
        })?;
    // SAFETY: a device display needs no native display handle.
    let display = unsafe { Display::with_device(&device, None) }.map_err(failed("EGL display"))?;
    let template = ConfigTemplateBuilder::new()
        .with_surface_type(ConfigSurfaceTypes::empty())
        .build();
    // SAFETY: the display outlives the config and context created from it (kept inside).
    let config = unsafe { display.find_configs(template) }
        .map_err(failed("EGL configs"))?
        .next()
        .ok_or_else(|| HeadlessGlError {
            step: "EGL configs",
            reason: "no surfaceless config".into(),
        })?;
    let attributes = ContextAttributesBuilder::new()
        .with_context_api(ContextApi::OpenGl(Some(Version::new(3, 3))))
        .build(None);
    // SAFETY: the config came from this display, which outlives the context (both kept).
    let context = unsafe { display.create_context(&config, &attributes) }
        .map_err(failed("EGL context"))?
        .make_current_surfaceless()
        .map_err(failed("make current"))?;
    // SAFETY: the context is current on this thread; symbols come from the same display.
    let gl = unsafe {
        eframe::glow::Context::from_loader_function_cstr(|s| display.get_proc_address(s).cast())
    };
    Ok(Headless {
        gl: Arc::new(gl),
        _context: context,
    })
}
