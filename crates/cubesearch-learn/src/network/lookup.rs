//! Where a lookup reads: its table's offset and cells ([`Lookup`]), and how a shape's lookups
//! read their cells straight from a state's packed views ([`ShapeReader`]).

use super::shapes::{MAX_SYMMETRIES, MAX_TUPLE};
use crate::game::{TupleBoard, ViewWords};

/// One table lookup: where its table starts in the weights, and which of the state's cells make
/// its index.
#[derive(Clone, Copy, Debug)]
pub(super) struct Lookup {
    /// Where its table starts in the CPU's weights.
    pub(super) offset: u32,
    /// Where its table starts with the tables packed ([`NTupleNetwork::lookup_layout`]).
    pub(super) packed: u32,
    pub(super) len: u32,
    pub(super) cells: [u8; MAX_TUPLE],
}

impl Lookup {
    /// The weight this lookup reads on a state given as its cell values, `bits` bits a cell.
    #[inline(always)]
    pub(super) fn cell_index(&self, cells: &[u8], bits: u32) -> u32 {
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
fn or_run<G: TupleBoard, const N: usize>(
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
/// [`TupleBoard::views`]): symmetry `s` reads the shape's own cells of view `s`.
#[derive(Clone, Debug)]
pub(super) struct ShapeReader {
    pub(super) offset: u32,
    runs: Vec<Run>,
}

impl ShapeReader {
    pub(super) fn new(shape: &[u8], offset: usize, bits: u32, per_word: usize) -> Self {
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
    pub(super) fn indices<G: TupleBoard, const N: usize>(
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
