//! The naive generation (seed Figure 9, Algorithm 1): unit `p` replays leaf path `p` from its
//! root, so every upper node is recomputed by each of its leaves, and units under an invalid
//! node still run (doing nothing) to the end of their path.

use super::{act_in, chance_in, TreeShape};
use crate::ntuple::{layout_value, NetLayout};
use crate::stochastic::DeviceStochasticGame;
use cubecl::prelude::*;

/// Writes the entry of each of the `count` leaf paths (`paths` a root) to `values`/`lens`.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn naive_kernel<G: DeviceStochasticGame>(
    roots: &Array<u32>,
    weights: &Array<f32>,
    values: &mut Array<f32>,
    lens: &mut Array<u32>,
    paths: u32,
    count: u32,
    #[comptime] layers: u32,
    #[comptime] words: usize,
    #[comptime] tree: TreeShape,
    #[comptime] layout: NetLayout,
) {
    let p = ABSOLUTE_POS as u32;
    if p < count {
        let action_slots = comptime!(tree.action_slots());
        let block = comptime!(tree.block());
        let root = p / paths;
        let mut rest = p % paths;
        // Digits from the most significant: a0, then (outcome, action) blocks.
        let mut div = paths / action_slots;
        let a0 = rest / div;
        rest %= div;
        let mut state = G::load(roots, root as usize * words);
        let mut len = 0u32;
        let mut acc = 0.0f32;
        let first = act_in::<G>(&mut state, a0, tree);
        let mut alive = first.legal;
        if alive {
            acc += f32::cast_from(first.reward);
            len = 1u32;
        }
        #[unroll]
        for _k in 0..layers {
            div /= block;
            let digit = rest / div;
            rest %= div;
            let outcome = digit / action_slots;
            let action = digit % action_slots;
            if alive {
                if chance_in::<G>(&mut state, outcome, tree, false) {
                    len += 1u32;
                } else {
                    alive = false;
                }
            }
            if alive {
                let s = act_in::<G>(&mut state, action, tree);
                if s.legal {
                    acc += f32::cast_from(s.reward);
                    len += 1u32;
                } else {
                    alive = false;
                }
            }
        }
        if alive {
            acc += layout_value::<G>(&state, weights, layout);
        }
        values[p as usize] = acc;
        lens[p as usize] = len;
    }
}
