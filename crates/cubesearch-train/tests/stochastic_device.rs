//! The stochastic-game kernels with a game that is not 2584 or 2048: "chute", a toy with 3
//! actions and 6 chance outcome slots (so both are padded to powers of two on the device).
//! Its device rules equal its host rules, its device expectimax (naive and multilevel) equals
//! the CPU search, and one TD unit learns as a CPU re-implementation of the trainer does.
//! `WideChute` is chute read through 40 cells, so that its networks reach past the 32 lanes
//! that otherwise hold a game's cells.
//!
//! Chute: 8 cells of 2 bits. Cells 0..3 take spawns (value 1 with weight 2, value 2 with weight
//! 1, on an empty cell drawn uniformly); action `a` (0..3) moves cell `a`'s value into the
//! lowest empty cell of 3..8, scoring `value · (a + 1)`, legal when cell `a` holds a value
//! and a cell of 3..8 is free. The game ends when 3..8 are full.

use cubecl::prelude::*;
use cubesearch_core::rng::XorShift32;
use cubesearch_core::{AfterstateValue, Backend, Result, RootValue, StochasticGame};
use cubesearch_kernels::expectimax::launch::ExpectimaxMethod;
use cubesearch_kernels::rng;
use cubesearch_kernels::stochastic::{Acted, DeviceStochasticGame, GpuStochasticGame};
use cubesearch_kernels::td::{DeviceTd, LaneExchange, Stream, TdShape};
use cubesearch_learn::testing::{averaged_game, AveragedRun};
use cubesearch_learn::{default_shapes, pack_views, NTupleNetwork, TupleBoard, TupleGame};
use cubesearch_search::expectimax::{self, ExpectimaxOptions};
use cubesearch_search::expectimax_gpu::{ExpectimaxFold, GpuExpectimax};
use cubesearch_search::testing::{
    assert_same_root_values, assert_same_weights, assert_stochastic_rules_match, executor,
    lane_exchanges,
};
use cubesearch_search::{Executor, GpuExecutor};
use cubesearch_train::td_net;
use rstest::rstest;

#[derive(Clone, Copy, Debug, Default)]
struct Chute;

fn cell(s: u32, c: usize) -> u32 {
    if c < 8 {
        s >> (2 * c) & 3
    } else {
        0
    }
}

fn with_cell(s: u32, c: usize, v: u32) -> u32 {
    s & !(3 << (2 * c)) | v << (2 * c)
}

impl StochasticGame for Chute {
    type State = u32;
    type Action = u8;
    const NAME: &'static str = "chute";
    const ACTIONS: &'static [u8] = &[0, 1, 2];

    fn afterstate(&self, s: &u32, a: u8) -> Option<(u32, u32)> {
        let (s, a) = (*s, a as usize);
        let v = cell(s, a);
        let free = (3..8).find(|&c| cell(s, c) == 0)?;
        (v != 0).then(|| (with_cell(with_cell(s, a, 0), free, v), v * (a as u32 + 1)))
    }

    fn chance_outcomes(&self, after: &u32, out: &mut Vec<(u32, u32)>) {
        for c in (0..3).filter(|&c| cell(*after, c) == 0) {
            for (v, w) in [(1, 2), (2, 1)] {
                out.push((with_cell(*after, c, v), w));
            }
        }
    }

    fn sample_chance(&self, after: &u32, rng: &mut XorShift32) -> u32 {
        let empty: Vec<usize> = (0..3).filter(|&c| cell(*after, c) == 0).collect();
        if empty.is_empty() {
            return *after;
        }
        let c = empty[rng.below(empty.len() as u32) as usize];
        let v = if rng.below(3) < 2 { 1 } else { 2 };
        with_cell(*after, c, v)
    }

    fn initial(&self, rng: &mut XorShift32) -> u32 {
        let s = self.sample_chance(&0, rng);
        self.sample_chance(&s, rng)
    }

    fn parse_position(&self, text: &str) -> Result<u32> {
        text.parse()
            .map_err(|_| cubesearch_core::Error::parse("a chute position is a number"))
    }

    fn format_position(&self, s: &u32) -> String {
        s.to_string()
    }

    fn format_action(&self, a: u8) -> String {
        a.to_string()
    }
}

/// Chute on the device: the 8 cells in one word.
#[derive(CubeType, Clone, Copy)]
struct ChuteState {
    bits: u32,
}

struct DeviceChute;

#[cube]
fn chute_cell(s: &ChuteState, c: u32) -> u32 {
    select(c < 8u32, (s.bits >> (2u32 * (c % 8u32))) & 3u32, 0u32)
}

#[cube]
impl DeviceStochasticGame for DeviceChute {
    type State = ChuteState;

    fn load(words: &Array<u32>, offset: usize) -> ChuteState {
        ChuteState {
            bits: words[offset],
        }
    }

    fn store(s: &ChuteState, words: &mut Array<u32>, offset: usize) {
        words[offset] = s.bits;
    }

    fn from_lane(s: &ChuteState, lane: u32) -> ChuteState {
        ChuteState {
            bits: plane_shuffle(s.bits, lane),
        }
    }

    fn assign(to: &mut ChuteState, from: &ChuteState) {
        let b = from.bits;
        to.bits = b;
    }

    fn act(s: &mut ChuteState, action: u32) -> Acted {
        let v = chute_cell(s, action);
        let mut free = 8u32;
        #[unroll]
        for c in 3..8u32 {
            if free == 8u32 && chute_cell(s, c) == 0u32 {
                free = c;
            }
        }
        let legal = v != 0u32 && free < 8u32;
        let mut reward = 0u32;
        if legal {
            let bits = (s.bits ^ (v << (2u32 * action))) | (v << (2u32 * free));
            s.bits = bits;
            reward = v * (action + 1u32);
        }
        Acted { reward, legal }
    }

    fn chance(s: &mut ChuteState, outcome: u32) -> bool {
        let c = outcome / 2u32;
        let free = chute_cell(s, c) == 0u32;
        if free {
            let bits = s.bits | ((outcome % 2u32 + 1u32) << (2u32 * c));
            s.bits = bits;
        }
        free
    }

    fn chance_packed(s: &mut ChuteState, slot: u32) -> bool {
        Self::chance(s, slot)
    }

    fn outcome_weight(outcome: u32) -> u32 {
        select((outcome & 1u32) == 0u32, 2u32, 1u32)
    }

    fn sample_chance(s: &mut ChuteState, rng: &mut u32) {
        let mut empty = 0u32;
        #[unroll]
        for c in 0..3u32 {
            empty += select(chute_cell(s, c) == 0u32, 1u32, 0u32);
        }
        if empty > 0u32 {
            let nth = rng::below(rng, empty);
            let v = select(rng::below(rng, 3u32) < 2u32, 1u32, 2u32);
            let mut seen = 0u32;
            let mut bits = s.bits;
            #[unroll]
            for c in 0..3u32 {
                if chute_cell(s, c) == 0u32 {
                    if seen == nth {
                        bits |= v << (2u32 * c);
                    }
                    seen += 1u32;
                }
            }
            s.bits = bits;
        }
    }

    fn initial(rng: &mut u32) -> ChuteState {
        let mut s = ChuteState { bits: 0u32 };
        Self::sample_chance(&mut s, rng);
        Self::sample_chance(&mut s, rng);
        s
    }

    fn cell(s: &ChuteState, c: u32) -> u32 {
        chute_cell(s, c)
    }

    fn progress(s: &ChuteState) -> u32 {
        s.bits >> 6u32
    }

    fn stage_progress(s: &ChuteState) -> u32 {
        Self::progress(s)
    }
}

impl GpuStochasticGame for Chute {
    type Device = DeviceChute;
    const STATE_WORDS: usize = 1;
    const OUTCOMES: u32 = 6;

    fn encode(&self, s: &u32, out: &mut [u32]) {
        out[0] = *s;
    }

    fn decode(&self, words: &[u32]) -> u32 {
        words[0]
    }
}

/// Chute's cells for n-tuple networks: 8 cells of 2 bits, no symmetry.
impl TupleBoard for Chute {
    type Board = <Self as StochasticGame>::State;
    const GAME: &'static str = <Self as StochasticGame>::NAME;
    const CELLS: usize = 8;
    const CELL_BITS: u32 = 2;
    const SYMMETRIES: &'static [&'static [u8]] = &[&[0, 1, 2, 3, 4, 5, 6, 7]];
    const CELLS_PER_WORD: usize = 8;
    const SHAPES: &'static [(&'static str, &'static [&'static [u8]])] = &[(
        "default",
        &[&[0, 1, 2, 3], &[3, 4, 5, 6], &[1, 2, 6, 7], &[0, 4, 5, 7]],
    )];
    const MILESTONES: &'static [u32] = &[];
    type Views<const N: usize> = [[[u64; N]; 1]; 1];

    fn cells(&self, s: &u32, out: &mut [u8]) {
        for (c, o) in out.iter_mut().enumerate() {
            *o = cell(*s, c) as u8;
        }
    }

    fn views<const N: usize>(&self, states: [u32; N]) -> Self::Views<N> {
        pack_views(self, states)
    }

    fn progress(&self, s: &u32) -> u32 {
        s >> 6
    }
}

/// Chute with 40 cells for n-tuple networks, cells 8.. always empty, and shapes that read
/// cells past 31: the same rules and device twin, a network wider than a plane's lanes.
#[derive(Clone, Copy, Debug, Default)]
struct WideChute;

const WIDE_IDENTITY: [u8; 40] = {
    let mut cells = [0u8; 40];
    let mut c = 0;
    while c < 40 {
        cells[c] = c as u8;
        c += 1;
    }
    cells
};

impl StochasticGame for WideChute {
    type State = u32;
    type Action = u8;
    const NAME: &'static str = "wide chute";
    const ACTIONS: &'static [u8] = Chute::ACTIONS;

    fn afterstate(&self, s: &u32, a: u8) -> Option<(u32, u32)> {
        Chute.afterstate(s, a)
    }

    fn chance_outcomes(&self, after: &u32, out: &mut Vec<(u32, u32)>) {
        Chute.chance_outcomes(after, out)
    }

    fn sample_chance(&self, after: &u32, rng: &mut XorShift32) -> u32 {
        Chute.sample_chance(after, rng)
    }

    fn initial(&self, rng: &mut XorShift32) -> u32 {
        Chute.initial(rng)
    }

    fn parse_position(&self, text: &str) -> Result<u32> {
        Chute.parse_position(text)
    }

    fn format_position(&self, s: &u32) -> String {
        Chute.format_position(s)
    }

    fn format_action(&self, a: u8) -> String {
        Chute.format_action(a)
    }
}

impl GpuStochasticGame for WideChute {
    type Device = DeviceChute;
    const STATE_WORDS: usize = Chute::STATE_WORDS;
    const OUTCOMES: u32 = Chute::OUTCOMES;

    fn encode(&self, s: &u32, out: &mut [u32]) {
        Chute.encode(s, out)
    }

    fn decode(&self, words: &[u32]) -> u32 {
        Chute.decode(words)
    }
}

impl TupleBoard for WideChute {
    type Board = <Self as StochasticGame>::State;
    const GAME: &'static str = <Self as StochasticGame>::NAME;
    const CELLS: usize = 40;
    const CELL_BITS: u32 = 2;
    const SYMMETRIES: &'static [&'static [u8]] = &[&WIDE_IDENTITY];
    const CELLS_PER_WORD: usize = 32;
    // Cells 33, 36 and 39 are empty; a read that wrapped at the 32 lanes would find cells 1, 4
    // and 7 there, which are not, and make another index.
    const SHAPES: &'static [(&'static str, &'static [&'static [u8]])] = &[(
        "default",
        &[
            &[0, 1, 2, 3],
            &[3, 4, 5, 6],
            &[1, 2, 6, 33],
            &[0, 36, 7, 39],
        ],
    )];
    const MILESTONES: &'static [u32] = &[];
    type Views<const N: usize> = [[[u64; N]; 2]; 1];

    fn cells(&self, s: &u32, out: &mut [u8]) {
        // Chute's cells past 8 read as empty.
        Chute.cells(s, out)
    }

    fn views<const N: usize>(&self, states: [u32; N]) -> Self::Views<N> {
        pack_views(self, states)
    }

    fn progress(&self, s: &u32) -> u32 {
        Chute.progress(s)
    }
}

/// The networks the device must read as the CPU does: one stage, and three (a chute game
/// reaches progress 4 in its second move and 64 in its fourth).
const STAGINGS: [&[u32]; 2] = [&[], &[4, 64]];

/// A chute network: four 4-cell shapes of 2-bit cells, a stage after each of `stages`, with
/// weights drawn from `seed`.
fn network(seed: u32, stages: &[u32]) -> NTupleNetwork {
    network_of::<Chute>(seed, stages)
}

/// [`network`] for `G`'s default shapes.
fn network_of<G: TupleGame>(seed: u32, stages: &[u32]) -> NTupleNetwork {
    let mut net = NTupleNetwork::staged::<G>(&default_shapes::<G>(), stages).unwrap();
    let mut rng = XorShift32::for_worker(seed, 0);
    for t in 0..net.tables() {
        let n = net.table(t).len();
        let w: Vec<f32> = (0..n)
            .map(|_| (rng.below(2001) as f32 - 1000.0) / 64.0)
            .collect();
        net.set_table(t, w.into_iter());
    }
    net
}

fn cells(s: u32) -> [u8; 8] {
    std::array::from_fn(|c| cell(s, c) as u8)
}

/// V(s) by the network's reference reads.
fn value_of(net: &NTupleNetwork, s: u32) -> f32 {
    net.value_cells(&cells(s), net.stage(&Chute, &s))
}

struct ChuteValue<'a>(&'a NTupleNetwork);

impl AfterstateValue<Chute> for ChuteValue<'_> {
    fn value(&self, _game: &Chute, s: &u32) -> f32 {
        value_of(self.0, *s)
    }
}

/// Positions of random games, ended ones included.
fn positions(count: usize) -> Vec<u32> {
    cubesearch_search::testing::random_stochastic_positions(&Chute, count, 3)
}

/// Runs `$f(&mut GpuExecutor<_>)` on `backend`'s executor; nothing for CUDA in a build
/// without it.
macro_rules! on_gpu {
    ($backend:expr, $f:ident) => {
        match executor($backend) {
            None => {}
            #[cfg(feature = "wgpu")]
            Some(Executor::Wgpu(mut gpu)) => $f(&mut gpu),
            #[cfg(feature = "cuda")]
            Some(Executor::Cuda(mut gpu)) => $f(&mut gpu),
            Some(_) => panic!("a GPU executor"),
        }
    };
}

#[rstest]
fn device_rules_equal_the_host(#[values(Backend::Wgpu, Backend::Cuda)] backend: Backend) {
    on_gpu!(backend, rules_match);
}

fn rules_match<R: Runtime>(gpu: &mut GpuExecutor<R>) {
    let got = assert_stochastic_rules_match(gpu, &Chute, &positions(500), 200);
    assert!(got.iter().flatten().any(|a| a.legal) && got.iter().flatten().any(|a| !a.legal));
}

#[rstest]
fn device_expectimax_equals_the_cpu(#[values(Backend::Wgpu, Backend::Cuda)] backend: Backend) {
    on_gpu!(backend, expectimax_matches);
}

fn expectimax_matches<R: Runtime>(gpu: &mut GpuExecutor<R>) {
    for stages in STAGINGS {
        expectimax_matches_in(gpu, stages);
    }
}

fn expectimax_matches_in<R: Runtime>(gpu: &mut GpuExecutor<R>, stages: &[u32]) {
    let net = network(5, stages);
    let value = ChuteValue(&net);
    let roots = positions(40);
    let mut search = GpuExpectimax::new(gpu);
    // Both folds where the device has 32-unit planes.
    let folds: &[ExpectimaxFold] = if search.fold() == ExpectimaxFold::PlaneOps {
        &[ExpectimaxFold::SharedMemory, ExpectimaxFold::PlaneOps]
    } else {
        &[ExpectimaxFold::SharedMemory]
    };
    for layers in 0..=2 {
        let cpu: Vec<RootValue> = roots
            .iter()
            .map(|r| expectimax::search(&Chute, &value, r, layers, ExpectimaxOptions::default()))
            .collect();
        assert!(cpu.iter().any(|r| r.best.is_none()) && cpu.iter().any(|r| r.best.is_some()));
        for (method, &planes) in ExpectimaxMethod::ALL
            .into_iter()
            .flat_map(|m| folds.iter().map(move |p| (m, p)))
        {
            search.set_method(method);
            search.set_fold(planes);
            let got = search.search(gpu, &Chute, &net, &roots, layers).unwrap();
            let what = format!(
                "stages {stages:?}, {layers} layers {}, planes {planes}",
                method.name()
            );
            assert_same_root_values(&what, &cpu, &got);
        }
    }
}

/// The CPU trainer's rules for chute with one game at a time: greedy on `reward + V`, the
/// first best action, then the backward pass reading each target after its update. Returns
/// each game's score and final position.
fn cpu_training(net: &NTupleNetwork, games: u32, seed: u32, step: f32) -> Vec<(u32, u32)> {
    (0..games)
        .map(|g| {
            let mut rng = XorShift32::for_worker(seed, g);
            let mut s = Chute.initial(&mut rng);
            let mut path = Vec::new();
            let mut score = 0;
            loop {
                let mut best: Option<(f32, u32, u32)> = None;
                for &a in Chute::ACTIONS {
                    if let Some((after, reward)) = Chute.afterstate(&s, a) {
                        let v = reward as f32 + value_of(net, after);
                        if best.is_none_or(|(b, ..)| v > b) {
                            best = Some((v, after, reward));
                        }
                    }
                }
                let Some((_, after, reward)) = best else {
                    break;
                };
                score += reward;
                path.push((after, reward));
                s = Chute.sample_chance(&after, &mut rng);
            }
            let mut target = 0.0f32;
            for &(after, reward) in path.iter().rev() {
                let v = value_of(net, after);
                net.update_cells(
                    &cells(after),
                    net.stage(&Chute, &after),
                    step * (target - v),
                );
                target = reward as f32 + value_of(net, after);
            }
            (score, s >> 6)
        })
        .collect()
}

#[rstest]
fn one_td_unit_learns_as_the_cpu_rules(#[values(Backend::Wgpu, Backend::Cuda)] backend: Backend) {
    on_gpu!(backend, td_matches);
}

fn td_matches<R: Runtime>(gpu: &mut GpuExecutor<R>) {
    for stages in STAGINGS {
        td_matches_in(gpu, stages);
    }
}

fn td_matches_in<R: Runtime>(gpu: &mut GpuExecutor<R>, stages: &[u32]) {
    let cpu_net = network(9, stages);
    let step = 0.05 / cpu_net.lookups() as f32;
    let want = cpu_training(&cpu_net, 40, 12, step);
    let gpu_net = network(9, stages);
    let shape = TdShape {
        units: 1,
        max_moves: 64,
        cap: 64,
        averaged: false,
        lanes: LaneExchange::Cube,
        steps_per_launch: 1,
        coherence: false,
        forward: false,
    };
    let mut device = DeviceTd::<_, Chute>::new(gpu.client(), &td_net(&gpu_net), shape).unwrap();
    let games = device
        .play_batch(Stream {
            first: 0,
            games: 40,
            seed: 12,
            step,
        })
        .unwrap();
    let got: Vec<(u32, u32)> = games.iter().map(|g| (g.score, g.progress)).collect();
    assert_eq!(want, got);
    let learned = device.read_tables().unwrap();
    let mut changed = 0;
    for (t, table) in learned.iter().enumerate() {
        assert_same_weights(&format!("table {t}"), &cpu_net.table(t), table);
        changed += table
            .iter()
            .zip(gpu_net.table(t))
            .filter(|(a, b)| **a != *b)
            .count();
    }
    assert!(changed > 20, "{changed} weights learned");
    // Every stage's tables learned.
    for stage in 0..=stages.len() {
        let tables = stage * 4..(stage + 1) * 4;
        let moved = tables
            .flat_map(|t| {
                learned[t]
                    .iter()
                    .zip(gpu_net.table(t))
                    .filter(|(a, b)| **a != *b)
            })
            .count();
        assert!(moved > 0, "stage {stage} of {stages:?} learned nothing");
    }
}

/// Averaged launches, one game each, learn as their CPU re-implementation, through the cube
/// and, where the device has 32-unit planes, through planes: chute's three actions take the
/// planes' move-by-move path (a game of four spreads its moves over the lanes).
#[rstest]
fn averaged_td_units_learn_as_the_cpu_rules(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    on_gpu!(backend, averaged_td_matches);
}

fn averaged_td_matches<R: Runtime>(gpu: &mut GpuExecutor<R>) {
    averaged_td_matches_for(gpu, Chute);
}

/// Chute's rules with networks that read a cell past 31 ([`WideChute`]): the lanes of a game
/// then take their cells out of the board instead of from each other (no lane holds cell 33),
/// a path no other game's network takes.
#[rstest]
fn averaged_td_units_read_cells_past_the_lanes_as_the_cpu(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    on_gpu!(backend, averaged_wide_td_matches);
}

fn averaged_wide_td_matches<R: Runtime>(gpu: &mut GpuExecutor<R>) {
    let top = default_shapes::<WideChute>().into_iter().flatten().max();
    assert_eq!(top, Some(39), "a cell past the 32 lanes");
    averaged_td_matches_for(gpu, WideChute);
}

fn averaged_td_matches_for<R: Runtime, G>(gpu: &mut GpuExecutor<R>, game: G)
where
    G: GpuStochasticGame<State = u32> + TupleGame,
{
    for stages in STAGINGS {
        for lanes in lane_exchanges(gpu.client()) {
            let mut cpu_net = network_of::<G>(9, stages);
            let gpu_net = network_of::<G>(9, stages);
            let step = 0.05 / cpu_net.lookups() as f32;
            let shape = TdShape {
                units: 1,
                max_moves: 64,
                cap: 64,
                averaged: true,
                lanes,
                steps_per_launch: 4,
                coherence: false,
                forward: false,
            };
            let mut device = DeviceTd::<_, G>::new(gpu.client(), &td_net(&gpu_net), shape).unwrap();
            for g in 0..12 {
                let (score, last) = averaged_game(
                    &game,
                    &mut cpu_net,
                    g,
                    AveragedRun {
                        seed: 12,
                        step,
                        steps: 4,
                    },
                    None,
                );
                let want = (score as u32, last >> 6);
                let game = device
                    .play_batch(Stream {
                        first: g,
                        games: 1,
                        seed: 12,
                        step,
                    })
                    .unwrap()[0];
                assert_eq!(
                    want,
                    (game.score, game.progress),
                    "{lanes:?}, {stages:?}, game {g}"
                );
            }
            let mut changed = 0;
            for (t, table) in device.read_tables().unwrap().iter().enumerate() {
                let what = format!("{lanes:?}, stages {stages:?}, table {t}");
                assert_same_weights(&what, &cpu_net.table(t), table);
                changed += table
                    .iter()
                    .zip(gpu_net.table(t))
                    .filter(|(a, b)| **a != *b)
                    .count();
            }
            assert!(changed > 20, "{changed} weights learned");
        }
    }
}
