//! The board drawn for a person: the 8×8 board with Black at the top, the dark squares numbered
//! 1–32 as in all checkers text, men as `b`/`w`, kings as `B`/`W`, and a status line.

use super::board::{index_of, on_board, CheckersState, Side, GEOMETRY};

/// What stands on the dark square at column `x`, row `y` (row 7 is Black's back row): a piece
/// letter, or the square's number when it is empty.
fn cell(state: &CheckersState, x: i32, y: i32) -> String {
    let i = index_of(x, y);
    let bit = 1u32 << i;
    let king = state.kings & bit != 0;
    if state.black & bit != 0 {
        if king { "B" } else { "b" }.to_string()
    } else if state.white & bit != 0 {
        if king { "W" } else { "w" }.to_string()
    } else {
        GEOMETRY.number[i as usize].to_string()
    }
}

/// The board, a legend and a status line (side to move, rules, plies since the last capture).
///
/// ```text
///   +--------------------------------+
///   |     b       b       b       b  |
///   ...
///   |  29      30      31      32    |
///   +--------------------------------+
/// ```
pub fn display(state: &CheckersState) -> String {
    let mut out = String::new();
    let border = format!("+{}+\n", "-".repeat(8 * 4));
    out.push_str(&border);
    for y in (0..8).rev() {
        out.push('|');
        for x in 0..8 {
            if on_board(x, y) {
                out.push_str(&format!("{:>3} ", cell(state, x, y)));
            } else {
                out.push_str("  . ");
            }
        }
        out.push_str("|\n");
    }
    out.push_str(&border);
    out.push_str("b/w = Black/White man, B/W = king; empty dark squares show their number\n");
    let side = match state.side() {
        Side::Black => "Black (b) to move, downwards",
        Side::White => "White (w) to move, upwards",
    };
    out.push_str(&format!(
        "{side}; rules {}; {} plies since the last capture (draw at {})",
        state.rules().name(),
        state.quiet_plies(),
        state.draw_limit()
    ));
    out
}

#[cfg(test)]
mod tests {
    use crate::checkers::{Checkers, Rules};
    use cubesearch_core::Game;

    /// The cells of the eight board rows, top (square 1's row) first.
    fn cells(text: &str) -> Vec<Vec<String>> {
        text.lines()
            .filter(|l| l.starts_with('|'))
            .map(|l| {
                l.trim_matches('|')
                    .split_whitespace()
                    .map(str::to_string)
                    .collect()
            })
            .collect()
    }

    #[test]
    fn the_start_shows_24_men_and_the_empty_middle() {
        let game = Checkers::default();
        let text = game.display(&game.initial());
        let rows = cells(&text);
        assert_eq!(rows.len(), 8, "{text}");
        assert!(rows.iter().all(|r| r.len() == 8), "{text}");
        let all: Vec<&str> = rows.iter().flatten().map(String::as_str).collect();
        assert_eq!(all.iter().filter(|&&c| c == "b").count(), 12, "{text}");
        assert_eq!(all.iter().filter(|&&c| c == "w").count(), 12, "{text}");
        assert_eq!(all.iter().filter(|&&c| c == ".").count(), 32, "{text}");
        // Squares 13-20 are empty and numbered, in rows 4 and 5 from the top, in order.
        let middle: Vec<&str> = rows[3..5]
            .iter()
            .flatten()
            .map(String::as_str)
            .filter(|&c| c != ".")
            .collect();
        assert_eq!(
            middle,
            ["13", "14", "15", "16", "17", "18", "19", "20"],
            "{text}"
        );
        // Black on top: the first row holds squares 1-4 (Black men), the last 29-32.
        assert_eq!(rows[0], [".", "b", ".", "b", ".", "b", ".", "b"], "{text}");
        assert_eq!(rows[7], ["w", ".", "w", ".", "w", ".", "w", "."], "{text}");
        assert!(text.contains("Black (b) to move"), "{text}");
        assert!(text.contains("rules longest"), "{text}");
        assert!(text.contains("0 plies since the last capture"), "{text}");
        assert!(text.contains("B/W = king"), "{text}");
    }

    #[test]
    fn kings_show_as_kings_on_their_squares() {
        let game = Checkers::new(Rules::American);
        let text = game.display(&game.parse_position("W:WK1,5,K32:B2,K28").unwrap());
        let rows = cells(&text);
        assert_eq!(rows[0], [".", "W", ".", "b", ".", "3", ".", "4"], "{text}");
        assert_eq!(rows[1][0], "w", "{text}");
        assert_eq!(rows[6][7], "B", "{text}");
        assert_eq!(rows[7][6], "W", "{text}");
        assert!(text.contains("White (w) to move"), "{text}");
        assert!(text.contains("rules american"), "{text}");
    }

    #[test]
    fn quiet_plies_are_counted_on_the_status_line() {
        let game = Checkers::new(Rules::American);
        let mut s = game.parse_position("B:WK32:BK1").unwrap();
        for _ in 0..3 {
            s = game.apply(&s, game.moves(&s)[0]);
        }
        let text = game.display(&s);
        assert!(
            text.contains("3 plies since the last capture (draw at 50)"),
            "{text}"
        );
    }
}
