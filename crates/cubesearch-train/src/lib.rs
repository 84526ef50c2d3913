//! Training of n-tuple networks (`cubesearch_learn`) through one loop and one config: TD(0) of
//! any one-player stochastic game whose states are cells ([`Td`]), and self-play of any
//! two-player game whose positions are cells ([`SelfPlayTd`]):
//!
//! * [`TdEngine`]: where games are played and learned from. [`CpuEngine`] (threads, on copies
//!   of the weights or one table), [`GpuTd`] (one GPU, `cubesearch_kernels::td`),
//!   [`MultiGpuTd`] (several CUDA GPUs of one process) and [`RankTd`] (one rank a GPU, its
//!   meetings through a [`collective::Collective`]: host memory, or NCCL with the `ranks`
//!   and `cuda` features).
//! * [`TrainConfig`]: the network, how it learns, the budget, where it runs
//!   ([`EngineConfig`]) and what is kept, checked before any work ([`TrainConfig::check`]).
//!   [`train`] starts the [`Learner`] its [`Method`] names and runs the one loop: progress
//!   reports, a learning curve, checkpoints, resuming, a stop request
//!   ([`cubesearch_core::Stop`]) and saving, the same for every learner.

#![deny(missing_docs)]

pub mod collective;
mod config;
mod engine;
mod fit;
mod gpu;
mod labels;
mod learner;
mod method;
mod multi;
#[cfg(all(feature = "ranks", feature = "cuda"))]
pub mod nccl;
mod placement;
pub mod ranks;
#[cfg(feature = "ranks")]
pub mod rendezvous;
mod run;
pub mod selfplay;

pub use config::TrainConfig;
pub use engine::{CpuEngine, TdEngine, TdGames};
pub use fit::{Fit, FIT_ALPHA, HELD_OUT, RESUMED_FIT_ALPHA};
pub use gpu::{td_net, GpuTd};
pub use labels::{label_on, DEVICE_BATCH};
pub use learner::{Batch, Learner, Started};
pub use method::{Method, SelfPlayTd, Td};
pub use multi::MultiGpuTd;
pub use placement::{engine_on, EngineConfig, Placement};
pub use ranks::{RankTd, MERGE_EVERY};
#[cfg(feature = "ranks")]
pub use run::follow;
pub use run::{
    curve_csv, starting_network, train, train_on, CurvePoint, TrainProgress, TrainReport,
};
