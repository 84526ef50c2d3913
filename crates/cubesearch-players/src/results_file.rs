//! A match's results file: a JSON header naming the match, then a line a game (`index`,
//! `result` for p1, `plies`, `opening`, `moves`). It is read before anything starts and
//! written only once both players have started; a lock on it keeps a second match off it
//! until this one ends. Each game it holds is replayed under the match's rules on resume.

use crate::openings::Openings;
use cubesearch_core::game::read_moves;
use cubesearch_core::io::check_output;
use cubesearch_core::{Error, Game, Outcome, Result};
use serde_json::Value;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// A game of the match, as the results file keeps it.
pub(crate) struct Played {
    /// +1 p1 won, −1 lost, 0 a draw.
    pub for_p1: i32,
    /// Every move from the opening's start, the opening's included, as the game writes them
    /// (absent in files written before moves were kept).
    pub moves: Option<Vec<String>>,
    /// Its line in the results file, which errors name.
    pub line: usize,
}

/// An open results file.
pub(crate) struct ResultsFile {
    path: PathBuf,
    /// The file, open for reading and appending, locked.
    file: std::fs::File,
    /// Whether this run made the file: it goes again if the match never starts.
    created: bool,
    /// The games it holds, in order.
    pub past: Vec<Played>,
    /// Bytes to keep: all but a line cut short by a killed run, or nothing when the file
    /// holds no game of this match (empty, or only the header of a match that never started).
    keep: u64,
}

impl ResultsFile {
    /// Opens and locks `path` and reads it (a new file holds no games): the same match
    /// (`header`) gives back its games; a file that holds another match's games is refused, and
    /// one that holds only another match's header, left by a start that failed, is taken
    /// over. `unrecorded_rules` are the rules a header without a rules record means. A file
    /// another match holds is an [`Error::Io`] of kind `WouldBlock`.
    pub fn read(path: &Path, header: &Value, unrecorded_rules: Option<&Value>) -> Result<Self> {
        check_output(path)?;
        let io = |e| Error::Io {
            path: path.display().to_string(),
            source: e,
        };
        let created = !path.exists();
        let file = std::fs::OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(io)?;
        // Advisory, as every match takes it: two matches appending to one file would each
        // count only their own games.
        file.try_lock().map_err(|e| match e {
            std::fs::TryLockError::WouldBlock => io(std::io::Error::new(
                std::io::ErrorKind::WouldBlock,
                "in use by another match",
            )),
            std::fs::TryLockError::Error(e) => io(e),
        })?;
        let mut results = ResultsFile {
            path: path.to_path_buf(),
            file,
            created,
            past: Vec::new(),
            keep: 0,
        };
        let bad = |why: String| Error::Data {
            path: path.display().to_string(),
            why,
        };
        let mut text = String::new();
        results.file.read_to_string(&mut text).map_err(io)?;
        // A line cut short when a run was killed mid-write is dropped.
        let whole = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
        let mut lines = whole.lines();
        let Some(first) = lines.next() else {
            return Ok(results);
        };
        let mut first: Value = serde_json::from_str(first)
            .ok()
            .filter(|v: &Value| ["game", "p1", "p2"].iter().all(|k| v.get(k).is_some()))
            .ok_or_else(|| {
                bad("not a match results file (its first line is not a match header)".into())
            })?;
        let games: Vec<&str> = lines.collect();
        if first.get("rules").is_none() {
            if let Some(rules) = unrecorded_rules {
                first["rules"] = rules.clone();
            }
        }
        if &first != header {
            if games.is_empty() {
                return Ok(results);
            }
            let (mut theirs, mut ours) = (first.clone(), header.clone());
            let rules = [&mut theirs, &mut ours].map(|h| h.as_object_mut()?.remove("rules"));
            if theirs == ours {
                return Err(bad(format!(
                    "holds this match under other rules ({}, not {}); give a new file, or the same rules",
                    rules[0].clone().unwrap_or_default(),
                    rules[1].clone().unwrap_or_default()
                )));
            }
            return Err(bad(format!(
                "holds another match ({first}); give a new file, or the same game, players, position, rules and openings"
            )));
        }
        for (i, line) in games.into_iter().enumerate() {
            let game = serde_json::from_str::<Value>(line)
                .ok()
                .filter(|v| v["index"] == i)
                .and_then(|v| {
                    let for_p1 = v["result"].as_i64().filter(|r| (-1..=1).contains(r))?;
                    let moves = match v.get("moves") {
                        None => None,
                        Some(moves) => Some(
                            moves
                                .as_array()?
                                .iter()
                                .map(|m| m.as_str().map(String::from))
                                .collect::<Option<_>>()?,
                        ),
                    };
                    Some(Played {
                        for_p1: for_p1 as i32,
                        moves,
                        line: i + 2,
                    })
                });
            let game =
                game.ok_or_else(|| bad(format!("line {} is not game {i}'s result", i + 2)))?;
            results.past.push(game);
        }
        results.keep = whole.len() as u64;
        Ok(results)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Makes the file ready for a line a game: cut to what it keeps, with `header` first when
    /// it keeps nothing.
    pub fn begin(&mut self, header: &Value) -> Result<()> {
        self.file.set_len(self.keep).map_err(|e| self.io(e))?;
        if self.keep == 0 {
            self.append(header)?;
        }
        Ok(())
    }

    /// Appends `line` and syncs it: a game is kept once written.
    pub fn append(&mut self, line: &Value) -> Result<()> {
        writeln!(self.file, "{line}")
            .and_then(|_| self.file.sync_data())
            .map_err(|e| self.io(e))
    }

    fn io(&self, source: std::io::Error) -> Error {
        Error::Io {
            path: self.path.display().to_string(),
            source,
        }
    }
}

impl Drop for ResultsFile {
    /// A file this run made and never wrote (the players did not start) is not left behind.
    fn drop(&mut self) {
        if self.created && self.file.metadata().is_ok_and(|m| m.len() == 0) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Game `g` of a resumed match replayed from its opening's start under this match's rules:
/// its moves, or why the file cannot be trusted (an illegal move, a game that goes on, a
/// result that is not the game's). `None` for a game kept without moves.
pub(crate) fn replay<G: Game>(
    game: &G,
    openings: &Openings<G>,
    g: usize,
    played: &Played,
) -> std::result::Result<Option<Vec<G::Move>>, String> {
    let Some(texts) = &played.moves else {
        return Ok(None);
    };
    let line = played.line;
    let (k, p1_first) = openings.pairing(g);
    let opening = &openings.list()[k];
    let moves = read_moves(game, &opening.start, texts)
        .map_err(|e| format!("line {line}: game {g}'s moves do not replay: {e}"))?;
    if !moves.starts_with(&opening.moves) {
        return Err(format!(
            "line {line}: game {g} does not begin with opening {k}'s moves"
        ));
    }
    let end = moves
        .iter()
        .fold(opening.start, |state, &mv| game.apply(&state, mv));
    // The outcome is the side to move's; who that is follows from the plies from the start,
    // and p1 moves first from the start when it moves first after an even opening.
    let for_mover = match game.outcome(&end) {
        Outcome::Ongoing => {
            return Err(format!(
                "line {line}: game {g} is not over after its recorded moves"
            ))
        }
        Outcome::Win => 1,
        Outcome::Loss => -1,
        Outcome::Draw => 0,
    };
    let for_first = if moves.len().is_multiple_of(2) {
        for_mover
    } else {
        -for_mover
    };
    let p1_starts = p1_first == opening.moves.len().is_multiple_of(2);
    let for_p1 = if p1_starts { for_first } else { -for_first };
    if for_p1 != played.for_p1 {
        return Err(format!(
            "line {line}: game {g} records result {} for p1, but its moves give {for_p1}",
            played.for_p1
        ));
    }
    Ok(Some(moves))
}
