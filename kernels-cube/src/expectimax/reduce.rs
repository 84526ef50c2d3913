//! The reduction per parent (seed Algorithm 2), and the root step.
//!
//! A block is the children one layer under an afterstate, unit `u` holding child
//! `u = outcome·A + action` (`A` action slots, see [`TreeShape`]). [`fold_block()`] folds them
//! in two steps: the max over each outcome's actions (in shared memory, or with plane shuffles
//! where the device has 32-unit planes and an outcome's actions lie in one plane; a max
//! rounds nothing, so either order gives the same bits), then the weighted mean over the
//! possible outcomes, which unit 0 forms in one fixed order:
//!
//! ```text
//!   sum = 0.0;  W = 0
//!   for each outcome slot o, lowest first:   (impossible slots add +0.0 and weigh 0)
//!       sum = sum + f32(w(o)) · v(o);  W = W + w(o)
//!   mean = sum · reciprocal_weight(W)      (host-rounded 1/W from a table: no division)
//! ```
//!
//! the CPU search's operations exactly (`cubesearch_search::expectimax`), so every backend
//! gives the same bits. Each product is made by its outcome's unit and added by unit 0 after a
//! barrier, so no compiler can fuse the multiply into the add (CUDA contracts `a·b + c` into
//! one fused multiply-add by default, which rounds once instead of twice).

use super::{clear_counters, TreeShape};
use crate::launch::PLANE;
use crate::stochastic::DeviceStochasticGame;
use cubecl::prelude::*;

impl TreeShape {
    /// Whether an outcome's action max can use plane shuffles on [`PLANE`]-unit planes:
    /// a whole number of planes, each outcome's action slots inside one.
    pub fn plane_fold_fits(self) -> bool {
        self.block().is_multiple_of(PLANE) && self.action_slots() <= PLANE
    }
}

/// One tree entry: the value (rewards along the valid prefix, plus V at a whole path) and the
/// number of valid leading digits.
#[derive(CubeType, Clone, Copy)]
pub struct Entry {
    pub value: f32,
    pub len: u32,
}

/// The mark of a deepest afterstate that is a transposition of another: its len is
/// `COPY | the other's node number`, and its entry is the other's
/// ([`super::multilevel::transpositions_kernel()`]). Lens are otherwise small.
pub const COPY: u32 = 1 << 31;

/// Entry `at` of a level, read through a [`COPY`] mark.
#[cube]
pub fn entry_at(values: &Array<f32>, lens: &Array<u32>, at: usize) -> Entry {
    let mut at = at;
    let len = lens[at];
    if len >= COPY {
        at = (len ^ COPY) as usize;
    }
    Entry {
        value: values[at],
        len: lens[at],
    }
}

/// Folds the block whose child this unit holds (`value`, `len`) into the parent's entry,
/// returned to unit 0 (the other units get partial results). Every unit of the cube must call
/// it. An action child is valid when its len is at least `action_len`, an outcome child when at
/// least `action_len − 1`. A player node with no valid action keeps its prefix rewards (a
/// finished game is worth no more); an afterstate with no possible outcome keeps them too.
/// `recips` is the table of [`cubesearch_core::reciprocal_weight`] by total weight; the len
/// passed up is the largest. Plane shuffles for the max only where the block fits them
/// ([`TreeShape::plane_fold_fits`]).
#[cube]
pub fn fold_block<G: DeviceStochasticGame>(
    value: f32,
    len: u32,
    recips: &Array<f32>,
    action_len: u32,
    #[comptime] tree: TreeShape,
    #[comptime] plane_ops: bool,
) -> Entry {
    let best = if comptime!(plane_ops && tree.plane_fold_fits()) {
        max_with_planes(value, len, action_len, tree)
    } else {
        max_in_shared(value, len, action_len, tree)
    };
    mean_over_outcomes::<G>(best, recips, action_len, tree, plane_ops)
}

/// Of two action children, the better valid one (the len is the larger either way).
#[cube]
fn better_action(a: Entry, b: Entry, action_len: u32) -> Entry {
    let take = b.len >= action_len && (a.len < action_len || b.value > a.value);
    Entry {
        value: select(take, b.value, a.value),
        len: select(b.len > a.len, b.len, a.len),
    }
}

/// The max over each outcome's actions (the first of equal values), held by the outcome's
/// first unit: a halving tree in shared memory.
#[cube]
fn max_in_shared(value: f32, len: u32, action_len: u32, #[comptime] tree: TreeShape) -> Entry {
    let u = UNIT_POS;
    let action_slots = comptime!(tree.action_slots());
    let mut values = SharedMemory::<f32>::new(comptime!(tree.block() as usize));
    let mut lens = SharedMemory::<u32>::new(comptime!(tree.block() as usize));
    values[u as usize] = value;
    lens[u as usize] = len;
    sync_cube();
    let mut stride = 1u32;
    while stride < action_slots {
        if (u & (2u32 * stride - 1u32)) == 0u32 {
            let o = (u + stride) as usize;
            let mine = Entry {
                value: values[u as usize],
                len: lens[u as usize],
            };
            let other = Entry {
                value: values[o],
                len: lens[o],
            };
            let best = better_action(mine, other, action_len);
            values[u as usize] = best.value;
            lens[u as usize] = best.len;
        }
        sync_cube();
        stride *= 2u32;
    }
    Entry {
        value: values[u as usize],
        len: lens[u as usize],
    }
}

/// The max over each outcome's actions with a butterfly of plane shuffles: every unit of an
/// outcome ends with it, its first unit with the first of equal values.
#[cube]
fn max_with_planes(value: f32, len: u32, action_len: u32, #[comptime] tree: TreeShape) -> Entry {
    let action_slots = comptime!(tree.action_slots());
    let mut best = Entry { value, len };
    let mut mask = 1u32;
    while mask < action_slots {
        let other = Entry {
            value: plane_shuffle_xor(best.value, mask),
            len: plane_shuffle_xor(best.len, mask),
        };
        let better = better_action(best, other, action_len);
        best.value = better.value;
        best.len = better.len;
        mask *= 2u32;
    }
    best
}

/// The weighted mean over the possible outcomes (module docs), from each outcome's best
/// action held by its first unit; returned to unit 0. With no possible outcome the entry is
/// outcome 0's (its prefix rewards). Unit 0 adds the terms in order; the total weight and the
/// deepest len (integers: exact in any order) come from plane ops where the block fits them,
/// so unit 0's serial part is the sum alone.
#[cube]
fn mean_over_outcomes<G: DeviceStochasticGame>(
    best: Entry,
    recips: &Array<f32>,
    action_len: u32,
    #[comptime] tree: TreeShape,
    #[comptime] plane_ops: bool,
) -> Entry {
    let u = UNIT_POS;
    let action_slots = comptime!(tree.action_slots());
    let outcome_slots = comptime!(tree.outcome_slots());
    let with_planes = comptime!(plane_ops && tree.plane_fold_fits());
    // With plane ops each plane's total weight and deepest len, else each outcome's len.
    let planes = comptime!(tree.block() / PLANE);
    let lens_kept = comptime!(if with_planes {
        2 * planes
    } else {
        outcome_slots
    });
    let mut terms = SharedMemory::<f32>::new(comptime!(outcome_slots as usize));
    let mut lens = SharedMemory::<u32>::new(comptime!(lens_kept as usize));
    let action = u % action_slots;
    let speaks = action == 0u32;
    let o = u / action_slots;
    let possible = speaks && best.len + 1u32 >= action_len;
    let w = counted_weight::<G>(o, possible);
    if speaks {
        terms[o as usize] = select(possible, f32::cast_from(w) * best.value, 0.0f32);
    }
    if comptime!(with_planes) {
        let total = plane_sum(w);
        let deepest = plane_max(best.len);
        let lane = u % PLANE;
        if lane == 0u32 {
            let p = u / PLANE;
            lens[(2u32 * p) as usize] = total;
            lens[(2u32 * p + 1u32) as usize] = deepest;
        }
    } else if speaks {
        lens[o as usize] = best.len;
    }
    sync_cube();
    let mut entry = best;
    if u == 0u32 {
        let mut sum = 0.0f32;
        #[unroll]
        for k in 0..outcome_slots {
            sum += terms[k as usize];
        }
        let mut total = 0u32;
        let mut deepest = 0u32;
        if comptime!(with_planes) {
            #[unroll]
            for p in 0..planes {
                total += lens[(2 * p) as usize];
                let l = lens[(2 * p + 1) as usize];
                deepest = select(l > deepest, l, deepest);
            }
        } else {
            #[unroll]
            for k in 0..outcome_slots {
                let l = lens[k as usize];
                total += counted_weight::<G>(k, l + 1u32 >= action_len);
                deepest = select(l > deepest, l, deepest);
            }
        }
        entry.value = select(total > 0u32, sum * recips[total as usize], best.value);
        entry.len = deepest;
    }
    entry
}

/// The weight of outcome slot `outcome` when it `counts`, else 0. A slot that does not count
/// may be a padded one, past the game's outcomes: the game is asked about slot 0 instead.
#[cube]
fn counted_weight<G: DeviceStochasticGame>(outcome: u32, counts: bool) -> u32 {
    select(
        counts,
        G::outcome_weight(select(counts, outcome, 0u32)),
        0u32,
    )
}

/// The entry of afterstate block `first ..` folded ([`fold_block()`]), returned to unit 0.
/// Under an invalid afterstate every child copied its entry (len below the afterstate's
/// `action_len − 2`); the branch is uniform, and the cube takes that entry with no fold.
#[cube]
#[allow(clippy::too_many_arguments)]
pub fn fold_afterstate<G: DeviceStochasticGame>(
    values: &Array<f32>,
    lens: &Array<u32>,
    first: usize,
    recips: &Array<f32>,
    action_len: u32,
    #[comptime] tree: TreeShape,
    #[comptime] plane_ops: bool,
) -> Entry {
    let head = entry_at(values, lens, first);
    let mut value = head.value;
    let mut len = head.len;
    if len + 2u32 >= action_len {
        let child = entry_at(values, lens, first + UNIT_POS as usize);
        let parent = fold_block::<G>(child.value, child.len, recips, action_len, tree, plane_ops);
        value = parent.value;
        len = parent.len;
    }
    Entry { value, len }
}

/// Cube `g` folds the `g`-th block of entries (one afterstate's outcomes × actions) into entry
/// `g` of the level above ([`fold_afterstate()`]). The grid has at least `groups` cubes;
/// those past it do nothing.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn reduce_kernel<G: DeviceStochasticGame>(
    values: &Array<f32>,
    lens: &Array<u32>,
    out_values: &mut Array<f32>,
    out_lens: &mut Array<u32>,
    recips: &Array<f32>,
    action_len: u32,
    groups: u32,
    #[comptime] tree: TreeShape,
    #[comptime] plane_ops: bool,
) {
    let g = CUBE_POS as u32;
    if g < groups {
        let first = (g * comptime!(tree.block())) as usize;
        let parent = fold_afterstate::<G>(values, lens, first, recips, action_len, tree, plane_ops);
        if UNIT_POS == 0u32 {
            out_values[g as usize] = parent.value;
            out_lens[g as usize] = parent.len;
        }
    }
}

/// Words of one root's result in a game of `actions` actions: the best action, the legal
/// actions' bits, then each action's value (f32 bits).
pub fn root_words(actions: u32) -> u32 {
    2 + actions
}

/// A root's best action so far, taken over its action entries in order.
#[derive(CubeType)]
struct RootPick {
    /// The best legal action (`actions` until one is seen), its value, and the legal actions'
    /// bits.
    best: u32,
    top: f32,
    legal: u32,
}

/// No action taken yet: `none` is the game's action count.
#[cube]
fn no_pick(none: u32) -> RootPick {
    RootPick {
        best: none,
        top: 0.0f32,
        legal: 0u32,
    }
}

/// Takes action `a`'s entry (legal when its len ≥ 1; the first of equal values wins) and writes
/// its value word (0 for an illegal action).
#[cube]
fn take_action(
    pick: &mut RootPick,
    out: &mut Array<u32>,
    r: u32,
    a: u32,
    entry: Entry,
    #[comptime] actions: u32,
) {
    let ok = entry.len >= 1u32;
    if ok && (pick.best == actions || entry.value > pick.top) {
        pick.best = a;
        pick.top = entry.value;
    }
    pick.legal |= select(ok, 1u32 << a, 0u32);
    let at = r * comptime!(root_words(actions)) + 2u32 + a;
    out[at as usize] = u32::reinterpret(select(ok, entry.value, 0.0f32));
}

/// Root `r`'s first two words: the best action, the legal actions' bits.
#[cube]
fn finish_root(pick: &RootPick, out: &mut Array<u32>, r: u32, #[comptime] actions: u32) {
    let at = (r * comptime!(root_words(actions))) as usize;
    out[at] = pick.best;
    out[at + 1] = pick.legal;
}

/// Root `r`'s results in `out[W·r .. W·(r + 1)]` ([`root_words`]): the best action (the action
/// count when none is legal), the legal actions' bits (bit `a` set when action `a` is), then
/// each action's value as f32 bits (0 for an illegal one). One buffer, so the host reads every
/// result at once. Unit 0 of the grid also clears the multilevel search's counters for the next
/// search (the kernels that read them are done).
///
/// [`root_kernel()`] takes the action entries of each root as they are (a search with no
/// chance level left); [`root_fold_kernel()`] first folds each action's block of children, so
/// the last reduction and the root step are one launch.
#[cube(launch_unchecked)]
pub fn root_kernel(
    values: &Array<f32>,
    lens: &Array<u32>,
    out: &mut Array<u32>,
    counters: &mut Array<u32>,
    count: u32,
    #[comptime] tree: TreeShape,
) {
    let r = ABSOLUTE_POS as u32;
    if r == 0u32 {
        clear_counters(counters);
    }
    if r < count {
        let actions = comptime!(tree.actions);
        let mut pick = no_pick(actions);
        for a in 0..actions {
            let at = (r * comptime!(tree.action_slots()) + a) as usize;
            let entry = entry_at(values, lens, at);
            take_action(&mut pick, out, r, a, entry, actions);
        }
        finish_root(&pick, out, r, actions);
    }
}

/// Cube `r` folds the blocks of root `r`'s action children ([`fold_afterstate()`]) and writes
/// its results as [`root_kernel()`] does.
#[cube(launch_unchecked)]
#[allow(clippy::too_many_arguments)]
pub fn root_fold_kernel<G: DeviceStochasticGame>(
    values: &Array<f32>,
    lens: &Array<u32>,
    out: &mut Array<u32>,
    counters: &mut Array<u32>,
    recips: &Array<f32>,
    action_len: u32,
    count: u32,
    #[comptime] tree: TreeShape,
    #[comptime] plane_ops: bool,
) {
    let r = CUBE_POS as u32;
    if ABSOLUTE_POS == 0 {
        clear_counters(counters);
    }
    if r < count {
        let actions = comptime!(tree.actions);
        let mut pick = no_pick(actions);
        for a in 0..actions {
            let node = r * comptime!(tree.action_slots()) + a;
            let first = (node * comptime!(tree.block())) as usize;
            let entry =
                fold_afterstate::<G>(values, lens, first, recips, action_len, tree, plane_ops);
            if UNIT_POS == 0u32 {
                take_action(&mut pick, out, r, a, entry, actions);
            }
            // The next fold reuses the shared slots this one read.
            sync_cube();
        }
        if UNIT_POS == 0u32 {
            finish_root(&pick, out, r, actions);
        }
    }
}
