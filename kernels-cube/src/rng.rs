//! The device copy of `cubesearch_core::rng`: same functions, same numbers.

use cubecl::prelude::*;

/// murmur3's 32-bit finaliser.
#[cube]
pub fn mix32(x: u32) -> u32 {
    let mut x = x;
    x ^= x >> 16;
    x *= 0x85EB_CA6Bu32;
    x ^= x >> 13;
    x *= 0xC2B2_AE35u32;
    x ^= x >> 16;
    x
}

/// The starting state of worker `id` in a run seeded with `seed`; never zero.
#[cube]
pub fn worker_state(seed: u32, id: u32) -> u32 {
    let s = mix32(seed ^ mix32(id ^ 0x9E37_79B9u32));
    select(s == 0, 0x9E37_79B9u32, s)
}

/// Marsaglia's xorshift32: advances `state` and returns it.
#[cube]
pub fn next(state: &mut u32) -> u32 {
    let mut x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    x
}

/// A draw in `0..n`.
#[cube]
pub fn below(state: &mut u32, n: u32) -> u32 {
    next(state) % n
}
