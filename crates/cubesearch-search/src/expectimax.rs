//! Expectimax for one-player stochastic games on the CPU: the oracle every GPU kernel is held
//! to, the seed's single-thread baseline (4.1) and its tree-parallel baseline (4.2), plus a
//! batched self-play loop that serves any [`ExpectimaxEval`] executor.
//!
//! An X-layer search has depth 2X + 1: the root's player level, then X × (chance, player).
//! The value of a root action is the seed's: the rewards collected along a path plus
//! V(afterstate) at its leaf, maximised over actions and averaged over chance outcomes. Every
//! backend computes it with the same f32 operations in the same order, so the values agree
//! bit for bit (tests hold the devices to this code with `==`):
//!
//! ```text
//! player(s, prefix)   = the first maximum over the legal actions a of chance(a(s), prefix + f32(r_a));
//!                       prefix when none is legal (a finished game collects nothing more)
//! chance(s', prefix)  = prefix + V(s')                                   at the last layer
//!                     = (Σ f32(w(o)) · player(o(s'), prefix), added in the outcomes' order
//!                        from 0.0) × reciprocal_weight(Σ w(o))           otherwise
//!                       (prefix when no outcome can happen)
//! root action a       = chance(a(root), f32(r_a))
//! ```
//!
//! The rewards are carried down as a prefix instead of added above the means, because the
//! device generates whole paths (seed Algorithm 1): a leaf holds its path's rewards.
//!
//! Tree parallelism: the levels above a split ply fan their children out on rayon; each
//! subtree below it is one sequential task. Children are combined in canonical order with the
//! same operations as the sequential search, so both give bit-identical values.
//!
//! `cubesearch::expectimax` searches a game this way.

use crate::CpuExecutor;
use cubesearch_core::rng::XorShift32;
use cubesearch_core::{
    reciprocal_weight, AfterstateValue, Error, ExpectimaxEval, Result, RootValue, StochasticGame,
    Stop,
};
use rayon::prelude::*;
use std::collections::HashMap;

/// How the CPU searches.
#[derive(Clone, Debug, Default)]
pub struct ExpectimaxOptions {
    /// Remember chance-node values within one root's search (a transposition table keyed by
    /// afterstate, layers left and the rewards collected above it). Values are unchanged;
    /// only repeated subtrees are skipped.
    pub transposition: bool,
    /// Levels (player and chance each count one) fanned out on threads above the sequential
    /// subtrees; `None` chooses from the work size and the thread count.
    pub split_ply: Option<u32>,
    /// Looked at before each chance node with a layer below it: once it is raised the search
    /// returns at once with values that mean nothing, and the executor's
    /// [`evaluate`](ExpectimaxEval::evaluate) answers [`Error::Interrupted`] (a 4-layer search
    /// of one 2584 board takes seconds on a CPU).
    pub stop: Stop,
}

/// Chance values by (afterstate, layers left, the prefix's bits).
type ChanceTable<S> = HashMap<(S, u32, u32), f32>;

/// The sequential search of one root: scratch lists per level and the optional table.
struct Sequential<'a, G: StochasticGame, V: ?Sized> {
    game: &'a G,
    value: &'a V,
    table: Option<ChanceTable<G::State>>,
    outcomes: Vec<Vec<(G::State, u32)>>,
    stop: &'a Stop,
}

impl<'a, G: StochasticGame, V: AfterstateValue<G> + ?Sized> Sequential<'a, G, V> {
    fn new(game: &'a G, value: &'a V, options: &'a ExpectimaxOptions) -> Self {
        Self {
            game,
            value,
            table: options.transposition.then(HashMap::new),
            outcomes: Vec::new(),
            stop: &options.stop,
        }
    }

    /// `player(s, prefix)` of the module docs.
    fn player(&mut self, s: &G::State, layers: u32, prefix: f32) -> f32 {
        let game = self.game;
        let values = G::ACTIONS
            .iter()
            .filter_map(|&a| game.afterstate(s, a))
            .map(|(after, reward)| self.chance(&after, layers, prefix + reward as f32));
        first_max_or(values, prefix)
    }

    /// `chance(after, prefix)` of the module docs.
    fn chance(&mut self, after: &G::State, layers: u32, prefix: f32) -> f32 {
        if layers == 0 {
            return prefix + self.value.value(self.game, after);
        }
        let key = (*after, layers, prefix.to_bits());
        if let Some(v) = self.table.as_ref().and_then(|t| t.get(&key)) {
            return *v;
        }
        if self.stop.is_raised() {
            return prefix;
        }
        // One outcome list per layer, reused: take it out while the children search.
        let level = layers as usize;
        if self.outcomes.len() <= level {
            self.outcomes.resize_with(level + 1, Vec::new);
        }
        let mut outcomes = std::mem::take(&mut self.outcomes[level]);
        outcomes.clear();
        self.game.chance_outcomes(after, &mut outcomes);
        let mut mean = ChanceMean::default();
        for (s, w) in &outcomes {
            mean.add(*w, self.player(s, layers - 1, prefix));
        }
        self.outcomes[level] = outcomes;
        let v = mean.value(prefix);
        if let Some(t) = self.table.as_mut().filter(|_| !self.stop.is_raised()) {
            t.insert(key, v);
        }
        v
    }
}

/// A player node's value: the first maximum of its legal actions' values in canonical order,
/// or `prefix` when it has none (the module docs).
fn first_max_or(values: impl IntoIterator<Item = f32>, prefix: f32) -> f32 {
    let mut best: Option<f32> = None;
    for v in values {
        if best.is_none_or(|b| v > b) {
            best = Some(v);
        }
    }
    best.unwrap_or(prefix)
}

/// A chance node's weighted mean, added up in the outcomes' order (the module docs).
#[derive(Default)]
struct ChanceMean {
    sum: f32,
    total: u32,
}

impl ChanceMean {
    fn add(&mut self, weight: u32, value: f32) {
        self.sum += weight as f32 * value;
        self.total += weight;
    }

    /// The mean, or `prefix` when no outcome was added.
    fn value(&self, prefix: f32) -> f32 {
        if self.total == 0 {
            prefix
        } else {
            self.sum * reciprocal_weight(self.total)
        }
    }
}

/// Each action's value at `root` (`None` when illegal) and the best action.
fn root_value(actions: Vec<Option<f32>>) -> RootValue {
    let mut best: Option<(u32, f32)> = None;
    for (i, v) in actions.iter().enumerate() {
        if let Some(v) = *v {
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((i as u32, v));
            }
        }
    }
    RootValue {
        best: best.map(|b| b.0),
        value: best.map_or(0.0, |b| b.1),
        actions,
    }
}

/// The sequential search of one root (the seed's single-thread CPU baseline); of the options
/// only `transposition` applies (one root runs on one thread).
pub fn search<G: StochasticGame, V: AfterstateValue<G> + ?Sized>(
    game: &G,
    value: &V,
    root: &G::State,
    layers: u32,
    options: ExpectimaxOptions,
) -> RootValue {
    let mut seq = Sequential::new(game, value, &options);
    let actions = G::ACTIONS
        .iter()
        .map(|&a| {
            game.afterstate(root, a)
                .map(|(after, reward)| seq.chance(&after, layers, reward as f32))
        })
        .collect();
    root_value(actions)
}

/// The tree-parallel search: levels above `split` in parallel, sequential tasks below.
struct Parallel<'a, G, V: ?Sized> {
    game: &'a G,
    value: &'a V,
    options: &'a ExpectimaxOptions,
}

impl<G: StochasticGame, V: AfterstateValue<G> + ?Sized> Parallel<'_, G, V> {
    fn sequential(&self) -> Sequential<'_, G, V> {
        Sequential::new(self.game, self.value, self.options)
    }

    fn player(&self, s: &G::State, layers: u32, prefix: f32, split: u32) -> f32 {
        if split == 0 {
            return self.sequential().player(s, layers, prefix);
        }
        let children: Vec<(G::State, u32)> = G::ACTIONS
            .iter()
            .filter_map(|&a| self.game.afterstate(s, a))
            .collect();
        let values: Vec<f32> = children
            .par_iter()
            .map(|(after, reward)| self.chance(after, layers, prefix + *reward as f32, split - 1))
            .collect();
        first_max_or(values, prefix)
    }

    fn chance(&self, after: &G::State, layers: u32, prefix: f32, split: u32) -> f32 {
        if layers == 0 || split == 0 {
            return self.sequential().chance(after, layers, prefix);
        }
        let mut outcomes = Vec::new();
        self.game.chance_outcomes(after, &mut outcomes);
        let values: Vec<f32> = outcomes
            .par_iter()
            .map(|(s, _)| self.player(s, layers - 1, prefix, split - 1))
            .collect();
        let mut mean = ChanceMean::default();
        for ((_, w), v) in outcomes.iter().zip(values) {
            mean.add(*w, v);
        }
        mean.value(prefix)
    }
}

/// Tasks a split should make per thread: enough that uneven subtrees even out.
const TASKS_PER_THREAD: f64 = 16.0;

/// The split ply for `roots` on `threads` threads: the shallowest level at which the roots'
/// estimated node count (branching measured at the first root) reaches `TASKS_PER_THREAD`
/// tasks a thread. 0 (one sequential task per root) when the batch alone is that large or there
/// is one thread.
pub fn auto_split<G: StochasticGame>(
    game: &G,
    roots: &[G::State],
    layers: u32,
    threads: usize,
) -> u32 {
    let wanted = TASKS_PER_THREAD * threads as f64;
    let Some(root) = roots.first() else { return 0 };
    if threads <= 1 || roots.len() as f64 >= wanted {
        return 0;
    }
    let children: Vec<_> = G::ACTIONS
        .iter()
        .filter_map(|&a| game.afterstate(root, a))
        .collect();
    let moves = children.len().max(1) as f64;
    let mut outcomes = Vec::new();
    if let Some((after, _)) = children.first() {
        game.chance_outcomes(after, &mut outcomes);
    }
    let spawns = outcomes.len().max(1) as f64;
    let mut nodes = roots.len() as f64;
    // Level 2k + 1 is a chance level, 2k + 2 a player level; the deepest chance level's
    // children are leaves, so the split goes no deeper than 2·layers.
    for ply in 0..2 * layers {
        if nodes >= wanted {
            return ply;
        }
        nodes *= if ply % 2 == 0 { moves } else { spawns };
    }
    2 * layers
}

/// Every root searched with `options` on the current rayon pool.
pub fn search_many<G: StochasticGame, V: AfterstateValue<G> + ?Sized>(
    game: &G,
    value: &V,
    roots: &[G::State],
    layers: u32,
    options: ExpectimaxOptions,
) -> Vec<RootValue> {
    let threads = rayon::current_num_threads();
    let split = options
        .split_ply
        .unwrap_or_else(|| auto_split(game, roots, layers, threads))
        .min(2 * layers);
    if threads <= 1 {
        return roots
            .iter()
            .map(|r| search(game, value, r, layers, options.clone()))
            .collect();
    }
    let par = Parallel {
        game,
        value,
        options: &options,
    };
    roots
        .par_iter()
        .map(|root| {
            let actions: Vec<Option<(G::State, u32)>> = G::ACTIONS
                .iter()
                .map(|&a| game.afterstate(root, a))
                .collect();
            let values = actions
                .par_iter()
                .map(|c| {
                    c.map(|(after, reward)| {
                        par.chance(&after, layers, reward as f32, split.saturating_sub(1))
                    })
                })
                .collect();
            root_value(values)
        })
        .collect()
}

/// Every root searched with `options` on `cpu`'s threads; [`Error::Interrupted`] once
/// `options.stop` is raised.
pub(crate) fn evaluate_on_cpu<G: StochasticGame, V: AfterstateValue<G> + ?Sized>(
    cpu: &CpuExecutor,
    options: &ExpectimaxOptions,
    game: &G,
    value: &V,
    roots: &[G::State],
    layers: u32,
) -> Result<Vec<RootValue>> {
    let found = cpu
        .pool()
        .install(|| search_many(game, value, roots, layers, options.clone()));
    if options.stop.is_raised() {
        return Err(Error::Interrupted("expectimax stopped".into()));
    }
    Ok(found)
}

/// The CPU searches with the default [`ExpectimaxOptions`] (an
/// [`Expectimax`](crate::expectimax_gpu::Expectimax) holds others).
impl<G: StochasticGame, V: AfterstateValue<G> + ?Sized> ExpectimaxEval<G, V> for CpuExecutor {
    fn evaluate(
        &mut self,
        game: &G,
        value: &V,
        roots: &[G::State],
        layers: u32,
    ) -> Result<Vec<RootValue>> {
        evaluate_on_cpu(
            self,
            &ExpectimaxOptions::default(),
            game,
            value,
            roots,
            layers,
        )
    }
}

/// How one game of [`play_games`] went: a one-player stochastic game's score and positions
/// (a two-player game's moves and result are a `cubesearch_players::GameRecord`).
#[derive(Clone, Debug, PartialEq)]
pub struct StochasticGameRecord<S> {
    /// The sum of the rewards.
    pub score: u64,
    /// Actions played.
    pub moves: u32,
    /// The final position (no legal action).
    pub last: S,
    /// The position before each action, when asked for.
    pub history: Vec<S>,
}

/// What [`play_games`] plays, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayOptions {
    /// Expectimax layers a move (0: the greedy player).
    pub layers: u32,
    /// The games `0..games`.
    pub games: u64,
    /// Games at a time, every move of a batch's games evaluated in one executor call.
    pub batch: usize,
    /// Game `g` draws its start and spawns from `XorShift32::for_worker(seed, g)`.
    pub seed: u32,
    /// Keep the position before each action in the record.
    pub keep_history: bool,
}

impl Default for PlayOptions {
    fn default() -> Self {
        Self {
            layers: 1,
            games: 1,
            batch: 32,
            seed: 0,
            keep_history: false,
        }
    }
}

/// Plays games with the best action of expectimax as [`PlayOptions`] say. Game `g` draws its
/// start and spawns from `XorShift32::for_worker(seed, g)` (as `cubesearch_learn::play` does),
/// so the games do not depend on the batch size; at 0 layers they are the greedy player's.
/// `on_game` is told each finished game's index.
pub fn play_games<G, V, E>(
    exec: &mut E,
    game: &G,
    value: &V,
    options: PlayOptions,
    mut on_game: impl FnMut(u64, &StochasticGameRecord<G::State>),
) -> Result<Vec<StochasticGameRecord<G::State>>>
where
    G: StochasticGame,
    V: ?Sized,
    E: ExpectimaxEval<G, V> + ?Sized,
{
    struct Live<S> {
        id: u64,
        rng: XorShift32,
        state: S,
        record: StochasticGameRecord<S>,
    }
    let PlayOptions {
        layers,
        games,
        batch,
        seed,
        keep_history,
    } = options;
    let batch = batch.max(1);
    let mut done: Vec<Option<StochasticGameRecord<G::State>>> = (0..games).map(|_| None).collect();
    let mut live: Vec<Live<G::State>> = Vec::with_capacity(batch);
    let mut next = 0u64;
    loop {
        while live.len() < batch && next < games {
            let mut rng = XorShift32::for_worker(seed, next as u32);
            let state = game.initial(&mut rng);
            live.push(Live {
                id: next,
                rng,
                state,
                record: StochasticGameRecord {
                    score: 0,
                    moves: 0,
                    last: state,
                    history: Vec::new(),
                },
            });
            next += 1;
        }
        if live.is_empty() {
            break;
        }
        let roots: Vec<G::State> = live.iter().map(|l| l.state).collect();
        let results = exec.evaluate(game, value, &roots, layers)?;
        let mut i = 0;
        for result in results {
            let l = &mut live[i];
            let step = result
                .best
                .and_then(|b| game.afterstate(&l.state, G::ACTIONS[b as usize]));
            match step {
                Some((after, reward)) => {
                    if keep_history {
                        l.record.history.push(l.state);
                    }
                    l.record.score += reward as u64;
                    l.record.moves += 1;
                    l.state = game.sample_chance(&after, &mut l.rng);
                    i += 1;
                }
                None => {
                    let mut l = live.remove(i);
                    l.record.last = l.state;
                    on_game(l.id, &l.record);
                    done[l.id as usize] = Some(l.record);
                }
            }
        }
    }
    Ok(done.into_iter().flatten().collect())
}
