//! Depth-limited negamax with alpha-beta on the device, generic over the device game: an
//! iterative walk over an explicit stack (no recursion on GPUs), and the kernels built on it.
//!
//! * [`subtree_kernel`]: one unit per root, full window: the `SubtreeSearch` executor and the
//!   leaf step of the `split` strategy.
//! * [`root_kernel`]: the seed's v1 and v4 shape: one cube per root move, one unit per
//!   second-level move, a shared-memory maximum in the cube; v1 returns each root move's value,
//!   v4 also reduces over the root moves on the device and returns only the best move and value.

use crate::device_game::{DeviceGame, GpuGame, ONGOING};
use crate::launch::{grid, read, upload};
use cubecl::prelude::*;
use cubesearch_core::{Error, Result};

/// Larger than any score: the window's infinity.
pub const INFINITY: i32 = 1 << 22;

/// The negamax value of `root` searched `depth ≥ 1` plies, from its side to move. Leaves and
/// finished games are scored by `G::score`.
#[cube]
pub fn negamax<G: DeviceGame>(
    root: &G::State,
    #[comptime] depth: u32,
    #[comptime] words: usize,
) -> i32 {
    let mut result: i32 = G::score(root);
    let moves = G::move_count(root);
    if moves > 0 && G::outcome(root) == ONGOING {
        let levels = comptime!(depth as usize);
        let mut boards = Array::<u32>::new(comptime!(levels * words));
        let mut next = Array::<u32>::new(levels);
        let mut counts = Array::<u32>::new(levels);
        let mut alpha = Array::<i32>::new(levels);
        let mut beta = Array::<i32>::new(levels);
        let mut best = Array::<i32>::new(levels);
        G::store(root, &mut boards, 0);
        next[0] = 0u32;
        counts[0] = moves;
        alpha[0] = -INFINITY;
        beta[0] = INFINITY;
        best[0] = -INFINITY;
        let mut level: u32 = 0u32;
        let last = comptime!(depth - 1);
        let mut done = false;
        while !done {
            let l = level as usize;
            if next[l] < counts[l] && alpha[l] < beta[l] {
                let mut child = G::load(&boards, l * words);
                G::play(&mut child, next[l]);
                next[l] += 1u32;
                let child_moves = G::move_count(&child);
                if level == last || child_moves == 0 {
                    let value = -G::score(&child);
                    best[l] = i32::max(best[l], value);
                    alpha[l] = i32::max(alpha[l], value);
                } else {
                    let down = l + 1;
                    G::store(&child, &mut boards, down * words);
                    next[down] = 0u32;
                    counts[down] = child_moves;
                    alpha[down] = -beta[l];
                    beta[down] = -alpha[l];
                    best[down] = -INFINITY;
                    level += 1u32;
                }
            } else if level == 0 {
                result = best[0];
                done = true;
            } else {
                let value = -best[l];
                let up = l - 1;
                best[up] = i32::max(best[up], value);
                alpha[up] = i32::max(alpha[up], value);
                level -= 1u32;
            }
        }
    }
    result
}

/// `values[r]` = negamax(root r, `depth`).
#[cube(launch_unchecked)]
pub fn subtree_kernel<G: DeviceGame>(
    roots: &Array<u32>,
    values: &mut Array<i32>,
    count: u32,
    #[comptime] depth: u32,
    #[comptime] words: usize,
) {
    let root = ABSOLUTE_POS as u32;
    if root < count {
        let state = G::load(roots, root as usize * words);
        let mut value: i32 = G::score(&state);
        if comptime!(depth > 0) {
            value = negamax::<G>(&state, depth, words);
        }
        values[root as usize] = value;
    }
}

/// Negamax values of every root to `depth`, one unit a root.
pub fn launch_subtrees<R: Runtime, G: GpuGame>(
    client: &ComputeClient<R>,
    game: &G,
    roots: &[G::State],
    depth: u32,
) -> Result<Vec<i32>> {
    if roots.is_empty() {
        return Ok(Vec::new());
    }
    let roots_handle = upload(client, &game.encode_all(roots));
    let values = client.empty(roots.len() * 4);
    let (count, dim) = grid(client, roots.len());
    // SAFETY: units past `roots.len()` return at once; the walk stays within `depth` levels.
    unsafe {
        subtree_kernel::launch_unchecked::<G::Device, R>(
            client,
            count,
            dim,
            ArrayArg::from_raw_parts(roots_handle, roots.len() * G::STATE_WORDS),
            ArrayArg::from_raw_parts(values.clone(), roots.len()),
            roots.len() as u32,
            depth,
            G::STATE_WORDS,
        );
    }
    read::<R, i32>(client, values)
}

/// Cube `m` takes root move `m`, unit `u` second-level move `u`; each unit searches its
/// grandchild to `depth − 2` and the cube keeps the best reply in shared memory. With
/// `on_device`, unit 0 of each cube folds its move into `best` with an atomic maximum of
/// `(value + 2²³) << 8 | (255 − m)` (ties to the earlier move); otherwise it writes
/// `values[m]`, the root move's value for the side to move at the root.
#[cube(launch_unchecked)]
pub fn root_kernel<G: DeviceGame>(
    root: &Array<u32>,
    values: &mut Array<i32>,
    best: &mut Array<Atomic<u32>>,
    #[comptime] depth: u32,
    #[comptime] words: usize,
    #[comptime] units: u32,
    #[comptime] on_device: bool,
) {
    let mv = CUBE_POS as u32;
    let unit = UNIT_POS;
    let start = G::load(root, 0);
    let root_moves = G::move_count(&start);
    let mut replies = SharedMemory::<i32>::new(comptime!(units as usize));
    let mut child = G::load(root, 0);
    let mut child_moves: u32 = 0u32;
    if mv < root_moves {
        G::play(&mut child, mv);
        child_moves = G::move_count(&child);
    }
    // The best reply's value for the side to move after the root move.
    // (A `let` of a negative constant does not compile in `#[cube]` code; start from 0.)
    let mut reply: i32 = 0i32;
    if mv >= root_moves || unit >= child_moves {
        reply -= INFINITY;
    } else {
        let mut grandchild = G::load(root, 0);
        G::play(&mut grandchild, mv);
        G::play(&mut grandchild, unit);
        if comptime!(depth > 2) {
            reply = -negamax::<G>(&grandchild, comptime!(depth - 2), words);
        } else {
            reply = -G::score(&grandchild);
        }
    }
    replies[unit as usize] = reply;
    sync_cube();
    // A runtime stride (a mutable comptime value does not compile to a loop).
    let mut stride: u32 = CUBE_DIM / 2u32;
    while stride > 0u32 {
        if unit < stride {
            replies[unit as usize] =
                i32::max(replies[unit as usize], replies[(unit + stride) as usize]);
        }
        sync_cube();
        stride /= 2u32;
    }
    if unit == 0 && mv < root_moves {
        // A finished child is scored directly; otherwise the root side gets minus the best reply.
        let value = select(child_moves == 0, -G::score(&child), -replies[0]);
        if comptime!(on_device) {
            let key = (u32::cast_from(value + 8_388_608i32) << 8u32) | (255u32 - mv);
            best[0].fetch_max(key);
        } else {
            values[mv as usize] = value;
        }
    }
}

/// What a root search returns: the best move's index in canonical order and the root's value,
/// and per root move values where the strategy brings them back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootSearch {
    /// Index of the best root move (the first of equals).
    pub best: u32,
    /// The root's negamax value.
    pub value: i32,
    /// Each root move's value (v1 only).
    pub move_values: Vec<i32>,
}

/// The seed's v1 (`on_device = false`: per-move values come back, the host picks the best) and
/// v4 (`on_device = true`: one word comes back). `max_replies` bounds the second-level moves
/// (it sets the cube size); `depth ≥ 2`. The root must have a legal move.
pub fn launch_root_search<R: Runtime, G: GpuGame>(
    client: &ComputeClient<R>,
    game: &G,
    root: &G::State,
    root_moves: u32,
    max_replies: u32,
    depth: u32,
    on_device: bool,
) -> Result<RootSearch> {
    if depth < 2 || root_moves == 0 || root_moves > 256 {
        return Err(Error::Unsupported(format!(
            "root search needs depth ≥ 2 and 1..=256 root moves (depth {depth}, {root_moves} moves)"
        )));
    }
    let units = max_replies.max(1).next_power_of_two();
    if units > client.properties().hardware.max_units_per_cube {
        return Err(Error::Unsupported(format!(
            "{max_replies} replies do not fit in one cube"
        )));
    }
    let root_handle = upload(client, &game.encode_all(std::slice::from_ref(root)));
    let values = upload(client, &vec![0u32; root_moves as usize]);
    let best = upload(client, &[0u32]);
    // SAFETY: cubes past the root moves and units past the replies write nothing but their
    // shared-memory slot; shared memory holds `units` values.
    unsafe {
        root_kernel::launch_unchecked::<G::Device, R>(
            client,
            CubeCount::Static(root_moves, 1, 1),
            CubeDim::new_1d(units),
            ArrayArg::from_raw_parts(root_handle, G::STATE_WORDS),
            ArrayArg::from_raw_parts(values.clone(), root_moves as usize),
            ArrayArg::from_raw_parts(best.clone(), 1),
            depth,
            G::STATE_WORDS,
            units,
            on_device,
        );
    }
    if on_device {
        let key = read::<R, u32>(client, best)?[0];
        Ok(RootSearch {
            best: 255 - (key & 0xFF),
            value: (key >> 8) as i32 - (1 << 23),
            move_values: Vec::new(),
        })
    } else {
        let move_values = read::<R, i32>(client, values)?;
        let (best, value) = first_max(&move_values);
        Ok(RootSearch {
            best,
            value,
            move_values,
        })
    }
}

/// The index and value of the first maximum.
pub fn first_max(values: &[i32]) -> (u32, i32) {
    values.iter().enumerate().fold(
        (0, i32::MIN),
        |(bi, bv), (i, &v)| if v > bv { (i as u32, v) } else { (bi, bv) },
    )
}
