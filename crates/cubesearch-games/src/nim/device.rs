//! Nim on the device: the host's packed state, moved in registers.
//!
//! ```text
//!  bits 63..60   59..56   ...   7..4     3..0
//!      [count]  [heap 14] ... [heap 1] [heap 0]     4 bits a heap, heaps ≤ 15, ≤ 15 heaps
//! ```
//! Moves in canonical order: heap 0 take 1, 2, ..., then heap 1, ... (as the host lists them).

use crate::nim::Nim;
use cubecl::prelude::*;
use cubesearch_kernels::device_game::{DeviceGame, GpuGame, LOSS, ONGOING};
use cubesearch_kernels::rng;

/// The device twin of [`Nim`].
pub struct DeviceNim;

impl GpuGame for Nim {
    type Device = DeviceNim;
    const MAX_SCORE: i32 = 1;
}

/// Low nibble of every byte; heap nibbles, count excluded.
const HEAPS: u64 = 0x0FFF_FFFF_FFFF_FFFF;

/// Objects left on the board (the number of legal moves): the heaps summed bytewise (SWAR).
#[cube]
fn objects(state: u64) -> u32 {
    let low = state & 0x0F0F_0F0F_0F0F_0F0Fu64;
    let high = (state >> 4u64) & 0x000F_0F0F_0F0F_0F0Fu64;
    let bytes = low + high; // each byte ≤ 30, their sum ≤ 225: no carries
    u32::cast_from((bytes * 0x0101_0101_0101_0101u64) >> 56u64)
}

#[cube]
impl DeviceGame for DeviceNim {
    type State = u64;

    fn load(words: &Array<u32>, offset: usize) -> u64 {
        u64::cast_from(words[offset]) | (u64::cast_from(words[offset + 1]) << 32u64)
    }

    fn store(state: &u64, words: &mut Array<u32>, offset: usize) {
        words[offset] = u32::cast_from(*state & 0xFFFF_FFFFu64);
        words[offset + 1] = u32::cast_from(*state >> 32u64);
    }

    fn outcome(state: &u64) -> u32 {
        // Nobody can move: the previous player took the last object.
        select((*state & HEAPS) == 0u64, LOSS, ONGOING)
    }

    fn score(state: &u64) -> i32 {
        // Only finished games are known: a loss for the side to move.
        select((*state & HEAPS) == 0u64, -1i32, 0i32)
    }

    fn move_count(state: &u64) -> u32 {
        objects(*state)
    }

    fn play(state: &mut u64, index: u32) {
        let board = *state;
        let mut rest: u32 = index;
        let mut shift: u32 = 0u32;
        let mut heap: u32 = u32::cast_from(board & 0xFu64);
        while rest >= heap {
            rest -= heap;
            shift += 4u32;
            heap = u32::cast_from((board >> u64::cast_from(shift)) & 0xFu64);
        }
        *state = board - (u64::cast_from(rest + 1u32) << u64::cast_from(shift));
    }

    fn play_out(state: &mut u64, rng: &mut u32) -> u32 {
        let mut plies = 0u32;
        while (*state & HEAPS) != 0u64 {
            let pick = rng::below(rng, objects(*state));
            Self::play(state, pick);
            plies += 1u32;
        }
        plies
    }
}
