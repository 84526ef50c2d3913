//! n-tuple network lookups on the device, for any [`DeviceStochasticGame`]: one summation order
//! and one index rule, shared by the expectimax and TD(0) kernels.
//!
//! A network is a list of *lookups* in the host network's order (`cubesearch_learn`'s
//! `NTupleNetwork::lookup_layout`): each a table offset into the flat weights and a list of
//! cells. The kernels apply no symmetry: a symmetric lookup is just another entry of the list.
//! Lookup `l`'s weight index is its offset plus its cells' values ([`DeviceStochasticGame::cell`]),
//! `bits` bits each, first cell lowest. V sums lookup `l` into partial sum `l mod 4` (each
//! partial sum adding its lookups in order, from 0.0) and returns `(s₀ + s₁) + (s₂ + s₃)`,
//! as the host network does, so a device value equals the CPU's bit for bit; the lookups are
//! a multiple of 4.
//!
//! Two ways to name the lookups, kept because each kernel family needs its own:
//! * [`NetLayout`], compile-time data: a kernel compiled for one layout builds each index from
//!   constant cells and shifts, and reads nothing but the weight (the expectimax kernels, where
//!   a leaf's value is most of the work);
//! * a runtime table ([`lut_words`], read by [`lookup_index()`]): one compiled kernel for every
//!   network, and a lookup loop that is not unrolled, so the TD kernel (whose loop body holds
//!   four evaluations and the learning passes) compiles quickly.
//!
//! A multi-stage network ([`Stages`]) keeps one copy of every table a stage, one after
//! another; a state's lookups read its stage's copy, the offsets above plus `stage · len`.

use crate::stochastic::DeviceStochasticGame;
use cubecl::prelude::*;
use cubesearch_core::{Error, Result};

/// Most cells one lookup reads (Edax's largest patterns).
pub const MAX_CELLS: usize = 10;

/// A padded runtime table's cell past the end of a shorter lookup ([`padded_lut_words`]),
/// which adds nothing to its index.
pub const NO_CELL: u32 = u32::MAX;

/// V's four partial sums: lookup `l` adds to sum `l mod 4`.
#[derive(CubeType, Clone, Copy)]
pub struct PartialSums {
    s0: f32,
    s1: f32,
    s2: f32,
    s3: f32,
}

/// Four partial sums at zero.
#[cube]
pub fn partial_sums() -> PartialSums {
    PartialSums {
        s0: 0.0f32,
        s1: 0.0f32,
        s2: 0.0f32,
        s3: 0.0f32,
    }
}

#[cube]
impl PartialSums {
    /// Adds the weights of lookups `4q .. 4q + 4`.
    pub fn add(&mut self, w0: f32, w1: f32, w2: f32, w3: f32) {
        self.s0 += w0;
        self.s1 += w1;
        self.s2 += w2;
        self.s3 += w3;
    }

    /// V: `(s₀ + s₁) + (s₂ + s₃)`.
    pub fn total(&self) -> f32 {
        (self.s0 + self.s1) + (self.s2 + self.s3)
    }
}

/// The stages of a multi-stage network (Yeh et al. 2017): each stage has its own copy of
/// the tables, stage after stage, and a state's stage is how many of `thresholds` its stage
/// progress ([`DeviceStochasticGame::stage_progress`]) reaches, so its lookups read
/// `stage · len` weights further on than the lookup list says.
#[derive(Clone, Debug, Default, Hash, PartialEq, Eq)]
pub struct Stages {
    /// The progress at which each stage after the first begins, ascending; none for a network
    /// of one stage.
    pub thresholds: Vec<u32>,
    /// Weights of one stage's tables (unused with one stage).
    pub len: u32,
}

impl Stages {
    /// The stages of a network whose stage `k + 1` begins at progress `thresholds[k]`, with
    /// `len` weights a stage's tables (as `NTupleNetwork::stages` and `stage_len` give them).
    pub fn new(thresholds: &[u32], len: usize) -> Self {
        Self {
            thresholds: thresholds.to_vec(),
            len: len as u32,
        }
    }

    /// How many stages.
    pub fn count(&self) -> usize {
        self.thresholds.len() + 1
    }

    /// Weights of the tables of every stage, where lookups read `region` weights of one
    /// stage; `None` when the stages do not fit `weights` weights or the thresholds do not
    /// ascend.
    fn region(&self, weights: usize) -> Option<usize> {
        if self.thresholds.is_empty() {
            return Some(weights);
        }
        let ascending = self.thresholds.windows(2).all(|w| w[0] < w[1]);
        let all = self.len as u64 * self.count() as u64;
        (ascending && self.len > 0 && all <= weights as u64).then_some(self.len as usize)
    }
}

/// Checks a lookup list against its weights: a multiple of 4 lookups, each of 1 to
/// [`MAX_CELLS`] cells whose table (`2^(bits·cells)` weights from its offset) lies inside one
/// stage's tables, and every stage inside `weights` weights.
pub fn check_lookups(
    lookups: &[(u32, Vec<u8>)],
    bits: u32,
    stages: &Stages,
    weights: usize,
) -> Result<()> {
    let Some(region) = stages.region(weights) else {
        return Err(Error::Unsupported(format!(
            "{} stages of {} weights (thresholds {:?}) do not fit {weights} weights",
            stages.count(),
            stages.len,
            stages.thresholds
        )));
    };
    if lookups.is_empty() || !lookups.len().is_multiple_of(4) {
        return Err(Error::Unsupported(format!(
            "a device network sums its lookups four at a time: {} lookups",
            lookups.len()
        )));
    }
    for (offset, cells) in lookups {
        if cells.is_empty() || cells.len() > MAX_CELLS {
            return Err(Error::Unsupported(format!(
                "a device lookup reads 1 to {MAX_CELLS} cells, not {}",
                cells.len()
            )));
        }
        let end = (*offset as u64).checked_add(1u64 << (bits as u64 * cells.len() as u64));
        if bits * cells.len() as u32 >= 32 || end.is_none_or(|e| e > region as u64) {
            return Err(Error::Unsupported(format!(
                "a lookup of {} cells of {bits} bits at weight {offset} does not fit {region} weights",
                cells.len()
            )));
        }
    }
    Ok(())
}

/// A network's lookups as compile-time data: each lookup's table offset in the weights and its
/// cells, in the host network's order, the bits a cell takes in an index, and the stages.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub struct NetLayout {
    lookups: Vec<(u32, Vec<u8>)>,
    bits: u32,
    stages: Stages,
}

impl NetLayout {
    /// A layout of `(table offset, cells)` lookups of `bits`-bit cells, in `stages`.
    pub fn new(lookups: Vec<(u32, Vec<u8>)>, bits: u32, stages: Stages) -> Self {
        Self {
            lookups,
            bits,
            stages,
        }
    }

    /// How many lookups an evaluation sums.
    pub fn len(&self) -> usize {
        self.lookups.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.lookups.is_empty()
    }

    fn offset(&self, l: usize) -> u32 {
        self.lookups[l].0
    }

    fn cells(&self, l: usize) -> Vec<u8> {
        self.lookups[l].1.clone()
    }
}

/// V(state) of the network laid out as `layout` (see the module docs for the order).
#[cube]
pub fn layout_value<G: DeviceStochasticGame>(
    state: &G::State,
    weights: &Array<f32>,
    #[comptime] layout: NetLayout,
) -> f32 {
    let mut sums = partial_sums();
    let base = fixed_stage_base::<G>(state, comptime!(layout.stages.clone()));
    add_layout_quads::<G>(state, weights, base, &mut sums, layout, 0usize);
    sums.total()
}

/// The weight offset of `state`'s stage in `stages` (compile-time: 0 with one stage, with no
/// code at all).
#[cube]
fn fixed_stage_base<G: DeviceStochasticGame>(state: &G::State, #[comptime] stages: Stages) -> u32 {
    let mut base = 0u32;
    if comptime!(!stages.thresholds.is_empty()) {
        base = add_stage_steps(G::stage_progress(state), 0u32, stages, 0usize);
    }
    base
}

/// `acc` plus one stage's weights for each of thresholds `k..` that `progress` (the state's
/// stage progress) reaches (a compile-time recursion, as [`add_layout_quads`]).
#[cube]
fn add_stage_steps(
    progress: u32,
    acc: u32,
    #[comptime] stages: Stages,
    #[comptime] k: usize,
) -> u32 {
    let mut base = acc;
    if comptime!(k < stages.thresholds.len()) {
        let step = select(
            progress >= comptime!(stages.thresholds[k]),
            comptime!(stages.len),
            0u32,
        );
        base = add_stage_steps(progress, acc + step, stages, comptime!(k + 1));
    }
    base
}

/// Adds lookups `4q, 4q + 1, …` four at a time. A recursion on compile-time values, so it
/// unrolls: every cell and offset is a constant.
#[cube]
fn add_layout_quads<G: DeviceStochasticGame>(
    state: &G::State,
    weights: &Array<f32>,
    base: u32,
    sums: &mut PartialSums,
    #[comptime] layout: NetLayout,
    #[comptime] q: usize,
) {
    if comptime!(4 * q < layout.len()) {
        let w0 = layout_weight::<G>(
            state,
            weights,
            base,
            comptime!(layout.clone()),
            comptime!(4 * q),
        );
        let w1 = layout_weight::<G>(
            state,
            weights,
            base,
            comptime!(layout.clone()),
            comptime!(4 * q + 1),
        );
        let w2 = layout_weight::<G>(
            state,
            weights,
            base,
            comptime!(layout.clone()),
            comptime!(4 * q + 2),
        );
        let w3 = layout_weight::<G>(
            state,
            weights,
            base,
            comptime!(layout.clone()),
            comptime!(4 * q + 3),
        );
        sums.add(w0, w1, w2, w3);
        add_layout_quads::<G>(state, weights, base, sums, layout, comptime!(q + 1));
    }
}

/// The weight lookup `l` of `layout` reads in the stage whose tables start at weight `base`.
#[cube]
fn layout_weight<G: DeviceStochasticGame>(
    state: &G::State,
    weights: &Array<f32>,
    base: u32,
    #[comptime] layout: NetLayout,
    #[comptime] l: usize,
) -> f32 {
    let idx = base
        + fixed_index::<G>(
            state,
            0u32,
            comptime!(layout.cells(l)),
            comptime!(layout.bits),
            0usize,
        );
    weights[(idx + comptime!(layout.offset(l))) as usize]
}

/// `acc` with cells `j..` of `cells` added, `bits` bits each from bit `j·bits` (a compile-time
/// recursion, as [`add_layout_quads`]).
#[cube]
fn fixed_index<G: DeviceStochasticGame>(
    state: &G::State,
    acc: u32,
    #[comptime] cells: Vec<u8>,
    #[comptime] bits: u32,
    #[comptime] j: usize,
) -> u32 {
    let mut idx = acc;
    if comptime!(j < cells.len()) {
        let at = acc | (G::cell(state, comptime!(cells[j] as u32)) << comptime!(bits * j as u32));
        idx = fixed_index::<G>(state, at, cells, bits, comptime!(j + 1));
    }
    idx
}

/// The runtime lookup table of a lookup list whose lookups all read `len` cells, and its
/// stages: per lookup `[table offset, cell 0, .., cell len − 1]`, then `[thresholds, stage
/// length, threshold 0, ..]` ([`Stages`]). `None` when the lengths differ.
pub fn lut_words(lookups: &[(u32, Vec<u8>)], stages: &Stages) -> Option<(Vec<u32>, u32)> {
    let len = lookups.first()?.1.len();
    if lookups.iter().any(|l| l.1.len() != len) {
        return None;
    }
    Some(padded_lut_words(lookups, stages))
}

/// [`lut_words`] for lookups of any sizes, `len` the longest's: a shorter lookup's cells are
/// padded with [`NO_CELL`] (read by [`lookup_index_in()`]).
pub fn padded_lut_words(lookups: &[(u32, Vec<u8>)], stages: &Stages) -> (Vec<u32>, u32) {
    let len = lookups.iter().map(|l| l.1.len()).max().unwrap_or(0);
    let mut lut = Vec::with_capacity(lookups.len() * (len + 1) + 2 + stages.thresholds.len());
    for (offset, cells) in lookups {
        lut.push(*offset);
        lut.extend(cells.iter().map(|&c| c as u32));
        lut.extend(std::iter::repeat_n(NO_CELL, len - cells.len()));
    }
    lut.extend([stages.thresholds.len() as u32, stages.len]);
    lut.extend(&stages.thresholds);
    (lut, len as u32)
}

/// What a runtime table's lookups read of a state: its cells and its stage progress. One
/// reader for every kind of game: [`StochasticCells`] reads a [`DeviceStochasticGame`]'s, and
/// `selfplay::TupleCells` a two-player game's.
#[cube]
pub trait DeviceCells: 'static + Send + Sync {
    /// The state read.
    type State: CubeType + Clone + Copy;
    /// The value of cell `c`.
    fn cell(state: &Self::State, c: u32) -> u32;
    /// What the stage thresholds compare.
    fn stage_progress(state: &Self::State) -> u32;
}

/// The cells of a one-player stochastic game `G`.
pub struct StochasticCells<G>(std::marker::PhantomData<G>);

#[cube]
impl<G: DeviceStochasticGame> DeviceCells for StochasticCells<G> {
    type State = G::State;

    fn cell(state: &G::State, c: u32) -> u32 {
        G::cell(state, c)
    }

    fn stage_progress(state: &G::State) -> u32 {
        G::stage_progress(state)
    }
}

/// The weight offset of `state`'s stage in a runtime table ([`lut_words`]) of `lookups`
/// lookups of `len` cells: 0 with one stage (the game's stage progress then not even read).
#[cube]
pub fn stage_base<G: DeviceCells>(
    state: &G::State,
    lut: &Array<u32>,
    lookups: u32,
    #[comptime] len: u32,
) -> u32 {
    let at = lookups * (len + 1u32);
    let thresholds = lut[at as usize];
    let mut base = 0u32;
    if thresholds > 0u32 {
        let progress = G::stage_progress(state);
        let stage_len = lut[(at + 1u32) as usize];
        for k in 0..thresholds {
            if progress >= lut[(at + 2u32 + k) as usize] {
                base += stage_len;
            }
        }
    }
    base
}

/// The weight index of lookup `l` of a runtime table ([`lut_words`]) of `len`-cell lookups
/// in the stage whose tables start at weight `stage` ([`stage_base()`]): its offset plus its
/// cells' values, `bits` bits each, first cell lowest.
#[cube]
pub fn lookup_index<G: DeviceCells>(
    state: &G::State,
    lut: &Array<u32>,
    l: u32,
    stage: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
) -> usize {
    lookup_index_in::<G>(state, lut, l, stage, len, bits, false)
}

/// [`lookup_index()`] in a table that is `padded` ([`padded_lut_words`]) or not: a padded one
/// tests each cell for [`NO_CELL`], which adds nothing (the test compiled in only there).
#[cube]
pub fn lookup_index_in<G: DeviceCells>(
    state: &G::State,
    lut: &Array<u32>,
    l: u32,
    stage: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] padded: bool,
) -> usize {
    let base = l * (len + 1u32);
    let mut idx = lut[base as usize] + stage;
    #[unroll]
    for j in 0..len {
        let c = lut[(base + 1u32 + j) as usize];
        if comptime!(padded) {
            if c != NO_CELL {
                idx += G::cell(state, c) << (j * bits);
            }
        } else {
            idx += G::cell(state, c) << (j * bits);
        }
    }
    idx as usize
}
