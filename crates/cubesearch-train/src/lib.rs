//! TD(0) self-play training of n-tuple networks (`cubesearch_learn`) for any stochastic game
//! whose states are cells, through one seam and one config:
//!
//! * [`TdEngine`]: where games are played and learned from. [`CpuEngine`] (threads, on copies
//!   of the weights or one table), [`GpuTd`] (one GPU, `cubesearch_kernels::td`),
//!   [`MultiGpuTd`] (several CUDA GPUs of one process) and [`RankTd`] (one rank a GPU, its
//!   meetings through a [`collective::Collective`]: host memory, or NCCL with the `ranks`
//!   and `cuda` features).
//! * [`TrainConfig`]: the network, how it learns, the budget, where it runs
//!   ([`EngineConfig`]) and what is kept. [`train`] builds the engine it names and runs
//!   [`train_on`]: progress reports, a learning curve, checkpoints, resuming and a stop request
//!   ([`cubesearch_core::Stop`]), the same on every engine.

#![deny(missing_docs)]

pub mod collective;
mod engine;
mod gpu;
mod multi;
#[cfg(all(feature = "ranks", feature = "cuda"))]
pub mod nccl;
mod placement;
pub mod ranks;
#[cfg(feature = "ranks")]
pub mod rendezvous;
mod run;
pub mod selfplay;

pub use engine::{CpuEngine, TdEngine, TdGames};
pub use gpu::{td_net, GpuTd};
pub use multi::MultiGpuTd;
pub use placement::{engine_on, EngineConfig, Placement};
pub use ranks::{RankTd, MERGE_EVERY};
#[cfg(feature = "ranks")]
pub use run::follow;
pub use run::{
    curve_csv, starting_network, train, train_on, CurvePoint, TrainConfig, TrainProgress,
    TrainReport,
};
