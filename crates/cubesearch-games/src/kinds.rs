//! What a game of each kind offers the commands, and how a command reaches a game: a
//! [`GameVisitor`] has one method for two-player games ([`TwoPlayerGame`]) and one for
//! one-player stochastic games ([`OnePlayerGame`]), each generic over the game. The games
//! implement these traits; the [registry](crate::registry) lists the games.

pub use crate::learner::{network_evaluation, FitFn, LabelFn, Learner, TrainFn};
pub use crate::solver::{Exact, ExactSolver, SolveFn};
use cubesearch_core::{Error, Result};
use cubesearch_kernels::GpuStochasticGame;
use cubesearch_learn::TupleGame;
use cubesearch_players::player::NamedPlayers;

/// What the command line says about a game before it is made.
#[derive(Clone, Copy, Debug, Default)]
pub struct GameOptions<'a> {
    /// `--rules`: the rule set of a game that has several.
    pub rules: Option<&'a str>,
    /// `--draw-plies`: plies without progress after which a game that has such a rule is drawn.
    pub draw_plies: Option<u32>,
}

impl GameOptions<'_> {
    /// An error naming `game` if a rule set or a draw limit was asked for: for games that have
    /// neither.
    pub fn no_rules(&self, game: &str) -> Result<()> {
        if let Some(r) = self.rules {
            return Err(Error::parse(format!(
                "{game} has no rule set to choose; got --rules {r}"
            )));
        }
        match self.draw_plies {
            Some(n) => Err(Error::parse(format!(
                "{game} has no draw limit to set; got --draw-plies {n}"
            ))),
            None => Ok(()),
        }
    }
}

/// A command, as the games see it: one method for each kind of game.
pub trait GameVisitor {
    /// What the command gives back.
    type Output;
    /// Runs the command on a two-player game.
    fn two_player<G: TwoPlayerGame>(self, game: G) -> Result<Self::Output>;
    /// Runs the command on a one-player stochastic game.
    fn one_player<G: OnePlayerGame>(self, game: G) -> Result<Self::Output>;
}

/// A two-player game the command line plays: host rules, device twin and players
/// ([`NamedPlayers`]), and what only some games have.
pub trait TwoPlayerGame: NamedPlayers + Sized {
    /// Plies `solve` searches without `--depth`: by default enough to reach the end of any game.
    const SOLVE_DEPTH: u32 = 128;
    /// The name of the format [`Game::game_record`](cubesearch_core::Game::game_record) writes (`play --pdn`), if it writes one.
    const RECORD_FORMAT: Option<&'static str> = None;

    /// The game under the command line's options: a game without rule sets refuses `--rules`
    /// ([`GameOptions::no_rules`]).
    fn from_options(options: &GameOptions) -> Result<Self>;

    /// The options this game was made under, every one spelled out (defaults included), so
    /// that records of its games (a match's results file) say which rules shaped them. The
    /// default, for a game without options, is none.
    fn options(&self) -> GameOptions<'static> {
        GameOptions::default()
    }

    /// An exact solver, which `solve` runs without `--depth` or `--strategy` (none by default).
    fn exact_solver() -> Option<ExactSolver<Self>> {
        None
    }

    /// How `train` learns an evaluation for the game by self-play, if it learns one (none by
    /// default; a [`TwoPlayerTupleGame`](cubesearch_learn::selfplay::TwoPlayerTupleGame)
    /// gives [`Learner::of`]).
    const LEARNER: Option<Learner<Self>> = None;

    /// A bound on the plies any game from `state` lasts, if the game knows one (Nim: the
    /// objects left). Estimates of a search's size stop there ([`cubesearch_players::effort`]).
    fn plies_left_at_most(&self, _state: &Self::State) -> Option<u32> {
        None
    }

    /// Whether the side to move in `state` is the side that moves first from the start, if the
    /// position says (engines answer `query p1turn` by it; otherwise by counting plies).
    fn first_mover_to_move(&self, _state: &Self::State) -> Option<bool> {
        None
    }

    /// A whole game in [`RECORD_FORMAT`](Self::RECORD_FORMAT) read back, as
    /// [`Game::game_record`](cubesearch_core::Game::game_record) writes it and other programs send it (NBoard's `set game`): where
    /// it starts and its moves, each checked legal. By default the game has no reader.
    fn read_record(&self, _text: &str) -> Result<(Self::State, Vec<Self::Move>)> {
        Err(cubesearch_core::Error::Unsupported(format!(
            "{} has no game record reader",
            Self::NAME
        )))
    }

    /// A move as the record format and its protocols write it (GGF: `F5`, `PA`); by default
    /// the game's notation.
    fn record_move(&self, state: &Self::State, mv: Self::Move) -> String {
        self.format_move(state, mv)
    }
}

/// A one-player stochastic game the command line plays: host rules, device twin and n-tuple
/// cells, which is what `train`, `boards`, `apply --spawn` and its players need. Every such game
/// is one.
pub trait OnePlayerGame: GpuStochasticGame + TupleGame + Default {}

impl<G: GpuStochasticGame + TupleGame + Default> OnePlayerGame for G {}
