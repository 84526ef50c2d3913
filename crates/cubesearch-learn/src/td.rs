//! Greedy play and TD(0) learning on afterstates (the seed's section 2.2).
//!
//! A game is played greedily: in state s the player takes the legal action maximising
//! `reward + V(afterstate)` (ties go to the first in the game's canonical order of actions).
//! Learning happens when the game is over, *backward* over its afterstates, as the seed's CPU
//! baseline does ("after each game ends, the history of the game is used ... to improve the
//! weights"): the last afterstate is moved toward 0 (nothing follows it), and afterstate
//! `s'_t` toward `r_{t+1} + V(s'_{t+1})`, where `r_{t+1}` is the reward of the next move and
//! `V(s'_{t+1})` is read after its own update. Each of the network's lookups moves by
//! `alpha / lookups · δ`, so `alpha` is the step on V itself.
//!
//! The CPU trainer can also learn *forward* ([`TdOrder::Forward`], Szubert and Jaśkowski's
//! order): once move `t + 1` is chosen, `s'_t` moves toward `r_{t+1} + V(s'_{t+1})` as valued
//! when choosing it, and the last afterstate toward 0 when the game ends. Its weights are then
//! still in the cache, where the backward pass, at the end of a game of thousands of moves,
//! finds them in memory again (docs/BENCHMARKS.md, row "`--td-order forward` against
//! backward, CPU"). The error is taken against `V(s'_t)` as valued when `s'_t` was chosen, a
//! move earlier, as TDL2048+'s plain TD does (its `optimize`): the update of `s'_{t-1}` since,
//! which may have moved some of the same weights, is not read back. So no update waits for its weights to be read first; where threads share one table
//! and each other's writes have taken the lines away, that wait cost 16 threads a tenth of
//! their moves. With temporal coherence `V(s'_t)` is read again before its update, as
//! TDL2048+'s TC does (its `instruct`): at alpha 1.0 the stale error overshoots by all that
//! the update of `s'_{t-1}` moved `V(s'_t)`: from two trained networks (mean 35,000), four of
//! eight runs collapsed within seconds (to 2,000–6,000), and none did re-reading.

use crate::game::TupleGame;
use crate::network::{NTupleNetwork, WeightReads};
use cubesearch_core::rng::XorShift32;
use multiversion::multiversion;

/// How a game learns: the change per weight per unit of TD error (`alpha / lookups`) and when
/// its afterstates learn.
#[derive(Clone, Copy, Debug)]
pub struct Learning {
    /// The change per weight per unit of TD error.
    pub step: f32,
    /// When a game's afterstates learn.
    pub order: TdOrder,
}

/// When a game's afterstates learn (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TdOrder {
    /// At the game's end, last afterstate first (the seed's order, and every GPU trainer's).
    #[default]
    Backward,
    /// Each one as soon as the next move is chosen.
    Forward,
}

impl TdOrder {
    /// The order's name, as `train --td-order` takes it.
    pub fn name(self) -> &'static str {
        match self {
            TdOrder::Backward => "backward",
            TdOrder::Forward => "forward",
        }
    }
}

impl std::str::FromStr for TdOrder {
    type Err = cubesearch_core::Error;

    fn from_str(s: &str) -> cubesearch_core::Result<Self> {
        [TdOrder::Backward, TdOrder::Forward]
            .into_iter()
            .find(|order| order.name() == s)
            .ok_or_else(|| {
                cubesearch_core::Error::parse(format!(
                    "unknown TD order '{s}': backward or forward"
                ))
            })
    }
}

/// What one game came to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Episode {
    /// The sum of the rewards.
    pub score: u64,
    /// Moves played.
    pub moves: u32,
    /// How far the game got ([`TupleBoard::progress`](crate::TupleBoard::progress) of its last state).
    pub progress: u32,
}

/// The greedy action in `s`: `(action, afterstate, reward)`, or `None` when the game is over.
#[inline]
pub fn greedy<G: TupleGame>(
    game: &G,
    net: &NTupleNetwork,
    s: G::State,
) -> Option<(G::Action, G::State, u32)> {
    let mut best: Option<(f32, G::Action, G::State, u32)> = None;
    for &a in G::ACTIONS {
        if let Some((after, reward)) = game.afterstate(&s, a) {
            let v = reward as f32 + net.value(game, after);
            if best.is_none_or(|b| v > b.0) {
                best = Some((v, a, after, reward));
            }
        }
    }
    best.map(|(_, a, after, reward)| (a, after, reward))
}

/// One game's afterstates as learning reads them: each one's weight indices (the network's
/// lookups in order, made once while choosing the move) and the reward of the move to it.
/// Scratch space, reused from game to game.
#[derive(Debug)]
pub struct Trajectory<G: TupleGame> {
    indices: Vec<u32>,
    rewards: Vec<u32>,
    /// The candidate afterstates' indices, four at a time as [`NTupleNetwork::indices_of`]
    /// lays them out.
    candidates: Vec<u32>,
    game: std::marker::PhantomData<G>,
}

impl<G: TupleGame> Default for Trajectory<G> {
    fn default() -> Self {
        Trajectory {
            indices: Vec::new(),
            rewards: Vec::new(),
            candidates: Vec::new(),
            game: std::marker::PhantomData,
        }
    }
}

impl<G: TupleGame> Trajectory<G> {
    /// The weight indices of the last game's afterstates, a block of the network's lookups
    /// each: every weight its learning changed.
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }
}

/// [`greedy`] on the afterstates' weight indices: the chosen action's value
/// (`reward + V(afterstate)`), its number (its place in `ACTIONS`), the afterstate, the
/// reward and V(afterstate). The candidates are made and valued four at a time (vector
/// instructions making their indices, their weight loads overlapping), their indices going to
/// `path.candidates` as [`NTupleNetwork::indices_of`] lays out each four (an illegal move's are
/// the state's, and its weights are not read).
#[inline(always)]
fn greedy_indexed<G: TupleGame>(
    game: &G,
    net: &NTupleNetwork,
    s: G::State,
    path: &mut Trajectory<G>,
    reads: WeightReads,
) -> Option<Chosen<G::State>> {
    let actions = G::ACTIONS.len();
    let per_four = 4 * net.lookups();
    let mut afters = [None; 4];
    let mut best = None;
    if actions <= 4 {
        // One four (a game of at most 4 actions): every afterstate at once, at a constant length.
        game.all_afterstates(&s, &mut afters[..actions]);
        best_of_four(
            game,
            net,
            s,
            &afters,
            0,
            &mut path.candidates[..per_four],
            reads,
            &mut best,
        );
    } else {
        for (four, candidates) in path.candidates.chunks_exact_mut(per_four).enumerate() {
            let first = 4 * four;
            afters = [None; 4];
            for (after, &a) in afters.iter_mut().zip(&G::ACTIONS[first..]) {
                *after = game.afterstate(&s, a);
            }
            best_of_four(game, net, s, &afters, first, candidates, reads, &mut best);
        }
    }
    best
}

/// A chosen action: its value (`reward + V(afterstate)`), its number, the afterstate, the reward
/// and V(afterstate).
type Chosen<S> = (f32, usize, S, u32, f32);

/// Values four candidate afterstates (of actions `first..first + 4`; `None` where illegal or
/// past the last action) at once, their indices into `candidates`, and keeps the best in
/// `best` ([`Chosen`]), the first of equal values.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn best_of_four<G: TupleGame>(
    game: &G,
    net: &NTupleNetwork,
    s: G::State,
    afters: &[Option<(G::State, u32)>; 4],
    first: usize,
    candidates: &mut [u32],
    reads: WeightReads,
    best: &mut Option<Chosen<G::State>>,
) {
    net.indices_of::<G, 4>(game, afters.map(|a| a.map_or(s, |a| a.0)), candidates);
    // SAFETY: `indices_of` of `net` just wrote every index of `candidates`; `reads` is the
    // caller's. Illegal moves' boards read nothing.
    let values = unsafe { net.values_at_unchecked(candidates, afters.map(|a| a.is_some()), reads) };
    for (k, after) in afters.iter().enumerate() {
        if let Some((after, reward)) = *after {
            let v = reward as f32 + values[k];
            if best.is_none_or(|b| v > b.0) {
                *best = Some((v, first + k, after, reward, values[k]));
            }
        }
    }
}

/// Plays one game greedily with `net` from a start drawn by `rng`; when `learn` is given (the
/// change per weight per unit of TD error and the order; its sharing is the caller's), learns
/// from it. `path` ends holding the indices of every afterstate learned from.
///
/// Compiled twice: for any x86-64 and for one with AVX2 and BMI2, picked at run time (the
/// symmetric views and indices of four states at once fill 256-bit registers, and the weights
/// are read eight at a time by gathers: docs/BENCHMARKS.md, row "The CPU trainer's
/// gathers"). Both compute the same floats in the same order.
#[multiversion(targets("x86_64+avx+avx2+bmi1+bmi2+popcnt+lzcnt"))]
pub fn play_episode<G: TupleGame>(
    game: &G,
    net: &NTupleNetwork,
    rng: &mut XorShift32,
    learn: Option<Learning>,
    path: &mut Trajectory<G>,
) -> Episode {
    // SAFETY: AVX2 is there when this clone runs.
    let reads =
        unsafe { WeightReads::new(multiversion::target::target_cfg_f!(target_feature = "avx2")) };
    let lookups = net.lookups();
    path.indices.clear();
    path.rewards.clear();
    path.candidates
        .resize(G::ACTIONS.len().div_ceil(4) * 4 * lookups, 0);
    let forward = learn.filter(|l| l.order == TdOrder::Forward);
    let mut s = game.initial(rng);
    let mut score = 0u64;
    // V of the last afterstate as valued when it was chosen.
    let mut valued = 0.0;
    while let Some((value, k, after, reward, v)) = greedy_indexed(game, net, s, path, reads) {
        if let Some(l) = forward {
            // SAFETY: `greedy_indexed`'s `indices_of` of `net` made every index; `reads` is as
            // above.
            unsafe { learn_last(net, &path.indices, valued, value, l.step, reads) };
        }
        valued = v;
        score += reward as u64;
        let four = &path.candidates[k / 4 * 4 * lookups..][..4 * lookups];
        path.indices
            .extend(four.chunks_exact(4).map(|lanes| lanes[k % 4]));
        path.rewards.push(reward);
        s = game.sample_chance(&after, rng);
    }
    match learn.map(|l| (l.step, l.order)) {
        // The last afterstate: nothing follows it.
        // SAFETY: `greedy_indexed`'s `indices_of` of `net` made every index.
        Some((step, TdOrder::Forward)) => unsafe {
            learn_last(net, &path.indices, valued, 0.0, step, reads)
        },
        // SAFETY: as above.
        Some((step, TdOrder::Backward)) => unsafe {
            learn_indexed(net, &path.indices, &path.rewards, step, reads)
        },
        None => {}
    }
    Episode {
        score,
        moves: path.rewards.len() as u32,
        progress: game.progress(&s),
    }
}

/// One forward TD(0) step: the last afterstate of `indices` (a block of the network's lookups
/// at its end; none at a game's start), valued `valued` when it was chosen, moves toward
/// `target`; with temporal coherence its error is against its value now (see the module docs).
///
/// # Safety
/// As [`learn_indexed`].
#[inline(always)]
unsafe fn learn_last(
    net: &NTupleNetwork,
    indices: &[u32],
    valued: f32,
    target: f32,
    step: f32,
    reads: WeightReads,
) {
    if let Some(at) = indices.len().checked_sub(net.lookups()) {
        let block = &indices[at..];
        // SAFETY: the caller's promises.
        unsafe {
            let value = if net.coherent() {
                net.value_at_unchecked(block, reads)
            } else {
                valued
            };
            net.update_at_unchecked(block, step * (target - value));
        }
    }
}

/// The backward TD(0) pass over one game's `(afterstate, reward)` path (see the module docs).
pub fn learn<G: TupleGame>(game: &G, net: &NTupleNetwork, path: &[(G::State, u32)], step: f32) {
    let lookups = net.lookups();
    let mut indices = vec![0; path.len() * lookups];
    for (&(after, _), block) in path.iter().zip(indices.chunks_exact_mut(lookups)) {
        net.indices(game, after, block);
    }
    let rewards: Vec<u32> = path.iter().map(|&(_, r)| r).collect();
    // SAFETY: `indices` of `net` made every index.
    unsafe { learn_indexed(net, &indices, &rewards, step, WeightReads::OneByOne) };
}

/// [`learn`] on the afterstates' weight indices (a block of lookups each) and rewards.
///
/// # Safety
/// Every index was made by [`NTupleNetwork::indices_of`] of `net` (so is below its
/// [`NTupleNetwork::weight_count`]), and `reads` by [`WeightReads::new`] under its promise.
#[inline(always)]
unsafe fn learn_indexed(
    net: &NTupleNetwork,
    indices: &[u32],
    rewards: &[u32],
    step: f32,
    reads: WeightReads,
) {
    let mut target = 0.0f32;
    for (block, &reward) in indices.chunks_exact(net.lookups()).zip(rewards).rev() {
        // SAFETY: the caller's promise.
        unsafe {
            let v = net.value_at_unchecked(block, reads);
            net.update_at_unchecked(block, step * (target - v));
            target = reward as f32 + net.value_at_unchecked(block, reads);
        }
    }
}

/// Plays one game with uniformly random legal moves (the baseline a trained network must beat).
pub fn random_episode<G: TupleGame>(game: &G, rng: &mut XorShift32) -> Episode {
    let mut s = game.initial(rng);
    let mut legal = Vec::with_capacity(4);
    let (mut score, mut moves) = (0u64, 0u32);
    loop {
        legal.clear();
        game.legal_actions(&s, &mut legal);
        if legal.is_empty() {
            break;
        }
        let (_, after, reward) = legal[rng.below(legal.len() as u32) as usize];
        score += reward as u64;
        moves += 1;
        s = game.sample_chance(&after, rng);
    }
    Episode {
        score,
        moves,
        progress: game.progress(&s),
    }
}
