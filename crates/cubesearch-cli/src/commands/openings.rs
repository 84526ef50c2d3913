//! `match --openings FILE`: the positions a match's games start from, a line each.
//!
//! ```text
//! # a comment; blank lines are skipped
//! 11-15 23-19 8-11          moves from the start (or from --position), as the game writes them
//! 1. 11-15 23-19 2. 8-11    PDN's move numbers are read past
//! f5d6c3d3c4f4c5b3          moves run together, as XOT lists write them: each the shortest legal one
//! fen B:W18,21-32:B1-12,14  a position in the game's notation
//! ```
//!
//! A match plays opening k in games 2k and 2k + 1, colours swapped, and comes back to the first
//! opening when it has more games than the file has openings twice over.

use cubesearch_core::io::digest;
use cubesearch_core::{Error, Game, Outcome, Result};
use std::path::Path;

/// Where games start: a position, and the moves played from it before the players take over
/// (they belong to the game's record).
pub struct Opening<G: Game> {
    pub start: G::State,
    pub moves: Vec<G::Move>,
}

impl<G: Game> Opening<G> {
    /// The opening with no moves from `start`.
    pub fn at(start: G::State) -> Self {
        Self {
            start,
            moves: Vec::new(),
        }
    }

    /// The position the players take over.
    pub fn end(&self, game: &G) -> G::State {
        self.moves
            .iter()
            .fold(self.start, |state, &mv| game.apply(&state, mv))
    }
}

/// The openings in the file at `path`, moves read from `from`, and the file's digest (a match
/// resumes only with the same openings).
pub fn read<G: Game>(game: &G, path: &Path, from: G::State) -> Result<(Vec<Opening<G>>, String)> {
    let bytes = std::fs::read(path).map_err(|e| Error::Io {
        path: path.display().to_string(),
        source: e,
    })?;
    let text = String::from_utf8(bytes).map_err(|_| Error::Data {
        path: path.display().to_string(),
        why: "not UTF-8 text".into(),
    })?;
    let mut openings = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let opening = parse_line(game, line, from).map_err(|e| Error::Data {
            path: path.display().to_string(),
            why: format!("line {}: {}", i + 1, crate::one_line(&e.to_string())),
        })?;
        openings.push(opening);
    }
    if openings.is_empty() {
        return Err(Error::Data {
            path: path.display().to_string(),
            why: "holds no openings (a line each: moves, or fen POSITION)".into(),
        });
    }
    Ok((openings, digest([text.as_bytes()])))
}

/// One opening's line: `fen POSITION`, or moves from `from`.
fn parse_line<G: Game>(game: &G, line: &str, from: G::State) -> Result<Opening<G>> {
    let (mut opening, tokens) = match line.strip_prefix("fen ") {
        Some(position) => (
            Opening::at(super::typed_position(game, Some(position))?),
            "",
        ),
        None => (Opening::at(from), line),
    };
    let mut state = opening.start;
    for token in tokens.split_whitespace() {
        // PDN's move numbers: `1.`, `12...`.
        if token
            .trim_end_matches('.')
            .chars()
            .all(|c| c.is_ascii_digit())
            && token.ends_with('.')
        {
            continue;
        }
        let mut rest = token;
        while !rest.is_empty() {
            let (mv, used) = first_move(game, &state, rest)?;
            opening.moves.push(mv);
            state = game.apply(&state, mv);
            rest = &rest[used..];
        }
    }
    if game.outcome(&state) != Outcome::Ongoing {
        return Err(Error::parse(format!(
            "the game is over after '{line}': nothing is left to play"
        )));
    }
    Ok(opening)
}

/// The move `text` begins with in `state` and the bytes it takes: all of `text` if that is
/// one legal move, else its shortest prefix that is one.
fn first_move<G: Game>(game: &G, state: &G::State, text: &str) -> Result<(G::Move, usize)> {
    let whole = match game.parse_move(state, text) {
        Ok(mv) => return Ok((mv, text.len())),
        Err(e) => e,
    };
    (1..text.len())
        .filter(|&n| text.is_char_boundary(n))
        .find_map(|n| game.parse_move(state, &text[..n]).ok().map(|mv| (mv, n)))
        .ok_or(whole)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cubesearch_core::game::write_moves;
    use cubesearch_games::{Checkers, Reversi};

    fn file(name: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("cubesearch-openings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn texts<G: Game>(game: &G, opening: &Opening<G>) -> Vec<String> {
        write_moves(game, &opening.start, &opening.moves)
    }

    #[test]
    fn moves_spaced_numbered_or_run_together_and_positions_are_read() {
        let game = Reversi;
        let path = file(
            "xot.txt",
            "# two XOT-style lines\nf5d6c3d3c4f4c5b3\n\nf5 f6 e6 f4  # spaced\nfen start\n",
        );
        let (openings, digest) = read(&game, &path, game.initial()).unwrap();
        assert_eq!(openings.len(), 3);
        assert_eq!(
            texts(&game, &openings[0]),
            ["f5", "d6", "c3", "d3", "c4", "f4", "c5", "b3"]
        );
        assert_eq!(texts(&game, &openings[1]), ["f5", "f6", "e6", "f4"]);
        assert!(openings[2].moves.is_empty());
        assert!(digest.starts_with("fnv1a64:"));
        let game = Checkers::default();
        let path = file("pdn.txt", "1. 11-15 23-19 2. 8-11 22-17\n11-1523-19\n");
        let (openings, _) = read(&game, &path, game.initial()).unwrap();
        assert_eq!(
            texts(&game, &openings[0]),
            ["11-15", "23-19", "8-11", "22-17"]
        );
        assert_eq!(texts(&game, &openings[1]), ["11-15", "23-19"]);
        assert_ne!(openings[0].end(&game), game.initial());
    }

    #[test]
    fn a_bad_line_is_named_with_its_number_and_an_empty_file_refused() {
        let game = Reversi;
        for (text, says) in [
            ("f5 d6\nf5 a1\n", "line 2: "),
            ("f5 d6\nf5 a1\n", "a1"),
            ("fen nonsense\n", "line 1: "),
            ("# only a comment\n\n", "holds no openings"),
        ] {
            let path = file("bad.txt", text);
            let err = read(&game, &path, game.initial())
                .err()
                .expect(text)
                .to_string();
            assert!(err.contains(says), "{text:?}: {err}");
        }
        let missing = read(&game, Path::new("/no/such/openings"), game.initial());
        assert!(missing.is_err());
    }
}
