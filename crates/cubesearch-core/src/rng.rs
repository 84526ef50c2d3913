//! The random-number scheme every backend shares, so that a fixed seed gives bit-identical results
//! on the CPU, on wgpu and on CUDA.
//!
//! Each worker (a GPU unit, or one CPU loop iteration standing in for it) owns one xorshift32 state,
//! as the checkers seed does. The state is `mix(run_seed ^ mix(worker_id ^ 0x9E3779B9))`, where `mix`
//! is the murmur3 32-bit finaliser: unlike the seed's bare `0x9E3779B9 ^ id`, neighbouring workers
//! then start from unrelated states, and the run seed changes every stream. A draw in `0..n` is
//! `next() % n`. The device copy of these functions is `cubesearch_kernels::rng`; a test holds the
//! two equal.

/// The golden-ratio constant ⌊2³²/φ⌋ the seed document seeds its generators with.
pub const GOLDEN: u32 = 0x9E37_79B9;

/// murmur3's 32-bit finaliser: a bijection that spreads every input bit over the output.
#[inline]
pub const fn mix32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x85EB_CA6B);
    x ^= x >> 13;
    x = x.wrapping_mul(0xC2B2_AE35);
    x ^= x >> 16;
    x
}

/// The starting state of worker `id` in a run seeded with `seed`; never zero.
#[inline]
pub const fn worker_state(seed: u32, id: u32) -> u32 {
    let s = mix32(seed ^ mix32(id ^ GOLDEN));
    if s == 0 {
        GOLDEN
    } else {
        s
    }
}

/// Marsaglia's xorshift32, one generator per worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XorShift32(pub u32);

impl XorShift32 {
    /// The generator of worker `id` in a run seeded with `seed`.
    pub const fn for_worker(seed: u32, id: u32) -> Self {
        Self(worker_state(seed, id))
    }

    /// The next 32 random bits.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }

    /// A draw in `0..n` (`n > 0`), the same way the device draws.
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        self.next_u32() % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xorshift32_matches_marsaglia_reference_sequence() {
        // Marsaglia (2003), "Xorshift RNGs": from y = 2463534242 the 13/17/5 generator yields 723471715.
        let mut g = XorShift32(2_463_534_242);
        assert_eq!(g.next_u32(), 723_471_715);
    }

    #[test]
    fn worker_states_differ_and_are_nonzero() {
        let states: std::collections::HashSet<u32> =
            (0..10_000).map(|id| worker_state(7, id)).collect();
        assert_eq!(states.len(), 10_000);
        assert!(!states.contains(&0));
        assert_ne!(worker_state(1, 0), worker_state(2, 0));
    }
}
