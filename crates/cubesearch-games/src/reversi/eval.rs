//! The static evaluation that alpha-beta scores its leaves with: a handful of bitboard features,
//! each a count for the side to move minus the same count for the opponent, weighted and summed.
//! The device twin ([`device::eval`](super::device::eval)) computes exactly the same integer, so the
//! GPU search strategies return the same values as the CPU ones.
//!
//! | feature | why |
//! |---|---|
//! | mobility: legal placements | the side with more choices avoids being forced into bad ones |
//! | potential mobility: empty squares next to the opponent's discs | future mobility; few frontier discs |
//! | corners | a corner disc can never be flipped |
//! | X squares (b2, g2, b7, g7) beside an empty corner | they hand the corner to the opponent |
//! | C squares (b1, a2, …) beside an empty corner | the same, less often |
//! | edge discs anchored to an owned corner by an unbroken own run | stable: never flipped again |
//!
//! A heuristic value stays inside ±([`WIN_SCALE`] − 1); a finished game scores its final disc
//! difference times [`WIN_SCALE`], so any win ranks above any unfinished position.

use super::board::{Board, FILE_A, FILE_H};
use super::movegen::{legal_moves, shift, DIRECTIONS};

/// A finished game's score is its final disc difference times this; heuristics stay below it.
pub const WIN_SCALE: i32 = 4096;

/// Weight of one legal placement more than the opponent.
pub const MOBILITY: i32 = 8;
/// Weight of one empty square next to an opponent disc.
pub const POTENTIAL_MOBILITY: i32 = 4;
/// Weight of a corner.
pub const CORNER: i32 = 80;
/// Penalty of a disc on an X square beside an empty corner.
pub const X_SQUARE: i32 = 40;
/// Penalty of a disc on a C square beside an empty corner.
pub const C_SQUARE: i32 = 15;
/// Weight of an edge disc anchored to an owned corner.
pub const ANCHORED: i32 = 12;

/// a1, h1, a8, h8.
pub const CORNERS: u64 = 0x8100_0000_0000_0081;
/// Rank 1, rank 8, file a and file h.
pub const EDGES: u64 = 0xFF81_8181_8181_81FF;
const A1: u64 = 1;
const H1: u64 = 1 << 7;
const A8: u64 = 1 << 56;
const H8: u64 = 1 << 63;

/// Every square next to one of `discs` (in any of the eight directions).
pub fn neighbours(discs: u64) -> u64 {
    DIRECTIONS.iter().fold(0, |n, &dir| n | shift(discs, dir))
}

/// The X squares beside the corners in `corners`.
pub fn x_squares(corners: u64) -> u64 {
    ((corners & A1) << 9) | ((corners & H1) << 7) | ((corners & A8) >> 7) | ((corners & H8) >> 9)
}

/// The C squares beside the corners in `corners`.
pub fn c_squares(corners: u64) -> u64 {
    ((corners & A1) << 1)
        | ((corners & A1) << 8)
        | ((corners & H1) >> 1)
        | ((corners & H1) << 8)
        | ((corners & A8) << 1)
        | ((corners & A8) >> 8)
        | ((corners & H8) >> 1)
        | ((corners & H8) >> 8)
}

/// `own`'s edge discs joined to an owned corner by an unbroken run of `own` discs along the edge.
pub fn anchored(own: u64) -> u64 {
    let mut stable = own & CORNERS;
    // Seven steps reach the far end of an edge.
    for _ in 0..7 {
        let along_ranks = ((stable << 1) & !FILE_A) | ((stable >> 1) & !FILE_H);
        let along_files = (stable << 8) | (stable >> 8);
        stable |= (along_ranks | along_files) & own & EDGES;
    }
    stable
}

/// The features of one side (`own`) against the other (`other`), weighted and summed.
fn side(own: u64, other: u64, empty_corners: u64) -> i32 {
    let empty = !(own | other);
    let count = |b: u64| b.count_ones() as i32;
    MOBILITY
        * count(legal_moves(&Board {
            player: own,
            opponent: other,
            to_move: super::Colour::Black,
        }))
        + POTENTIAL_MOBILITY * count(neighbours(other) & empty)
        + CORNER * count(own & CORNERS)
        - X_SQUARE * count(own & x_squares(empty_corners))
        - C_SQUARE * count(own & c_squares(empty_corners))
        + ANCHORED * count(anchored(own))
}

/// The heuristic value of an unfinished position for the side to move, inside ±(WIN_SCALE − 1).
pub fn evaluate(board: &Board) -> i32 {
    let empty_corners = board.empty() & CORNERS;
    let value = side(board.player, board.opponent, empty_corners)
        - side(board.opponent, board.player, empty_corners);
    value.clamp(1 - WIN_SCALE, WIN_SCALE - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reversi::board::bit;

    #[test]
    fn the_start_is_level_and_masks_sit_where_named() {
        assert_eq!(evaluate(&Board::start()), 0);
        assert_eq!(x_squares(CORNERS), bit(9) | bit(14) | bit(49) | bit(54));
        let c = [1, 8, 6, 15, 48, 57, 62, 55];
        assert_eq!(c_squares(CORNERS), c.iter().map(|&s| bit(s)).sum::<u64>());
        assert_eq!(neighbours(bit(0)), bit(1) | bit(8) | bit(9));
    }

    #[test]
    fn anchored_runs_stop_at_a_gap_and_need_a_corner() {
        // a1 b1 c1 own, d1 empty, e1 own: a1..c1 anchored; a run without a corner is not.
        let own = bit(0) | bit(1) | bit(2) | bit(4) | bit(8) | bit(62);
        assert_eq!(anchored(own), bit(0) | bit(1) | bit(2) | bit(8));
        // The whole rank 1 from a1 to h1, and h1 up file h.
        let rank = 0xFF | bit(15);
        assert_eq!(anchored(rank), rank);
    }
}
