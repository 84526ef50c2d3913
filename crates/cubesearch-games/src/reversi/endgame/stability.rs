//! Stable discs: discs no move can ever flip, a lower bound on what their owner keeps, so an
//! upper bound on the other side's final score (the stability cutoff).

/// Every square but file a.
const NOT_FILE_A: u64 = 0xFEFE_FEFE_FEFE_FEFE;
/// Every square but file h.
const NOT_FILE_H: u64 = 0x7F7F_7F7F_7F7F_7F7F;
/// Files a and h: a disc there has no neighbour on one side along a rank.
const FILES_A_H: u64 = !NOT_FILE_A | !NOT_FILE_H;
/// Ranks 1 and 8: a disc there has no neighbour on one side along a file.
const RANKS_1_8: u64 = 0xFF00_0000_0000_00FF;
/// The border: a disc there has no neighbour on one side along either diagonal.
const BORDER: u64 = FILES_A_H | RANKS_1_8;

/// The board's lines in each of the four directions (ranks, files, a1–h8 diagonals, h1–a8
/// diagonals), as masks.
static LINES: [[u64; 15]; 4] = lines();

const fn lines() -> [[u64; 15]; 4] {
    let mut out = [[0u64; 15]; 4];
    let mut sq = 0;
    while sq < 64 {
        let (file, rank) = (sq % 8, sq / 8);
        out[0][rank] |= 1 << sq;
        out[1][file] |= 1 << sq;
        out[2][7 + file - rank] |= 1 << sq;
        out[3][file + rank] |= 1 << sq;
        sq += 1;
    }
    out
}

/// The squares whose line in each direction holds no empty square.
fn full_lines(filled: u64) -> [u64; 4] {
    LINES.map(|direction| {
        direction
            .iter()
            .filter(|&&line| line != 0 && filled & line == line)
            .fold(0, |full, line| full | line)
    })
}

/// The discs of `p` (against `o`) no move can flip. Along a direction a disc cannot be
/// flipped when its line there is full (no move will ever land on it), or when a neighbour
/// along it is off the board or a stable disc of its own (it can never be bracketed); a disc
/// safe along all four is stable. Grown from none until nothing changes: a lower bound on the
/// stable discs, never more.
pub(super) fn stable_discs(p: u64, o: u64) -> u64 {
    let [ranks, files, diagonals, anti_diagonals] = full_lines(p | o);
    let mut stable = 0u64;
    loop {
        let along_rank =
            ranks | FILES_A_H | (stable << 1 & NOT_FILE_A) | (stable >> 1 & NOT_FILE_H);
        let along_file = files | RANKS_1_8 | stable << 8 | stable >> 8;
        let along_diagonal =
            diagonals | BORDER | (stable << 9 & NOT_FILE_A) | (stable >> 9 & NOT_FILE_H);
        let along_anti =
            anti_diagonals | BORDER | (stable << 7 & NOT_FILE_H) | (stable >> 7 & NOT_FILE_A);
        let next = p & along_rank & along_file & along_diagonal & along_anti;
        if next == stable {
            return stable;
        }
        stable = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reversi::Reversi;
    use cubesearch_core::rng::XorShift32;
    use cubesearch_core::Game;

    /// Along random games, the discs found stable for either side stay that side's to the end.
    #[test]
    fn stable_discs_never_flip() {
        let mut rng = XorShift32::for_worker(77, 0);
        let mut found = 0;
        for _ in 0..300 {
            let mut board = Reversi.initial();
            // (Black's discs, White's discs) known stable, as absolute colours.
            let mut known = (0u64, 0u64);
            loop {
                let black_to_move = board.to_move == crate::reversi::Colour::Black;
                let (black, white) = if black_to_move {
                    (board.player, board.opponent)
                } else {
                    (board.opponent, board.player)
                };
                assert_eq!(known.0 & !black, 0, "a stable black disc flipped");
                assert_eq!(known.1 & !white, 0, "a stable white disc flipped");
                known.0 |= stable_discs(black, white);
                known.1 |= stable_discs(white, black);
                let moves = Reversi.moves(&board);
                if moves.is_empty() {
                    break;
                }
                board = Reversi.apply(&board, moves[rng.below(moves.len() as u32) as usize]);
            }
            found += (known.0 | known.1).count_ones();
        }
        // Finished games hold many stable discs: the bound is not trivially empty.
        assert!(found > 300 * 20, "{found}");
    }

    #[test]
    fn corners_and_full_edges_are_stable() {
        // Black on a1 and on the whole of rank 1; White on h8.
        let black = 0xFF;
        let white = 1 << 63;
        assert_eq!(stable_discs(black, white), 0xFF);
        assert_eq!(stable_discs(white, black), 1 << 63);
        // A lone disc inside the board, its lines open, is not.
        assert_eq!(stable_discs(1 << 27, 1 << 28), 0);
    }
}
