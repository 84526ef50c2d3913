//! Device code of cubesearch, written once in CubeCL and run on CUDA and wgpu.
//!
//! * [`DeviceGame`] is the device twin of the host `Game` trait; each game implements it once,
//!   beside its host rules in its own crate, and [`GpuGame`] ties a host game to its twin.
//! * Every search kernel is generic over `DeviceGame` and sits next to the host function that
//!   launches it: [`playout`], [`perft`], [`alphabeta`], [`scores`].
//! * [`DeviceStochasticGame`] is the twin of the host `StochasticGame`, and
//!   [`GpuStochasticGame`] ties the two; the expectimax ([`expectimax`]) and TD(0) ([`td`])
//!   kernels are generic over it, valuing states with the n-tuple lookups of [`ntuple`];
//!   [`rules`] lays the rules bare for parity tests.
//! * [`exact`] holds the float operations that round as the CPU's on every backend.
//!
//! No game lives here: kernels know games only through these traits.
//!
//! This crate enables no cubecl runtime: launchers are generic over `R: Runtime`, and the crates
//! that pick a runtime (`cubesearch-search`, the CLI) forward the `wgpu`/`cuda` features.

pub mod alphabeta;
pub mod device_game;
pub mod exact;
pub mod expectimax;
pub mod labels;
pub mod launch;
pub mod ntuple;
pub mod perft;
pub mod playout;
pub mod rng;
pub mod rules;
pub mod scores;
pub mod selfplay;
pub mod stochastic;
pub mod td;

pub use device_game::{DeviceGame, GpuGame};
pub use stochastic::{DeviceStochasticGame, GpuStochasticGame};
