//! `cubesearch play`: games between players given as specs, shown move by move; the players
//! `match` builds too.

use crate::args::Common;
use crate::output::ask;
use cubesearch_core::game::write_moves;
use cubesearch_core::io::{check_output, refuse_collisions, write_atomically};
use cubesearch_core::{Error, Game, Result};
use cubesearch_games::registry::{self, GameVisitor, OnePlayerGame, TwoPlayerGame};
use cubesearch_players::effort::{Hardware, Work};
use cubesearch_players::player::{play_game, NamedPlayers, Player};
use cubesearch_players::spec::Limit;
use cubesearch_players::spec::{Exec, PlayerSpec};
use serde_json::json;
use std::path::Path;

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
            crate::say!("{}", game.display(state));
            crate::say!("legal moves: {}", listed.join(" "));
            let line = ask("your move> ")?;
            match game.parse_move(state, line.trim()) {
                Ok(mv) => return Ok(mv),
                Err(e) => crate::say!("{}; try again", crate::one_line(&e.to_string())),
            }
        }
    }
}

/// The player `spec` names: the terminal for `human`, otherwise built on `--backend` and
/// prepared for `game` (its kernels compiled before the first move's clock starts).
pub(super) fn player<G: NamedPlayers>(
    game: &G,
    spec: &PlayerSpec<G>,
    common: &Common,
    seed: u32,
) -> Result<Box<dyn Player<G>>> {
    match spec {
        PlayerSpec::Human => Ok(Box::new(Human)),
        computer => {
            let mut player = computer.build(common.backend, seed)?;
            player.prepare(game)?;
            Ok(player)
        }
    }
}

/// Refuses an `alphabeta:depth=D` player whose every move, searched from `first`, is past a
/// day's work (`--force` skips the check).
pub(super) fn refuse_endless_players<G: TwoPlayerGame>(
    game: &G,
    specs: &[PlayerSpec<G>],
    first: &G::State,
    common: &Common,
) -> Result<()> {
    for spec in specs {
        if let PlayerSpec::AlphaBeta(ab) = spec {
            if let Limit::Depth(depth) = ab.limit {
                let hardware = match ab.exec {
                    Exec::Cpu => Hardware::Cpu,
                    Exec::Gpu => Hardware::Gpu,
                };
                let what = format!("{} in {} (each move)", ab.text, G::NAME);
                super::refuse_endless(common, game, first, depth, Work::Search, hardware, &what)?;
            }
        }
    }
    Ok(())
}

/// Refuses a run whose outputs (each flag with its file, if given) are one file, or overwrite
/// an input: one of `inputs` or a file a player reads (`weights=`, `lib=`).
pub(super) fn refuse_shared_files<G: NamedPlayers>(
    specs: &[PlayerSpec<G>; 2],
    inputs: &[(&str, &Path)],
    outputs: &[(&str, Option<&str>)],
) -> Result<()> {
    let players = specs.each_ref().map(|s| s.input_files());
    let mut inputs = inputs.to_vec();
    for (flag, files) in ["a file of --p1", "a file of --p2"]
        .into_iter()
        .zip(&players)
    {
        inputs.extend(files.iter().map(|f| (flag, f.as_path())));
    }
    let outputs: Vec<(&str, &Path)> = outputs
        .iter()
        .filter_map(|&(flag, p)| Some((flag, Path::new(p?))))
        .collect();
    refuse_collisions(&inputs, &outputs)
}

/// Checks `--pdn PATH` before anything is played: the game must have a record format, and
/// the file must be writable.
pub(super) fn check_records_file<G: TwoPlayerGame>(path: &str) -> Result<()> {
    if G::RECORD_FORMAT.is_none() {
        return Err(Error::Unsupported(format!(
            "--pdn: {} has no game record format ({})",
            G::NAME,
            registry::record_formats()
        )));
    }
    check_output(Path::new(path))
}

/// Writes `records` to `path` in one piece (a temporary file renamed over it).
pub(super) fn write_records(path: &str, records: &[String]) -> Result<()> {
    let mut text = records.join("\n");
    if !text.ends_with('\n') {
        text.push('\n');
    }
    write_atomically(Path::new(path), text.as_bytes())
}

/// `play`, for every game (one-player stochastic games in `play_stochastic`).
pub struct Play<'a> {
    pub common: &'a Common,
    pub p1: &'a str,
    pub p2: &'a str,
    pub games: u32,
    /// One-player games searched by expectimax: games whose moves are searched together
    /// (default 32); two-player games refuse it.
    pub batch: Option<u32>,
    /// Start position in the game's notation (default: the usual start).
    pub position: Option<&'a str>,
    /// Where to write every game in the game's record format (checkers: PDN).
    pub pdn: Option<&'a str>,
}

impl GameVisitor for Play<'_> {
    type Output = ();
    fn two_player<G: TwoPlayerGame>(self, game: G) -> Result<()> {
        if let Some(batch) = self.batch {
            return Err(Error::parse(format!(
                "--batch {batch} searches the moves of 2584 or 2048 games together: {} takes none",
                G::NAME
            )));
        }
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
        let batch = batch.unwrap_or(32);
        super::play_stochastic::run(&game, common, p1, p2, games, batch, position)
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
    let first = super::playable_position(game, position)?;
    let specs: [PlayerSpec<G>; 2] = [p1.parse()?, p2.parse()?];
    refuse_shared_files(&specs, &[], &[("--pdn", pdn)])?;
    if let Some(path) = pdn {
        check_records_file::<G>(path)?;
    }
    refuse_endless_players(game, &specs, &first, common)?;
    let mut players = [
        player(game, &specs[0], common, common.seed)?,
        player(game, &specs[1], common, common.seed ^ 0xA5A5)?,
    ];
    let interactive = specs.iter().any(|s| matches!(s, PlayerSpec::Human));
    let mut results = Vec::new();
    let mut records = Vec::new();
    for g in 0..games {
        let [a, b] = &mut players;
        let record = play_game(game, first, [a.as_mut(), b.as_mut()], |state, mv, turn| {
            if !common.json {
                crate::say!(
                    "{} ({}) plays {}",
                    if turn == 0 { "p1" } else { "p2" },
                    if turn == 0 { p1 } else { p2 },
                    game.format_move(state, mv)
                );
            }
            Ok(())
        })?;
        if pdn.is_some() {
            records.extend(game.game_record(&first, &record.moves, record.result, [p1, p2]));
        }
        let mut end = first;
        for &m in &record.moves {
            end = game.apply(&end, m);
        }
        if !common.json || interactive {
            crate::say!("{}", game.display(&end));
        }
        let verdict = match record.result {
            1 => "p1 wins",
            -1 => "p2 wins",
            _ => "draw",
        };
        if !common.json {
            crate::say!(
                "game {}: {verdict} after {} moves",
                g + 1,
                record.moves.len()
            );
        }
        let moves = write_moves(game, &first, &record.moves);
        results.push(
            json!({ "result": record.result, "moves": moves, "final": game.format_position(&end) }),
        );
    }
    if let Some(path) = pdn {
        write_records(path, &records)?;
        if !common.json {
            crate::say!("wrote {} game(s) to {path}", records.len());
        }
    }
    if common.json {
        crate::say!(
            "{}",
            json!({ "game": G::NAME, "p1": p1, "p2": p2, "games": results, "pdn": pdn })
        );
    }
    Ok(())
}
