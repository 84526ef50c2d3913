use super::tables::slide_row;
use super::*;
use cubesearch_core::Error;
use rstest::rstest;

/// Slides a row of tile *values* left with rule `R`, through the row tables, and returns the
/// new values and the reward (the reference `slide_row` must agree).
fn left_values<R: TileRule>(values: [u64; 4]) -> ([u32; 4], u32) {
    let cells = values.map(|v| R::index_of(v).expect("a tile value"));
    let m = R::tables().get(tables::pack(cells, R::BITS), Toward::Low);
    let (reference, reward) = slide_row::<R>(cells);
    assert_eq!(tables::unpack(m.row, R::BITS), reference);
    assert_eq!(m.reward, reward);
    (tables::unpack(m.row, R::BITS).map(R::value), m.reward)
}

fn right_values<R: TileRule>(values: [u64; 4]) -> ([u32; 4], u32) {
    let cells = values.map(|v| R::index_of(v).expect("a tile value"));
    let m = R::tables().get(tables::pack(cells, R::BITS), Toward::High);
    (tables::unpack(m.row, R::BITS).map(R::value), m.reward)
}

// docs/RULES.md's row vectors (2584, move left), then rows worked by hand from the rules.
#[rstest]
#[case([1, 1, 1, 0], [2, 1, 0, 0], 2)]
#[case([1, 2, 3, 5], [3, 8, 0, 0], 11)]
#[case([2, 1, 1, 0], [3, 1, 0, 0], 3)]
#[case([1, 1, 2, 0], [2, 2, 0, 0], 2)]
#[case([3, 3, 0, 0], [3, 3, 0, 0], 0)] // cannot move left
#[case([1, 3, 0, 0], [1, 3, 0, 0], 0)] // cannot move left
// Only a slide, no tile meets another: the 1 goes to the wall, no points.
#[case([0, 0, 0, 1], [1, 0, 0, 0], 0)]
// The two 1s meet across the gap and make a 2 (reward 2).
#[case([1, 0, 1, 0], [2, 0, 0, 0], 2)]
// 2 and 2 are the same index, not neighbours: they never merge (and nothing can slide).
#[case([2, 2, 0, 0], [2, 2, 0, 0], 0)]
// 5+8 → 13 (13 points, and that 13 is done); the next 13 meets 21 → 34 (34 points): 47.
#[case([5, 8, 13, 21], [13, 34, 0, 0], 47)]
// 1+1 → 2, then the second pair 1+1 → 2: two merges of 2 points.
#[case([1, 1, 1, 1], [2, 2, 0, 0], 4)]
// 3 stays; 2 merges into it (indices 3 and 2 differ by one) → 5; the 1 cannot join the new 5.
#[case([3, 2, 1, 0], [5, 1, 0, 0], 5)]
// Left side first: 2 and 1 merge → 3, so the pair of 1s on the right does not merge.
#[case([0, 2, 1, 1], [3, 1, 0, 0], 3)]
// 8 stays; 5 slides next to it and merges → 13; the 3 cannot merge with the new 13.
#[case([8, 0, 5, 3], [13, 3, 0, 0], 13)]
// 1,3 / 3,1 are two indices apart: nothing merges, nothing slides.
#[case([1, 3, 1, 3], [1, 3, 1, 3], 0)]
fn rows_2584_move_left(#[case] row: [u64; 4], #[case] want: [u32; 4], #[case] reward: u32) {
    assert_eq!(left_values::<Fib>(row), (want, reward));
}

// 2048, move left, worked by hand: equal neighbours (after sliding) merge, from the left.
#[rstest]
// Two pairs: 2+2 → 4 twice (8 points).
#[case([2, 2, 2, 2], [4, 4, 0, 0], 8)]
// 2+2 → 4; that new 4 must not merge again with the 4 beside it.
#[case([2, 2, 4, 0], [4, 4, 0, 0], 4)]
// The 4s meet across the gap → 8 (8 points); the old 8 stays apart.
#[case([4, 0, 4, 8], [8, 8, 0, 0], 8)]
// No equal neighbours and no gap: cannot move left.
#[case([2, 4, 8, 16], [2, 4, 8, 16], 0)]
// Both 2s slide to the wall and merge → 4.
#[case([0, 0, 2, 2], [4, 0, 0, 0], 4)]
// 4+4 → 8 and 8+8 → 16: 24 points.
#[case([4, 4, 8, 8], [8, 16, 0, 0], 24)]
// A plain slide: 2 and 4 differ, no points.
#[case([2, 0, 0, 4], [2, 4, 0, 0], 0)]
// 8 and 4 differ; the two 4s merge → 8 (8 points), which then sits beside the old 8.
#[case([8, 4, 4, 0], [8, 8, 0, 0], 8)]
// 2584's neighbour rule does not apply here: 2 and 4 stay apart.
#[case([2, 4, 0, 0], [2, 4, 0, 0], 0)]
fn rows_2048_move_left(#[case] row: [u64; 4], #[case] want: [u32; 4], #[case] reward: u32) {
    assert_eq!(left_values::<Pow2>(row), (want, reward));
}

#[test]
fn rows_move_right_resolve_from_the_right() {
    // Moving right, the two rightmost 2s merge first.
    assert_eq!(right_values::<Pow2>([2, 2, 2, 0]), ([0, 0, 2, 4], 4));
    assert_eq!(right_values::<Fib>([1, 1, 1, 0]), ([0, 0, 1, 2], 2));
    // From the right: 3 stays, 2+3 → 5 (5 points), 1 stays: not the left move's 3 points.
    assert_eq!(right_values::<Fib>([1, 2, 3, 0]), ([0, 0, 1, 5], 5));
    assert_eq!(left_values::<Fib>([1, 2, 3, 0]), ([3, 3, 0, 0], 3));
}

fn board<R: TileRule>(text: &str) -> BoardOf<R> {
    Sliding::<R>::new().parse_position(text).unwrap()
}

#[rstest]
#[case(Dir::Left, "4,0,0,0, 8,0,0,0, 2,0,0,0, 2,16,0,0", 28)]
#[case(Dir::Right, "0,0,0,4, 0,0,0,8, 0,0,0,2, 0,0,2,16", 28)]
#[case(Dir::Up, "4,2,8,4, 2,4,0,8, 0,0,0,0, 0,0,0,0", 4)]
#[case(Dir::Down, "0,0,0,0, 0,0,0,0, 2,2,0,4, 4,4,8,8", 4)]
fn all_four_directions_2048(#[case] dir: Dir, #[case] want: &str, #[case] reward: u32) {
    let g = Game2048::new();
    let b = board::<Pow2>("2,2,0,0, 0,4,0,4, 2,0,0,0, 2,0,8,8");
    assert_eq!(g.afterstate(&b, dir), Some((board::<Pow2>(want), reward)));
}

#[rstest]
// Column 0 read downward is 1,2,0,3: up merges 1+2 → 3 (3 points) next to the old 3.
#[case(Dir::Up, "3,1,0,0, 3,0,0,0, 0,0,0,0, 0,0,0,0", 3)]
// Down resolves from the bottom: 2+3 → 5 (5 points), the 1 stays above it.
#[case(Dir::Down, "0,0,0,0, 0,0,0,0, 1,0,0,0, 5,1,0,0", 5)]
#[case(Dir::Left, "2,0,0,0, 2,0,0,0, 0,0,0,0, 3,0,0,0", 2)]
#[case(Dir::Right, "0,0,0,2, 0,0,0,2, 0,0,0,0, 0,0,0,3", 2)]
fn all_four_directions_2584(#[case] dir: Dir, #[case] want: &str, #[case] reward: u32) {
    let g = Game2584::new();
    let b = board::<Fib>("1,1,0,0, 2,0,0,0, 0,0,0,0, 3,0,0,0");
    assert_eq!(g.afterstate(&b, dir), Some((board::<Fib>(want), reward)));
}

#[test]
fn moves_that_change_nothing_are_illegal() {
    let g = Game2048::new();
    let b = board::<Pow2>("2,0,0,0, 0,0,0,0, 0,0,0,0, 0,0,0,0");
    assert_eq!(g.afterstate(&b, Dir::Left), None);
    assert_eq!(g.afterstate(&b, Dir::Up), None);
    assert!(g.afterstate(&b, Dir::Right).is_some());
    assert!(g.afterstate(&b, Dir::Down).is_some());
    let mut legal = Vec::new();
    g.legal_actions(&b, &mut legal);
    assert_eq!(
        legal.iter().map(|l| l.0).collect::<Vec<_>>(),
        [Dir::Right, Dir::Down]
    );
    assert!(!g.is_over(&b));

    let full = board::<Pow2>("2,4,2,4, 4,2,4,2, 2,4,2,4, 4,2,4,2");
    assert!(g.is_over(&full));
    // The same pattern in 2584 tiles 1 and 3 (indices 1 and 3) is stuck too...
    let f = Game2584::new();
    assert!(f.is_over(&board::<Fib>("1,3,1,3, 3,1,3,1, 1,3,1,3, 3,1,3,1")));
    // ... but with 1 and 2 every neighbour pair merges.
    let b = board::<Fib>("1,2,1,2, 2,1,2,1, 1,2,1,2, 2,1,2,1");
    assert!(!f.is_over(&b));
    for d in Dir::ALL {
        assert!(f.afterstate(&b, d).is_some());
    }
}

fn spawn_shares<R: TileRule>(want: &[(u32, f64)]) {
    let g = Sliding::<R>::new();
    let b = board::<R>(&format!(
        "{v},0,0,{v}, 0,0,0,0, 0,0,0,0, 0,0,0,{v}",
        v = R::value(1)
    ));
    let mut out = Vec::new();
    g.chance_outcomes(&b, &mut out);
    assert_eq!(out.len(), 13 * R::SPAWNS.len());
    let total: u32 = out.iter().map(|o| o.1).sum();
    assert_eq!(total, 13 * R::SPAWN_TOTAL);
    for &(value, p) in want {
        let k = R::index_of(value as u64).unwrap();
        // Count by the new tile: the cell that changed.
        let share: f64 = out
            .iter()
            .filter(|(s, _)| (0..16).any(|i| b.cell(i, R::BITS) == 0 && s.cell(i, R::BITS) == k))
            .map(|o| o.1 as f64 / total as f64)
            .sum();
        assert!((share - p).abs() < 1e-5, "{value}: {share}");
        // Sampling draws the same shares, on uniformly drawn empty cells.
        let mut rng = XorShift32::for_worker(11, value);
        let n = 40_000;
        let mut hits = 0;
        let mut per_cell = [0u32; 16];
        for _ in 0..n {
            let s = g.sample_chance(&b, &mut rng);
            let i = (0..16)
                .find(|&i| s.cell(i, R::BITS) != b.cell(i, R::BITS))
                .unwrap();
            per_cell[i] += 1;
            hits += (s.cell(i, R::BITS) == k) as u32;
        }
        assert!((hits as f64 / n as f64 - p).abs() < 0.01, "{value}: {hits}");
        for i in (0..16).filter(|&i| b.cell(i, R::BITS) == 0) {
            let share = per_cell[i] as f64 / n as f64;
            assert!((share - 1.0 / 13.0).abs() < 0.01, "cell {i}: {share}");
        }
    }
}

#[test]
fn spawn_probabilities_2584() {
    spawn_shares::<Fib>(&[(1, 0.75), (3, 0.25)]);
}

#[test]
fn spawn_probabilities_2048() {
    spawn_shares::<Pow2>(&[(2, 0.9), (4, 0.1)]);
}

#[test]
fn games_start_with_two_spawned_tiles() {
    let g = Game2584::new();
    for seed in 0..50 {
        let b = g.initial(&mut XorShift32::for_worker(seed, 0));
        let cells = b.cells(Fib::BITS);
        assert_eq!(cells.iter().filter(|&&c| c != 0).count(), 2);
        assert!(cells.iter().all(|&c| c == 0 || c == 1 || c == 3));
    }
}

/// An independent move on tile values: `merges(a, b)` holds when `a + b` is a tile of the game
/// (for Fibonacci tiles that is exactly "neighbours or two 1s"; for powers of two, "equal").
fn naive_move(
    cells: [[u64; 4]; 4],
    dir: Dir,
    is_tile: &dyn Fn(u64) -> bool,
) -> ([[u64; 4]; 4], u64) {
    let mut out = [[0u64; 4]; 4];
    let mut reward = 0;
    for line in 0..4 {
        // The line's positions, starting from the side moved toward.
        let pos: [(usize, usize); 4] = std::array::from_fn(|j| match dir {
            Dir::Left => (line, j),
            Dir::Right => (line, 3 - j),
            Dir::Up => (j, line),
            Dir::Down => (3 - j, line),
        });
        let mut stack: Vec<(u64, bool)> = Vec::new();
        for &(r, c) in &pos {
            let v = cells[r][c];
            if v == 0 {
                continue;
            }
            match stack.last_mut() {
                Some((top, merged)) if !*merged && is_tile(*top + v) => {
                    *top += v;
                    *merged = true;
                    reward += *top;
                }
                _ => stack.push((v, false)),
            }
        }
        for (j, (v, _)) in stack.into_iter().enumerate() {
            out[pos[j].0][pos[j].1] = v;
        }
    }
    (out, reward)
}

fn random_games_match_the_value_reference<R: TileRule>(seed: u32) {
    let g = Sliding::<R>::new();
    let is_tile = |v: u64| R::index_of(v).is_some_and(|k| k > 0);
    let grid = |b: BoardOf<R>| -> [[u64; 4]; 4] {
        let v = g.values(b);
        std::array::from_fn(|r| std::array::from_fn(|c| v[4 * r + c] as u64))
    };
    for game in 0..20 {
        let mut rng = XorShift32::for_worker(seed, game);
        let mut s = g.initial(&mut rng);
        let (mut score, mut naive_score, mut spawned) = (
            0u64,
            0u64,
            g.values(s).iter().map(|&v| v as u64).sum::<u64>(),
        );
        let mut legal = Vec::new();
        loop {
            legal.clear();
            g.legal_actions(&s, &mut legal);
            // Every direction, legal or not, agrees with the reference.
            let all = g.afterstates(s);
            for (k, d) in Dir::ALL.into_iter().enumerate() {
                assert_eq!(all[k], g.afterstate(&s, d));
                let (after, reward) = g.slide(s, d);
                let (want, want_reward) = naive_move(grid(s), d, &is_tile);
                assert_eq!(grid(after), want, "{} {d:?}", g.format_position(&s));
                assert_eq!(reward as u64, want_reward);
                assert_eq!(legal.iter().any(|l| l.0 == d), after != s);
            }
            if legal.is_empty() {
                assert!(g.is_over(&s));
                break;
            }
            let (d, after, reward) = legal[rng.below(legal.len() as u32) as usize];
            naive_score += naive_move(grid(s), d, &is_tile).1;
            score += reward as u64;
            let next = g.sample_chance(&after, &mut rng);
            spawned += g.values(next).iter().map(|&v| v as u64).sum::<u64>()
                - g.values(after).iter().map(|&v| v as u64).sum::<u64>();
            // A tile leaves only into a larger one, so what stages count never falls.
            assert!(g.two_largest_sum(next) >= g.two_largest_sum(s));
            s = next;
        }
        assert_eq!(score, naive_score);
        // Merges conserve the tile sum in both games, so the board holds what was spawned.
        assert_eq!(g.values(s).iter().map(|&v| v as u64).sum::<u64>(), spawned);
        assert!(score > 0);
    }
}

#[test]
fn random_2584_games_score_the_sum_of_their_merges() {
    random_games_match_the_value_reference::<Fib>(1);
}

#[test]
fn random_2048_games_score_the_sum_of_their_merges() {
    random_games_match_the_value_reference::<Pow2>(2);
}

#[test]
fn text_round_trips() {
    let g = Game2584::new();
    let text = "0,1,2,3,5,8,13,21,34,55,89,144,233,377,610,987";
    assert_eq!(g.format_position(&g.parse_position(text).unwrap()), text);
    let b = g
        .parse_position(" 1, 0,0,0,0,0,0,0,0,0,0,0,0,0,0, 2584 ")
        .unwrap();
    assert_eq!(g.max_tile(b), 2584);
    let h = Game2048::new();
    let text = "2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,0";
    assert_eq!(h.format_position(&h.parse_position(text).unwrap()), text);
    let mut rng = XorShift32::for_worker(3, 0);
    let mut s = g.initial(&mut rng);
    for _ in 0..200 {
        assert_eq!(g.parse_position(&g.format_position(&s)).unwrap(), s);
        let mut legal = Vec::new();
        g.legal_actions(&s, &mut legal);
        let Some(&(_, after, _)) = legal.first() else {
            break;
        };
        s = g.sample_chance(&after, &mut rng);
    }
    assert_eq!(g.parse_action(" Up ").unwrap(), Dir::Up);
    assert!(matches!(g.parse_action("north"), Err(Error::Parse(_))));
}

#[rstest]
#[case::empty("")]
#[case::too_few("1,2,3")]
#[case::too_many("0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0")]
#[case::not_fibonacci("4,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0")]
#[case::not_a_number("x,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0")]
#[case::negative("-1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0")]
#[case::empty_cell("1,,0,0,0,0,0,0,0,0,0,0,0,0,0,0")]
fn bad_2584_text_is_refused(#[case] text: &str) {
    assert!(matches!(
        Game2584::new().parse_position(text),
        Err(Error::Parse(_))
    ));
}

#[rstest]
#[case::odd("3,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0")]
#[case::one("1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0")]
#[case::too_big("65536,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0")]
#[case::too_few("2,2")]
fn bad_2048_text_is_refused(#[case] text: &str) {
    assert!(matches!(
        Game2048::new().parse_position(text),
        Err(Error::Parse(_))
    ));
}

#[test]
fn merges_stop_at_the_largest_storable_tile() {
    assert_eq!(Pow2::merge(15, 15), None);
    assert_eq!(Pow2::merge(14, 14), Some(15));
    assert_eq!(Fib::merge(30, 31), None);
    assert_eq!(Fib::merge(29, 30), Some(31));
    assert_eq!(FIB_VALUES[..8], [0, 1, 2, 3, 5, 8, 13, 21]);
    assert_eq!(Fib::value(17), 2584);
}
