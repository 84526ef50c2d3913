//! The seed's Reversi players (seed 003) against plain reference implementations written over an
//! 8×8 array, the way the seed's C code walks its board: `easy` always takes a move of maximal
//! flips and draws its ties uniformly and reproducibly; `medium` scores and chooses exactly as a
//! direct transcription of the seed's sequential 3-ply recursion.

use cubesearch::games::{Board, Colour, Reversi, ReversiMove};
use cubesearch::players::Player;
use cubesearch::players::PlayerSpec;
use cubesearch::rng::XorShift32;
use cubesearch::testing::random_positions;
use cubesearch::{Backend, Game};
use cubesearch_games::reversi::players::{medium_value, reservoir_best, NO_PLACEMENT};

/// The board as the seed keeps it: `cells[row][col]`, row 0 = rank 1, 1 = the side to move's
/// disc, 2 = the opponent's, 0 = empty.
type Cells = [[u8; 8]; 8];

fn cells(board: &Board) -> Cells {
    let mut c = [[0u8; 8]; 8];
    for (sq, cell) in c.iter_mut().flatten().enumerate() {
        if board.player >> sq & 1 == 1 {
            *cell = 1;
        } else if board.opponent >> sq & 1 == 1 {
            *cell = 2;
        }
    }
    c
}

const STEPS: [(i32, i32); 8] = [
    (0, 1),
    (0, -1),
    (1, 0),
    (-1, 0),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

/// The discs `me` flips by playing on (r, c): walk each direction over the other side's discs.
fn brute_flips(b: &Cells, me: u8, r: usize, c: usize) -> Vec<(usize, usize)> {
    if b[r][c] != 0 {
        return Vec::new();
    }
    let them = 3 - me;
    let mut all = Vec::new();
    for (dr, dc) in STEPS {
        let mut line = Vec::new();
        let (mut i, mut j) = (r as i32 + dr, c as i32 + dc);
        while (0..8).contains(&i) && (0..8).contains(&j) && b[i as usize][j as usize] == them {
            line.push((i as usize, j as usize));
            i += dr;
            j += dc;
        }
        if !line.is_empty()
            && (0..8).contains(&i)
            && (0..8).contains(&j)
            && b[i as usize][j as usize] == me
        {
            all.extend(line);
        }
    }
    all
}

/// A playable square (row, col) and the discs it flips.
type Playable = (usize, usize, Vec<(usize, usize)>);

/// Every playable square for `me`, row-major (the seed's loop order).
fn brute_moves(b: &Cells, me: u8) -> Vec<Playable> {
    let mut out = Vec::new();
    for r in 0..8 {
        for c in 0..8 {
            let f = brute_flips(b, me, r, c);
            if !f.is_empty() {
                out.push((r, c, f));
            }
        }
    }
    out
}

fn brute_play(b: &Cells, me: u8, r: usize, c: usize, f: &[(usize, usize)]) -> Cells {
    let mut next = *b;
    next[r][c] = me;
    for &(i, j) in f {
        next[i][j] = me;
    }
    next
}

/// The seed's `predict_next_move_cpu`, transcribed: −100 when `me` has nothing to play.
fn brute_predict(b: &Cells, me: u8, count: u32) -> i32 {
    if count == 0 {
        return 0;
    }
    let mut max_score = -100;
    for (r, c, f) in brute_moves(b, me) {
        let next = brute_play(b, me, r, c, &f);
        let s = f.len() as i32 - brute_predict(&next, 3 - me, count - 1);
        if s >= max_score {
            max_score = s;
        }
    }
    max_score
}

/// The seed's `get_mediumAI_move_cpu` scores, square index → score.
fn brute_medium_scores(board: &Board) -> Vec<(u8, i32)> {
    let b = cells(board);
    brute_moves(&b, 1)
        .into_iter()
        .map(|(r, c, f)| {
            let next = brute_play(&b, 1, r, c, &f);
            let s = f.len() as i32 - brute_predict(&next, 2, 2);
            ((r * 8 + c) as u8, s)
        })
        .collect()
}

fn player(spec: &str, seed: u32) -> Box<dyn Player<Reversi>> {
    spec.parse::<PlayerSpec<Reversi>>()
        .and_then(|spec| spec.build(Backend::Cpu, seed))
        .expect("a Reversi player")
}

#[test]
fn easy_always_plays_a_move_of_maximal_flips() {
    let mut easy = player("easy", 11);
    let mut checked = 0;
    for board in random_positions(&Reversi, 400, 70, 3) {
        if Reversi.moves(&board).is_empty() {
            continue;
        }
        let b = cells(&board);
        let moves = brute_moves(&b, 1);
        let mv = easy.choose(&Reversi, &board).unwrap();
        match moves.iter().map(|m| m.2.len()).max() {
            None => assert_eq!(mv, ReversiMove::Pass, "{board:?}"),
            Some(best) => {
                let ReversiMove::Place(sq) = mv else {
                    panic!("easy passed with moves in {board:?}")
                };
                let (r, c) = (sq as usize / 8, sq as usize % 8);
                assert_eq!(brute_flips(&b, 1, r, c).len(), best, "{board:?}");
                checked += 1;
            }
        }
    }
    assert!(checked > 300, "only {checked} positions had a placement");
}

#[test]
fn easy_breaks_ties_uniformly_and_reproducibly() {
    // The start: four moves, each flipping one disc.
    let start = Reversi.initial();
    let mut easy = player("easy", 5);
    let mut counts = std::collections::HashMap::new();
    let draws = 4000;
    for _ in 0..draws {
        *counts
            .entry(easy.choose(&Reversi, &start).unwrap())
            .or_insert(0) += 1;
    }
    assert_eq!(counts.len(), 4, "{counts:?}");
    for (mv, n) in &counts {
        // Expected 1000 each; 5 standard deviations is about ±137.
        assert!(
            (850..=1150).contains(n),
            "{mv:?} drawn {n} times of {draws}"
        );
    }

    // The same seed gives the same choices; another seed does not, somewhere.
    let positions = random_positions(&Reversi, 200, 70, 9);
    let run = |spec: &str, seed: u32| -> Vec<ReversiMove> {
        let mut p = player(spec, seed);
        positions
            .iter()
            .filter(|b| !Reversi.moves(b).is_empty())
            .map(|b| p.choose(&Reversi, b).unwrap())
            .collect()
    };
    for spec in ["easy", "medium"] {
        assert_eq!(run(spec, 77), run(spec, 77), "{spec}");
        assert_ne!(run(spec, 77), run(spec, 78), "{spec}");
    }
}

#[test]
fn medium_scores_and_chooses_as_the_seeds_recursion() {
    let mut medium = player("medium", 21);
    // The reference draws ties with a generator in the same state as the player's.
    let mut rng = XorShift32::for_worker(21, 0x5EED_0003);
    let mut sentinel_seen = false;
    let mut checked = 0;
    for board in random_positions(&Reversi, 150, 70, 4) {
        if Reversi.moves(&board).is_empty() {
            continue;
        }
        let reference = brute_medium_scores(&board);
        for &(sq, score) in &reference {
            assert_eq!(medium_value(&board, sq), score, "{board:?} square {sq}");
            sentinel_seen |= !(-50..=50).contains(&score);
        }
        let expected = reservoir_best(reference.iter().copied(), &mut rng);
        let mv = medium.choose(&Reversi, &board).unwrap();
        assert_eq!(mv, expected, "{board:?}");
        if let ReversiMove::Place(sq) = mv {
            let best = reference.iter().map(|r| r.1).max().unwrap();
            assert_eq!(reference.iter().find(|r| r.0 == sq).unwrap().1, best);
        }
        checked += 1;
    }
    assert!(checked > 100);
    assert!(
        sentinel_seen,
        "no position reached the pass value {NO_PLACEMENT}"
    );
}

#[test]
fn seed_players_pass_when_they_cannot_place() {
    // X a1 and the centre, O b1 and c1, White to move: White has no placement, Black can
    // play d1.
    let mut squares: Vec<char> = format!("XOO{}", "-".repeat(61)).chars().collect();
    for s in [27, 28, 35, 36] {
        squares[s] = 'X';
    }
    let text: String = squares.into_iter().collect();
    let pass = Reversi.parse_position(&(text + " O")).unwrap();
    assert_eq!(Reversi.moves(&pass), vec![ReversiMove::Pass]);
    assert_eq!(pass.to_move, Colour::White);
    for spec in ["easy", "medium"] {
        assert_eq!(
            player(spec, 1).choose(&Reversi, &pass).unwrap(),
            ReversiMove::Pass,
            "{spec}"
        );
    }
}

#[test]
fn unknown_reversi_players_are_parse_errors_that_list_the_seed_players() {
    let err = "hard"
        .parse::<PlayerSpec<Reversi>>()
        .expect_err("an error")
        .to_string();
    assert!(err.contains("easy, medium"), "{err}");
    let nim = "easy"
        .parse::<PlayerSpec<cubesearch::games::Nim>>()
        .expect_err("Nim has no easy player")
        .to_string();
    assert!(!nim.contains("medium"), "{nim}");
}

/// A timed learned alpha-beta plays the endgame solver's move where the solver expects to be
/// done in a quarter of the move's time: with an untrained network, whose search alone picks
/// moves at random among the legal ones, each move it plays keeps the position's exact value.
#[test]
fn a_timed_learned_player_plays_perfectly_near_the_end() {
    use cubesearch_games::reversi::endgame;
    let dir = tempfile::tempdir().unwrap();
    let weights = dir.path().join("zero.st");
    cubesearch::NTupleNetwork::for_game::<Reversi>(&cubesearch::learn::default_shapes::<Reversi>())
        .unwrap()
        .save(&weights, 0, 0.0)
        .unwrap();
    let spec = format!("alphabeta:time=60ms,weights={}", weights.display());
    let mut player = spec
        .parse::<PlayerSpec<Reversi>>()
        .unwrap()
        .build(Backend::Cpu, 1)
        .unwrap();
    let late: Vec<Board> = random_positions(&Reversi, 3000, 60, 21)
        .into_iter()
        .filter(|b| (13..=14).contains(&b.empty().count_ones()) && Reversi.moves(b).len() > 2)
        .take(8)
        .collect();
    assert!(late.len() >= 4, "{} positions", late.len());
    for board in late {
        let best = endgame::solve(&board).value;
        let mv = player.choose(&Reversi, &board).unwrap();
        let after = -endgame::solve(&Reversi.apply(&board, mv)).value;
        assert_eq!(after, best, "{}", Reversi.format_position(&board));
    }
}
