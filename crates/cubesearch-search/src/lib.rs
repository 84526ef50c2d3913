//! Executors and search pipelines.
//!
//! * [`cpu::CpuExecutor`]: every executor trait on the CPU with rayon, the baseline.
//! * [`gpu::GpuExecutor`]: the same traits through CubeCL kernels, generic over `R: Runtime`.
//! * [`Executor`]: whichever of these a [`Backend`](cubesearch_core::Backend) resolves to.
//! * Pipelines, generic over game and executor: [`perft`], [`minimax`] (by [`minimax::Strategy`]).

#![deny(missing_docs)]

pub mod boards;
pub mod cpu;
pub mod executor;
pub mod expectimax;
pub mod expectimax_gpu;
pub mod gpu;
pub mod mcts;
pub mod minimax;
pub mod perft;
pub mod stochastic_rules;
pub mod testing;

pub use cpu::CpuExecutor;
pub use cubesearch_kernels::GpuGame;
pub(crate) use executor::{dispatch, dispatch_gpu};
pub use executor::{DeviceTask, Executor};
pub use gpu::GpuExecutor;
pub use stochastic_rules::StochasticRules;
