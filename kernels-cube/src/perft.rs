//! Perft, generic over the device game: each unit counts the move paths of one root to a fixed
//! depth with an iterative depth-first walk (no recursion on the device), counting the last ply
//! in bulk from `move_count`.
//!
//! Walks resume: a launch takes each unit at most `budget` steps, then leaves its walk in device
//! memory, and the host launches again until every walk has finished. The same full-depth walk
//! thus runs on a device that cuts long loops short (lavapipe) and in launches short enough for
//! a desktop GPU's watchdog.

use crate::device_game::{DeviceGame, GpuGame};
use crate::launch::{grid, launch_until_done, read, upload, Turns, Walker};
use cubecl::prelude::*;
use cubesearch_core::Result;

/// The level word of a walk that has counted everything.
const FINISHED: u32 = u32::MAX;

/// `nodes[r]` = perft(root r, `depth`), `depth ≥ 1`, once every walk has finished. The walk keeps,
/// per level, the position (as `words` u32 words), the next move to try and the move count; a
/// unit leaves it in `walks` between launches, with the level it stands on last:
///
/// ```text
/// unit r, (depth − 1) levels:  | boards: levels × words | next: levels | counts: levels | level |
/// ```
///
/// The first launch (`fresh`) starts every walk from its root; each unfinished walk adds one to
/// `unfinished[0]`.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn perft_kernel<G: DeviceGame>(
    roots: &Array<u32>,
    walks: &mut Array<u32>,
    nodes: &mut Array<u64>,
    unfinished: &mut Array<Atomic<u32>>,
    count: u32,
    budget: u32,
    #[comptime] fresh: bool,
    #[comptime] depth: u32,
    #[comptime] words: usize,
    #[comptime] terminal_leaf: u32,
) {
    let root = ABSOLUTE_POS as u32;
    if root < count {
        let r = root as usize;
        let levels = comptime!(if depth > 1 {
            (depth - 1) as usize
        } else {
            1usize
        });
        let stride = comptime!(levels * (words + 2) + 1);
        let base = r * stride;
        let mut boards = Array::<u32>::new(comptime!(levels * words));
        let mut next = Array::<u32>::new(levels);
        let mut counts = Array::<u32>::new(levels);
        let mut level: u32 = 0u32;
        let mut total: u64 = 0u64;
        let mut walking = true;
        if comptime!(fresh) {
            let start = G::load(roots, r * words);
            let moves = G::move_count(&start);
            if moves == 0 {
                total = u64::cast_from(terminal_leaf);
                walking = false;
            } else if comptime!(depth == 1) {
                total = u64::cast_from(moves);
                walking = false;
            } else {
                G::store(&start, &mut boards, 0);
                next[0] = 0u32;
                counts[0] = moves;
            }
            if !walking {
                nodes[r] = total;
                walks[base + stride - 1] = FINISHED;
            }
        } else {
            level = walks[base + stride - 1];
            walking = level != FINISHED;
            if walking {
                total = nodes[r];
                // The live levels `0..=level` only, in runtime loops (as saved below).
                let live = (level + 1u32) as usize;
                for i in 0..live * words {
                    boards[i] = walks[base + i];
                }
                for i in 0..live {
                    next[i] = walks[base + comptime!(levels * words) + i];
                    counts[i] = walks[base + comptime!(levels * (words + 1)) + i];
                }
            }
        }
        if walking {
            let last = comptime!(if depth > 1 { depth - 2 } else { 0u32 });
            let mut done = false;
            let mut steps: u32 = 0u32;
            while !done && steps < budget {
                steps += 1u32;
                let l = level as usize;
                if next[l] < counts[l] {
                    let mut child = G::load(&boards, l * words);
                    G::play(&mut child, next[l]);
                    next[l] += 1u32;
                    let child_moves = G::move_count(&child);
                    if level == last || child_moves == 0 {
                        // The child sits one ply above the leaves, or has no move at all.
                        total +=
                            u64::cast_from(select(child_moves == 0, terminal_leaf, child_moves));
                    } else {
                        level += 1u32;
                        let down = level as usize;
                        G::store(&child, &mut boards, down * words);
                        next[down] = 0u32;
                        counts[down] = child_moves;
                    }
                } else if level == 0 {
                    done = true;
                } else {
                    level -= 1u32;
                }
            }
            nodes[r] = total;
            if done {
                walks[base + stride - 1] = FINISHED;
            } else {
                // Runtime loops over the live levels: unrolled, a deep walk's copies bloat the
                // kernel.
                let live = (level + 1u32) as usize;
                for i in 0..live * words {
                    walks[base + i] = boards[i];
                }
                for i in 0..live {
                    walks[base + comptime!(levels * words) + i] = next[i];
                    walks[base + comptime!(levels * (words + 1)) + i] = counts[i];
                }
                walks[base + stride - 1] = level;
                unfinished[0].fetch_add(1u32);
            }
        }
    }
}

/// perft(`depth`) of every root, one unit a root, its walk cut into launches as the walker's
/// slicing says and kept in its memory between them.
pub fn launch_perft<R: Runtime, G: GpuGame>(
    walker: Walker<'_, R>,
    game: &G,
    roots: &[G::State],
    depth: u32,
) -> Result<Vec<u64>> {
    let Walker {
        client,
        slicing,
        memory,
        stop,
    } = walker;
    if depth == 0 || roots.is_empty() {
        return Ok(vec![1; roots.len()]);
    }
    let levels = (depth as usize - 1).max(1);
    let stride = levels * (G::STATE_WORDS + 2) + 1;
    let mut nodes = Vec::with_capacity(roots.len());
    for turn in roots.chunks(slicing.roots_at_once(stride * 4)) {
        let walks = memory.buffer(client, 0, turn.len() * stride * 4);
        let turns = Turns {
            client,
            steps: slicing.steps,
            stop,
        };
        let counts = perft_turn::<R, G>(turns, game, turn, depth, stride, walks)?;
        nodes.extend(counts);
    }
    Ok(nodes)
}

/// One turn of [`launch_perft`]: launches until every walk of `roots` has finished.
fn perft_turn<R: Runtime, G: GpuGame>(
    turns: Turns<'_, R>,
    game: &G,
    roots: &[G::State],
    depth: u32,
    stride: usize,
    walks: cubecl::server::Handle,
) -> Result<Vec<u64>> {
    let Turns {
        client,
        steps,
        stop,
    } = turns;
    let roots_handle = upload(client, &game.encode_all(roots));
    let nodes = client.empty(roots.len() * std::mem::size_of::<u64>());
    let (count, dim) = grid(client, roots.len());
    launch_until_done(client, stop, |fresh, unfinished| {
        // SAFETY: units past `roots.len()` return at once; unit r touches only its own `stride`
        // words of `walks` and `nodes[r]`; the walk's levels stay below `depth - 1`.
        unsafe {
            perft_kernel::launch_unchecked::<G::Device, R>(
                client,
                count.clone(),
                dim,
                ArrayArg::from_raw_parts(roots_handle.clone(), roots.len() * G::STATE_WORDS),
                ArrayArg::from_raw_parts(walks.clone(), roots.len() * stride),
                ArrayArg::from_raw_parts(nodes.clone(), roots.len()),
                ArrayArg::from_raw_parts(unfinished, 1),
                roots.len() as u32,
                steps.max(1),
                fresh,
                depth,
                G::STATE_WORDS,
                G::PERFT_TERMINAL_LEAF as u32,
            );
        }
    })?;
    read::<R, u64>(client, nodes)
}
