//! Device code of cubesearch, written once in CubeCL and run on CUDA and wgpu.
//!
//! * [`DeviceGame`] is the device twin of the host `Game` trait; each game implements it once
//!   (`nim`, ...), and [`GpuGame`] ties a host game to its twin.
//! * Every search kernel is generic over `DeviceGame` and sits next to the host function that
//!   launches it: [`playout`], [`perft`].
//!
//! This crate enables no cubecl runtime: launchers are generic over `R: Runtime`, and the crates
//! that pick a runtime (`cubesearch-search`, the CLI) forward the `wgpu`/`cuda` features.

pub mod alphabeta;
pub mod checkers;
pub mod device_game;
pub mod expectimax;
pub mod fib;
pub mod launch;
pub mod nim;
pub mod perft;
pub mod playout;
pub mod reversi;
pub mod rng;
pub mod scores;

pub use device_game::{DeviceGame, GpuGame};
