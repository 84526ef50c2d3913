//! Choosing a move: every lane values its share of the afterstates' lookups, spread one
//! afterstate a lane (`spread_moves`) or in four groups of eight lanes (`grouped_moves`), and
//! the game takes the best `reward + V` (ties to the first action in canonical order).

use super::lanes::{held_value, plane_index, plane_round, plane_total, plane_weight_used, LANES};
use crate::ntuple::stage_base;
use crate::stochastic::DeviceStochasticGame;
use cubecl::prelude::*;

/// The best move so far among a state's candidates: found or not, its `reward + V`, its
/// action and reward.
#[derive(CubeType, Clone, Copy)]
pub(super) struct Best {
    pub(super) found: bool,
    pub(super) value: f32,
    pub(super) action: u32,
    pub(super) reward: u32,
}

/// Candidate action `a`, made by lane `a` of the plane ([`spread_moves`]): its legality, reward
/// and stage come from that lane, and this lane's cell of the afterstate is `held`; a legal
/// one is valued and kept in `best` if better (the first of equal values).
#[cube]
#[allow(clippy::too_many_arguments)]
pub(super) fn consider_spread<G: DeviceStochasticGame, F: Float>(
    own: &G::State,
    a: u32,
    held: u32,
    legal: u32,
    reward: u32,
    stage: u32,
    best: &mut Best,
    frozen: &Array<F>,
    live: &Array<Atomic<f32>>,
    lut: &Array<u32>,
    lookups: u32,
    lane: u32,
    pool: &mut SharedMemory<f32>,
    cells: &mut SharedMemory<u32>,
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] averaged: bool,
) {
    if plane_shuffle(legal, a) == 1u32 {
        let r = plane_shuffle(reward, a);
        // `own` stands in for afterstate `a`: with the cells pooled it is not read.
        let v = f32::cast_from(r)
            + held_value::<G, F>(
                own,
                held,
                plane_shuffle(stage, a),
                frozen,
                live,
                lut,
                lookups,
                lane,
                pool,
                cells,
                len,
                bits,
                averaged,
                true,
                true,
            );
        if !best.found || v > best.value {
            best.found = true;
            best.value = v;
            best.action = a;
            best.reward = r;
        }
    }
}

/// [`consider_spread`] for a V of one round of lookups whose weight `w` this lane already
/// read (at [`plane_index`], for afterstate `a`): the sum [`held_value`] makes of it.
#[cube]
pub(super) fn consider_read(
    a: u32,
    w: f32,
    legal: u32,
    reward: u32,
    best: &mut Best,
    lane: u32,
    lookups: u32,
) {
    if plane_shuffle(legal, a) == 1u32 {
        let r = plane_shuffle(reward, a);
        let v = f32::cast_from(r)
            + plane_total(plane_round(
                0.0,
                plane_weight_used(w, lane, lookups),
                lane,
                lookups,
            ));
        if !best.found || v > best.value {
            best.found = true;
            best.value = v;
            best.action = a;
            best.reward = r;
        }
    }
}

/// The greedy move from `own` (a copy of the state, which becomes this lane's afterstate) of a
/// game of four actions whose lanes hold the cells through planes: lane `k` plays action
/// `k mod 4` only, where every lane used to play all four (the moves are most
/// of the kernel's integer work, Nsight Compute, docs/BENCHMARKS.md). The lanes of a group of
/// four hold the four afterstates; in round `r` each lane takes cell `group + r` of its own
/// afterstate and the group's lane `group + a` hands it to the lane `group + r`, which holds
/// that cell (`held_cell`: cells past `top` read as `top`). The values are the sequential
/// loop's, in its order. With one round of lookups a V in an averaged launch (`one_round`),
/// the four afterstates' weights are asked for together before any is added
/// ([`consider_read`]), instead of each V waiting for its own.
#[cube]
#[allow(clippy::too_many_arguments)]
pub(super) fn spread_moves<G: DeviceStochasticGame, F: Float>(
    own: &mut G::State,
    frozen: &Array<F>,
    live: &Array<Atomic<f32>>,
    lut: &Array<u32>,
    row: &Array<u32>,
    lookups: u32,
    lane: u32,
    top: u32,
    pool: &mut SharedMemory<f32>,
    cells: &mut SharedMemory<u32>,
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] averaged: bool,
    #[comptime] one_round: bool,
) -> Best {
    let mine = lane & 3u32;
    let group = lane - mine;
    let acted = G::act(own, mine);
    let legal = select(acted.legal, 1u32, 0u32);
    let stage = stage_base::<G>(own, lut, lookups, len);
    let mut h0 = 0u32;
    let mut h1 = 0u32;
    let mut h2 = 0u32;
    let mut h3 = 0u32;
    #[unroll]
    for r in 0..4u32 {
        let x = G::cell(own, select(group + r < top, group + r, top));
        let y0 = plane_shuffle(x, group);
        let y1 = plane_shuffle(x, group + 1u32);
        let y2 = plane_shuffle(x, group + 2u32);
        let y3 = plane_shuffle(x, group + 3u32);
        let here = mine == r;
        h0 = select(here, y0, h0);
        h1 = select(here, y1, h1);
        h2 = select(here, y2, h2);
        h3 = select(here, y3, h3);
    }
    let mut best = Best {
        found: false,
        value: 0.0f32,
        action: 0u32,
        reward: 0u32,
    };
    if comptime!(one_round && averaged) {
        // Lanes past the last lookup read the last one's weight too (dropped in the sum).
        let w0 =
            f32::cast_from(frozen[plane_index(h0, row, plane_shuffle(stage, 0u32), len, bits)]);
        let w1 =
            f32::cast_from(frozen[plane_index(h1, row, plane_shuffle(stage, 1u32), len, bits)]);
        let w2 =
            f32::cast_from(frozen[plane_index(h2, row, plane_shuffle(stage, 2u32), len, bits)]);
        let w3 =
            f32::cast_from(frozen[plane_index(h3, row, plane_shuffle(stage, 3u32), len, bits)]);
        consider_read(0u32, w0, legal, acted.reward, &mut best, lane, lookups);
        consider_read(1u32, w1, legal, acted.reward, &mut best, lane, lookups);
        consider_read(2u32, w2, legal, acted.reward, &mut best, lane, lookups);
        consider_read(3u32, w3, legal, acted.reward, &mut best, lane, lookups);
    } else {
        consider_spread::<G, F>(
            own,
            0u32,
            h0,
            legal,
            acted.reward,
            stage,
            &mut best,
            frozen,
            live,
            lut,
            lookups,
            lane,
            pool,
            cells,
            len,
            bits,
            averaged,
        );
        consider_spread::<G, F>(
            own,
            1u32,
            h1,
            legal,
            acted.reward,
            stage,
            &mut best,
            frozen,
            live,
            lut,
            lookups,
            lane,
            pool,
            cells,
            len,
            bits,
            averaged,
        );
        consider_spread::<G, F>(
            own,
            2u32,
            h2,
            legal,
            acted.reward,
            stage,
            &mut best,
            frozen,
            live,
            lut,
            lookups,
            lane,
            pool,
            cells,
            len,
            bits,
            averaged,
        );
        consider_spread::<G, F>(
            own,
            3u32,
            h3,
            legal,
            acted.reward,
            stage,
            &mut best,
            frozen,
            live,
            lut,
            lookups,
            lane,
            pool,
            cells,
            len,
            bits,
            averaged,
        );
    }
    best
}

/// Lanes of a group: with planes, a game's lanes play its four actions in four groups, group
/// `a` (lanes `GROUP·a ..`) action `a` ([`grouped_moves`]).
pub(super) const GROUP: u32 = LANES / 4;
// `grouped_moves` pairs lane `j < 4` of a group with lane `j + 4`, and holds four cells a lane.
const _: () = assert!(LANES == 32 && GROUP == 8);

/// The weight index of lookup `l` for a lane of a group whose lanes hold the group's cells
/// ([`grouped_moves`]): lane `j` of the group (the group's first lane is `base`) cells
/// `4j .. 4j + 3`, a byte each, in `held`; each cell of the lookup is one shuffle.
#[cube]
pub(super) fn grouped_index(
    held: u32,
    base: u32,
    lut: &Array<u32>,
    l: u32,
    stage: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
) -> usize {
    let row = l * (len + 1u32);
    let mut idx = lut[row as usize] + stage;
    #[unroll]
    for k in 0..len {
        let c = lut[(row + 1u32 + k) as usize];
        let four = plane_shuffle(held, base + (c >> 2u32));
        idx += ((four >> ((c & 3u32) * 8u32)) & 0xFFu32) << (k * bits);
    }
    idx as usize
}

/// Lane `j`'s weight of the round of lookups from `first` ([`grouped_moves`]): lookup
/// `first + j`, or past the last lookup the last one's (which the sum leaves out). The load is
/// unconditional so that nothing waits for it before the sum that adds it (a weight loaded
/// only where it counts became a predicated move straight after the load, where the warp
/// waited: Nsight Compute, docs/BENCHMARKS.md).
#[cube]
#[allow(clippy::too_many_arguments)]
pub(super) fn grouped_weight<F: Float>(
    held: u32,
    base: u32,
    j: u32,
    first: u32,
    stage: u32,
    frozen: &Array<F>,
    live: &Array<Atomic<f32>>,
    lut: &Array<u32>,
    lookups: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] averaged: bool,
) -> f32 {
    let l = first + j;
    // Lanes past the last lookup make the last one's index too: every lane shuffles.
    let i = grouped_index(
        held,
        base,
        lut,
        select(l < lookups, l, lookups - 1u32),
        stage,
        len,
        bits,
    );
    if averaged {
        f32::cast_from(frozen[i])
    } else {
        live[i].load()
    }
}

/// The greedy move from `own` (a copy of the state, which becomes this lane's afterstate) of a
/// game of four actions whose lanes hold its cells through planes (cells below [`LANES`], a
/// byte each): group `a` of [`GROUP`] lanes plays action `a` and reads its V, lane `j` of the
/// group lookups `j, j + GROUP, …`, so every lane reads a weight in every round, where
/// [`spread_moves`]' one V at a time over the whole plane leaves lanes idle when the lookups
/// are not a multiple of [`LANES`] (it pools each V over the plane, but skips an illegal
/// action's V, and makes fewer cells a lane:
/// [`LutNet::group_rounds`](super::kernels::LutNet::group_rounds) picks). Lane `j < 4` of a
/// group keeps V's partial sum `j`: lookups `j, j + 4, …` in order, its own weight and then lane
/// `j + 4`'s each round; two butterfly steps then give
/// `(s₀ + s₁) + (s₂ + s₃)`, the sequential loop's bits (an add of the same two values in either
/// order rounds alike). Every lane then takes the four candidates from the groups' first lanes
/// and keeps the first best.
#[cube]
#[allow(clippy::too_many_arguments)]
pub(super) fn grouped_moves<G: DeviceStochasticGame, F: Float>(
    own: &mut G::State,
    frozen: &Array<F>,
    live: &Array<Atomic<f32>>,
    lut: &Array<u32>,
    lookups: u32,
    lane: u32,
    top: u32,
    #[comptime] len: u32,
    #[comptime] bits: u32,
    #[comptime] averaged: bool,
    #[comptime] rounds: u32,
) -> Best {
    let j = lane % GROUP;
    let base = lane - j;
    let acted = G::act(own, lane / GROUP);
    let legal = select(acted.legal, 1u32, 0u32);
    let stage = stage_base::<G>(own, lut, lookups, len);
    let mut held = 0u32;
    #[unroll]
    for k in 0..4u32 {
        let c = 4u32 * j + k;
        held |= G::cell(own, select(c < top, c, top)) << (8u32 * k);
    }
    // Every round's weight is asked for before any is added (`rounds` is known when the kernel
    // is compiled), so that the loads wait together rather than one after another. An illegal
    // action's weights are read too (its sum is never used): a read only where the weights
    // count would wait for them where they are asked.
    let mut w = Array::<f32>::new(comptime!(rounds as usize));
    #[unroll]
    for r in 0..rounds {
        w[r as usize] = grouped_weight::<F>(
            held,
            base,
            j,
            r * GROUP,
            stage,
            frozen,
            live,
            lut,
            lookups,
            len,
            bits,
            averaged,
        );
    }
    let mut sum = 0.0f32;
    #[unroll]
    for r in 0..rounds {
        let l = r * GROUP + j;
        let paired = plane_shuffle(w[r as usize], lane ^ (GROUP / 2u32));
        if j < 4u32 {
            if l < lookups {
                sum += w[r as usize];
            }
            if l + 4u32 < lookups {
                sum += paired;
            }
        }
    }
    let pair = sum + plane_shuffle_xor(sum, 1u32);
    let value = f32::cast_from(acted.reward) + (pair + plane_shuffle_xor(pair, 2u32));
    let mut best = Best {
        found: false,
        value: 0.0f32,
        action: 0u32,
        reward: 0u32,
    };
    #[unroll]
    for a in 0..4u32 {
        let from = a * GROUP;
        let v = plane_shuffle(value, from);
        let reward = plane_shuffle(acted.reward, from);
        if plane_shuffle(legal, from) == 1u32 && (!best.found || v > best.value) {
            best.found = true;
            best.value = v;
            best.action = a;
            best.reward = reward;
        }
    }
    best
}
