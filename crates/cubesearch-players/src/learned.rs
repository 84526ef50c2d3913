//! A game whose evaluation is a learned one: [`Evaluated`] is the game with `score` read from
//! a network (`alphabeta:weights=W`); every other rule is the game's own. [`ValueLeaves`]
//! hands MCTS that score in place of random games (`mcts:weights=W`).

use cubesearch_core::{Game, Outcome, Playouts, Result, Stop, WinDrawCounts};
use std::time::Duration;

/// The score of an unfinished position, for the side to move.
pub type Evaluation<G> = Box<dyn Fn(&G, &<G as Game>::State) -> i32 + Send + Sync>;

/// A game's exact solver as a player uses it: a best move of `state` under perfect play when
/// the solver expects to find one within the time given (it gives up at the stop), else
/// `None` and the search plays.
pub type ExactMove<G> = Box<
    dyn Fn(&G, &<G as Game>::State, Duration, &Stop) -> Option<<G as Game>::Move> + Send + Sync,
>;

/// `game` with `score` from `eval` for positions still in play; finished ones keep the game's
/// own score (or ±`win`, [`Evaluated::with_win`]), so that a won game ranks above any
/// evaluation.
pub struct Evaluated<G: Game> {
    game: G,
    eval: Evaluation<G>,
    win: Option<i32>,
    exact: Option<ExactMove<G>>,
    probcut: bool,
}

impl<G: Game> Evaluated<G> {
    /// `game` scored by `eval`, which stays inside the game's own scores of won and lost games.
    pub fn new(game: G, eval: Evaluation<G>) -> Self {
        Self {
            game,
            eval,
            win: None,
            exact: None,
            probcut: false,
        }
    }

    /// `game` scored by `eval`, a won game `win`, a lost one `−win`, a draw 0: for a game whose
    /// own score of a finished game is ±1, so that `eval` keeps inside ±(`win` − 1).
    pub fn with_win(game: G, eval: Evaluation<G>, win: i32) -> Self {
        Self {
            game,
            eval,
            win: Some(win),
            exact: None,
            probcut: false,
        }
    }

    /// With the game's exact solver, which a timed player asks first near the end (the strong
    /// Othello programs solve the last 20-odd empties exactly).
    pub fn with_exact(mut self, exact: ExactMove<G>) -> Self {
        self.exact = Some(exact);
        self
    }

    /// Searched with ProbCut, its margin fitted to this evaluation when a player takes it:
    /// for a game where that measured a gain (Reversi's network: +85 Elo; checkers' did not
    /// gain).
    pub fn with_probcut(mut self) -> Self {
        self.probcut = true;
        self
    }

    /// Whether a player searches it with ProbCut ([`Evaluated::with_probcut`]).
    pub fn probcut(&self) -> bool {
        self.probcut
    }

    /// The exact solver's best move of `state` within `time`, where it has one.
    pub fn exact_move(&self, state: &G::State, time: Duration, stop: &Stop) -> Option<G::Move> {
        self.exact.as_ref()?(&self.game, state, time, stop)
    }
}

impl<G: Game> Game for Evaluated<G> {
    type State = G::State;
    type Move = G::Move;
    const NAME: &'static str = G::NAME;
    const STATE_WORDS: usize = G::STATE_WORDS;
    const PERFT_TERMINAL_LEAF: u64 = G::PERFT_TERMINAL_LEAF;

    fn initial(&self) -> G::State {
        self.game.initial()
    }
    fn legal_moves(&self, state: &G::State, out: &mut Vec<G::Move>) {
        self.game.legal_moves(state, out)
    }
    fn apply(&self, state: &G::State, mv: G::Move) -> G::State {
        self.game.apply(state, mv)
    }
    fn outcome(&self, state: &G::State) -> Outcome {
        self.game.outcome(state)
    }
    fn score(&self, state: &G::State) -> i32 {
        match (self.game.outcome(state), self.win) {
            (Outcome::Ongoing, _) => (self.eval)(&self.game, state),
            (Outcome::Win, Some(win)) => win,
            (Outcome::Loss, Some(win)) => -win,
            (_, Some(_)) => 0,
            (_, None) => self.game.score(state),
        }
    }
    fn encode(&self, state: &G::State, out: &mut [u32]) {
        self.game.encode(state, out)
    }
    fn decode(&self, words: &[u32]) -> G::State {
        self.game.decode(words)
    }
    fn parse_position(&self, text: &str) -> Result<G::State> {
        self.game.parse_position(text)
    }
    fn format_position(&self, state: &G::State) -> String {
        self.game.format_position(state)
    }
    fn format_move(&self, state: &G::State, mv: G::Move) -> String {
        self.game.format_move(state, mv)
    }
}

/// Simulations that read a learned evaluation instead of playing games out (`mcts:weights=W`):
/// each leaf's `per_root` simulations are its score as a win probability for the side to move,
/// `1 / (1 + 10^(−score / 400))` (the inverse of `mcts::centipawns`: 400 score units are 10:1
/// odds; Reversi's network scores 64 a disc, checkers' 500 a won game), counted in halves as a
/// draw counts, so MCTS averages values as it does playout results. A finished leaf counts its
/// result.
pub struct ValueLeaves<G: Game> {
    scored: Evaluated<G>,
}

impl<G: Game> ValueLeaves<G> {
    /// Leaves valued by `scored`'s score.
    pub fn new(scored: Evaluated<G>) -> Self {
        Self { scored }
    }

    /// The win probability of `state` for the side to move.
    pub fn win_probability(&self, state: &G::State) -> f64 {
        match self.scored.outcome(state) {
            Outcome::Win => 1.0,
            Outcome::Loss => 0.0,
            Outcome::Draw => 0.5,
            Outcome::Ongoing => {
                1.0 / (1.0 + 10f64.powf(-f64::from(self.scored.score(state)) / 400.0))
            }
        }
    }
}

impl<G: Game> Playouts<G> for ValueLeaves<G> {
    fn playouts(
        &mut self,
        _game: &G,
        roots: &[G::State],
        per_root: u32,
        _seed: u32,
    ) -> Result<Vec<WinDrawCounts>> {
        let games = u64::from(per_root);
        Ok(roots
            .iter()
            .map(|state| {
                let halves = (self.win_probability(state) * 2.0 * games as f64).round() as u64;
                WinDrawCounts {
                    wins: halves / 2,
                    draws: halves % 2,
                    games,
                }
            })
            .collect())
    }
}
