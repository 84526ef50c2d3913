//! CPU rules of every cubesearch game, their text notation, and perft.
//!
//! Each game is one module (`nim`, ...) beside its device twin in `cubesearch-kernels`.

pub mod checkers;
pub mod nim;
pub mod perft;
pub mod reversi;

pub use checkers::Checkers;
pub use nim::Nim;
pub use reversi::Reversi;
