//! Weight reads eight at a time with AVX2's gather, for the trainer's AVX2 clone.
//!
//! The network's sums (see [`crate::network`]) are four chains of additions, lookup `l` going
//! into chain `l mod 4`. A gather of eight consecutive lookups holds two steps of all four
//! chains; the chains live in the lanes of a register, so the additions, and so the floats,
//! are exactly those of the one-load-at-a-time path.
//!
//! The gather is written in `asm!`, not with the `_mm256_i32gather_ps` intrinsic: the weights
//! are atomics that other trainer threads may be writing, and the intrinsic is a plain
//! (non-atomic) read to the compiler. The instruction itself is eight aligned 4-byte loads,
//! each single-copy atomic on x86: exactly eight `Relaxed` loads, which is how the rest of
//! the crate reads the weights.

use std::arch::asm;
use std::arch::x86_64::*;
use std::sync::atomic::AtomicU32;

/// `weights[idx[j]]` in lane `j` where `mask`'s lane `j` is all ones (a relaxed load each, see
/// the module docs), 0.0 and no load where it is zero.
///
/// # Safety
/// AVX2 is available, and the index of every lane `mask` keeps is inside the slice `weights`
/// points into.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn eight(weights: *const AtomicU32, idx: __m256i, mask: __m256i) -> __m256 {
    let mut out = _mm256_setzero_ps();
    // SAFETY: the caller's promise; the `inout` operands get registers apart from the index
    // and from each other, as the instruction requires of its index, mask and destination,
    // and the instruction clears its mask, so it gets a copy.
    unsafe {
        asm!(
            "vgatherdps {out}, [{base} + {idx} * 4], {mask}",
            base = in(reg) weights,
            idx = in(ymm_reg) idx,
            mask = inout(ymm_reg) mask => _,
            out = inout(ymm_reg) out,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    out
}

/// Eight indices from `indices[at..at + 8]`.
///
/// # Safety
/// AVX2 is available and `at + 8 <= indices.len()`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load8(indices: &[u32], at: usize) -> __m256i {
    // SAFETY: the caller's promise.
    unsafe { _mm256_loadu_si256(indices.as_ptr().add(at).cast()) }
}

/// V of one board from its lookups' indices (a multiple of 8 of them).
///
/// # Safety
/// AVX2 is available, and every index is inside the slice `weights` points into.
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn sum_lookups(weights: *const AtomicU32, indices: &[u32]) -> f32 {
    // Lane k is partial sum k.
    let mut sums = _mm_setzero_ps();
    let every = _mm256_set1_epi32(-1);
    for at in (0..indices.len() & !7).step_by(8) {
        // SAFETY: the caller's promise; `at + 8` is within `indices`.
        let w = unsafe { eight(weights, load8(indices, at), every) };
        sums = _mm_add_ps(sums, _mm256_castps256_ps128(w));
        sums = _mm_add_ps(sums, _mm256_extractf128_ps::<1>(w));
    }
    let mut s = [0f32; 4];
    // SAFETY: `s` holds four floats.
    unsafe { _mm_storeu_ps(s.as_mut_ptr(), sums) };
    (s[0] + s[1]) + (s[2] + s[3])
}

/// Prefetches the weights of the boards of four that `wanted` names (indices laid out as for
/// [`sum_four_boards`]), so that all their loads are in flight at once: the gathers that follow
/// keep fewer in flight on some cores (`prefetch_helps` in `network/sums.rs`).
///
/// # Safety
/// Every index of a wanted board is inside the slice `weights` points into.
#[inline]
pub(crate) unsafe fn prefetch_four_boards(
    weights: *const AtomicU32,
    indices: &[u32],
    wanted: [bool; 4],
) {
    for (j, &i) in indices.iter().enumerate() {
        if wanted[j % 4] {
            // SAFETY: the caller's promise; a prefetch reads nothing the program sees.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(weights.add(i as usize).cast()) };
        }
    }
}

/// V of the boards of four that `wanted` names (0.0 for the others, whose weights are not
/// read) from their indices laid out as `NTupleNetwork::indices_of` does (board `i`'s lookup
/// `4q + k` at `16q + 4k + i`).
///
/// # Safety
/// AVX2 is available, and every index of a wanted board is inside the slice `weights` points
/// into.
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn sum_four_boards(
    weights: *const AtomicU32,
    indices: &[u32],
    wanted: [bool; 4],
) -> [f32; 4] {
    let [a, b, c, d] = wanted.map(|w| -(w as i32));
    // Lane k·4 + i holds board i.
    let mask = _mm256_setr_epi32(a, b, c, d, a, b, c, d);
    // Lane k·4 + i of `first` is board i's partial sum k (k = 0, 1); of `second`, k = 2, 3.
    let (mut first, mut second) = (_mm256_setzero_ps(), _mm256_setzero_ps());
    for at in (0..indices.len() & !15).step_by(16) {
        // SAFETY: the caller's promise; `at + 16` is within `indices`.
        unsafe {
            first = _mm256_add_ps(first, eight(weights, load8(indices, at), mask));
            second = _mm256_add_ps(second, eight(weights, load8(indices, at + 8), mask));
        }
    }
    // (s₀ + s₁) + (s₂ + s₃), the four boards side by side.
    let v = _mm_add_ps(
        _mm_add_ps(
            _mm256_castps256_ps128(first),
            _mm256_extractf128_ps::<1>(first),
        ),
        _mm_add_ps(
            _mm256_castps256_ps128(second),
            _mm256_extractf128_ps::<1>(second),
        ),
    );
    let mut out = [0f32; 4];
    // SAFETY: `out` holds four floats.
    unsafe { _mm_storeu_ps(out.as_mut_ptr(), v) };
    out
}
