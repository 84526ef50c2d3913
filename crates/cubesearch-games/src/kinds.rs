//! What a game of each kind offers the commands, and how a command reaches a game: a
//! [`GameVisitor`] has one method for two-player games ([`TwoPlayerGame`]) and one for
//! one-player stochastic games ([`OnePlayerGame`]), each generic over the game. The games
//! implement these traits; the [registry](crate::registry) lists the games.

use cubesearch_core::{Error, Game, Result, Stop};
use cubesearch_kernels::selfplay::DeviceTupleGame;
use cubesearch_kernels::{GpuGame, GpuStochasticGame};
use cubesearch_learn::selfplay::TwoPlayerTupleGame;
use cubesearch_learn::{shapes_for, NTupleNetwork, TupleGame};
use cubesearch_players::learned::Evaluated;
use cubesearch_players::player::NamedPlayers;
use cubesearch_train::{train, SelfPlayTd, TrainConfig, TrainProgress, TrainReport};
use std::path::Path;

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
    /// The name of the format [`Game::game_record`] writes (`play --pdn`), if it writes one.
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
    /// default; a [`TwoPlayerTupleGame`] gives [`Learner::of`]).
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
    /// [`Game::game_record`] writes it and other programs send it (NBoard's `set game`): where
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

/// A game's exact solver: the value of a position under perfect play and a best move, on CPU
/// threads.
pub struct ExactSolver<G: Game> {
    /// What it is, for the line naming where the work runs (`exact endgame solver`).
    pub name: &'static str,
    /// What its value counts, for the side to move (`exact final disc difference`).
    pub value: &'static str,
    /// Solves a position; `None` once the stop is raised, the work dropped.
    pub solve: SolveFn<G>,
    /// About how many positions a solve visits: what a refusal of work of days reads.
    pub estimate: fn(&G::State) -> f64,
    /// Whether the solve uses the threads it is given (a formula does not: `--threads` is
    /// refused there).
    pub threaded: bool,
}

/// An [`ExactSolver`]'s solve: the game, the position, the CPU threads it may use and the stop
/// it obeys.
pub type SolveFn<G> = fn(&G, &<G as Game>::State, usize, &Stop) -> Option<Exact<<G as Game>::Move>>;

/// What an [`ExactSolver`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exact<M> {
    /// The value for the side to move.
    pub value: i32,
    /// A best move (`None` when the game is over).
    pub best: Option<M>,
    /// Positions visited.
    pub nodes: u64,
    /// Counts that describe the position (`empties`), in the order they are reported.
    pub facts: Vec<(&'static str, u64)>,
}

/// What `train` needs of a two-player game that learns its evaluation by self-play
/// ([`SelfPlayTd`]), made for it once: the functions the command line cannot write without
/// naming the game's learning bounds.
pub struct Learner<G: Game> {
    /// Tuple shapes from text: a named set of the game's or cell lists.
    pub shapes: fn(&str) -> Result<Vec<Vec<u8>>>,
    /// The one training loop, learning by self-play.
    pub train: TrainFn<G>,
}

/// [`Learner::train`].
pub type TrainFn<G> =
    fn(&G, &TrainConfig, &mut dyn FnMut(&TrainProgress)) -> Result<(NTupleNetwork, TrainReport)>;

impl<G> Learner<G>
where
    G: TwoPlayerTupleGame + GpuGame,
    G::Device: DeviceTupleGame,
{
    /// The learner of game `G`, on CPU threads or a GPU.
    pub const fn of() -> Self {
        Learner {
            shapes: shapes_for::<G>,
            train: |game, cfg, progress| train(SelfPlayTd(game), cfg, progress),
        }
    }
}

/// `game` scored by the network in weights file `path` (`alphabeta:weights=W`): its value times
/// `per_unit`, kept inside ±(`win` − 1) so that a won game (scored `win` or more) still ranks
/// above any position in play.
pub fn network_evaluation<G: TwoPlayerTupleGame>(
    path: &Path,
    game: G,
    per_unit: f32,
    win: i32,
) -> Result<Evaluated<G>> {
    let (net, _) = NTupleNetwork::load::<G>(path, None)?;
    Ok(Evaluated::new(
        game,
        Box::new(move |game, state| {
            let value = (net.value(game, *state) * per_unit).round();
            (value as i32).clamp(1 - win, win - 1)
        }),
    ))
}

/// A one-player stochastic game the command line plays: host rules, device twin and n-tuple
/// cells, which is what `train`, `boards`, `apply --spawn` and its players need. Every such game
/// is one.
pub trait OnePlayerGame: GpuStochasticGame + TupleGame + Default {}

impl<G: GpuStochasticGame + TupleGame + Default> OnePlayerGame for G {}
