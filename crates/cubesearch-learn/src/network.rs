//! The n-tuple network: V(s) = Σ weights, one weight per (tuple shape, symmetry) lookup.
//!
//! The sum has one fixed order, which every CPU and device path keeps so that they agree bit
//! for bit: lookup `l` goes into partial sum `l mod 4` (each partial sum adding its lookups in
//! order, from 0.0), and V = (s₀ + s₁) + (s₂ + s₃). Four short chains of additions instead of
//! one long one: the backward TD pass waits on each sum before the next update, and the
//! candidates of a move sum side by side. A network's lookups (shapes × symmetries) must be a
//! multiple of 4.
//!
//! A *shape* is a list of the game's cells ([`TupleGame`]: a 4×4 board numbers them 0..16, row
//! by row from the top-left). Each shape is looked up in every symmetry of the game (a square
//! board: its 8 rotations and reflections), those lookups sharing the shape's weight table. The
//! table index of a lookup reads the value of each of the shape's cells in that symmetry's view,
//! `bits` bits each, first cell in the low bits: 5 bits a cell give 32⁴ ≈ 1M entries for a
//! 4-tuple, 4 bits 16⁴ = 65536 (16⁶ ≈ 16.8M for a 6-tuple).
//! Every lookup list is built once, by [`NTupleNetwork::lookup_layout`]'s builder: the CPU
//! reads it here (its tables a gap apart, [`TABLE_GAP`]) and the device kernels get it as data
//! (the tables packed).
//!
//! A *multi-stage* network (Yeh et al., IEEE TCIAIG 2017) keeps one copy of every table a
//! stage, stage after stage: a state's stage is how many of the network's thresholds its
//! [`TupleGame::stage_progress`] reaches, and its lookups read that stage's copy,
//! `stage ·` [`NTupleNetwork::stage_len`] weights further on (with the tables packed). For
//! 2048 that is the sum of the two largest tiles: `16384` gives a second stage once a 16384
//! is made (or two 8192s are about to make one), and `16384,24576` Yeh et al.'s three (the
//! third once a 16384 and an 8192 are both on the board). The late game, rare in training
//! and unlike the opening, then learns values of its own.
//!
//! With *temporal coherence* ([`NTupleNetwork::enable_coherence`]; Beal and Smith 1999,
//! Jaśkowski's TC for 2048, TDL2048+'s `coherence`) each weight learns at its own rate: a change
//! `d` asked of it moves it by `d · |E| / A` ([`coherence_rate`]), `E` being the sum of the
//! changes asked of it so far and `A` the sum of their sizes (the rate is 1 before the first).
//! A weight whose errors keep their sign keeps learning at the full rate; one whose errors
//! cancel out, as a well-learned weight's do, slows down. The two sums live beside the weights,
//! and a weights file keeps them, as TDL2048+'s does: a run resumed with coherence goes on at
//! each weight's own rate, where sums started afresh would put every weight back at rate 1.
//!
//! Weights are `AtomicU32`s holding `f32` bits. Reads and writes are `Relaxed` loads and stores
//! (plain moves on x86), so game-parallel trainers share one table without locks and without
//! undefined behaviour; two threads updating one weight at once may lose one of the updates,
//! which the seed (section 4.3) accepts as rare and harmless.

use crate::game::{TupleGame, ViewWords};
#[cfg(target_arch = "x86_64")]
use crate::gather;
use crate::memory::WeightMemory;
use cubesearch_core::{Error, Result};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

/// Most cells in one tuple.
pub const MAX_TUPLE: usize = 8;
/// Most symmetries a game may share a tuple's weights over.
pub const MAX_SYMMETRIES: usize = 8;
/// Most index bits of one table (2^28 weights, 1 GiB).
pub const MAX_TABLE_BITS: u32 = 28;
/// Most weights in all tables and the gaps after them together (8 GiB): the trainer's AVX2
/// gathers take a weight's index as a signed 32-bit offset.
pub const MAX_WEIGHTS: usize = 1 << 31;
/// Most stages of a multi-stage network.
pub const MAX_STAGES: usize = 8;

/// Weights left unused after each table in the CPU's weights: 129 cache lines (8 KiB + 64 B).
///
/// 2048's `4x6patt` tables are 64 MiB each: back to back, each would start at the same place
/// in every cache's sets, and on the 2 MiB pages the trainer asks for, the caches index those
/// bits by the virtual address. A board's lookups of two tables whose shapes begin with the same
/// cells (`0,1,2,3,4,5` and `0,1,2,4,5,6`) then fall in the same sets and evict each other.
/// With the gap, table `t` moves `t ·` 129 lines on: `t` sets on in a 64-set L1, `129 t` in
/// a 2048-set L2. Of the gaps cachegrind tried (0 to 1,025 lines) this one missed least:
/// a fifth fewer L1 and a quarter fewer L2 misses a move than none (docs/BENCHMARKS.md). The
/// device keeps the tables packed ([`NTupleNetwork::lookup_layout`]).
pub const TABLE_GAP: usize = 129 * 16;

/// Reads stage thresholds written as stage-progress values ([`TupleGame::stage_progress`]),
/// `16384` or `16384,24576` (empty: one stage).
pub fn parse_stages(text: &str) -> Result<Vec<u32>> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|t| {
            t.trim().parse::<u32>().map_err(|_| {
                Error::parse(format!(
                    "bad stage thresholds '{text}': expected stage-progress values like 16384,24576"
                ))
            })
        })
        .collect()
}

/// Fails unless `thresholds` can be a network's: at most [`MAX_STAGES`] stages, stage-progress
/// values above 0, ascending.
pub fn check_stages(thresholds: &[u32]) -> Result<()> {
    if thresholds.len() >= MAX_STAGES {
        return Err(Error::parse(format!(
            "{} stages: a network has at most {MAX_STAGES}",
            thresholds.len() + 1
        )));
    }
    if thresholds.first() == Some(&0) || thresholds.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Error::parse(format!(
            "bad stage thresholds {}: stage-progress values above 0, ascending",
            format_stages(thresholds)
        )));
    }
    Ok(())
}

/// Writes stage thresholds as `8192,16384`.
pub fn format_stages(thresholds: &[u32]) -> String {
    thresholds
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Reads shapes written as cell lists, `0,1,2,3;4,5,6,7`.
pub fn parse_shapes(text: &str) -> Result<Vec<Vec<u8>>> {
    text.split(';')
        .map(|shape| {
            shape
                .split(',')
                .map(|c| {
                    c.trim().parse::<u8>().map_err(|_| {
                        Error::parse(format!(
                            "bad tuple shapes '{text}': expected cell lists like 0,1,2,3;4,5,6,7"
                        ))
                    })
                })
                .collect()
        })
        .collect()
}

/// Reads shapes for game `G`: one of its named sets ([`TupleGame::SHAPES`]) or cell lists
/// ([`parse_shapes`]).
pub fn shapes_for<G: TupleGame>(text: &str) -> Result<Vec<Vec<u8>>> {
    let name = text.trim();
    if let Some((_, shapes)) = G::SHAPES.iter().find(|(n, _)| *n == name) {
        return Ok(shapes.iter().map(|s| s.to_vec()).collect());
    }
    parse_shapes(text).map_err(|_| {
        let names: Vec<&str> = G::SHAPES.iter().map(|(n, _)| *n).collect();
        Error::parse(format!(
            "bad tuple shapes '{text}': expected cell lists like 0,1,2,3;4,5,6,7 (or {})",
            names.join(", ")
        ))
    })
}

/// Game `G`'s default shapes: the first of its named sets.
pub fn default_shapes<G: TupleGame>() -> Vec<Vec<u8>> {
    G::SHAPES.first().map_or_else(Vec::new, |(_, shapes)| {
        shapes.iter().map(|s| s.to_vec()).collect()
    })
}

/// Writes shapes as `0,1,2,3;4,5,6,7`.
pub fn format_shapes(shapes: &[Vec<u8>]) -> String {
    shapes
        .iter()
        .map(|s| {
            s.iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// One table lookup: where its table starts in the weights, and which of the state's cells make
/// its index.
#[derive(Clone, Copy, Debug)]
struct Lookup {
    /// Where its table starts in the CPU's weights.
    offset: u32,
    /// Where its table starts with the tables packed ([`NTupleNetwork::lookup_layout`]).
    packed: u32,
    len: u32,
    cells: [u8; MAX_TUPLE],
}

impl Lookup {
    /// The weight this lookup reads on a state given as its cell values, `bits` bits a cell.
    #[inline(always)]
    fn cell_index(&self, cells: &[u8], bits: u32) -> u32 {
        let mut idx = 0;
        for j in 0..self.len as usize {
            idx |= (cells[self.cells[j] as usize] as u32) << (bits * j as u32);
        }
        self.offset + idx
    }
}

/// A run of consecutive cells within a shape, all in one word of a packed view (see
/// [`crate::game`]): one mask and at most one shift move it to its place in the table index,
/// the same for every view of every state.
#[derive(Clone, Copy, Debug)]
struct Run {
    word: usize,
    /// The run's bits where they lie in the word.
    mask: u64,
    /// How far the masked bits move toward the index's low bits (negative: toward its high
    /// bits). In 2048's whole-board views it is often 0: no shift at all.
    right: i32,
}

/// ORs `place` of word `word` of every view of `N` states into their indices (symmetry by
/// symmetry, the states side by side).
#[inline(always)]
fn or_run<G: TupleGame, const N: usize>(
    idx: &mut [[u64; N]; MAX_SYMMETRIES],
    views: &G::Views<N>,
    word: usize,
    place: impl Fn(u64) -> u64,
) {
    for (s, idx) in idx.iter_mut().enumerate().take(G::SYMMETRIES.len()) {
        for (i, &x) in idx.iter_mut().zip(views.word(s, word)) {
            *i |= place(x);
        }
    }
}

/// How to read one shape's lookups straight from the state's packed views (see
/// [`TupleGame::views`]): symmetry `s` reads the shape's own cells of view `s`.
#[derive(Clone, Debug)]
struct ShapeReader {
    offset: u32,
    runs: Vec<Run>,
}

impl ShapeReader {
    fn new(shape: &[u8], offset: usize, bits: u32, per_word: usize) -> Self {
        let cell_mask: u64 = (1 << bits) - 1;
        let mut runs: Vec<Run> = Vec::new();
        for (j, &c) in shape.iter().enumerate() {
            let (word, shift, to) = (
                c as usize / per_word,
                (c as usize % per_word) as u32 * bits,
                j as u32 * bits,
            );
            let right = shift as i32 - to as i32;
            match runs.last_mut() {
                // The next cell of the same word, next in the index too: the run grows.
                Some(run) if run.word == word && run.right == right => {
                    run.mask |= cell_mask << shift;
                }
                _ => runs.push(Run {
                    word,
                    mask: cell_mask << shift,
                    right,
                }),
            }
        }
        ShapeReader {
            offset: offset as u32,
            runs,
        }
    }

    /// The weight indices of this shape's lookups on `N` states into `out`, symmetry by
    /// symmetry, the states' side by side, from the states' packed views; state `i`'s stage
    /// tables start at weight `stage[i]`.
    #[inline(always)]
    fn indices<G: TupleGame, const N: usize>(
        &self,
        views: &G::Views<N>,
        stage: &[u32; N],
        out: &mut [u32],
    ) {
        // A constant once monomorphised: the loops over the views unroll.
        let symmetries = G::SYMMETRIES.len();
        let mut idx = [[0u64; N]; MAX_SYMMETRIES];
        // A loop a direction, so that a run already in place (most of 2048's) costs a mask.
        for run in &self.runs {
            let (w, m) = (run.word, run.mask);
            match run.right {
                0 => or_run::<G, N>(&mut idx, views, w, |x| x & m),
                r if r > 0 => or_run::<G, N>(&mut idx, views, w, |x| (x & m) >> r),
                r => or_run::<G, N>(&mut idx, views, w, |x| (x & m) << -r),
            }
        }
        for (out, idx) in out.chunks_exact_mut(N).zip(&idx[..symmetries]) {
            for ((o, &i), &stage) in out.iter_mut().zip(idx).zip(stage) {
                *o = self.offset + stage + i as u32;
            }
        }
    }
}

/// V's four partial sums (see the module docs): lookup `l` adds to sum `l mod 4`.
#[derive(Clone, Copy, Debug, Default)]
struct PartialSums([f32; 4]);

impl PartialSums {
    /// Adds the weights of the next four lookups.
    #[inline(always)]
    fn add(&mut self, weights: [f32; 4]) {
        for (s, w) in self.0.iter_mut().zip(weights) {
            *s += w;
        }
    }

    /// Adds the weights of the next lookups, given by their indices (a multiple of 4 of them),
    /// `weight` reading each.
    #[inline(always)]
    fn add_lookups(&mut self, indices: &[u32], weight: impl Fn(u32) -> f32) {
        for four in indices.chunks_exact(4) {
            self.add([0, 1, 2, 3].map(|k| weight(four[k])));
        }
    }

    /// Adds the weights of lookups `first, first + 1, …` (given by their indices), lookup
    /// `l` into sum `l mod 4`.
    #[inline(always)]
    fn add_lookups_from(&mut self, first: usize, indices: &[u32], weight: impl Fn(u32) -> f32) {
        if first.is_multiple_of(4) && indices.len().is_multiple_of(4) {
            self.add_lookups(indices, weight);
        } else {
            for (j, &i) in indices.iter().enumerate() {
                self.0[(first + j) % 4] += weight(i);
            }
        }
    }

    /// V: `(s₀ + s₁) + (s₂ + s₃)`.
    #[inline(always)]
    fn total(self) -> f32 {
        let [a, b, c, d] = self.0;
        (a + b) + (c + d)
    }
}

/// A weight's value.
#[inline(always)]
fn read(w: &AtomicU32) -> f32 {
    f32::from_bits(w.load(Relaxed))
}

/// Weights as plain floats (a snapshot: other threads may be writing).
fn floats(weights: &[AtomicU32]) -> Vec<f32> {
    weights.iter().map(read).collect()
}

/// Adds `delta` to a weight (a relaxed load and store: see the module docs).
#[inline(always)]
fn add(w: &AtomicU32, delta: f32) {
    w.store((read(w) + delta).to_bits(), Relaxed);
}

/// V of one board from its lookups' weight indices, `weight` reading each.
#[inline(always)]
fn sum_lookups(indices: &[u32], weight: impl Fn(u32) -> f32) -> f32 {
    let mut sums = PartialSums::default();
    sums.add_lookups(indices, weight);
    sums.total()
}

/// V of four boards from their indices laid out as [`NTupleNetwork::indices_of`] does,
/// `weight` reading each.
#[inline(always)]
fn sum_four_boards(indices: &[u32], wanted: [bool; 4], weight: impl Fn(u32) -> f32) -> [f32; 4] {
    let mut sums = [PartialSums::default(); 4];
    // Four lookups of the four boards: board i's lookup 4q + k at 16q + 4k + i.
    for sixteen in indices.chunks_exact(16) {
        for (i, sums) in sums.iter_mut().enumerate() {
            if wanted[i] {
                sums.add([0, 1, 2, 3].map(|k| weight(sixteen[4 * k + i])));
            }
        }
    }
    sums.map(PartialSums::total)
}

/// How the trainer reads weights: one load at a time, or eight at once with AVX2's gather
/// ([`crate::gather`]). Both sum the same floats in the same order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WeightReads {
    OneByOne,
    #[cfg(target_arch = "x86_64")]
    Gather,
}

impl WeightReads {
    /// Gathers where `avx2` says so (a constant in each of the trainer's clones).
    ///
    /// # Safety
    /// With `avx2`, the CPU has AVX2.
    #[inline(always)]
    pub(crate) unsafe fn new(avx2: bool) -> Self {
        #[cfg(target_arch = "x86_64")]
        if avx2 {
            return WeightReads::Gather;
        }
        let _ = avx2;
        WeightReads::OneByOne
    }
}

/// Numbers the networks of a process (see [`NTupleNetwork::id`]).
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// An n-tuple network for one game (see the module docs).
#[derive(Debug)]
pub struct NTupleNetwork {
    /// Unique in the process: device caches of the weights know a network by it (an address
    /// can be reused once a network is dropped).
    id: u64,
    game: String,
    bits: u32,
    /// Cells of the game's states.
    cells: usize,
    shapes: Vec<Vec<u8>>,
    lookups: Vec<Lookup>,
    /// The lookups again, shape by shape, as [`Self::indices`] reads them.
    readers: Vec<ShapeReader>,
    /// Every table, one after another with [`TABLE_GAP`] after each (stage after stage): a
    /// weight is one `u32` index into one slice.
    weights: WeightMemory,
    /// Where each table lies in `weights` (stage 0's tables, stage 1's, ...).
    tables: Vec<std::ops::Range<usize>>,
    /// The stage progress at which each stage after the first begins, ascending (see the
    /// module docs); empty for one stage.
    stages: Vec<u32>,
    /// Weights of one stage's tables, packed (as [`Self::lookup_layout`] lays them out).
    stage_len: usize,
    /// How far apart in `weights` two stages' copies of a table lie: their tables and gaps.
    stage_stride: usize,
    /// Temporal coherence's sums, when it is on (see the module docs).
    coherence: Option<Coherence>,
}

/// Temporal coherence's two sums per weight (see the module docs).
#[derive(Debug)]
struct Coherence {
    /// `E`: the sum of the changes asked of each weight.
    sums: WeightMemory,
    /// `A`: the sum of their sizes.
    sizes: WeightMemory,
}

impl Coherence {
    fn zeroed(len: usize) -> Self {
        Coherence {
            sums: WeightMemory::zeroed(len),
            sizes: WeightMemory::zeroed(len),
        }
    }

    /// `E` (`k` = 0) or `A` (1).
    fn table(&self, k: usize) -> &WeightMemory {
        if k == 0 {
            &self.sums
        } else {
            &self.sizes
        }
    }

    /// Over `range`: each sum takes what the `learners` among `copies` (copies of these sums)
    /// added to it, in their order, and every copy takes the result.
    fn merge(&self, copies: &[&Coherence], learners: &[usize], range: std::ops::Range<usize>) {
        for i in range {
            for k in 0..2 {
                let base = read(&self.table(k)[i]);
                let added = learners
                    .iter()
                    .fold(0.0, |sum, &c| sum + (read(&copies[c].table(k)[i]) - base));
                let merged = (base + added).to_bits();
                self.table(k)[i].store(merged, Relaxed);
                for c in copies {
                    c.table(k)[i].store(merged, Relaxed);
                }
            }
        }
    }

    /// Asks `delta` of weight `i` of `weights`: it moves by `delta ·` [`coherence_rate`], and
    /// the sums take the change.
    #[inline(always)]
    fn add(&self, weights: &[AtomicU32], i: usize, delta: f32) {
        let (sum, size) = (&self.sums[i], &self.sizes[i]);
        let (e, a) = (read(sum), read(size));
        add(&weights[i], delta * coherence_rate(e, a));
        sum.store((e + delta).to_bits(), Relaxed);
        size.store((a + delta.abs()).to_bits(), Relaxed);
    }
}

/// Temporal coherence's rate for a weight whose changes so far sum to `sum` and whose
/// changes' sizes sum to `size`: `|sum| / size`, 1 before any change (see the module docs),
/// and never above 1. `|sum|` cannot pass `size` unless threads that share one table without
/// locks store one thread's sum beside another's size; a rate above 1 would then multiply the
/// weight's changes for as long as the two stay apart. Every trainer, CPU and device, computes
/// it so.
#[inline(always)]
pub fn coherence_rate(sum: f32, size: f32) -> f32 {
    if size > 0.0 {
        (sum.abs() / size).min(1.0)
    } else {
        1.0
    }
}

impl NTupleNetwork {
    /// An all-zero network for game `G` with these shapes (cells of `G`'s states; see
    /// [`shapes_for`]). Every shape is looked up in each of `G`'s symmetries.
    pub fn for_game<G: TupleGame>(shapes: &[Vec<u8>]) -> Result<Self> {
        Self::staged::<G>(shapes, &[])
    }

    /// [`Self::for_game`] with a stage after each of `thresholds` (stage-progress values, ascending:
    /// see the module docs), each stage with tables of its own.
    pub fn staged<G: TupleGame>(shapes: &[Vec<u8>], thresholds: &[u32]) -> Result<Self> {
        check_stages(thresholds)?;
        if shapes.is_empty() {
            return Err(Error::parse("an n-tuple network needs at least one shape"));
        }
        let (bits, symmetries) = (G::CELL_BITS, G::SYMMETRIES);
        if symmetries.is_empty() || symmetries.len() > MAX_SYMMETRIES {
            return Err(Error::Unsupported(format!(
                "{} has {} symmetries: a network takes 1 to {MAX_SYMMETRIES}",
                G::NAME,
                symmetries.len()
            )));
        }
        if !(shapes.len() * symmetries.len()).is_multiple_of(4) {
            return Err(Error::parse(format!(
                "{} shapes in {} symmetries make {} lookups: the sums take a multiple of 4",
                shapes.len(),
                symmetries.len(),
                shapes.len() * symmetries.len()
            )));
        }
        let mut lookups = Vec::new();
        let mut readers = Vec::new();
        let mut tables: Vec<std::ops::Range<usize>> = Vec::new();
        let (mut stage_stride, mut stage_len) = (0, 0);
        for shape in shapes {
            let bad = |why: &str| {
                Error::parse(format!(
                    "bad tuple shape {}: {why}",
                    format_shapes(std::slice::from_ref(shape))
                ))
            };
            if shape.is_empty() || shape.len() > MAX_TUPLE {
                return Err(bad(&format!("a shape has 1 to {MAX_TUPLE} cells")));
            }
            if shape.iter().any(|&c| c as usize >= G::CELLS) {
                return Err(bad(&format!(
                    "{} cells are numbered 0 to {}",
                    G::NAME,
                    G::CELLS - 1
                )));
            }
            let mut sorted = shape.clone();
            sorted.sort_unstable();
            sorted.dedup();
            if sorted.len() != shape.len() {
                return Err(bad("a cell appears twice"));
            }
            let index_bits = bits * shape.len() as u32;
            if index_bits > MAX_TABLE_BITS {
                return Err(bad(&format!(
                    "{} cells of {bits} bits need 2^{index_bits} weights; at most 2^{MAX_TABLE_BITS}",
                    shape.len()
                )));
            }
            let (offset, len) = (stage_stride, 1usize << index_bits);
            if (offset + len + TABLE_GAP) * (thresholds.len() + 1) > MAX_WEIGHTS {
                return Err(bad(&format!(
                    "more than {MAX_WEIGHTS} weights in all (tables and the gaps after them)"
                )));
            }
            for symmetry in symmetries {
                let mut cells = [0u8; MAX_TUPLE];
                for (j, &c) in shape.iter().enumerate() {
                    cells[j] = symmetry[c as usize];
                }
                lookups.push(Lookup {
                    offset: offset as u32,
                    packed: stage_len as u32,
                    len: shape.len() as u32,
                    cells,
                });
            }
            readers.push(ShapeReader::new(shape, offset, bits, G::CELLS_PER_WORD));
            tables.push(offset..offset + len);
            stage_stride = offset + len + TABLE_GAP;
            stage_len += len;
        }
        for stage in 1..=thresholds.len() {
            let base = stage * stage_stride;
            for t in 0..shapes.len() {
                let first = &tables[t];
                tables.push(base + first.start..base + first.end);
            }
        }
        let weights = WeightMemory::zeroed(stage_stride * (thresholds.len() + 1));
        Ok(NTupleNetwork {
            id: NEXT_ID.fetch_add(1, Relaxed),
            game: G::NAME.to_string(),
            bits,
            cells: G::CELLS,
            shapes: shapes.to_vec(),
            lookups,
            readers,
            weights,
            tables,
            stages: thresholds.to_vec(),
            stage_len,
            stage_stride,
            coherence: None,
        })
    }

    /// This network's number, unique in the process.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The name of the game the network evaluates (its `StochasticGame::NAME`).
    pub fn game(&self) -> &str {
        &self.game
    }

    /// Bits a cell in a table index.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The tuple shapes.
    pub fn shapes(&self) -> &[Vec<u8>] {
        &self.shapes
    }

    /// Weights read per evaluation (shapes × the game's symmetries).
    pub fn lookups(&self) -> usize {
        self.lookups.len()
    }

    /// Weights in all tables, and in the gaps between them (see [`TABLE_GAP`]): the bound
    /// of the weight indices [`Self::indices`] makes.
    pub fn weight_count(&self) -> usize {
        self.weights.len()
    }

    /// The stage progress at which each stage after the first begins (empty: one stage).
    pub fn stages(&self) -> &[u32] {
        &self.stages
    }

    /// This network split into the stages of `thresholds`, which keep its own thresholds and
    /// add others: each new stage starts from the weights of the stage whose states it takes
    /// (its coherence sums too), so every state is valued as before. A later stage thus begins
    /// with what the earlier game taught and learns its own from there (Yeh et al. grow each
    /// stage from the last; Jaśkowski's weight promotion), where a fresh stage would start
    /// from nothing in the few games that reach it.
    pub fn split_into_stages<G: TupleGame>(&self, thresholds: &[u32]) -> Result<Self> {
        if !self.stages.iter().all(|t| thresholds.contains(t)) {
            return Err(Error::parse(format!(
                "stage thresholds '{}' do not keep the network's own ({}): a network is split \
                 only by adding thresholds",
                format_stages(thresholds),
                format_stages(&self.stages)
            )));
        }
        self.check_game::<G>()?;
        let mut split = Self::staged::<G>(&self.shapes, thresholds)?;
        // New stage `k` takes the states from its threshold on, all in one old stage.
        let stride = self.stage_stride;
        let old_stages: Vec<usize> = std::iter::once(0)
            .chain(
                thresholds
                    .iter()
                    .map(|&new| self.stages.partition_point(|&t| t <= new)),
            )
            .collect();
        let copy = |from: &WeightMemory, to: &mut WeightMemory| {
            for (stage, old) in to.chunks_mut(stride).zip(&old_stages) {
                for (w, was) in stage.iter_mut().zip(&from[old * stride..]) {
                    *w.get_mut() = was.load(Relaxed);
                }
            }
        };
        copy(&self.weights, &mut split.weights);
        if let Some(own) = &self.coherence {
            split.enable_coherence();
            let theirs = split.coherence.as_mut().expect("enabled above");
            copy(&own.sums, &mut theirs.sums);
            copy(&own.sizes, &mut theirs.sizes);
        }
        Ok(split)
    }

    /// Weights of one stage's tables, packed as [`Self::lookup_layout`] lays them out: there
    /// stage `k`'s lookups read `k ·` this further on.
    pub fn stage_len(&self) -> usize {
        self.stage_len
    }

    /// Tables in all: the shapes' tables in every stage, stage after stage.
    pub fn tables(&self) -> usize {
        self.tables.len()
    }

    /// The stage of `state`: how many thresholds its [`TupleGame::stage_progress`] reaches.
    #[inline(always)]
    pub fn stage<G: TupleGame>(&self, game: &G, state: &G::State) -> usize {
        if self.stages.is_empty() {
            return 0;
        }
        let progress = game.stage_progress(state);
        self.stages.partition_point(|&t| t <= progress)
    }

    /// Where `state`'s stage's tables start in the weights.
    #[inline(always)]
    fn stage_base<G: TupleGame>(&self, game: &G, state: &G::State) -> u32 {
        (self.stage(game, state) * self.stage_stride) as u32
    }

    /// Where table `t` lies in the weights.
    fn table_range(&self, t: usize) -> std::ops::Range<usize> {
        self.tables[t].clone()
    }

    /// A network with the same shapes and weights (and its own [`Self::id`]).
    pub fn replica(&self) -> NTupleNetwork {
        let copy_of = |from: &WeightMemory| {
            let copy = WeightMemory::zeroed(from.len());
            for (c, w) in copy.iter().zip(from.iter()) {
                c.store(w.load(Relaxed), Relaxed);
            }
            copy
        };
        let weights = copy_of(&self.weights);
        let coherence = self.coherence.as_ref().map(|c| Coherence {
            sums: copy_of(&c.sums),
            sizes: copy_of(&c.sizes),
        });
        NTupleNetwork {
            id: NEXT_ID.fetch_add(1, Relaxed),
            game: self.game.clone(),
            bits: self.bits,
            cells: self.cells,
            shapes: self.shapes.clone(),
            lookups: self.lookups.clone(),
            readers: self.readers.clone(),
            weights,
            tables: self.tables.clone(),
            stages: self.stages.clone(),
            stage_len: self.stage_len,
            stage_stride: self.stage_stride,
            coherence,
        }
    }

    /// Over the weights in `range`: moves each weight by the mean change of the copies that
    /// changed it (summed in the copies' order), then sets every copy to the result. Each copy
    /// is a [`Self::replica`] of this network, learned on since it last equalled it; only the
    /// copies numbered in `learners` (in order) may have changed these weights.
    ///
    /// The mean, not the sum: copies that learned from the same common positions each moved
    /// those weights most of the way, and their sum overshoots (training diverged with it,
    /// docs/BENCHMARKS.md); a weight one copy alone changed keeps that copy's change. With
    /// temporal coherence, each weight's two sums take every copy's additions: they count
    /// every change asked of the weight.
    pub fn merge_copies(
        &self,
        copies: &[&NTupleNetwork],
        learners: &[usize],
        range: std::ops::Range<usize>,
    ) {
        for i in range.clone() {
            let base = read(&self.weights[i]);
            let (sum, changed) = learners.iter().fold((0.0, 0u32), |(sum, changed), &c| {
                let change = read(&copies[c].weights[i]) - base;
                (sum + change, changed + (change != 0.0) as u32)
            });
            let merged = (base + sum / changed.max(1) as f32).to_bits();
            self.weights[i].store(merged, Relaxed);
            for c in copies {
                c.weights[i].store(merged, Relaxed);
            }
        }
        if let Some(own) = &self.coherence {
            let theirs: Vec<&Coherence> = copies
                .iter()
                .map(|c| {
                    c.coherence
                        .as_ref()
                        .expect("a copy has its network's coherence")
                })
                .collect();
            own.merge(&theirs, learners, range);
        }
    }

    /// Turns temporal coherence on (see the module docs), every weight's sums at zero (its
    /// rate 1): the trainers then scale each change by its weight's rate.
    pub fn enable_coherence(&mut self) {
        self.coherence = Some(Coherence::zeroed(self.weights.len()));
    }

    /// Whether the network learns with temporal coherence.
    pub fn coherent(&self) -> bool {
        self.coherence.is_some()
    }

    /// Bytes of the weights and, with temporal coherence, of its sums: what a copy takes.
    pub fn memory_bytes(&self) -> usize {
        let tables = if self.coherent() { 3 } else { 1 };
        tables * self.weights.len() * std::mem::size_of::<f32>()
    }

    /// Table `t` as plain floats (a snapshot: other threads may be writing); `t` counts the
    /// shapes' tables stage after stage ([`Self::tables`]).
    pub fn table(&self, t: usize) -> Vec<f32> {
        floats(&self.weights[self.table_range(t)])
    }

    /// Temporal coherence's sums over table `t`, `E` then `A` (see the module docs), as
    /// [`Self::table`] gives its weights; `None` without coherence.
    pub fn coherence_table(&self, t: usize) -> Option<[Vec<f32>; 2]> {
        let range = self.table_range(t);
        let c = self.coherence.as_ref()?;
        Some([&c.sums, &c.sizes].map(|m| floats(&m[range.clone()])))
    }

    /// Temporal coherence's sums of every table, `E`'s tables then `A`'s, each as
    /// [`Self::coherence_table`] gives it; `None` without coherence.
    pub fn coherence_tables(&self) -> Option<[Vec<Vec<f32>>; 2]> {
        let c = self.coherence.as_ref()?;
        Some([&c.sums, &c.sizes].map(|m| {
            (0..self.tables())
                .map(|t| floats(&m[self.table_range(t)]))
                .collect()
        }))
    }

    /// [`Self::set_coherence_table`] for every table: `sums[t]` and `sizes[t]` are table `t`'s.
    pub fn set_coherence_tables(&mut self, sums: &[Vec<f32>], sizes: &[Vec<f32>]) {
        for (t, (e, a)) in sums.iter().zip(sizes).enumerate() {
            self.set_coherence_table(t, e, a);
        }
    }

    /// Overwrites temporal coherence's sums over table `t` (each as long as the table),
    /// turning coherence on first if it is off (every other weight's sums at zero).
    pub fn set_coherence_table(&mut self, t: usize, sums: &[f32], sizes: &[f32]) {
        if self.coherence.is_none() {
            self.enable_coherence();
        }
        let range = self.table_range(t);
        let c = self.coherence.as_mut().expect("enabled above");
        for (memory, values) in [(&mut c.sums, sums), (&mut c.sizes, sizes)] {
            for (w, v) in memory[range.clone()].iter_mut().zip(values) {
                *w.get_mut() = v.to_bits();
            }
        }
    }

    /// Overwrites table `t` (which must have the same length).
    pub fn set_table(&mut self, t: usize, values: impl Iterator<Item = f32>) {
        let range = self.table_range(t);
        for (w, v) in self.weights[range].iter_mut().zip(values) {
            *w.get_mut() = v.to_bits();
        }
    }

    /// Sets every weight to `value`.
    pub fn fill(&mut self, value: f32) {
        for w in self.weights.iter_mut() {
            *w.get_mut() = value.to_bits();
        }
    }

    /// Fails unless the network was made for game `G`.
    pub fn check_game<G: TupleGame>(&self) -> Result<()> {
        if self.game != G::NAME || self.bits != G::CELL_BITS || self.cells != G::CELLS {
            return Err(Error::Unsupported(format!(
                "the network evaluates {} boards, not {}",
                self.game,
                G::NAME
            )));
        }
        Ok(())
    }

    /// Every lookup in the order V sums them (shape by shape, the game's symmetries in order
    /// within a shape): its table's offset in the tables packed one after another (in stage
    /// 0: a later stage adds its [`Self::stage_len`]s) and the state's cells that make its
    /// index, first cell lowest. The one list every reader of the network follows: the CPU's
    /// own readers (which add the gaps between its tables), and the device kernels, which
    /// get it as data with the tables packed.
    pub fn lookup_layout(&self) -> Vec<(u32, Vec<u8>)> {
        self.lookups
            .iter()
            .map(|l| (l.packed, l.cells[..l.len as usize].to_vec()))
            .collect()
    }

    /// The weight index of each lookup (in lookup order) on a state of stage `stage` given as
    /// its cell values ([`TupleGame::cells`]): the reference for [`Self::indices`].
    pub fn cell_indices(&self, cells: &[u8], stage: usize, out: &mut [u32]) {
        assert!(
            stage <= self.stages.len(),
            "stage {stage} of a network of fewer"
        );
        let base = (stage * self.stage_stride) as u32;
        for (l, o) in self.lookups.iter().zip(out) {
            *o = base + l.cell_index(cells, self.bits);
        }
    }

    /// Weight `i` of the flat weights.
    #[inline(always)]
    fn weight(&self, i: u32) -> f32 {
        read(&self.weights[i as usize])
    }

    /// [`Self::weight`] without the bounds check: the trainer reads ~170 weights a move, each
    /// check a compare and branch (a fifth of its instructions, docs/BENCHMARKS.md).
    ///
    /// # Safety
    /// `i` is below [`Self::weight_count`], as every index that [`Self::indices_of`] makes is.
    #[inline(always)]
    unsafe fn weight_unchecked(&self, i: u32) -> f32 {
        // SAFETY: the caller's promise.
        read(unsafe { self.weights.get_unchecked(i as usize) })
    }

    /// V from the weight indices of a board's lookups (in the module's summation order).
    #[inline]
    pub fn value_at(&self, indices: &[u32]) -> f32 {
        sum_lookups(indices, |i| self.weight(i))
    }

    /// [`Self::value_at`] without bounds checks, reading as `reads` says.
    ///
    /// # Safety
    /// Every index is below [`Self::weight_count`] (made by [`Self::indices_of`], say), and
    /// `reads` was made by [`WeightReads::new`] under its promise.
    #[inline(always)]
    pub(crate) unsafe fn value_at_unchecked(&self, indices: &[u32], reads: WeightReads) -> f32 {
        match reads {
            // SAFETY: the caller's promises.
            // The gather takes eight lookups at a time.
            #[cfg(target_arch = "x86_64")]
            WeightReads::Gather if indices.len().is_multiple_of(8) => unsafe {
                gather::sum_lookups(self.weights.as_ptr(), indices)
            },
            // SAFETY: the caller's promise.
            _ => sum_lookups(indices, |i| unsafe { self.weight_unchecked(i) }),
        }
    }

    /// V of four boards from their weight indices as [`Self::indices_of`] lays them out
    /// (lookup by lookup, the four boards' side by side), each summed as [`Self::value_at`]
    /// does; the sixteen partial sums go step by step together, so their weight loads overlap.
    #[inline(always)]
    pub fn values_at(&self, indices: &[u32]) -> [f32; 4] {
        sum_four_boards(indices, [true; 4], |i| self.weight(i))
    }

    /// [`Self::values_at`] of the boards `wanted` names, without bounds checks, reading as
    /// `reads` says; the others read no weight and are 0.0 (the trainer values an illegal
    /// move's board for nothing, and a quarter of the reads or more were those).
    ///
    /// # Safety
    /// As for [`Self::value_at_unchecked`], for the wanted boards' indices.
    #[inline(always)]
    pub(crate) unsafe fn values_at_unchecked(
        &self,
        indices: &[u32],
        wanted: [bool; 4],
        reads: WeightReads,
    ) -> [f32; 4] {
        match reads {
            // SAFETY: the caller's promises.
            #[cfg(target_arch = "x86_64")]
            WeightReads::Gather => unsafe {
                gather::sum_four_boards(self.weights.as_ptr(), indices, wanted)
            },
            // SAFETY: the caller's promise.
            WeightReads::OneByOne => {
                sum_four_boards(indices, wanted, |i| unsafe { self.weight_unchecked(i) })
            }
        }
    }

    /// Adds `delta` to the weight of each lookup in turn (two lookups may share a weight: the
    /// second adds to the first's result), scaled by each weight's rate with temporal
    /// coherence.
    #[inline]
    pub fn update_at(&self, indices: &[u32], delta: f32) {
        match &self.coherence {
            None => {
                for &i in indices {
                    add(&self.weights[i as usize], delta);
                }
            }
            Some(c) => {
                for &i in indices {
                    c.add(&self.weights, i as usize, delta);
                }
            }
        }
    }

    /// [`Self::update_at`] without bounds checks.
    ///
    /// # Safety
    /// Every index is below [`Self::weight_count`] (made by [`Self::indices_of`], say).
    #[inline(always)]
    pub(crate) unsafe fn update_at_unchecked(&self, indices: &[u32], delta: f32) {
        if self.coherence.is_some() {
            // The rare path: bounds checks cost little next to its three tables.
            return self.update_at(indices, delta);
        }
        for &i in indices {
            // SAFETY: the caller's promise.
            add(unsafe { self.weights.get_unchecked(i as usize) }, delta);
        }
    }

    /// V of a state of stage `stage` given as its cell values (the reference for
    /// [`Self::value`]).
    pub fn value_cells(&self, cells: &[u8], stage: usize) -> f32 {
        self.value_at(&self.cell_indices_vec(cells, stage))
    }

    /// Adds `delta` to every weight that V of this state reads (the reference for
    /// [`Self::update`]).
    pub fn update_cells(&self, cells: &[u8], stage: usize, delta: f32) {
        self.update_at(&self.cell_indices_vec(cells, stage), delta);
    }

    /// [`Self::cell_indices`] into a new vector.
    fn cell_indices_vec(&self, cells: &[u8], stage: usize) -> Vec<u32> {
        let mut indices = vec![0; self.lookups()];
        self.cell_indices(cells, stage, &mut indices);
        indices
    }

    /// Calls `f` with the weight indices of each shape's lookups of `state`, shape by shape
    /// (so lookup by lookup in lookup order).
    #[inline(always)]
    fn for_each_shape<G: TupleGame>(&self, game: &G, state: G::State, mut f: impl FnMut(&[u32])) {
        debug_assert_eq!(self.bits, G::CELL_BITS);
        let stage = [self.stage_base(game, &state)];
        let views = game.views([state]);
        let mut some = [0; MAX_SYMMETRIES];
        let some = &mut some[..G::SYMMETRIES.len()];
        for reader in &self.readers {
            reader.indices::<G, 1>(&views, &stage, some);
            f(some);
        }
    }

    /// The weight index of each lookup of `state` (in lookup order) into `out`, which holds
    /// [`Self::lookups`] of them.
    #[inline]
    pub fn indices<G: TupleGame>(&self, game: &G, state: G::State, out: &mut [u32]) {
        self.indices_of::<G, 1>(game, [state], out)
    }

    /// The weight indices of `N` states at once into `out` (`N ×` [`Self::lookups`] long),
    /// lookup by lookup in lookup order, the states' side by side: state `i`'s index of
    /// lookup `l` at `N·l + i`. One pass makes them all, vector instructions working on the
    /// states together.
    #[inline(always)]
    pub fn indices_of<G: TupleGame, const N: usize>(
        &self,
        game: &G,
        states: [G::State; N],
        out: &mut [u32],
    ) {
        debug_assert_eq!(self.bits, G::CELL_BITS);
        let stage = states.map(|s| self.stage_base(game, &s));
        let views = game.views(states);
        let per_shape = G::SYMMETRIES.len() * N;
        for (reader, out) in self.readers.iter().zip(out.chunks_exact_mut(per_shape)) {
            reader.indices::<G, N>(&views, &stage, out);
        }
    }

    /// V of a state of game `G` (the network must be made for `G`).
    #[inline]
    pub fn value<G: TupleGame>(&self, game: &G, state: G::State) -> f32 {
        let mut sums = PartialSums::default();
        let mut at = 0;
        self.for_each_shape(game, state, |indices| {
            sums.add_lookups_from(at, indices, |i| self.weight(i));
            at += indices.len();
        });
        sums.total()
    }

    /// Adds `delta` to every weight that V of `state` reads.
    #[inline]
    pub fn update<G: TupleGame>(&self, game: &G, state: G::State, delta: f32) {
        self.for_each_shape(game, state, |indices| self.update_at(indices, delta));
    }
}

impl<G: TupleGame> cubesearch_core::AfterstateValue<G> for NTupleNetwork {
    #[inline]
    fn value(&self, game: &G, afterstate: &G::State) -> f32 {
        NTupleNetwork::value(self, game, *afterstate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Cells16, Cells16Game};
    use cubesearch_core::rng::XorShift32;

    /// The trainer's reads (gathers where the CPU has AVX2) sum the same floats in the same
    /// order as the checked one-by-one reads, bit for bit, on random weights and states.
    fn check_trainer_reads<const BITS: u32>(shapes: &[Vec<u8>], stages: &[u32]) {
        let game = Cells16Game::<BITS>;
        let mut net = NTupleNetwork::staged::<Cells16Game<BITS>>(shapes, stages).unwrap();
        let mut rng = XorShift32::for_worker(5, 0);
        for t in 0..net.tables() {
            let len = net.table_range(t).len();
            // Magnitudes from 1e-3 to 1e3 of both signs: the order of the additions shows.
            let values: Vec<f32> = (0..len)
                .map(|_| (rng.below(2001) as f32 - 1000.0) * 10f32.powi(rng.below(7) as i32 - 3))
                .collect();
            net.set_table(t, values.into_iter());
        }
        #[cfg(target_arch = "x86_64")]
        let avx2 = std::arch::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let avx2 = false;
        // SAFETY: `avx2` is what the CPU has.
        let reads = unsafe { WeightReads::new(avx2) };
        let mut four = vec![0; 4 * net.lookups()];
        for _ in 0..300 {
            let states: [Cells16; 4] = std::array::from_fn(|_| {
                Cells16(std::array::from_fn(|_| rng.below(1 << BITS) as u8))
            });
            net.indices_of(&game, states, &mut four);
            // SAFETY: `indices_of` made every index; `reads` as above.
            let fast = unsafe { net.values_at_unchecked(&four, [true; 4], reads) };
            let all = net.values_at(&four);
            assert_eq!(fast.map(f32::to_bits), all.map(f32::to_bits));
            // Some boards only: theirs alike, the others 0.0.
            let wanted: [bool; 4] = std::array::from_fn(|_| rng.below(2) == 1);
            // SAFETY: as above.
            let some = unsafe { net.values_at_unchecked(&four, wanted, reads) };
            for k in 0..4 {
                let want = if wanted[k] { all[k] } else { 0.0 };
                assert_eq!(some[k].to_bits(), want.to_bits(), "board {k} of {wanted:?}");
            }
            for (k, state) in states.into_iter().enumerate() {
                let one: Vec<u32> = four.chunks_exact(4).map(|f| f[k]).collect();
                // SAFETY: as above.
                let fast = unsafe { net.value_at_unchecked(&one, reads) };
                assert_eq!(fast.to_bits(), net.value(&game, state).to_bits());
                let stage = net.stage(&game, &state);
                assert_eq!(fast.to_bits(), net.value_cells(&state.0, stage).to_bits());
            }
        }
    }

    #[test]
    fn trainer_reads_sum_like_the_checked_reads() {
        let seed = parse_shapes("0,1,2,3;4,5,6,7;0,1,4,5").unwrap();
        check_trainer_reads::<5>(&seed, &[]);
        check_trainer_reads::<4>(&seed, &[]);
        check_trainer_reads::<4>(&parse_shapes("0,1,2,3,4,5;5,9").unwrap(), &[]);
        // Three stages: a state's stage is how many of 14 and 15 its largest cell reaches.
        check_trainer_reads::<4>(&seed, &[14, 15]);
    }

    #[test]
    fn a_network_past_the_weight_limit_is_refused_before_it_is_made() {
        // Eight 7-cell tables of 4-bit cells: 2^31 weights, and their gaps past the limit.
        let shapes: Vec<Vec<u8>> = (0..8).map(|k| (k..k + 7).collect()).collect();
        let err = NTupleNetwork::staged::<Cells16Game<4>>(&shapes, &[]).unwrap_err();
        assert!(err.to_string().contains("weights in all"), "{err}");
        // Four fit in one stage (2^30 weights); two stages of them do not.
        let err = NTupleNetwork::staged::<Cells16Game<4>>(&shapes[..4], &[1]).unwrap_err();
        assert!(err.to_string().contains("weights in all"), "{err}");
    }

    #[test]
    fn a_state_reads_the_tables_of_its_stage() {
        let game = Cells16Game::<4>;
        let shapes = parse_shapes("0,1,2,3;4,5,6,7").unwrap();
        let net = NTupleNetwork::staged::<Cells16Game<4>>(&shapes, &[6, 9]).unwrap();
        assert_eq!((net.tables(), net.stage_len()), (6, 2 * 65536));
        // Each table followed by its gap, in each stage.
        assert_eq!(net.weight_count(), 3 * (2 * 65536 + 2 * TABLE_GAP));
        let per_shape = net.lookups() / shapes.len();
        let mut indices = vec![0; net.lookups()];
        for (top, stage) in [(0, 0), (5, 0), (6, 1), (8, 1), (9, 2), (15, 2)] {
            let mut cells = [1u8; 16];
            cells[10] = top;
            let state = Cells16(cells);
            assert_eq!(net.stage(&game, &state), stage, "largest cell {top}");
            net.indices(&game, state, &mut indices);
            // Every lookup lands in its stage's copy of its own table.
            for (l, &i) in indices.iter().enumerate() {
                let table = net.table_range(stage * shapes.len() + l / per_shape);
                assert!(table.contains(&(i as usize)), "lookup {l} in stage {stage}");
            }
        }
        for bad in [&[0][..], &[9, 6], &[6, 6], &[1, 2, 3, 4, 5, 6, 7, 8]] {
            assert!(NTupleNetwork::staged::<Cells16Game<4>>(&shapes, bad).is_err());
        }
    }
}
