//! Othello games as GGF (the Generic Game Format of GGS and NBoard), read and written:
//!
//! ```text
//! (;GM[Othello]PC[cubesearch]DT[2026.11.24]PB[black]PW[white]RE[+12]TY[8]
//!   BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6]…W[PA]…;)
//! ```
//!
//! `BO`: the size, the 64 squares a1, b1, …, h8 (`*` Black, `O` White, `-` empty; rows may be
//! spaced apart), and the side to move. `B[…]`/`W[…]`: each side's moves in order, `PA` a pass,
//! a move optionally followed by `/eval/time` (NBoard's). `RE`: Black's disc difference at the
//! end (`?` unknown). Other properties are read past.

use super::notation::{parse_board, parse_square, square_name};
use super::{Board, Colour, Reversi, ReversiMove};
use cubesearch_core::{Error, Game, Result};

/// A move as GGF writes it: `F5`, or `PA` for a pass.
pub fn move_text(mv: ReversiMove) -> String {
    match mv {
        ReversiMove::Place(square) => square_name(square).to_ascii_uppercase(),
        ReversiMove::Pass => "PA".into(),
    }
}

/// A GGF or NBoard move (`F5`, `f5`, `PA`, `pass`, `F5/1.5/0.2`): the move, its `/eval/time`
/// left out. Whether it is legal is the caller's to check.
pub fn parse_move(text: &str) -> Result<ReversiMove> {
    let square = text
        .split('/')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    match square.as_str() {
        "pa" | "pass" => Ok(ReversiMove::Pass),
        s => parse_square(s).map(ReversiMove::Place).ok_or_else(|| {
            Error::parse(format!(
                "bad Othello move '{text}': expected a square A1..H8 or PA"
            ))
        }),
    }
}

/// The `BO[…]` value as a position: `8`, 64 squares and the side to move.
fn parse_bo(value: &str) -> Result<Board> {
    let bad = |why: &str| Error::parse(format!("bad GGF board BO[{value}]: {why}"));
    let mut words: Vec<&str> = value.split_whitespace().collect();
    if words.first() != Some(&"8") {
        return Err(bad("only 8×8 boards"));
    }
    let side = match words.pop() {
        Some("*") => 'X',
        Some("O") | Some("o") => 'O',
        _ => return Err(bad("the side to move, * or O, comes last")),
    };
    let mut squares = String::with_capacity(64);
    for c in words[1..].concat().chars() {
        squares.push(match c {
            '*' | 'X' | 'x' | '#' => 'X',
            'O' | 'o' => 'O',
            '-' | '.' => '-',
            other => return Err(bad(&format!("'{other}' is not *, O or -"))),
        });
    }
    parse_board(&format!("{squares} {side}")).map_err(|e| bad(&e.to_string()))
}

/// The `BO[…]` value of `board`.
fn format_bo(board: &Board) -> String {
    let squares: String = (0..64u8)
        .map(|square| {
            if board.discs(Colour::Black) & super::board::bit(square) != 0 {
                '*'
            } else if board.discs(Colour::White) & super::board::bit(square) != 0 {
                'O'
            } else {
                '-'
            }
        })
        .collect();
    let side = if board.to_move == Colour::Black {
        '*'
    } else {
        'O'
    };
    format!("8 {squares} {side}")
}

/// A GGF game read: where it started and its moves, each checked legal in turn.
pub fn parse_game(text: &str) -> Result<(Board, Vec<ReversiMove>)> {
    let bad = |why: String| Error::parse(format!("bad GGF game: {why}"));
    let body = text.trim();
    let body = body
        .strip_prefix("(;")
        .and_then(|b| b.strip_suffix(";)"))
        .ok_or_else(|| bad("it must start with (; and end with ;)".into()))?;
    let game = Reversi;
    let mut start = None;
    let mut state = game.initial();
    let mut moves = Vec::new();
    let mut rest = body;
    while let Some(open) = rest.find('[') {
        let tag = rest[..open].trim();
        let close = rest[open..]
            .find(']')
            .ok_or_else(|| bad(format!("{tag}[ is not closed")))?
            + open;
        let value = &rest[open + 1..close];
        rest = &rest[close + 1..];
        match tag {
            "GM" if !value.eq_ignore_ascii_case("othello") => {
                return Err(bad(format!("GM[{value}] is not Othello")))
            }
            "BO" => {
                if !moves.is_empty() {
                    return Err(bad("BO comes before the moves".into()));
                }
                state = parse_bo(value)?;
                start = Some(state);
            }
            "B" | "W" => {
                let colour = if tag == "B" {
                    Colour::Black
                } else {
                    Colour::White
                };
                if colour != state.to_move {
                    return Err(bad(format!(
                        "{tag}[{value}] when the other side is to move"
                    )));
                }
                let mv = parse_move(value)?;
                if !game.moves(&state).contains(&mv) {
                    return Err(bad(format!(
                        "{tag}[{value}] is not legal after {} moves",
                        moves.len()
                    )));
                }
                state = game.apply(&state, mv);
                moves.push(mv);
            }
            _ => {}
        }
    }
    if !rest.trim().is_empty() {
        return Err(bad(format!("'{}' is not a property", rest.trim())));
    }
    Ok((start.unwrap_or_else(|| game.initial()), moves))
}

/// A game as GGF, `players` Black's and White's names, `date` as `YYYY.MM.DD`.
pub fn game_to_ggf(start: &Board, moves: &[ReversiMove], players: [&str; 2], date: &str) -> String {
    let game = Reversi;
    let clean = |name: &str| name.replace([']', '\\'], "");
    let mut end = *start;
    let mut text = String::new();
    for &mv in moves {
        let tag = if end.to_move == Colour::Black {
            'B'
        } else {
            'W'
        };
        text.push_str(&format!("{tag}[{}]", move_text(mv)));
        end = game.apply(&end, mv);
    }
    let result = if super::is_finished(&end) {
        let black = end.discs(Colour::Black).count_ones() as i32;
        let white = end.discs(Colour::White).count_ones() as i32;
        format!("{:+}", black - white)
    } else {
        "?".into()
    };
    format!(
        "(;GM[Othello]PC[cubesearch]DT[{date}]PB[{}]PW[{}]RE[{result}]TY[8]BO[{}]{text};)",
        clean(players[0]),
        clean(players[1]),
        format_bo(start)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_round_trips_through_ggf() {
        let game = Reversi;
        // A game's first moves, a pass forced by a position where Black cannot move, and on.
        let mut state = game.initial();
        let mut moves = Vec::new();
        let mut rng = cubesearch_core::rng::XorShift32::for_worker(7, 0);
        while game.outcome(&state) == cubesearch_core::Outcome::Ongoing {
            let legal = game.moves(&state);
            let mv = legal[rng.below(legal.len() as u32) as usize];
            moves.push(mv);
            state = game.apply(&state, mv);
        }
        let text = game_to_ggf(&game.initial(), &moves, ["x", "y]"], "2026.11.24");
        assert!(text.contains("PW[y]") && text.contains("RE[") && !text.contains("RE[?]"));
        assert_eq!(parse_game(&text).unwrap(), (game.initial(), moves));
    }

    #[test]
    fn nboards_own_game_text_is_read() {
        // As NBoard sends it after 1. F5 d6 (with an eval and a time on Black's move).
        let text = "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[me]PW[Ntest]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5//1.2]W[d6];)";
        let (start, moves) = parse_game(text).unwrap();
        assert_eq!(start, Board::start());
        assert_eq!(moves.len(), 2);
        assert_eq!(move_text(moves[0]), "F5");
        // GGS spaces the rows; a board given mid-game with White to move.
        let spaced = "(;GM[Othello]BO[8 -------- -------- -------- ---O*--- ---**--- -----*-- -------- -------- O]W[F4];)";
        let (start, moves) = parse_game(spaced).unwrap();
        assert_eq!(start.to_move, Colour::White);
        assert_eq!(moves, vec![ReversiMove::Place(29)]);
    }

    #[test]
    fn bad_games_are_refused_with_the_reason() {
        for (text, says) in [
            ("GM[Othello]", "(; and end with ;)"),
            ("(;GM[Chess];)", "not Othello"),
            ("(;BO[8 --- *];)", "64"),
            ("(;BO[10 - *];)", "8×8"),
            ("(;B[A1];)", "not legal"),
            ("(;W[F5];)", "other side is to move"),
            ("(;B[Z9];)", "bad Othello move"),
            ("(;B[F5;)", "not closed"),
        ] {
            let e = parse_game(text).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
