//! The per-slot records a [`super::SceneView`] stores: the hot fields of a node, the
//! zero-padded matrices, the flags, and the scratch lists a subtree move reuses.

use glam::Affine3A;

use crate::model::Entity;

/// No slot (an empty link, an unknown end).
pub(super) const NONE: u32 = u32::MAX;
/// The root's slot.
pub(super) const ROOT_SLOT: u32 = 0;

/// Per-slot flags.
pub(super) mod flag {
    /// The entity holds components in the source.
    pub const LIVE: u8 = 1;
    /// The entity has a Transform.
    pub const HAS_TRANSFORM: u8 = 2;
    /// The slot is on the free list (holds no node).
    pub const FREE: u8 = 4;
}

/// The fields of a slot that an update reads and writes together (a changed node is read,
/// compared, marked and then recomputed from its record), in one 32-byte record: a changed
/// node costs one cache line here instead of one per field array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(32))]
pub(super) struct Node {
    /// Effective parent slot (`NONE` only for the root and free slots).
    pub parent: u32,
    /// The end (exclusive) of the slot's range in its block: the slots after it up to there
    /// hold its descendants laid out with it, or holes. The root's is `NONE` (every slot).
    pub end: u32,
    /// The last child in the child list (see `SceneView::first_child`), or `NONE`.
    pub last_child: u32,
    /// Visit stamp: `mark == pass` means "seen in the current pass" (reading changes, cycle
    /// search, moves). See `SceneView::next_pass`.
    pub mark: u32,
    /// The parent the entity's Transform declares (the root without one).
    pub declared: Entity,
    /// Where the source last stored the node's Transform ([`super::NO_HINT`]: unknown), kept
    /// by bulk re-reads (see [`super::TransformSource::read_hinted`]).
    pub source_hint: u32,
    /// See [`flag`].
    pub flags: u8,
    /// The first slot of the node's block: the child of the root it lies under in the laid-out
    /// part, or the block appended at the end that holds it.
    pub block: u32,
}

impl Node {
    /// A node that is not linked yet.
    pub fn new(flags: u8) -> Node {
        Node {
            parent: NONE,
            end: NONE,
            last_child: NONE,
            mark: 0,
            declared: Entity::ROOT,
            source_hint: super::source::NO_HINT,
            flags,
            block: NONE,
        }
    }
}

/// A world or local matrix on a cache line of its own (a plain `Affine3A` is only 16-byte
/// aligned, so most would straddle two lines). Made by [`Matrix::new`] only, which zeroes the
/// padding lanes.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(64))]
pub(super) struct Matrix(pub Affine3A);

/// `column` with its fourth lane zero, by one AND with a mask (rebuilding it from its lanes
/// costs a quarter of a sweep's time).
#[inline(always)]
fn zero_padded(column: glam::Vec3A) -> glam::Vec3A {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128, _mm_and_ps, _mm_castsi128_ps, _mm_set_epi32};
        // SAFETY: SSE2, which these need, is part of every x86-64 processor.
        unsafe {
            let xyz = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
            glam::Vec3A::from(_mm_and_ps(__m128::from(column), xyz))
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    glam::Vec3A::from_vec4(column.extend(0.0))
}

impl Matrix {
    /// `affine` stored with the unused fourth lane of each of its four SIMD columns set to
    /// zero. glam leaves copies of other lanes there, and every product carries them down the
    /// hierarchy, where along a deep chain they shrink into subnormal floats; an Intel core
    /// takes a microcode assist of about a hundred cycles for each operation on one (the
    /// 100,000-deep chain's worlds cost 280 ns each on a Xeon against 10 ns here). A product
    /// of zero-padded matrices has zero padding, so the lanes never hold a subnormal.
    #[inline(always)]
    pub(super) fn new(affine: Affine3A) -> Matrix {
        Matrix(Affine3A {
            matrix3: glam::Mat3A::from_cols(
                zero_padded(affine.matrix3.x_axis),
                zero_padded(affine.matrix3.y_axis),
                zero_padded(affine.matrix3.z_axis),
            ),
            translation: zero_padded(affine.translation),
        })
    }

    /// The identity, zero-padded.
    pub(super) fn identity() -> Matrix {
        Matrix::new(Affine3A::IDENTITY)
    }
}

/// The lists `SceneView::relocate_subtree` works in, kept between calls.
#[derive(Clone, Debug, Default)]
pub(super) struct RelocateScratch {
    /// The moved nodes' old slots, in preorder.
    pub(super) order: Vec<u32>,
    pub(super) stack: Vec<u32>,
    /// Each moved node's new `end`, by its place in `order`.
    pub(super) ends: Vec<u32>,
}
