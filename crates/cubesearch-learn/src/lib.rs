//! Learning for any stochastic game whose states are cells ([`TupleGame`]): n-tuple networks
//! ([`network`]), TD(0) on afterstates ([`td`]), games on CPU threads sharing copies of the
//! weights or one table without locks ([`runner`]), greedy play statistics
//! ([`play`](mod@play)), weights files in safetensors ([`file`](mod@file)), and TD self-play
//! for two-player games ([`selfplay`]). Nothing here names a game. The training loop and its engines are `cubesearch_train`'s.

#![deny(missing_docs)]

pub mod dataset;
pub mod file;
pub mod game;
#[cfg(target_arch = "x86_64")]
mod gather;
pub mod labels;
mod memory;
pub mod network;
pub mod play;
pub mod runner;
pub mod selfplay;
pub mod td;
pub mod testing;

pub use dataset::{Dataset, Provenance};
pub use file::WeightsMeta;
pub use game::{pack_views, square_symmetries, TupleBoard, TupleGame, ViewWords};
pub use network::{
    check_stages, coherence_rate, default_shapes, format_stages, parse_shapes, parse_stages,
    shapes_for, NTupleNetwork, TABLE_GAP,
};
pub use play::{play, play_random, stats, PlayStats, Reach};
pub use td::{Episode, TdOrder};
