//! 2584 and 2048 on the device: the host's `Sliding<R>` rules, computed in registers.
//!
//! A board in registers is four row values ([`FibBoard`]), one u32 per row, in the host's
//! row-value form (`cell0 | cell1 << B | cell2 << 2B | cell3 << 3B`, B = 5 for 2584 and 4 for
//! 2048; see `crate::fib::board`). Moves are computed per row rather than read from
//! the host's row tables: a row slide is a dozen selects, every loop is unrolled (no back-edges,
//! which matters on lavapipe's loop budget), and no kernel needs a table buffer. Left and right
//! slide the rows (right through a reversed row); up and down slide the rows of the transposed
//! board.
//!
//! In memory a board is the host's packed word split into little-endian u32 words
//! ([`GpuTiles::WORDS`]: 3 for 2584's 80 bits, 2 for 2048's 64 bits):
//! ```text
//!  2584  word 0 = bits 0..32   word 1 = bits 32..64   word 2 = bits 64..80 (high 16 bits zero)
//!        row r is bits 20r..20r+20: row 0 in w0, row 1 straddles w0/w1, row 2 in w1,
//!        row 3 straddles w1/w2
//!  2048  word 0 = rows 0 (low 16 bits) and 1, word 1 = rows 2 and 3
//! ```
//!
//! Both games reach the generic kernels (expectimax, TD(0), the rule tests) as one
//! [`DeviceStochasticGame`], [`DeviceSliding`], built on the row arithmetic of
//! [`moves`]: [`moves::slide`](fn@moves::slide) (a direction: the new board, its reward,
//! whether anything moved), [`moves::spawn`](fn@moves::spawn) (a tile drawn with xorshift32
//! exactly as the host's `Sliding::spawn` draws it), [`moves::empty_mask`](fn@moves::empty_mask),
//! [`moves::cell`](fn@moves::cell). A chance outcome is `cell·S + k`: spawn kind `k` of the
//! rule's `S` ([`DeviceTiles::spawn_kinds`]) in cell `cell`, possible when the cell is empty;
//! packed (see [`DeviceStochasticGame::chance_packed`]) it is `nth·S + k`, the `nth` empty cell.

pub mod moves;

use crate::fib::{Board, BoardOf, BoardWord, Fib, Pow2, Sliding, TileRule};
use cubecl::prelude::*;
use cubesearch_kernels::stochastic::{Acted, DeviceStochasticGame, GpuStochasticGame};
use moves::{
    cell, empty_mask, initial, max_index, nth_set_bit, put_tile, set_board, slide, spawn,
    two_largest_sum,
};
use std::marker::PhantomData;

/// A board in registers: four row values, row 0 (the top) first.
#[derive(CubeType, Clone, Copy)]
pub struct FibBoard {
    /// Row 0 (top).
    pub r0: u32,
    /// Row 1.
    pub r1: u32,
    /// Row 2.
    pub r2: u32,
    /// Row 3 (bottom).
    pub r3: u32,
}

/// The tile arithmetic of one rule on the device: the twin of the host's `TileRule`.
#[cube]
pub trait DeviceTiles: 'static + Send + Sync {
    /// Bits a cell.
    fn bits() -> u32;
    /// The tile index that tiles `a` and `b` (both non-zero) merge into, or 0 if they do not.
    fn merge(a: u32, b: u32) -> u32;
    /// The value of tile index `k` (`k ≥ 1`).
    fn value(k: u32) -> u32;
    /// The spawn weights' total (the host's `SPAWN_TOTAL`).
    fn spawn_total() -> u32;
    /// The tile spawned for a draw `pick < spawn_total()`, walking the host's `SPAWNS` in order.
    fn spawn_tile(pick: u32) -> u32;
    /// How many tiles may spawn (the host's `SPAWNS.len()`).
    fn spawn_kinds() -> u32;
    /// The tile index of spawn kind `k` (`SPAWNS[k].0`).
    fn spawn_kind_tile(k: u32) -> u32;
    /// The weight of spawn kind `k` (`SPAWNS[k].1`).
    fn spawn_kind_weight(k: u32) -> u32;
    /// Reads the board stored at `words[offset..offset + WORDS]`.
    fn load(words: &Array<u32>, offset: usize) -> FibBoard;
    /// Stores `board` at `words[offset..offset + WORDS]`.
    fn store(board: &FibBoard, words: &mut Array<u32>, offset: usize);
}

/// 2584 on the device.
pub struct DeviceFib;
/// 2048 on the device.
pub struct DevicePow2;

#[cube]
impl DeviceTiles for DeviceFib {
    fn bits() -> u32 {
        u32::new(5)
    }

    fn merge(a: u32, b: u32) -> u32 {
        let diff = select(a > b, a - b, b - a);
        let high = select(a > b, a, b);
        let m = select(
            a == 1u32 && b == 1u32,
            2u32,
            select(diff == 1u32, high + 1u32, 0u32),
        );
        select(m < 32u32, m, 0u32)
    }

    fn value(k: u32) -> u32 {
        // Tile k is F(k + 1) (F(1) = F(2) = 1), tiles 1..=31; 0 otherwise. With k + 1 = 8h + l,
        // F(8h + l) = F(l − 1)·F(8h) + F(l)·F(8h + 1): five pairs by selects and eight small
        // values by nibbles, ~20 instructions where a chain of 31 selects, inlined at every
        // merge of a slide, filled the instruction cache (2584's kernels waited on fetch).
        let n = k + 1u32;
        let (h, l) = (n >> 3u32, n & 7u32);
        let f8h = select(
            h == 0u32,
            0u32,
            select(
                h == 1u32,
                21u32,
                select(h == 2u32, 987u32, select(h == 3u32, 46368u32, 2178309u32)),
            ),
        );
        let f8h1 = select(
            h == 0u32,
            1u32,
            select(
                h == 1u32,
                34u32,
                select(h == 2u32, 1597u32, select(h == 3u32, 75025u32, 3524578u32)),
            ),
        );
        // F(l) and F(l − 1) for l = 0..8, a nibble each (F(−1) = 1).
        let fl = (0xd853_2110u32 >> (4u32 * l)) & 15u32;
        let fl1 = (0x8532_1101u32 >> (4u32 * l)) & 15u32;
        select(k != 0u32 && k < 32u32, fl1 * f8h + fl * f8h1, 0u32)
    }

    fn spawn_total() -> u32 {
        u32::new(4)
    }

    fn spawn_tile(pick: u32) -> u32 {
        // SPAWNS = [(1, 3), (3, 1)]
        select(pick < 3u32, 1u32, 3u32)
    }

    fn spawn_kinds() -> u32 {
        u32::new(2)
    }

    fn spawn_kind_tile(k: u32) -> u32 {
        select(k == 0u32, 1u32, 3u32)
    }

    fn spawn_kind_weight(k: u32) -> u32 {
        select(k == 0u32, 3u32, 1u32)
    }

    fn load(words: &Array<u32>, offset: usize) -> FibBoard {
        let w0 = words[offset];
        let w1 = words[offset + 1];
        let w2 = words[offset + 2];
        FibBoard {
            r0: w0 & 0xF_FFFFu32,
            r1: (w0 >> 20u32) | ((w1 & 0xFFu32) << 12u32),
            r2: (w1 >> 8u32) & 0xF_FFFFu32,
            r3: (w1 >> 28u32) | ((w2 & 0xFFFFu32) << 4u32),
        }
    }

    fn store(board: &FibBoard, words: &mut Array<u32>, offset: usize) {
        let w0 = board.r0 | (board.r1 << 20u32);
        let w1 = (board.r1 >> 12u32) | (board.r2 << 8u32) | (board.r3 << 28u32);
        let w2 = board.r3 >> 4u32;
        words[offset] = w0;
        words[offset + 1] = w1;
        words[offset + 2] = w2;
    }
}

#[cube]
impl DeviceTiles for DevicePow2 {
    fn bits() -> u32 {
        u32::new(4)
    }

    fn merge(a: u32, b: u32) -> u32 {
        select(a == b && a < 15u32, a + 1u32, 0u32)
    }

    fn value(k: u32) -> u32 {
        1u32 << k
    }

    fn spawn_total() -> u32 {
        u32::new(10)
    }

    fn spawn_tile(pick: u32) -> u32 {
        // SPAWNS = [(1, 9), (2, 1)]
        select(pick < 9u32, 1u32, 2u32)
    }

    fn spawn_kinds() -> u32 {
        u32::new(2)
    }

    fn spawn_kind_tile(k: u32) -> u32 {
        select(k == 0u32, 1u32, 2u32)
    }

    fn spawn_kind_weight(k: u32) -> u32 {
        select(k == 0u32, 9u32, 1u32)
    }

    fn load(words: &Array<u32>, offset: usize) -> FibBoard {
        let w0 = words[offset];
        let w1 = words[offset + 1];
        FibBoard {
            r0: w0 & 0xFFFFu32,
            r1: w0 >> 16u32,
            r2: w1 & 0xFFFFu32,
            r3: w1 >> 16u32,
        }
    }

    fn store(board: &FibBoard, words: &mut Array<u32>, offset: usize) {
        let w0 = board.r0 | (board.r1 << 16u32);
        let w1 = board.r2 | (board.r3 << 16u32);
        words[offset] = w0;
        words[offset + 1] = w1;
    }
}

/// A host tile rule with a device twin, and the board's word form.
pub trait GpuTiles: TileRule {
    /// The device rules.
    type Device: DeviceTiles;
    /// u32 words a board takes in device memory.
    const WORDS: usize;
    /// [`GpuStochasticGame::TD_PATH`] for this rule's game.
    const TD_PATH: Option<u32> = None;

    /// Writes `b` as exactly [`GpuTiles::WORDS`] words, low bits first.
    fn encode(b: BoardOf<Self>, out: &mut [u32]) {
        for (i, w) in out.iter_mut().enumerate().take(Self::WORDS) {
            *w = b.0.shr(32 * i as u32).low_u32();
        }
    }

    /// Reads a board written by [`GpuTiles::encode`].
    fn decode(words: &[u32]) -> BoardOf<Self> {
        let w = words[..Self::WORDS]
            .iter()
            .enumerate()
            .fold(Self::Word::ZERO, |acc, (i, &x)| {
                acc.or(Self::Word::from_u32(x).shl(32 * i as u32))
            });
        Board(w)
    }

    /// Encodes many boards into one word buffer, ready to upload.
    fn encode_all(boards: &[BoardOf<Self>]) -> Vec<u32> {
        let mut words = vec![0; boards.len() * Self::WORDS];
        for (b, chunk) in boards.iter().zip(words.chunks_exact_mut(Self::WORDS)) {
            Self::encode(*b, chunk);
        }
        words
    }

    /// Decodes a word buffer of boards.
    fn decode_all(words: &[u32]) -> Vec<BoardOf<Self>> {
        words.chunks_exact(Self::WORDS).map(Self::decode).collect()
    }
}

impl GpuTiles for Fib {
    type Device = DeviceFib;
    const WORDS: usize = 3;
    // Paths of 16 entries: on an H200 the seed network's training ran 1.10-1.36 x as fast as
    // with 1024, and learned more a game: a launch lasts as long as its longest learning pass.
    const TD_PATH: Option<u32> = Some(16);
}

impl GpuTiles for Pow2 {
    type Device = DevicePow2;
    const WORDS: usize = 2;
    // No cap of its own: with 16 entries 4x6patt learned 0.57 x as much a game.
}

/// 2584 or 2048 (tile rule `T`) as a [`DeviceStochasticGame`]: actions are the host's `Dir::ALL`
/// (left, right, up, down), chance outcomes spawns (see the module docs), cells the 16 tile
/// indices, progress the value of the largest tile, stage progress the sum of the two largest.
pub struct DeviceSliding<T>(PhantomData<T>);

#[cube]
impl<T: DeviceTiles> DeviceStochasticGame for DeviceSliding<T> {
    type State = FibBoard;

    fn load(words: &Array<u32>, offset: usize) -> FibBoard {
        T::load(words, offset)
    }

    fn store(state: &FibBoard, words: &mut Array<u32>, offset: usize) {
        T::store(state, words, offset);
    }

    fn assign(to: &mut FibBoard, from: &FibBoard) {
        set_board(to, from);
    }

    fn from_lane(state: &FibBoard, lane: u32) -> FibBoard {
        FibBoard {
            r0: plane_shuffle(state.r0, lane),
            r1: plane_shuffle(state.r1, lane),
            r2: plane_shuffle(state.r2, lane),
            r3: plane_shuffle(state.r3, lane),
        }
    }

    fn act(state: &mut FibBoard, action: u32) -> Acted {
        let s = slide::<T>(state, action);
        if s.moved {
            set_board(state, &s.board);
        }
        Acted {
            reward: s.reward,
            legal: s.moved,
        }
    }

    fn chance(state: &mut FibBoard, outcome: u32) -> bool {
        let kinds = T::spawn_kinds();
        let c = outcome / kinds;
        let free = cell::<T>(state, c) == 0u32;
        if free {
            put_tile::<T>(state, c, T::spawn_kind_tile(outcome % kinds));
        }
        free
    }

    fn chance_packed(state: &mut FibBoard, slot: u32) -> bool {
        let kinds = T::spawn_kinds();
        let nth = slot / kinds;
        let empty = empty_mask::<T>(state);
        let fits = nth < empty.count_ones();
        if fits {
            put_tile::<T>(
                state,
                nth_set_bit(empty, nth),
                T::spawn_kind_tile(slot % kinds),
            );
        }
        fits
    }

    fn outcome_weight(outcome: u32) -> u32 {
        T::spawn_kind_weight(outcome % T::spawn_kinds())
    }

    fn sample_chance(state: &mut FibBoard, rng: &mut u32) {
        spawn::<T>(state, rng);
    }

    fn initial(rng: &mut u32) -> FibBoard {
        initial::<T>(rng)
    }

    fn cell(state: &FibBoard, c: u32) -> u32 {
        cell::<T>(state, c)
    }

    fn progress(state: &FibBoard) -> u32 {
        let m = max_index::<T>(state);
        select(m == 0u32, 0u32, T::value(m))
    }

    fn stage_progress(state: &FibBoard) -> u32 {
        two_largest_sum::<T>(state)
    }
}

impl<T: GpuTiles> GpuStochasticGame for Sliding<T> {
    type Device = DeviceSliding<T::Device>;
    const STATE_WORDS: usize = T::WORDS;
    const OUTCOMES: u32 = 16 * T::SPAWNS.len() as u32;
    const TD_PATH: Option<u32> = T::TD_PATH;

    fn encode(&self, state: &BoardOf<T>, out: &mut [u32]) {
        T::encode(*state, out);
    }

    fn decode(&self, words: &[u32]) -> BoardOf<T> {
        T::decode(words)
    }
}
