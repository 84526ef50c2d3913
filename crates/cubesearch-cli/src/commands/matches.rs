//! `cubesearch match`: N games between two computer players, colours alternating, from one
//! position or from a file of openings; a results file to resume from, the games saved in the
//! game's record format, and the first player's score with its Elo difference.

use super::openings::{self, Opening};
use super::play::{
    check_records_file, player, refuse_endless_players, refuse_shared_files, write_records,
};
use super::TwoPlayerCommand;
use crate::args::Common;
use crate::output::{emit, progress};
use crate::signals::{self, stop_on_signals};
use cubesearch_core::game::{read_moves, write_moves};
use cubesearch_core::io::check_output;
use cubesearch_core::{Error, Game, Outcome, Result};
use cubesearch_games::registry::{GameOptions, TwoPlayerGame};
use cubesearch_players::player::{play_game, MoveLimits, Player};
use cubesearch_players::spec::PlayerSpec;
use serde_json::json;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
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
    /// Its line in the results file, which errors name.
    line: usize,
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
    let specs: [PlayerSpec<G>; 2] = [p1.parse()?, p2.parse()?];
    if specs.iter().any(|s| matches!(s, PlayerSpec::Human)) {
        return Err(Error::parse(
            "match is for computer players; use `play` to play yourself",
        ));
    }
    let mut header =
        json!({ "game": G::NAME, "p1": p1, "p2": p2, "position": game.format_position(&start) });
    // The rules shape every game: a resume under other rules would mix two matches.
    if let Some(rules) = rules_of(&game.options()) {
        header["rules"] = rules;
    }
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
    let inputs: Vec<_> = args
        .openings
        .iter()
        .map(|p| ("--openings", Path::new(p)))
        .collect();
    refuse_shared_files(&specs, &inputs, &[("--results", results), ("--pdn", pdn)])?;
    if let Some(path) = pdn {
        check_records_file::<G>(path)?;
    }
    let defaults = G::from_options(&GameOptions::default())?.options();
    let mut results_file = results
        .map(|path| ResultsFile::read(Path::new(path), &header, rules_of(&defaults)))
        .transpose()?;
    let past = results_file
        .as_mut()
        .map(|r| std::mem::take(&mut r.past))
        .unwrap_or_default();
    // The moves each game kept, replayed under this match's rules and checked against its
    // recorded result (`None` for files written before moves were kept).
    let replayed = past
        .iter()
        .enumerate()
        .map(|(g, played)| replay(game, &openings, g, played))
        .collect::<std::result::Result<Vec<_>, String>>()
        .map_err(|why| Error::Data {
            path: results.unwrap_or_default().into(),
            why,
        })?;
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
    if let Some(file) = &mut results_file {
        file.begin(&header)?;
    }
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
        for (g, (played, moves)) in past.iter().zip(&replayed).enumerate() {
            let moves = moves.as_deref().ok_or_else(|| {
                Error::parse(format!(
                    "--pdn: {} keeps no moves for game {g}; resume without --pdn, or start a new results file",
                    results.unwrap_or_default()
                ))
            })?;
            records.push(record(g, moves, played.for_p1));
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
        if let Some(file) = &mut results_file {
            let line = json!({ "index": g, "result": for_p1, "plies": played.moves.len(),
                               "opening": k, "moves": write_moves(game, &opening.start, &moves) });
            file.append(&line)?;
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
/// before anything starts and written only once both players have started; a lock on it keeps
/// a second match off it until this one ends.
struct ResultsFile {
    path: PathBuf,
    /// The file, open for reading and appending, locked.
    file: std::fs::File,
    /// Whether this run made the file: it goes again if the match never starts.
    created: bool,
    /// The games it holds, in order.
    past: Vec<Played>,
    /// Bytes to keep: all but a line cut short by a killed run, or nothing when the file
    /// holds no game of this match (empty, or only the header of a match that never started).
    keep: u64,
}

impl ResultsFile {
    /// Opens and locks `path` and reads it (a new file holds no games): the same match
    /// (`header`) gives back its games; a file that holds another match's games is refused, and
    /// one that holds only another match's header, left by a start that failed, is taken
    /// over. `default_rules` are the rules a header written before rules were recorded means.
    fn read(
        path: &Path,
        header: &serde_json::Value,
        default_rules: Option<serde_json::Value>,
    ) -> Result<Self> {
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
        // Advisory, as every `match` takes it: two matches appending to one file would each
        // count only their own games.
        file.try_lock().map_err(|e| match e {
            std::fs::TryLockError::WouldBlock => Error::parse(format!(
                "--results {} is in use by another match",
                path.display()
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
        let mut first: serde_json::Value = serde_json::from_str(first)
            .ok()
            .filter(|v: &serde_json::Value| ["game", "p1", "p2"].iter().all(|k| v.get(k).is_some()))
            .ok_or_else(|| {
                bad("not a match results file (its first line is not a match header)".into())
            })?;
        let games: Vec<&str> = lines.collect();
        if first.get("rules").is_none() {
            if let Some(rules) = default_rules {
                first["rules"] = rules;
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
                    "holds this match under other rules ({}, not {}); give a new file, or the same --rules and --draw-plies",
                    rules[0].clone().unwrap_or_default(),
                    rules[1].clone().unwrap_or_default()
                )));
            }
            return Err(bad(format!(
                "holds another match ({first}); give a new file, or the same game, players, position, rules and openings"
            )));
        }
        for (i, line) in games.into_iter().enumerate() {
            let game = serde_json::from_str::<serde_json::Value>(line)
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

    /// Makes the file ready for a line a game: cut to what it keeps, with `header` first when
    /// it keeps nothing.
    fn begin(&mut self, header: &serde_json::Value) -> Result<()> {
        self.file.set_len(self.keep).map_err(|e| self.io(e))?;
        if self.keep == 0 {
            self.append(header)?;
        }
        Ok(())
    }

    /// Appends `line` and syncs it: a game is kept once written.
    fn append(&mut self, line: &serde_json::Value) -> Result<()> {
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

/// The header's record of `options`, or `None` for a game that has none.
fn rules_of(options: &GameOptions) -> Option<serde_json::Value> {
    (options.rules.is_some() || options.draw_plies.is_some())
        .then(|| json!({ "rules": options.rules, "draw_plies": options.draw_plies }))
}

/// Game `g` of a resumed match replayed from its opening's start under this match's rules:
/// its moves, or why the file cannot be trusted (an illegal move, a game that goes on, a
/// result that is not the game's). `None` for a game kept without moves.
fn replay<G: Game>(
    game: &G,
    openings: &[Opening<G>],
    g: usize,
    played: &Played,
) -> std::result::Result<Option<Vec<G::Move>>, String> {
    let Some(texts) = &played.moves else {
        return Ok(None);
    };
    let line = played.line;
    let (k, p1_first) = pairing(g, openings.len());
    let opening = &openings[k];
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
