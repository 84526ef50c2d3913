//! Test kernels that lay a [`DeviceStochasticGame`]'s rules bare, and their launchers: every
//! action of many states, chance draws from given RNG states, and whole random games. The
//! parity tests (`cubesearch_search::StochasticRules`) hold them to the host's
//! `StochasticGame` bit for bit, so any stochastic game can be checked the same way.

use crate::launch::{grid, read, upload};
use crate::rng;
use crate::stochastic::{DeviceStochasticGame, GpuStochasticGame};
use cubecl::prelude::*;
use cubesearch_core::Result;

/// Unit `s` plays every action of state `s` on a copy: the state after action `a` goes to
/// `after[(A·s + a)·words ..]`, its reward to `rewards[A·s + a]` and 1 to `legal[A·s + a]` if
/// it was legal (`A` = `actions`).
#[cube(launch_unchecked)]
pub fn act_kernel<G: DeviceStochasticGame>(
    states: &Array<u32>,
    after: &mut Array<u32>,
    rewards: &mut Array<u32>,
    legal: &mut Array<u32>,
    count: u32,
    #[comptime] words: usize,
    #[comptime] actions: u32,
) {
    let s = ABSOLUTE_POS as u32;
    if s < count {
        let state = G::load(states, s as usize * words);
        #[unroll]
        for a in 0..actions {
            let mut next = state;
            let acted = G::act(&mut next, a);
            let at = (actions * s + a) as usize;
            G::store(&next, after, at * words);
            rewards[at] = acted.reward;
            legal[at] = select(acted.legal, 1u32, 0u32);
        }
    }
}

/// One action as the device played it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceAction<S> {
    /// The state after it (the state itself when it was illegal).
    pub after: S,
    /// Its reward.
    pub reward: u32,
    /// Whether it was legal.
    pub legal: bool,
}

/// Every action (in the host's `ACTIONS` order) of every state, played on the device.
pub fn launch_actions<R: Runtime, G: GpuStochasticGame>(
    client: &ComputeClient<R>,
    game: &G,
    states: &[G::State],
) -> Result<Vec<Vec<DeviceAction<G::State>>>> {
    if states.is_empty() {
        return Ok(Vec::new());
    }
    let words = G::STATE_WORDS;
    let actions = G::ACTIONS.len();
    let n = states.len();
    let states_handle = upload(client, &game.encode_all(states));
    let after_handle = client.empty(n * actions * words * 4);
    let rewards_handle = client.empty(n * actions * 4);
    let legal_handle = client.empty(n * actions * 4);
    let (count, dim) = grid(client, n);
    // SAFETY: units past `n` write nothing; unit s writes only its own slots.
    unsafe {
        act_kernel::launch_unchecked::<G::Device, R>(
            client,
            count,
            dim,
            ArrayArg::from_raw_parts(states_handle, n * words),
            ArrayArg::from_raw_parts(after_handle.clone(), n * actions * words),
            ArrayArg::from_raw_parts(rewards_handle.clone(), n * actions),
            ArrayArg::from_raw_parts(legal_handle.clone(), n * actions),
            n as u32,
            words,
            actions as u32,
        );
    }
    let after = game.decode_all(&read::<R, u32>(client, after_handle)?);
    let rewards = read::<R, u32>(client, rewards_handle)?;
    let legal = read::<R, u32>(client, legal_handle)?;
    Ok((0..n)
        .map(|s| {
            (0..actions)
                .map(|a| DeviceAction {
                    after: after[actions * s + a],
                    reward: rewards[actions * s + a],
                    legal: legal[actions * s + a] == 1,
                })
                .collect()
        })
        .collect())
}

/// Unit `s` draws one chance outcome for state `s` with RNG state `rngs[s]`, writing the state
/// back to `out` and the advanced RNG state back to `rngs[s]`.
#[cube(launch_unchecked)]
pub fn chance_kernel<G: DeviceStochasticGame>(
    states: &Array<u32>,
    rngs: &mut Array<u32>,
    out: &mut Array<u32>,
    count: u32,
    #[comptime] words: usize,
) {
    let s = ABSOLUTE_POS as u32;
    if s < count {
        let mut state = G::load(states, s as usize * words);
        let mut r = rngs[s as usize];
        G::sample_chance(&mut state, &mut r);
        G::store(&state, out, s as usize * words);
        rngs[s as usize] = r;
    }
}

/// Each state after one chance outcome drawn from the matching xorshift32 state, and the
/// states of the generators after.
pub fn launch_chance_samples<R: Runtime, G: GpuStochasticGame>(
    client: &ComputeClient<R>,
    game: &G,
    states: &[G::State],
    rngs: &[u32],
) -> Result<(Vec<G::State>, Vec<u32>)> {
    assert_eq!(states.len(), rngs.len(), "one RNG state per state");
    if states.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let words = G::STATE_WORDS;
    let n = states.len();
    let states_handle = upload(client, &game.encode_all(states));
    let rngs_handle = upload(client, rngs);
    let out_handle = client.empty(n * words * 4);
    let (count, dim) = grid(client, n);
    // SAFETY: units past `n` touch nothing; unit s touches only slot s.
    unsafe {
        chance_kernel::launch_unchecked::<G::Device, R>(
            client,
            count,
            dim,
            ArrayArg::from_raw_parts(states_handle, n * words),
            ArrayArg::from_raw_parts(rngs_handle.clone(), n),
            ArrayArg::from_raw_parts(out_handle.clone(), n * words),
            n as u32,
            words,
        );
    }
    let out = game.decode_all(&read::<R, u32>(client, out_handle)?);
    Ok((out, read::<R, u32>(client, rngs_handle)?))
}

/// Unit `g` plays game `g` with uniformly random legal actions, as the host's random games do
/// with `XorShift32::for_worker(seed, g)`: the start is `initial`; each turn draws
/// `below(legal count)` over the legal actions in canonical order, then a chance outcome.
/// Writes the final state to `states` and `(score, moves)` to `stats[2g..]`.
#[cube(launch_unchecked)]
pub fn random_game_kernel<G: DeviceStochasticGame>(
    states: &mut Array<u32>,
    stats: &mut Array<u32>,
    seed: u32,
    count: u32,
    #[comptime] words: usize,
    #[comptime] actions: u32,
) {
    let g = ABSOLUTE_POS as u32;
    if g < count {
        let mut r = rng::worker_state(seed, g);
        let mut state = G::initial(&mut r);
        let mut score = 0u32;
        let mut moves = 0u32;
        loop {
            let mut legal = 0u32;
            #[unroll]
            for a in 0..actions {
                let mut next = state;
                let acted = G::act(&mut next, a);
                legal += select(acted.legal, 1u32, 0u32);
            }
            if legal == 0u32 {
                break;
            }
            // The k-th legal action.
            let k = rng::below(&mut r, legal);
            let mut seen = 0u32;
            let mut chosen = 0u32;
            #[unroll]
            for a in 0..actions {
                let mut next = state;
                let acted = G::act(&mut next, a);
                if acted.legal {
                    if seen == k {
                        chosen = a;
                    }
                    seen += 1u32;
                }
            }
            let acted = G::act(&mut state, chosen);
            score += acted.reward;
            moves += 1u32;
            G::sample_chance(&mut state, &mut r);
        }
        G::store(&state, states, g as usize * words);
        stats[2 * g as usize] = score;
        stats[2 * g as usize + 1] = moves;
    }
}

/// A random game as the device played it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceGameEnd<S> {
    /// The final state.
    pub state: S,
    /// The sum of the rewards.
    pub score: u32,
    /// Moves played.
    pub moves: u32,
}

/// Plays `count` random games on the device (game `g` seeded as worker `g` of `seed`).
pub fn launch_random_games<R: Runtime, G: GpuStochasticGame>(
    client: &ComputeClient<R>,
    game: &G,
    count: usize,
    seed: u32,
) -> Result<Vec<DeviceGameEnd<G::State>>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let words = G::STATE_WORDS;
    let states_handle = client.empty(count * words * 4);
    let stats_handle = client.empty(count * 2 * 4);
    let (cubes, dim) = grid(client, count);
    // SAFETY: units past `count` write nothing; unit g writes only its own slots.
    unsafe {
        random_game_kernel::launch_unchecked::<G::Device, R>(
            client,
            cubes,
            dim,
            ArrayArg::from_raw_parts(states_handle.clone(), count * words),
            ArrayArg::from_raw_parts(stats_handle.clone(), count * 2),
            seed,
            count as u32,
            words,
            G::ACTIONS.len() as u32,
        );
    }
    let states = game.decode_all(&read::<R, u32>(client, states_handle)?);
    let stats = read::<R, u32>(client, stats_handle)?;
    Ok(states
        .into_iter()
        .enumerate()
        .map(|(g, state)| DeviceGameEnd {
            state,
            score: stats[2 * g],
            moves: stats[2 * g + 1],
        })
        .collect())
}
