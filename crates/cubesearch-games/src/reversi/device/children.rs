//! A test kernel that lays the device's move generation bare: for each position, its move count
//! and every child in canonical order, so that tests can hold them to the host's `legal_moves`
//! and `apply` one by one. It is generic over the game, though Reversi is what it was written for.

use cubecl::prelude::*;
use cubesearch_core::Result;
use cubesearch_kernels::device_game::{DeviceGame, GpuGame};
use cubesearch_kernels::launch::{grid, read, upload};

/// Unit `s` writes `counts[s]` = the move count of state `s`, and child `i < min(count, max)` at
/// `children[(s·max + i)·words ..]`.
#[cube(launch_unchecked)]
pub fn children_kernel<G: DeviceGame>(
    states: &Array<u32>,
    counts: &mut Array<u32>,
    children: &mut Array<u32>,
    count: u32,
    #[comptime] max: u32,
    #[comptime] words: usize,
) {
    let s = ABSOLUTE_POS as u32;
    if s < count {
        let state = G::load(states, s as usize * words);
        let moves = G::move_count(&state);
        counts[s as usize] = moves;
        let written = select(moves < max, moves, max);
        for i in 0..written {
            let mut child = G::load(states, s as usize * words);
            G::play(&mut child, i);
            G::store(&child, children, ((s * max + i) as usize) * words);
        }
    }
}

/// Every state's move count and its first `max` children (all of them when there are fewer), as
/// the device plays them.
pub fn launch_children<R: Runtime, G: GpuGame>(
    client: &ComputeClient<R>,
    game: &G,
    states: &[G::State],
    max: u32,
) -> Result<Vec<(u32, Vec<G::State>)>> {
    if states.is_empty() {
        return Ok(Vec::new());
    }
    let words = G::STATE_WORDS;
    let slots = states.len() * max as usize * words;
    let states_handle = upload(client, &game.encode_all(states));
    let counts_handle = client.empty(states.len() * std::mem::size_of::<u32>());
    let children_handle = client.empty(slots.max(1) * std::mem::size_of::<u32>());
    let (count, dim) = grid(client, states.len());
    // SAFETY: units past `states.len()` write nothing; unit s writes counts[s] and at most `max`
    // children inside its own slots.
    unsafe {
        children_kernel::launch_unchecked::<G::Device, R>(
            client,
            count,
            dim,
            ArrayArg::from_raw_parts(states_handle, states.len() * words),
            ArrayArg::from_raw_parts(counts_handle.clone(), states.len()),
            ArrayArg::from_raw_parts(children_handle.clone(), slots.max(1)),
            states.len() as u32,
            max,
            words,
        );
    }
    let counts = read::<R, u32>(client, counts_handle)?;
    let children = read::<R, u32>(client, children_handle)?;
    Ok(counts
        .iter()
        .enumerate()
        .map(|(s, &moves)| {
            let first = s * max as usize * words;
            let kids = (0..moves.min(max) as usize)
                .map(|i| game.decode(&children[first + i * words..first + (i + 1) * words]))
                .collect();
            (moves, kids)
        })
        .collect())
}
