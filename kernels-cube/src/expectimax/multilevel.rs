//! The multi-level generation (seed 4.4): one launch per depth. A level's nodes are stored as
//! (board, len, rewards so far); node `i` of a level is child `i % fanout` of node
//! `i / fanout` of the level above, so each upper node is computed once. A unit whose parent is
//! invalid copies the parent's len and rewards and touches no board: the subtree is skipped.

use super::{network_value, put_tile, ACTIONS, OUTCOMES, SPAWNS};
use crate::fib::moves::{cell, slide};
use crate::fib::DeviceTiles;
use cubecl::prelude::*;

/// Player nodes → their 4 action children (afterstates). A parent is valid when its len is
/// `full`.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn actions_kernel<T: DeviceTiles>(
    boards: &Array<u32>,
    lens: &Array<u32>,
    accs: &Array<f32>,
    out_boards: &mut Array<u32>,
    out_lens: &mut Array<u32>,
    out_accs: &mut Array<f32>,
    full: u32,
    count: u32,
    #[comptime] words: usize,
) {
    let i = ABSOLUTE_POS as u32;
    if i < count {
        let parent = (i / ACTIONS) as usize;
        let mut len = lens[parent];
        let mut acc = accs[parent];
        if len == full {
            let board = T::load(boards, parent * words);
            let s = slide::<T>(&board, i % ACTIONS);
            if s.moved {
                T::store(&s.board, out_boards, i as usize * words);
                len += 1u32;
                acc += f32::cast_from(s.reward);
            }
        }
        out_lens[i as usize] = len;
        out_accs[i as usize] = acc;
    }
}

/// Afterstates → their chance outcomes (cell `o / S`, spawn tile `o % S`).
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn outcomes_kernel<T: DeviceTiles>(
    boards: &Array<u32>,
    lens: &Array<u32>,
    accs: &Array<f32>,
    spawn_tiles: &Array<u32>,
    out_boards: &mut Array<u32>,
    out_lens: &mut Array<u32>,
    out_accs: &mut Array<f32>,
    full: u32,
    count: u32,
    #[comptime] words: usize,
) {
    let i = ABSOLUTE_POS as u32;
    if i < count {
        let parent = (i / OUTCOMES) as usize;
        let o = i % OUTCOMES;
        let mut len = lens[parent];
        if len == full {
            let mut board = T::load(boards, parent * words);
            let c = o / SPAWNS;
            if cell::<T>(&board, c) == 0u32 {
                put_tile::<T>(&mut board, c, spawn_tiles[(o % SPAWNS) as usize]);
                T::store(&board, out_boards, i as usize * words);
                len += 1u32;
            }
        }
        out_lens[i as usize] = len;
        out_accs[i as usize] = accs[parent];
    }
}

/// The deepest player nodes → the entries of their 4 leaf paths: rewards + V(afterstate).
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn leaves_kernel<T: DeviceTiles>(
    boards: &Array<u32>,
    lens: &Array<u32>,
    accs: &Array<f32>,
    weights: &Array<f32>,
    lookups: &Array<u32>,
    values: &mut Array<f32>,
    out_lens: &mut Array<u32>,
    lookup_count: u32,
    full: u32,
    count: u32,
    #[comptime] words: usize,
) {
    let i = ABSOLUTE_POS as u32;
    if i < count {
        let parent = (i / ACTIONS) as usize;
        let mut len = lens[parent];
        let mut acc = accs[parent];
        if len == full {
            let board = T::load(boards, parent * words);
            let s = slide::<T>(&board, i % ACTIONS);
            if s.moved {
                len += 1u32;
                acc += f32::cast_from(s.reward)
                    + network_value::<T>(&s.board, weights, lookups, lookup_count);
            }
        }
        values[i as usize] = acc;
        out_lens[i as usize] = len;
    }
}
