//! Checks for a game's [`TupleGame`] implementation, for its tests.

use crate::game::{TupleBoard, TupleGame, ViewWords};
use crate::network::{coherence_rate, NTupleNetwork};
use crate::td::greedy;
use cubesearch_core::rng::XorShift32;
#[cfg(test)]
use cubesearch_core::StochasticGame;

/// Holds `game`'s packed views ([`TupleBoard::views`]) of `states`, four at a time, to its cells
/// read through its symmetries: view `s` must show at cell `c` the value of cell
/// `SYMMETRIES[s][c]`, `CELL_BITS` bits a cell, `CELLS_PER_WORD` cells a word. Panics with the
/// first difference.
pub fn check_views<G: TupleBoard>(game: &G, states: &[G::Board]) {
    let mask = (1u64 << G::CELL_BITS) - 1;
    let mut cells = vec![0u8; G::CELLS];
    for four in states.chunks(4) {
        let lanes: [G::Board; 4] = std::array::from_fn(|i| four[i % four.len()]);
        let views = game.views(lanes);
        for (i, state) in lanes.iter().enumerate() {
            game.cells(state, &mut cells);
            for (s, symmetry) in G::SYMMETRIES.iter().enumerate() {
                for (c, &from) in symmetry.iter().enumerate() {
                    let (w, at) = (c / G::CELLS_PER_WORD, c % G::CELLS_PER_WORD);
                    let seen = views.word(s, w)[i] >> (at as u32 * G::CELL_BITS) & mask;
                    assert_eq!(
                        seen, cells[from as usize] as u64,
                        "{}: view {s} shows {seen} at cell {c} of {state:?}, but cell {from} holds {}",
                        G::GAME, cells[from as usize]
                    );
                }
            }
        }
    }
}

/// Temporal coherence's two sums per weight, `(E, A)` for each table of a network, as the CPU
/// re-implementation [`averaged_game`] keeps them.
pub type CoherenceSums = [(Vec<f32>, Vec<f32>)];

/// The run the averaged oracles re-implement: seeded `seed`, `step` per weight per unit of TD
/// error, `steps` moves a unit a launch (a weight's change is divided by `⌈hits / steps⌉`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AveragedRun {
    /// The run's seed.
    pub seed: u32,
    /// The learning rate.
    pub step: f32,
    /// Moves a unit a launch.
    pub steps: u32,
}

/// A CPU re-implementation of game `number` of a run seeded `seed` learned with averaged
/// updates in a launch of its own (the GPU trainer's `TdShape::averaged`): the game is played
/// greedily on the starting weights; each learned entry asks `step · δ` of its lookups, the
/// next target being `reward + v + lookups · step · δ`; then every weight moves by what was
/// asked of it divided by `⌈hits / steps⌉`, scaled by its temporal-coherence rate when
/// `coherence` holds the sums (which take the change). Returns the score and the last state.
pub fn averaged_game<G: TupleGame>(
    game: &G,
    net: &mut NTupleNetwork,
    number: u32,
    run: AveragedRun,
    coherence: Option<&mut CoherenceSums>,
) -> (u64, G::State) {
    averaged_games(game, net, &[&[number]], run, coherence)[0]
}

/// [`averaged_game`] for several games in one launch, each slice of `copies` the games that add
/// into one copy of the sums, one game after another (the device's copies of the averaged sums:
/// a unit adds into its own copy, and a unit that ends a game takes the next): every game is
/// played on the starting weights, and a weight's copies are added in order, leaving out
/// those no game of which read it. Returns each game's score and last state, in order.
pub fn averaged_games<G: TupleGame>(
    game: &G,
    net: &mut NTupleNetwork,
    copies: &[&[u32]],
    run: AveragedRun,
    coherence: Option<&mut CoherenceSums>,
) -> Vec<(u64, G::State)> {
    let AveragedRun { seed, step, steps } = run;
    let fresh = || NTupleNetwork::staged::<G>(net.shapes(), net.stages()).unwrap();
    // The weights every game reads: as they stood when the launch began.
    let mut reads = fresh();
    for t in 0..net.tables() {
        reads.set_table(t, net.table(t).into_iter());
    }
    let lookups = net.lookups() as f32;
    let mut played = Vec::new();
    let mut sums = Vec::new();
    for &numbers in copies {
        let (pending, hits) = (fresh(), fresh());
        for &number in numbers {
            let mut rng = XorShift32::for_worker(seed, number);
            let mut s = game.initial(&mut rng);
            let (mut path, mut score) = (Vec::new(), 0u64);
            while let Some((_, after, reward)) = greedy(game, &reads, s) {
                score += reward as u64;
                path.push((after, reward));
                s = game.sample_chance(&after, &mut rng);
            }
            let mut target = 0.0f32;
            for &(after, reward) in path.iter().rev() {
                let v = reads.value(game, after);
                let delta = step * (target - v);
                pending.update(game, after, delta);
                hits.update(game, after, 1.0);
                target = reward as f32 + v + lookups * delta;
            }
            played.push((score, s));
        }
        sums.push((pending, hits));
    }
    let (mut pending, mut hits) = (fresh(), fresh());
    for t in 0..net.tables() {
        let mut sum = vec![0.0f32; net.table(t).len()];
        let mut count = vec![0.0f32; sum.len()];
        for (p, h) in &sums {
            for (i, (&p, &h)) in p.table(t).iter().zip(&h.table(t)).enumerate() {
                if h > 0.0 {
                    sum[i] = if count[i] == 0.0 { p } else { sum[i] + p };
                    count[i] += h;
                }
            }
        }
        pending.set_table(t, sum.into_iter());
        hits.set_table(t, count.into_iter());
    }
    apply_averaged(net, &pending, &hits, steps, coherence);
    played
}

/// Game `number` of a run seeded `seed` as the GPU trainer learns it forward with averaged
/// updates (`TdShape::forward`), in launches of `per_launch` move choices (the last, finding
/// no move, counts): each afterstate asks `step · δ` of its lookups once the next move is
/// chosen, `δ` that move's `reward + V` (0 at the end) less the afterstate's value when it
/// was chosen (`reward + V` less the reward); after each launch every weight moves by what was
/// asked of it divided by `⌈hits / steps⌉`, and the next launch reads the moved weights.
/// Returns the score and the last state.
pub fn averaged_forward_game<G: TupleGame>(
    game: &G,
    net: &mut NTupleNetwork,
    number: u32,
    run: AveragedRun,
    per_launch: u32,
) -> (u64, G::State) {
    let AveragedRun { seed, step, steps } = run;
    let (shapes, stages) = (net.shapes().to_vec(), net.stages().to_vec());
    let fresh = || NTupleNetwork::staged::<G>(&shapes, &stages).unwrap();
    let (mut pending, mut hits) = (fresh(), fresh());
    let mut rng = XorShift32::for_worker(seed, number);
    let mut s = game.initial(&mut rng);
    let (mut before, mut score, mut choices) = (None, 0u64, 0u32);
    loop {
        if choices == per_launch {
            apply_averaged(net, &pending, &hits, steps, None);
            (pending, hits, choices) = (fresh(), fresh(), 0);
        }
        choices += 1;
        let next = greedy(game, net, s);
        let target = next.map_or(0.0, |(_, after, reward)| {
            reward as f32 + net.value(game, after)
        });
        if let Some((after, chosen)) = before {
            let delta = step * (target - chosen);
            pending.update(game, after, delta);
            hits.update(game, after, 1.0);
        }
        let Some((_, after, reward)) = next else {
            break;
        };
        score += reward as u64;
        before = Some((after, target - reward as f32));
        s = game.sample_chance(&after, &mut rng);
    }
    apply_averaged(net, &pending, &hits, steps, None);
    (score, s)
}

/// Moves each weight of `net` by what `pending` asked of it divided by `⌈hits / steps⌉`, scaled
/// by its temporal-coherence rate when `coherence` holds the sums (which take the change): an
/// averaged launch's apply kernel.
fn apply_averaged(
    net: &mut NTupleNetwork,
    pending: &NTupleNetwork,
    hits: &NTupleNetwork,
    steps: u32,
    mut coherence: Option<&mut CoherenceSums>,
) {
    for t in 0..net.tables() {
        let (p, h) = (pending.table(t), hits.table(t));
        let w: Vec<f32> = net
            .table(t)
            .iter()
            .zip(p.iter().zip(&h))
            .enumerate()
            .map(|(i, (&w, (&p, &h)))| {
                if h == 0.0 {
                    return w;
                }
                let asked = p / (h as u32).div_ceil(steps) as f32;
                match coherence.as_deref_mut() {
                    None => w + asked,
                    Some(sums) => {
                        let (e, a) = (&mut sums[t].0[i], &mut sums[t].1[i]);
                        let change = asked * coherence_rate(*e, *a);
                        *e += asked;
                        *a += asked.abs();
                        w + change
                    }
                }
            })
            .collect();
        net.set_table(t, w.into_iter());
    }
}

/// A bare test game: 16 cells of `BITS` bits on a 4×4 square, no moves.
#[cfg(test)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Cells16Game<const BITS: u32>;

/// A state of [`Cells16Game`]: its cell values.
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Cells16(pub [u8; 16]);

#[cfg(test)]
const SQUARE: [[u8; 16]; 8] = crate::game::square_symmetries::<4, 16>();

#[cfg(test)]
impl<const BITS: u32> StochasticGame for Cells16Game<BITS> {
    type State = Cells16;
    type Action = u8;
    const NAME: &'static str = "cells16";
    const ACTIONS: &'static [u8] = &[0];
    fn afterstate(&self, _: &Cells16, _: u8) -> Option<(Cells16, u32)> {
        None
    }
    fn chance_outcomes(&self, after: &Cells16, out: &mut Vec<(Cells16, u32)>) {
        out.push((*after, 1));
    }
    fn sample_chance(&self, after: &Cells16, _: &mut cubesearch_core::rng::XorShift32) -> Cells16 {
        *after
    }
    fn initial(&self, _: &mut cubesearch_core::rng::XorShift32) -> Cells16 {
        Cells16([0; 16])
    }
    fn parse_position(&self, text: &str) -> cubesearch_core::Result<Cells16> {
        Err(cubesearch_core::Error::parse(format!(
            "no positions: {text}"
        )))
    }
    fn format_position(&self, s: &Cells16) -> String {
        format!("{:?}", s.0)
    }
    fn format_action(&self, a: u8) -> String {
        a.to_string()
    }
}

#[cfg(test)]
impl<const BITS: u32> TupleBoard for Cells16Game<BITS> {
    type Board = <Self as StochasticGame>::State;
    const GAME: &'static str = <Self as StochasticGame>::NAME;
    const CELLS: usize = 16;
    const CELL_BITS: u32 = BITS;
    const SYMMETRIES: &'static [&'static [u8]] = &[
        &SQUARE[0], &SQUARE[1], &SQUARE[2], &SQUARE[3], &SQUARE[4], &SQUARE[5], &SQUARE[6],
        &SQUARE[7],
    ];
    const CELLS_PER_WORD: usize = 8;
    const MILESTONES: &'static [u32] = &[];
    const SHAPES: &'static [(&'static str, &'static [&'static [u8]])] =
        &[("rows", &[&[0, 1, 2, 3], &[4, 5, 6, 7]])];
    type Views<const N: usize> = [[[u64; N]; 2]; 8];

    fn cells(&self, state: &Cells16, out: &mut [u8]) {
        out.copy_from_slice(&state.0);
    }
    fn views<const N: usize>(&self, states: [Cells16; N]) -> Self::Views<N> {
        crate::game::pack_views(self, states)
    }
    fn progress(&self, state: &Cells16) -> u32 {
        state.0.iter().copied().max().unwrap_or(0) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_views_show_the_symmetric_cells() {
        let mut rng = cubesearch_core::rng::XorShift32::for_worker(3, 0);
        let states: Vec<Cells16> = (0..9)
            .map(|_| Cells16(std::array::from_fn(|_| rng.below(32) as u8)))
            .collect();
        check_views(&Cells16Game::<5>, &states);
        // The eight symmetries are distinct permutations; a quarter turn sends the top-left
        // corner to the top-right one.
        let mut seen = std::collections::HashSet::new();
        for s in SQUARE {
            let mut sorted = s;
            sorted.sort();
            assert_eq!(sorted, std::array::from_fn(|i| i as u8));
            assert!(seen.insert(s));
        }
        assert_eq!((SQUARE[1][0], SQUARE[4][0], SQUARE[4][4]), (3, 3, 7));
    }
}
