//! Choosing a move: every lane values its share of the afterstates' lookups (each lane every
//! afterstate, `MoveChoice::EachLane`), spread one afterstate a lane (`spread_moves`) or in four
//! groups of eight lanes (`grouped_moves`), and the game takes the best `reward + V` (ties to
//! the first action in canonical order).

use super::config::{Lanes, MoveChoice, NetTable, PlayConfig, WeightBuffers, LANES};
use super::lanes::{
    held_value, lane_value, plane_index, plane_round, plane_total, plane_weight_used, read_weight,
    Held,
};
use crate::ntuple::{stage_base, StochasticCells};
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

/// No move found yet.
#[cube]
pub(super) fn no_best() -> Best {
    Best {
        found: false,
        value: 0.0f32,
        action: 0u32,
        reward: 0u32,
    }
}

#[cube]
impl Best {
    /// Keeps candidate `action` if it is the first or better than the best so far (the first
    /// of equal values stays).
    fn offer(&mut self, value: f32, action: u32, reward: u32) {
        if !self.found || value > self.value {
            self.found = true;
            self.value = value;
            self.action = action;
            self.reward = reward;
        }
    }
}

/// The greedy move from `state`, chosen as `config.moves` says, offered to `best` (found empty),
/// its afterstate in `chosen` (every lane gets the same). Every lane of the game must call it.
#[cube]
#[allow(clippy::too_many_arguments)]
pub(super) fn greedy_move<G: DeviceStochasticGame>(
    state: &G::State,
    chosen: &mut G::State,
    best: &mut Best,
    weights: &WeightBuffers,
    net: &NetTable,
    row: &Array<u32>,
    lanes: &mut Lanes,
    #[comptime] config: PlayConfig,
) {
    match comptime!(config.moves) {
        MoveChoice::Grouped { .. } => {
            let mut own = *state;
            grouped_moves::<G>(&mut own, best, weights, net, lanes.lane, config);
            if best.found {
                let made = G::from_lane(&own, best.action * GROUP);
                G::assign(chosen, &made);
            }
        }
        MoveChoice::Spread => {
            let mut own = *state;
            spread_moves::<G>(&mut own, best, weights, net, row, lanes, config);
            if best.found {
                let made = G::from_lane(&own, best.action);
                G::assign(chosen, &made);
            }
        }
        MoveChoice::EachLane => {
            // Not unrolled: the kernel compiles quickly.
            for a in 0..comptime!(config.actions) {
                let mut after = *state;
                let s = G::act(&mut after, a);
                if s.legal {
                    let v = f32::cast_from(s.reward)
                        + lane_value::<G>(&after, weights, net, lanes, config);
                    if !best.found || v > best.value {
                        G::assign(chosen, &after);
                    }
                    best.offer(v, a, s.reward);
                }
            }
        }
    }
}

/// A candidate of a spread move as the lane that made it has it: legal (1) or not, its reward,
/// and its stage's weight offset.
#[derive(CubeType, Clone, Copy)]
struct Made {
    legal: u32,
    reward: u32,
    stage: u32,
}

/// Candidate action `a`, made by lane `a` of the plane ([`spread_moves`]): its legality, reward
/// and stage come from that lane, and this lane's cell of the afterstate is `cell`; a legal
/// one is valued and offered to `best`.
#[cube]
#[allow(clippy::too_many_arguments)]
fn consider_spread<G: DeviceStochasticGame>(
    own: &G::State,
    a: u32,
    cell: u32,
    made: &Made,
    best: &mut Best,
    weights: &WeightBuffers,
    net: &NetTable,
    lanes: &mut Lanes,
    #[comptime] config: PlayConfig,
) {
    if plane_shuffle(made.legal, a) == 1u32 {
        let r = plane_shuffle(made.reward, a);
        let held = Held {
            stage: plane_shuffle(made.stage, a),
            cell,
        };
        // `own` stands in for afterstate `a`: with the cells held it is not read.
        let v = f32::cast_from(r) + held_value::<G>(own, &held, weights, net, lanes, config);
        best.offer(v, a, r);
    }
}

/// [`consider_spread`] for a V of one round of lookups whose weight `w` this lane already
/// read (at [`plane_index`], for afterstate `a`): the sum [`held_value`] makes of it.
#[cube]
fn consider_read(a: u32, w: f32, made: &Made, best: &mut Best, lane: u32, lookups: u32) {
    if plane_shuffle(made.legal, a) == 1u32 {
        let r = plane_shuffle(made.reward, a);
        let v = f32::cast_from(r)
            + plane_total(plane_round(
                0.0,
                plane_weight_used(w, lane, lookups),
                lane,
                lookups,
            ));
        best.offer(v, a, r);
    }
}

/// The greedy move from `own` (a copy of the state, which becomes this lane's afterstate) of a
/// game of four actions whose lanes hold the cells through planes: lane `k` plays action
/// `k mod 4` only, where every lane used to play all four (the moves are most of the
/// kernel's integer work in Nsight Compute; docs/BENCHMARKS.md, row "Spread or grouped moves,
/// against every lane making every afterstate"). The lanes of a group of
/// four hold the four afterstates; in round `r` each lane takes cell `group + r` of its own
/// afterstate and the group's lane `group + a` hands it to the lane `group + r`, which holds
/// that cell (`held_cell`: cells past `top` read as `top`). The values are the sequential
/// loop's, in its order. With one lookup a lane in an averaged launch, the four afterstates'
/// weights are asked for together before any is added ([`consider_read`]), instead of each V
/// waiting for its own.
#[cube]
fn spread_moves<G: DeviceStochasticGame>(
    own: &mut G::State,
    best: &mut Best,
    weights: &WeightBuffers,
    net: &NetTable,
    row: &Array<u32>,
    lanes: &mut Lanes,
    #[comptime] config: PlayConfig,
) {
    let lane = lanes.lane;
    let mine = lane & 3u32;
    let group = lane - mine;
    let acted = G::act(own, mine);
    let made = Made {
        legal: select(acted.legal, 1u32, 0u32),
        reward: acted.reward,
        stage: stage_base::<StochasticCells<G>>(
            own,
            &net.lut,
            net.lookups,
            comptime!(config.lookup.len),
        ),
    };
    // This lane's cell of each candidate afterstate.
    let mut cells = Array::<u32>::new(4usize);
    #[unroll]
    for r in 0..4u32 {
        let x = G::cell(own, select(group + r < net.top, group + r, net.top));
        #[unroll]
        for a in 0..4u32 {
            let y = plane_shuffle(x, group + a);
            let before = select(r == 0u32, 0u32, cells[a as usize]);
            cells[a as usize] = select(mine == r, y, before);
        }
    }
    if comptime!(config.one_lookup() && config.averaged()) {
        // Lanes past the last lookup read the last one's weight too (dropped in the sum).
        let mut w = Array::<f32>::new(4usize);
        #[unroll]
        for a in 0..4u32 {
            let stage = plane_shuffle(made.stage, a);
            w[a as usize] = weights.frozen[plane_index(cells[a as usize], row, stage, config)];
        }
        #[unroll]
        for a in 0..4u32 {
            consider_read(a, w[a as usize], &made, best, lane, net.lookups);
        }
    } else {
        #[unroll]
        for a in 0..4u32 {
            consider_spread::<G>(
                own,
                a,
                cells[a as usize],
                &made,
                best,
                weights,
                net,
                lanes,
                config,
            );
        }
    }
}

/// Lanes of a group: with planes, a game's lanes play its four actions in four groups, group
/// `a` (lanes `GROUP·a ..`) action `a` ([`grouped_moves`]).
pub(super) const GROUP: u32 = LANES / 4;
// `grouped_moves` pairs lane `j < 4` of a group with lane `j + 4`, and holds four cells a lane.
const _: () = assert!(LANES == 32 && GROUP == 8);

/// The weight index of lookup `l` for a lane of a group whose lanes hold the group's cells
/// ([`grouped_moves`]): lane `j` of the group (the group's first lane is `base`) cells
/// `4j .. 4j + 3`, a byte each, in `cells`; each cell of the lookup is one shuffle.
#[cube]
fn grouped_index(
    cells: u32,
    base: u32,
    net: &NetTable,
    l: u32,
    stage: u32,
    #[comptime] config: PlayConfig,
) -> usize {
    let len = comptime!(config.lookup.len);
    let bits = comptime!(config.lookup.bits);
    let row = l * (len + 1u32);
    let mut idx = net.lut[row as usize] + stage;
    #[unroll]
    for k in 0..len {
        let c = net.lut[(row + 1u32 + k) as usize];
        let four = plane_shuffle(cells, base + (c >> 2u32));
        idx += ((four >> ((c & 3u32) * 8u32)) & 0xFFu32) << (k * bits);
    }
    idx as usize
}

/// Lane `j`'s weight of the round of lookups from `first` ([`grouped_moves`]): lookup
/// `first + j`, or past the last lookup the last one's (which the sum leaves out). The load is
/// unconditional so that nothing waits for it before the sum that adds it (a weight loaded
/// only where it counts became a predicated move straight after the load, where the warp
/// waited, in Nsight Compute's profile).
#[cube]
#[allow(clippy::too_many_arguments)]
pub(super) fn grouped_weight(
    cells: u32,
    base: u32,
    j: u32,
    first: u32,
    stage: u32,
    weights: &WeightBuffers,
    net: &NetTable,
    #[comptime] config: PlayConfig,
) -> f32 {
    let l = first + j;
    // Lanes past the last lookup make the last one's index too: every lane shuffles.
    let last = net.lookups - 1u32;
    let i = grouped_index(
        cells,
        base,
        net,
        select(l < net.lookups, l, last),
        stage,
        config,
    );
    read_weight(weights, i, config)
}

/// The greedy move from `own` (a copy of the state, which becomes this lane's afterstate) of a
/// game of four actions whose lanes hold its cells through planes (cells below [`LANES`], a
/// byte each): group `a` of [`GROUP`] lanes plays action `a` and reads its V, lane `j` of the
/// group lookups `j, j + GROUP, …`, so every lane reads a weight in every round, where
/// [`spread_moves`]' one V at a time over the whole plane leaves lanes idle when the lookups
/// are not a multiple of [`LANES`] (it pools each V over the plane, but skips an illegal
/// action's V, and makes fewer cells a lane: `TdShape`'s move choice picks). Lane `j < 4` of a
/// group keeps V's partial sum `j`: lookups `j, j + 4, …` in order, its own weight and then lane
/// `j + 4`'s each round; two butterfly steps then give `(s₀ + s₁) + (s₂ + s₃)`, the sequential
/// loop's bits (an add of the same two values in either order rounds alike). Every lane then
/// takes the four candidates from the groups' first lanes and keeps the first best.
#[cube]
fn grouped_moves<G: DeviceStochasticGame>(
    own: &mut G::State,
    best: &mut Best,
    weights: &WeightBuffers,
    net: &NetTable,
    lane: u32,
    #[comptime] config: PlayConfig,
) {
    let rounds = comptime!(config.group_rounds());
    let j = lane % GROUP;
    let base = lane - j;
    let acted = G::act(own, lane / GROUP);
    let legal = select(acted.legal, 1u32, 0u32);
    let stage =
        stage_base::<StochasticCells<G>>(own, &net.lut, net.lookups, comptime!(config.lookup.len));
    let mut cells = 0u32;
    #[unroll]
    for k in 0..4u32 {
        let c = 4u32 * j + k;
        cells |= G::cell(own, select(c < net.top, c, net.top)) << (8u32 * k);
    }
    // Every round's weight is asked for before any is added (`rounds` is known when the kernel
    // is compiled), so that the loads wait together rather than one after another. An illegal
    // action's weights are read too (its sum is never used): a read only where the weights
    // count would wait for them where they are asked.
    let mut w = Array::<f32>::new(comptime!(rounds as usize));
    #[unroll]
    for r in 0..rounds {
        w[r as usize] = grouped_weight(cells, base, j, r * GROUP, stage, weights, net, config);
    }
    let mut sum = 0.0f32;
    #[unroll]
    for r in 0..rounds {
        let l = r * GROUP + j;
        let paired = plane_shuffle(w[r as usize], lane ^ (GROUP / 2u32));
        if j < 4u32 {
            if l < net.lookups {
                sum += w[r as usize];
            }
            if l + 4u32 < net.lookups {
                sum += paired;
            }
        }
    }
    let pair = sum + plane_shuffle_xor(sum, 1u32);
    let value = f32::cast_from(acted.reward) + (pair + plane_shuffle_xor(pair, 2u32));
    #[unroll]
    for a in 0..4u32 {
        let from = a * GROUP;
        let v = plane_shuffle(value, from);
        let reward = plane_shuffle(acted.reward, from);
        if plane_shuffle(legal, from) == 1u32 {
            best.offer(v, a, reward);
        }
    }
}
