//! The seed's easy and medium players on the device, batched: one cube per position, one unit
//! per square (as the seed's `get_easyAI_move` kernel), each unit scoring its square if it is a
//! legal placement: easy = the discs it flips; medium = flips − the opponent's 2-ply
//! `predict` (`crate::reversi::players::medium_value`, bit for bit). The host then
//! draws among the best squares with the same reservoir sampling as the CPU players, so a GPU
//! player makes exactly the CPU player's moves. Many games' positions go in one launch.
//!
//! `seed_match_kernel` goes one step further for the seed's Table 3: whole games of the AI against
//! random, one cube a game, in a single launch. The units score the squares as above; unit 0
//! draws both sides' moves from the host's generators, so the device plays the host's games.

use super::{
    count_moves, flips, legal_moves, nth_bit, place, popcount, DeviceReversi, ReversiBoard,
};
use crate::reversi::players::{Level, NO_PLACEMENT};
use crate::reversi::{Board, Reversi};
use cubecl::prelude::*;
use cubesearch_core::{Error, Game, Result};
use cubesearch_kernels::device_game::DeviceGame;
use cubesearch_kernels::launch::{read, upload};
use cubesearch_kernels::rng;

/// The value of a square that is not a legal placement (far below any real value).
pub const NOT_LEGAL: i32 = -(1 << 20);
const NOT_LEGAL_MAGNITUDE: i32 = 1 << 20;
/// −[`NO_PLACEMENT`] (a positive constant: negative `let`s do not compile in `#[cube]` code).
const NO_PLACEMENT_MAGNITUDE: i32 = -NO_PLACEMENT;

/// The discs a disc of `p` on `square` (one bit) flips, as an i32.
#[cube]
fn flip_count(square: u64, p: u64, o: u64) -> i32 {
    i32::cast_from(popcount(flips(square, p, o)))
}

/// The seed's `predict(board, 1)`: the most discs one placement of `p` flips, or
/// `NO_PLACEMENT` when `p` has none.
#[cube]
fn predict1(p: u64, o: u64) -> i32 {
    let mut rest = legal_moves(p, o);
    // A runtime variable (a constant expression would stay a host value).
    let mut best: i32 = 0i32;
    best -= NO_PLACEMENT_MAGNITUDE;
    while rest != 0u64 {
        let low = rest & (!rest + 1u64);
        rest ^= low;
        best = i32::max(best, flip_count(low, p, o));
    }
    best
}

/// The seed's `predict(board, 2)`: the best over `p`'s placements of flips − `predict1` of the
/// reply position, or `NO_PLACEMENT` when `p` has none.
#[cube]
fn predict2(p: u64, o: u64) -> i32 {
    let mut rest = legal_moves(p, o);
    // A runtime variable (a constant expression would stay a host value).
    let mut best: i32 = 0i32;
    best -= NO_PLACEMENT_MAGNITUDE;
    while rest != 0u64 {
        let low = rest & (!rest + 1u64);
        rest ^= low;
        let f = flips(low, p, o);
        let n = i32::cast_from(popcount(f));
        best = i32::max(best, n - predict1(o & !f, p | f | low));
    }
    best
}

/// `values[b·64 + s]`: board `b`'s value of square `s` (easy or `medium`), or `NOT_LEGAL`.
#[cube(launch_unchecked)]
pub fn seed_values_kernel(boards: &Array<u32>, values: &mut Array<i32>, #[comptime] medium: bool) {
    let b = CUBE_POS;
    let board = DeviceReversi::load(boards, b * 5usize);
    values[b * 64usize + UNIT_POS as usize] =
        square_value(board.player, board.opponent, UNIT_POS, medium);
}

/// The easy (or `medium`) value of placing a disc of `p` on `square`, `NOT_LEGAL` if it is not a
/// placement.
#[cube]
fn square_value(p: u64, o: u64, square: u32, #[comptime] medium: bool) -> i32 {
    let bit = 1u64 << u64::cast_from(square);
    let mut value: i32 = 0i32;
    value -= NOT_LEGAL_MAGNITUDE;
    if (legal_moves(p, o) & bit) != 0u64 {
        let f = flips(bit, p, o);
        value = i32::cast_from(popcount(f));
        if comptime!(medium) {
            value -= predict2(o & !f, p | f | bit);
        }
    }
    value
}

/// Move slots a game has in `seed_match_kernel`'s output (its ply loop's trip count): at most 60
/// placements and a pass before each but the first (two passes in a row end the game).
pub const MATCH_PLIES: usize = 128;
/// The slot value of a pass (squares are 0..64).
pub const PASS: u32 = 64;
/// Slot value past a game's end.
pub const NO_MOVE: u32 = 65;

/// The seed's reservoir draw among the best of the 64 square `values` (ascending squares, the
/// `k`-th best replacing the choice when `below(k) == 0`), as `players::reservoir_best`.
#[cube]
fn reservoir_square(values: &SharedMemory<i32>, rng: &mut u32) -> u32 {
    let mut best: i32 = values[0];
    for s in 1..64usize {
        best = i32::max(best, values[s]);
    }
    // A runtime variable (a constant expression would stay a host value).
    let mut chosen = 0u32;
    chosen += PASS;
    let mut seen = 0u32;
    for s in 0..64usize {
        if values[s] == best {
            seen += 1u32;
            if rng::below(rng, seen) == 0u32 {
                chosen = u32::cast_from(s);
            }
        }
    }
    chosen
}

/// Game `g = CUBE_POS` of the AI (easy, or `medium`) against random from the start, the AI
/// moving first in even games; the AI draws its ties from worker `2g` of `seed`, random from
/// worker `2g + 1` (as `cubesearch_bench::seed_batch`). Writes the game's moves to
/// `moves[g·MATCH_PLIES ..]` (`PASS`, then `NO_MOVE` past the end) and its final disc difference
/// for the side to move at the end to `results[g]`. One unit per square scores the AI's squares.
#[cube(launch_unchecked)]
pub fn seed_match_kernel(
    start: &Array<u32>,
    seed: u32,
    moves: &mut Array<u32>,
    results: &mut Array<i32>,
    #[comptime] medium: bool,
) {
    let game = CUBE_POS as u32;
    let square = UNIT_POS;
    let mut values = SharedMemory::<i32>::new(64usize);
    // The board (player lo, hi, opponent lo, hi) and 1 once the game is over.
    let mut shared = SharedMemory::<u32>::new(5usize);
    let mut ai_rng = rng::worker_state(seed, 2u32 * game);
    let mut random_rng = rng::worker_state(seed, 2u32 * game + 1u32);
    let ai_parity = game & 1u32;
    if square < 4u32 {
        shared[square as usize] = start[square as usize];
    }
    if square == 4u32 {
        shared[4] = 0u32;
    }
    sync_cube();
    // A fixed trip count keeps every barrier in uniform control flow; finished games idle.
    for ply in 0..comptime!(MATCH_PLIES as u32) {
        let over = shared[4] == 1u32;
        let mut board = ReversiBoard {
            player: u64::cast_from(shared[0]) | (u64::cast_from(shared[1]) << 32u64),
            opponent: u64::cast_from(shared[2]) | (u64::cast_from(shared[3]) << 32u64),
            white: 0u32,
        };
        let ai_turn = (ply & 1u32) == ai_parity;
        if !over && ai_turn {
            values[square as usize] = square_value(board.player, board.opponent, square, medium);
        }
        sync_cube();
        if square == 0u32 && !over {
            let mine = legal_moves(board.player, board.opponent);
            let theirs = legal_moves(board.opponent, board.player);
            let slot = (game as usize) * MATCH_PLIES + ply as usize;
            if (mine | theirs) == 0u64 {
                shared[4] = 1u32;
                moves[slot] = NO_MOVE;
                results[game as usize] = i32::cast_from(popcount(board.player))
                    - i32::cast_from(popcount(board.opponent));
            } else {
                // The square played, one bit; none for a pass. With no placement the AI passes
                // without a draw (the host's reservoir), random draws its one move.
                let mut placed = 0u64;
                if ai_turn {
                    if mine != 0u64 {
                        placed = 1u64 << u64::cast_from(reservoir_square(&values, &mut ai_rng));
                    }
                } else {
                    let index = rng::below(&mut random_rng, count_moves(mine, theirs));
                    placed = select(mine != 0u64, nth_bit(mine, index), 0u64);
                }
                moves[slot] = select(placed != 0u64, popcount(placed - 1u64), PASS);
                place(&mut board, placed);
                shared[0] = u32::cast_from(board.player & 0xFFFF_FFFFu64);
                shared[1] = u32::cast_from(board.player >> 32u64);
                shared[2] = u32::cast_from(board.opponent & 0xFFFF_FFFFu64);
                shared[3] = u32::cast_from(board.opponent >> 32u64);
            }
        }
        sync_cube();
    }
}

/// Every board's 64 square values for the player of `level`, `NOT_LEGAL` where a square is not
/// a placement; one launch for all boards.
pub fn launch_seed_values<R: Runtime>(
    client: &ComputeClient<R>,
    boards: &[Board],
    level: Level,
) -> Result<Vec<[i32; 64]>> {
    let medium = level == Level::Medium;
    if boards.is_empty() {
        return Ok(Vec::new());
    }
    if boards.len() > 65_535 {
        return Err(Error::Unsupported(format!(
            "{} positions in one launch: at most 65535",
            boards.len()
        )));
    }
    let words = upload(client, &Reversi.encode_all(boards));
    let values = client.empty(boards.len() * 64 * std::mem::size_of::<i32>());
    // SAFETY: cube b reads board b and writes values[b·64 .. b·64 + 64], one slot per unit.
    unsafe {
        seed_values_kernel::launch_unchecked::<R>(
            client,
            CubeCount::Static(boards.len() as u32, 1, 1),
            CubeDim::new_1d(64),
            ArrayArg::from_raw_parts(words, boards.len() * Reversi::STATE_WORDS),
            ArrayArg::from_raw_parts(values.clone(), boards.len() * 64),
            medium,
        );
    }
    let flat = read::<R, i32>(client, values)?;
    Ok(flat
        .chunks_exact(64)
        .map(|c| c.try_into().expect("64 values"))
        .collect())
}

/// Whole games of the player of `level` against random from the start, one cube a game, in one
/// launch (`seed_match_kernel`): each game's move slots (`MATCH_PLIES` a game) and its final
/// disc difference for the side to move at the end.
pub fn launch_seed_match<R: Runtime>(
    client: &ComputeClient<R>,
    games: u32,
    seed: u32,
    level: Level,
) -> Result<(Vec<u32>, Vec<i32>)> {
    let medium = level == Level::Medium;
    if games == 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    if games > 65_535 {
        return Err(Error::Unsupported(format!(
            "{games} games in one launch: at most 65535"
        )));
    }
    let n = games as usize;
    let start = upload(client, &Reversi.encode_all(&[Reversi.initial()]));
    let moves = upload(client, &vec![NO_MOVE; n * MATCH_PLIES]);
    let results = client.empty(n * std::mem::size_of::<i32>());
    // SAFETY: cube g writes moves[g·MATCH_PLIES + ply] for ply < MATCH_PLIES and results[g].
    unsafe {
        seed_match_kernel::launch_unchecked::<R>(
            client,
            CubeCount::Static(games, 1, 1),
            CubeDim::new_1d(64),
            ArrayArg::from_raw_parts(start, Reversi::STATE_WORDS),
            seed,
            ArrayArg::from_raw_parts(moves.clone(), n * MATCH_PLIES),
            ArrayArg::from_raw_parts(results.clone(), n),
            medium,
        );
    }
    Ok((
        read::<R, u32>(client, moves)?,
        read::<R, i32>(client, results)?,
    ))
}
