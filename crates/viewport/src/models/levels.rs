//! A texture's pixels made ready for the GPU on a loader thread: rows in GL's order (bottom row
//! first) and every mip level computed, so the UI thread only copies bytes, a band of rows at
//! a time (see `gpu_models`), and never waits on a driver's `glGenerateMipmap`. On software GL
//! that call and three-d's copy-and-flip cost 20–30 ms for one 1024×1024 texture: more than a
//! frame, and a model brings a dozen.
//!
//! The down-sampling is a 2×2 box filter, what drivers use for `glGenerateMipmap`; it is a few
//! lines, and an image crate's resampler would mean converting every level into and out of its
//! own buffer type.

use three_d::{CpuTexture, Interpolation, Mipmap, TextureData, Wrapping};

/// One mip level: `width × height` pixels of `channels` bytes each, bottom row first.
#[derive(Clone, Debug, PartialEq)]
pub struct Level {
    /// Pixels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// `width * height * channels` bytes.
    pub bytes: Vec<u8>,
}

/// A texture as GL stores it: 8-bit RGB or RGBA, its sampling settings, and its mip chain
/// (level 0 is the image itself; a texture without mipmapping has only that level).
#[derive(Clone, Debug, PartialEq)]
pub struct TextureLevels {
    /// 3 (RGB) or 4 (RGBA) bytes per pixel.
    pub channels: u8,
    /// Level 0 first, each half the size of the one before (rounded down, at least 1).
    pub levels: Vec<Level>,
    /// Filter when a texel covers more than a pixel.
    pub mag_filter: Interpolation,
    /// Filter within a level when a texel covers less than a pixel.
    pub min_filter: Interpolation,
    /// Mipmapping, when the image asked for it.
    pub mipmap: Option<Mipmap>,
    /// Wrapping along U.
    pub wrap_s: Wrapping,
    /// Wrapping along V.
    pub wrap_t: Wrapping,
}

/// A material texture ready to upload: as levels when its format is 8-bit colour (every
/// PNG and JPEG after loading), else as three-d's own texture, uploaded in one piece.
#[derive(Clone, Debug)]
pub enum StagedTexture {
    /// Pixels in GL's order with their mip chain.
    Levels(TextureLevels),
    /// Another format (16-bit or float images): three-d uploads it.
    Whole(CpuTexture),
}

impl StagedTexture {
    /// Stages `texture`, consuming it (its pixels move, they are not copied twice).
    pub fn new(texture: CpuTexture) -> StagedTexture {
        let CpuTexture {
            data,
            width,
            height,
            min_filter,
            mag_filter,
            mipmap,
            wrap_s,
            wrap_t,
            name,
        } = texture;
        let (channels, bytes) = match data {
            TextureData::RgbU8(p) => (3, p.into_iter().flatten().collect::<Vec<u8>>()),
            TextureData::RgbaU8(p) => (4, p.into_iter().flatten().collect()),
            data => {
                return StagedTexture::Whole(CpuTexture {
                    data,
                    width,
                    height,
                    min_filter,
                    mag_filter,
                    mipmap,
                    wrap_s,
                    wrap_t,
                    name,
                });
            }
        };
        let base = flip_rows(
            Level {
                width,
                height,
                bytes,
            },
            channels,
        );
        StagedTexture::Levels(TextureLevels {
            channels,
            levels: mip_chain(base, channels, mipmap.map(|m| m.max_levels)),
            mag_filter,
            min_filter,
            mipmap,
            wrap_s,
            wrap_t,
        })
    }
}

impl TextureLevels {
    /// Bytes over every level.
    pub fn byte_len(&self) -> usize {
        self.levels.iter().map(|l| l.bytes.len()).sum()
    }
}

/// CPU images list the top row first; GL's texture rows start at the bottom.
fn flip_rows(mut level: Level, channels: u8) -> Level {
    let row = level.width as usize * channels as usize;
    if let Some(rows) = level.bytes.len().checked_div(row) {
        for y in 0..rows / 2 {
            let (top, bottom) = level.bytes.split_at_mut((rows - 1 - y) * row);
            top[y * row..(y + 1) * row].swap_with_slice(&mut bottom[..row]);
        }
    }
    level
}

/// `base` and its halvings down to 1×1, at most `max_levels` levels in all (none below the base
/// when `max_levels` is `None`: no mipmapping).
fn mip_chain(base: Level, channels: u8, max_levels: Option<u32>) -> Vec<Level> {
    let wanted = match max_levels {
        None => 1,
        Some(max) => {
            let full = 32 - base.width.max(base.height).max(1).leading_zeros();
            full.min(max.max(1))
        }
    };
    let mut levels = vec![base];
    while (levels.len() as u32) < wanted {
        let next = halve(levels.last().expect("the base is there"), channels);
        levels.push(next);
    }
    levels
}

/// The next mip level: each pixel the mean of a 2×2 block (a 1-pixel side stays 1; an odd
/// side's last row or column is left out, as `glGenerateMipmap` implementations commonly do).
fn halve(level: &Level, channels: u8) -> Level {
    let c = channels as usize;
    let (w, h) = (level.width as usize, level.height as usize);
    let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
    let (sx, sy) = (if w > 1 { 2 } else { 1 }, if h > 1 { 2 } else { 1 });
    let mut bytes = Vec::with_capacity(nw * nh * c);
    for y in 0..nh {
        let row0 = &level.bytes[(y * sy) * w * c..][..w * c];
        let row1 = &level.bytes[(y * sy + sy - 1) * w * c..][..w * c];
        for x in 0..nw {
            let (a, b) = (x * sx * c, (x * sx + sx - 1) * c);
            for k in 0..c {
                let sum = row0[a + k] as u32
                    + row0[b + k] as u32
                    + row1[a + k] as u32
                    + row1[b + k] as u32;
                bytes.push(((sum + 2) / 4) as u8);
            }
        }
    }
    Level {
        width: nw as u32,
        height: nh as u32,
        bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rgba(width: u32, height: u32, pixel: impl Fn(u32, u32) -> [u8; 4]) -> CpuTexture {
        CpuTexture {
            data: TextureData::RgbaU8(
                (0..height)
                    .flat_map(|y| (0..width).map(move |x| (x, y)))
                    .map(|(x, y)| pixel(x, y))
                    .collect(),
            ),
            width,
            height,
            ..Default::default()
        }
    }

    fn levels(t: CpuTexture) -> TextureLevels {
        match StagedTexture::new(t) {
            StagedTexture::Levels(l) => l,
            StagedTexture::Whole(_) => panic!("8-bit colour is staged as levels"),
        }
    }

    #[test]
    fn rows_are_stored_bottom_first() {
        // Row y holds the value y: GL's first row must be the image's last.
        let l = levels(CpuTexture {
            mipmap: None,
            ..rgba(2, 3, |_, y| [y as u8; 4])
        });
        assert_eq!(l.levels.len(), 1);
        let rows: Vec<u8> = l.levels[0].bytes.chunks(8).map(|r| r[0]).collect();
        assert_eq!(rows, vec![2, 1, 0]);
    }

    #[test]
    fn the_chain_halves_down_to_one_pixel_averaging_blocks() {
        let l = levels(rgba(8, 4, |x, _| {
            [if x % 2 == 0 { 0 } else { 200 }, 10, 20, 255]
        }));
        let sizes: Vec<(u32, u32)> = l.levels.iter().map(|l| (l.width, l.height)).collect();
        assert_eq!(sizes, vec![(8, 4), (4, 2), (2, 1), (1, 1)]);
        // Alternating columns of 0 and 200 average to 100 one level down.
        assert!(l.levels[1].bytes.chunks(4).all(|p| p == [100, 10, 20, 255]));
        assert_eq!(l.levels[3].bytes, vec![100, 10, 20, 255]);
        assert_eq!(l.byte_len(), (32 + 8 + 2 + 1) * 4);
    }

    #[test]
    fn max_levels_caps_the_chain_and_rgb_keeps_three_channels() {
        let t = CpuTexture {
            data: TextureData::RgbU8(vec![[9, 8, 7]; 16 * 16]),
            width: 16,
            height: 16,
            mipmap: Some(Mipmap {
                max_levels: 3,
                ..Default::default()
            }),
            ..Default::default()
        };
        let l = levels(t);
        assert_eq!(l.channels, 3);
        assert_eq!(l.levels.len(), 3);
        assert_eq!(l.levels[2].bytes, [9, 8, 7].repeat(16));
    }

    #[test]
    fn other_formats_stay_whole() {
        let t = CpuTexture {
            data: TextureData::RgbaF32(vec![[0.5; 4]; 4]),
            width: 2,
            height: 2,
            ..Default::default()
        };
        assert!(matches!(StagedTexture::new(t), StagedTexture::Whole(_)));
    }
}
