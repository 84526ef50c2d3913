//! The 2584/2048 device rules laid bare for tests and users adding a kernel: every slide of many
//! boards, spawns from given RNG states, whole random games. The CPU executor answers with the
//! host's `Sliding<R>` (the oracle); the GPU executors run `cubesearch_kernels::fib::launch`.

use crate::{CpuExecutor, Executor, GpuExecutor};
use cubecl::prelude::*;
use cubesearch_core::rng::XorShift32;
use cubesearch_core::{Result, StochasticGame};
use cubesearch_games::fib::{BoardOf, Dir, Sliding};
use cubesearch_kernels::fib::launch::{
    launch_random_games, launch_slides, launch_spawns, DeviceGameEnd, DeviceSlide,
};
use cubesearch_kernels::fib::GpuTiles;

/// The device rules of 2584 and 2048 as batch operations.
pub trait SlidingRules {
    /// Every board slid left, right, up and down.
    fn slides<T: GpuTiles>(
        &mut self,
        boards: &[BoardOf<T>],
    ) -> Result<Vec<[DeviceSlide<BoardOf<T>>; 4]>>;
    /// Each board with one tile spawned from the matching xorshift32 state, and the states after.
    fn spawns<T: GpuTiles>(
        &mut self,
        boards: &[BoardOf<T>],
        rngs: &[u32],
    ) -> Result<(Vec<BoardOf<T>>, Vec<u32>)>;
    /// `count` games of uniformly random legal moves, game `g` drawn by
    /// `XorShift32::for_worker(seed, g)` (start: two spawns; each turn `below(legal)` over the
    /// legal directions in canonical order, then a spawn).
    fn random_games<T: GpuTiles>(
        &mut self,
        count: usize,
        seed: u32,
    ) -> Result<Vec<DeviceGameEnd<BoardOf<T>>>>;
}

impl SlidingRules for CpuExecutor {
    fn slides<T: GpuTiles>(
        &mut self,
        boards: &[BoardOf<T>],
    ) -> Result<Vec<[DeviceSlide<BoardOf<T>>; 4]>> {
        let game = Sliding::<T>::new();
        Ok(boards
            .iter()
            .map(|&b| {
                Dir::ALL.map(|d| {
                    let (after, reward) = game.slide(b, d);
                    DeviceSlide {
                        after,
                        reward,
                        moved: after != b,
                    }
                })
            })
            .collect())
    }

    fn spawns<T: GpuTiles>(
        &mut self,
        boards: &[BoardOf<T>],
        rngs: &[u32],
    ) -> Result<(Vec<BoardOf<T>>, Vec<u32>)> {
        let game = Sliding::<T>::new();
        Ok(boards
            .iter()
            .zip(rngs)
            .map(|(&b, &r)| {
                let mut rng = XorShift32(r);
                (game.spawn(b, &mut rng), rng.0)
            })
            .unzip())
    }

    fn random_games<T: GpuTiles>(
        &mut self,
        count: usize,
        seed: u32,
    ) -> Result<Vec<DeviceGameEnd<BoardOf<T>>>> {
        let game = Sliding::<T>::new();
        let mut legal = Vec::with_capacity(4);
        Ok((0..count as u32)
            .map(|g| {
                let mut rng = XorShift32::for_worker(seed, g);
                let mut board = game.initial(&mut rng);
                let (mut score, mut moves) = (0u32, 0u32);
                loop {
                    legal.clear();
                    game.legal_actions(&board, &mut legal);
                    if legal.is_empty() {
                        break;
                    }
                    let (_, after, reward) = legal[rng.below(legal.len() as u32) as usize];
                    score += reward;
                    moves += 1;
                    board = game.sample_chance(&after, &mut rng);
                }
                DeviceGameEnd {
                    board,
                    score,
                    moves,
                }
            })
            .collect())
    }
}

impl<R: Runtime> SlidingRules for GpuExecutor<R> {
    fn slides<T: GpuTiles>(
        &mut self,
        boards: &[BoardOf<T>],
    ) -> Result<Vec<[DeviceSlide<BoardOf<T>>; 4]>> {
        launch_slides::<R, T>(self.client(), boards)
    }

    fn spawns<T: GpuTiles>(
        &mut self,
        boards: &[BoardOf<T>],
        rngs: &[u32],
    ) -> Result<(Vec<BoardOf<T>>, Vec<u32>)> {
        launch_spawns::<R, T>(self.client(), boards, rngs)
    }

    fn random_games<T: GpuTiles>(
        &mut self,
        count: usize,
        seed: u32,
    ) -> Result<Vec<DeviceGameEnd<BoardOf<T>>>> {
        launch_random_games::<R, T>(self.client(), count, seed)
    }
}

impl SlidingRules for Executor {
    fn slides<T: GpuTiles>(
        &mut self,
        boards: &[BoardOf<T>],
    ) -> Result<Vec<[DeviceSlide<BoardOf<T>>; 4]>> {
        crate::dispatch!(self, e => e.slides::<T>(boards))
    }

    fn spawns<T: GpuTiles>(
        &mut self,
        boards: &[BoardOf<T>],
        rngs: &[u32],
    ) -> Result<(Vec<BoardOf<T>>, Vec<u32>)> {
        crate::dispatch!(self, e => e.spawns::<T>(boards, rngs))
    }

    fn random_games<T: GpuTiles>(
        &mut self,
        count: usize,
        seed: u32,
    ) -> Result<Vec<DeviceGameEnd<BoardOf<T>>>> {
        crate::dispatch!(self, e => e.random_games::<T>(count, seed))
    }
}
