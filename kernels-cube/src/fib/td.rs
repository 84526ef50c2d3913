//! TD(0) self-play on the device (the seed's 4.5): one unit per game, the n-tuple weights in
//! device memory as f32 updated with atomic adds, never copied back while training.
//!
//! The rules are the CPU trainer's (`cubesearch_learn::td`): greedy on `reward + V(afterstate)`
//! (ties to the first direction in canonical order), the game's `(afterstate, reward)` path
//! kept, and when the game ends a backward pass moves the last afterstate toward 0 and each
//! earlier one toward `r_{t+1} + V(s'_{t+1})` read after its own update, each lookup by
//! `step · δ`. One difference: a unit keeps at most `cap` path entries; when a longer game
//! fills them, the stored part is learned backward at once with the target
//! `r + V(s')` of the afterstate about to be stored (the TD(0) target at that boundary), and
//! the path starts again. Runs whose games fit in `cap` are the CPU's update for update. With
//! many units the updates are averaged per launch instead ([`TdShape::averaged`]).
//!
//! Device memory (all u32 unless said):
//! ```text
//!  weights   f32, the tables one after another: atomics where a launch updates them, plain
//!            reads in an averaging launch (the kernel has both views, one bound to a placeholder)
//!  half      f16, the weights' copy an averaging launch reads instead with f16 storage
//!            ([`WeightStorage`]); the apply kernel rewrites each weight it changes
//!  pending   f32 atomics, one per weight: a launch's requested changes (averaged updates only)
//!  hits      one per weight: how many changes were requested (averaged updates only)
//!  lut       per lookup (shape × symmetry, in the network's order): [table offset, cell 0, ..,
//!            cell len-1]; every shape has the same length `len` (comptime: the cell loop unrolls)
//!  boards    per unit: the board (WORDS words)
//!  units     per unit: [game (NONE = idle), rng, score, moves, path length]
//!  paths     per unit: cap × [afterstate (WORDS words), reward]
//!  results   a ring of slots, game g in slot g % slots: [score, moves, largest tile index, g + 1]
//!  counters  atomics, fresh each launch: [games taken, games finished, moves played]
//! ```
//! A launch plays at most `max_moves` moves per unit (lavapipe stops long loops, see
//! `DeviceLimits::loop_iterations`), so games run over several launches. A unit whose game ends
//! (or that is idle) takes the next game number at once, up to a limit the host moves forward
//! as it collects finished games from the ring: the units stay busy until the last games of a
//! run, instead of waiting at the end of every batch for its longest game.

use super::moves::{cell, initial, max_index, set_board, slide, spawn};
pub use super::td_storage::WeightStorage;
use super::td_storage::{upload_f16, F16_MAX};
use super::{DeviceTiles, FibBoard, GpuTiles};
use crate::launch::{grid, read, read_range, upload};
use crate::rng;
use cubecl::prelude::*;
use cubesearch_core::{Error, Result};

/// `units[..]` game slot of an idle unit.
pub const NONE: u32 = u32::MAX;
/// u32 words of one unit's entry in `units`.
pub const UNIT_WORDS: usize = 5;

/// The table index of lookup `l` for `board`: tile indices of its cells, `bits` bits each,
/// first cell lowest.
#[cube]
fn lookup_index<T: DeviceTiles>(
    board: &FibBoard,
    lut: &Array<u32>,
    l: u32,
    #[comptime] len: u32,
) -> usize {
    let bits = T::bits();
    let base = l * (len + 1u32);
    let mut idx = lut[base as usize];
    #[unroll]
    for j in 0..len {
        let c = lut[(base + 1u32 + j) as usize];
        idx += cell::<T>(board, c) << (j * bits);
    }
    idx as usize
}

/// V(board): the sum of the weights of every lookup in the network's order: lookup `l` into
/// partial sum `l mod 4`, then `(s₀ + s₁) + (s₂ + s₃)`, as the host's network sums them
/// (`lookups` is a multiple of 4).
#[cube]
pub fn value<T: DeviceTiles>(
    board: &FibBoard,
    weights: &Array<Atomic<f32>>,
    lut: &Array<u32>,
    lookups: u32,
    #[comptime] len: u32,
) -> f32 {
    let mut s0 = 0.0f32;
    let mut s1 = 0.0f32;
    let mut s2 = 0.0f32;
    let mut s3 = 0.0f32;
    for q in 0..lookups / 4u32 {
        let l = 4u32 * q;
        s0 += weights[lookup_index::<T>(board, lut, l, len)].load();
        s1 += weights[lookup_index::<T>(board, lut, l + 1u32, len)].load();
        s2 += weights[lookup_index::<T>(board, lut, l + 2u32, len)].load();
        s3 += weights[lookup_index::<T>(board, lut, l + 3u32, len)].load();
    }
    (s0 + s1) + (s2 + s3)
}

/// V(board) read from the training weights: plain loads from `frozen` when a launch averages
/// its updates (the weights do not change until the apply kernel runs), else atomic loads from
/// `live`, which the launch's own updates change. CUDA compiles an atomic load to an atomic
/// add of zero, a round trip to L2 for each of the 4 × 24 weights a move reads. `frozen` holds
/// the weights as `F` ([`WeightStorage`]); the sum is f32 whatever they are stored as, in
/// [`value()`]'s order.
#[cube]
fn training_value<T: DeviceTiles, F: Float>(
    board: &FibBoard,
    frozen: &Array<F>,
    live: &Array<Atomic<f32>>,
    lut: &Array<u32>,
    lookups: u32,
    #[comptime] len: u32,
    #[comptime] averaged: bool,
) -> f32 {
    if averaged {
        let mut s0 = 0.0f32;
        let mut s1 = 0.0f32;
        let mut s2 = 0.0f32;
        let mut s3 = 0.0f32;
        for q in 0..lookups / 4u32 {
            let l = 4u32 * q;
            s0 += f32::cast_from(frozen[lookup_index::<T>(board, lut, l, len)]);
            s1 += f32::cast_from(frozen[lookup_index::<T>(board, lut, l + 1u32, len)]);
            s2 += f32::cast_from(frozen[lookup_index::<T>(board, lut, l + 2u32, len)]);
            s3 += f32::cast_from(frozen[lookup_index::<T>(board, lut, l + 3u32, len)]);
        }
        (s0 + s1) + (s2 + s3)
    } else {
        value::<T>(board, live, lut, lookups, len)
    }
}

/// Adds `delta` to every weight V(board) reads.
#[cube]
pub fn update<T: DeviceTiles>(
    board: &FibBoard,
    weights: &Array<Atomic<f32>>,
    lut: &Array<u32>,
    delta: f32,
    lookups: u32,
    #[comptime] len: u32,
) {
    for l in 0..lookups {
        weights[lookup_index::<T>(board, lut, l, len)].fetch_add(delta);
    }
}

/// Adds `delta` to the pending change of every weight V(board) reads, and counts the hit
/// (the averaged update, see [`TdShape::averaged`]).
#[cube]
#[allow(clippy::too_many_arguments)]
fn accumulate<T: DeviceTiles>(
    board: &FibBoard,
    pending: &Array<Atomic<f32>>,
    hits: &Array<Atomic<u32>>,
    lut: &Array<u32>,
    delta: f32,
    lookups: u32,
    #[comptime] len: u32,
) {
    for l in 0..lookups {
        let i = lookup_index::<T>(board, lut, l, len);
        pending[i].fetch_add(delta);
        hits[i].fetch_add(1u32);
    }
}

/// The backward TD(0) pass over `count` path entries starting at entry `first`, the last
/// afterstate moved toward `target`. Immediate: each update goes into the weights and the
/// next target reads them back (the CPU trainer exactly). Averaged: each update goes into
/// `pending`/`hits`, and the next target is the value the update would have given,
/// `v + lookups · Δ`.
#[cube]
#[allow(clippy::too_many_arguments)]
fn learn<T: DeviceTiles, F: Float>(
    frozen: &Array<F>,
    weights: &Array<Atomic<f32>>,
    pending: &Array<Atomic<f32>>,
    hits: &Array<Atomic<u32>>,
    lut: &Array<u32>,
    paths: &Array<u32>,
    first: u32,
    count: u32,
    target0: f32,
    step: f32,
    lookups: u32,
    #[comptime] len: u32,
    #[comptime] words: usize,
    #[comptime] averaged: bool,
) {
    let stride = (words + 1) as u32;
    let mut target = target0;
    let mut i = count;
    while i > 0u32 {
        i -= 1u32;
        let at = ((first + i) * stride) as usize;
        let after = T::load(paths, at);
        let reward = f32::cast_from(paths[at + words]);
        let v = training_value::<T, F>(&after, frozen, weights, lut, lookups, len, averaged);
        let delta = step * (target - v);
        if averaged {
            accumulate::<T>(&after, pending, hits, lut, delta, lookups, len);
            target = reward + v + f32::cast_from(lookups) * delta;
        } else {
            update::<T>(&after, weights, lut, delta, lookups, len);
            target = reward + value::<T>(&after, weights, lut, lookups, len);
        }
    }
}

/// Applies the averaged updates of a launch: each weight moves by the mean of the changes
/// asked of it, `pending / hits`, and both go back to zero. Unit `i` owns weight `i`. With
/// `copied`, the launches read an `F` copy of the weights ([`WeightStorage::F16`]), and each
/// changed weight is written there too, saturated as
/// [`to_f16`](super::td_storage::to_f16) saturates it (no weight may read as infinity).
#[cube(launch_unchecked)]
pub fn td_apply_kernel<F: Float>(
    weights: &mut Array<Atomic<f32>>,
    pending: &mut Array<Atomic<f32>>,
    hits: &mut Array<Atomic<u32>>,
    copy: &mut Array<F>,
    total: u32,
    #[comptime] copied: bool,
) {
    let i = ABSOLUTE_POS;
    if i < total as usize {
        let h = hits[i].load();
        if h > 0u32 {
            let sum = pending[i].load();
            let change = sum / f32::cast_from(h);
            // The add returns the weight before it; nothing else runs, so the weight after it
            // is that plus the change, rounded as the add rounded it.
            let before = weights[i].fetch_add(change);
            if copied {
                copy[i] = F::cast_from((before + change).clamp(-F16_MAX, F16_MAX));
            }
            // Nothing else runs: subtracting what was read leaves exactly zero.
            pending[i].fetch_add(-sum);
            hits[i].fetch_sub(h);
        }
    }
}

/// The seed's parallel weight update (4.5): unit `i` takes time step `t = i % rounds` of game
/// `i / rounds` in `paths` (`[afterstate, reward]` entries, `rounds` a game) and moves
/// V(s'_t) toward `r_{t+1} + V(s'_{t+1})` (0 after the last step) with the weights as it finds
/// them, all steps at once. No unit loops more than `lookups` times, so lavapipe runs it whole.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn td_steps_kernel<T: DeviceTiles>(
    weights: &mut Array<Atomic<f32>>,
    lut: &Array<u32>,
    paths: &Array<u32>,
    rounds: u32,
    total: u32,
    step: f32,
    lookups: u32,
    #[comptime] len: u32,
    #[comptime] words: usize,
) {
    let i = ABSOLUTE_POS as u32;
    if i < total {
        let stride = (words + 1) as u32;
        let at = (i * stride) as usize;
        let after = T::load(paths, at);
        let v = value::<T>(&after, weights, lut, lookups, len);
        let mut target = 0.0f32;
        if (i % rounds) + 1u32 < rounds {
            let next_at = at + stride as usize;
            let next = T::load(paths, next_at);
            target = f32::cast_from(paths[next_at + words])
                + value::<T>(&next, weights, lut, lookups, len);
        }
        update::<T>(&after, weights, lut, step * (target - v), lookups, len);
    }
}

/// Every unit starts idle: its first game comes from the play kernel's counter.
#[cube(launch_unchecked)]
pub fn td_start_kernel(units: &mut Array<u32>, unit_count: u32) {
    let u = ABSOLUTE_POS as u32;
    if u < unit_count {
        let at = u as usize * UNIT_WORDS;
        units[at] = NONE;
        units[at + 1] = 0u32;
        units[at + 2] = 0u32;
        units[at + 3] = 0u32;
        units[at + 4] = 0u32;
    }
}

/// Takes the next game number, `base + counters[0]++`, if it is below `limit`: the game's
/// generator and first board; else the unit idles (`NONE`). The host moves `base` past the
/// numbers taken below the limit, so a number taken past it is handed out again.
#[cube]
#[allow(clippy::too_many_arguments)]
fn take_game<T: DeviceTiles>(
    counters: &mut Array<Atomic<u32>>,
    base: u32,
    limit: u32,
    seed: u32,
    first: u32,
    game: &mut u32,
    state: &mut u32,
    board: &mut FibBoard,
) {
    let next = base + counters[0].fetch_add(1u32);
    if next < limit {
        *game = next;
        *state = rng::worker_state(seed, first + next);
        let fresh = initial::<T>(state);
        set_board(board, &fresh);
    } else {
        *game = NONE;
    }
}

/// Each unit plays up to `max_moves` moves, learning from each game when it ends (see the module
/// docs) and taking the next game number below `limit` (games `first + base ..`).
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn td_play_kernel<T: DeviceTiles, F: Float>(
    frozen: &Array<F>,
    weights: &mut Array<Atomic<f32>>,
    pending: &mut Array<Atomic<f32>>,
    hits: &mut Array<Atomic<u32>>,
    lut: &Array<u32>,
    boards: &mut Array<u32>,
    units: &mut Array<u32>,
    paths: &mut Array<u32>,
    results: &mut Array<u32>,
    counters: &mut Array<Atomic<u32>>,
    step: f32,
    seed: u32,
    first: u32,
    base: u32,
    limit: u32,
    slots: u32,
    unit_count: u32,
    max_moves: u32,
    cap: u32,
    lookups: u32,
    #[comptime] len: u32,
    #[comptime] words: usize,
    #[comptime] averaged: bool,
) {
    let u = ABSOLUTE_POS as u32;
    if u < unit_count {
        let at = u as usize * UNIT_WORDS;
        let stride = (words + 1) as u32;
        let mut game = units[at];
        let mut state = units[at + 1];
        let mut score = units[at + 2];
        let mut moves = units[at + 3];
        let mut plen = units[at + 4];
        let mut board = T::load(boards, u as usize * words);
        let mut budget = max_moves;
        if game == NONE {
            take_game::<T>(
                counters, base, limit, seed, first, &mut game, &mut state, &mut board,
            );
        }
        while budget > 0u32 && game != NONE {
            budget -= 1u32;
            // The greedy direction: the first best `reward + V(afterstate)`.
            let mut found = false;
            let mut best_dir = 0u32;
            let mut best_v = 0.0f32;
            for d in 0..4u32 {
                let s = slide::<T>(&board, d);
                if s.moved {
                    let v = f32::cast_from(s.reward)
                        + training_value::<T, F>(
                            &s.board, frozen, weights, lut, lookups, len, averaged,
                        );
                    if !found || v > best_v {
                        best_v = v;
                        best_dir = d;
                        found = true;
                    }
                }
            }
            if found {
                let s = slide::<T>(&board, best_dir);
                if plen == cap {
                    learn::<T, F>(
                        frozen,
                        weights,
                        pending,
                        hits,
                        lut,
                        paths,
                        u * cap,
                        plen,
                        best_v,
                        step,
                        lookups,
                        len,
                        words,
                        averaged,
                    );
                    plen = 0u32;
                }
                let entry = ((u * cap + plen) * stride) as usize;
                T::store(&s.board, paths, entry);
                paths[entry + words] = s.reward;
                plen += 1u32;
                score += s.reward;
                moves += 1u32;
                set_board(&mut board, &s.board);
                spawn::<T>(&mut board, &mut state);
            } else {
                learn::<T, F>(
                    frozen,
                    weights,
                    pending,
                    hits,
                    lut,
                    paths,
                    u * cap,
                    plen,
                    0.0f32,
                    step,
                    lookups,
                    len,
                    words,
                    averaged,
                );
                let r = (game % slots) as usize * 4;
                results[r] = score;
                results[r + 1] = moves;
                results[r + 2] = max_index::<T>(&board);
                results[r + 3] = game + 1u32;
                counters[1].fetch_add(1u32);
                score = 0u32;
                moves = 0u32;
                plen = 0u32;
                take_game::<T>(
                    counters, base, limit, seed, first, &mut game, &mut state, &mut board,
                );
            }
        }
        if budget < max_moves {
            counters[2].fetch_add(max_moves - budget);
        }
        T::store(&board, boards, u as usize * words);
        units[at] = game;
        units[at + 1] = state;
        units[at + 2] = score;
        units[at + 3] = moves;
        units[at + 4] = plen;
    }
}

/// An n-tuple network as the device sees it: the weight tables, and every lookup (shape ×
/// symmetry, in the order V sums them) as its table and its cells.
#[derive(Clone, Debug)]
pub struct TdNet {
    /// The weight tables.
    pub tables: Vec<Vec<f32>>,
    /// Each lookup's table and cells; every lookup has the same number of cells.
    pub lookups: Vec<(usize, Vec<u8>)>,
}

/// How a device trainer spreads its work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TdShape {
    /// Games played at once (one unit each).
    pub units: u32,
    /// Most moves a unit plays in one launch.
    pub max_moves: u32,
    /// Path entries a unit keeps before learning from a game's start (see the module docs).
    pub cap: u32,
    /// How the units' updates reach the weights. Immediate (false): atomic adds straight into
    /// the weights, the seed's scheme and, with one unit, the CPU trainer exactly. It diverges
    /// when thousands of games update the same common weights at once, each from a value the
    /// others are changing (measured on an H200: 65,536 units from zero weights reached NaN).
    /// Averaged (true): a launch collects every update and its count per weight, and then
    /// each weight moves by the mean of what was asked of it — one TD step however many
    /// games share the weight, a full step for a weight only one game touched.
    pub averaged: bool,
    /// What an averaged launch reads the weights from: the f32 weights, or an f16 copy of
    /// them ([`WeightStorage`]). Immediate launches read the f32 weights only.
    pub storage: WeightStorage,
}

/// From this many units on, [`TdShape::for_device`] averages the updates.
pub const AVERAGED_FROM_UNITS: u32 = 1024;

impl TdShape {
    /// The shape for a network of `lookups` lookups: `units` games at once (default: 64 on a
    /// loop-limited device, 65536 otherwise), averaged updates from [`AVERAGED_FROM_UNITS`]
    /// on, every launch a window of 16 moves a unit. On a device whose driver stops a unit's
    /// loops after `loop_budget` back-edges (lavapipe), a launch stays inside it: a move costs
    /// about `4·lookups` back-edges (V of four afterstates, the lookup loop is not unrolled so
    /// that the kernel compiles quickly), a learned path entry `3·lookups`, and a launch learns
    /// at most `cap + max_moves` entries. Paths take at most 1 GiB (wgpu's largest buffer is
    /// smaller than CUDA's).
    pub fn for_device(units: Option<u32>, lookups: u32, loop_budget: Option<u32>) -> Self {
        let units = units.unwrap_or(if loop_budget.is_some() { 64 } else { 65536 });
        let averaged = units >= AVERAGED_FROM_UNITS;
        let (max_moves, cap) = match loop_budget {
            Some(budget) => {
                let per_move = 4 * lookups + 12;
                let per_entry = 3 * lookups + 4;
                let max_moves = 32;
                let spare = (budget as u64 * 9 / 10)
                    .saturating_sub(max_moves as u64 * (per_move + per_entry) as u64);
                (max_moves, (spare / per_entry as u64).clamp(16, 4096) as u32)
            }
            None => (if averaged { 16 } else { 4096 }, 4096),
        };
        // 16 bytes a 2584 path entry (three board words and the reward).
        let cap_in_a_gib = ((1u64 << 30) / (units as u64 * 16)).clamp(64, 4096) as u32;
        TdShape {
            units,
            max_moves,
            cap: cap.min(cap_in_a_gib),
            averaged,
            storage: WeightStorage::F32,
        }
    }
}

/// One finished game of a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TdGame {
    /// The sum of the rewards.
    pub score: u32,
    /// Moves played.
    pub moves: u32,
    /// The largest tile index reached.
    pub max_index: u8,
}

/// A launch's share of the game stream: the result ring of `slots` slots, fresh counters, and
/// the game numbers units may take (`base` on, below `limit`; see [`td_play_kernel`]).
struct Window<'a> {
    results: &'a cubecl::server::Handle,
    slots: u32,
    counters: &'a cubecl::server::Handle,
    base: u32,
    limit: u32,
}

/// A TD(0) trainer on one device: the weights and every unit's game live in device memory.
pub struct DeviceTd<R: Runtime, T: GpuTiles> {
    client: ComputeClient<R>,
    shape: TdShape,
    sizes: Vec<usize>,
    lookups: u32,
    len: u32,
    weights: cubecl::server::Handle,
    /// [`WeightStorage::F16`]: the f16 copy of the weights that averaged launches read.
    half: Option<cubecl::server::Handle>,
    /// Averaged updates: the changes asked of each weight in a launch, and their count.
    pending: cubecl::server::Handle,
    hits: cubecl::server::Handle,
    /// One f32 standing in for the weight view a launch does not use (plain or atomic).
    placeholder: cubecl::server::Handle,
    lut: cubecl::server::Handle,
    lut_len: usize,
    boards: cubecl::server::Handle,
    units: cubecl::server::Handle,
    paths: cubecl::server::Handle,
    /// Unit steps played, and unit steps launched (units × moves per launch), so far.
    steps: (u64, u64),
    _rule: std::marker::PhantomData<T>,
}

impl<R: Runtime, T: GpuTiles> DeviceTd<R, T> {
    /// Uploads `net` and allocates the units' games and paths.
    pub fn new(client: &ComputeClient<R>, net: &TdNet, shape: TdShape) -> Result<Self> {
        let len = net.lookups.first().map_or(0, |l| l.1.len());
        if len == 0 || net.lookups.iter().any(|l| l.1.len() != len) {
            return Err(Error::Unsupported(
                "the GPU trainer needs tuple shapes that all have the same number of cells".into(),
            ));
        }
        if shape.units == 0 || shape.max_moves == 0 || shape.cap == 0 {
            return Err(Error::Unsupported(format!(
                "bad GPU trainer shape {shape:?}: units, moves per launch and path length must be positive"
            )));
        }
        if shape.storage == WeightStorage::F16 {
            if !shape.averaged {
                return Err(Error::Unsupported(format!(
                    "f16 weight storage needs averaged updates (from {AVERAGED_FROM_UNITS} units on): \
                     {} units update the f32 weights as they read them",
                    shape.units
                )));
            }
            if !WeightStorage::f16_supported(client) {
                return Err(Error::Unsupported(
                    "this device cannot keep f16 values in its buffers (on wgpu: an adapter \
                     without SHADER_F16); use f32 weight storage"
                        .into(),
                ));
            }
        }
        let mut offsets = Vec::with_capacity(net.tables.len());
        let mut flat = Vec::new();
        for t in &net.tables {
            offsets.push(flat.len());
            flat.extend_from_slice(t);
        }
        if flat.len() > u32::MAX as usize {
            return Err(Error::Unsupported(format!(
                "{} weights: the GPU trainer indexes at most 2^32",
                flat.len()
            )));
        }
        let mut lut = Vec::with_capacity(net.lookups.len() * (len + 1));
        for (table, cells) in &net.lookups {
            lut.push(offsets[*table] as u32);
            lut.extend(cells.iter().map(|&c| c as u32));
        }
        let units = shape.units as usize;
        let path_words = units * shape.cap as usize * (T::WORDS + 1);
        let pending_len = Self::pending_len(shape, flat.len());
        Ok(Self {
            client: client.clone(),
            shape,
            sizes: net.tables.iter().map(|t| t.len()).collect(),
            lookups: net.lookups.len() as u32,
            len: len as u32,
            half: (shape.storage == WeightStorage::F16).then(|| upload_f16(client, &flat)),
            weights: client.create_from_slice(f32::as_bytes(&flat)),
            pending: client.create_from_slice(f32::as_bytes(&vec![0.0f32; pending_len])),
            hits: upload(client, &vec![0u32; pending_len]),
            placeholder: client.create_from_slice(f32::as_bytes(&[0.0f32])),
            lut_len: lut.len(),
            lut: upload(client, &lut),
            boards: client.empty(units * T::WORDS * 4),
            units: client.empty(units * UNIT_WORDS * 4),
            paths: client.empty(path_words.max(1) * 4),
            steps: (0, 0),
            _rule: std::marker::PhantomData,
        })
    }

    /// The launch shape.
    pub fn shape(&self) -> TdShape {
        self.shape
    }

    /// Weights in all tables.
    fn weight_count(&self) -> usize {
        self.sizes.iter().sum()
    }

    /// Length of the `pending` and `hits` buffers: one per weight when averaging, else a
    /// placeholder of one.
    fn pending_len(shape: TdShape, weight_count: usize) -> usize {
        if shape.averaged {
            weight_count
        } else {
            1
        }
    }

    /// The share of launched unit steps that played a move or ended a game: below 1 when
    /// units idle at the end of a batch (waiting for its longest games) or a launch ends
    /// partway. `None` before the first launch.
    pub fn occupancy(&self) -> Option<f64> {
        (self.steps.1 > 0).then(|| self.steps.0 as f64 / self.steps.1 as f64)
    }

    /// Plays and learns from games `first..first + games` of a run seeded `seed` (game `g`
    /// draws from worker `g`'s xorshift32), `step` per weight per unit of TD error. Returns
    /// the games in order.
    pub fn play_batch(
        &mut self,
        first: u32,
        games: u32,
        seed: u32,
        step: f32,
    ) -> Result<Vec<TdGame>> {
        self.play_batch_until(first, games, seed, step, None)
    }

    /// [`DeviceTd::play_batch`], stopping after the first launch that ends past `deadline`:
    /// the games finished before the oldest one still in flight come back, in order; the rest
    /// are dropped (what they learned stays).
    pub fn play_batch_until(
        &mut self,
        first: u32,
        games: u32,
        seed: u32,
        step: f32,
        deadline: Option<std::time::Instant>,
    ) -> Result<Vec<TdGame>> {
        let mut finished = Vec::new();
        self.play_games(first, games, seed, step, deadline, &mut |g| {
            finished.push(g);
            Ok(())
        })?;
        Ok(finished)
    }

    /// [`DeviceTd::play_batch_until`] handing each game to `on_game` as soon as it and every
    /// earlier game have finished, so a long run reports as it goes. The units take game
    /// numbers as they free up, up to a ring of result slots ahead of the oldest game not yet
    /// handed over: only the run's last games leave units idle.
    pub fn play_games(
        &mut self,
        first: u32,
        games: u32,
        seed: u32,
        step: f32,
        deadline: Option<std::time::Instant>,
        on_game: &mut dyn FnMut(TdGame) -> Result<()>,
    ) -> Result<()> {
        self.play_games_pausing(first, games, seed, step, deadline, on_game, &mut |_| Ok(()))
    }

    /// [`DeviceTd::play_games`], calling `between` after every launch that leaves games to
    /// play, with the device idle and the games in flight kept: it may read and replace the
    /// weights ([`DeviceTd::read_tables`], [`DeviceTd::write_tables`]), as several GPUs do to
    /// share what they learned without draining their streams.
    #[allow(clippy::too_many_arguments)]
    pub fn play_games_pausing(
        &mut self,
        first: u32,
        games: u32,
        seed: u32,
        step: f32,
        deadline: Option<std::time::Instant>,
        on_game: &mut dyn FnMut(TdGame) -> Result<()>,
        between: &mut dyn FnMut(&mut Self) -> Result<()>,
    ) -> Result<()> {
        if games == 0 {
            return Ok(());
        }
        let client = &self.client.clone();
        let shape = self.shape;
        let units = shape.units as usize;
        let (cubes, dim) = grid(client, units);
        // SAFETY: units past `shape.units` do nothing; unit u writes only its own slots.
        unsafe {
            td_start_kernel::launch_unchecked::<R>(
                client,
                cubes,
                dim,
                ArrayArg::from_raw_parts(self.units.clone(), units * UNIT_WORDS),
                shape.units,
            );
        }
        // Sixteen slots a unit: a game may run sixteen average games longer than the others
        // before a unit waits for it.
        let slots = (shape.units.saturating_mul(16)).min(games);
        let results = upload(client, &vec![0u32; slots as usize * 4]);
        // Game numbers below `base` are taken; games below `delivered` handed over.
        let (mut base, mut delivered, mut finished) = (0u32, 0u32, 0u32);
        loop {
            let limit = games.min(delivered.saturating_add(slots));
            let counters = upload(client, &[0u32, 0, 0]);
            let window = Window {
                results: &results,
                slots,
                counters: &counters,
                base,
                limit,
            };
            match shape.storage {
                WeightStorage::F32 => self.launch::<f32>(&window, step, seed, first),
                WeightStorage::F16 => self.launch::<half::f16>(&window, step, seed, first),
            }
            let c = read::<R, u32>(client, counters)?;
            base += c[0].min(limit - base);
            finished += c[1];
            self.steps.0 += c[2] as u64;
            self.steps.1 += units as u64 * shape.max_moves as u64;
            let late = deadline.is_some_and(|d| std::time::Instant::now() >= d);
            // Hand over the finished games from the oldest on, up to the first still in
            // flight: a look at the oldest slot first, then the finished ones after it. A run
            // cut short drops the games after that one, finished or not: keeping the short
            // games that happened to end would bias the last scores low.
            while delivered < finished {
                let start = delivered % slots;
                let total = slots as usize * 4;
                let oldest =
                    read_range::<R, u32>(client, results.clone(), start as usize * 4, 4, total)?;
                if oldest[3] != delivered + 1 {
                    break;
                }
                let n = (slots - start).min(finished - delivered);
                let ring = read_range::<R, u32>(
                    client,
                    results.clone(),
                    start as usize * 4,
                    n as usize * 4,
                    total,
                )?;
                let ready = ring
                    .chunks_exact(4)
                    .enumerate()
                    .take_while(|(k, slot)| slot[3] == delivered + *k as u32 + 1)
                    .count();
                for slot in ring.chunks_exact(4).take(ready) {
                    on_game(TdGame {
                        score: slot[0],
                        moves: slot[1],
                        max_index: slot[2] as u8,
                    })?;
                }
                delivered += ready as u32;
                if ready < n as usize {
                    break;
                }
            }
            if delivered >= games || late {
                return Ok(());
            }
            if c[2] == 0 {
                // Every launch plays a move in each busy unit: no progress means the kernel
                // did not run (a compile failure leaves buffers untouched).
                return Err(Error::Device {
                    backend: R::name(client),
                    why: "the TD kernel made no progress (did it fail to compile?)".into(),
                });
            }
            between(self)?;
        }
    }

    /// One launch of the play kernel over every unit, and in an averaged run the apply kernel
    /// after it, the launch reading the weights as `F` (the shape's [`WeightStorage`]).
    fn launch<F: Float + CubeElement>(&self, window: &Window, step: f32, seed: u32, first: u32) {
        let client = &self.client;
        let shape = self.shape;
        let units = shape.units as usize;
        let words = T::WORDS;
        let (cubes, dim) = grid(client, units);
        let weight_count = self.weight_count();
        let pending_len = Self::pending_len(shape, weight_count);
        // Averaged launches read the weights plainly (f32, or their f16 copy) and never write
        // them; immediate ones update them atomically. Each binds the view it does not use to
        // the placeholder.
        let (frozen, frozen_len, live, live_len) = match (&self.half, shape.averaged) {
            (Some(half), _) => (half, weight_count, &self.placeholder, 1),
            (None, true) => (&self.weights, weight_count, &self.placeholder, 1),
            (None, false) => (&self.placeholder, 1, &self.weights, weight_count),
        };
        // SAFETY: every index stays inside its buffer: unit slots below `shape.units`, path
        // entries below `cap`, result slots below `slots`, weights at the offsets of `lut`.
        unsafe {
            td_play_kernel::launch_unchecked::<T::Device, F, R>(
                client,
                cubes,
                dim,
                ArrayArg::from_raw_parts(frozen.clone(), frozen_len),
                ArrayArg::from_raw_parts(live.clone(), live_len),
                ArrayArg::from_raw_parts(self.pending.clone(), pending_len),
                ArrayArg::from_raw_parts(self.hits.clone(), pending_len),
                ArrayArg::from_raw_parts(self.lut.clone(), self.lut_len),
                ArrayArg::from_raw_parts(self.boards.clone(), units * words),
                ArrayArg::from_raw_parts(self.units.clone(), units * UNIT_WORDS),
                ArrayArg::from_raw_parts(
                    self.paths.clone(),
                    units * shape.cap as usize * (words + 1),
                ),
                ArrayArg::from_raw_parts(window.results.clone(), window.slots as usize * 4),
                ArrayArg::from_raw_parts(window.counters.clone(), 3),
                step,
                seed,
                first,
                window.base,
                window.limit,
                window.slots,
                shape.units,
                shape.max_moves,
                shape.cap,
                self.lookups,
                self.len,
                words,
                shape.averaged,
            );
        }
        if shape.averaged {
            let (cubes, dim) = grid(client, weight_count);
            let (copy, copy_len) = match &self.half {
                Some(half) => (half, weight_count),
                None => (&self.placeholder, 1),
            };
            // SAFETY: unit i touches only weight i of four buffers of `weight_count` (the
            // copy, when there is none, is the placeholder and is not touched).
            unsafe {
                td_apply_kernel::launch_unchecked::<F, R>(
                    client,
                    cubes,
                    dim,
                    ArrayArg::from_raw_parts(self.weights.clone(), weight_count),
                    ArrayArg::from_raw_parts(self.pending.clone(), weight_count),
                    ArrayArg::from_raw_parts(self.hits.clone(), weight_count),
                    ArrayArg::from_raw_parts(copy.clone(), copy_len),
                    weight_count as u32,
                    self.half.is_some(),
                );
            }
        }
    }

    /// Runs [`td_steps_kernel`](fn@td_steps_kernel) over `paths` (the [`GpuTiles::WORDS`]-word afterstate and the
    /// reward of every step, `rounds` steps a game) and waits for it.
    pub fn learn_steps(&mut self, paths: &[u32], rounds: u32, step: f32) -> Result<()> {
        let words = T::WORDS;
        let total = paths.len() / (words + 1);
        if rounds == 0
            || total / rounds as usize * rounds as usize != total
            || total > u32::MAX as usize
        {
            return Err(Error::Unsupported(format!(
                "{total} steps do not make games of {rounds} rounds"
            )));
        }
        let client = &self.client;
        let paths_handle = upload(client, paths);
        let done = client.empty(4);
        let (cubes, dim) = grid(client, total);
        // SAFETY: units past `total` do nothing; unit i reads entries i and i + 1 (only when i
        // is not a game's last step) and updates weights at the offsets of `lut`.
        unsafe {
            td_steps_kernel::launch_unchecked::<T::Device, R>(
                client,
                cubes,
                dim,
                ArrayArg::from_raw_parts(self.weights.clone(), self.weight_count()),
                ArrayArg::from_raw_parts(self.lut.clone(), self.lut_len),
                ArrayArg::from_raw_parts(paths_handle, paths.len()),
                rounds,
                total as u32,
                step,
                self.lookups,
                self.len,
                words,
            );
        }
        // Reading any buffer waits for the launch.
        read::<R, u32>(client, done).map(|_| ())
    }

    /// Replaces the device's weights (tables as [`DeviceTd::read_tables`] gives them).
    pub fn write_tables(&mut self, tables: &[Vec<f32>]) -> Result<()> {
        if tables.len() != self.sizes.len()
            || tables.iter().zip(&self.sizes).any(|(t, &n)| t.len() != n)
        {
            return Err(Error::Unsupported(
                "weights of another network shape cannot replace the device's".into(),
            ));
        }
        let flat: Vec<f32> = tables.concat();
        if self.half.is_some() {
            self.half = Some(upload_f16(&self.client, &flat));
        }
        self.weights = self.client.create_from_slice(f32::as_bytes(&flat));
        Ok(())
    }

    /// Copies the weights back, one vector per table.
    pub fn read_tables(&self) -> Result<Vec<Vec<f32>>> {
        let flat = read::<R, f32>(&self.client, self.weights.clone())?;
        let mut out = Vec::with_capacity(self.sizes.len());
        let mut at = 0;
        for &n in &self.sizes {
            out.push(flat[at..at + n].to_vec());
            at += n;
        }
        Ok(out)
    }
}
