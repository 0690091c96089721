//! A model's way onto the GPU in small steps, so the UI thread (where the GL context lives)
//! never spends much more than its per-frame budget on it: textures go up a band of rows at a
//! time (their mip levels were computed on a loader thread, see `models::levels`), then the
//! meshes one part at a time. A model is drawn only once every step is done.

use std::sync::Arc;

use eframe::glow::{self, HasContext};
use three_d::{Context, InstancedMesh, Instances, Interpolation, Texture2D, Texture2DRef};

use super::models::LoadedModel;
use super::models::levels::{StagedTexture, TextureLevels};

/// About how many bytes one step copies into a texture: on software GL a copy runs at roughly
/// 1 GB/s, so a step costs well under a millisecond.
const BAND_BYTES: usize = 256 * 1024;

/// A material's uploaded textures, in `SurfaceTextures::slots` order.
pub(crate) type SurfaceSlots = [Option<Texture2DRef>; 4];

/// A texture being filled: its GL object and how far the copy has got.
struct TextureFill {
    texture: Texture2D,
    /// The GL name, to bind it again for each band (three-d does not expose it).
    name: glow::Texture,
    level: usize,
    row: u32,
}

/// One model part way through its upload.
pub(crate) struct PendingModel {
    pub source: Arc<LoadedModel>,
    /// Uploaded textures, by material.
    pub textures: Vec<SurfaceSlots>,
    /// Uploaded meshes, by part.
    pub meshes: Vec<InstancedMesh>,
    /// The next texture to start: (material, slot).
    next: (usize, usize),
    filling: Option<TextureFill>,
}

impl PendingModel {
    pub fn new(source: Arc<LoadedModel>) -> PendingModel {
        PendingModel {
            textures: vec![SurfaceSlots::default(); source.materials.len()],
            meshes: Vec::with_capacity(source.parts.len()),
            source,
            next: (0, 0),
            filling: None,
        }
    }

    /// Does one small piece of the upload; true once everything is on the GPU.
    pub fn step(&mut self, context: &Context) -> bool {
        if let Some(fill) = &mut self.filling {
            let (m, s) = self.next;
            let Some(StagedTexture::Levels(levels)) = self.source.materials[m].textures.slots()[s]
            else {
                unreachable!("only staged levels are filled in bands");
            };
            if fill_band(context, fill, levels) {
                let fill = self.filling.take().expect("filling");
                self.textures[m][s] = Some(Texture2DRef::from_texture(fill.texture));
                self.advance();
            }
            return false;
        }
        while self.next.0 < self.source.materials.len() {
            let (m, s) = self.next;
            match self.source.materials[m].textures.slots()[s] {
                None => self.advance(),
                Some(StagedTexture::Whole(cpu)) => {
                    self.textures[m][s] = Some(Texture2DRef::from_cpu_texture(context, cpu));
                    self.advance();
                    return false;
                }
                Some(StagedTexture::Levels(levels)) => {
                    self.filling = Some(allocate(context, levels));
                    return false;
                }
            }
        }
        if let Some(part) = self.source.parts.get(self.meshes.len()) {
            self.meshes.push(InstancedMesh::new(
                context,
                &Instances::default(),
                &part.mesh,
            ));
            return self.meshes.len() == self.source.parts.len();
        }
        true
    }

    fn advance(&mut self) {
        self.next.1 += 1;
        if self.next.1 == 4 {
            self.next = (self.next.0 + 1, 0);
        }
    }
}

/// Creates the texture with storage for every level and its sampling settings, no pixels yet.
fn allocate(context: &Context, levels: &TextureLevels) -> TextureFill {
    let base = &levels.levels[0];
    let count = levels.levels.len() as i32;
    let mut name = None;
    // SAFETY: called by three-d right after it created and bound the texture; this allocates
    // its levels (immutable storage, as three-d's own textures use) and reads its GL name.
    let storage = |internal_format: u32| unsafe {
        context.tex_storage_2d(
            glow::TEXTURE_2D,
            count,
            internal_format,
            base.width as i32,
            base.height as i32,
        );
        if let Some(mipmap) = levels.mipmap.filter(|_| count > 1) {
            context.tex_parameter_i32(
                glow::TEXTURE_2D,
                glow::TEXTURE_MIN_FILTER,
                min_filter(levels.min_filter, mipmap.filter) as i32,
            );
            context.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MAX_LEVEL, count - 1);
        }
        context.get_parameter_texture(glow::TEXTURE_BINDING_2D)
    };
    // Mipmapping is `None` for three-d: it would otherwise generate the levels on this thread.
    // SAFETY: the callback only allocates storage for the texture three-d bound for it.
    let texture = unsafe {
        if levels.channels == 3 {
            Texture2D::new_unchecked::<[u8; 3]>(
                context,
                base.width,
                base.height,
                levels.min_filter,
                levels.mag_filter,
                None,
                levels.wrap_s,
                levels.wrap_t,
                |_| name = storage(glow::RGB8),
            )
        } else {
            Texture2D::new_unchecked::<[u8; 4]>(
                context,
                base.width,
                base.height,
                levels.min_filter,
                levels.mag_filter,
                None,
                levels.wrap_s,
                levels.wrap_t,
                |_| name = storage(glow::RGBA8),
            )
        }
    };
    TextureFill {
        texture,
        name: name.expect("a texture was bound while it was created"),
        level: 0,
        row: 0,
    }
}

/// Copies the next band of rows; true when the last level is complete.
fn fill_band(context: &Context, fill: &mut TextureFill, levels: &TextureLevels) -> bool {
    let level = &levels.levels[fill.level];
    let row_bytes = level.width as usize * levels.channels as usize;
    let rows = (BAND_BYTES / row_bytes.max(1)).clamp(1, (level.height - fill.row) as usize) as u32;
    let start = fill.row as usize * row_bytes;
    let band = &level.bytes[start..start + rows as usize * row_bytes];
    let format = if levels.channels == 3 {
        glow::RGB
    } else {
        glow::RGBA
    };
    // SAFETY: our own texture, allocated with storage for this level; the band lies inside it
    // and holds exactly `width × rows` pixels (three-d sets the unpack alignment to 1).
    unsafe {
        context.bind_texture(glow::TEXTURE_2D, Some(fill.name));
        context.tex_sub_image_2d(
            glow::TEXTURE_2D,
            fill.level as i32,
            0,
            fill.row as i32,
            level.width as i32,
            rows as i32,
            format,
            glow::UNSIGNED_BYTE,
            glow::PixelUnpackData::Slice(Some(band)),
        );
    }
    fill.row += rows;
    if fill.row == level.height {
        fill.level += 1;
        fill.row = 0;
    }
    fill.level == levels.levels.len()
}

fn min_filter(within: Interpolation, between: Interpolation) -> u32 {
    match (within, between) {
        (Interpolation::Nearest, Interpolation::Nearest) => glow::NEAREST_MIPMAP_NEAREST,
        (_, Interpolation::Nearest) => glow::LINEAR_MIPMAP_NEAREST,
        (Interpolation::Nearest, _) => glow::NEAREST_MIPMAP_LINEAR,
        _ => glow::LINEAR_MIPMAP_LINEAR,
    }
}

/// Sets a mesh's instances, skipping the upload when it stays empty.
pub(crate) fn set_instances(mesh: &mut InstancedMesh, instances: &Instances) {
    if mesh.instance_count() > 0 || !instances.transformations.is_empty() {
        mesh.set_instances(instances);
    }
}
