//! What a player is ([`Player`]), the players only some games have ([`NamedPlayers`]), and one
//! game between two players ([`play_game`]).

use crate::text::SpecText;
use cubesearch_core::backend::Backend;
use cubesearch_core::{Error, Game, Result, Stop};
use cubesearch_kernels::GpuGame;
use std::time::Duration;

/// Something that picks moves.
pub trait Player<G: Game> {
    /// A short description, e.g. `mcts:time=1s (wgpu)`.
    fn name(&self) -> String;
    /// A legal move in `state`, which is not finished.
    fn choose(&mut self, game: &G, state: &G::State) -> Result<G::Move>;
    /// Told every move played (its own too), so a search can keep its tree.
    fn observe(&mut self, _game: &G, _before: &G::State, _mv: G::Move) {}
    /// What the last search did, if the player searches (an engine's `info` line).
    fn last_search(&self) -> Option<SearchReport> {
        None
    }
    /// Takes the limits an engine protocol gives for the next moves (`go movetime 500`, `go
    /// depth 6`, `go nodes 20000`); a player keeps what it has no use for. By default all.
    fn set_limits(&mut self, _limits: &MoveLimits) {}
    /// Readies the player before its first move: a GPU player compiles its kernels here, a
    /// second or more on CUDA that a timed first move could not spare. By default nothing.
    fn prepare(&mut self, _game: &G) -> Result<()> {
        Ok(())
    }
}

/// What a player's last search did, for an engine's `info` line; each `None` where the
/// player does not search that way.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchReport {
    /// Positions: an MCTS's tree nodes, an alpha-beta's nodes searched.
    pub nodes: u64,
    /// Random games simulated (MCTS).
    pub playouts: Option<u64>,
    /// Plies searched to (alpha-beta).
    pub depth: Option<u32>,
    /// The chosen move's value for the side to move, on the engines' centipawn scale: an
    /// MCTS's win rate as an Elo difference (`centipawns`), an alpha-beta's evaluation in the
    /// game's own units.
    pub score: Option<i32>,
}

/// What an engine protocol asks of a move's search: each `None` keeps the player's own.
#[derive(Clone, Debug, Default)]
pub struct MoveLimits {
    /// Time for the move.
    pub time: Option<Duration>,
    /// Plies to search (alpha-beta).
    pub depth: Option<u32>,
    /// Positions or simulated games to spend (MCTS: playouts).
    pub nodes: Option<u64>,
    /// Raised when the host wants the move now (`stop`, `quit`, its input closed): a search
    /// that sees it answers at once with the best move it has (depth 1 of an iterative
    /// deepening always finishes, so there is one).
    pub stop: Option<Stop>,
}

/// Players only some games have (such as the seed's own players of a game): the game reads
/// their specs (`PlayerSpec::Named`) before the generic ones, and builds them.
pub trait NamedPlayers: GpuGame {
    /// The game's own player specs ([`NoNamed`] for none).
    type Named: Clone + std::fmt::Debug;
    /// Their names, for error messages (`""` for none).
    const NAMED: &'static str = "";
    /// The game's own player `spec` names, if it names one (an error if its options are bad).
    /// The default knows none.
    fn parse_named(_spec: &SpecText) -> Option<Result<Self::Named>> {
        None
    }
    /// The files one of the game's own players reads (a CheckerBoard `lib=`), which a run's
    /// outputs must not overwrite. The default reads none.
    fn named_inputs(_spec: &Self::Named) -> Vec<std::path::PathBuf> {
        Vec::new()
    }
    /// Builds one of the game's own players; `backend` is where `exec=gpu` runs. The default,
    /// for a game that reads none ([`NoNamed`]), refuses.
    fn named_player(
        _spec: &Self::Named,
        _backend: Backend,
        _seed: u32,
    ) -> Result<Box<dyn Player<Self>>> {
        Err(Error::Unsupported(format!(
            "{} has no players of its own",
            Self::NAME
        )))
    }
    /// The game scored by the learned evaluation in weights file `path`
    /// (`alphabeta:weights=W`). The default, for a game that learns none, refuses.
    fn learned_evaluation(path: &std::path::Path) -> Result<crate::learned::Evaluated<Self>>
    where
        Self: Sized,
    {
        Err(Error::Unsupported(format!(
            "weights={}: {} has no learned evaluation",
            path.display(),
            Self::NAME
        )))
    }
}

/// The named players of a game that has none: no value of it exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoNamed {}

/// How one game ended for the first player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord<M> {
    /// Moves in order.
    pub moves: Vec<M>,
    /// +1 the first mover won, −1 lost, 0 draw.
    pub result: i32,
}

/// Plays one game from `start`, `players[0]` moving first. `on_move` hears each move (the
/// position before it, the move, the mover's index); an error from it ends the game there
/// and is returned (a match stopped by a signal, say).
pub fn play_game<'p, G: Game>(
    game: &G,
    start: G::State,
    players: [&mut (dyn Player<G> + 'p); 2],
    mut on_move: impl FnMut(&G::State, G::Move, usize) -> Result<()>,
) -> Result<GameRecord<G::Move>> {
    let mut players = players;
    let mut state = start;
    let mut moves = Vec::new();
    loop {
        let outcome = game.outcome(&state);
        if outcome != cubesearch_core::Outcome::Ongoing {
            // The outcome is for the side to move, which is the first player after an even count.
            let for_mover = match outcome {
                cubesearch_core::Outcome::Win => 1,
                cubesearch_core::Outcome::Loss => -1,
                _ => 0,
            };
            let result = if moves.len() % 2 == 0 {
                for_mover
            } else {
                -for_mover
            };
            return Ok(GameRecord { moves, result });
        }
        let turn = moves.len() % 2;
        let mv = players[turn].choose(game, &state)?;
        for p in players.iter_mut() {
            p.observe(game, &state, mv);
        }
        on_move(&state, mv, turn)?;
        state = game.apply(&state, mv);
        moves.push(mv);
    }
}
