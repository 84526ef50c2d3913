//! `cubesearch play` and `cubesearch match`: games between players given as specs.

use super::TwoPlayerCommand;
use crate::args::Common;
use crate::output::{ask, emit, progress};
use cubesearch_core::io::{check_writable, write_atomically};
use cubesearch_core::{Error, Game, Result};
use cubesearch_games::registry::{self, GameVisitor, OnePlayerGame, TwoPlayerGame};
use cubesearch_search::alphabeta_player::Limit;
use cubesearch_search::effort::Work;
use cubesearch_search::player::{play_game, NamedPlayers, Player};
use cubesearch_search::spec::{Exec, PlayerSpec};
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// A person at the terminal: the board, the legal moves, and a prompt until a legal move is typed.
struct Human;

impl<G: Game> Player<G> for Human {
    fn name(&self) -> String {
        "human".into()
    }
    fn choose(&mut self, game: &G, state: &G::State) -> Result<G::Move> {
        let moves = game.moves(state);
        let listed: Vec<String> = moves.iter().map(|&m| game.format_move(state, m)).collect();
        loop {
            println!("{}", game.display(state));
            println!("legal moves: {}", listed.join(" "));
            let line = ask("your move> ")?;
            match game.parse_move(state, line.trim()) {
                Ok(mv) => return Ok(mv),
                Err(e) => println!("{}; try again", crate::one_line(&e.to_string())),
            }
        }
    }
}

/// The player `spec` names: the terminal for `human`, otherwise built on `--backend`.
fn player<G: NamedPlayers>(
    spec: &PlayerSpec<G>,
    common: &Common,
    seed: u32,
) -> Result<Box<dyn Player<G>>> {
    match spec {
        PlayerSpec::Human => Ok(Box::new(Human)),
        computer => computer.build(common.backend, seed),
    }
}

/// Refuses an `alphabeta:depth=D` player whose every move, searched from `first`, is past a
/// day's work (`--force` skips the check).
fn refuse_endless_players<G: TwoPlayerGame>(
    game: &G,
    specs: &[PlayerSpec<G>],
    first: &G::State,
    common: &Common,
) -> Result<()> {
    for spec in specs {
        if let PlayerSpec::AlphaBeta(ab) = spec {
            if let Limit::Depth(depth) = ab.limit {
                let cpu = ab.exec == Exec::Cpu;
                let what = format!("{} in {} (each move)", ab.text, G::NAME);
                super::refuse_endless(common, game, first, depth, Work::Search, cpu, &what)?;
            }
        }
    }
    Ok(())
}

/// `play`, for every game (one-player stochastic games in `play_stochastic`).
pub struct Play<'a> {
    pub common: &'a Common,
    pub p1: &'a str,
    pub p2: &'a str,
    pub games: u32,
    /// One-player games searched by expectimax: games whose moves are searched together.
    pub batch: u32,
    /// Start position in the game's notation (default: the usual start).
    pub position: Option<&'a str>,
    /// Where to write every game in the game's record format (checkers: PDN).
    pub pdn: Option<&'a str>,
}

impl GameVisitor for Play<'_> {
    type Output = ();
    fn two_player<G: TwoPlayerGame>(self, game: G) -> Result<()> {
        play(&game, &self)
    }
    fn one_player<G: OnePlayerGame>(self, game: G) -> Result<()> {
        let Play {
            common,
            p1,
            p2,
            games,
            batch,
            position,
            ..
        } = self;
        super::play_stochastic::run(&game, common, p1, p2, games, batch, position)
    }
}

/// `match`, for two-player games.
pub struct Match<'a> {
    pub common: &'a Common,
    pub p1: &'a str,
    pub p2: &'a str,
    pub games: u32,
    /// Every game's start position in the game's notation (default: the usual start).
    pub position: Option<&'a str>,
    /// Where each game's result is appended, and a stopped match resumed from.
    pub results: Option<&'a str>,
}

impl TwoPlayerCommand for Match<'_> {
    const WHAT: &'static str = "match";
    fn run<G: TwoPlayerGame>(self, game: G) -> Result<()> {
        play_match(&game, &self)
    }
}

/// `play`: games shown move by move; with a human, interactively.
fn play<G: TwoPlayerGame>(game: &G, args: &Play) -> Result<()> {
    let &Play {
        common,
        p1,
        p2,
        games,
        position,
        pdn,
        ..
    } = args;
    let first = super::typed_position(game, position)?;
    if let Some(path) = pdn {
        check_writable(Path::new(path))?;
    }
    // Refuse before anything is played when the game has no record format.
    if pdn.is_some() && game.game_record(&first, &[], 0, [p1, p2]).is_none() {
        return Err(Error::Unsupported(format!(
            "--pdn: {} has no game record format ({})",
            G::NAME,
            registry::record_formats()
        )));
    }
    let specs: [PlayerSpec<G>; 2] = [p1.parse()?, p2.parse()?];
    refuse_endless_players(game, &specs, &first, common)?;
    let mut players = [
        player(&specs[0], common, common.seed)?,
        player(&specs[1], common, common.seed ^ 0xA5A5)?,
    ];
    let interactive = specs.iter().any(|s| matches!(s, PlayerSpec::Human));
    let mut results = Vec::new();
    let mut records = Vec::new();
    for g in 0..games {
        let [a, b] = &mut players;
        let record = play_game(game, first, [a.as_mut(), b.as_mut()], |state, mv, turn| {
            if !common.json {
                println!(
                    "{} ({}) plays {}",
                    if turn == 0 { "p1" } else { "p2" },
                    if turn == 0 { p1 } else { p2 },
                    game.format_move(state, mv)
                );
            }
        })?;
        if pdn.is_some() {
            records.extend(game.game_record(&first, &record.moves, record.result, [p1, p2]));
        }
        let mut end = first;
        for &m in &record.moves {
            end = game.apply(&end, m);
        }
        if !common.json || interactive {
            println!("{}", game.display(&end));
        }
        let verdict = match record.result {
            1 => "p1 wins",
            -1 => "p2 wins",
            _ => "draw",
        };
        if !common.json {
            println!(
                "game {}: {verdict} after {} moves",
                g + 1,
                record.moves.len()
            );
        }
        let moves: Vec<String> = {
            let mut s = first;
            record
                .moves
                .iter()
                .map(|&m| {
                    let t = game.format_move(&s, m);
                    s = game.apply(&s, m);
                    t
                })
                .collect()
        };
        results.push(
            json!({ "result": record.result, "moves": moves, "final": game.format_position(&end) }),
        );
    }
    if let Some(path) = pdn {
        write_atomically(Path::new(path), records.join("\n").as_bytes())?;
        if !common.json {
            println!("wrote {} game(s) to {path}", records.len());
        }
    }
    if common.json {
        println!(
            "{}",
            json!({ "game": G::NAME, "p1": p1, "p2": p2, "games": results, "pdn": pdn })
        );
    }
    Ok(())
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
    } = args;
    let start = super::typed_position(game, position)?;
    let header =
        json!({ "game": G::NAME, "p1": p1, "p2": p2, "position": game.format_position(&start) });
    let (past, mut log) = match results {
        Some(path) => {
            let (past, file) = results_file(Path::new(path), &header)?;
            (past, Some(file))
        }
        None => (Vec::new(), None),
    };
    let specs: [PlayerSpec<G>; 2] = [p1.parse()?, p2.parse()?];
    if specs.iter().any(|s| matches!(s, PlayerSpec::Human)) {
        return Err(Error::parse(
            "match is for computer players; use `play` to play yourself",
        ));
    }
    refuse_endless_players(game, &specs, &start, common)?;
    // A resumed match seeds its players afresh, so it does not replay the games it holds.
    let seed = common.seed ^ (past.len() as u32).wrapping_mul(0x9E37_79B9);
    let mut one = player(&specs[0], common, seed)?;
    let mut two = player(&specs[1], common, seed ^ 0xA5A5)?;
    let names = (
        Player::<G>::name(one.as_ref()),
        Player::<G>::name(two.as_ref()),
    );
    let bar = progress(
        common.json,
        games as u64,
        &format!("{} vs {}", names.0, names.1),
    );
    let mut results_for_p1 = past;
    let started = Instant::now();
    bar.inc(results_for_p1.len().min(games as usize) as u64);
    for g in results_for_p1.len() as u32..games {
        // p1 moves first in even games, second in odd ones.
        let p1_first = g % 2 == 0;
        let order = if p1_first {
            [one.as_mut(), two.as_mut()]
        } else {
            [two.as_mut(), one.as_mut()]
        };
        let record = play_game(game, start, order, |_, _, _| {})?;
        let for_p1 = if p1_first {
            record.result
        } else {
            -record.result
        };
        if let (Some(file), Some(path)) = (&mut log, results) {
            let line = json!({ "index": g, "result": for_p1, "plies": record.moves.len() });
            writeln!(file, "{line}")
                .and_then(|_| file.sync_data())
                .map_err(|e| Error::Io {
                    path: path.into(),
                    source: e,
                })?;
        }
        results_for_p1.push(for_p1);
        let tally = Tally::of(&results_for_p1);
        bar.inc(1);
        bar.set_message(format!(
            "{} vs {}: +{} −{} ={}",
            names.0, names.1, tally.wins, tally.losses, tally.draws
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
    emit(
        common.json,
        || {
            format!(
                "| p1 | p2 | games | p1 wins | p1 losses | draws | p1 score |\n|---|---|---:|---:|---:|---:|---:|\n| {} | {} | {games} | {wins} | {losses} | {draws} | {:.1}% |\n{elo_text} for p1; {seconds:.1} s, colours alternating, p1 first in odd-numbered games",
                names.0, names.1, 100.0 * score
            )
        },
        json!({ "game": G::NAME, "p1": names.0, "p2": names.1, "games": games, "wins": wins, "losses": losses, "draws": draws, "score": score,
                "elo": elo.map(|e| e.0), "elo_low": elo.map(|e| e.1), "elo_high": elo.map(|e| e.2), "seconds": seconds }),
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

/// Opens `--results`: a new file gets `header` as its first line; an existing one must hold
/// the same match (`header`) and gives back its games' results for p1, in order. The file is
/// left open for appending.
fn results_file(path: &Path, header: &serde_json::Value) -> Result<(Vec<i32>, std::fs::File)> {
    let bad = |why: String| Error::Data {
        path: path.display().to_string(),
        why,
    };
    let io = |e| Error::Io {
        path: path.display().to_string(),
        source: e,
    };
    let mut past = Vec::new();
    if path.exists() {
        let mut text = std::fs::read_to_string(path).map_err(io)?;
        // A line cut short when a run was killed mid-write is dropped, from the file too.
        if !text.is_empty() && !text.ends_with('\n') {
            text.truncate(text.rfind('\n').map_or(0, |i| i + 1));
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(io)?;
            file.set_len(text.len() as u64).map_err(io)?;
        }
        let mut lines = text.lines();
        let first: serde_json::Value = lines
            .next()
            .and_then(|l| serde_json::from_str(l).ok())
            .ok_or_else(|| {
                bad("not a match results file (its first line is not a match header)".into())
            })?;
        if &first != header {
            return Err(bad(format!(
                "holds another match ({first}); give a new file, or the same game, players and position"
            )));
        }
        for (i, line) in lines.enumerate() {
            let game: Option<i32> = serde_json::from_str::<serde_json::Value>(line)
                .ok()
                .filter(|v| v["index"] == i)
                .and_then(|v| v["result"].as_i64())
                .filter(|r| (-1..=1).contains(r))
                .map(|r| r as i32);
            past.push(game.ok_or_else(|| bad(format!("line {} is not game {i}'s result", i + 2)))?);
        }
    } else {
        check_writable(path)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io)?;
    if past.is_empty() && file.metadata().map_err(io)?.len() == 0 {
        writeln!(file, "{header}").map_err(io)?;
    }
    Ok((past, file))
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
