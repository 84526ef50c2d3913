//! Depth-limited negamax with alpha-beta on the device, generic over the device game: an
//! iterative walk over an explicit stack (no recursion on GPUs), and the kernels built on it.
//!
//! * [`subtree_kernel`](fn@subtree_kernel): one unit per root, each in its own window: the `SubtreeSearch`
//!   executor and the leaf step of the `split` strategy.
//! * [`root_walk_kernel`](fn@root_walk_kernel) then [`root_reduce_kernel`](fn@root_reduce_kernel):
//!   the seed's v1, v2 and v4 shapes: one cube per root move, one unit per second-level move, a
//!   shared-memory maximum in the cube; v1 returns each root move's value, v2 does the same over a
//!   packed stack, v4 also reduces over the root moves on the device and returns only the best
//!   move and value.
//!
//! Every walk resumes: a launch takes it at most a slice of steps, and its stack waits in device
//! memory for the next launch (see [`Slicing`](crate::launch::Slicing)).

use crate::device_game::{DeviceGame, GpuGame, ONGOING};
use crate::launch::{grid, launch_until_done, read, upload, Turns, Walker};
use cubecl::prelude::*;
use cubesearch_core::{Error, Result};

/// Larger than any score: the window's infinity.
pub const INFINITY: i32 = 1 << 22;

/// Bits of each packed value: the seed's v2 keeps a level's counters in two words.
const PACKED_BIAS: i32 = 1 << 15;
/// Packed values are clamped to ±`PACKED_LIMIT` (every game's scores are far inside it).
const PACKED_LIMIT: i32 = (1 << 15) - 1;

/// One unit's search stack: per level the position and its counters. Wide (v1, v4, split): five
/// words a level. Packed (v2, the seed's compact encoding): two words a level,
///
/// ```text
///  cursor = next move | move count << 8 | (best + 2¹⁵) << 16     (≤ 255 moves a position)
///  bounds = (alpha + 2¹⁵) | (beta + 2¹⁵) << 16                    (values clamped to ±(2¹⁵ − 1))
/// ```
#[derive(CubeType)]
struct Stack {
    boards: Array<u32>,
    cursor: Array<u32>,
    counts: Array<u32>,
    bounds: Array<u32>,
    alpha: Array<i32>,
    beta: Array<i32>,
    best: Array<i32>,
}

#[cube]
fn pack16(value: i32) -> u32 {
    u32::cast_from(i32::clamp(value, -PACKED_LIMIT, PACKED_LIMIT) + PACKED_BIAS)
}

#[cube]
fn unpack16(bits: u32) -> i32 {
    i32::cast_from(bits & 0xFFFFu32) - PACKED_BIAS
}

#[cube]
impl Stack {
    fn new(#[comptime] levels: usize, #[comptime] words: usize, #[comptime] packed: bool) -> Stack {
        // The unused arrays of a layout are never touched, so the compiler drops them.
        let wide = comptime!(if packed { 1usize } else { levels });
        let narrow = comptime!(if packed { levels } else { 1usize });
        Stack {
            boards: Array::<u32>::new(comptime!(levels * words)),
            cursor: Array::<u32>::new(levels),
            counts: Array::<u32>::new(wide),
            bounds: Array::<u32>::new(narrow),
            alpha: Array::<i32>::new(wide),
            beta: Array::<i32>::new(wide),
            best: Array::<i32>::new(wide),
        }
    }

    /// Opens level `l` on a position with `count` moves, searched in (`alpha`, `beta`).
    fn open(&mut self, l: usize, count: u32, alpha: i32, beta: i32, #[comptime] packed: bool) {
        if packed {
            self.cursor[l] = (count << 8u32) | (pack16(-INFINITY) << 16u32);
            self.bounds[l] = pack16(alpha) | (pack16(beta) << 16u32);
        } else {
            self.cursor[l] = 0u32;
            self.counts[l] = count;
            self.alpha[l] = alpha;
            self.beta[l] = beta;
            self.best[l] = -INFINITY;
        }
    }

    /// Whether level `l` has a move left to search and no cut-off yet.
    fn searching(&self, l: usize, #[comptime] packed: bool) -> bool {
        if packed {
            let cursor = self.cursor[l];
            (cursor & 0xFFu32) < ((cursor >> 8u32) & 0xFFu32)
                && self.alpha(l, packed) < self.beta(l, packed)
        } else {
            self.cursor[l] < self.counts[l] && self.alpha[l] < self.beta[l]
        }
    }

    /// The index of level `l`'s next move, then steps past it.
    fn take_move(&mut self, l: usize, #[comptime] packed: bool) -> u32 {
        let cursor = self.cursor[l];
        self.cursor[l] = cursor + 1u32;
        if packed {
            cursor & 0xFFu32
        } else {
            cursor
        }
    }

    fn alpha(&self, l: usize, #[comptime] packed: bool) -> i32 {
        if packed {
            unpack16(self.bounds[l])
        } else {
            self.alpha[l]
        }
    }

    fn beta(&self, l: usize, #[comptime] packed: bool) -> i32 {
        if packed {
            unpack16(self.bounds[l] >> 16u32)
        } else {
            self.beta[l]
        }
    }

    fn best(&self, l: usize, #[comptime] packed: bool) -> i32 {
        if packed {
            unpack16(self.cursor[l] >> 16u32)
        } else {
            self.best[l]
        }
    }

    /// A child of level `l` returned `value` (from level `l`'s side).
    fn raise(&mut self, l: usize, value: i32, #[comptime] packed: bool) {
        if packed {
            let cursor = self.cursor[l];
            let best = i32::max(unpack16(cursor >> 16u32), value);
            self.cursor[l] = (cursor & 0xFFFFu32) | (pack16(best) << 16u32);
            let bounds = self.bounds[l];
            let alpha = i32::max(unpack16(bounds), value);
            self.bounds[l] = (bounds & 0xFFFF_0000u32) | pack16(alpha);
        } else {
            self.best[l] = i32::max(self.best[l], value);
            self.alpha[l] = i32::max(self.alpha[l], value);
        }
    }
}

/// Opens a negamax walk of `root` in the window (`alpha`, `beta`) on `stack`, and says whether it
/// needs one: a finished game or a position without a move is worth `G::score`, set in `value`.
#[cube]
fn negamax_open<G: DeviceGame>(
    root: &G::State,
    alpha: i32,
    beta: i32,
    stack: &mut Stack,
    value: &mut i32,
    #[comptime] packed: bool,
) -> bool {
    *value = G::score(root);
    let moves = G::move_count(root);
    let walking = moves > 0 && G::outcome(root) == ONGOING;
    if walking {
        G::store(root, &mut stack.boards, 0);
        stack.open(0, moves, alpha, beta, packed);
    }
    walking
}

/// Takes the walk on `stack`, standing on `level`, at most `budget` steps further (a step plays
/// one move; `nodes` counts them) and says whether it has finished: the fail-soft negamax value
/// is then `stack.best(0)`. Leaves (`depth` plies below the root) and finished games are scored
/// by `G::score`.
#[cube]
fn negamax_steps<G: DeviceGame>(
    stack: &mut Stack,
    level: &mut u32,
    nodes: &mut u32,
    budget: u32,
    depth: u32,
    #[comptime] words: usize,
    #[comptime] packed: bool,
) -> bool {
    let last = u32::max(depth, 1u32) - 1u32;
    let mut done = false;
    let mut steps: u32 = 0u32;
    while !done && steps < budget {
        steps += 1u32;
        let l = *level as usize;
        if stack.searching(l, packed) {
            let mut child = G::load(&stack.boards, l * words);
            G::play(&mut child, stack.take_move(l, packed));
            *nodes += 1u32;
            let child_moves = G::move_count(&child);
            if *level == last || child_moves == 0 {
                stack.raise(l, -G::score(&child), packed);
            } else {
                let down = l + 1;
                let (alpha, beta) = (stack.alpha(l, packed), stack.beta(l, packed));
                G::store(&child, &mut stack.boards, down * words);
                stack.open(down, child_moves, -beta, -alpha, packed);
                *level += 1u32;
            }
        } else if *level == 0 {
            done = true;
        } else {
            let value = -stack.best(l, packed);
            stack.raise(l - 1, value, packed);
            *level -= 1u32;
        }
    }
    done
}

/// The walks' memory between launches: each unit's saved stack (u32 and i32 words, see
/// `walk_words`), and the count of walks a launch left unfinished.
#[derive(CubeType, CubeLaunch)]
pub struct SavedWalks {
    /// The u32 words of each unit's walk.
    pub walks: Array<u32>,
    /// The i32 words of each unit's walk.
    pub bounds: Array<i32>,
    /// `[0]`: walks left unfinished by this launch.
    pub unfinished: Array<Atomic<u32>>,
}

/// The level word of a walk that has finished.
const FINISHED: u32 = u32::MAX;

/// Words a subtree walk keeps in device memory between launches, per unit: u32 words
/// (`| boards: levels × words | cursor: levels | counts: levels | level |`) and i32 words
/// (`| alpha: levels | beta: levels | best: levels |`), where a walk to `depth` has
/// `max(depth, 1)` levels.
fn walk_words(depth: u32, words: usize) -> (usize, usize) {
    let levels = depth.max(1) as usize;
    (levels * (words + 2) + 1, 3 * levels)
}

/// The levels a unit's stack holds for a walk to `depth`: at least 8, then powers of two. The
/// depth is a runtime argument and only the stack's size is compiled in, so a search deepening
/// one ply at a time compiles its walk kernels once for depths 1 to 8 and once more for 9 to 16
/// (a compilation takes about a second on CUDA and cannot be cut short by a stop).
fn stack_capacity(depth: u32) -> usize {
    depth.max(8).next_power_of_two() as usize
}

/// How a walk's stack is kept: a state's words, and packed (the v2 stack: bounds where a wide
/// one keeps counts, and no i32 words) or wide. In device memory between launches it takes
/// only the levels its depth needs (see [`walk_words`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct WalkShape {
    words: usize,
    packed: bool,
}

/// Saves the stack of a walk standing on `level` at `u[ub..]` and `i[ib..]` (see
/// [`walk_words`]; a packed stack keeps its bounds where a wide one keeps its counts, and no i32
/// words): its live levels `0..=level` only, in runtime loops (unrolled, a deep walk's copies
/// bloat the kernel).
#[cube]
#[allow(clippy::too_many_arguments)]
fn save_walk(
    stack: &Stack,
    level: u32,
    u: &mut Array<u32>,
    i: &mut Array<i32>,
    ub: usize,
    ib: usize,
    levels: usize,
    #[comptime] shape: WalkShape,
) {
    let (words, packed) = comptime!((shape.words, shape.packed));
    let live = (level + 1u32) as usize;
    for k in 0..live * words {
        u[ub + k] = stack.boards[k];
    }
    for k in 0..live {
        u[ub + levels * words + k] = stack.cursor[k];
        if comptime!(packed) {
            u[ub + levels * comptime!(words + 1) + k] = stack.bounds[k];
        } else {
            u[ub + levels * comptime!(words + 1) + k] = stack.counts[k];
            i[ib + k] = stack.alpha[k];
            i[ib + levels + k] = stack.beta[k];
            i[ib + 2 * levels + k] = stack.best[k];
        }
    }
    u[ub + levels * comptime!(words + 2)] = level;
}

/// Reads back what [`save_walk`] saved, standing on `level`.
#[cube]
#[allow(clippy::too_many_arguments)]
fn load_walk(
    stack: &mut Stack,
    level: u32,
    u: &Array<u32>,
    i: &Array<i32>,
    ub: usize,
    ib: usize,
    levels: usize,
    #[comptime] shape: WalkShape,
) {
    let (words, packed) = comptime!((shape.words, shape.packed));
    let live = (level + 1u32) as usize;
    for k in 0..live * words {
        stack.boards[k] = u[ub + k];
    }
    for k in 0..live {
        stack.cursor[k] = u[ub + levels * words + k];
        if comptime!(packed) {
            stack.bounds[k] = u[ub + levels * comptime!(words + 1) + k];
        } else {
            stack.counts[k] = u[ub + levels * comptime!(words + 1) + k];
            stack.alpha[k] = i[ib + k];
            stack.beta[k] = i[ib + levels + k];
            stack.best[k] = i[ib + 2 * levels + k];
        }
    }
}

/// A later launch's start: loads the walk saved at `ub`/`ib` and its visited count
/// (`nodes[at]`), and says whether there is one (a finished walk's level word is `FINISHED`).
#[cube]
#[allow(clippy::too_many_arguments)]
fn resume_walk(
    stack: &mut Stack,
    level: &mut u32,
    visited: &mut u32,
    nodes: &Array<u32>,
    walks: &Array<u32>,
    bounds: &Array<i32>,
    at: usize,
    ub: usize,
    ib: usize,
    levels: usize,
    #[comptime] shape: WalkShape,
) -> bool {
    *level = walks[ub + levels * comptime!(shape.words + 2)];
    let walking = *level != FINISHED;
    if walking {
        *visited = nodes[at];
        load_walk(stack, *level, walks, bounds, ub, ib, levels, shape);
    }
    walking
}

/// Takes the walk at most `budget` steps further and says whether it finished; a finished walk
/// is marked `FINISHED`, an unfinished one saved and counted in `unfinished[0]`.
#[cube]
#[allow(clippy::too_many_arguments)]
fn advance_walk<G: DeviceGame>(
    stack: &mut Stack,
    level: &mut u32,
    visited: &mut u32,
    walks: &mut Array<u32>,
    bounds: &mut Array<i32>,
    unfinished: &mut Array<Atomic<u32>>,
    ub: usize,
    ib: usize,
    budget: u32,
    depth: u32,
    #[comptime] shape: WalkShape,
) -> bool {
    let (words, packed) = comptime!((shape.words, shape.packed));
    let levels = u32::max(depth, 1u32) as usize;
    let done = negamax_steps::<G>(stack, level, visited, budget, depth, words, packed);
    if done {
        walks[ub + levels * comptime!(words + 2)] = FINISHED;
    } else {
        save_walk(stack, *level, walks, bounds, ub, ib, levels, shape);
        unfinished[0].fetch_add(1u32);
    }
    done
}

/// One launch's work on a unit's walk: the walk the kernel has just opened (`opened`), or on a
/// later launch (`fresh` false) the one saved at `ub`/`ib`, if any, taken at most `budget`
/// steps further. Says whether it finished in this launch (its value is then
/// `stack.best(0)`); `nodes[at]` gets the positions visited by any walk that was under way
/// (`visited` so far, for one just opened).
#[cube]
#[allow(clippy::too_many_arguments)]
fn run_walk<G: DeviceGame>(
    stack: &mut Stack,
    visited: u32,
    opened: bool,
    fresh: bool,
    nodes: &mut Array<u32>,
    saved: &mut SavedWalks,
    at: usize,
    ub: usize,
    ib: usize,
    budget: u32,
    depth: u32,
    #[comptime] shape: WalkShape,
) -> bool {
    let levels = u32::max(depth, 1u32) as usize;
    let mut level: u32 = 0u32;
    let mut visited = visited;
    let mut walking = opened;
    if !fresh {
        walking = resume_walk(
            stack,
            &mut level,
            &mut visited,
            nodes,
            &saved.walks,
            &saved.bounds,
            at,
            ub,
            ib,
            levels,
            shape,
        );
    }
    let mut finished = false;
    if walking {
        finished = advance_walk::<G>(
            stack,
            &mut level,
            &mut visited,
            &mut saved.walks,
            &mut saved.bounds,
            &mut saved.unfinished,
            ub,
            ib,
            budget,
            depth,
            shape,
        );
        nodes[at] = visited;
    }
    finished
}

/// `values[r]` = negamax(root r, `depth`) in the window (`windows[2r]`, `windows[2r + 1]`);
/// `nodes[r]` = the positions visited, root included, once every walk has finished. A launch
/// takes each walk at most `budget` steps; an unfinished walk stays in `walks`/`bounds` (see
/// `walk_words`) and adds one to `unfinished[0]`. The first launch (`fresh` = 1) opens the walks.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn subtree_kernel<G: DeviceGame>(
    roots: &Array<u32>,
    windows: &Array<i32>,
    values: &mut Array<i32>,
    nodes: &mut Array<u32>,
    saved: &mut SavedWalks,
    count: u32,
    budget: u32,
    fresh: u32,
    depth: u32,
    #[comptime] capacity: usize,
    #[comptime] words: usize,
) {
    let root = ABSOLUTE_POS as u32;
    if root < count {
        let r = root as usize;
        let levels = u32::max(depth, 1u32) as usize;
        let ustride = levels * comptime!(words + 2) + 1;
        let (ub, ib) = (r * ustride, r * 3 * levels);
        let mut stack = Stack::new(capacity, words, false);
        let mut walking = false;
        if fresh == 1u32 {
            let state = G::load(roots, r * words);
            let mut value: i32 = G::score(&state);
            if depth > 0 {
                walking = negamax_open::<G>(
                    &state,
                    windows[2 * r],
                    windows[2 * r + 1],
                    &mut stack,
                    &mut value,
                    false,
                );
            }
            if !walking {
                values[r] = value;
                nodes[r] = 1u32;
                saved.walks[ub + ustride - 1] = FINISHED;
            }
        }
        let shape = comptime!(WalkShape {
            words,
            packed: false
        });
        if run_walk::<G>(
            &mut stack,
            1u32,
            walking,
            fresh == 1u32,
            nodes,
            saved,
            r,
            ub,
            ib,
            budget,
            depth,
            shape,
        ) {
            values[r] = stack.best(0, false);
        }
    }
}

/// Fail-soft negamax values of every root to `depth` in its window (the full window when
/// `windows` is empty), one unit a root, and the positions visited; the walks are cut into
/// launches as the walker's slicing says and kept in its memory between them.
pub fn launch_subtrees<R: Runtime, G: GpuGame>(
    walker: Walker<'_, R>,
    game: &G,
    roots: &[G::State],
    windows: &[(i32, i32)],
    depth: u32,
) -> Result<(Vec<i32>, u64)> {
    let Walker {
        client,
        slicing,
        memory,
        stop,
    } = walker;
    let bounds: Vec<i32> = if windows.is_empty() {
        [-INFINITY, INFINITY].repeat(roots.len())
    } else {
        assert_eq!(windows.len(), roots.len(), "one window a root");
        windows.iter().flat_map(|&(a, b)| [a, b]).collect()
    };
    let (ustride, istride) = walk_words(depth, G::STATE_WORDS);
    let at_once = slicing.roots_at_once(4 * (ustride + istride));
    let (mut values, mut nodes) = (Vec::with_capacity(roots.len()), 0);
    for (turn, bounds) in roots.chunks(at_once).zip(bounds.chunks(2 * at_once)) {
        let walks = [
            memory.buffer(client, 0, turn.len() * ustride * 4),
            memory.buffer(client, 1, turn.len() * istride * 4),
        ];
        let turns = Turns {
            client,
            steps: slicing.steps,
            stop,
        };
        let (v, n) = subtree_turn::<R, G>(turns, game, turn, bounds, depth, walks)?;
        values.extend(v);
        nodes += n;
    }
    Ok((values, nodes))
}

/// One turn of [`launch_subtrees`]: launches until every walk of `roots` has finished.
fn subtree_turn<R: Runtime, G: GpuGame>(
    turns: Turns<'_, R>,
    game: &G,
    roots: &[G::State],
    bounds: &[i32],
    depth: u32,
    [walks, stacks]: [cubecl::server::Handle; 2],
) -> Result<(Vec<i32>, u64)> {
    let Turns {
        client,
        steps,
        stop,
    } = turns;
    let roots_handle = upload(client, &game.encode_all(roots));
    let windows_handle = upload(
        client,
        &bounds.iter().map(|&v| v as u32).collect::<Vec<_>>(),
    );
    let values = client.empty(roots.len() * 4);
    let nodes = client.empty(roots.len() * 4);
    let (ustride, istride) = walk_words(depth, G::STATE_WORDS);
    let (count, dim) = grid(client, roots.len());
    launch_until_done(client, stop, |fresh, unfinished| {
        // SAFETY: units past `roots.len()` return at once; unit r touches only its own strides
        // of `walks` and `stacks` and its own results; the walk stays within `depth` levels.
        unsafe {
            subtree_kernel::launch_unchecked::<G::Device, R>(
                client,
                count.clone(),
                dim,
                ArrayArg::from_raw_parts(roots_handle.clone(), roots.len() * G::STATE_WORDS),
                ArrayArg::from_raw_parts(windows_handle.clone(), 2 * roots.len()),
                ArrayArg::from_raw_parts(values.clone(), roots.len()),
                ArrayArg::from_raw_parts(nodes.clone(), roots.len()),
                SavedWalksLaunch::new(
                    ArrayArg::from_raw_parts(walks.clone(), roots.len() * ustride),
                    ArrayArg::from_raw_parts(stacks.clone(), roots.len() * istride),
                    ArrayArg::from_raw_parts(unfinished, 1),
                ),
                roots.len() as u32,
                steps.max(1),
                u32::from(fresh),
                depth,
                stack_capacity(depth),
                G::STATE_WORDS,
            );
        }
    })?;
    let values = read::<R, i32>(client, values)?;
    let nodes = read::<R, u32>(client, nodes)?;
    Ok((values, nodes.iter().map(|&n| u64::from(n)).sum()))
}

/// The first half of the seed's root shapes: cube `m` takes root move `m`, unit `u` second-level
/// move `u`, and each unit searches its grandchild to `depth − 2` in the full window (`packed`:
/// the v2 stack), writing the reply's value for the side to move after the root move to
/// `replies[m·units + u]` (−∞ for a move that does not exist). Walks resume as in
/// [`subtree_kernel`](fn@subtree_kernel).
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn root_walk_kernel<G: DeviceGame>(
    root: &Array<u32>,
    replies: &mut Array<i32>,
    nodes: &mut Array<u32>,
    saved: &mut SavedWalks,
    budget: u32,
    fresh: u32,
    depth: u32,
    #[comptime] capacity: usize,
    #[comptime] words: usize,
    #[comptime] units: u32,
    #[comptime] packed: bool,
) {
    let mv = CUBE_POS as u32;
    let unit = UNIT_POS;
    let slot = (mv * units + unit) as usize;
    let below = u32::max(depth, 2u32) - 2u32;
    let levels = u32::max(below, 1u32) as usize;
    let ustride = levels * comptime!(words + 2) + 1;
    let (ub, ib) = (slot * ustride, slot * 3 * levels);
    let mut stack = Stack::new(capacity, words, packed);
    let mut visited: u32 = 0u32;
    let mut walking = false;
    if fresh == 1u32 {
        let start = G::load(root, 0);
        let mut reply: i32 = 0i32;
        let mut grandchild = G::load(root, 0);
        let mut exists = mv < G::move_count(&start);
        if exists {
            G::play(&mut grandchild, mv);
            exists = unit < G::move_count(&grandchild);
        }
        if !exists {
            // (A `let` of a negative constant does not compile in `#[cube]` code.)
            reply -= INFINITY;
        } else {
            G::play(&mut grandchild, unit);
            visited = 1u32;
            let mut value: i32 = G::score(&grandchild);
            if depth > 2 {
                walking = negamax_open::<G>(
                    &grandchild,
                    -INFINITY,
                    INFINITY,
                    &mut stack,
                    &mut value,
                    packed,
                );
            }
            reply = -value;
        }
        if !walking {
            replies[slot] = reply;
            nodes[slot] = visited;
            saved.walks[ub + ustride - 1] = FINISHED;
        }
    }
    if run_walk::<G>(
        &mut stack,
        visited,
        walking,
        fresh == 1u32,
        nodes,
        saved,
        slot,
        ub,
        ib,
        budget,
        below,
        comptime!(WalkShape { words, packed }),
    ) {
        replies[slot] = -stack.best(0, packed);
    }
}

/// The second half: cube `m` keeps the best of its replies in shared memory. With
/// `on_device`, unit 0 of each cube folds its move into `best` with an atomic maximum of
/// `(value + 2²³) << 8 | (255 − m)` (ties to the earlier move); otherwise it writes
/// `values[m]`, the root move's value for the side to move at the root.
#[cube(launch_unchecked)]
pub fn root_reduce_kernel<G: DeviceGame>(
    root: &Array<u32>,
    replies: &Array<i32>,
    values: &mut Array<i32>,
    best: &mut Array<Atomic<u32>>,
    #[comptime] units: u32,
    #[comptime] on_device: bool,
) {
    let mv = CUBE_POS as u32;
    let unit = UNIT_POS;
    let mut shared = SharedMemory::<i32>::new(comptime!(units as usize));
    shared[unit as usize] = replies[(mv * units + unit) as usize];
    sync_cube();
    // A runtime stride (a mutable comptime value does not compile to a loop).
    let mut stride: u32 = CUBE_DIM / 2u32;
    while stride > 0u32 {
        if unit < stride {
            shared[unit as usize] =
                i32::max(shared[unit as usize], shared[(unit + stride) as usize]);
        }
        sync_cube();
        stride /= 2u32;
    }
    let start = G::load(root, 0);
    if unit == 0 && mv < G::move_count(&start) {
        let mut child = G::load(root, 0);
        G::play(&mut child, mv);
        // A finished child is scored directly; otherwise the root side gets minus the best reply.
        let value = select(G::move_count(&child) == 0, -G::score(&child), -shared[0]);
        if comptime!(on_device) {
            let key = (u32::cast_from(value + 8_388_608i32) << 8u32) | (255u32 - mv);
            best[0].fetch_max(key);
        } else {
            values[mv as usize] = value;
        }
    }
}

/// The seed's root-search shapes: one cube per root move, one unit per reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootShape {
    /// Each root move's value comes back; the host picks the best.
    V1,
    /// v1 with the seed's compact stack: two words of counters a level instead of five.
    V2,
    /// The reduction over root moves on the device too: one word comes back.
    V4,
}

/// What a root search returns: the best move's index in canonical order and the root's value,
/// and per root move values where the strategy brings them back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootSearch {
    /// Index of the best root move (the first of equals).
    pub best: u32,
    /// The root's negamax value.
    pub value: i32,
    /// Each root move's value (v1 and v2).
    pub move_values: Vec<i32>,
    /// Positions visited, root included (v1 and v2; v4 brings back only its one word).
    pub nodes: Option<u64>,
}

/// Searches `root` to `depth ≥ 2` in the given shape: a cube a root move, as many units as the
/// most replies any root move has (rounded up to a power of two). The root must have a legal
/// move. The units' walks are cut into launches as the walker's slicing says and kept in its memory between
/// them.
pub fn launch_root_search<R: Runtime, G: GpuGame>(
    walker: Walker<'_, R>,
    game: &G,
    root: &G::State,
    depth: u32,
    shape: RootShape,
) -> Result<RootSearch> {
    let Walker {
        client,
        slicing,
        memory,
        stop,
    } = walker;
    let moves = game.moves(root);
    let root_moves = moves.len() as u32;
    let max_replies = moves
        .iter()
        .map(|&m| game.moves(&game.apply(root, m)).len() as u32)
        .max()
        .unwrap_or(0);
    if depth < 2 || root_moves == 0 || root_moves > 256 {
        return Err(Error::Unsupported(format!(
            "root search needs depth ≥ 2 and 1..=256 root moves (depth {depth}, {root_moves} moves)"
        )));
    }
    let units = max_replies.max(1).next_power_of_two();
    if units > client.properties().hardware.max_units_per_cube
        || (shape == RootShape::V2 && units > 256)
    {
        return Err(Error::Unsupported(format!(
            "{max_replies} replies do not fit in one cube"
        )));
    }
    if shape == RootShape::V2 && G::MAX_SCORE > PACKED_LIMIT {
        return Err(Error::Unsupported(format!(
            "v2 packs values into 16 bits, and {} scores are not bounded by {PACKED_LIMIT}; use v1, v4 or split",
            G::NAME
        )));
    }
    let on_device = shape == RootShape::V4;
    let packed = shape == RootShape::V2;
    let slots = (root_moves * units) as usize;
    let root_handle = upload(client, &game.encode_all(std::slice::from_ref(root)));
    let values = upload(client, &vec![0u32; root_moves as usize]);
    let best = upload(client, &[0u32]);
    let replies = client.empty(slots * 4);
    let nodes = client.empty(slots * 4);
    let (ustride, istride) = walk_words(depth.saturating_sub(2), G::STATE_WORDS);
    let walks = memory.buffer(client, 0, slots * ustride * 4);
    let stacks = memory.buffer(client, 1, slots * istride * 4);
    launch_until_done(client, stop, |fresh, unfinished| {
        // SAFETY: unit u of cube m touches only slot m·units + u of `replies`, `nodes` and the
        // walk memory; its walk stays within `depth − 2` levels.
        unsafe {
            root_walk_kernel::launch_unchecked::<G::Device, R>(
                client,
                CubeCount::Static(root_moves, 1, 1),
                CubeDim::new_1d(units),
                ArrayArg::from_raw_parts(root_handle.clone(), G::STATE_WORDS),
                ArrayArg::from_raw_parts(replies.clone(), slots),
                ArrayArg::from_raw_parts(nodes.clone(), slots),
                SavedWalksLaunch::new(
                    ArrayArg::from_raw_parts(walks.clone(), slots * ustride),
                    ArrayArg::from_raw_parts(stacks.clone(), slots * istride),
                    ArrayArg::from_raw_parts(unfinished, 1),
                ),
                slicing.steps.max(1),
                u32::from(fresh),
                depth,
                stack_capacity(depth.saturating_sub(2)),
                G::STATE_WORDS,
                units,
                packed,
            );
        }
    })?;
    // SAFETY: cube m reads its `units` replies and writes values[m]; shared memory holds `units`
    // values.
    unsafe {
        root_reduce_kernel::launch_unchecked::<G::Device, R>(
            client,
            CubeCount::Static(root_moves, 1, 1),
            CubeDim::new_1d(units),
            ArrayArg::from_raw_parts(root_handle, G::STATE_WORDS),
            ArrayArg::from_raw_parts(replies, slots),
            ArrayArg::from_raw_parts(values.clone(), root_moves as usize),
            ArrayArg::from_raw_parts(best.clone(), 1),
            units,
            on_device,
        );
    }
    if on_device {
        let key = read::<R, u32>(client, best)?[0];
        return Ok(RootSearch {
            best: 255 - (key & 0xFF),
            value: (key >> 8) as i32 - (1 << 23),
            move_values: Vec::new(),
            nodes: None,
        });
    }
    let move_values = read::<R, i32>(client, values)?;
    let below: u64 = read::<R, u32>(client, nodes)?
        .iter()
        .map(|&n| u64::from(n))
        .sum();
    let (best, value) = first_max(&move_values);
    Ok(RootSearch {
        best,
        value,
        move_values,
        // The root and its children are not walked by any unit.
        nodes: Some(1 + u64::from(root_moves) + below),
    })
}

/// The index and value of the first maximum.
pub fn first_max(values: &[i32]) -> (u32, i32) {
    values.iter().enumerate().fold(
        (0, i32::MIN),
        |(bi, bv), (i, &v)| if v > bv { (i as u32, v) } else { (bi, bv) },
    )
}
