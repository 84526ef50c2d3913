//! cubesearch: game-tree search on GPUs.
//!
//! Search kernels are written once in CubeCL and run on CUDA and on wgpu (any Vulkan, Metal or
//! DX12 GPU, and Mesa's lavapipe on machines without one). This facade re-exports the pieces a
//! user needs: the game traits, backends and executors, the games, and the search pipelines.
//!
//! ```
//! use cubesearch::{Backend, Executor, Game, Playouts};
//! use cubesearch::games::Nim;
//!
//! let (mut exec, device) = Executor::new(Backend::Auto)?;
//! let root = Nim.parse_position("1,3,5,7")?;
//! let counts = exec.playouts(&Nim, &[root], 100_000, 42)?;
//! println!("{device}: {} wins of {}", counts[0].wins, counts[0].games);
//! # Ok::<(), cubesearch::Error>(())
//! ```

#![deny(missing_docs)]

pub use cubesearch_core::{
    backend, rng, Backend, Error, Game, Outcome, Perft, Playouts, ResolvedBackend, Result,
    StochasticGame, SubtreeSearch, TdUpdate, WinDrawCounts,
};
pub use cubesearch_core::{AfterstateValue, ExpectimaxEval, RootValue};
pub use cubesearch_kernels::{DeviceGame, DeviceStochasticGame, GpuGame, GpuStochasticGame};
pub use cubesearch_learn::{NTupleNetwork, TupleGame};
pub use cubesearch_search::{
    alphabeta_player, expectimax, expectimax_gpu, mcts, minimax, perft, player, reversi_batch,
    reversi_players, spec, stochastic_rules, td, testing, CpuExecutor, Executor, GpuExecutor,
    StochasticRules,
};

/// The games: CPU rules (device twins implement [`DeviceGame`] or [`DeviceStochasticGame`]).
pub mod games {
    pub use cubesearch_games::checkers::{
        self, Checkers, CheckersMove, CheckersState, Rules, Side,
    };
    pub use cubesearch_games::fib::{self, Game2048, Game2584};
    pub use cubesearch_games::nim::{self, Nim, NimMove, NimState};
    pub use cubesearch_games::reversi::{self, Board, Colour, Reversi, ReversiMove, ReversiState};
    pub use cubesearch_games::sample;
}

/// n-tuple networks, TD(0) training and weights files, for any [`TupleGame`].
pub use cubesearch_learn as learn;

/// Device code: the `#[cube]` rules and generic kernels, for users who launch kernels directly.
pub use cubesearch_kernels as kernels;
