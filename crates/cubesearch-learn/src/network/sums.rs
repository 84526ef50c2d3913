//! V's one summation order ([`PartialSums`]) and the weights' relaxed reads and writes.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// V's four partial sums (see the module docs): lookup `l` adds to sum `l mod 4`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct PartialSums([f32; 4]);

impl PartialSums {
    /// Adds the weights of the next four lookups.
    #[inline(always)]
    pub(super) fn add(&mut self, weights: [f32; 4]) {
        for (s, w) in self.0.iter_mut().zip(weights) {
            *s += w;
        }
    }

    /// Adds the weights of the next lookups, given by their indices (a multiple of 4 of them),
    /// `weight` reading each.
    #[inline(always)]
    pub(super) fn add_lookups(&mut self, indices: &[u32], weight: impl Fn(u32) -> f32) {
        for four in indices.chunks_exact(4) {
            self.add([0, 1, 2, 3].map(|k| weight(four[k])));
        }
    }

    /// Adds the weights of lookups `first, first + 1, …` (given by their indices), lookup
    /// `l` into sum `l mod 4`.
    #[inline(always)]
    pub(super) fn add_lookups_from(
        &mut self,
        first: usize,
        indices: &[u32],
        weight: impl Fn(u32) -> f32,
    ) {
        if first.is_multiple_of(4) && indices.len().is_multiple_of(4) {
            self.add_lookups(indices, weight);
        } else {
            for (j, &i) in indices.iter().enumerate() {
                self.0[(first + j) % 4] += weight(i);
            }
        }
    }

    /// V: `(s₀ + s₁) + (s₂ + s₃)`.
    #[inline(always)]
    pub(super) fn total(self) -> f32 {
        let [a, b, c, d] = self.0;
        (a + b) + (c + d)
    }
}

/// A weight's value.
#[inline(always)]
pub(super) fn read(w: &AtomicU32) -> f32 {
    f32::from_bits(w.load(Relaxed))
}

/// Weights as plain floats (a snapshot: other threads may be writing).
pub(super) fn floats(weights: &[AtomicU32]) -> Vec<f32> {
    weights.iter().map(read).collect()
}

/// Adds `delta` to a weight (a relaxed load and store: see the module docs).
#[inline(always)]
pub(super) fn add(w: &AtomicU32, delta: f32) {
    w.store((read(w) + delta).to_bits(), Relaxed);
}

/// V of one board from its lookups' weight indices, `weight` reading each.
#[inline(always)]
pub(super) fn sum_lookups(indices: &[u32], weight: impl Fn(u32) -> f32) -> f32 {
    let mut sums = PartialSums::default();
    sums.add_lookups(indices, weight);
    sums.total()
}

/// V of four boards from their indices laid out as [`NTupleNetwork::indices_of`] does,
/// `weight` reading each.
#[inline(always)]
pub(super) fn sum_four_boards(
    indices: &[u32],
    wanted: [bool; 4],
    weight: impl Fn(u32) -> f32,
) -> [f32; 4] {
    let mut sums = [PartialSums::default(); 4];
    // Four lookups of the four boards: board i's lookup 4q + k at 16q + 4k + i.
    for sixteen in indices.chunks_exact(16) {
        for (i, sums) in sums.iter_mut().enumerate() {
            if wanted[i] {
                sums.add([0, 1, 2, 3].map(|k| weight(sixteen[4 * k + i])));
            }
        }
    }
    sums.map(PartialSums::total)
}

/// How the trainer reads weights: one load at a time, or eight at once with AVX2's gather
/// ([`crate::gather`]). Both sum the same floats in the same order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WeightReads {
    OneByOne,
    /// Gathers; with `prefetch`, a move's weights are all prefetched before its gathers.
    #[cfg(target_arch = "x86_64")]
    Gather {
        prefetch: bool,
    },
}

impl WeightReads {
    /// Gathers where `avx2` says so (a constant in each of the trainer's clones), prefetched
    /// on AMD's cores ([`prefetch_helps`]).
    ///
    /// # Safety
    /// With `avx2`, the CPU has AVX2.
    #[inline(always)]
    pub(crate) unsafe fn new(avx2: bool) -> Self {
        #[cfg(target_arch = "x86_64")]
        if avx2 {
            return WeightReads::Gather {
                prefetch: prefetch_helps(),
            };
        }
        let _ = avx2;
        WeightReads::OneByOne
    }
}

/// Whether prefetching a move's weights before its gathers pays: on an AMD EPYC one thread
/// trained 1.18 times as fast with it; on an Intel Xeon one thread was as fast and 16 threads
/// 0.94 times (docs/BENCHMARKS.md, row "Prefetching a move's weights"). So on AMD's cores.
#[cfg(target_arch = "x86_64")]
fn prefetch_helps() -> bool {
    static AMD: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AMD.get_or_init(|| {
        // CPUID leaf 0 names the vendor in EBX, EDX, ECX; every x86-64 has it.
        #[allow(unused_unsafe)]
        // SAFETY: CPUID leaf 0 exists on every x86-64 CPU.
        let id = unsafe { std::arch::x86_64::__cpuid(0) };
        let mut vendor = [0u8; 12];
        for (bytes, word) in vendor.chunks_exact_mut(4).zip([id.ebx, id.edx, id.ecx]) {
            bytes.copy_from_slice(&word.to_le_bytes());
        }
        &vendor == b"AuthenticAMD"
    })
}
