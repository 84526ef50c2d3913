//! Learning for any stochastic game whose states are cells ([`TupleGame`]): n-tuple networks
//! ([`network`]), TD(0) on afterstates ([`td`]), CPU trainers on one thread or many, on copies
//! of the weights or one table without locks ([`train`](mod@train), [`runner`]), greedy play
//! statistics ([`play`](mod@play)) and weights files in safetensors ([`file`](mod@file)).
//! Nothing here names a game.
//!
//! The facade's `cubesearch::learn` trains a game this way.

#![deny(missing_docs)]

pub mod file;
pub mod game;
#[cfg(target_arch = "x86_64")]
mod gather;
mod memory;
pub mod network;
pub mod play;
pub mod plot;
pub mod runner;
pub mod td;
pub mod testing;
pub mod train;

pub use file::WeightsMeta;
pub use game::{pack_views, square_symmetries, TupleGame, ViewWords};
pub use network::{
    check_stages, coherence_rate, default_shapes, format_stages, parse_shapes, parse_stages,
    shapes_for, NTupleNetwork, TABLE_GAP,
};
pub use play::{play, play_random, stats, PlayStats, Reach};
pub use td::{Episode, TdOrder};
pub use train::{
    curve_csv, starting_network, train, train_on, train_scores, CpuEngine, CurvePoint, TdEngine,
    TrainConfig, TrainProgress, TrainReport,
};

use cubesearch_core::{Result, TdUpdate};

/// The CPU implementation of the [`TdUpdate`] executor: TD(0) self-play on `threads` threads
/// (0 = every core), as a [`CpuEngine`] with the default [`runner::Sharing`] plays it.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuTd {
    /// Threads to use (0 = every core).
    pub threads: usize,
}

impl<G: TupleGame> TdUpdate<G, NTupleNetwork> for CpuTd {
    fn train(
        &mut self,
        game: &G,
        value: &mut NTupleNetwork,
        games: u32,
        alpha: f32,
        seed: u32,
    ) -> Result<Vec<u64>> {
        let mut engine = CpuEngine {
            threads: runner::thread_count(self.threads),
            sharing: runner::Sharing::default(),
            order: TdOrder::default(),
            stop: Default::default(),
        };
        train_scores(&mut engine, game, value, games, alpha, seed)
    }
}
