//! Reversi (Othello): 8×8, standard start, Black first. A player with no legal move passes (a
//! pass is a move, one ply); the game ends when neither side can move, and the side with more
//! discs wins. The final score gives the empty squares to the winner.
//!
//! * [`board`]: the position and its bit layout;
//! * [`movegen`]: move generation and flips over two bitboards;
//! * [`notation`]: position and move text, and the board drawn for a person; [`ggf`]: whole
//!   games as GGF (saved by `play --pdn`, read by the NBoard protocol);
//! * [`players`]: the seed's easy and medium move choices; [`nboard`]: an NBoard engine as a
//!   player (`nboard:cmd=…`);
//! * [`eval`]: the static evaluation alpha-beta scores leaves with;
//! * [`endgame`]: the exact endgame solver;
//! * [`device`]: the device twin (`DeviceReversi`), the seed's players scored on the device, the
//!   board-layout measurement and the children/score kernels the tests use;
//! * [`seed_player`]: the seed's players as [`Player`]s
//!   (`easy`, `medium`, on the CPU or with `exec=gpu`), Reversi's own player specs;
//!
//! Canonical move order (the device twin reproduces it): the squares of the legal placements in
//! ascending index (a1, b1, …, h1, a2, …, h8); `pass` alone when there is none but the opponent
//! can move; nothing once the game is over.

pub mod board;
#[allow(missing_docs)] // `#[cube]` and `CubeType` generate items that carry no docs
pub mod device;
pub mod endgame;
pub mod eval;
pub mod ggf;
pub mod movegen;
pub mod nboard;
pub mod notation;
pub mod ntuple;
pub mod players;
pub mod problems;
pub mod seed_player;

pub use board::{Board, Colour, Square};

use crate::kinds::{network_evaluation, Exact, ExactSolver, GameOptions, Learner, TwoPlayerGame};
use cubesearch_core::backend::Backend;
use cubesearch_core::game::illegal_move;
use cubesearch_core::{Error, Game, Outcome, Result};
use cubesearch_players::learned::Evaluated;
use cubesearch_players::player::{NamedPlayers, Player};
use cubesearch_players::text::SpecText;
use movegen::{legal_moves, place};
use notation::{display_board, format_board, parse_board, parse_square, square_name};

/// The game of Reversi.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reversi;

/// A Reversi position (see [`board`] for the layout).
pub type ReversiState = Board;

/// A Reversi move: a disc on a square, or a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReversiMove {
    /// Place a disc on this square (0 = a1 … 63 = h8).
    Place(Square),
    /// No placement is legal, so the turn passes.
    Pass,
}

/// Whether neither side can place a disc: the game is over.
pub fn is_finished(board: &Board) -> bool {
    legal_moves(board) == 0 && legal_moves(&board.swapped()) == 0
}

/// The final score of a finished game from the side to move's view: its discs minus the
/// opponent's, the empty squares going to whoever has more discs (none on a tie).
pub fn final_score(board: &Board) -> i32 {
    let mine = board.player.count_ones() as i32;
    let theirs = board.opponent.count_ones() as i32;
    let empty = 64 - mine - theirs;
    match mine.cmp(&theirs) {
        std::cmp::Ordering::Greater => mine - theirs + empty,
        std::cmp::Ordering::Less => mine - theirs - empty,
        std::cmp::Ordering::Equal => 0,
    }
}

impl Game for Reversi {
    type State = Board;
    type Move = ReversiMove;

    const NAME: &'static str = "reversi";
    const STATE_WORDS: usize = 5;
    /// A finished game reached before the full depth counts as one leaf (docs/RULES.md).
    const PERFT_TERMINAL_LEAF: u64 = 1;

    fn initial(&self) -> Board {
        Board::start()
    }

    fn legal_moves(&self, state: &Board, out: &mut Vec<ReversiMove>) {
        let mut moves = legal_moves(state);
        if moves == 0 {
            if legal_moves(&state.swapped()) != 0 {
                out.push(ReversiMove::Pass);
            }
            return;
        }
        while moves != 0 {
            out.push(ReversiMove::Place(moves.trailing_zeros() as Square));
            moves &= moves - 1;
        }
    }

    fn apply(&self, state: &Board, mv: ReversiMove) -> Board {
        match mv {
            ReversiMove::Place(square) => {
                debug_assert!(legal_moves(state) & board::bit(square) != 0);
                place(state, square)
            }
            ReversiMove::Pass => state.swapped(),
        }
    }

    /// Finished: the final score (empties to the winner) times [`eval::WIN_SCALE`]; otherwise
    /// the heuristic [`eval::evaluate`], which stays below any win.
    fn score(&self, state: &Board) -> i32 {
        if is_finished(state) {
            final_score(state) * eval::WIN_SCALE
        } else {
            eval::evaluate(state)
        }
    }

    fn outcome(&self, state: &Board) -> Outcome {
        if !is_finished(state) {
            return Outcome::Ongoing;
        }
        match final_score(state) {
            s if s > 0 => Outcome::Win,
            s if s < 0 => Outcome::Loss,
            _ => Outcome::Draw,
        }
    }

    fn encode(&self, state: &Board, out: &mut [u32]) {
        out[0] = state.player as u32;
        out[1] = (state.player >> 32) as u32;
        out[2] = state.opponent as u32;
        out[3] = (state.opponent >> 32) as u32;
        out[4] = (state.to_move == Colour::White) as u32;
    }

    fn decode(&self, words: &[u32]) -> Board {
        Board {
            player: words[0] as u64 | (words[1] as u64) << 32,
            opponent: words[2] as u64 | (words[3] as u64) << 32,
            to_move: if words[4] & 1 == 1 {
                Colour::White
            } else {
                Colour::Black
            },
        }
    }

    fn parse_position(&self, text: &str) -> Result<Board> {
        parse_board(text)
    }

    fn format_position(&self, state: &Board) -> String {
        format_board(state)
    }

    /// An 8×8 board, rank 8 on top, with the side to move's legal squares marked `*`, the disc
    /// counts and the side to move.
    fn display(&self, state: &Board) -> String {
        display_board(state)
    }

    fn format_move(&self, _state: &Board, mv: ReversiMove) -> String {
        match mv {
            ReversiMove::Place(square) => square_name(square),
            ReversiMove::Pass => "pass".to_string(),
        }
    }

    /// GGF, Black and White named from `players` by who moves first in `start`.
    fn game_record(
        &self,
        start: &Board,
        moves: &[ReversiMove],
        _result: i32,
        players: [&str; 2],
    ) -> Option<String> {
        let players = match start.to_move {
            Colour::Black => players,
            Colour::White => [players[1], players[0]],
        };
        let date = cubesearch_core::io::today();
        Some(ggf::game_to_ggf(start, moves, players, &date))
    }

    fn parse_move(&self, state: &Board, text: &str) -> Result<ReversiMove> {
        let wanted = text.trim().to_ascii_lowercase();
        // `pa` is GGF's and NBoard's pass.
        let mv = if wanted == "pass" || wanted == "pa" {
            ReversiMove::Pass
        } else if let Some(square) = parse_square(&wanted) {
            ReversiMove::Place(square)
        } else {
            return Err(Error::parse(format!(
                "bad Reversi move '{}': expected a square a1..h8 or pass",
                text.trim()
            )));
        };
        let legal = self.moves(state);
        if legal.contains(&mv) {
            Ok(mv)
        } else {
            Err(illegal_move(self, state, &wanted, &legal))
        }
    }
}

/// Reversi on the command line: solved exactly without `--depth` or `--strategy`, games
/// written and read as GGF.
/// Reversi's own players: the seed's, and NBoard engines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReversiPlayer {
    /// `easy` or `medium`, `[:exec=cpu|gpu]`.
    Seed(seed_player::SeedSpec),
    /// `nboard:[depth=D,][handshake=T,][grace=T,]cmd=COMMAND`.
    NBoard(nboard::NBoardSpec),
}

impl NamedPlayers for Reversi {
    type Named = ReversiPlayer;
    const NAMED: &'static str =
        "easy, medium (each with exec=cpu|gpu), nboard:[depth=D,handshake=T,grace=T,]cmd=COMMAND";

    fn parse_named(spec: &SpecText) -> Option<Result<ReversiPlayer>> {
        if spec.name() == "nboard" {
            return Some(nboard::NBoardSpec::parse(spec.text().trim()).map(ReversiPlayer::NBoard));
        }
        seed_player::SeedSpec::parse(spec).map(|seed| seed.map(ReversiPlayer::Seed))
    }

    fn named_player(
        spec: &ReversiPlayer,
        backend: Backend,
        seed: u32,
    ) -> Result<Box<dyn Player<Self>>> {
        match spec {
            ReversiPlayer::Seed(s) => s.build(backend, seed),
            ReversiPlayer::NBoard(s) => Ok(Box::new(nboard::NBoardPlayer::start(s)?)),
        }
    }

    /// The network, searched with ProbCut, and the endgame solver where it expects to finish
    /// in a quarter of the move's time.
    fn learned_evaluation(path: &std::path::Path) -> Result<Evaluated<Self>> {
        Ok(
            network_evaluation(path, Reversi, ntuple::SCORE_PER_DISC, eval::WIN_SCALE)?
                .with_exact(Box::new(endgame::exact_move))
                .with_probcut(),
        )
    }
}

impl TwoPlayerGame for Reversi {
    const RECORD_FORMAT: Option<&'static str> = Some("GGF");

    const LEARNER: Option<Learner<Self>> = Some(Learner::of());

    fn read_record(&self, text: &str) -> Result<(Board, Vec<ReversiMove>)> {
        ggf::parse_game(text)
    }

    fn record_move(&self, _state: &Board, mv: ReversiMove) -> String {
        ggf::move_text(mv)
    }

    fn first_mover_to_move(&self, state: &Board) -> Option<bool> {
        Some(state.to_move == Board::start().to_move)
    }

    fn from_options(options: &GameOptions) -> Result<Self> {
        options.no_rules(Self::NAME)?;
        Ok(Reversi)
    }

    fn exact_solver() -> Option<ExactSolver<Self>> {
        Some(ExactSolver {
            name: "exact endgame solver",
            value: "exact final disc difference",
            solve: |_, board, threads, stop| {
                let solved = endgame::solve_quickest(board, threads, stop)?;
                Some(Exact {
                    value: solved.value,
                    best: solved.best,
                    nodes: solved.nodes,
                    facts: vec![("empties", board.empty().count_ones() as u64)],
                })
            },
            estimate: |board| endgame::estimated_nodes(board.empty().count_ones()),
            threaded: true,
        })
    }
}

#[cfg(test)]
mod tests;
