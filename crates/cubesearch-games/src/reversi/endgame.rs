//! The exact endgame solver: the final disc difference under perfect play (empty squares to the
//! winner, as [`final_score`](super::final_score)) and a move that reaches it.
//!
//! Negamax with alpha-beta over two bitboards, principal-variation search (null windows after
//! the first move, re-searched when one fails high), and three regimes by the number of empty
//! squares `e`:
//!
//! * `e ≥ TABLE_EMPTIES`: moves sorted fastest-first (fewest opponent replies, corners early, the
//!   transposition table's best move first); bounds kept in a transposition table;
//! * `SHALLOW_EMPTIES < e < TABLE_EMPTIES`: fastest-first, no table (its probes cost more than
//!   they save this close to the end);
//! * `e ≤ SHALLOW_EMPTIES`: no move list; empty squares tried in parity order (squares of the
//!   quadrants with an odd number of empties first: the last move in a region is worth having);
//!   the last two plies by the dedicated `last2` and `last1`.
//!
//! A solve obeys a [`Stop`] ([`Solver::solve_until`]), looked at every [`STOP_EVERY`] nodes,
//! and [`estimated_nodes`] sizes one before it starts.

use super::board::{Board, Square};
use super::ReversiMove;
use cubesearch_core::Stop;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// Below this many empties (inclusive) the search walks empty squares without a move list.
const SHALLOW_EMPTIES: u32 = 6;
/// From this many empties up, positions go into the transposition table.
const TABLE_EMPTIES: u32 = 9;
/// From this many empties up, move ordering also counts potential replies.
const DEEP_ORDER_EMPTIES: u32 = 12;
/// Transposition table entries (a power of two).
const TABLE_SIZE: usize = 1 << 20;
/// Scores lie in −64..=64.
const WIDE: i32 = 65;
/// Nodes between two looks at a solve's stop (a power of two): a few milliseconds.
pub const STOP_EVERY: u64 = 1 << 16;

/// About how many nodes a solve of a position with `empties` empty squares visits: FFO #40
/// (20 empties) takes 28 M and #45 (24) 1.43 G, about 2.7 times more an empty. Positions of one
/// count differ by ten times either way; this is for refusing work of days, not for an ETA.
pub fn estimated_nodes(empties: u32) -> f64 {
    2.8e7 * 2.7f64.powi(empties as i32 - 20)
}

/// The result of a solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solved {
    /// The final disc difference for the side to move under perfect play by both sides.
    pub value: i32,
    /// A best move (the first found among equals); `None` when the game is over.
    pub best: Option<ReversiMove>,
    /// Positions visited.
    pub nodes: u64,
}

/// The squares where `p` may place a disc against `o` (eight directions filled in parallel).
#[inline]
pub fn moves(p: u64, o: u64) -> u64 {
    let empty = !(p | o);
    // Opponent discs a horizontal (or diagonal) step may pass without wrapping round the edge.
    let inner = o & 0x7E7E_7E7E_7E7E_7E7E;
    #[inline(always)]
    fn dir(p: u64, mask: u64, by: u32) -> u64 {
        let mut up = mask & (p << by);
        let mut down = mask & (p >> by);
        for _ in 0..5 {
            up |= mask & (up << by);
            down |= mask & (down >> by);
        }
        (up << by) | (down >> by)
    }
    (dir(p, inner, 1) | dir(p, o, 8) | dir(p, inner, 7) | dir(p, inner, 9)) & empty
}

/// The squares seen from each square in each direction, nearest first: `RAYS[sq][d]` for the
/// four directions up the index (E, N, NE, NW) then the four down it (W, S, SW, SE).
static RAYS: [[u64; 8]; 64] = rays();

const fn rays() -> [[u64; 8]; 64] {
    const STEPS: [(i32, i32); 8] = [
        (1, 0),
        (0, 1),
        (1, 1),
        (-1, 1),
        (-1, 0),
        (0, -1),
        (-1, -1),
        (1, -1),
    ];
    let mut out = [[0u64; 8]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 8 {
            let (dx, dy) = STEPS[d];
            let (mut x, mut y) = ((sq % 8) as i32 + dx, (sq / 8) as i32 + dy);
            while x >= 0 && x < 8 && y >= 0 && y < 8 {
                out[sq][d] |= 1u64 << (y * 8 + x);
                x += dx;
                y += dy;
            }
            d += 1;
        }
        sq += 1;
    }
    out
}

/// The discs a disc of `p` on `square` (empty) turns over: along each ray, the opponent discs
/// before the first square that is not the opponent's, when that square is `p`'s.
#[inline]
pub fn flips(p: u64, o: u64, square: u32) -> u64 {
    let rays = &RAYS[square as usize];
    let mut flipped = 0;
    for ray in &rays[..4] {
        // Up the index: the nearest square is the lowest bit.
        let stop = ray & !o;
        let first = stop & stop.wrapping_neg();
        if first & p != 0 {
            flipped |= ray & (first - 1);
        }
    }
    for ray in &rays[4..] {
        // Down the index: the nearest square is the highest bit.
        let stop = ray & !o;
        if stop != 0 {
            let first = 1u64 << (63 - stop.leading_zeros());
            if first & p != 0 {
                flipped |= ray & !((first << 1).wrapping_sub(1));
            }
        }
    }
    flipped
}

/// The final score of `p` against `o` when nobody can move.
#[inline]
fn final_diff(p: u64, o: u64) -> i32 {
    let mine = p.count_ones() as i32;
    let theirs = o.count_ones() as i32;
    let empty = 64 - mine - theirs;
    match mine.cmp(&theirs) {
        std::cmp::Ordering::Greater => mine - theirs + empty,
        std::cmp::Ordering::Less => mine - theirs - empty,
        std::cmp::Ordering::Equal => 0,
    }
}

/// One transposition table slot: the position and bounds on its value.
#[derive(Clone, Copy, Default)]
struct Entry {
    p: u64,
    o: u64,
    lower: i8,
    upper: i8,
    /// Best move square + 1 (0: none known).
    best: u8,
}

/// A solver with its transposition table (reuse it across positions to keep the allocation).
pub struct Solver {
    table: Vec<Entry>,
    nodes: u64,
    /// The running solve's stop, and whether it was seen raised (the search then unwinds).
    stop: Stop,
    stopped: bool,
}

impl Default for Solver {
    fn default() -> Self {
        Self::new()
    }
}

/// The position after `p` places a disc on `sq`, seen from the opponent: its discs, then ours.
#[inline(always)]
fn play(p: u64, o: u64, sq: u32) -> (u64, u64) {
    let f = flips(p, o, sq);
    (o & !f, p | f | (1u64 << sq))
}

fn slot(p: u64, o: u64) -> usize {
    let h = (p.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ o.wrapping_mul(0xC2B2_AE3D_27D4_EB4F))
        .rotate_left(29)
        .wrapping_mul(0x1656_67B1_9E37_79F9);
    (h >> 44) as usize & (TABLE_SIZE - 1)
}

impl Solver {
    /// A solver with an empty table.
    pub fn new() -> Self {
        Self {
            table: vec![Entry::default(); TABLE_SIZE],
            nodes: 0,
            stop: Stop::new(),
            stopped: false,
        }
    }

    /// The exact value of `board` for its side to move and a best move.
    pub fn solve(&mut self, board: &Board) -> Solved {
        self.solve_until(board, &Stop::new())
            .expect("a stop nobody raises")
    }

    /// [`Self::solve`], or `None` once `stop` is raised (or its deadline passes): the search
    /// unwinds within [`STOP_EVERY`] nodes and what it found is dropped.
    pub fn solve_until(&mut self, board: &Board, stop: &Stop) -> Option<Solved> {
        self.begin(stop);
        let solved = self.solve_root(board);
        (!self.stopped).then_some(solved)
    }

    /// A new solve under `stop`: an empty table, no nodes yet.
    fn begin(&mut self, stop: &Stop) {
        self.stop = stop.clone();
        self.stopped = false;
        self.table.fill(Entry::default());
        self.nodes = 0;
    }

    fn solve_root(&mut self, board: &Board) -> Solved {
        let (p, o) = (board.player, board.opponent);
        let mine = moves(p, o);
        if mine == 0 {
            if moves(o, p) == 0 {
                return Solved {
                    value: final_diff(p, o),
                    best: None,
                    nodes: 1,
                };
            }
            let value = -self.search(o, p, -WIDE, WIDE, false);
            return Solved {
                value,
                best: Some(ReversiMove::Pass),
                nodes: self.nodes,
            };
        }
        // The root: moves fastest-first, the first with a full window, later ones with a null
        // window that must be beaten strictly (the first of equals found stays the best).
        let mut best = (-WIDE, 0u32);
        let mut list = [(0, 0); 32];
        let n = self.order(p, o, mine, 0, &mut list);
        for (k, &(_, sq)) in list[..n].iter().enumerate() {
            let (cp, co) = play(p, o, sq);
            let value = if k == 0 {
                -self.search(cp, co, -WIDE, WIDE, false)
            } else {
                let probe = -self.search(cp, co, -best.0 - 1, -best.0, false);
                if probe > best.0 {
                    -self.search(cp, co, -WIDE, -best.0, false)
                } else {
                    probe
                }
            };
            if value > best.0 {
                best = (value, sq);
            }
        }
        Solved {
            value: best.0,
            best: Some(ReversiMove::Place(best.1 as Square)),
            nodes: self.nodes,
        }
    }

    /// [`Self::solve_until`] on `threads` threads: the first root move (fastest-first) with a
    /// full window on this solver, then the others shared out among the threads, each on a
    /// solver (and table) of its own, probed with a null window against the best value so far
    /// and searched again when they beat it. The value is the one-thread solve's; the move may
    /// be another of equal value. Nodes count every thread's.
    pub fn solve_parallel(&mut self, board: &Board, threads: usize, stop: &Stop) -> Option<Solved> {
        let (p, o) = (board.player, board.opponent);
        let mine = moves(p, o);
        if threads <= 1 || mine.count_ones() < 2 {
            return self.solve_until(board, stop);
        }
        self.begin(stop);
        let mut list = [(0, 0); 32];
        let n = self.order(p, o, mine, 0, &mut list);
        let (cp, co) = play(p, o, list[0].1);
        let first = -self.search(cp, co, -WIDE, WIDE, false);
        if self.stopped {
            return None;
        }
        let best = std::sync::Mutex::new((first, list[0].1));
        let next = AtomicUsize::new(1);
        let nodes = AtomicU64::new(self.nodes);
        let stopped = AtomicBool::new(false);
        std::thread::scope(|scope| {
            for _ in 0..threads.min(n - 1) {
                scope.spawn(|| {
                    let mut solver = Solver::new();
                    solver.stop = stop.clone();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        if k >= n {
                            break;
                        }
                        let (cp, co) = play(p, o, list[k].1);
                        let bound = best.lock().map_or(-WIDE, |b| b.0);
                        let probe = -solver.search(cp, co, -bound - 1, -bound, false);
                        let value = if probe > bound {
                            -solver.search(cp, co, -WIDE, -bound, false)
                        } else {
                            probe
                        };
                        if solver.stopped {
                            stopped.store(true, Ordering::Relaxed);
                            break;
                        }
                        if let Ok(mut b) = best.lock() {
                            if value > b.0 {
                                *b = (value, list[k].1);
                            }
                        }
                    }
                    nodes.fetch_add(solver.nodes, Ordering::Relaxed);
                });
            }
        });
        let (value, sq) = best.into_inner().unwrap_or((first, list[0].1));
        (!stopped.into_inner()).then_some(Solved {
            value,
            best: Some(ReversiMove::Place(sq as Square)),
            nodes: nodes.into_inner(),
        })
    }

    /// The moves of `p` in `mine`, fastest-first: fewest replies for the opponent (then fewest
    /// empty squares next to our discs, its potential replies), corners ahead, the table's move
    /// (`hint`, square + 1) first. Fills `list` with (key, square) sorted by key; returns the count.
    fn order(&self, p: u64, o: u64, mine: u64, hint: u8, list: &mut [(i32, u32); 32]) -> usize {
        const CORNERS: u64 = 0x8100_0000_0000_0081;
        // Far from the end the potential replies are worth their cost as a tie-break.
        let deep = (p | o).count_ones() <= 64 - DEEP_ORDER_EMPTIES;
        let mut n = 0;
        let mut rest = mine;
        while rest != 0 && n < list.len() {
            let sq = rest.trailing_zeros();
            rest &= rest - 1;
            let f = flips(p, o, sq);
            let (cp, co) = (o & !f, p | f | (1u64 << sq));
            let mut key = (moves(cp, co).count_ones() as i32) * 64;
            if deep {
                key += (super::eval::neighbours(co) & !(cp | co)).count_ones() as i32 * 4;
            }
            key -= ((CORNERS >> sq) & 1) as i32 * 96;
            if hint == sq as u8 + 1 {
                key = i32::MIN;
            }
            list[n] = (key, sq);
            n += 1;
        }
        list[..n].sort_unstable();
        n
    }

    /// Negamax value of `p` to move against `o` in the window (`alpha`, `beta`); `passed` when
    /// the previous ply was a pass.
    fn search(&mut self, p: u64, o: u64, mut alpha: i32, mut beta: i32, passed: bool) -> i32 {
        let empties = 64 - (p | o).count_ones();
        if empties <= SHALLOW_EMPTIES {
            return self.shallow(p, o, alpha, beta, empties);
        }
        self.nodes += 1;
        if self.nodes & (STOP_EVERY - 1) == 0 && self.stop.is_raised() {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
        let mine = moves(p, o);
        if mine == 0 {
            if passed {
                return final_diff(p, o);
            }
            return -self.search(o, p, -beta, -alpha, true);
        }
        let use_table = empties >= TABLE_EMPTIES;
        let index = slot(p, o);
        let mut hint = 0;
        if use_table {
            let e = self.table[index];
            if e.p == p && e.o == o {
                let (lo, hi) = (e.lower as i32, e.upper as i32);
                if lo >= beta {
                    return lo;
                }
                if hi <= alpha {
                    return hi;
                }
                if lo == hi {
                    return lo;
                }
                alpha = alpha.max(lo);
                beta = beta.min(hi);
                hint = e.best;
            }
        }
        let alpha_in = alpha;
        let mut best = -WIDE;
        let mut best_sq = 0u8;
        let mut list = [(0, 0); 32];
        let n = self.order(p, o, mine, hint, &mut list);
        for (k, &(_, sq)) in list[..n].iter().enumerate() {
            let (cp, co) = play(p, o, sq);
            let value = if k == 0 {
                -self.search(cp, co, -beta, -alpha, false)
            } else {
                let probe = -self.search(cp, co, -alpha - 1, -alpha, false);
                if probe > alpha && probe < beta {
                    -self.search(cp, co, -beta, -probe, false)
                } else {
                    probe
                }
            };
            if value > best {
                best = value;
                best_sq = sq as u8 + 1;
                if value > alpha {
                    alpha = value;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        if use_table {
            let e = &mut self.table[index];
            let (lower, upper) = if best >= beta {
                (best, 64)
            } else if best <= alpha_in {
                (-64, best)
            } else {
                (best, best)
            };
            // Keep what an earlier search of the same position knew when it is tighter.
            let (lower, upper) = if e.p == p && e.o == o {
                (lower.max(e.lower as i32), upper.min(e.upper as i32))
            } else {
                (lower, upper)
            };
            *e = Entry {
                p,
                o,
                lower: lower as i8,
                upper: upper.max(lower) as i8,
                best: best_sq,
            };
        }
        best
    }

    /// Few empties: no move list, empty squares in parity order, the last two plies apart.
    fn shallow(&mut self, p: u64, o: u64, mut alpha: i32, beta: i32, empties: u32) -> i32 {
        let empty = !(p | o);
        match empties {
            0 => {
                self.nodes += 1;
                return final_diff(p, o);
            }
            1 => return self.last1(p, o, empty.trailing_zeros()),
            2 => {
                let a = empty.trailing_zeros();
                let b = (empty & (empty - 1)).trailing_zeros();
                return self.last2(p, o, a, b, alpha, beta);
            }
            _ => {}
        }
        self.nodes += 1;
        // Quadrants holding an odd number of empties.
        const QUADRANTS: [u64; 4] = [
            0x0000_0000_0F0F_0F0F,
            0x0000_0000_F0F0_F0F0,
            0x0F0F_0F0F_0000_0000,
            0xF0F0_F0F0_0000_0000,
        ];
        let odd = QUADRANTS
            .iter()
            .filter(|&&q| (q & empty).count_ones() & 1 == 1)
            .fold(0, |m, &q| m | q);
        let mut best = -WIDE;
        for part in [empty & odd, empty & !odd] {
            let mut rest = part;
            while rest != 0 {
                let sq = rest.trailing_zeros();
                rest &= rest - 1;
                let f = flips(p, o, sq);
                if f == 0 {
                    continue;
                }
                let value = -self.shallow(o & !f, p | f | (1u64 << sq), -beta, -alpha, empties - 1);
                if value > best {
                    best = value;
                    if value > alpha {
                        alpha = value;
                        if alpha >= beta {
                            return best;
                        }
                    }
                }
            }
        }
        if best == -WIDE {
            // No placement: pass if the opponent can move, else the game is over.
            if moves(o, p) == 0 {
                return final_diff(p, o);
            }
            return -self.shallow(o, p, -beta, -alpha, empties);
        }
        best
    }

    /// Two empties `a` and `b`, `p` to move.
    fn last2(&mut self, p: u64, o: u64, a: u32, b: u32, alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        let mut best = -WIDE;
        let f = flips(p, o, a);
        if f != 0 {
            best = -self.last1(o & !f, p | f | (1u64 << a), b);
            if best >= beta {
                return best;
            }
        }
        let f = flips(p, o, b);
        if f != 0 {
            best = best.max(-self.last1(o & !f, p | f | (1u64 << b), a));
        }
        if best > -WIDE {
            return best;
        }
        // `p` passes; the opponent plays here if it can.
        let fa = flips(o, p, a);
        let fb = flips(o, p, b);
        if fa == 0 && fb == 0 {
            return final_diff(p, o);
        }
        let mut worst = WIDE;
        if fa != 0 {
            worst = self.last1(p & !fa, o | fa | (1u64 << a), b);
            if worst <= alpha {
                return worst;
            }
        }
        if fb != 0 {
            worst = worst.min(self.last1(p & !fb, o | fb | (1u64 << b), a));
        }
        worst
    }

    /// One empty square `sq`, `p` to move: 63 discs on the board.
    fn last1(&mut self, p: u64, o: u64, sq: u32) -> i32 {
        self.nodes += 1;
        let f = flips(p, o, sq);
        if f != 0 {
            // p ends with its discs, the flipped ones and the new one; 64 discs in all.
            return 2 * (p.count_ones() + f.count_ones() + 1) as i32 - 64;
        }
        let f = flips(o, p, sq);
        if f != 0 {
            return 64 - 2 * (o.count_ones() + f.count_ones() + 1) as i32;
        }
        final_diff(p, o)
    }
}

/// Solves `board` with a fresh solver (allocates its 24 MiB table).
pub fn solve(board: &Board) -> Solved {
    Solver::new().solve(board)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reversi::movegen;
    use crate::reversi::Reversi;
    use cubesearch_search::testing::random_positions;

    #[test]
    fn moves_and_flips_equal_the_rules() {
        for b in random_positions(&Reversi, 300, 60, 41) {
            assert_eq!(moves(b.player, b.opponent), movegen::legal_moves(&b));
            for sq in 0..64u32 {
                if (b.player | b.opponent) >> sq & 1 == 0 {
                    assert_eq!(
                        flips(b.player, b.opponent, sq),
                        movegen::flips(&b, sq as u8),
                        "{b:?} {sq}"
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod exact {
    use super::*;
    use crate::reversi::{final_score, Reversi};
    use cubesearch_core::rng::XorShift32;
    use cubesearch_core::Game;

    /// Plain negamax to the end of the game through the rules' own move generation: no pruning,
    /// no ordering, no table. The reference the solver must equal.
    fn minimax(b: &Board) -> i32 {
        let moves = Reversi.moves(b);
        if moves.is_empty() {
            return final_score(b);
        }
        moves
            .iter()
            .map(|&m| -minimax(&Reversi.apply(b, m)))
            .max()
            .expect("moves")
    }

    /// Positions from random games of the seed `seed`, stopped at `empties` empty squares
    /// (games that end sooner are skipped).
    fn endgames(count: usize, empties: u32, seed: u32) -> Vec<Board> {
        let mut rng = XorShift32::for_worker(seed, 0);
        let mut out = Vec::new();
        while out.len() < count {
            let mut b = Reversi.initial();
            loop {
                if b.empty().count_ones() == empties {
                    out.push(b);
                    break;
                }
                let moves = Reversi.moves(&b);
                if moves.is_empty() {
                    break;
                }
                b = Reversi.apply(&b, moves[rng.below(moves.len() as u32) as usize]);
            }
        }
        out
    }

    #[test]
    fn the_solver_equals_plain_minimax_and_its_move_reaches_the_value() {
        let mut solver = Solver::new();
        let mut positions = endgames(40, 7, 3);
        positions.extend(endgames(15, 9, 4));
        positions.extend(endgames(3, 11, 5));
        let mut spread = std::collections::BTreeSet::new();
        for b in &positions {
            let exact = minimax(b);
            let got = solver.solve(b);
            assert_eq!(got.value, exact, "{}", Reversi.format_position(b));
            let mv = got.best.expect("an unfinished position has a move");
            assert!(Reversi.moves(b).contains(&mv));
            assert_eq!(-minimax(&Reversi.apply(b, mv)), exact);
            spread.insert(exact);
        }
        // The positions are not all alike (wins, losses, several margins).
        assert!(spread.len() > 10, "{spread:?}");
    }

    #[test]
    fn finished_and_pass_positions_are_answered() {
        // Black alone: the game is over, all 64 squares are Black's.
        let over = Board {
            player: 1,
            opponent: 0,
            to_move: crate::reversi::Colour::Black,
        };
        assert_eq!(
            solve(&over),
            Solved {
                value: 64,
                best: None,
                nodes: 1
            }
        );
        for b in (2..12).flat_map(|e| endgames(100, e, 9 + e)) {
            if Reversi.moves(&b) == [ReversiMove::Pass] {
                let got = solve(&b);
                assert_eq!(
                    (got.value, got.best),
                    (minimax(&b), Some(ReversiMove::Pass))
                );
                return;
            }
        }
        panic!("no pass position among the samples");
    }

    /// On two and three threads the solve's value is the one-thread solve's, and its move
    /// reaches that value.
    #[test]
    fn the_parallel_solve_equals_the_sequential_one() {
        let mut solver = Solver::new();
        let mut positions = endgames(20, 9, 7);
        positions.extend(endgames(4, 14, 8));
        for b in &positions {
            let one = solver.solve(b);
            for threads in [2, 3] {
                let many = solver.solve_parallel(b, threads, &Stop::new()).unwrap();
                assert_eq!(many.value, one.value, "{}", Reversi.format_position(b));
                let mv = many.best.expect("a move");
                assert_eq!(-solve(&Reversi.apply(b, mv)).value, one.value);
            }
        }
    }

    /// A raised stop ends a solve of the opening (60 empties, years of work) at once, with
    /// nothing; the same solver then solves a small endgame exactly.
    #[test]
    fn a_raised_stop_ends_a_solve_and_the_solver_goes_on() {
        let mut solver = Solver::new();
        let stop = Stop::new();
        let raiser = stop.clone();
        let waker = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(100));
            raiser.request(1);
        });
        let began = std::time::Instant::now();
        assert_eq!(solver.solve_until(&Board::start(), &stop), None);
        waker.join().unwrap();
        assert!(began.elapsed().as_secs() < 5, "{:?}", began.elapsed());
        let b = endgames(1, 9, 6)[0];
        assert_eq!(solver.solve(&b).value, minimax(&b));
        assert!(estimated_nodes(60) > 1e18 && estimated_nodes(20) < 1e8);
    }
}
