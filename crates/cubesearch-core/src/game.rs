//! The host-side game traits. A game is a value (it may carry options such as a rule set) that
//! answers questions about compact, copyable states.

use crate::error::{Error, Result};
use crate::rng::XorShift32;
use std::fmt::Debug;
use std::hash::Hash;

/// How a position stands, seen from the side to move. Relative outcomes serve impartial games
/// (Nim's heaps do not say whose turn it is) and partisan games alike; search code keeps track of
/// which side that is by counting plies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Outcome {
    /// The game goes on.
    Ongoing = 0,
    /// The side to move has lost.
    Loss = 1,
    /// The side to move has won.
    Win = 2,
    /// Nobody won.
    Draw = 3,
}

impl Outcome {
    /// The code the device kernels use for this outcome (`0..=3`, as the discriminants).
    pub const fn code(self) -> u32 {
        self as u32
    }

    /// The outcome with this device code.
    pub fn from_code(code: u32) -> Option<Self> {
        [Self::Ongoing, Self::Loss, Self::Win, Self::Draw]
            .get(code as usize)
            .copied()
    }

    /// The same result seen from the other side.
    pub const fn flipped(self) -> Self {
        match self {
            Self::Loss => Self::Win,
            Self::Win => Self::Loss,
            other => other,
        }
    }
}

/// A deterministic two-player game with perfect information.
///
/// `legal_moves` lists moves in a canonical order: the device twin's `child(state, i)` must give
/// the same position as `apply(state, moves[i])`, which is what lets a random playout draw the
/// same move on every backend.
///
/// A whole game: a pile of stones, each turn takes one or two, taking the last one wins.
/// (`examples/connect4.rs` adds a device twin and searches it on every backend.)
/// ```
/// use cubesearch_core::{Error, Game, Outcome, Result};
///
/// struct Pile;
/// impl Game for Pile {
///     type State = u32; // stones left
///     type Move = u32; // stones taken
///     const NAME: &'static str = "pile";
///     const STATE_WORDS: usize = 1;
///     fn initial(&self) -> u32 { 10 }
///     fn legal_moves(&self, s: &u32, out: &mut Vec<u32>) { out.extend((1..=2).filter(|t| t <= s)) }
///     fn apply(&self, s: &u32, take: u32) -> u32 { s - take }
///     // The side to move faces an empty pile: the other side took the last stone.
///     fn outcome(&self, s: &u32) -> Outcome { if *s == 0 { Outcome::Loss } else { Outcome::Ongoing } }
///     fn encode(&self, s: &u32, out: &mut [u32]) { out[0] = *s }
///     fn decode(&self, words: &[u32]) -> u32 { words[0] }
///     fn parse_position(&self, text: &str) -> Result<u32> {
///         text.trim().parse().map_err(|_| Error::parse(format!("bad pile '{text}'")))
///     }
///     fn format_position(&self, s: &u32) -> String { s.to_string() }
///     fn format_move(&self, _: &u32, take: u32) -> String { take.to_string() }
/// }
///
/// assert_eq!(Pile.moves(&Pile.initial()), vec![1, 2]);
/// assert_eq!(Pile.apply(&1, 1), 0);
/// assert_eq!(Pile.outcome(&0), Outcome::Loss);
/// assert!(Pile.parse_position("many").is_err());
/// ```
pub trait Game: Send + Sync + 'static {
    /// A position: plain old data that fits in [`Game::STATE_WORDS`] u32 words.
    type State: Copy + Eq + Hash + Debug + Send + Sync + 'static;
    /// A move in some position.
    type Move: Copy + Eq + Debug + Send + Sync + 'static;

    /// The name used on the command line (`nim`, `checkers`, ...).
    const NAME: &'static str;
    /// How many u32 words a state takes on the device.
    const STATE_WORDS: usize;
    /// Leaves perft counts for a position with no legal move before the full depth is reached
    /// (0 for most games; Reversi counts a finished game as one leaf).
    const PERFT_TERMINAL_LEAF: u64 = 0;

    /// The usual starting position.
    fn initial(&self) -> Self::State;
    /// Appends the legal moves of `state` to `out`, in canonical order.
    fn legal_moves(&self, state: &Self::State, out: &mut Vec<Self::Move>);
    /// The position after `mv`, which must be legal.
    fn apply(&self, state: &Self::State, mv: Self::Move) -> Self::State;
    /// Whether the game is over, and for whom, seen from the side to move.
    fn outcome(&self, state: &Self::State) -> Outcome;

    /// The negamax value of `state` for the side to move: exact for a finished game, a heuristic
    /// otherwise. The default knows only finished games: +1 won, −1 lost, 0 otherwise (Nim's
    /// values, with 0 meaning unknown at a depth cut-off). The device twin's `score` must equal it.
    fn score(&self, state: &Self::State) -> i32 {
        match self.outcome(state) {
            Outcome::Win => 1,
            Outcome::Loss => -1,
            _ => 0,
        }
    }

    /// Writes `state` as exactly [`Game::STATE_WORDS`] words.
    fn encode(&self, state: &Self::State, out: &mut [u32]);
    /// Reads a state written by [`Game::encode`].
    fn decode(&self, words: &[u32]) -> Self::State;

    /// Reads a position in the game's text notation (see docs/RULES.md).
    fn parse_position(&self, text: &str) -> Result<Self::State>;
    /// Writes a position in the game's text notation.
    fn format_position(&self, state: &Self::State) -> String;
    /// The position drawn for a person (a board with coordinates); defaults to the notation.
    fn display(&self, state: &Self::State) -> String {
        self.format_position(state)
    }

    /// A whole game written in the game's record format (PDN for checkers), ready to save: the
    /// moves played from `start`, `result` from the first mover's view (+1 won, −1 lost, 0 draw)
    /// and the players' names, first mover first. `None` (the default) when the game has no
    /// record format.
    fn game_record(
        &self,
        _start: &Self::State,
        _moves: &[Self::Move],
        _result: i32,
        _players: [&str; 2],
    ) -> Option<String> {
        None
    }

    /// Writes a move in the game's notation.
    fn format_move(&self, state: &Self::State, mv: Self::Move) -> String;

    /// Reads a move typed in the game's notation and checks that it is legal in `state`.
    /// The default compares against every legal move's text; games override it to tell a
    /// malformed move from an illegal one.
    fn parse_move(&self, state: &Self::State, text: &str) -> Result<Self::Move> {
        let mut moves = Vec::new();
        self.legal_moves(state, &mut moves);
        let wanted = text.trim();
        moves
            .iter()
            .copied()
            .find(|&m| self.format_move(state, m) == wanted)
            .ok_or_else(|| illegal_move(self, state, wanted, &moves))
    }

    /// The position after a uniformly drawn legal move: move `rng.below(count)` of the canonical
    /// list, the draw every backend makes. `state` must have a legal move. Games override this
    /// with a faster path (the CPU baseline plays millions of these); the result must equal
    /// [`play_random_from_list`].
    fn play_random(
        &self,
        state: &Self::State,
        rng: &mut XorShift32,
        scratch: &mut Vec<Self::Move>,
    ) -> Self::State {
        play_random_from_list(self, state, rng, scratch)
    }

    /// Convenience: the legal moves of `state` in a new vector.
    fn moves(&self, state: &Self::State) -> Vec<Self::Move> {
        let mut out = Vec::new();
        self.legal_moves(state, &mut out);
        out
    }

    /// Encodes many states into one word buffer, ready to upload.
    fn encode_all(&self, states: &[Self::State]) -> Vec<u32> {
        let mut words = vec![0; states.len() * Self::STATE_WORDS];
        for (state, chunk) in states.iter().zip(words.chunks_exact_mut(Self::STATE_WORDS)) {
            self.encode(state, chunk);
        }
        words
    }
}

/// [`Game::play_random`] by listing every legal move: the reference each override must equal.
pub fn play_random_from_list<G: Game + ?Sized>(
    game: &G,
    state: &G::State,
    rng: &mut XorShift32,
    scratch: &mut Vec<G::Move>,
) -> G::State {
    scratch.clear();
    game.legal_moves(state, scratch);
    game.apply(state, scratch[rng.below(scratch.len() as u32) as usize])
}

/// `moves` played one after another from `start`, each written in the game's notation where
/// it is played.
pub fn write_moves<G: Game + ?Sized>(game: &G, start: &G::State, moves: &[G::Move]) -> Vec<String> {
    let mut state = *start;
    moves
        .iter()
        .map(|&mv| {
            let text = game.format_move(&state, mv);
            state = game.apply(&state, mv);
            text
        })
        .collect()
}

/// Moves in the game's notation read one after another from `start` ([`write_moves`]
/// reversed), each checked legal where it is played.
pub fn read_moves<G: Game + ?Sized>(
    game: &G,
    start: &G::State,
    texts: &[impl AsRef<str>],
) -> Result<Vec<G::Move>> {
    let mut state = *start;
    texts
        .iter()
        .map(|text| {
            let mv = game.parse_move(&state, text.as_ref())?;
            state = game.apply(&state, mv);
            Ok(mv)
        })
        .collect()
}

/// The error for a well-formed but illegal move, listing what is legal.
pub fn illegal_move<G: Game + ?Sized>(
    game: &G,
    state: &G::State,
    text: &str,
    legal: &[G::Move],
) -> Error {
    let listed: Vec<String> = legal
        .iter()
        .take(24)
        .map(|&m| game.format_move(state, m))
        .collect();
    let more = if legal.len() > listed.len() {
        ", ..."
    } else {
        ""
    };
    let why = if legal.is_empty() {
        "the game is over".to_string()
    } else {
        format!("legal moves are {}{more}", listed.join(", "))
    };
    Error::IllegalMove {
        mv: text.to_string(),
        why,
    }
}

/// `1 / total` rounded to f32 on the host: the factor of an expectimax chance mean. Every
/// backend forms the mean of outcome values `v(o)` with weights `w(o)` as
/// `(Σ f32(w(o)) · v(o), added in the outcomes' order from 0.0) × reciprocal_weight(Σ w(o))`,
/// so that its bits do not depend on where it runs; a device reads these factors from a table
/// rather than dividing (WGSL lets a division be 2.5 ULP off).
pub fn reciprocal_weight(total: u32) -> f32 {
    1.0 / total as f32
}

/// A single-player game with chance: the player picks an action, which yields an *afterstate*
/// and a reward; then chance turns the afterstate into the next state (2584 and 2048 spawn a tile).
/// TD learning values afterstates; expectimax alternates max over actions and means over chance.
///
/// Beyond the four rule methods, the trait carries the text notation of positions and actions
/// (the CLI reads and prints them) and default helpers that list the legal actions and tell a
/// finished game, both derived from [`StochasticGame::afterstate`].
pub trait StochasticGame: Send + Sync + 'static {
    /// A position (also used for afterstates, which are positions before the chance event).
    type State: Copy + Eq + Hash + Debug + Send + Sync + 'static;
    /// A player action.
    type Action: Copy + Eq + Debug + Send + Sync + 'static;

    /// The name used on the command line.
    const NAME: &'static str;
    /// Every action, legal or not, in canonical order.
    const ACTIONS: &'static [Self::Action];

    /// The afterstate and reward of `action`, or `None` if it changes nothing (illegal).
    fn afterstate(&self, state: &Self::State, action: Self::Action) -> Option<(Self::State, u32)>;
    /// Appends every chance outcome that can follow `afterstate` with its integer weight: its
    /// probability is its weight over the listed weights' sum. Integer weights let every
    /// backend form a chance node's mean with the same roundings ([`reciprocal_weight`]). A
    /// game with a device twin lists them in the twin's slot order with the twin's weights.
    fn chance_outcomes(&self, afterstate: &Self::State, out: &mut Vec<(Self::State, u32)>);
    /// Draws one chance outcome of `afterstate`.
    fn sample_chance(
        &self,
        afterstate: &Self::State,
        rng: &mut crate::rng::XorShift32,
    ) -> Self::State;
    /// A starting position drawn at random.
    fn initial(&self, rng: &mut XorShift32) -> Self::State;

    /// Reads a position in the game's text notation (see docs/RULES.md).
    fn parse_position(&self, text: &str) -> Result<Self::State>;
    /// Writes a position in the game's text notation.
    fn format_position(&self, state: &Self::State) -> String;
    /// Writes an action in the game's notation (`left`, `right`, ...).
    fn format_action(&self, action: Self::Action) -> String;
    /// The position drawn for a person (a grid of tiles); defaults to the notation.
    fn display(&self, state: &Self::State) -> String {
        self.format_position(state)
    }

    /// Reads an action typed in the game's notation (any case, surrounding blanks ignored).
    /// Legality is not checked here: [`StochasticGame::afterstate`] answers that.
    fn parse_action(&self, text: &str) -> Result<Self::Action> {
        let wanted = text.trim().to_ascii_lowercase();
        Self::ACTIONS
            .iter()
            .copied()
            .find(|&a| self.format_action(a) == wanted)
            .ok_or_else(|| {
                let names: Vec<String> = Self::ACTIONS
                    .iter()
                    .map(|&a| self.format_action(a))
                    .collect();
                Error::parse(format!(
                    "bad {} move '{}': expected one of {}",
                    Self::NAME,
                    text.trim(),
                    names.join(", ")
                ))
            })
    }

    /// Appends `(action, afterstate, reward)` for every legal action of `state`, in canonical
    /// order.
    fn legal_actions(&self, state: &Self::State, out: &mut Vec<(Self::Action, Self::State, u32)>) {
        for &a in Self::ACTIONS {
            if let Some((after, reward)) = self.afterstate(state, a) {
                out.push((a, after, reward));
            }
        }
    }

    /// [`StochasticGame::afterstate`] of every action in [`StochasticGame::ACTIONS`] order into
    /// `out` (as long as `ACTIONS`; `None` where illegal). Games override it to share work
    /// between the actions (2584 and 2048 transpose the board once for up and down).
    fn all_afterstates(&self, state: &Self::State, out: &mut [Option<(Self::State, u32)>]) {
        for (o, &a) in out.iter_mut().zip(Self::ACTIONS) {
            *o = self.afterstate(state, a);
        }
    }

    /// Whether no action is legal: the game is over.
    fn is_over(&self, state: &Self::State) -> bool {
        Self::ACTIONS
            .iter()
            .all(|&a| self.afterstate(state, a).is_none())
    }
}
