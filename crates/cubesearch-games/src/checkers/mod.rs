//! Checkers (seed 001): 8×8 draughts with men that move and capture forward, kings that move one
//! square in any diagonal direction, mandatory captures that must be completed, and two rule
//! sets: `longest` (only the sequences that capture the most pieces) and `american` (any
//! sequence). A man that reaches the far row is crowned and its move ends there. The game is
//! drawn after `draw_plies` plies without a capture; a side with no legal move has lost.
//!
//! See [`board`] for the bit layout (the seed's rotated indexing, shared with the device),
//! [`movegen`] for the canonical move order, [`notation`] for the text formats, [`display`] for
//! the board drawn for a person, [`pdn`] for whole games as PDN and [`device`] for the device
//! twin.

pub mod board;
pub mod cbapi;
#[allow(missing_docs)] // `#[cube]` and `CubeType` generate items that carry no docs
pub mod device;
pub mod display;
pub mod movegen;
pub mod notation;
pub mod ntuple;
pub mod pdn;

pub use board::{CheckersState, Rules, Side};
pub use movegen::CheckersMove;

use crate::kinds::{network_evaluation, GameOptions, Learner, TwoPlayerGame};
use cubesearch_core::backend::Backend;
use cubesearch_core::game::{illegal_move, play_random_from_list, read_moves};
use cubesearch_core::rng::XorShift32;
use cubesearch_core::{Error, Game, Outcome, Result};
use cubesearch_players::learned::Evaluated;
use cubesearch_players::player::{NamedPlayers, Player};
use cubesearch_players::text::SpecText;

/// The standard start, Black to move.
pub const START_FEN: &str = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";

/// The score of a finished game won (negated for a loss); far above any material count.
pub const LOSS_SCORE: i32 = 1000;

/// Checkers under a rule set and a draw limit. Positions carry both (in their `info` word), so
/// the rules that apply to a position are those it was created with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checkers {
    /// Which capture sequences may be chosen.
    pub rules: Rules,
    /// Plies without a capture after which the game is drawn (clamped to 1..=255).
    pub draw_plies: u32,
}

impl Default for Checkers {
    fn default() -> Self {
        Self {
            rules: Rules::Longest,
            draw_plies: 50,
        }
    }
}

impl Checkers {
    /// Checkers with these rules and the default draw limit of 50 plies.
    pub fn new(rules: Rules) -> Self {
        Self {
            rules,
            ..Self::default()
        }
    }

    /// A position with these pieces (bitboards in the rotated layout), no quiet plies yet.
    pub fn position(&self, white: u32, black: u32, kings: u32, side: Side) -> CheckersState {
        CheckersState {
            white,
            black,
            kings: kings & (white | black),
            info: CheckersState::pack_info(side, self.rules, 0, self.draw_plies),
        }
    }
}

impl Checkers {
    /// A random position, rarely a reachable one: each square empty, White's or Black's (a piece
    /// in 20–80 % of them), each piece a king with a random probability, men never on the row
    /// that would crown them, either side to move. Crowded boards full of kings have long and
    /// branching capture sequences: inputs for tests that compare move generators.
    pub fn scattered_position(&self, rng: &mut XorShift32) -> CheckersState {
        let pieces = 20 + rng.below(61);
        let kings = rng.below(101);
        let (mut white, mut black, mut crowned) = (0u32, 0u32, 0u32);
        for i in 0..32 {
            let bit = 1u32 << i;
            if rng.below(100) >= pieces {
                continue;
            }
            let king = rng.below(100) < kings;
            if rng.below(2) == 0 {
                if king || board::ROW_8 & bit == 0 {
                    white |= bit;
                    crowned |= if king { bit } else { 0 };
                }
            } else if king || board::ROW_1 & bit == 0 {
                black |= bit;
                crowned |= if king { bit } else { 0 };
            }
        }
        let side = if rng.below(2) == 0 {
            Side::Black
        } else {
            Side::White
        };
        self.position(white, black, crowned, side)
    }
}

impl Rules {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Rules::Longest => "longest",
            Rules::American => "american",
        }
    }
}

impl std::str::FromStr for Rules {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "longest" => Ok(Rules::Longest),
            "american" => Ok(Rules::American),
            other => Err(Error::parse(format!(
                "unknown checkers rules '{other}': expected longest or american"
            ))),
        }
    }
}

impl Game for Checkers {
    type State = CheckersState;
    type Move = CheckersMove;

    const NAME: &'static str = "checkers";
    const STATE_WORDS: usize = 4;

    fn initial(&self) -> CheckersState {
        self.parse_position(START_FEN)
            .expect("the start position parses")
    }

    fn legal_moves(&self, state: &CheckersState, out: &mut Vec<CheckersMove>) {
        if state.quiet_plies() < state.draw_limit() {
            movegen::generate(state, out);
        }
    }

    fn apply(&self, state: &CheckersState, mv: CheckersMove) -> CheckersState {
        movegen::apply(state, mv)
    }

    /// Steps and single jumps are drawn from whole-board masks without a list (the device's
    /// way); capture sequences of several jumps go through the list.
    fn play_random(
        &self,
        state: &CheckersState,
        rng: &mut XorShift32,
        scratch: &mut Vec<CheckersMove>,
    ) -> CheckersState {
        if state.quiet_plies() < state.draw_limit() {
            if let Some((origins, jump)) = movegen::simple_moves(state) {
                let count: u32 = origins.iter().map(|m| m.count_ones()).sum();
                if count > 0 {
                    let index = rng.below(count);
                    return movegen::apply(state, movegen::nth_simple_move(origins, jump, index));
                }
            }
        }
        play_random_from_list(self, state, rng, scratch)
    }

    /// ±[`LOSS_SCORE`] or 0 for a finished game; otherwise material, a man 3 and a king 5.
    fn score(&self, state: &CheckersState) -> i32 {
        match self.outcome(state) {
            Outcome::Loss => -LOSS_SCORE,
            Outcome::Win => LOSS_SCORE,
            Outcome::Draw => 0,
            Outcome::Ongoing => {
                let (me, opp) = state.sides();
                let worth = |pieces: u32| {
                    3 * (pieces & !state.kings).count_ones() as i32
                        + 5 * (pieces & state.kings).count_ones() as i32
                };
                worth(me) - worth(opp)
            }
        }
    }

    fn outcome(&self, state: &CheckersState) -> Outcome {
        if !movegen::has_move(state) {
            Outcome::Loss
        } else if state.quiet_plies() >= state.draw_limit() {
            Outcome::Draw
        } else {
            Outcome::Ongoing
        }
    }

    fn encode(&self, state: &CheckersState, out: &mut [u32]) {
        out[..4].copy_from_slice(&[state.white, state.black, state.kings, state.info]);
    }

    fn decode(&self, words: &[u32]) -> CheckersState {
        CheckersState {
            white: words[0],
            black: words[1],
            kings: words[2],
            info: words[3],
        }
    }

    fn parse_position(&self, text: &str) -> Result<CheckersState> {
        let (white, black, kings, side) = notation::parse_fen(text)?;
        Ok(self.position(white, black, kings, side))
    }

    fn format_position(&self, state: &CheckersState) -> String {
        notation::format_fen(state)
    }

    fn display(&self, state: &CheckersState) -> String {
        display::display(state)
    }

    /// PDN, Black and White named from `players` by who moves first in `start`.
    fn game_record(
        &self,
        start: &CheckersState,
        moves: &[CheckersMove],
        result: i32,
        players: [&str; 2],
    ) -> Option<String> {
        let [black, white] = match start.side() {
            Side::Black => players,
            Side::White => [players[1], players[0]],
        };
        let tags = pdn::PdnTags {
            event: "cubesearch play".into(),
            date: cubesearch_core::io::today(),
            black: black.into(),
            white: white.into(),
        };
        let result = pdn::PdnResult::from_first_mover(result, start.side());
        Some(pdn::game_to_pdn(start, moves, &tags, result))
    }

    fn format_move(&self, _state: &CheckersState, mv: CheckersMove) -> String {
        notation::format_move(&mv)
    }

    fn parse_move(&self, state: &CheckersState, text: &str) -> Result<CheckersMove> {
        let (squares, capture) = notation::parse_move_text(text)?;
        let moves = self.moves(state);
        let exact = moves
            .iter()
            .find(|m| (m.jumps > 0) == capture && m.squares() == squares);
        if let Some(&mv) = exact {
            return Ok(mv);
        }
        // `15x31` names a capture by its ends when only one sequence joins them.
        if capture && squares.len() == 2 {
            let ends: Vec<_> = moves
                .iter()
                .filter(|m| m.jumps > 0 && m.from == squares[0] && m.to == squares[1])
                .collect();
            if ends.len() == 1 {
                return Ok(*ends[0]);
            }
        }
        Err(illegal_move(self, state, text.trim(), &moves))
    }
}

/// Checkers' own player: an engine library loaded through the CheckerBoard API.
impl NamedPlayers for Checkers {
    type Named = cbapi::CheckerBoardSpec;
    const NAMED: &'static str = "checkerboard:[time=T,]lib=PATH";

    fn parse_named(spec: &SpecText) -> Option<Result<cbapi::CheckerBoardSpec>> {
        (spec.name() == "checkerboard").then(|| cbapi::CheckerBoardSpec::parse(spec.text().trim()))
    }

    fn named_inputs(spec: &cbapi::CheckerBoardSpec) -> Vec<std::path::PathBuf> {
        vec![spec.library.clone()]
    }

    fn named_player(
        spec: &cbapi::CheckerBoardSpec,
        _backend: Backend,
        _seed: u32,
    ) -> Result<Box<dyn Player<Self>>> {
        Ok(Box::new(cbapi::CheckerBoardPlayer::load(spec)?))
    }

    /// A position keeps its own rules, so the default ones here change no search.
    fn learned_evaluation(path: &std::path::Path) -> Result<Evaluated<Self>> {
        let game = Checkers::new(Rules::American);
        network_evaluation(path, game, ntuple::SCORE_PER_UNIT, LOSS_SCORE)
    }
}

/// Checkers on the command line: `--rules american|longest` (default `american`, the rules of
/// CheckerBoard and of published perft tables; `longest` is seed 001's), `--draw-plies 1..=255`
/// (default 50), 8 plies for `solve`, games written as PDN.
impl TwoPlayerGame for Checkers {
    const SOLVE_DEPTH: u32 = 8;
    const RECORD_FORMAT: Option<&'static str> = Some("PDN");
    const LEARNER: Option<Learner<Self>> = Some(Learner::of());

    fn first_mover_to_move(&self, state: &CheckersState) -> Option<bool> {
        Some(state.side() == self.initial().side())
    }

    /// One PDN game: its `[FEN]` start (the standard one without) and its moves.
    fn read_record(&self, text: &str) -> Result<(CheckersState, Vec<CheckersMove>)> {
        let fen = text
            .lines()
            .find_map(|line| line.trim().strip_prefix("[FEN \""))
            .map(|rest| rest.trim_end().trim_end_matches("\"]"));
        let start = match fen {
            Some(fen) => self.parse_position(fen)?,
            None => self.initial(),
        };
        let moves = read_moves(self, &start, &pdn::pdn_move_texts(text))?;
        Ok((start, moves))
    }

    fn from_options(options: &GameOptions) -> Result<Self> {
        let rules = options
            .rules
            .map(str::parse::<Rules>)
            .transpose()?
            .unwrap_or(Rules::American);
        let draw_plies = options.draw_plies.unwrap_or(Checkers::default().draw_plies);
        if !(1..=255).contains(&draw_plies) {
            return Err(Error::parse(format!(
                "--draw-plies {draw_plies}: checkers draws after 1 to 255 plies without a capture"
            )));
        }
        Ok(Checkers { rules, draw_plies })
    }

    fn options(&self) -> GameOptions<'static> {
        GameOptions {
            rules: Some(self.rules.name()),
            draw_plies: Some(self.draw_plies),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cubesearch_search::perft::{expand, perft_many};
    use rstest::rstest;

    const AMERICAN: [u64; 10] = [
        7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963680, 18391564,
    ];
    const LONGEST: [u64; 10] = [
        7, 49, 302, 1469, 7361, 36473, 177532, 828783, 3860875, 17762771,
    ];

    fn perft(game: &Checkers, depth: u32) -> u64 {
        // Split the top two plies so that rayon shares the work between the cores.
        let split = depth.min(2);
        let (frontier, leaves) = expand(game, &[game.initial()], split);
        leaves
            + perft_many(game, &frontier, depth - split)
                .iter()
                .sum::<u64>()
    }

    #[rstest]
    #[case(Rules::American, AMERICAN)]
    #[case(Rules::Longest, LONGEST)]
    fn perft_from_the_start_matches_design(#[case] rules: Rules, #[case] table: [u64; 10]) {
        let game = Checkers::new(rules);
        for depth in 1..=10u32 {
            assert_eq!(
                perft(&game, depth),
                table[depth as usize - 1],
                "{} depth {depth}",
                rules.name()
            );
        }
    }

    /// Reachable positions and scattered ones (crowded, full of kings and long captures).
    fn test_positions(game: &Checkers, seed: u32) -> Vec<CheckersState> {
        let mut out = cubesearch_search::testing::random_positions(game, 300, 120, seed);
        let mut rng = XorShift32::for_worker(seed, 1);
        out.extend((0..3000).map(|_| game.scattered_position(&mut rng)));
        out
    }

    #[rstest]
    #[case(Rules::American)]
    #[case(Rules::Longest)]
    fn fast_random_moves_equal_the_listed_ones(#[case] rules: Rules) {
        let game = Checkers::new(rules);
        let mut scratch = Vec::new();
        let (mut simple, mut jumps, mut sequences) = (0, 0, 0);
        for (k, s) in test_positions(&game, 7).iter().enumerate() {
            // Every move, the draw rule ignored.
            let mut moves = Vec::new();
            movegen::generate(s, &mut moves);
            assert_eq!(movegen::has_move(s), !moves.is_empty());
            match movegen::simple_moves(s) {
                Some((origins, jump)) => {
                    simple += 1;
                    jumps += jump as usize;
                    let count: u32 = origins.iter().map(|m| m.count_ones()).sum();
                    assert_eq!(count as usize, moves.len());
                    for (i, &mv) in moves.iter().enumerate() {
                        assert_eq!(movegen::nth_simple_move(origins, jump, i as u32), mv);
                    }
                }
                None => {
                    sequences += 1;
                    assert!(moves.iter().any(|m| m.jumps > 1));
                }
            }
            if game.moves(s).is_empty() {
                continue;
            }
            let mut a = XorShift32::for_worker(11, k as u32);
            let mut b = a;
            let fast = game.play_random(s, &mut a, &mut scratch);
            let listed = play_random_from_list(&game, s, &mut b, &mut scratch);
            assert_eq!(fast, listed, "{}", game.format_position(s));
            assert_eq!(a, b);
        }
        assert!(
            simple > 1000 && jumps > 100 && sequences > 100,
            "{simple} {jumps} {sequences}"
        );
    }

    #[test]
    fn start_position_round_trips() {
        let game = Checkers::default();
        let s = game.initial();
        assert_eq!(game.format_position(&s), START_FEN);
        assert_eq!(s.black.count_ones(), 12);
        assert_eq!(s.white.count_ones(), 12);
        assert_eq!(s.side(), Side::Black);
        let mut words = [0; 4];
        game.encode(&s, &mut words);
        assert_eq!(game.decode(&words), s);
        let moves: Vec<_> = game
            .moves(&s)
            .iter()
            .map(|&m| game.format_move(&s, m))
            .collect();
        let mut sorted = moves.clone();
        sorted.sort();
        assert_eq!(
            sorted,
            ["10-14", "10-15", "11-15", "11-16", "12-16", "9-13", "9-14"]
        );
    }

    #[rstest]
    #[case("W:WK1,5,K32:B2,28")]
    #[case("B:W18,K19:B14,K27")]
    #[case("W:W:B")]
    fn fen_round_trips(#[case] fen: &str) {
        let game = Checkers::new(Rules::American);
        let s = game.parse_position(fen).unwrap();
        let out = game.format_position(&s);
        assert_eq!(game.parse_position(&out).unwrap(), s);
        assert_eq!(out, fen);
    }

    #[test]
    fn fen_ranges_and_spaces_are_read() {
        let game = Checkers::default();
        let s = game.parse_position(" B:W21-32:B1-12. ").unwrap();
        assert_eq!(s, game.initial());
    }

    #[rstest]
    #[case("")]
    #[case("X:W21:B1")]
    #[case("B:W21,22")]
    #[case("B:W21,33:B1")]
    #[case("B:W21,0:B1")]
    #[case("B:W21,x:B1")]
    #[case("B:W21:B21")]
    #[case("B:W21:B1:W22")]
    #[case("B:W2:B1")]
    #[case("B:W21:B30")]
    #[case("B:W21,K:B1")]
    #[case::thirteen_white("B:W17-29:B1")]
    #[case::twenty_black("B:W32:BK1-20")]
    fn bad_fens_are_refused(#[case] text: &str) {
        assert!(
            matches!(
                Checkers::default().parse_position(text),
                Err(Error::Parse(_))
            ),
            "{text}"
        );
    }

    #[test]
    fn moves_are_parsed_and_checked() {
        let game = Checkers::default();
        let s = game.initial();
        let mv = game.parse_move(&s, "11-15").unwrap();
        assert_eq!(game.format_move(&s, mv), "11-15");
        for bad in ["11", "11-", "11-15-19", "a-b", "0-4", "33-29", "11_15", ""] {
            assert!(
                matches!(game.parse_move(&s, bad), Err(Error::Parse(_))),
                "{bad}"
            );
        }
        for illegal in ["11-16x", "21-17", "11-14", "15-19", "11x18"] {
            let err = game.parse_move(&s, illegal);
            assert!(
                matches!(&err, Err(Error::IllegalMove { .. }) | Err(Error::Parse(_))),
                "{illegal}"
            );
        }
        match game.parse_move(&s, "21-17") {
            Err(Error::IllegalMove { why, .. }) => assert!(why.contains("11-15"), "{why}"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            game.parse_move(&s, "11x18"),
            Err(Error::IllegalMove { .. })
        ));
    }

    #[test]
    fn captures_are_mandatory_and_completed() {
        // Black man on 9 can take 14 then 23 (landing 18 then 27); the step 1-5 is not allowed.
        let game = Checkers::new(Rules::American);
        let s = game.parse_position("B:W14,23,30:B1,9").unwrap();
        let moves: Vec<_> = game
            .moves(&s)
            .iter()
            .map(|&m| game.format_move(&s, m))
            .collect();
        assert_eq!(moves, ["9x18x27"]);
        let after = game.apply(&s, game.parse_move(&s, "9x18x27").unwrap());
        assert_eq!(game.format_position(&after), "W:W30:B1,27");
        assert_eq!(after.quiet_plies(), 0);
        // A short form names the same sequence.
        assert_eq!(
            game.parse_move(&s, "9x27").unwrap(),
            game.parse_move(&s, "9x18x27").unwrap()
        );
    }

    #[test]
    fn longest_rule_keeps_only_the_longest_captures() {
        // 6 can take 10 (landing 15), or 9 then 17 (landing 13, then 22).
        let fen = "B:W9,10,17,32:B6";
        let american = Checkers::new(Rules::American);
        let s = american.parse_position(fen).unwrap();
        let mut moves: Vec<_> = american
            .moves(&s)
            .iter()
            .map(|&m| american.format_move(&s, m))
            .collect();
        moves.sort();
        assert_eq!(moves, ["6x13x22", "6x15"]);
        let longest = Checkers::new(Rules::Longest);
        let s = longest.parse_position(fen).unwrap();
        let moves: Vec<_> = longest
            .moves(&s)
            .iter()
            .map(|&m| longest.format_move(&s, m))
            .collect();
        assert_eq!(moves, ["6x13x22"]);
    }

    #[test]
    fn crowning_stops_a_capture_sequence() {
        // White man on 10 takes 7 landing on 3, where it is crowned: the move ends there,
        // though a king on 3 could go on to take 8.
        let game = Checkers::new(Rules::Longest);
        let s = game.parse_position("W:W10:B7,8").unwrap();
        let moves: Vec<_> = game
            .moves(&s)
            .iter()
            .map(|&m| game.format_move(&s, m))
            .collect();
        assert_eq!(moves, ["10x3"]);
        let after = game.apply(&s, game.moves(&s)[0]);
        assert_eq!(game.format_position(&after), "B:WK3:B8");
        // A king on 10 carries on.
        let s = game.parse_position("W:WK10:B7,8").unwrap();
        let moves: Vec<_> = game
            .moves(&s)
            .iter()
            .map(|&m| game.format_move(&s, m))
            .collect();
        assert_eq!(moves, ["10x3x12"]);
    }

    #[test]
    fn two_routes_over_the_same_pieces_are_two_moves() {
        // A king on 26 inside a ring of four men goes round either way and comes back to 26
        // (its origin square is free during the sequence).
        let game = Checkers::new(Rules::Longest);
        let s = game.parse_position("W:WK26:B14,15,22,23").unwrap();
        let moves: Vec<_> = game
            .moves(&s)
            .iter()
            .map(|&m| game.format_move(&s, m))
            .collect();
        assert_eq!(moves.len(), 2, "{moves:?}");
        assert!(moves.contains(&"26x19x10x17x26".to_string()), "{moves:?}");
        assert!(moves.contains(&"26x17x10x19x26".to_string()), "{moves:?}");
        let a = game.apply(&s, game.moves(&s)[0]);
        let b = game.apply(&s, game.moves(&s)[1]);
        assert_eq!(a, b);
        assert_eq!(game.format_position(&a), "B:WK26:B");
        assert_eq!(game.outcome(&a), Outcome::Loss);
    }

    #[test]
    fn draw_after_the_quiet_ply_limit() {
        let game = Checkers {
            rules: Rules::American,
            draw_plies: 4,
        };
        let mut s = game.parse_position("W:WK32:BK1").unwrap();
        for ply in 0..4 {
            assert_eq!(game.outcome(&s), Outcome::Ongoing, "ply {ply}");
            assert_eq!(s.quiet_plies(), ply);
            let mv = game.moves(&s)[0];
            s = game.apply(&s, mv);
        }
        assert_eq!(game.outcome(&s), Outcome::Draw);
        assert!(game.moves(&s).is_empty());
        // A capture resets the count.
        let s = game.parse_position("B:W14,30:B9,1").unwrap();
        let s = game.apply(&s, game.moves(&s)[0]);
        let mut t = s;
        t.info |= 3 << 8;
        let t = game.apply(&t, game.parse_move(&t, "30-26").unwrap());
        assert_eq!(t.quiet_plies(), 4);
        assert_eq!(game.outcome(&t), Outcome::Draw);
    }

    #[test]
    fn no_move_is_a_loss() {
        let game = Checkers::default();
        let s = game.parse_position("B:W:B1").unwrap();
        assert_eq!(game.outcome(&s), Outcome::Ongoing);
        // No piece left.
        let s = game.parse_position("B:WK1:B").unwrap();
        assert_eq!(game.outcome(&s), Outcome::Loss);
        // White's man on 29 is blocked by 25, and 22 guards the jump.
        let s = game.parse_position("W:W29:B25,22").unwrap();
        assert!(game.moves(&s).is_empty());
        assert_eq!(game.outcome(&s), Outcome::Loss);
    }
}
