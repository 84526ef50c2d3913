//! The board-layout question: a device board as one u64 per side (what `DeviceReversi`
//! uses) or as two u32 words per side (64-bit shifts emulated across the halves). The same work,
//! move generation for both sides and the flips of every legal placement, written both ways; the
//! `reversi-board-words` bench suite times the two on each device, and a test holds both to the
//! CPU. Each unit folds its results into one checksum word, so the comparison costs no transfers.

use super::{flips, legal_moves, popcount};
use cubecl::prelude::*;
use cubesearch_core::Result;
use cubesearch_kernels::launch::{grid, read, upload};

/// A 64-bit board as two u32 words.
#[derive(CubeType, Clone, Copy)]
pub struct Pair {
    /// Squares 0..32.
    pub lo: u32,
    /// Squares 32..64.
    pub hi: u32,
}

#[cube]
fn pair(lo: u32, hi: u32) -> Pair {
    Pair { lo, hi }
}

#[cube]
fn and(a: Pair, b: Pair) -> Pair {
    pair(a.lo & b.lo, a.hi & b.hi)
}

#[cube]
fn or(a: Pair, b: Pair) -> Pair {
    pair(a.lo | b.lo, a.hi | b.hi)
}

/// Every bit up by `n` (1 ≤ n < 32), carried from the low word into the high one.
#[cube]
fn up(a: Pair, n: u32) -> Pair {
    pair(a.lo << n, (a.hi << n) | (a.lo >> (32u32 - n)))
}

/// Every bit down by `n` (1 ≤ n < 32), carried from the high word into the low one.
#[cube]
fn down(a: Pair, n: u32) -> Pair {
    pair((a.lo >> n) | (a.hi << (32u32 - n)), a.hi >> n)
}

#[cube]
fn is_zero(a: Pair) -> bool {
    (a.lo | a.hi) == 0u32
}

/// Bits counted without a population-count instruction (SWAR).
#[cube]
fn popcount32(x: u32) -> u32 {
    let pairs = x - ((x >> 1u32) & 0x5555_5555u32);
    let nibbles = (pairs & 0x3333_3333u32) + ((pairs >> 2u32) & 0x3333_3333u32);
    let bytes = (nibbles + (nibbles >> 4u32)) & 0x0F0F_0F0Fu32;
    (bytes * 0x0101_0101u32) >> 24u32
}

#[cube]
fn run_up(seeds: Pair, opp: Pair, n: u32, land: Pair) -> Pair {
    // Shadowed, not reassigned: a struct variable cannot be reassigned in `#[cube]` code.
    let line = and(and(up(seeds, n), land), opp);
    let line = or(line, and(and(up(line, n), land), opp));
    let line = or(line, and(and(up(line, n), land), opp));
    let line = or(line, and(and(up(line, n), land), opp));
    let line = or(line, and(and(up(line, n), land), opp));
    or(line, and(and(up(line, n), land), opp))
}

#[cube]
fn run_down(seeds: Pair, opp: Pair, n: u32, land: Pair) -> Pair {
    // Shadowed, not reassigned: a struct variable cannot be reassigned in `#[cube]` code.
    let line = and(and(down(seeds, n), land), opp);
    let line = or(line, and(and(down(line, n), land), opp));
    let line = or(line, and(and(down(line, n), land), opp));
    let line = or(line, and(and(down(line, n), land), opp));
    let line = or(line, and(and(down(line, n), land), opp));
    or(line, and(and(down(line, n), land), opp))
}

#[cube]
fn moves_along(p: Pair, o: Pair, empty: Pair, n: u32, up_land: Pair, down_land: Pair) -> Pair {
    let u = and(up(run_up(p, o, n, up_land), n), up_land);
    let d = and(down(run_down(p, o, n, down_land), n), down_land);
    and(or(u, d), empty)
}

#[cube]
fn legal_pair(p: Pair, o: Pair) -> Pair {
    let empty = pair(!(p.lo | o.lo), !(p.hi | o.hi));
    let all = pair(!0u32, !0u32);
    let not_a = pair(0xFEFE_FEFEu32, 0xFEFE_FEFEu32);
    let not_h = pair(0x7F7F_7F7Fu32, 0x7F7F_7F7Fu32);
    or(
        or(
            moves_along(p, o, empty, 1u32, not_a, not_h),
            moves_along(p, o, empty, 8u32, all, all),
        ),
        or(
            moves_along(p, o, empty, 9u32, not_a, not_h),
            moves_along(p, o, empty, 7u32, not_h, not_a),
        ),
    )
}

#[cube]
fn flips_along(sq: Pair, p: Pair, o: Pair, n: u32, up_land: Pair, down_land: Pair) -> Pair {
    let u = run_up(sq, o, n, up_land);
    let u_closed = !is_zero(and(and(up(u, n), up_land), p));
    let d = run_down(sq, o, n, down_land);
    let d_closed = !is_zero(and(and(down(d, n), down_land), p));
    pair(
        select(u_closed, u.lo, 0u32) | select(d_closed, d.lo, 0u32),
        select(u_closed, u.hi, 0u32) | select(d_closed, d.hi, 0u32),
    )
}

#[cube]
fn flips_pair(sq: Pair, p: Pair, o: Pair) -> Pair {
    let all = pair(!0u32, !0u32);
    let not_a = pair(0xFEFE_FEFEu32, 0xFEFE_FEFEu32);
    let not_h = pair(0x7F7F_7F7Fu32, 0x7F7F_7F7Fu32);
    or(
        or(
            flips_along(sq, p, o, 1u32, not_a, not_h),
            flips_along(sq, p, o, 8u32, all, all),
        ),
        or(
            flips_along(sq, p, o, 9u32, not_a, not_h),
            flips_along(sq, p, o, 7u32, not_h, not_a),
        ),
    )
}

/// The checksum of one side's placements: for each, the flipped discs folded in and counted.
#[cube]
fn side_sum_pair(p: Pair, o: Pair) -> u32 {
    let moves = legal_pair(p, o);
    // Two words, not a `Pair`: a struct variable cannot be reassigned in `#[cube]` code.
    let mut rest_lo = moves.lo;
    let mut rest_hi = moves.hi;
    let mut sum = 0u32;
    while (rest_lo | rest_hi) != 0u32 {
        // The lowest set bit, from whichever word holds it.
        let in_lo = rest_lo != 0u32;
        let low_lo = select(in_lo, rest_lo & (!rest_lo + 1u32), 0u32);
        let low_hi = select(in_lo, 0u32, rest_hi & (!rest_hi + 1u32));
        let bit = pair(low_lo, low_hi);
        rest_lo ^= low_lo;
        rest_hi ^= low_hi;
        let f = flips_pair(bit, p, o);
        sum = (sum ^ f.lo ^ (f.hi * 3u32)) + popcount32(f.lo) + popcount32(f.hi);
    }
    sum
}

/// The same checksum over u64 boards.
#[cube]
fn side_sum_u64(p: u64, o: u64) -> u32 {
    let mut rest = legal_moves(p, o);
    let mut sum = 0u32;
    while rest != 0u64 {
        let bit = rest & (!rest + 1u64);
        rest ^= bit;
        let f = flips(bit, p, o);
        let lo = u32::cast_from(f & 0xFFFF_FFFFu64);
        let hi = u32::cast_from(f >> 32u64);
        sum = (sum ^ lo ^ (hi * 3u32)) + popcount(f);
    }
    sum
}

/// `sums[i]` = the checksum of position i (both sides to move), computed on u64 boards or on
/// u32 pairs (`split`).
#[cube(launch_unchecked)]
pub fn board_words_kernel(
    boards: &Array<u32>,
    sums: &mut Array<u32>,
    count: u32,
    #[comptime] split: bool,
) {
    let i = ABSOLUTE_POS as u32;
    if i < count {
        let at = i as usize * 4usize;
        if comptime!(split) {
            let p = pair(boards[at], boards[at + 1]);
            let o = pair(boards[at + 2], boards[at + 3]);
            sums[i as usize] = side_sum_pair(p, o) * 7u32 + side_sum_pair(o, p);
        } else {
            let p = u64::cast_from(boards[at]) | (u64::cast_from(boards[at + 1]) << 32u64);
            let o = u64::cast_from(boards[at + 2]) | (u64::cast_from(boards[at + 3]) << 32u64);
            sums[i as usize] = side_sum_u64(p, o) * 7u32 + side_sum_u64(o, p);
        }
    }
}

/// The host's checksum of one position (the reference both layouts must equal).
pub fn checksum(player: u64, opponent: u64) -> u32 {
    let side = |p: u64, o: u64| {
        let board = crate::reversi::Board {
            player: p,
            opponent: o,
            to_move: crate::reversi::Colour::Black,
        };
        let mut rest = crate::reversi::movegen::legal_moves(&board);
        let mut sum = 0u32;
        while rest != 0 {
            let sq = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            let f = crate::reversi::movegen::flips(&board, sq);
            sum =
                (sum ^ f as u32 ^ ((f >> 32) as u32).wrapping_mul(3)).wrapping_add(f.count_ones());
        }
        sum
    };
    side(player, opponent)
        .wrapping_mul(7)
        .wrapping_add(side(opponent, player))
}

/// Uploads `(player, opponent)` boards once, for [`launch_board_words`].
pub fn upload_boards<R: Runtime>(
    client: &ComputeClient<R>,
    boards: &[(u64, u64)],
) -> cubecl::server::Handle {
    let words: Vec<u32> = boards
        .iter()
        .flat_map(|&(p, o)| [p as u32, (p >> 32) as u32, o as u32, (o >> 32) as u32])
        .collect();
    upload(client, &words)
}

/// How a device kernel holds a Reversi board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardLayout {
    /// Two u64 bitboards.
    U64,
    /// Two pairs of u32 words.
    U32Pairs,
}

/// Every uploaded board's checksum, computed with the boards held as `layout` says.
pub fn launch_board_words<R: Runtime>(
    client: &ComputeClient<R>,
    boards: &cubecl::server::Handle,
    count: usize,
    layout: BoardLayout,
) -> Result<Vec<u32>> {
    let split = layout == BoardLayout::U32Pairs;
    let sums = client.empty(count.max(1) * 4);
    let (cubes, dim) = grid(client, count);
    // SAFETY: unit i reads board i and writes sums[i]; units past `count` do nothing.
    unsafe {
        board_words_kernel::launch_unchecked::<R>(
            client,
            cubes,
            dim,
            ArrayArg::from_raw_parts(boards.clone(), count * 4),
            ArrayArg::from_raw_parts(sums.clone(), count.max(1)),
            count as u32,
            split,
        );
    }
    read::<R, u32>(client, sums)
}
