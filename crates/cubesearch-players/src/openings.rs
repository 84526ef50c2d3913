//! Where a match's games start ([`Openings`]): one position, or a file of openings, a line
//! each.
//!
//! ```text
//! # a comment; blank lines are skipped
//! 11-15 23-19 8-11          moves from the start (or from another given position)
//! 1. 11-15 23-19 2. 8-11    PDN's move numbers are read past
//! f5d6c3d3c4f4c5b3          moves run together, as XOT lists write them: each the shortest legal one
//! fen B:W18,21-32:B1-12,14  a position in the game's notation (`fen start`: the usual start)
//! ```
//!
//! A match plays opening k in games 2k and 2k + 1, colours swapped, and comes back to the first
//! opening when it has more games than the file has openings twice over ([`Openings::pairing`]).
//!
//! The file is read a line at a time within bounds ([`MAX_LINE`], [`MAX_FILE`]), so that a
//! device that never ends (`/dev/zero`) or a huge file is refused instead of filling memory,
//! and a line is parsed in time linear in its length.

use cubesearch_core::io::digest;
use cubesearch_core::{Error, Game, Outcome, Result};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Longest line taken: an opening is at most a game's moves, a few hundred bytes.
pub const MAX_LINE: usize = 64 << 10;
/// Largest file taken: a million XOT lines.
pub const MAX_FILE: u64 = 16 << 20;
/// Longest move text of any game: a checkers capture of every piece it can take names 13
/// squares in under 40 bytes. Run-together moves are looked for only this far ahead.
const MAX_MOVE: usize = 64;

/// Where games start: a position, and the moves played from it before the players take over
/// (they belong to the game's record).
pub struct Opening<G: Game> {
    /// The position the game's record starts from.
    pub start: G::State,
    /// The moves played from it before the players take over.
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

/// The openings of a match: one position, or the lines of an openings file.
pub struct Openings<G: Game> {
    /// The position an opening's moves are read from.
    from: G::State,
    list: Vec<Opening<G>>,
    /// The file's digest: a match resumes only with the same openings.
    digest: Option<String>,
}

impl<G: Game> Openings<G> {
    /// Every game from `start`.
    pub fn at(start: G::State) -> Self {
        Self {
            from: start,
            list: vec![Opening::at(start)],
            digest: None,
        }
    }

    /// The openings in the file at `path`, moves read from `from`.
    pub fn read(game: &G, path: &Path, from: G::State) -> Result<Self> {
        let bad = |why: String| Error::Data {
            path: path.display().to_string(),
            why,
        };
        let io = |e| Error::Io {
            path: path.display().to_string(),
            source: e,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        // A device or socket may never end; a FIFO (`<(grep … xot.txt)`) is held to the bounds.
        let kind = file.metadata().map_err(io)?.file_type();
        if !(kind.is_file() || is_fifo(&kind)) {
            return Err(bad(
                "not a regular file (a device or socket is not read)".into()
            ));
        }
        let mut reader = BufReader::new(file.take(MAX_FILE + 1));
        let (mut list, mut bytes, mut line) = (Vec::new(), Vec::new(), Vec::new());
        for number in 1.. {
            line.clear();
            // One byte past the cap tells a line too long from one just long enough.
            let read = (&mut reader)
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut line)
                .map_err(io)?;
            if read == 0 {
                break;
            }
            let text = line.strip_suffix(b"\n").unwrap_or(&line);
            if text.len() > MAX_LINE {
                return Err(bad(format!(
                    "line {number} is longer than {} KiB: an opening is a line of moves",
                    MAX_LINE >> 10
                )));
            }
            bytes.extend_from_slice(&line);
            if bytes.len() as u64 > MAX_FILE {
                return Err(bad(format!(
                    "is larger than {} MiB (line {number})",
                    MAX_FILE >> 20
                )));
            }
            let text = std::str::from_utf8(text)
                .map_err(|_| bad(format!("line {number}: not UTF-8 text")))?;
            let text = text.split('#').next().unwrap_or_default().trim();
            if text.is_empty() {
                continue;
            }
            let opening =
                parse_line(game, text, from).map_err(|e| bad(format!("line {number}: {e}")))?;
            list.push(opening);
        }
        if list.is_empty() {
            return Err(bad(
                "holds no openings (a line each: moves, or fen POSITION)".into(),
            ));
        }
        Ok(Self {
            from,
            list,
            digest: Some(digest([bytes.as_slice()])),
        })
    }

    /// The openings, in order.
    pub fn list(&self) -> &[Opening<G>] {
        &self.list
    }

    /// The position the openings' moves were read from.
    pub fn from(&self) -> &G::State {
        &self.from
    }

    /// The digest of the file the openings were read from (`None` for one position).
    pub fn digest(&self) -> Option<&str> {
        self.digest.as_deref()
    }

    /// Game `g` of a match: the opening it plays (k for games 2k and 2k + 1, round again when
    /// there are more games) and whether p1 moves first once the opening is played.
    pub fn pairing(&self, g: usize) -> (usize, bool) {
        ((g / 2) % self.list.len(), g.is_multiple_of(2))
    }
}

#[cfg(unix)]
fn is_fifo(kind: &std::fs::FileType) -> bool {
    std::os::unix::fs::FileTypeExt::is_fifo(kind)
}

#[cfg(not(unix))]
fn is_fifo(_: &std::fs::FileType) -> bool {
    false
}

/// One opening's line: `fen POSITION`, or moves from `from`.
fn parse_line<G: Game>(game: &G, line: &str, from: G::State) -> Result<Opening<G>> {
    let (mut opening, tokens) = match line.strip_prefix("fen ") {
        Some(position) if position.trim() == "start" => (Opening::at(game.initial()), ""),
        Some(position) => (Opening::at(game.parse_position(position)?), ""),
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
/// one legal move, else its shortest prefix that is one. Only the first [`MAX_MOVE`] bytes are
/// tried, so that a long run of moves is read in time linear in its length.
fn first_move<G: Game>(game: &G, state: &G::State, text: &str) -> Result<(G::Move, usize)> {
    let mut ahead = MAX_MOVE.min(text.len());
    while !text.is_char_boundary(ahead) {
        ahead -= 1;
    }
    let window = &text[..ahead];
    // The whole text first (`11-15` before its prefix `11-1`), when it can be one move.
    let whole = match game.parse_move(state, window) {
        Ok(mv) if ahead == text.len() => return Ok((mv, ahead)),
        other => other,
    };
    (1..ahead)
        .filter(|&n| text.is_char_boundary(n))
        .find_map(|n| game.parse_move(state, &text[..n]).ok().map(|mv| (mv, n)))
        .map(Ok)
        .unwrap_or_else(|| whole.map(|mv| (mv, ahead)))
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
        let read = Openings::read(&game, &path, game.initial()).unwrap();
        let openings = read.list();
        assert_eq!(openings.len(), 3);
        assert_eq!(
            texts(&game, &openings[0]),
            ["f5", "d6", "c3", "d3", "c4", "f4", "c5", "b3"]
        );
        assert_eq!(texts(&game, &openings[1]), ["f5", "f6", "e6", "f4"]);
        assert!(openings[2].moves.is_empty());
        assert!(read.digest().unwrap().starts_with("fnv1a64:"));
        let game = Checkers::default();
        let path = file("pdn.txt", "1. 11-15 23-19 2. 8-11 22-17\n11-1523-19\n");
        let read = Openings::read(&game, &path, game.initial()).unwrap();
        let openings = read.list();
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
            let err = Openings::read(&game, &path, game.initial())
                .err()
                .expect(text)
                .to_string();
            assert!(err.contains(says), "{text:?}: {err}");
        }
        let missing = Openings::read(&game, Path::new("/no/such/openings"), game.initial());
        assert!(missing.is_err());
    }

    /// Reversi, counting the bytes of move text it is asked to read.
    #[derive(Default)]
    struct Counting {
        bytes: std::sync::atomic::AtomicUsize,
    }

    impl Game for Counting {
        type State = <Reversi as Game>::State;
        type Move = <Reversi as Game>::Move;
        const NAME: &'static str = "reversi";
        const STATE_WORDS: usize = Reversi::STATE_WORDS;
        fn initial(&self) -> Self::State {
            Reversi.initial()
        }
        fn legal_moves(&self, state: &Self::State, out: &mut Vec<Self::Move>) {
            Reversi.legal_moves(state, out)
        }
        fn apply(&self, state: &Self::State, mv: Self::Move) -> Self::State {
            Reversi.apply(state, mv)
        }
        fn outcome(&self, state: &Self::State) -> Outcome {
            Reversi.outcome(state)
        }
        fn encode(&self, state: &Self::State, out: &mut [u32]) {
            Reversi.encode(state, out)
        }
        fn decode(&self, words: &[u32]) -> Self::State {
            Reversi.decode(words)
        }
        fn parse_position(&self, text: &str) -> Result<Self::State> {
            Reversi.parse_position(text)
        }
        fn format_position(&self, state: &Self::State) -> String {
            Reversi.format_position(state)
        }
        fn format_move(&self, state: &Self::State, mv: Self::Move) -> String {
            Reversi.format_move(state, mv)
        }
        fn parse_move(&self, state: &Self::State, text: &str) -> Result<Self::Move> {
            self.bytes
                .fetch_add(text.len(), std::sync::atomic::Ordering::Relaxed);
            Reversi.parse_move(state, text)
        }
    }

    #[test]
    fn a_long_run_of_moves_is_read_in_linear_work() {
        // Four legal moves, then `f5` again on a taken square: every prefix of what is left
        // was tried, a quadratic number of bytes.
        let line = "f5d6c3d3".repeat(7_000);
        let game = Counting::default();
        let err = parse_line(&game, &line, game.initial())
            .err()
            .expect("refused");
        assert!(err.to_string().contains("f5"), "{err}");
        let bytes = game.bytes.into_inner();
        assert!(
            bytes < 16 * line.len(),
            "{bytes} bytes read for a line of {}",
            line.len()
        );
    }

    #[test]
    fn long_lines_large_files_and_devices_are_refused() {
        let game = Reversi;
        let long = format!("f5 d6\n{}\n", "#".repeat(MAX_LINE + 1));
        let fits = format!("f5 d6\n{}\n", "#".repeat(MAX_LINE));
        let large = format!(
            "f5\n{}",
            format!("#{}\n", " ".repeat(1 << 10)).repeat(16 << 10)
        );
        for (text, says) in [
            (long.as_str(), Some("line 2 is longer than 64 KiB")),
            (fits.as_str(), None),
            (large.as_str(), Some("is larger than 16 MiB")),
        ] {
            let path = file("bounds.txt", text);
            let read = Openings::read(&game, &path, game.initial());
            match (read, says) {
                (Ok(openings), None) => assert_eq!(openings.list().len(), 1),
                (Err(e), Some(says)) => assert!(e.to_string().contains(says), "{e}"),
                (Ok(_), Some(says)) => panic!("read, though {says}"),
                (Err(e), None) => panic!("{e}"),
            }
        }
        let err = Openings::read(&game, Path::new("/dev/zero"), game.initial())
            .err()
            .expect("refused")
            .to_string();
        assert!(err.contains("not a regular file"), "{err}");
    }

    #[test]
    fn the_digest_is_of_the_file_as_written() {
        let game = Reversi;
        let text = "f5 d6\r\n# note\nf5 f6";
        let read = Openings::read(&game, &file("digest.txt", text), game.initial()).unwrap();
        assert_eq!(read.digest(), Some(digest([text.as_bytes()]).as_str()));
    }
}
