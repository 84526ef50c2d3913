//! CPU rules of every cubesearch game, their text notation, and perft.
//!
//! Each game is one module (`nim`, `fib` for 2584 and 2048, ...) beside its device twin in `cubesearch-kernels`.

#![deny(missing_docs)]

pub mod checkers;
pub mod fib;
pub mod nim;
pub mod perft;
pub mod reversi;
pub mod sample;

pub use checkers::Checkers;
pub use fib::{Dir, Fib, Game2048, Game2584, Pow2, Sliding, TileRule};
pub use nim::Nim;
pub use reversi::Reversi;
