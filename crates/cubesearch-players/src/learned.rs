//! A game whose evaluation is a learned one: [`Evaluated`] is the game with `score` read from
//! a network (`alphabeta:weights=W`); every other rule is the game's own.

use cubesearch_core::{Game, Outcome, Result};

/// The score of an unfinished position, for the side to move.
pub type Evaluation<G> = Box<dyn Fn(&G, &<G as Game>::State) -> i32 + Send + Sync>;

/// `game` with `score` from `eval` for positions still in play; finished ones keep the game's
/// own score, so that a won game ranks above any evaluation.
pub struct Evaluated<G: Game> {
    game: G,
    eval: Evaluation<G>,
}

impl<G: Game> Evaluated<G> {
    /// `game` scored by `eval`.
    pub fn new(game: G, eval: Evaluation<G>) -> Self {
        Self { game, eval }
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
        match self.game.outcome(state) {
            Outcome::Ongoing => (self.eval)(&self.game, state),
            _ => self.game.score(state),
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
