//! TD(0) self-play on the device (the seed's 4.5), generic over the game
//! ([`DeviceStochasticGame`](crate::stochastic::DeviceStochasticGame)): [`LANES`] units per
//! game, each reading its share of every V's lookups (pooled by plane shuffles or through
//! shared memory, [`LaneExchange`], in the CPU's summation order), the n-tuple weights in
//! device memory as f32 updated with atomic adds, never copied back while training. (One unit
//! a game, as the seed had it, left a GPU mostly idle: a warp ran as long as its longest
//! game's learning pass, with one live lane.)
//!
//! One concern a file: [`config`] what the kernels bind (buffers grouped by concern) and the
//! one comptime [`PlayConfig`] they are compiled for; [`kernels`] the kernels and their thin
//! launchers; `lanes` how a game's lanes share its cells and pool the weights they read;
//! `moves` how they choose a move (each lane every afterstate, spread or grouped); `learn` the
//! learning pass; [`runtime`] the trainer that keeps the device's games and weights between
//! launches ([`DeviceTd`]); and `meeting` what a trainer hands in and takes back when it meets
//! trainers on other GPUs ([`DeviceTd::changes_since`], [`DeviceTd::take_mean`]).
//!
//! The rules are the CPU trainer's (`cubesearch_learn::td`): greedy on `reward + V(afterstate)`
//! (ties to the first action in canonical order), the game's `(afterstate, reward)` path
//! kept, and when the game ends a backward pass moves the last afterstate toward 0 and each
//! earlier one toward `r_{t+1} + V(s'_{t+1})` read after its own update, each lookup by
//! `step · δ`. One difference: a game slot keeps at most `cap` path entries; when a longer game
//! fills them, the stored part is learned backward at once with the target
//! `r + V(s')` of the afterstate about to be stored (the TD(0) target at that boundary), and
//! the path starts again. Runs whose games fit in `cap` are the CPU's update for update. With
//! many game slots the updates are averaged per launch instead ([`TdShape::averaged`]): each
//! weight moves by the sum of what a launch asked of it, divided by `⌈hits / H⌉`, at most `H`
//! steps a launch ([`TdShape::steps_per_launch`]). Averaged launches may also learn forward
//! ([`TdShape::forward`]): each afterstate once the next move is chosen, the path one entry.
//!
//! Device memory (all u32 unless said):
//! ```text
//!  weights   f32, the tables one after another: atomics where a launch updates them, plain
//!            reads in an averaging launch (the kernel has both views, one bound to a placeholder)
//!  pending   f32 atomics, one per weight: a launch's requested changes (averaged updates only)
//!  hits      one per weight: how many changes were requested (averaged updates only)
//!  sums      f32, two per weight with temporal coherence (`TdShape::coherence`): the sum of
//!  sizes     the changes asked of it, and of their sizes (placeholders without it)
//!  lut       per lookup (in the network's order, every symmetry its own lookup):
//!            [table offset, cell 0, .., cell len-1]; every lookup has the same length `len`
//!            (comptime: the cell loop unrolls); then [thresholds, stage length, threshold
//!            0, ..] (a multi-stage network's tables repeat stage after stage in `weights`)
//!  states    per game slot: the position (STATE_WORDS words)
//!  units     per game slot: [game (NONE = idle), rng, score, moves, path length]
//!  paths     per game slot: cap × [afterstate (STATE_WORDS words), reward]; learning
//!            forward, one entry: [afterstate, its value when chosen (f32 bits)]
//!  results   a ring of slots, game g in slot g % slots: [score, moves, progress, g + 1]
//!  counters  atomics, fresh each launch: [games taken, games finished, moves played]
//! ```
//! A launch plays at most `max_moves` moves per game slot (lavapipe stops long loops, see
//! `DeviceLimits::loop_iterations`), so games run over several launches. A slot whose game ends
//! (or that is idle) takes the next game number at once, up to a limit the host moves forward
//! as it collects finished games from the ring: the slots stay busy until the last games of a
//! run, instead of waiting at the end of every batch for its longest game.
//!
//! The play kernel is bound by integer instructions, not memory (Nsight Compute on an H200:
//! the ALU pipe 70 % busy, 15 % of the memory bandwidth), so the lanes of
//! a game share the integer work rather than each doing all of it: lane `c` holds cell `c` of
//! the board valued (every cell a lookup reads below [`LANES`]), and a lookup takes each of
//! its cells from the lane holding it by a plane shuffle (or from shared memory on a cube)
//! instead of out of the board; with planes and four actions, lane `k` makes only
//! afterstate `k mod 4`, whose cells reach the lanes holding them by shuffles (or, where that
//! reads in fewer rounds, group `a` of eight lanes makes afterstate `a` and reads its V), and
//! the lane that made the chosen one hands it to the others
//! (`DeviceStochasticGame::from_lane`). Every index and value stays the one a single lane
//! would make, so the results are unchanged bit for bit.

pub mod config;
pub mod kernels;
mod lanes;
mod learn;
mod meeting;
mod moves;
pub mod runtime;

pub use config::{LaneExchange, PlayConfig, LANES};
pub use kernels::{NONE, UNIT_WORDS};
pub use runtime::{
    DeviceTd, Stream, TdGame, TdNet, TdShape, AVERAGED_FROM_UNITS, STEPS_PER_LAUNCH,
};
