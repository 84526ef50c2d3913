//! A stochastic game's device rules laid bare, for parity tests and for users adding a game:
//! every action of many states, chance draws from given RNG states, whole random games. The
//! CPU executor answers with the host's `StochasticGame` (the oracle); the GPU executors run
//! `cubesearch_kernels::rules`. A test that compares the two for a game holds its
//! `DeviceStochasticGame` to its host rules.

use crate::{CpuExecutor, Executor, GpuExecutor};
use cubecl::prelude::*;
use cubesearch_core::rng::XorShift32;
use cubesearch_core::Result;
use cubesearch_kernels::rules::{launch_actions, launch_chance_samples, launch_random_games};
pub use cubesearch_kernels::rules::{DeviceAction, DeviceGameEnd};
use cubesearch_kernels::GpuStochasticGame;

/// The rules of a stochastic game as batch operations.
pub trait StochasticRules {
    /// Every action of every state, in the host's `ACTIONS` order.
    fn actions<G: GpuStochasticGame>(
        &mut self,
        game: &G,
        states: &[G::State],
    ) -> Result<Vec<Vec<DeviceAction<G::State>>>>;
    /// Each state after one chance outcome drawn from the matching xorshift32 state, and the
    /// generators' states after.
    fn chance_samples<G: GpuStochasticGame>(
        &mut self,
        game: &G,
        states: &[G::State],
        rngs: &[u32],
    ) -> Result<(Vec<G::State>, Vec<u32>)>;
    /// `count` games of uniformly random legal actions, game `g` drawn by
    /// `XorShift32::for_worker(seed, g)` (start: `initial`; each turn `below(legal)` over the
    /// legal actions in canonical order, then a chance outcome).
    fn random_games<G: GpuStochasticGame>(
        &mut self,
        game: &G,
        count: usize,
        seed: u32,
    ) -> Result<Vec<DeviceGameEnd<G::State>>>;
}

impl StochasticRules for CpuExecutor {
    fn actions<G: GpuStochasticGame>(
        &mut self,
        game: &G,
        states: &[G::State],
    ) -> Result<Vec<Vec<DeviceAction<G::State>>>> {
        Ok(states
            .iter()
            .map(|s| {
                G::ACTIONS
                    .iter()
                    .map(|&a| match game.afterstate(s, a) {
                        Some((after, reward)) => DeviceAction {
                            after,
                            reward,
                            legal: true,
                        },
                        None => DeviceAction {
                            after: *s,
                            reward: 0,
                            legal: false,
                        },
                    })
                    .collect()
            })
            .collect())
    }

    fn chance_samples<G: GpuStochasticGame>(
        &mut self,
        game: &G,
        states: &[G::State],
        rngs: &[u32],
    ) -> Result<(Vec<G::State>, Vec<u32>)> {
        Ok(states
            .iter()
            .zip(rngs)
            .map(|(s, &r)| {
                let mut rng = XorShift32(r);
                (game.sample_chance(s, &mut rng), rng.0)
            })
            .unzip())
    }

    fn random_games<G: GpuStochasticGame>(
        &mut self,
        game: &G,
        count: usize,
        seed: u32,
    ) -> Result<Vec<DeviceGameEnd<G::State>>> {
        let mut legal = Vec::with_capacity(G::ACTIONS.len());
        Ok((0..count as u32)
            .map(|g| {
                let mut rng = XorShift32::for_worker(seed, g);
                let mut state = game.initial(&mut rng);
                let (mut score, mut moves) = (0u32, 0u32);
                loop {
                    legal.clear();
                    game.legal_actions(&state, &mut legal);
                    if legal.is_empty() {
                        break;
                    }
                    let (_, after, reward) = legal[rng.below(legal.len() as u32) as usize];
                    score += reward;
                    moves += 1;
                    state = game.sample_chance(&after, &mut rng);
                }
                DeviceGameEnd {
                    state,
                    score,
                    moves,
                }
            })
            .collect())
    }
}

impl<R: Runtime> StochasticRules for GpuExecutor<R> {
    fn actions<G: GpuStochasticGame>(
        &mut self,
        game: &G,
        states: &[G::State],
    ) -> Result<Vec<Vec<DeviceAction<G::State>>>> {
        launch_actions::<R, G>(self.client(), game, states)
    }

    fn chance_samples<G: GpuStochasticGame>(
        &mut self,
        game: &G,
        states: &[G::State],
        rngs: &[u32],
    ) -> Result<(Vec<G::State>, Vec<u32>)> {
        launch_chance_samples::<R, G>(self.client(), game, states, rngs)
    }

    fn random_games<G: GpuStochasticGame>(
        &mut self,
        game: &G,
        count: usize,
        seed: u32,
    ) -> Result<Vec<DeviceGameEnd<G::State>>> {
        launch_random_games::<R, G>(self.client(), game, count, seed)
    }
}

impl StochasticRules for Executor {
    fn actions<G: GpuStochasticGame>(
        &mut self,
        game: &G,
        states: &[G::State],
    ) -> Result<Vec<Vec<DeviceAction<G::State>>>> {
        crate::dispatch!(self, e => e.actions(game, states))
    }

    fn chance_samples<G: GpuStochasticGame>(
        &mut self,
        game: &G,
        states: &[G::State],
        rngs: &[u32],
    ) -> Result<(Vec<G::State>, Vec<u32>)> {
        crate::dispatch!(self, e => e.chance_samples(game, states, rngs))
    }

    fn random_games<G: GpuStochasticGame>(
        &mut self,
        game: &G,
        count: usize,
        seed: u32,
    ) -> Result<Vec<DeviceGameEnd<G::State>>> {
        crate::dispatch!(self, e => e.random_games(game, count, seed))
    }
}
