//! Every cubesearch game as one vertical, each in its own module: the host rules (`Game` or
//! `StochasticGame`) and their notation, the device twin (`device`), the game's own players and
//! network shapes, and the seed's reproductions that only make sense for that game.
//!
//! * [`nim`], [`checkers`], [`reversi`]: two-player games;
//! * [`fib`]: 2584 and 2048, one sliding implementation under two tile rules.
//!
//! The pipelines (`cubesearch-search`, `cubesearch-learn`) and the generic kernels
//! (`cubesearch-kernels`) know none of them; [`registry`] lists them for the command line.

#![deny(missing_docs)]

pub mod checkers;
pub mod fib;
pub mod kinds;
mod learner;
pub mod nim;
pub mod registry;
pub mod reversi;
mod solver;

pub use checkers::Checkers;
pub use fib::{Dir, Fib, Game2048, Game2584, Pow2, Sliding, TileRule};
pub use nim::Nim;
pub use reversi::Reversi;
