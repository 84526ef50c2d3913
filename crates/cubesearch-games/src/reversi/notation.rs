//! Reversi text (docs/RULES.md): a position is 64 characters for a1, b1, …, h8
//! (`X` Black, `O` White, `-` empty), a space, and the side to move (`X` or `O`); a move is a
//! square `a1`..`h8` or `pass`. [`display_board`] draws a position for a person.

use super::board::{bit, Board, Colour, Square};
use cubesearch_core::{Error, Result};

/// A square's name, `a1`..`h8`.
pub fn square_name(square: Square) -> String {
    let file = (b'a' + square % 8) as char;
    let rank = (b'1' + square / 8) as char;
    format!("{file}{rank}")
}

/// The square named `text` (`a1`..`h8`), if it is one.
pub fn parse_square(text: &str) -> Option<Square> {
    match text.as_bytes() {
        &[file @ b'a'..=b'h', rank @ b'1'..=b'8'] => Some((rank - b'1') * 8 + (file - b'a')),
        _ => None,
    }
}

fn colour_char(colour: Colour) -> char {
    match colour {
        Colour::Black => 'X',
        Colour::White => 'O',
    }
}

/// The position text of `board`.
pub fn format_board(board: &Board) -> String {
    let black = board.discs(Colour::Black);
    let white = board.discs(Colour::White);
    let mut text: String = (0..64)
        .map(|square| {
            if black & bit(square) != 0 {
                'X'
            } else if white & bit(square) != 0 {
                'O'
            } else {
                '-'
            }
        })
        .collect();
    text.push(' ');
    text.push(colour_char(board.to_move));
    text
}

/// The board drawn for a person: rank 8 on top, files a–h, `X` Black, `O` White, `*` a square
/// where the side to move may place a disc, `-` another empty square; then the disc counts and
/// whose turn it is (or that the game is over, or that the side to move must pass).
pub fn display_board(board: &Board) -> String {
    let black = board.discs(Colour::Black);
    let white = board.discs(Colour::White);
    let legal = super::movegen::legal_moves(board);
    let files = "    a b c d e f g h\n";
    let mut text = String::from(files);
    for rank in (0..8u8).rev() {
        text.push_str(&format!("  {} ", rank + 1));
        for file in 0..8u8 {
            let square = bit(rank * 8 + file);
            text.push(if black & square != 0 {
                'X'
            } else if white & square != 0 {
                'O'
            } else if legal & square != 0 {
                '*'
            } else {
                '-'
            });
            text.push(' ');
        }
        text.push_str(&format!("{}\n", rank + 1));
    }
    text.push_str(files);
    text.push_str(&format!(
        "X (Black) {}  O (White) {}\n",
        black.count_ones(),
        white.count_ones()
    ));
    let side = colour_char(board.to_move);
    if super::is_finished(board) {
        text.push_str("game over");
    } else if legal == 0 {
        text.push_str(&format!(
            "{side} to move: no legal square, {side} must pass"
        ));
    } else {
        text.push_str(&format!("{side} to move (* marks the legal squares)"));
    }
    text
}

/// Reads position text written by [`format_board`] (spaces around it are ignored).
pub fn parse_board(text: &str) -> Result<Board> {
    let bad = |why: &str| {
        Error::parse(format!(
            "bad Reversi position '{text}': {why}; expected 64 characters a1..h8 of X, O or -, \
             a space, and the side to move (X or O)"
        ))
    };
    let mut parts = text.split_whitespace();
    let (Some(squares), Some(side), None) = (parts.next(), parts.next(), parts.next()) else {
        return Err(bad(
            "it must be the squares and the side to move, separated by a space",
        ));
    };
    if squares.chars().count() != 64 {
        return Err(bad(&format!(
            "{} square characters instead of 64",
            squares.chars().count()
        )));
    }
    let (mut black, mut white) = (0u64, 0u64);
    for (square, c) in squares.chars().enumerate() {
        match c {
            'X' => black |= bit(square as Square),
            'O' => white |= bit(square as Square),
            '-' => {}
            other => {
                return Err(bad(&format!(
                    "'{other}' on {} is not X, O or -",
                    square_name(square as Square)
                )))
            }
        }
    }
    // Discs are never taken off: no game has an empty board.
    if black | white == 0 {
        return Err(bad(
            "no discs, but a game starts with 4 and never loses one",
        ));
    }
    let board = Board {
        player: black,
        opponent: white,
        to_move: Colour::Black,
    };
    match side {
        "X" => Ok(board),
        "O" => Ok(board.swapped()),
        other => Err(bad(&format!("the side to move '{other}' is not X or O"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_is_drawn_with_coordinates_legal_squares_and_counts() {
        let text = display_board(&Board::start());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "    a b c d e f g h");
        assert_eq!(lines[1], "  8 - - - - - - - - 8");
        assert_eq!(lines[3], "  6 - - - - * - - - 6"); // e6
        assert_eq!(lines[4], "  5 - - - X O * - - 5"); // d5 X, e5 O, f5
        assert_eq!(lines[5], "  4 - - * O X - - - 4"); // c4, d4 O, e4 X
        assert_eq!(lines[6], "  3 - - - * - - - - 3"); // d3
        assert_eq!(lines[8], "  1 - - - - - - - - 1");
        assert_eq!(lines[9], lines[0]);
        assert_eq!(lines[10], "X (Black) 2  O (White) 2");
        assert_eq!(lines[11], "X to move (* marks the legal squares)");
        assert_eq!(text.matches('*').count(), 5); // four squares and the legend
    }

    #[test]
    fn squares_are_named_by_file_then_rank() {
        assert_eq!(square_name(0), "a1");
        assert_eq!(square_name(7), "h1");
        assert_eq!(square_name(63), "h8");
        for square in 0..64 {
            assert_eq!(parse_square(&square_name(square)), Some(square));
        }
        for text in ["", "i1", "a9", "a0", "A1", "a11", "pass"] {
            assert_eq!(parse_square(text), None, "{text}");
        }
    }
}
