//! Labels of positions on the device: the twin of `cubesearch_learn::labels::label_positions`
//! without an exact solver. One unit a position searches it `depth` plies deep by negamax, the
//! network's value at the leaves and a finished game's final value wherever the search reaches
//! one ([`DeviceTupleGame`]), every child searched (alpha-beta finds the same value: a maximum
//! does not depend on the order, and the host's search is held to plain minimax). V is summed
//! in the network's one order, so the labels are the CPU's bit for bit.

use crate::device_game::{GpuGame, ONGOING};
use crate::launch::{check_buffer, grid, read, upload};
use crate::selfplay::{runtime_network, value_of, DeviceTupleGame, SelfPlayConfig};
use crate::td::config::Update;
use crate::td::TdNet;
use cubecl::prelude::*;
use cubesearch_core::{Error, Result};

/// Plies a label's search looks ahead at most: the search's stack is compiled this deep.
pub const MAX_LABEL_DEPTH: u32 = 8;

/// Below every value a position can have: where a node's maximum starts.
const LOWEST: f32 = -3.0e38;

/// What one launch is told.
#[derive(CubeLaunch, CubeType)]
pub struct LabelRun {
    /// Positions labelled.
    pub count: u32,
    /// Lookups of one V.
    pub lookups: u32,
    /// Plies searched.
    pub depth: u32,
}

/// `labels[p]` = the negamax value of position `p` as the module docs say.
#[cube(launch_unchecked)]
pub fn label_kernel<G: DeviceTupleGame>(
    weights: &Array<f32>,
    lut: &Array<u32>,
    positions: &Array<u32>,
    labels: &mut Array<f32>,
    run: LabelRun,
    #[comptime] net: SelfPlayConfig,
) {
    let p = ABSOLUTE_POS as u32;
    if p < run.count {
        let words = comptime!(net.words as usize);
        let root = G::load(positions, p as usize * words);
        if run.depth == 0u32 || G::outcome(&root) != ONGOING {
            labels[p as usize] = value_of::<G>(&root, weights, lut, run.lookups, net);
        } else {
            let levels = comptime!(MAX_LABEL_DEPTH as usize);
            // Level k: its position, the next move to try, its moves, the best value so far.
            let mut boards = Array::<u32>::new(comptime!(levels * words));
            let mut cursor = Array::<u32>::new(levels);
            let mut count = Array::<u32>::new(levels);
            let mut best = Array::<f32>::new(levels);
            G::store(&root, &mut boards, 0);
            cursor[0] = 0u32;
            count[0] = G::move_count(&root);
            best[0] = LOWEST;
            let mut level = 0u32;
            let mut done = false;
            while !done {
                let l = level as usize;
                if cursor[l] < count[l] {
                    let mut child = G::load(&boards, l * words);
                    G::play(&mut child, cursor[l]);
                    cursor[l] += 1u32;
                    if level + 1u32 == run.depth || G::outcome(&child) != ONGOING {
                        let v = -value_of::<G>(&child, weights, lut, run.lookups, net);
                        if v > best[l] {
                            best[l] = v;
                        }
                    } else {
                        level += 1u32;
                        let n = level as usize;
                        G::store(&child, &mut boards, n * words);
                        cursor[n] = 0u32;
                        count[n] = G::move_count(&child);
                        best[n] = LOWEST;
                    }
                } else if level == 0u32 {
                    done = true;
                } else {
                    let v = -best[l];
                    level -= 1u32;
                    let up = level as usize;
                    if v > best[up] {
                        best[up] = v;
                    }
                }
            }
            labels[p as usize] = best[0];
        }
    }
}

/// How deep [`launch_labels`] searches, and on what device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LabelSearch {
    /// Plies (at most [`MAX_LABEL_DEPTH`]).
    pub depth: u32,
    /// The loop iterations a unit may run where the device cuts long loops short (lavapipe).
    pub loop_budget: Option<u32>,
}

/// The labels of `positions` of game `G` under `net`, each searched `search.depth` plies deep.
/// A device that cuts long loops short takes one ply at most, which stays far inside its
/// budget.
pub fn launch_labels<R: Runtime, G: GpuGame>(
    client: &ComputeClient<R>,
    net: &TdNet,
    game: &G,
    positions: &[G::State],
    search: LabelSearch,
) -> Result<Vec<f32>>
where
    G::Device: DeviceTupleGame,
{
    let LabelSearch { depth, loop_budget } = search;
    let most = if loop_budget.is_some() {
        1
    } else {
        MAX_LABEL_DEPTH
    };
    if depth > most {
        return Err(Error::Unsupported(format!(
            "labels on this device search at most {most} plies (its loops are cut short past \
             that); got {depth}"
        )));
    }
    if positions.is_empty() {
        return Ok(Vec::new());
    }
    let (weights, lut, len) =
        runtime_network(client, net, "labels on the device need lookups of one size")?;
    let words = game.encode_all(positions);
    check_buffer(client, "the positions", words.len() as u64 * 4)?;
    let count = positions.len();
    let config = SelfPlayConfig {
        update: Update::Immediate,
        len,
        bits: net.bits,
        words: G::STATE_WORDS as u32,
    };
    let weights_handle = client.create_from_slice(f32::as_bytes(&weights));
    let lut_handle = upload(client, &lut);
    let positions_handle = upload(client, &words);
    let labels = client.empty(count * 4);
    let (cubes, dim) = grid(client, count);
    // SAFETY: the buffers hold what the kernel reads: every weight the checked table indexes,
    // the table, `count` positions of `words` words; unit p writes only `labels[p]`.
    unsafe {
        label_kernel::launch_unchecked::<G::Device, R>(
            client,
            cubes,
            dim,
            ArrayArg::from_raw_parts(weights_handle, weights.len()),
            ArrayArg::from_raw_parts(lut_handle, lut.len()),
            ArrayArg::from_raw_parts(positions_handle, words.len()),
            ArrayArg::from_raw_parts(labels.clone(), count),
            LabelRunLaunch::new(count as u32, net.lookups.len() as u32, depth),
            config,
        );
    }
    read::<R, f32>(client, labels)
}
