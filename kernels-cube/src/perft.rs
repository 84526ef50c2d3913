//! Perft, generic over the device game: each unit counts the move paths of one root to a fixed
//! depth with an iterative depth-first walk (no recursion on the device), counting the last ply
//! in bulk from `move_count`.

use crate::device_game::{DeviceGame, GpuGame};
use crate::launch::{grid, read, upload};
use cubecl::prelude::*;
use cubesearch_core::Result;

/// `nodes[r]` = perft(root r, `depth`), `depth ≥ 1`. The walk keeps, per level, the position (as
/// `words` u32 words in a local array), its move count and the next move to try.
#[cube(launch_unchecked)]
pub fn perft_kernel<G: DeviceGame>(
    roots: &Array<u32>,
    nodes: &mut Array<u64>,
    count: u32,
    #[comptime] depth: u32,
    #[comptime] words: usize,
    #[comptime] terminal_leaf: u32,
) {
    let root = ABSOLUTE_POS as u32;
    if root < count {
        let start = G::load(roots, root as usize * words);
        let moves = G::move_count(&start);
        let mut total: u64 = 0u64;
        if moves == 0 {
            total = u64::cast_from(terminal_leaf);
        } else if comptime!(depth == 1) {
            total = u64::cast_from(moves);
        } else {
            let levels = comptime!((depth - 1) as usize);
            let mut boards = Array::<u32>::new(comptime!(levels * words));
            let mut next = Array::<u32>::new(levels);
            let mut counts = Array::<u32>::new(levels);
            G::store(&start, &mut boards, 0);
            next[0] = 0u32;
            counts[0] = moves;
            let mut level: u32 = 0u32;
            let last = comptime!(depth - 2);
            let mut done = false;
            while !done {
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
        }
        nodes[root as usize] = total;
    }
}

/// perft(`depth`) of every root, one unit a root.
pub fn launch_perft<R: Runtime, G: GpuGame>(
    client: &ComputeClient<R>,
    game: &G,
    roots: &[G::State],
    depth: u32,
) -> Result<Vec<u64>> {
    if depth == 0 || roots.is_empty() {
        return Ok(vec![1; roots.len()]);
    }
    let roots_handle = upload(client, &game.encode_all(roots));
    let nodes_handle = client.empty(roots.len() * std::mem::size_of::<u64>());
    let (count, dim) = grid(client, roots.len());
    // SAFETY: units past `roots.len()` return at once; the walk's levels stay below `depth - 1`.
    unsafe {
        perft_kernel::launch_unchecked::<G::Device, R>(
            client,
            count,
            dim,
            ArrayArg::from_raw_parts(roots_handle, roots.len() * G::STATE_WORDS),
            ArrayArg::from_raw_parts(nodes_handle.clone(), roots.len()),
            roots.len() as u32,
            depth,
            G::STATE_WORDS,
            G::PERFT_TERMINAL_LEAF as u32,
        );
    }
    read::<R, u64>(client, nodes_handle)
}
