//! The naive generation (seed Figure 9, Algorithm 1): unit `p` replays leaf path `p` from its
//! root, so every upper node is recomputed by each of its leaves, and units under an invalid
//! node still run (doing nothing) to the end of their path.

use super::{network_value, per_spawn, put_tile, NetLayout, ACTIONS, BLOCK, SPAWNS};
use crate::fib::moves::{cell, set_board, slide};
use crate::fib::DeviceTiles;
use cubecl::prelude::*;

/// Writes the entry of each of the `count` leaf paths (`paths` a root) to `values`/`lens`.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn naive_kernel<T: DeviceTiles>(
    roots: &Array<u32>,
    weights: &Array<f32>,
    values: &mut Array<f32>,
    lens: &mut Array<u32>,
    t0: u32,
    t1: u32,
    paths: u32,
    count: u32,
    #[comptime] layers: u32,
    #[comptime] words: usize,
    #[comptime] layout: NetLayout,
) {
    let p = ABSOLUTE_POS as u32;
    if p < count {
        let root = p / paths;
        let mut rest = p % paths;
        // Digits from the most significant: a0, then (outcome, action) blocks of BLOCK.
        let mut div = paths / ACTIONS;
        let a0 = rest / div;
        rest %= div;
        let mut board = T::load(roots, root as usize * words);
        let mut len = 0u32;
        let mut acc = 0.0f32;
        let first = slide::<T>(&board, a0);
        let mut alive = first.moved;
        if alive {
            set_board(&mut board, &first.board);
            acc += f32::cast_from(first.reward);
            len = 1u32;
        }
        #[unroll]
        for _k in 0..layers {
            div /= BLOCK;
            let digit = rest / div;
            rest %= div;
            let outcome = digit / ACTIONS;
            let action = digit % ACTIONS;
            let c = outcome / SPAWNS;
            if alive {
                if cell::<T>(&board, c) == 0u32 {
                    put_tile::<T>(&mut board, c, per_spawn::<u32>(outcome, t0, t1));
                    len += 1u32;
                } else {
                    alive = false;
                }
            }
            if alive {
                let s = slide::<T>(&board, action);
                if s.moved {
                    set_board(&mut board, &s.board);
                    acc += f32::cast_from(s.reward);
                    len += 1u32;
                } else {
                    alive = false;
                }
            }
        }
        if alive {
            acc += network_value::<T>(&board, weights, layout);
        }
        values[p as usize] = acc;
        lens[p as usize] = len;
    }
}
