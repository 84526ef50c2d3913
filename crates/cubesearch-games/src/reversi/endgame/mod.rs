//! The exact endgame solver: the final disc difference under perfect play (empty squares to the
//! winner, as [`final_score`](super::final_score)) and a move that reaches it.
//!
//! Negamax with alpha-beta over two bitboards, principal-variation search (null windows after
//! the first move, re-searched when one fails high), and three regimes by the number of empty
//! squares `e`:
//!
//! * `e ≥ TABLE_EMPTIES`: moves sorted fastest-first (fewest opponent replies, corners early, the
//!   transposition table's best move first; from `SORT_EMPTIES` the opponent's best reply by
//!   the hand-written evaluation added); bounds kept in a transposition table, whose bounds on
//!   the children may cut a node before it searches (enhanced transposition cutoffs, from
//!   `ETC_EMPTIES`); nodes searched with an open window order their moves by a midgame search
//!   from `PV_SORT_EMPTIES`, and every node from `DEEP_SORT_EMPTIES`;
//! * `SHALLOW_EMPTIES < e < TABLE_EMPTIES`: fastest-first, no table (its probes cost more than
//!   they save this close to the end);
//! * `e ≤ SHALLOW_EMPTIES`: no move list; empty squares tried in parity order (squares of the
//!   quadrants with an odd number of empties first: the last move in a region is worth having);
//!   the last two plies by the dedicated `last2` and `last1`.
//!
//! On several threads ([`Solver::solve_parallel`]) the search splits as the young brothers
//! wait concept (YBWC) says: at a node of at least [`SPLIT_EMPTIES`] empties, once its first
//! two moves are searched, the others are searched at once on rayon's threads, each with a
//! null window against the best so far; a move that refutes the node cuts its brothers short.
//! The threads share one transposition table of slot pairs (a position goes over the one of
//! fewer empties), whose slots are written without locks and read back only when their three
//! words agree.
//!
//! A solve obeys a [`Stop`] ([`Solver::solve_until`]), looked at every [`STOP_EVERY`] nodes,
//! and [`estimated_nodes`] sizes one before it starts.
//!
//! [`solve_on`] finds the same exact values with an executor (a GPU) searching every node of
//! a few empties, under null-window tests grown on the host; on FFO #40 it is far slower than
//! this solver (docs/BENCHMARKS.md).

mod device;

pub use device::{solve_on, DeviceOptions};

use super::board::{Board, Square};
use super::ReversiMove;
use cubesearch_core::Stop;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// Below this many empties (inclusive) the search walks empty squares without a move list.
const SHALLOW_EMPTIES: u32 = 6;
/// From this many empties up, positions go into the transposition table.
const TABLE_EMPTIES: u32 = 9;
/// From this many empties up, move ordering also counts potential replies.
const DEEP_ORDER_EMPTIES: u32 = 12;
/// From this many empties up, move ordering also adds the opponent's best reply by the
/// hand-written evaluation (FFO #40–#44 on one thread: 16 % fewer nodes, 1.15× faster).
const SORT_EMPTIES: u32 = 14;
/// From this many empties up, a node searched with an open window (the root, the principal
/// variation) orders its moves by a midgame search [`PV_SORT_DEPTH`] plies deep, so that its
/// eldest is most often its best: its brothers then all fail low, on one thread or many. On
/// FFO #40–#44: 20 % fewer nodes on one thread, and on two threads 6.4e8 → 3.8e8 nodes.
const PV_SORT_EMPTIES: u32 = 18;
/// See [`PV_SORT_EMPTIES`] (4 plies saved fewer nodes, 8 cost more time than they saved).
const PV_SORT_DEPTH: u32 = 6;
/// From this many empties up, every node orders its moves by a midgame search
/// [`DEEP_SORT_DEPTH`] plies deep (FFO #40–#44: one thread 1.30× faster, two 1.09×; from 18
/// or 16 empties, or 2 or 6 plies, less).
const DEEP_SORT_EMPTIES: u32 = 20;
/// See [`DEEP_SORT_EMPTIES`].
const DEEP_SORT_DEPTH: u32 = 4;
/// Beyond any midgame value (finished games score `WIN_SCALE` a disc).
const MIDGAME_WIDE: i32 = 1 << 20;
/// From this many empties up, a node first looks its children up in the table (enhanced
/// transposition cutoffs).
const ETC_EMPTIES: u32 = 14;
/// From this many empties up, a node's later moves are searched in parallel (YBWC).
pub const SPLIT_EMPTIES: u32 = 14;
/// Moves a node searches alone before its others go in parallel. After one, a node whose
/// eldest did not refute it was often refuted by its second, and the brothers searched
/// beside it were wasted: FFO #45–#47 on 16 threads visited 9.2e9 nodes splitting after one
/// and 3.2e9 after two, in 0.58 × the time (after three: fewer nodes, no faster).
const SPLIT_AFTER: usize = 2;
/// Transposition table slots (a power of two), taken in pairs.
const TABLE_SIZE: usize = 1 << 20;
/// Nodes between two looks at whether a search was cut short (a power of two).
const CUT_EVERY: u64 = 1 << 10;
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
/// before the first square that is not the opponent's, when that square is `p`'s. Without
/// branches: whether a ray flips is as good as random, and a mispredicted branch a ray cost
/// more than the masks (FFO #40–#44, one thread: 1.3× faster).
#[inline]
pub fn flips(p: u64, o: u64, square: u32) -> u64 {
    let rays = &RAYS[square as usize];
    let mut flipped = 0;
    for ray in &rays[..4] {
        // Up the index: the nearest square is the lowest bit (none: every run is the ray).
        let stop = ray & !o;
        let first = stop & stop.wrapping_neg();
        let run = ray & first.wrapping_sub(1);
        flipped |= run & 0u64.wrapping_sub(u64::from(first & p != 0));
    }
    for ray in &rays[4..] {
        // Down the index: the nearest square is the highest bit; bit 0 stands in for none,
        // and is only taken for p's when the ray holds it.
        let stop = (ray & !o) | 1;
        let first = (1u64 << 63) >> stop.leading_zeros();
        let run = ray & !((first << 1).wrapping_sub(1));
        flipped |= run & 0u64.wrapping_sub(u64::from(first & p & ray != 0));
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

/// What the table knows of a position: bounds on its value and the best move found.
#[derive(Clone, Copy)]
struct Entry {
    lower: i32,
    upper: i32,
    /// Best move square + 1 (0: none known).
    best: u8,
}

/// The transposition table, shared by a solve's threads. A slot is three words written without
/// a lock, `[p ^ data, o ^ data, data]`: a slot two threads write at once reads back as
/// another position's, which is a miss. Every bound stored is true, so any slot that reads
/// back is.
struct Table {
    slots: Vec<[AtomicU64; 3]>,
}

impl Table {
    /// A table of `size` slots (a power of two).
    fn new(size: usize) -> Self {
        Self {
            slots: (0..size).map(|_| Default::default()).collect(),
        }
    }

    fn clear(&mut self) {
        for slot in &mut self.slots {
            *slot = Default::default();
        }
    }

    /// The entry of `p` to move against `o`, from either slot of its pair.
    fn get(&self, p: u64, o: u64) -> Option<Entry> {
        let pair = self.pair(p, o);
        let data = [pair, pair ^ 1]
            .into_iter()
            .map(|at| self.load(at))
            .find(|slot| slot.holds(p, o))?
            .data;
        Some(Entry {
            lower: data as u8 as i8 as i32,
            upper: (data >> 8) as u8 as i8 as i32,
            best: (data >> 16) as u8,
        })
    }

    /// Stores `e` for `p` to move against `o`: over the position's own slot of its pair, else
    /// over the slot whose position has fewer empties (the cheaper to search again), an empty
    /// slot first.
    fn put(&self, p: u64, o: u64, e: Entry) {
        let data = u64::from(e.lower as i8 as u8)
            | u64::from(e.upper as i8 as u8) << 8
            | u64::from(e.best) << 16
            | 1 << 24;
        let pair = self.pair(p, o);
        let [first, second] = [pair, pair ^ 1].map(|at| self.load(at));
        let at = if !first.holds(p, o)
            && (second.holds(p, o) || first.empties().is_some_and(|e| second.empties() <= Some(e)))
        {
            pair ^ 1
        } else {
            pair
        };
        let [a, b, c] = &self.slots[at];
        a.store(p ^ data, Ordering::Relaxed);
        b.store(o ^ data, Ordering::Relaxed);
        c.store(data, Ordering::Relaxed);
    }

    /// The first slot of the pair that `p` to move against `o` hashes to.
    fn pair(&self, p: u64, o: u64) -> usize {
        slot(p, o) & (self.slots.len() - 2)
    }

    /// What slot `at` holds.
    fn load(&self, at: usize) -> Slot {
        let [a, b, c] = &self.slots[at];
        let data = c.load(Ordering::Relaxed);
        Slot {
            p: a.load(Ordering::Relaxed) ^ data,
            o: b.load(Ordering::Relaxed) ^ data,
            data,
        }
    }
}

/// A table slot as read: its position and data word (0: an empty slot).
#[derive(Clone, Copy)]
struct Slot {
    p: u64,
    o: u64,
    data: u64,
}

impl Slot {
    fn holds(self, p: u64, o: u64) -> bool {
        self.data != 0 && self.p == p && self.o == o
    }

    /// The empties of its position; `None` for an empty slot.
    fn empties(self) -> Option<u32> {
        (self.data != 0).then(|| 64 - (self.p | self.o).count_ones())
    }
}

/// A solver with its transposition table (reuse it across positions to keep the allocation)
/// and, once it has solved on several threads, their pool.
pub struct Solver {
    table: Table,
    pool: Option<(usize, rayon::ThreadPool)>,
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
    (h >> 44) as usize
}

impl Solver {
    /// A solver with an empty table.
    pub fn new() -> Self {
        Self {
            table: Table::new(TABLE_SIZE),
            pool: None,
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
        self.table.clear();
        let stopped = AtomicBool::new(false);
        let mut search = Search::new(&self.table, stop, &stopped, false);
        let solved = search.root(board);
        (!stopped.into_inner()).then_some(solved)
    }

    /// [`Self::solve_until`] on `threads` threads, splitting as the module docs say. The
    /// value is the one-thread solve's; the move may be another of equal value. Nodes count
    /// every thread's.
    pub fn solve_parallel(&mut self, board: &Board, threads: usize, stop: &Stop) -> Option<Solved> {
        if threads <= 1 {
            return self.solve_until(board, stop);
        }
        if self.pool.as_ref().map(|(n, _)| *n) != Some(threads) {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .ok()?;
            self.pool = Some((threads, pool));
        }
        self.table.clear();
        let stopped = AtomicBool::new(false);
        let (_, pool) = self.pool.as_ref().expect("built above");
        let table = &self.table;
        let solved = pool.install(|| Search::new(table, stop, &stopped, true).root(board));
        (!stopped.into_inner()).then_some(solved)
    }
}

/// A split point's flag, raised when a move refutes it: the searches below stop, their
/// results unwanted. Each knows the split points above it.
struct Cut<'a> {
    raised: AtomicBool,
    above: Option<&'a Cut<'a>>,
}

/// One thread's search: the shared table and stop, its own node count, and the split points
/// it searches under.
struct Search<'a> {
    table: &'a Table,
    stop: &'a Stop,
    /// Raised by the first thread that sees the stop.
    stopped: &'a AtomicBool,
    cut: Option<&'a Cut<'a>>,
    /// Split at nodes of [`SPLIT_EMPTIES`] or more.
    parallel: bool,
    nodes: u64,
    /// Stopped or cut short: the search unwinds and stores nothing.
    abandoned: bool,
}

impl<'a> Search<'a> {
    fn new(table: &'a Table, stop: &'a Stop, stopped: &'a AtomicBool, parallel: bool) -> Self {
        Self {
            table,
            stop,
            stopped,
            cut: None,
            parallel,
            nodes: 0,
            abandoned: false,
        }
    }

    /// Counts a node, and now and then looks at the stop and the cuts above.
    #[inline]
    fn visit(&mut self) {
        self.nodes += 1;
        if self.nodes & (CUT_EVERY - 1) == 0 {
            if self.nodes & (STOP_EVERY - 1) == 0 {
                self.look_at_stop();
            }
            self.abandoned |= self.cut_short();
        }
    }

    /// Raises `stopped` for every thread when the solve's stop is raised.
    fn look_at_stop(&mut self) {
        if self.stop.is_raised() {
            self.stopped.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the solve was stopped or a split point above was cut.
    fn cut_short(&self) -> bool {
        let mut cut = self.cut;
        while let Some(c) = cut {
            if c.raised.load(Ordering::Relaxed) {
                return true;
            }
            cut = c.above;
        }
        self.stopped.load(Ordering::Relaxed)
    }

    fn root(&mut self, board: &Board) -> Solved {
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
        let (value, best) = self.ordered(p, o, mine, (-WIDE, WIDE), 0);
        Solved {
            value,
            best: Some(ReversiMove::Place((best - 1) as Square)),
            nodes: self.nodes,
        }
    }

    /// Negamax value of `p` to move against `o` in the window (`alpha`, `beta`); `passed` when
    /// the previous ply was a pass.
    fn search(&mut self, p: u64, o: u64, mut alpha: i32, mut beta: i32, passed: bool) -> i32 {
        let empties = 64 - (p | o).count_ones();
        if empties <= SHALLOW_EMPTIES {
            return self.shallow(p, o, alpha, beta, empties);
        }
        self.visit();
        if self.abandoned {
            return 0;
        }
        let mine = moves(p, o);
        if mine == 0 {
            if passed {
                return final_diff(p, o);
            }
            return -self.search(o, p, -beta, -alpha, true);
        }
        if empties < TABLE_EMPTIES {
            return self.ordered(p, o, mine, (alpha, beta), 0).0;
        }
        let mut hint = 0;
        let known = self.table.get(p, o);
        if let Some(e) = known {
            if e.lower >= beta {
                return e.lower;
            }
            if e.upper <= alpha {
                return e.upper;
            }
            if e.lower == e.upper {
                return e.lower;
            }
            alpha = alpha.max(e.lower);
            beta = beta.min(e.upper);
            hint = e.best;
        }
        if empties >= ETC_EMPTIES {
            if let Some(refuted) = self.refuted_by_table(p, o, mine, beta) {
                return refuted;
            }
        }
        let (best, best_sq) = self.ordered(p, o, mine, (alpha, beta), hint);
        if self.abandoned {
            return 0;
        }
        let (lower, upper) = if best >= beta {
            (best, 64)
        } else if best <= alpha {
            (-64, best)
        } else {
            (best, best)
        };
        // Keep what an earlier search of the same position knew when it is tighter.
        let (lower, upper) = match known {
            Some(e) => (lower.max(e.lower), upper.min(e.upper)),
            None => (lower, upper),
        };
        self.table.put(
            p,
            o,
            Entry {
                lower,
                upper: upper.max(lower),
                best: best_sq,
            },
        );
        best
    }

    /// Enhanced transposition cutoff: a value of at least `beta` when the table already
    /// bounds a child's value for the opponent at `−beta` or below.
    fn refuted_by_table(&self, p: u64, o: u64, mine: u64, beta: i32) -> Option<i32> {
        let mut rest = mine;
        while rest != 0 {
            let sq = rest.trailing_zeros();
            rest &= rest - 1;
            let (cp, co) = play(p, o, sq);
            if let Some(e) = self.table.get(cp, co) {
                if -e.upper >= beta {
                    return Some(-e.upper);
                }
            }
        }
        None
    }

    /// The moves `mine` of `p` fastest-first ([`order`], the table's move `hint` first): the
    /// first with the window, the others with null windows, searched again when they beat
    /// it; at [`SPLIT_EMPTIES`] and more on a parallel search, those after the first
    /// [`SPLIT_AFTER`] at once. The fail-soft value and its move (square + 1).
    fn ordered(
        &mut self,
        p: u64,
        o: u64,
        mine: u64,
        (mut alpha, beta): (i32, i32),
        hint: u8,
    ) -> (i32, u8) {
        let empties = 64 - (p | o).count_ones();
        let depth = sort_depth(empties, Window::of(alpha, beta));
        let mut list = [(0, 0); 32];
        let n = order(p, o, mine, hint, depth, &mut list);
        if depth > 0 {
            // A midgame sort is thousands of nodes the count does not see: far from the end
            // they come between its looks at the stop, and a stop waited seconds for them.
            self.look_at_stop();
            self.abandoned |= self.cut_short();
        }
        // The eldest brother, always searched first and alone.
        let (cp, co) = play(p, o, list[0].1);
        let mut best = (
            -self.search(cp, co, -beta, -alpha, false),
            list[0].1 as u8 + 1,
        );
        alpha = alpha.max(best.0);
        if alpha >= beta || n == 1 || self.abandoned {
            return best;
        }
        for (searched, &(_, sq)) in (1..).zip(&list[1..n]) {
            if self.parallel && empties >= SPLIT_EMPTIES && searched >= SPLIT_AFTER {
                return self.split(p, o, &list[searched..n], (alpha, beta), best);
            }
            let (cp, co) = play(p, o, sq);
            let probe = -self.search(cp, co, -alpha - 1, -alpha, false);
            let value = if probe > alpha && probe < beta {
                -self.search(cp, co, -beta, -probe, false)
            } else {
                probe
            };
            if self.abandoned {
                break;
            }
            if value > best.0 {
                best = (value, sq as u8 + 1);
                if value > alpha {
                    alpha = value;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// The younger brothers `rest` of a node whose elder ones gave `best`, searched at once, each
    /// on its own [`Search`] under a new split point: a null window against the best value
    /// so far, and again with the window when it beats it. A refutation cuts the others.
    fn split(
        &mut self,
        p: u64,
        o: u64,
        rest: &[(i32, u32)],
        (alpha, beta): (i32, i32),
        best: (i32, u8),
    ) -> (i32, u8) {
        let cut = Cut {
            raised: AtomicBool::new(false),
            above: self.cut,
        };
        let found = Mutex::new((best, alpha));
        let nodes = AtomicU64::new(0);
        let (table, stop, stopped) = (self.table, self.stop, self.stopped);
        rest.par_iter().for_each(|&(_, sq)| {
            if cut.raised.load(Ordering::Relaxed) {
                return;
            }
            let mut brother = Search {
                table,
                stop,
                stopped,
                cut: Some(&cut),
                parallel: true,
                nodes: 0,
                abandoned: false,
            };
            let alpha_now = || found.lock().map_or(alpha, |f| f.1);
            let (cp, co) = play(p, o, sq);
            let mut bound = alpha_now();
            // A probe that beats its bound is searched again with the window only if it still
            // beats the best so far, which a brother may have raised meanwhile.
            let value = loop {
                let probe = -brother.search(cp, co, -bound - 1, -bound, false);
                if probe <= bound || probe >= beta || brother.abandoned {
                    break probe;
                }
                let now = alpha_now();
                if now >= probe {
                    bound = now;
                    continue;
                }
                break -brother.search(cp, co, -beta, -probe, false);
            };
            nodes.fetch_add(brother.nodes, Ordering::Relaxed);
            if brother.abandoned {
                return;
            }
            if let Ok(mut f) = found.lock() {
                if value > f.0 .0 {
                    f.0 = (value, sq as u8 + 1);
                    if value > f.1 {
                        f.1 = value;
                        if value >= beta {
                            cut.raised.store(true, Ordering::Relaxed);
                        }
                    }
                }
            }
        });
        self.nodes += nodes.into_inner();
        // A brother abandoned for this split's own cut leaves a refutation, which stands; one
        // abandoned for a stop or a cut above leaves nothing.
        self.abandoned |= self.cut_short();
        found.into_inner().map_or(best, |f| f.0)
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

    /// One empty square `sq`, `p` to move: 63 discs on the board, so the flips are counted
    /// from `p`'s discs on the square's four lines ([`last_flips`]) without finding them.
    fn last1(&mut self, p: u64, o: u64, sq: u32) -> i32 {
        self.nodes += 1;
        let f = last_flips(p, sq);
        if f != 0 {
            // p ends with its discs, the flipped ones and the new one; 64 discs in all.
            return 2 * (p.count_ones() + f + 1) as i32 - 64;
        }
        let f = last_flips(o, sq);
        if f != 0 {
            return 64 - 2 * (o.count_ones() + f + 1) as i32;
        }
        final_diff(p, o)
    }
}

/// The discs a disc of `p` on `sq` turns over when every other square is occupied (the last
/// empty square): on each of its four lines, `p`'s discs gathered into a byte indexed by the
/// line's column (its row for a column), then counted by [`LINE_FLIPS`].
#[inline]
fn last_flips(p: u64, sq: u32) -> u32 {
    let (row, col) = (sq / 8, sq % 8);
    let diagonals = &DIAGONALS[sq as usize];
    let by_row = (p >> (8 * row)) as u8;
    let by_col =
        (((p >> col) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8;
    let by_diag = ((p & diagonals[0]).wrapping_mul(0x0101_0101_0101_0101) >> 56) as u8;
    let by_anti = ((p & diagonals[1]).wrapping_mul(0x0101_0101_0101_0101) >> 56) as u8;
    let (row, col) = (row as usize, col as usize);
    u32::from(LINE_FLIPS[col][by_row as usize])
        + u32::from(LINE_FLIPS[row][by_col as usize])
        + u32::from(LINE_FLIPS[col][by_diag as usize])
        + u32::from(LINE_FLIPS[col][by_anti as usize])
}

/// The diagonal and the anti-diagonal through each square.
static DIAGONALS: [[u64; 2]; 64] = diagonals();

const fn diagonals() -> [[u64; 2]; 64] {
    let rays = rays();
    let mut out = [[0u64; 2]; 64];
    let mut sq = 0;
    while sq < 64 {
        // The rays NE (2) with SW (6), NW (3) with SE (7), and the square itself.
        let own = 1u64 << sq;
        out[sq] = [
            rays[sq][2] | rays[sq][6] | own,
            rays[sq][3] | rays[sq][7] | own,
        ];
        sq += 1;
    }
    out
}

/// `LINE_FLIPS[at][line]`: the discs a disc on cell `at` of a full line of eight turns over,
/// `line` holding the mover's discs (every other cell the opponent's): on each side, the
/// cells before the mover's nearest disc, when there is one. Cells beyond a short diagonal's
/// end read as the opponent's and lead to no disc of the mover, so they count nothing.
static LINE_FLIPS: [[u8; 256]; 8] = line_flips();

const fn line_flips() -> [[u8; 256]; 8] {
    let mut out = [[0u8; 256]; 8];
    let mut at = 0;
    while at < 8 {
        let mut line = 0;
        while line < 256 {
            let mut count = 0;
            let mut step = -1;
            while step <= 1 {
                let mut i = at as i32 + step;
                while i >= 0 && i < 8 && line >> i & 1 == 0 {
                    i += step;
                }
                if i >= 0 && i < 8 {
                    count += (i - at as i32).abs() - 1;
                }
                step += 2;
            }
            out[at][line] = count as u8;
            line += 1;
        }
        at += 1;
    }
    out
}

/// Whether a node is searched with an open window (the root, the principal variation) or a
/// null one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Window {
    Open,
    Null,
}

impl Window {
    fn of(alpha: i32, beta: i32) -> Self {
        if beta - alpha > 1 {
            Window::Open
        } else {
            Window::Null
        }
    }
}

/// How deep a midgame search orders the moves of a node of `empties` empty squares searched
/// in `window` ([`PV_SORT_EMPTIES`], [`DEEP_SORT_EMPTIES`]); 0: fastest-first.
fn sort_depth(empties: u32, window: Window) -> u32 {
    if window == Window::Open && empties >= PV_SORT_EMPTIES {
        PV_SORT_DEPTH
    } else if empties >= DEEP_SORT_EMPTIES {
        DEEP_SORT_DEPTH
    } else {
        0
    }
}

/// The moves of `p` in `mine`, the table's move (`hint`, square + 1) first, then by the
/// opponent's midgame value after each, `midgame_depth` plies deep, or with a depth of 0
/// fastest-first: fewest replies for the opponent (then fewest empty squares next to our
/// discs, its potential replies), corners ahead. Fills `list` with (key, square) sorted by
/// key; returns the count.
fn order(
    p: u64,
    o: u64,
    mine: u64,
    hint: u8,
    midgame_depth: u32,
    list: &mut [(i32, u32); 32],
) -> usize {
    let empties = 64 - (p | o).count_ones();
    let mut n = 0;
    let mut rest = mine;
    while rest != 0 && n < list.len() {
        let sq = rest.trailing_zeros();
        rest &= rest - 1;
        let (cp, co) = play(p, o, sq);
        let mut key = if midgame_depth > 0 {
            midgame(cp, co, midgame_depth, -MIDGAME_WIDE, MIDGAME_WIDE)
        } else {
            fastest_first(empties, sq, (cp, co))
        };
        if hint == sq as u8 + 1 {
            key = i32::MIN;
        }
        list[n] = (key, sq);
        n += 1;
    }
    list[..n].sort_unstable();
    n
}

/// The fastest-first key of a move on `sq` to `(cp, co)` from a position of `empties` empty
/// squares (lower first).
#[inline]
fn fastest_first(empties: u32, sq: u32, (cp, co): (u64, u64)) -> i32 {
    const CORNERS: u64 = 0x8100_0000_0000_0081;
    let mut key = (moves(cp, co).count_ones() as i32) * 64;
    // Far from the end the potential replies are worth their cost as a tie-break.
    if empties >= DEEP_ORDER_EMPTIES {
        key += (super::eval::neighbours(co) & !(cp | co)).count_ones() as i32 * 4;
    }
    key -= ((CORNERS >> sq) & 1) as i32 * 96;
    if empties >= SORT_EMPTIES {
        // The opponent's best reply by the evaluation, a ply deep.
        key += midgame(cp, co, 1, -MIDGAME_WIDE, MIDGAME_WIDE);
    }
    key
}

/// Solves `board` with a fresh solver (allocates its 24 MiB table).
pub fn solve(board: &Board) -> Solved {
    Solver::new().solve(board)
}

/// Positions a second the solver is counted on to visit, one thread: half what it visits on
/// FFO #40 (1.9e7 on an H200 host), for a slower host.
const NODES_PER_SECOND: f64 = 1e7;

/// A best move of `board` under perfect play, where the solve is estimated to take at most a
/// quarter of `time` ([`estimated_nodes`] against 10⁷ nodes a second); `None` elsewhere, or
/// once `stop` is raised. What a timed player asks before it searches.
pub fn exact_move(
    _: &super::Reversi,
    board: &Board,
    time: std::time::Duration,
    stop: &Stop,
) -> Option<super::ReversiMove> {
    let nodes = estimated_nodes(board.empty().count_ones());
    if nodes > time.as_secs_f64() * NODES_PER_SECOND / 4.0 {
        return None;
    }
    solve_quickest(board, 1, stop)?.best
}

/// `board` solved the quickest way: on this thread's small solver, kept from solve to solve,
/// where the solve is small (15 empties or fewer), else on a fresh full table with `threads`
/// threads; `None` once `stop` is raised.
pub fn solve_quickest(board: &Board, threads: usize, stop: &Stop) -> Option<Solved> {
    if estimated_nodes(board.empty().count_ones()) <= SMALL_SOLVE_NODES {
        solve_small(board, stop)
    } else {
        Solver::new().solve_parallel(board, threads, stop)
    }
}

/// Slots of [`solve_small`]'s table: 384 KiB, cleared in microseconds.
const SMALL_TABLE_SIZE: usize = 1 << 14;

/// Positions a solve is estimated to visit ([`estimated_nodes`]) up to which [`solve_small`]
/// is the quicker: 15 empties. Past it the full table pays for its clearing.
const SMALL_SOLVE_NODES: f64 = 2e5;

/// [`Solver::solve_until`] on this thread's small solver, kept from solve to solve: for
/// positions of few empties (many of them: labelling a dataset), whose whole solve takes less
/// time than allocating and clearing the full table would. The value is any solve's.
fn solve_small(board: &Board, stop: &Stop) -> Option<Solved> {
    thread_local! {
        static SMALL: std::cell::RefCell<Solver> = std::cell::RefCell::new(Solver {
            table: Table::new(SMALL_TABLE_SIZE),
            pool: None,
        });
    }
    SMALL.with(|solver| solver.borrow_mut().solve_until(board, stop))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reversi::movegen;
    use crate::reversi::Reversi;
    use cubesearch_search::testing::random_positions;

    /// A pair keeps a position of more empties over ones of fewer, and a position's own slot
    /// takes its new bounds.
    #[test]
    fn a_slot_pair_keeps_the_position_of_more_empties() {
        let table = Table::new(2);
        let entry = |v: i32| Entry {
            lower: v,
            upper: v,
            best: 1,
        };
        let discs = |n: u32| (1u64 << n) - 1;
        let (deep, shallow, other) = (discs(40), discs(54), discs(50));
        table.put(deep, 0, entry(1));
        table.put(shallow, 0, entry(2));
        table.put(other, 0, entry(3));
        assert_eq!(table.get(deep, 0).map(|e| e.lower), Some(1));
        assert!(table.get(shallow, 0).is_none());
        assert_eq!(table.get(other, 0).map(|e| e.lower), Some(3));
        table.put(other, 0, entry(4));
        table.put(deep, 0, entry(5));
        assert_eq!(table.get(deep, 0).map(|e| e.lower), Some(5));
        assert_eq!(table.get(other, 0).map(|e| e.lower), Some(4));
    }

    /// On positions with one empty square, the counted flips are the found ones, for either
    /// side.
    #[test]
    fn last_flips_count_the_flips_of_the_last_square() {
        let mut rng = cubesearch_core::rng::XorShift32::for_worker(17, 0);
        let mut some = 0;
        for _ in 0..20_000 {
            let sq = rng.below(64);
            let p = (u64::from(rng.next_u32()) << 32 | u64::from(rng.next_u32())) & !(1u64 << sq);
            let o = !p & !(1u64 << sq);
            for (a, b) in [(p, o), (o, p)] {
                let found = flips(a, b, sq).count_ones();
                assert_eq!(last_flips(a, sq), found, "{a:#x} {sq}");
                some += u32::from(found > 0);
            }
        }
        assert!(some > 10_000, "{some}");
    }

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

    /// On two, three and four threads the solve's value is the one-thread solve's, and its
    /// move reaches that value: positions below the splitting depth, splitting at the root
    /// only, and splitting below it too.
    #[test]
    fn the_parallel_solve_equals_the_sequential_one() {
        let mut solver = Solver::new();
        let mut positions = endgames(20, 9, 7);
        positions.extend(endgames(4, SPLIT_EMPTIES, 8));
        positions.extend(endgames(4, SPLIT_EMPTIES + 3, 10));
        for b in &positions {
            let one = solver.solve(b);
            for threads in [2, 3, 4] {
                let many = solver.solve_parallel(b, threads, &Stop::new()).unwrap();
                assert_eq!(many.value, one.value, "{}", Reversi.format_position(b));
                let mv = many.best.expect("a move");
                assert_eq!(-solve(&Reversi.apply(b, mv)).value, one.value);
            }
        }
    }

    /// A raised stop ends a solve of the opening (60 empties, years of work) at once, with
    /// nothing, on one thread and on three; the same solver then solves a small endgame
    /// exactly.
    #[test]
    fn a_raised_stop_ends_a_solve_and_the_solver_goes_on() {
        let mut solver = Solver::new();
        for threads in [1, 3] {
            let stop = Stop::new();
            let raiser = stop.clone();
            let waker = std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(100));
                raiser.request(1);
            });
            let began = std::time::Instant::now();
            assert_eq!(solver.solve_parallel(&Board::start(), threads, &stop), None);
            waker.join().unwrap();
            assert!(began.elapsed().as_secs() < 5, "{:?}", began.elapsed());
            let b = endgames(1, 9, 6)[0];
            assert_eq!(solver.solve(&b).value, minimax(&b));
        }
        assert!(estimated_nodes(60) > 1e18 && estimated_nodes(20) < 1e8);
    }
}

/// A midgame negamax of `p` against `o` to `depth` plies, the hand-written evaluation at its
/// leaves (a finished game beyond any evaluation): what orders moves far from the end.
fn midgame(p: u64, o: u64, depth: u32, mut alpha: i32, beta: i32) -> i32 {
    if depth == 0 {
        let board = Board {
            player: p,
            opponent: o,
            to_move: super::Colour::Black,
        };
        return super::eval::evaluate(&board);
    }
    let mut mine = moves(p, o);
    if mine == 0 {
        if moves(o, p) == 0 {
            return final_diff(p, o) * super::eval::WIN_SCALE;
        }
        return -midgame(o, p, depth - 1, -beta, -alpha);
    }
    let mut best = -MIDGAME_WIDE;
    while mine != 0 {
        let sq = mine.trailing_zeros();
        mine &= mine - 1;
        let (cp, co) = play(p, o, sq);
        let v = -midgame(cp, co, depth - 1, -beta, -alpha);
        if v > best {
            best = v;
            if v > alpha {
                alpha = v;
                if alpha >= beta {
                    break;
                }
            }
        }
    }
    best
}
