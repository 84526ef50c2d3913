//! Host-side foundation of cubesearch: the traits every game and executor implements, backend
//! selection, the random-number scheme shared by CPU and GPU, the error type, and safe file
//! writes.
//!
//! Nothing here launches a kernel; the device twins of these traits live in `cubesearch-kernels`.

#![deny(missing_docs)]

pub mod backend;
pub mod error;
pub mod exec;
pub mod game;
pub mod io;
pub mod rng;
pub mod stop;

pub use backend::{Backend, BackendInfo, ResolvedBackend};
pub use error::{Error, Result};
pub use exec::{
    AfterstateValue, ExpectimaxEval, Perft, Playouts, RootValue, Searched, SubtreeSearch,
    WinDrawCounts, Window,
};
pub use game::{reciprocal_weight, Game, Outcome, StochasticGame};
pub use stop::Stop;
