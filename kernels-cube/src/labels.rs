//! Labels of positions on the device: the twin of `cubesearch_learn::labels::label_positions`
//! without an exact solver. One unit a position searches it `depth` plies deep by fail-soft
//! alpha-beta, the network's value at the leaves and a finished game's final value wherever the
//! search reaches one ([`DeviceTupleGame`]). A node with more than `SORTED_ABOVE` plies below
//! it tries its children best first by their own values (a stable insertion sort, the host's
//! order). The root's window is open, so its value is the minimax value whatever the order,
//! and the labels are the CPU's bit for bit (a value is only ever copied or negated, and a zero
//! is written as +0).

use crate::device_game::{GpuGame, ONGOING};
use crate::launch::{check_buffer, grid, read, upload};
use crate::selfplay::{runtime_network, value_of, DeviceTupleGame, LookupSizes, SelfPlayConfig};
use crate::td::config::Update;
use crate::td::TdNet;
use cubecl::prelude::*;
use cubesearch_core::{Error, Result};

/// Plies a label's search looks ahead at most: the search's stack is compiled this deep.
pub const MAX_LABEL_DEPTH: u32 = 8;

/// Plies below a node from which it sorts its children. The host sorts from two; on the
/// device a sort two plies from the leaves costs about what it saves, and from three it pays
/// (docs/BENCHMARKS.md: 4 plies deep, 1.43× the positions a second of sorting from two, 2.2×
/// of not sorting).
const SORTED_ABOVE: u32 = 2;

/// Children a node sorts at most; a node with more tries them in the game's order (the same
/// value, more nodes).
const MAX_SORTED: u32 = 32;

/// Below every value a position can have: the open window's lower end.
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
            let sorted = comptime!(MAX_SORTED as usize);
            // Level k: its position, how many children it has tried, its children (in `order`
            // where it sorts them, `sorts` below), its window and best value so far.
            let mut boards = Array::<u32>::new(comptime!(levels * words));
            let mut cursor = Array::<u32>::new(levels);
            let mut count = Array::<u32>::new(levels);
            let mut order = Array::<u32>::new(comptime!(levels * sorted));
            let mut keys = Array::<f32>::new(sorted);
            let mut alpha = Array::<f32>::new(levels);
            let mut beta = Array::<f32>::new(levels);
            let mut best = Array::<f32>::new(levels);
            G::store(&root, &mut boards, 0);
            let mut level = 0u32;
            let mut entering = true;
            alpha[0] = LOWEST;
            beta[0] = -LOWEST;
            let mut done = false;
            while !done {
                let l = level as usize;
                if entering {
                    // A new node: count its children, and sort them where more than
                    // `SORTED_ABOVE` plies are left below it.
                    entering = false;
                    let node = G::load(&boards, l * words);
                    let n = G::move_count(&node);
                    cursor[l] = 0u32;
                    count[l] = n;
                    best[l] = LOWEST;
                    if sorts(run.depth - level, n) {
                        let base = l * sorted;
                        for i in 0..n {
                            let mut child = node;
                            G::play(&mut child, i);
                            let key = value_of::<G>(&child, weights, lut, run.lookups, net);
                            // Past every larger key: equal keys keep the game's order.
                            let mut j = i;
                            let mut moving = j > 0u32;
                            while moving {
                                if keys[(j - 1u32) as usize] > key {
                                    keys[j as usize] = keys[(j - 1u32) as usize];
                                    order[base + j as usize] = order[base + (j - 1u32) as usize];
                                    j -= 1u32;
                                    moving = j > 0u32;
                                } else {
                                    moving = false;
                                }
                            }
                            keys[j as usize] = key;
                            order[base + j as usize] = i;
                        }
                    }
                } else if cursor[l] < count[l] {
                    let mut m = cursor[l];
                    if sorts(run.depth - level, count[l]) {
                        m = order[l * sorted + cursor[l] as usize];
                    }
                    cursor[l] += 1u32;
                    let mut child = G::load(&boards, l * words);
                    G::play(&mut child, m);
                    if level + 1u32 == run.depth || G::outcome(&child) != ONGOING {
                        let v = -value_of::<G>(&child, weights, lut, run.lookups, net);
                        raise(&mut best, &mut alpha, &beta, &mut cursor, &count, l, v);
                    } else {
                        let below = l + 1;
                        G::store(&child, &mut boards, below * words);
                        alpha[below] = -beta[l];
                        beta[below] = -alpha[l];
                        level += 1u32;
                        entering = true;
                    }
                } else if level == 0u32 {
                    done = true;
                } else {
                    let v = -best[l];
                    level -= 1u32;
                    let up = level as usize;
                    raise(&mut best, &mut alpha, &beta, &mut cursor, &count, up, v);
                }
            }
            // A drawn line's zero has the sign of the path that found it first, which the
            // order decides: written as +0 (as on the host), the label is the same bits
            // whatever order found it.
            let mut label = best[0];
            if label == 0.0f32 {
                label = 0.0f32;
            }
            labels[p as usize] = label;
        }
    }
}

/// Whether a node with `below` plies below it and `n` children tries them best first.
#[cube]
fn sorts(below: u32, n: u32) -> bool {
    below > SORTED_ABOVE && n <= MAX_SORTED
}

/// A child of the node at level `l` is worth `v` to it: keep the best, raise alpha, and stop
/// trying children once alpha reaches beta (the host's order of tests, so the same cut-offs).
#[cube]
fn raise(
    best: &mut Array<f32>,
    alpha: &mut Array<f32>,
    beta: &Array<f32>,
    cursor: &mut Array<u32>,
    count: &Array<u32>,
    l: usize,
    v: f32,
) {
    if v > best[l] {
        best[l] = v;
        if v > alpha[l] {
            alpha[l] = v;
            if v >= beta[l] {
                cursor[l] = count[l];
            }
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
    let (weights, lut, len, padded) = runtime_network(client, net, LookupSizes::Any)?;
    let words = game.encode_all(positions);
    check_buffer(client, "the positions", words.len() as u64 * 4)?;
    let count = positions.len();
    let config = SelfPlayConfig {
        update: Update::Immediate,
        len,
        padded,
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
