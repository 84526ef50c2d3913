//! A test kernel that lays the device's leaf score bare: `DeviceGame::score` of many states, so
//! that tests can hold it to the host's `Game::score` (the search strategies rely on the two
//! being equal). Generic over the game.

use crate::device_game::{DeviceGame, GpuGame};
use crate::launch::{grid, read, upload};
use cubecl::prelude::*;
use cubesearch_core::Result;

/// Unit `s` writes `scores[s]` = the score of state `s`.
#[cube(launch_unchecked)]
pub fn scores_kernel<G: DeviceGame>(
    states: &Array<u32>,
    scores: &mut Array<i32>,
    count: u32,
    #[comptime] words: usize,
) {
    let s = ABSOLUTE_POS as u32;
    if s < count {
        let state = G::load(states, s as usize * words);
        scores[s as usize] = G::score(&state);
    }
}

/// Every state's score as the device computes it.
pub fn launch_scores<R: Runtime, G: GpuGame>(
    client: &ComputeClient<R>,
    game: &G,
    states: &[G::State],
) -> Result<Vec<i32>> {
    if states.is_empty() {
        return Ok(Vec::new());
    }
    let handle = upload(client, &game.encode_all(states));
    let scores = client.empty(states.len() * std::mem::size_of::<i32>());
    let (count, dim) = grid(client, states.len());
    // SAFETY: units past `states.len()` write nothing; unit s writes scores[s] only.
    unsafe {
        scores_kernel::launch_unchecked::<G::Device, R>(
            client,
            count,
            dim,
            ArrayArg::from_raw_parts(handle, states.len() * G::STATE_WORDS),
            ArrayArg::from_raw_parts(scores.clone(), states.len()),
            states.len() as u32,
            G::STATE_WORDS,
        );
    }
    read::<R, i32>(client, scores)
}
