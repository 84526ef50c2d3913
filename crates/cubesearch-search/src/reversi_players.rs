//! The seed's Reversi players (seed 003) as [`Player`]s: `easy` and `medium`, on the CPU. The move
//! choices themselves are [`cubesearch_games::reversi::players`]; this file seeds them and names
//! them for [`from_spec`](crate::player::from_spec).

use crate::player::{NamedPlayers, Player};
use cubesearch_core::rng::XorShift32;
use cubesearch_core::{Error, Result};
use cubesearch_games::reversi::players::{easy_move, medium_move};
use cubesearch_games::reversi::{is_finished, Board, Reversi, ReversiMove};

/// Which of the seed's players.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// One ply: the most flips.
    Easy,
    /// Three plies: own flips − the opponent's best reply.
    Medium,
}

/// One of the seed's Reversi players, its ties drawn from its own seeded generator.
pub struct SeedReversiPlayer {
    level: Level,
    rng: XorShift32,
}

impl SeedReversiPlayer {
    /// A player of `level` whose tie-breaks are drawn from a generator seeded with `seed`.
    pub fn new(level: Level, seed: u32) -> Self {
        Self {
            level,
            rng: XorShift32::for_worker(seed, 0x5EED_0003),
        }
    }
}

impl Player<Reversi> for SeedReversiPlayer {
    fn name(&self) -> String {
        match self.level {
            Level::Easy => "easy".into(),
            Level::Medium => "medium".into(),
        }
    }

    fn choose(&mut self, _game: &Reversi, state: &Board) -> Result<ReversiMove> {
        if is_finished(state) {
            return Err(Error::Unsupported("no legal move: the game is over".into()));
        }
        Ok(match self.level {
            Level::Easy => easy_move(state, &mut self.rng),
            Level::Medium => medium_move(state, &mut self.rng),
        })
    }
}

impl NamedPlayers for Reversi {
    const NAMED: &'static str = "easy, medium";

    fn named_player(spec: &str, seed: u32) -> Option<Box<dyn Player<Self>>> {
        let level = match spec.trim() {
            "easy" => Level::Easy,
            "medium" => Level::Medium,
            _ => return None,
        };
        Some(Box::new(SeedReversiPlayer::new(level, seed)))
    }
}
