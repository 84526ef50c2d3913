//! Test kernels that lay a two-player game's device rules bare: `DeviceGame::score` of many
//! states, and each state's outcome, move count and children, so that tests can hold them to
//! the host's `Game` (the search strategies rely on the scores being equal; every kernel on
//! `play(s, i)` equalling `apply(s, legal_moves(s)[i])`). Generic over the game.

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

/// Unit `s` writes state `s`'s outcome code to `outcomes[s]`, its move count to `counts[s]`,
/// and the state after move `i` to child slot `max_children·s + i` for each
/// `i < min(count, max_children)`.
#[cube(launch_unchecked)]
pub fn children_kernel<G: DeviceGame>(
    states: &Array<u32>,
    outcomes: &mut Array<u32>,
    counts: &mut Array<u32>,
    children: &mut Array<u32>,
    count: u32,
    max_children: u32,
    #[comptime] words: usize,
) {
    let s = ABSOLUTE_POS as u32;
    if s < count {
        let state = G::load(states, s as usize * words);
        let moves = G::move_count(&state);
        outcomes[s as usize] = G::outcome(&state);
        counts[s as usize] = moves;
        let played = select(moves < max_children, moves, max_children);
        for i in 0..played {
            let mut child = state;
            G::play(&mut child, i);
            G::store(&child, children, (max_children * s + i) as usize * words);
        }
    }
}

/// A position as the device's rules see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DevicePosition<S> {
    /// `DeviceGame::outcome`'s code (`Outcome::code`).
    pub outcome: u32,
    /// `DeviceGame::move_count`.
    pub moves: u32,
    /// The state after each move number, at most `max_children` of them.
    pub children: Vec<S>,
}

/// Every state's outcome, move count and children (the first `max_children`) as the device
/// plays them.
pub fn launch_children<R: Runtime, G: GpuGame>(
    client: &ComputeClient<R>,
    game: &G,
    states: &[G::State],
    max_children: usize,
) -> Result<Vec<DevicePosition<G::State>>> {
    if states.is_empty() {
        return Ok(Vec::new());
    }
    let (n, words, max) = (states.len(), G::STATE_WORDS, max_children.max(1));
    let handle = upload(client, &game.encode_all(states));
    let outcomes = client.empty(n * 4);
    let counts = client.empty(n * 4);
    let children = client.empty(n * max * words * 4);
    let (cubes, dim) = grid(client, n);
    // SAFETY: units past `n` write nothing; unit s writes its own slots only, at most `max`
    // children.
    unsafe {
        children_kernel::launch_unchecked::<G::Device, R>(
            client,
            cubes,
            dim,
            ArrayArg::from_raw_parts(handle, n * words),
            ArrayArg::from_raw_parts(outcomes.clone(), n),
            ArrayArg::from_raw_parts(counts.clone(), n),
            ArrayArg::from_raw_parts(children.clone(), n * max * words),
            n as u32,
            max as u32,
            words,
        );
    }
    let outcomes = read::<R, u32>(client, outcomes)?;
    let counts = read::<R, u32>(client, counts)?;
    let words_back = read::<R, u32>(client, children)?;
    Ok((0..n)
        .map(|s| {
            let played = (counts[s] as usize).min(max);
            DevicePosition {
                outcome: outcomes[s],
                moves: counts[s],
                children: (0..played)
                    .map(|i| {
                        let at = (max * s + i) * words;
                        game.decode(&words_back[at..at + words])
                    })
                    .collect(),
            }
        })
        .collect())
}
