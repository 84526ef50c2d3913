//! The n-tuple network: V(s) = Σ weights, one weight per (tuple shape, symmetry) lookup.
//!
//! The sum has one fixed order, which every CPU and device path keeps so that they agree bit
//! for bit: lookup `l` goes into partial sum `l mod 4` (each partial sum adding its lookups in
//! order, from 0.0), and V = (s₀ + s₁) + (s₂ + s₃). Four short chains of additions instead of
//! one long one: the backward TD pass waits on each sum before the next update, and the
//! candidates of a move sum side by side. A network has 8 lookups a shape, so a multiple of 4.
//!
//! A *shape* is a list of cell indices (0..16, row by row from the top-left). Each shape is
//! looked up in all 8 symmetries of the board (rotations and reflections), the 8 lookups sharing
//! that shape's weight table. The table index of a lookup reads the tile index of each of the
//! shape's cells, `bits` bits each, first cell in the low bits: 2584 (5 bits a cell) gives
//! 32⁴ ≈ 1M entries for a 4-tuple, 2048 (4 bits) 16⁴ = 65536 (16⁶ ≈ 16.8M for a 6-tuple).
//!
//! Weights are `AtomicU32`s holding `f32` bits. Reads and writes are `Relaxed` loads and stores
//! (plain moves on x86), so game-parallel trainers share one table without locks and without
//! undefined behaviour; two threads updating one weight at once may lose one of the updates,
//! which the seed (section 4.3) accepts as rare and harmless.

#[cfg(target_arch = "x86_64")]
use crate::gather;
use cubesearch_core::{Error, Result};
use cubesearch_games::fib::{symmetry_cell, Board, BoardOf, HalfLanes, TileRule};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

/// Most cells in one tuple.
pub const MAX_TUPLE: usize = 8;
/// Most index bits of one table (2^28 weights, 1 GiB).
pub const MAX_TABLE_BITS: u32 = 28;
/// Most weights in all tables together (16 GiB): a weight's index is a `u32`.
pub const MAX_WEIGHTS: usize = 1 << 32;

/// The seed's three 4-tuples (outer row, inner row, 2×2 corner square): the default for both
/// games.
pub fn seed_shapes() -> Vec<Vec<u8>> {
    vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7], vec![0, 1, 4, 5]]
}

/// Four 6-tuples for 2048 (2×3 rectangles and 3+3 steps along the edge, after Jaśkowski's
/// and Yeh et al.'s 2048 players): 16⁶ weights each, 256 MiB in all.
pub fn six_tuple_shapes() -> Vec<Vec<u8>> {
    vec![
        vec![0, 1, 2, 3, 4, 5],
        vec![4, 5, 6, 7, 8, 9],
        vec![0, 1, 2, 4, 5, 6],
        vec![4, 5, 6, 8, 9, 10],
    ]
}

/// Reads shapes written as `0,1,2,3;4,5,6,7`, or the presets `seed` and `6tuple`.
pub fn parse_shapes(text: &str) -> Result<Vec<Vec<u8>>> {
    match text.trim() {
        "seed" | "4tuple" => return Ok(seed_shapes()),
        "6tuple" => return Ok(six_tuple_shapes()),
        _ => {}
    }
    text.split(';')
        .map(|shape| {
            shape
                .split(',')
                .map(|c| {
                    c.trim().parse::<u8>().map_err(|_| {
                        Error::parse(format!(
                            "bad tuple shapes '{text}': expected cell lists like 0,1,2,3;4,5,6,7 (or seed, 6tuple)"
                        ))
                    })
                })
                .collect()
        })
        .collect()
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

/// One table lookup: where its table starts in the weights, and which board cells make its
/// index.
#[derive(Clone, Copy, Debug)]
struct Lookup {
    offset: u32,
    len: u32,
    cells: [u8; MAX_TUPLE],
}

impl Lookup {
    /// The weight this lookup reads on a board given as its 16 tile indices, `bits` bits a cell.
    #[inline(always)]
    fn cell_index(&self, cells: &[u8; 16], bits: u32) -> u32 {
        let mut idx = 0;
        for j in 0..self.len as usize {
            idx |= (cells[self.cells[j] as usize] as u32) << (bits * j as u32);
        }
        self.offset + idx
    }
}

/// A run of consecutive board cells within a shape, all in one half of the board (cells
/// 0..8 or 8..16, see [`Board::halves`]): one shift and mask reads it, the same for every view
/// of every board.
#[derive(Clone, Copy, Debug)]
struct Run {
    half: usize,
    /// The bit of the run's first cell within its half.
    shift: u32,
    mask: u64,
    /// The bit of the run's first cell within the table index.
    to: u32,
}

/// How to read one shape's 8 lookups straight from the board's symmetric views (see
/// [`Board::symmetric_views`]): symmetry `s` reads the shape's own cells of view `s`.
#[derive(Clone, Debug)]
struct ShapeReader {
    offset: u32,
    runs: Vec<Run>,
}

impl ShapeReader {
    fn new(shape: &[u8], offset: usize, bits: u32) -> Self {
        let cell_mask = (1 << bits) - 1;
        let mut runs: Vec<Run> = Vec::new();
        for (j, &c) in shape.iter().enumerate() {
            let (half, shift, to) = (c as usize / 8, (c as u32 % 8) * bits, j as u32 * bits);
            match runs.last_mut() {
                // The next cell of the same half, next in the index too: the run grows.
                Some(run) if run.half == half && run.shift + run.mask.count_ones() == shift => {
                    run.mask = run.mask << bits | cell_mask;
                }
                _ => runs.push(Run {
                    half,
                    shift,
                    mask: cell_mask,
                    to,
                }),
            }
        }
        ShapeReader {
            offset: offset as u32,
            runs,
        }
    }

    /// The weight indices of this shape's 8 lookups on `N` boards into `out`, symmetry by
    /// symmetry, the boards' side by side, from the boards' [`Board::symmetric_views`].
    #[inline(always)]
    fn indices<const N: usize>(&self, views: &[HalfLanes<N>; 8], out: &mut [u32]) {
        let mut idx = [[0u64; N]; 8];
        for run in &self.runs {
            for (idx, view) in idx.iter_mut().zip(views) {
                for (i, &x) in idx.iter_mut().zip(&view[run.half]) {
                    *i |= (x >> run.shift & run.mask) << run.to;
                }
            }
        }
        for (o, &i) in out.iter_mut().zip(idx.as_flattened()) {
            *o = self.offset + i as u32;
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
fn sum_four_boards(indices: &[u32], weight: impl Fn(u32) -> f32) -> [f32; 4] {
    let mut sums = [PartialSums::default(); 4];
    // Four lookups of the four boards: board i's lookup 4q + k at 16q + 4k + i.
    for sixteen in indices.chunks_exact(16) {
        for (i, sums) in sums.iter_mut().enumerate() {
            sums.add([0, 1, 2, 3].map(|k| weight(sixteen[4 * k + i])));
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
    shapes: Vec<Vec<u8>>,
    lookups: Vec<Lookup>,
    /// The lookups again, shape by shape, as [`Self::indices`] reads them.
    readers: Vec<ShapeReader>,
    /// Every table, one after another: a weight is one `u32` index into one slice.
    weights: Box<[AtomicU32]>,
    /// Where each table starts in `weights`, and the end.
    table_starts: Vec<usize>,
}

impl NTupleNetwork {
    /// An all-zero network for `game` (cells of `bits` bits) with these shapes.
    pub fn new(game: &str, bits: u32, shapes: &[Vec<u8>]) -> Result<Self> {
        if shapes.is_empty() {
            return Err(Error::parse("an n-tuple network needs at least one shape"));
        }
        let mut lookups = Vec::new();
        let mut readers = Vec::new();
        let mut table_starts = vec![0usize];
        for (t, shape) in shapes.iter().enumerate() {
            let bad = |why: &str| {
                Error::parse(format!(
                    "bad tuple shape {}: {why}",
                    format_shapes(std::slice::from_ref(shape))
                ))
            };
            if shape.is_empty() || shape.len() > MAX_TUPLE {
                return Err(bad(&format!("a shape has 1 to {MAX_TUPLE} cells")));
            }
            if shape.iter().any(|&c| c >= 16) {
                return Err(bad("cells are numbered 0 to 15"));
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
            let offset = table_starts[t];
            let end = offset + (1usize << index_bits);
            if end > MAX_WEIGHTS {
                return Err(bad(&format!("more than {MAX_WEIGHTS} weights in all")));
            }
            for s in 0..8 {
                let mut cells = [0u8; MAX_TUPLE];
                for (j, &c) in shape.iter().enumerate() {
                    cells[j] = symmetry_cell(s, c as usize) as u8;
                }
                lookups.push(Lookup {
                    offset: offset as u32,
                    len: shape.len() as u32,
                    cells,
                });
            }
            readers.push(ShapeReader::new(shape, offset, bits));
            table_starts.push(end);
        }
        let weights = (0..table_starts[shapes.len()])
            .map(|_| AtomicU32::new(0))
            .collect();
        Ok(NTupleNetwork {
            id: NEXT_ID.fetch_add(1, Relaxed),
            game: game.to_string(),
            bits,
            shapes: shapes.to_vec(),
            lookups,
            readers,
            weights,
            table_starts,
        })
    }

    /// An all-zero network for game `R`.
    pub fn for_game<R: TileRule>(shapes: &[Vec<u8>]) -> Result<Self> {
        Self::new(R::NAME, R::BITS, shapes)
    }

    /// This network's number, unique in the process.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The game the network evaluates (`2584`, `2048`).
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

    /// Weights read per evaluation (shapes × 8 symmetries).
    pub fn lookups(&self) -> usize {
        self.lookups.len()
    }

    /// Every lookup V sums, in its order: where its table starts in the weights (all tables
    /// one after another, as [`Self::table`] numbers them) and the cells it reads, each shape
    /// in its 8 symmetries. Device kernels evaluate the network from this list as it is.
    pub fn lookup_layout(&self) -> Vec<(u32, Vec<u8>)> {
        self.lookups
            .iter()
            .map(|l| (l.offset, l.cells[..l.len as usize].to_vec()))
            .collect()
    }

    /// Every weight in all tables.
    pub fn weight_count(&self) -> usize {
        self.weights.len()
    }

    /// Where table `t` lies in the weights.
    fn table_range(&self, t: usize) -> std::ops::Range<usize> {
        self.table_starts[t]..self.table_starts[t + 1]
    }

    /// A network with the same shapes and weights (and its own [`Self::id`]).
    pub fn replica(&self) -> NTupleNetwork {
        let weights = self
            .weights
            .iter()
            .map(|w| AtomicU32::new(w.load(Relaxed)))
            .collect();
        NTupleNetwork {
            id: NEXT_ID.fetch_add(1, Relaxed),
            game: self.game.clone(),
            bits: self.bits,
            shapes: self.shapes.clone(),
            lookups: self.lookups.clone(),
            readers: self.readers.clone(),
            weights,
            table_starts: self.table_starts.clone(),
        }
    }

    /// Over the weights in `range`: moves each weight by the mean change of the copies that
    /// changed it (summed in the copies' order), then sets every copy to the result. Each copy
    /// is a [`Self::replica`] of this network, learned on since it last equalled it; only the
    /// copies numbered in `learners` (in order) may have changed these weights.
    ///
    /// The mean, not the sum: copies that learned from the same common positions each moved
    /// those weights most of the way, and their sum overshoots (training diverged with it,
    /// docs/BENCHMARKS.md); a weight one copy alone changed keeps that copy's change.
    pub fn merge_copies(
        &self,
        copies: &[&NTupleNetwork],
        learners: &[usize],
        range: std::ops::Range<usize>,
    ) {
        for i in range {
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
    }

    /// Table `t` as plain floats (a snapshot: other threads may be writing).
    pub fn table(&self, t: usize) -> Vec<f32> {
        self.weights[self.table_range(t)]
            .iter()
            .map(|w| f32::from_bits(w.load(Relaxed)))
            .collect()
    }

    /// Overwrites table `t` (which must have the same length).
    pub fn set_table(&mut self, t: usize, values: impl Iterator<Item = f32>) {
        let range = self.table_range(t);
        for (w, v) in self.weights[range].iter_mut().zip(values) {
            *w.get_mut() = v.to_bits();
        }
    }

    /// Fails unless the network was made for game `R`.
    pub fn check_game<R: TileRule>(&self) -> Result<()> {
        if self.game != R::NAME || self.bits != R::BITS {
            return Err(Error::Unsupported(format!(
                "the network evaluates {} boards, not {}",
                self.game,
                R::NAME
            )));
        }
        Ok(())
    }

    /// The weight index of each lookup (in lookup order) on a board given as its 16 tile
    /// indices: the reference for [`Self::indices`].
    pub fn cell_indices(&self, cells: &[u8; 16], out: &mut [u32]) {
        for (l, o) in self.lookups.iter().zip(out) {
            *o = l.cell_index(cells, self.bits);
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
            #[cfg(target_arch = "x86_64")]
            WeightReads::Gather => unsafe { gather::sum_lookups(self.weights.as_ptr(), indices) },
            // SAFETY: the caller's promise.
            WeightReads::OneByOne => sum_lookups(indices, |i| unsafe { self.weight_unchecked(i) }),
        }
    }

    /// V of four boards from their weight indices as [`Self::indices_of`] lays them out
    /// (lookup by lookup, the four boards' side by side), each summed as [`Self::value_at`]
    /// does; the sixteen partial sums go step by step together, so their weight loads overlap.
    #[inline(always)]
    pub fn values_at(&self, indices: &[u32]) -> [f32; 4] {
        sum_four_boards(indices, |i| self.weight(i))
    }

    /// [`Self::values_at`] without bounds checks, reading as `reads` says.
    ///
    /// # Safety
    /// As for [`Self::value_at_unchecked`].
    #[inline(always)]
    pub(crate) unsafe fn values_at_unchecked(
        &self,
        indices: &[u32],
        reads: WeightReads,
    ) -> [f32; 4] {
        match reads {
            // SAFETY: the caller's promises.
            #[cfg(target_arch = "x86_64")]
            WeightReads::Gather => unsafe {
                gather::sum_four_boards(self.weights.as_ptr(), indices)
            },
            // SAFETY: the caller's promise.
            WeightReads::OneByOne => {
                sum_four_boards(indices, |i| unsafe { self.weight_unchecked(i) })
            }
        }
    }

    /// Adds `delta` to the weight of each lookup in turn (two lookups may share a weight: the
    /// second adds to the first's result).
    #[inline]
    pub fn update_at(&self, indices: &[u32], delta: f32) {
        for &i in indices {
            add(&self.weights[i as usize], delta);
        }
    }

    /// [`Self::update_at`] without bounds checks.
    ///
    /// # Safety
    /// Every index is below [`Self::weight_count`] (made by [`Self::indices_of`], say).
    #[inline(always)]
    pub(crate) unsafe fn update_at_unchecked(&self, indices: &[u32], delta: f32) {
        for &i in indices {
            // SAFETY: the caller's promise.
            add(unsafe { self.weights.get_unchecked(i as usize) }, delta);
        }
    }

    /// V of a board given as its 16 tile indices (the reference for [`Self::value`]).
    pub fn value_cells(&self, cells: &[u8; 16]) -> f32 {
        self.value_at(&self.cell_indices_vec(cells))
    }

    /// Adds `delta` to every weight that V of this board reads (the reference for
    /// [`Self::update`]).
    pub fn update_cells(&self, cells: &[u8; 16], delta: f32) {
        self.update_at(&self.cell_indices_vec(cells), delta);
    }

    /// [`Self::cell_indices`] into a new vector.
    fn cell_indices_vec(&self, cells: &[u8; 16]) -> Vec<u32> {
        let mut indices = vec![0; self.lookups()];
        self.cell_indices(cells, &mut indices);
        indices
    }

    /// Calls `f` with the weight indices of each shape's 8 lookups of `b`, shape by shape (so
    /// lookup by lookup in lookup order).
    #[inline(always)]
    fn for_each_shape<R: TileRule>(&self, b: BoardOf<R>, mut f: impl FnMut(&[u32; 8])) {
        debug_assert_eq!(self.bits, R::BITS);
        let views = Board::symmetric_views([b], R::BITS);
        let mut eight = [0; 8];
        for reader in &self.readers {
            reader.indices(&views, &mut eight);
            f(&eight);
        }
    }

    /// The weight index of each lookup of `b` (in lookup order) into `out`, which holds
    /// [`Self::lookups`] of them.
    #[inline]
    pub fn indices<R: TileRule>(&self, b: BoardOf<R>, out: &mut [u32]) {
        self.indices_of::<R, 1>([b], out)
    }

    /// The weight indices of `N` boards at once into `out` (`N ×` [`Self::lookups`] long),
    /// lookup by lookup in lookup order, the boards' side by side: board `i`'s index of
    /// lookup `l` at `N·l + i`. One pass makes them all, vector instructions working on the
    /// boards together.
    #[inline(always)]
    pub fn indices_of<R: TileRule, const N: usize>(
        &self,
        boards: [BoardOf<R>; N],
        out: &mut [u32],
    ) {
        debug_assert_eq!(self.bits, R::BITS);
        let views = Board::symmetric_views(boards, R::BITS);
        for (reader, out) in self.readers.iter().zip(out.chunks_exact_mut(8 * N)) {
            reader.indices(&views, out);
        }
    }

    /// V of a board of game `R` (the network must be made for `R`).
    #[inline]
    pub fn value<R: TileRule>(&self, b: BoardOf<R>) -> f32 {
        // A shape's 8 lookups start at a multiple of 4: two steps of the partial sums.
        let mut sums = PartialSums::default();
        self.for_each_shape::<R>(b, |eight| sums.add_lookups(eight, |i| self.weight(i)));
        sums.total()
    }

    /// Adds `delta` to every weight that V of `b` reads.
    #[inline]
    pub fn update<R: TileRule>(&self, b: BoardOf<R>, delta: f32) {
        self.for_each_shape::<R>(b, |eight| self.update_at(eight, delta));
    }
}

impl<R: TileRule> cubesearch_core::AfterstateValue<cubesearch_games::fib::Sliding<R>>
    for NTupleNetwork
{
    #[inline]
    fn value(&self, _game: &cubesearch_games::fib::Sliding<R>, afterstate: &BoardOf<R>) -> f32 {
        NTupleNetwork::value::<R>(self, *afterstate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cubesearch_core::rng::XorShift32;
    use cubesearch_games::fib::{Fib, Pow2};

    /// The trainer's reads (gathers where the CPU has AVX2) sum the same floats in the same
    /// order as the checked one-by-one reads, bit for bit, on random weights and boards.
    fn check_trainer_reads<R: TileRule>(shapes: &[Vec<u8>]) {
        let mut net = NTupleNetwork::for_game::<R>(shapes).unwrap();
        let mut rng = XorShift32::for_worker(5, 0);
        for t in 0..shapes.len() {
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
            let boards: [BoardOf<R>; 4] = std::array::from_fn(|_| {
                let cells = std::array::from_fn(|_| rng.below(1 << R::BITS) as u8);
                Board::from_cells(&cells, R::BITS)
            });
            net.indices_of::<R, 4>(boards, &mut four);
            // SAFETY: `indices_of` made every index; `reads` as above.
            let fast = unsafe { net.values_at_unchecked(&four, reads) };
            assert_eq!(
                fast.map(f32::to_bits),
                net.values_at(&four).map(f32::to_bits)
            );
            for (k, b) in boards.into_iter().enumerate() {
                let one: Vec<u32> = four.chunks_exact(4).map(|f| f[k]).collect();
                // SAFETY: as above.
                let fast = unsafe { net.value_at_unchecked(&one, reads) };
                assert_eq!(fast.to_bits(), net.value::<R>(b).to_bits());
            }
        }
    }

    #[test]
    fn trainer_reads_sum_like_the_checked_reads() {
        check_trainer_reads::<Fib>(&seed_shapes());
        check_trainer_reads::<Pow2>(&seed_shapes());
        check_trainer_reads::<Pow2>(&parse_shapes("0,1,2,3,4,5;5,9").unwrap());
    }
}
