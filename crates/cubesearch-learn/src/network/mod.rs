//! The n-tuple network: V(s) = Σ weights, one weight per (tuple shape, symmetry) lookup.
//!
//! The sum has one fixed order, which every CPU and device path keeps so that they agree bit
//! for bit: lookup `l` goes into partial sum `l mod 4` (each partial sum adding its lookups in
//! order, from 0.0), and V = (s₀ + s₁) + (s₂ + s₃). Four short chains of additions instead of
//! one long one: the backward TD pass waits on each sum before the next update, and the
//! candidates of a move sum side by side. A network's lookups (shapes × symmetries) must be a
//! multiple of 4.
//!
//! A *shape* is a list of the game's cells ([`TupleBoard`]: a 4×4 board numbers them 0..16, row
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
//! [`TupleBoard::stage_progress`] reaches, and its lookups read that stage's copy,
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

mod coherence;
mod lookup;
mod merge;
mod shapes;
mod sums;

pub use coherence::coherence_rate;
pub use shapes::{
    check_stages, default_shapes, format_shapes, format_stages, parse_shapes, parse_stages,
    shapes_for, MAX_STAGES, MAX_SYMMETRIES, MAX_TABLE_BITS, MAX_TUPLE, MAX_WEIGHTS, TABLE_GAP,
};
pub(crate) use sums::WeightReads;

use crate::game::{TupleBoard, TupleGame};
#[cfg(target_arch = "x86_64")]
use crate::gather;
use crate::memory::WeightMemory;
use coherence::Coherence;
use cubesearch_core::{Error, Result};
use lookup::{Lookup, ShapeReader};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use sums::{add, floats, read, sum_four_boards, sum_lookups, PartialSums};

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

impl NTupleNetwork {
    /// An all-zero network for game `G` with these shapes (cells of `G`'s states; see
    /// [`shapes_for`]). Every shape is looked up in each of `G`'s symmetries.
    pub fn for_game<G: TupleBoard>(shapes: &[Vec<u8>]) -> Result<Self> {
        Self::staged::<G>(shapes, &[])
    }

    /// [`Self::for_game`] with a stage after each of `thresholds` (stage-progress values, ascending:
    /// see the module docs), each stage with tables of its own.
    pub fn staged<G: TupleBoard>(shapes: &[Vec<u8>], thresholds: &[u32]) -> Result<Self> {
        check_stages(thresholds)?;
        if shapes.is_empty() {
            return Err(Error::parse("an n-tuple network needs at least one shape"));
        }
        let (bits, symmetries) = (G::CELL_BITS, G::SYMMETRIES);
        if symmetries.is_empty() || symmetries.len() > MAX_SYMMETRIES {
            return Err(Error::Unsupported(format!(
                "{} has {} symmetries: a network takes 1 to {MAX_SYMMETRIES}",
                G::GAME,
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
                    G::GAME,
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
        let weights = WeightMemory::zeroed(stage_stride * (thresholds.len() + 1))?;
        Ok(NTupleNetwork {
            id: NEXT_ID.fetch_add(1, Relaxed),
            game: G::GAME.to_string(),
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

    /// The name of the game the network evaluates (its [`TupleBoard::GAME`]).
    pub fn game(&self) -> &str {
        &self.game
    }

    /// Bits a cell in a table index.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// Refuses a network the trainers cannot learn: shapes of different sizes. Evaluation
    /// takes any mix, but the GPU trainer reads every lookup with one loop of one length, and
    /// the CPU trainer, its oracle, takes the same networks, so that a run can move between
    /// them. Both call this before their first game.
    pub fn check_trainable(&self) -> Result<()> {
        let shapes = self.shapes();
        match shapes.iter().find(|s| s.len() != shapes[0].len()) {
            None => Ok(()),
            Some(other) => Err(Error::parse(format!(
                "tuple shapes {} and {} differ in size: the trainers take shapes that all have \
                 the same number of cells",
                format_shapes(std::slice::from_ref(&shapes[0])),
                format_shapes(std::slice::from_ref(other))
            ))),
        }
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
    pub fn split_into_stages<G: TupleBoard>(&self, thresholds: &[u32]) -> Result<Self> {
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
            split.enable_coherence()?;
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

    /// The stage of `state`: how many thresholds its [`TupleBoard::stage_progress`] reaches.
    #[inline(always)]
    pub fn stage<G: TupleBoard>(&self, game: &G, state: &G::Board) -> usize {
        if self.stages.is_empty() {
            return 0;
        }
        let progress = game.stage_progress(state);
        self.stages.partition_point(|&t| t <= progress)
    }

    /// Where `state`'s stage's tables start in the weights.
    #[inline(always)]
    fn stage_base<G: TupleBoard>(&self, game: &G, state: &G::Board) -> u32 {
        (self.stage(game, state) * self.stage_stride) as u32
    }

    /// Where table `t` lies in the weights.
    fn table_range(&self, t: usize) -> std::ops::Range<usize> {
        self.tables[t].clone()
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
    pub fn check_game<G: TupleBoard>(&self) -> Result<()> {
        if self.game != G::GAME || self.bits != G::CELL_BITS || self.cells != G::CELLS {
            return Err(Error::Unsupported(format!(
                "the network evaluates {} boards, not {}",
                self.game,
                G::GAME
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
    /// its cell values ([`TupleBoard::cells`]): the reference for [`Self::indices`].
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
    /// check a compare and branch (a fifth of its instructions).
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
            WeightReads::Gather { .. } if indices.len().is_multiple_of(8) => unsafe {
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
            WeightReads::Gather { prefetch } => unsafe {
                if prefetch {
                    gather::prefetch_four_boards(self.weights.as_ptr(), indices, wanted);
                }
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
    fn for_each_shape<G: TupleBoard>(&self, game: &G, state: G::Board, mut f: impl FnMut(&[u32])) {
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
    pub fn indices<G: TupleBoard>(&self, game: &G, state: G::Board, out: &mut [u32]) {
        self.indices_of::<G, 1>(game, [state], out)
    }

    /// The weight indices of `N` states at once into `out` (`N ×` [`Self::lookups`] long),
    /// lookup by lookup in lookup order, the states' side by side: state `i`'s index of
    /// lookup `l` at `N·l + i`. One pass makes them all, vector instructions working on the
    /// states together.
    #[inline(always)]
    pub fn indices_of<G: TupleBoard, const N: usize>(
        &self,
        game: &G,
        states: [G::Board; N],
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
    pub fn value<G: TupleBoard>(&self, game: &G, state: G::Board) -> f32 {
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
    pub fn update<G: TupleBoard>(&self, game: &G, state: G::Board, delta: f32) {
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

    /// The trainer's reads (gathers where the CPU has AVX2, prefetched or not) sum the same
    /// floats in the same order as the checked one-by-one reads, bit for bit, on random
    /// weights and states.
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
        let mut every = vec![unsafe { WeightReads::new(avx2) }];
        // Gathers with and without the prefetch, whichever this CPU's vendor gets.
        #[cfg(target_arch = "x86_64")]
        if avx2 {
            every = [false, true]
                .map(|prefetch| WeightReads::Gather { prefetch })
                .to_vec();
        }
        let mut four = vec![0; 4 * net.lookups()];
        for reads in (0..300).flat_map(|_| every.iter().copied()) {
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
    fn shapes_of_different_sizes_evaluate_but_are_not_trainable() {
        let mixed =
            NTupleNetwork::for_game::<Cells16Game<4>>(&parse_shapes("0,1,2,3;4,5").unwrap())
                .unwrap();
        let err = mixed.check_trainable().unwrap_err();
        assert!(
            err.to_string()
                .contains("tuple shapes 0,1,2,3 and 4,5 differ in size"),
            "{err}"
        );
        let even = parse_shapes("0,1,2,3;4,5,6,7").unwrap();
        NTupleNetwork::for_game::<Cells16Game<4>>(&even)
            .unwrap()
            .check_trainable()
            .unwrap();
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
