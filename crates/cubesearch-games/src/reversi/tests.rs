use super::*;
use cubesearch_core::rng::XorShift32;
use cubesearch_search::perft::perft;
use cubesearch_search::testing::random_positions;
use rstest::rstest;

const START: &str = "---------------------------OX------XO--------------------------- X";

fn texts(state: &Board) -> Vec<String> {
    Reversi
        .moves(state)
        .into_iter()
        .map(|m| Reversi.format_move(state, m))
        .collect()
}

/// docs/RULES.md's table: a pass is one ply, a finished game before the full depth is one leaf.
#[rstest]
#[case(1, 4)]
#[case(2, 12)]
#[case(3, 56)]
#[case(4, 244)]
#[case(5, 1396)]
#[case(6, 8200)]
#[case(7, 55092)]
#[case(8, 390216)]
#[case(9, 3005288)]
#[case(10, 24571284)]
fn perft_from_the_start_matches_the_table(#[case] depth: u32, #[case] nodes: u64) {
    assert_eq!(perft(&Reversi, &Reversi.initial(), depth), nodes);
}

#[test]
fn the_start_prints_as_designed() {
    let start = Reversi.initial();
    assert_eq!(Reversi.format_position(&start), START);
    assert_eq!(Reversi.parse_position(START).unwrap(), start);
    assert_eq!(texts(&start), ["d3", "c4", "f5", "e6"]);
    assert_eq!(Reversi.outcome(&start), Outcome::Ongoing);
}

#[test]
fn positions_round_trip_through_text_and_words() {
    for board in random_positions(&Reversi, 200, 70, 5) {
        let text = Reversi.format_position(&board);
        assert_eq!(Reversi.parse_position(&text).unwrap(), board, "{text}");
        let mut words = [0; 5];
        Reversi.encode(&board, &mut words);
        assert_eq!(Reversi.decode(&words), board);
    }
}

#[test]
fn discs_are_conserved_and_every_placement_flips() {
    for board in random_positions(&Reversi, 200, 70, 6) {
        let before = (board.player | board.opponent).count_ones();
        for mv in Reversi.moves(&board) {
            let after = Reversi.apply(&board, mv);
            assert_eq!(after.player & after.opponent, 0);
            assert_eq!(after.to_move, board.to_move.other());
            let discs = (after.player | after.opponent).count_ones();
            match mv {
                ReversiMove::Pass => assert_eq!(after, board.swapped()),
                ReversiMove::Place(_) => {
                    assert_eq!(discs, before + 1);
                    // The mover gains the new disc and at least one flipped disc.
                    assert!(after.opponent.count_ones() >= board.player.count_ones() + 2);
                }
            }
        }
    }
}

#[rstest]
#[case("")]
#[case("X")]
#[case(&START[..66 - 2])]
#[case(&format!("{}-- X", &START[..64]))]
#[case(&START.replace(" X", " Y"))]
#[case(&START.replace(" X", " X X"))]
#[case(&START.replacen('-', "x", 1))]
#[case(&START.replacen('-', ".", 1))]
#[case::no_discs(&format!("{} X", "-".repeat(64)))]
fn bad_positions_are_refused(#[case] text: &str) {
    assert!(
        matches!(Reversi.parse_position(text), Err(Error::Parse(_))),
        "{text}"
    );
}

#[test]
fn moves_are_parsed_and_checked() {
    let start = Reversi.initial();
    assert_eq!(
        Reversi.parse_move(&start, " d3 ").unwrap(),
        ReversiMove::Place(19)
    );
    for bad in ["", "d", "d33", "i3", "d9", "3d", "passe"] {
        assert!(
            matches!(Reversi.parse_move(&start, bad), Err(Error::Parse(_))),
            "{bad}"
        );
    }
    for illegal in ["a1", "d4", "pass"] {
        match Reversi.parse_move(&start, illegal) {
            Err(Error::IllegalMove { mv, why }) => {
                assert_eq!(mv, illegal);
                assert!(why.contains("d3, c4, f5, e6"), "{why}");
            }
            other => panic!("{illegal}: {other:?}"),
        }
    }
}

/// White (to move) holds b1 alone and cannot flank Black's a1: White must pass, then Black
/// takes c1 and the game is over with White wiped out.
#[test]
fn a_player_without_a_placement_passes_and_a_wipe_out_ends_the_game() {
    let mut text = "X".to_string() + "O" + &"-".repeat(62) + " O";
    let board = Reversi.parse_position(&text).unwrap();
    assert_eq!(texts(&board), ["pass"]);
    assert_eq!(Reversi.outcome(&board), Outcome::Ongoing);
    assert!(Reversi.parse_move(&board, "c1").is_err());
    let passed = Reversi.apply(&board, Reversi.parse_move(&board, "pass").unwrap());
    text.replace_range(65.., "X");
    assert_eq!(Reversi.format_position(&passed), text);
    assert_eq!(texts(&passed), ["c1"]);
    let over = Reversi.apply(&passed, ReversiMove::Place(2));
    assert_eq!(
        Reversi.format_position(&over),
        "XXX".to_string() + &"-".repeat(61) + " O"
    );
    assert!(Reversi.moves(&over).is_empty());
    assert_eq!(Reversi.outcome(&over), Outcome::Loss);
    assert_eq!(final_score(&over), -64);
    assert_eq!(final_score(&over.swapped()), 64);
    assert_eq!(Reversi.outcome(&over.swapped()), Outcome::Win);
    // A finished game counts as one leaf at any depth.
    assert_eq!(perft(&Reversi, &over, 3), 1);
    assert_eq!(perft(&Reversi, &board, 1), 1);
    assert_eq!(perft(&Reversi, &board, 2), 1);
    assert_eq!(perft(&Reversi, &board, 5), 1);
}

#[rstest]
// Neither corner disc can flank the other: the game ends 1–1 with 62 empty squares.
#[case("X".to_string() + &"-".repeat(62) + "O X", Outcome::Draw, 0)]
// A full board, 33–31 for Black, White to move.
#[case("X".repeat(33) + &"O".repeat(31) + " O", Outcome::Loss, -2)]
// Black 2 discs, White 1, not adjacent, 61 empty: Black gets them all.
#[case("X-X".to_string() + &"-".repeat(60) + "O X", Outcome::Win, 2 - 1 + 61)]
fn finished_games_are_scored(#[case] text: String, #[case] outcome: Outcome, #[case] score: i32) {
    let board = Reversi.parse_position(&text).unwrap();
    assert!(is_finished(&board));
    assert!(Reversi.moves(&board).is_empty());
    assert_eq!(Reversi.outcome(&board), outcome);
    assert_eq!(final_score(&board), score);
    assert_eq!(Reversi.outcome(&board.swapped()), outcome.flipped());
    assert_eq!(final_score(&board.swapped()), -score);
}

#[test]
fn random_games_end_within_the_board_and_are_scored() {
    let mut rng = XorShift32::for_worker(9, 1);
    for _ in 0..50 {
        let mut board = Reversi.initial();
        let mut plies = 0;
        while Reversi.outcome(&board) == Outcome::Ongoing {
            let moves = Reversi.moves(&board);
            assert!(!moves.is_empty());
            board = Reversi.apply(&board, moves[rng.below(moves.len() as u32) as usize]);
            plies += 1;
            assert!(plies <= 120);
        }
        let score = final_score(&board);
        assert_eq!(score > 0, Reversi.outcome(&board) == Outcome::Win);
        assert_eq!(
            score.abs() % 2,
            0,
            "every square counts once: scores are even"
        );
    }
}
