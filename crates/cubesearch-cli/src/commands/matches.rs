//! `cubesearch match`: N games between two computer players, colours alternating, from one
//! position or from a file of openings; a results file to resume from, the games saved in the
//! game's record format, and the first player's score with its Elo difference.

use super::openings::{self, Opening};
use super::play::{check_records_file, player, refuse_endless_players, write_records};
use super::TwoPlayerCommand;
use crate::args::Common;
use crate::output::{emit, progress};
use crate::signals::{self, stop_on_signals};
use cubesearch_core::game::{read_moves, write_moves};
use cubesearch_core::io::check_output;
use cubesearch_core::{Error, Result};
use cubesearch_games::registry::TwoPlayerGame;
use cubesearch_players::player::{play_game, MoveLimits, Player};
use cubesearch_players::spec::PlayerSpec;
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// `match`, for two-player games.
pub struct Match<'a> {
    pub common: &'a Common,
    pub p1: &'a str,
    pub p2: &'a str,
    /// Games to play (default with `openings`: each opening twice).
    pub games: Option<u32>,
    /// Every game's start position in the game's notation (default: the usual start).
    pub position: Option<&'a str>,
    /// Where each game's result is appended, and a stopped match resumed from.
    pub results: Option<&'a str>,
    /// Where every game is written in the game's record format, after each game.
    pub pdn: Option<&'a str>,
    /// A file of openings ([`openings`]), each played twice, colours swapped.
    pub openings: Option<&'a str>,
}

impl TwoPlayerCommand for Match<'_> {
    const WHAT: &'static str = "match";
    fn run<G: TwoPlayerGame>(self, game: G) -> Result<()> {
        play_match(&game, &self)
    }
}

/// Game `g` of a match: the opening it plays (k for games 2k and 2k + 1, round again when
/// there are more games) and whether p1 moves first once the opening is played.
fn pairing(g: usize, openings: usize) -> (usize, bool) {
    ((g / 2) % openings, g.is_multiple_of(2))
}

/// A game of the match, as the results file keeps it.
struct Played {
    /// +1 p1 won, −1 lost, 0 a draw.
    for_p1: i32,
    /// Every move from the opening's start, the opening's included, as the game writes them
    /// (absent in files written before moves were kept).
    moves: Option<Vec<String>>,
}

/// `match`: N games, colours alternating, W/L/D for p1.
fn play_match<G: TwoPlayerGame>(game: &G, args: &Match) -> Result<()> {
    let &Match {
        common,
        p1,
        p2,
        games,
        position,
        results,
        pdn,
        openings,
    } = args;
    let start = super::playable_position(game, position)?;
    let mut header =
        json!({ "game": G::NAME, "p1": p1, "p2": p2, "position": game.format_position(&start) });
    let openings = match openings {
        Some(path) => {
            let (openings, digest) = openings::read(game, Path::new(path), start)?;
            header["openings"] = json!({ "count": openings.len(), "digest": digest });
            openings
        }
        None => vec![Opening::at(start)],
    };
    let games = match (games, args.openings) {
        (Some(n), _) => n,
        (None, Some(_)) => 2 * openings.len() as u32,
        (None, None) => {
            return Err(Error::parse(
                "match: give --games N (or --openings FILE, each opening played twice)",
            ))
        }
    };
    if let Some(path) = pdn {
        check_records_file::<G>(path)?;
    }
    let results_file = results
        .map(|path| ResultsFile::read(Path::new(path), &header))
        .transpose()?;
    let past = results_file.as_ref().map_or(&[][..], |r| &r.past[..]);
    let specs: [PlayerSpec<G>; 2] = [p1.parse()?, p2.parse()?];
    if specs.iter().any(|s| matches!(s, PlayerSpec::Human)) {
        return Err(Error::parse(
            "match is for computer players; use `play` to play yourself",
        ));
    }
    for opening in &openings {
        refuse_endless_players(game, &specs, &opening.end(game), common)?;
    }
    // A resumed match seeds its players afresh, so it does not replay the games it holds.
    let seed = common.seed ^ (past.len() as u32).wrapping_mul(0x9E37_79B9);
    let mut one = player(game, &specs[0], common, seed)?;
    let mut two = player(game, &specs[1], common, seed ^ 0xA5A5)?;
    let names = [
        Player::<G>::name(one.as_ref()),
        Player::<G>::name(two.as_ref()),
    ];
    // Both players have started: only now does the results file get its header.
    let mut log = results_file.as_ref().map(|r| r.open(&header)).transpose()?;
    let stop = stop_on_signals();
    // A signal stops a move in progress too (a search answers at once, a wait for an
    // external engine ends), not only the match between moves.
    for each in [one.as_mut(), two.as_mut()] {
        each.set_limits(&MoveLimits {
            stop: Some(stop.clone()),
            ..MoveLimits::default()
        });
    }
    let stopped = || -> Result<()> {
        match stop.is_raised() {
            true => Err(Error::Interrupted(String::new())),
            false => Ok(()),
        }
    };
    // The record of game `g`, `moves` from its opening's start; `for_p1` its result for p1.
    let record = |g: usize, moves: &[G::Move], for_p1: i32| {
        let (k, p1_first) = pairing(g, openings.len());
        // Who moves first from the opening's start: p1 if it also moves first after an even
        // opening, or second after an odd one.
        let p1_starts = p1_first == openings[k].moves.len().is_multiple_of(2);
        let (players, result) = if p1_starts {
            ([names[0].as_str(), names[1].as_str()], for_p1)
        } else {
            ([names[1].as_str(), names[0].as_str()], -for_p1)
        };
        game.game_record(&openings[k].start, moves, result, players)
            .unwrap_or_default()
    };
    let mut records = Vec::new();
    if pdn.is_some() {
        for (g, played) in past.iter().enumerate() {
            let start = openings[pairing(g, openings.len()).0].start;
            let moves = played
                .moves
                .as_deref()
                .ok_or_else(|| {
                    Error::parse(format!(
                        "--pdn: {} keeps no moves for game {g}; resume without --pdn, or start a new results file",
                        results.unwrap_or_default()
                    ))
                })
                .and_then(|texts| read_moves(game, &start, texts))?;
            records.push(record(g, &moves, played.for_p1));
        }
    }
    let bar = progress(
        common.json,
        games as u64,
        &format!("{} vs {}", names[0], names[1]),
    );
    let mut results_for_p1: Vec<i32> = past.iter().map(|p| p.for_p1).collect();
    let started = Instant::now();
    bar.inc(results_for_p1.len().min(games as usize) as u64);
    for g in results_for_p1.len()..games as usize {
        let (k, p1_first) = pairing(g, openings.len());
        let opening = &openings[k];
        let order = if p1_first {
            [one.as_mut(), two.as_mut()]
        } else {
            [two.as_mut(), one.as_mut()]
        };
        let played =
            stopped().and_then(|()| play_game(game, opening.end(game), order, |_, _, _| stopped()));
        let played = match played {
            // A game cut short by a signal is dropped; the games before it are all kept.
            Err(_) if stop.reason().is_some() => {
                bar.finish_and_clear();
                let kept = match results {
                    Some(path) => format!(
                        "the {g} games played are in {path}; the same command resumes the match"
                    ),
                    None => format!("{g} games were played (--results FILE keeps them to resume)"),
                };
                return Err(Error::Interrupted(format!(
                    "interrupted by {}: {kept}",
                    signals::name(&stop)
                )));
            }
            other => other?,
        };
        let for_p1 = if p1_first {
            played.result
        } else {
            -played.result
        };
        let mut moves = opening.moves.clone();
        moves.extend(&played.moves);
        if let (Some(file), Some(path)) = (&mut log, results) {
            let line = json!({ "index": g, "result": for_p1, "plies": played.moves.len(),
                               "opening": k, "moves": write_moves(game, &opening.start, &moves) });
            writeln!(file, "{line}")
                .and_then(|_| file.sync_data())
                .map_err(|e| Error::Io {
                    path: path.into(),
                    source: e,
                })?;
        }
        if let Some(path) = pdn {
            records.push(record(g, &moves, for_p1));
            write_records(path, &records)?;
        }
        results_for_p1.push(for_p1);
        let tally = Tally::of(&results_for_p1);
        bar.inc(1);
        bar.set_message(format!(
            "{} vs {}: +{} −{} ={}",
            names[0], names[1], tally.wins, tally.losses, tally.draws
        ));
    }
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    results_for_p1.truncate(games as usize);
    let Tally {
        wins,
        losses,
        draws,
        score,
        elo,
    } = Tally::of(&results_for_p1);
    let elo_text = match elo {
        Some((e, low, high)) => format!("Elo {e:+.0} (95 %: {low:+.0} to {high:+.0})"),
        None => "Elo beyond measure (all won or all lost)".into(),
    };
    let from = match args.openings {
        Some(path) => format!("{} openings from {path}, each twice", openings.len()),
        None => "one start".into(),
    };
    emit(
        common.json,
        || {
            format!(
                "| p1 | p2 | games | p1 wins | p1 losses | draws | p1 score |\n|---|---|---:|---:|---:|---:|---:|\n| {} | {} | {games} | {wins} | {losses} | {draws} | {:.1}% |\n{elo_text} for p1; {seconds:.1} s, {from}, colours alternating, p1 first in odd-numbered games{}",
                names[0], names[1], 100.0 * score,
                pdn.map(|p| format!("; games in {p}")).unwrap_or_default()
            )
        },
        json!({ "game": G::NAME, "p1": names[0], "p2": names[1], "games": games, "wins": wins, "losses": losses, "draws": draws, "score": score,
                "elo": elo.map(|e| e.0), "elo_low": elo.map(|e| e.1), "elo_high": elo.map(|e| e.2), "seconds": seconds,
                "openings": args.openings.map(|_| openings.len()), "pdn": pdn }),
    );
    Ok(())
}

/// A match's results for p1 (+1, 0, −1 a game): counts, score (draws half), and the Elo
/// difference with its 95 % interval, from the score's standard error over the games.
struct Tally {
    wins: u32,
    losses: u32,
    draws: u32,
    score: f64,
    /// Elo, low, high; `None` when every game was won or every game lost.
    elo: Option<(f64, f64, f64)>,
}

impl Tally {
    fn of(results: &[i32]) -> Tally {
        let count = |r: i32| results.iter().filter(|&&x| x == r).count() as u32;
        let (wins, losses, draws) = (count(1), count(-1), count(0));
        let n = results.len().max(1) as f64;
        let points = |r: i32| (r + 1) as f64 / 2.0;
        let score = results.iter().map(|&r| points(r)).sum::<f64>() / n;
        let spread = results
            .iter()
            .map(|&r| (points(r) - score).powi(2))
            .sum::<f64>()
            / n;
        let error = 1.96 * (spread / n).sqrt();
        let elo = |s: f64| -400.0 * (1.0 / s - 1.0).log10();
        let clamp = |s: f64| s.clamp(1e-4, 1.0 - 1e-4);
        let elo = (score > 0.0 && score < 1.0).then(|| {
            (
                elo(score),
                elo(clamp(score - error)),
                elo(clamp(score + error)),
            )
        });
        Tally {
            wins,
            losses,
            draws,
            score,
            elo,
        }
    }
}

/// A match's `--results` file: a JSON header naming the match, then a line a game. It is read
/// before anything starts and written only once both players have started.
struct ResultsFile {
    path: std::path::PathBuf,
    /// The games it holds, in order.
    past: Vec<Played>,
    /// Bytes to keep: all but a line cut short by a killed run, or nothing when the file
    /// holds no game of this match (empty, or only the header of a match that never started).
    keep: u64,
}

impl ResultsFile {
    /// Reads `path` (a new file holds no games): the same match (`header`) gives back its
    /// games; a file that holds another match's games is refused, and one that holds only
    /// another match's header, left by a start that failed, is taken over.
    fn read(path: &Path, header: &serde_json::Value) -> Result<Self> {
        check_output(path)?;
        let fresh = |keep| ResultsFile {
            path: path.to_path_buf(),
            past: Vec::new(),
            keep,
        };
        let bad = |why: String| Error::Data {
            path: path.display().to_string(),
            why,
        };
        let text = match std::fs::read_to_string(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(fresh(0)),
            Err(e) => {
                return Err(Error::Io {
                    path: path.display().to_string(),
                    source: e,
                })
            }
            Ok(text) => text,
        };
        // A line cut short when a run was killed mid-write is dropped.
        let whole = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
        let mut lines = whole.lines();
        let Some(first) = lines.next() else {
            return Ok(fresh(0));
        };
        let first: serde_json::Value = serde_json::from_str(first)
            .ok()
            .filter(|v: &serde_json::Value| ["game", "p1", "p2"].iter().all(|k| v.get(k).is_some()))
            .ok_or_else(|| {
                bad("not a match results file (its first line is not a match header)".into())
            })?;
        let games: Vec<&str> = lines.collect();
        if &first != header {
            if games.is_empty() {
                return Ok(fresh(0));
            }
            return Err(bad(format!(
                "holds another match ({first}); give a new file, or the same game, players, position and openings"
            )));
        }
        let mut past = Vec::with_capacity(games.len());
        for (i, line) in games.into_iter().enumerate() {
            let game = serde_json::from_str::<serde_json::Value>(line)
                .ok()
                .filter(|v| v["index"] == i)
                .and_then(|v| {
                    let for_p1 = v["result"].as_i64().filter(|r| (-1..=1).contains(r))?;
                    let moves = v["moves"].as_array().map(|moves| {
                        moves
                            .iter()
                            .map(|m| m.as_str().unwrap_or_default().to_string())
                            .collect()
                    });
                    Some(Played {
                        for_p1: for_p1 as i32,
                        moves,
                    })
                });
            past.push(game.ok_or_else(|| bad(format!("line {} is not game {i}'s result", i + 2)))?);
        }
        Ok(ResultsFile {
            path: path.to_path_buf(),
            past,
            keep: whole.len() as u64,
        })
    }

    /// Opens the file for appending a line a game: cut to what it keeps, with `header` first
    /// when it keeps nothing.
    fn open(&self, header: &serde_json::Value) -> Result<std::fs::File> {
        let io = |e| Error::Io {
            path: self.path.display().to_string(),
            source: e,
        };
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(io)?;
        file.set_len(self.keep).map_err(io)?;
        if self.keep == 0 {
            writeln!(file, "{header}")
                .and_then(|_| file.sync_data())
                .map_err(io)?;
        }
        Ok(file)
    }
}

#[cfg(test)]
mod tests {
    use super::Tally;

    #[test]
    fn a_tally_scores_draws_half_and_brackets_the_elo() {
        // 6 wins, 2 losses, 2 draws: 70 %, Elo −400·log10(1/0.7 − 1) ≈ +147.
        let mut results = vec![1; 6];
        results.extend([-1, -1, 0, 0]);
        let t = Tally::of(&results);
        assert_eq!((t.wins, t.losses, t.draws), (6, 2, 2));
        assert!((t.score - 0.7).abs() < 1e-12);
        let (elo, low, high) = t.elo.unwrap();
        assert!((elo - 147.2).abs() < 0.1, "{elo}");
        assert!(low < elo && elo < high && low < 0.0, "{low} {high}");
        // An even match sits at 0; a clean sweep has no finite Elo.
        assert!(Tally::of(&[1, -1, 0, 0]).elo.unwrap().0.abs() < 1e-9);
        assert!(Tally::of(&[1, 1, 1]).elo.is_none());
    }
}
