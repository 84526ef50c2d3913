//! Whole games as PDN (Portable Draughts Notation) text: the tag pairs, then the numbered moves
//! (`1. 11-15 23-19 2. ...`, captures as `15x24x31`) and the result. The result is written from
//! Black's side, as American checkers PDN does: `1-0` Black won, `0-1` White won, `1/2-1/2` a
//! draw, `*` unfinished.

use super::board::{CheckersState, Rules, Side};
use super::notation::{format_fen, format_move};
use super::{CheckersMove, START_FEN};

/// The tags of one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdnTags {
    /// The `[Event]` tag.
    pub event: String,
    /// The `[Date]` tag, `YYYY.MM.DD` (`????.??.??` when unknown).
    pub date: String,
    /// Who played Black.
    pub black: String,
    /// Who played White.
    pub white: String,
}

/// Which side won a finished game, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PdnResult {
    /// Black won: `1-0`.
    BlackWins,
    /// White won: `0-1`.
    WhiteWins,
    /// A draw: `1/2-1/2`.
    Draw,
    /// Not finished: `*`.
    Unfinished,
}

impl PdnResult {
    /// The result token.
    pub fn token(self) -> &'static str {
        match self {
            PdnResult::BlackWins => "1-0",
            PdnResult::WhiteWins => "0-1",
            PdnResult::Draw => "1/2-1/2",
            PdnResult::Unfinished => "*",
        }
    }

    /// The result from the first mover's view (+1 won, −1 lost, 0 draw), given who moved first.
    pub fn from_first_mover(result: i32, first: Side) -> Self {
        match (result.signum(), first) {
            (0, _) => PdnResult::Draw,
            (1, Side::Black) | (-1, Side::White) => PdnResult::BlackWins,
            _ => PdnResult::WhiteWins,
        }
    }
}

fn quoted(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Writes one game as PDN: tags, the moves from `start` numbered in pairs (a game that starts with
/// White to move opens with `1...`), and the result; lines of at most 79 characters, ending with a
/// newline. `[GameType "21"]` marks American checkers; a non-standard start gets a `[FEN]` tag.
pub fn game_to_pdn(
    start: &CheckersState,
    moves: &[CheckersMove],
    tags: &PdnTags,
    result: PdnResult,
) -> String {
    let mut out = String::new();
    let mut tag = |name: &str, value: &str| {
        out.push_str(&format!("[{name} \"{}\"]\n", quoted(value)));
    };
    tag("Event", &tags.event);
    tag("Date", &tags.date);
    tag("Black", &tags.black);
    tag("White", &tags.white);
    tag("Result", result.token());
    match start.rules() {
        Rules::American => tag("GameType", "21"),
        Rules::Longest => tag("Rules", "longest capture sequences only"),
    }
    let fen = format_fen(start);
    if fen != START_FEN {
        tag("FEN", &fen);
    }
    out.push('\n');

    let mut tokens = Vec::with_capacity(moves.len() * 3 / 2 + 2);
    let mut side = start.side();
    let mut number = 1;
    for (ply, mv) in moves.iter().enumerate() {
        // A move number stays on the line of its move.
        let text = format_move(mv);
        tokens.push(match side {
            Side::Black => format!("{number}. {text}"),
            Side::White if ply == 0 => format!("{number}... {text}"),
            Side::White => text,
        });
        if side == Side::White {
            number += 1;
        }
        side = match side {
            Side::Black => Side::White,
            Side::White => Side::Black,
        };
    }
    tokens.push(result.token().to_string());
    let mut line = String::new();
    for token in tokens {
        if !line.is_empty() && line.len() + 1 + token.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&token);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// The move texts of a PDN game's movetext (tags, move numbers, comments in braces and the result
/// left out), in order: enough to replay a game this module wrote.
pub fn pdn_move_texts(pdn: &str) -> Vec<String> {
    let body: String = pdn
        .lines()
        .filter(|l| !l.trim_start().starts_with('['))
        .collect::<Vec<_>>()
        .join(" ");
    let mut out = Vec::new();
    let mut in_comment = false;
    for token in body.split_whitespace() {
        if in_comment {
            in_comment = !token.ends_with('}');
            continue;
        }
        if token.starts_with('{') {
            in_comment = !token.ends_with('}');
            continue;
        }
        if token.ends_with('.') || matches!(token, "1-0" | "0-1" | "1/2-1/2" | "*") {
            continue;
        }
        out.push(token.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cubesearch_core::game::read_moves;
    use cubesearch_core::Game;

    use crate::checkers::{Checkers, Rules};

    fn tags() -> PdnTags {
        PdnTags {
            event: "test".into(),
            date: "2026.01.02".into(),
            black: "alice".into(),
            white: "bob \"b\"".into(),
        }
    }

    /// Plays `texts` from `start`, writes the game as PDN, reads the moves back and replays them.
    fn round_trip(game: &Checkers, start: &str, texts: &[&str], result: PdnResult) -> String {
        let start = game.parse_position(start).unwrap();
        let owned: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
        let moves = read_moves(game, &start, &owned).unwrap();
        let pdn = game_to_pdn(&start, &moves, &tags(), result);
        let read = pdn_move_texts(&pdn);
        assert_eq!(read, owned, "{pdn}");
        assert_eq!(read_moves(game, &start, &read).unwrap(), moves);
        pdn
    }

    #[test]
    fn a_short_game_round_trips_through_parse_move() {
        let game = Checkers::new(Rules::American);
        let pdn = round_trip(
            &game,
            crate::checkers::START_FEN,
            &[
                "11-15", "22-18", "15x22", "25x18", "12-16", "18-14", "9x18", "23x14", "10x17",
                "21x14",
            ],
            PdnResult::Unfinished,
        );
        assert!(pdn.starts_with("[Event \"test\"]\n[Date \"2026.01.02\"]\n[Black \"alice\"]\n"));
        assert!(pdn.contains("[White \"bob \\\"b\\\"\"]\n"), "{pdn}");
        assert!(
            pdn.contains("[Result \"*\"]\n[GameType \"21\"]\n\n"),
            "{pdn}"
        );
        assert!(!pdn.contains("[FEN"), "{pdn}");
        assert!(
            pdn.contains(
                "1. 11-15 22-18 2. 15x22 25x18 3. 12-16 18-14 4. 9x18 23x14 5. 10x17 21x14 *\n"
            ),
            "{pdn}"
        );
    }

    #[test]
    fn a_set_up_position_gets_a_fen_tag_and_white_opens_with_dots() {
        let game = Checkers::new(Rules::Longest);
        let fen = "W:W18,K19:B14,K27";
        let start = game.parse_position(fen).unwrap();
        let first = game.format_move(&start, game.moves(&start)[0]);
        let after = game.apply(&start, game.moves(&start)[0]);
        let second = game.format_move(&after, game.moves(&after)[0]);
        let pdn = round_trip(&game, fen, &[&first, &second], PdnResult::Draw);
        assert!(pdn.contains(&format!("[FEN \"{fen}\"]")), "{pdn}");
        assert!(!pdn.contains("GameType"), "{pdn}");
        assert!(
            pdn.contains(&format!("1... {first} 2. {second} 1/2-1/2\n")),
            "{pdn}"
        );
    }

    #[test]
    fn long_games_wrap_and_still_round_trip() {
        let game = Checkers::new(Rules::American);
        let start = game.initial();
        let mut s = start;
        let mut texts = Vec::new();
        let mut rng = cubesearch_core::rng::XorShift32::for_worker(7, 0);
        while game.outcome(&s) == cubesearch_core::Outcome::Ongoing {
            let moves = game.moves(&s);
            let mv = moves[rng.below(moves.len() as u32) as usize];
            texts.push(game.format_move(&s, mv));
            s = game.apply(&s, mv);
        }
        let moves = read_moves(&game, &start, &texts).unwrap();
        let pdn = game_to_pdn(&start, &moves, &tags(), PdnResult::BlackWins);
        assert!(pdn.lines().all(|l| l.len() <= 79), "{pdn}");
        assert!(pdn.lines().count() > 9, "{pdn}");
        assert_eq!(pdn_move_texts(&pdn), texts);
        assert!(pdn.trim_end().ends_with("1-0"));
    }

    #[test]
    fn results_follow_the_first_mover() {
        use PdnResult::*;
        assert_eq!(PdnResult::from_first_mover(1, Side::Black), BlackWins);
        assert_eq!(PdnResult::from_first_mover(-1, Side::Black), WhiteWins);
        assert_eq!(PdnResult::from_first_mover(1, Side::White), WhiteWins);
        assert_eq!(PdnResult::from_first_mover(-1, Side::White), BlackWins);
        assert_eq!(PdnResult::from_first_mover(0, Side::White), Draw);
        assert_eq!(Draw.token(), "1/2-1/2");
    }

    #[test]
    fn the_game_record_hook_names_black_and_white() {
        let game = Checkers::new(Rules::American);
        let start = game.parse_position("W:W18:B14").unwrap();
        let pdn = game.game_record(&start, &[], -1, ["p1", "p2"]).unwrap();
        assert!(pdn.contains("[Black \"p2\"]\n[White \"p1\"]"), "{pdn}");
        assert!(pdn.contains("[Result \"1-0\"]"), "{pdn}");
    }
}
