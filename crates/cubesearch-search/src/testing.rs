//! For game authors: the checks that hold a game's device rules to its host rules, the same
//! ones this library runs on its own games. Reach them as `cubesearch::testing`.
//!
//! A new game's tests, in order:
//! 1. **Inputs**: [`random_positions`] (or [`random_stochastic_positions`]) gives reachable
//!    positions, finished ones included, the same for a seed.
//! 2. **Backends**: [`executor`] gives the executor of each backend built in: wgpu always,
//!    CUDA with the `cuda` feature. Loop over `[Backend::Wgpu, Backend::Cuda]`; `None` means
//!    only that CUDA is not compiled in.
//! 3. **Comparisons**: run the same call on a [`CpuExecutor`] and on each executor, and
//!    compare with [`assert_same`] (perft counts, playout results, minimax values),
//!    [`assert_same_root_values`] (expectimax, bit for bit) or [`assert_same_weights`] (TD).
//!    A two-player game's rules are held to the host's in one call, on every backend, by
//!    [`assert_two_player_rules_match`]; a stochastic game's, every action and chance draw, by
//!    [`assert_stochastic_rules_match`].
//!
//! On a machine without a GPU, wgpu runs on Mesa's lavapipe (`apt-get install
//! mesa-vulkan-drivers`), which is how CI checks every kernel. A missing wgpu adapter is a
//! test failure that says how to install it, never a silent skip. docs/GUIDE.md section 4
//! shows a whole test, and the facade's `cubesearch::testing` a short one.

use crate::stochastic_rules::{DeviceAction, StochasticRules};
use crate::{CpuExecutor, DeviceTask, Executor, GpuExecutor};
use cubesearch_core::backend::{resolve, Backend};
use cubesearch_core::rng::XorShift32;
use cubesearch_core::{Game, Perft, Playouts, RootValue, StochasticGame};
use cubesearch_kernels::scores::{launch_children, launch_scores, DevicePosition};
use cubesearch_kernels::{GpuGame, GpuStochasticGame};

/// Every way the lanes of a TD game can exchange cells on `client`'s device: through the cube
/// always, through planes where they fit ([`cubesearch_kernels::launch::planes_fit`]).
pub fn lane_exchanges<R: cubecl::Runtime>(
    client: &cubecl::prelude::ComputeClient<R>,
) -> Vec<cubesearch_kernels::td::LaneExchange> {
    use cubesearch_kernels::td::LaneExchange;
    let mut all = vec![LaneExchange::Cube];
    if cubesearch_kernels::launch::planes_fit(client) {
        all.push(LaneExchange::Plane);
    }
    all
}

/// The executor for `backend`, or `None` for CUDA in a build without the `cuda` feature.
///
/// # Panics
/// When the backend is compiled in but cannot start: a test environment must provide it.
pub fn executor(backend: Backend) -> Option<Executor> {
    if backend == Backend::Cuda && !cfg!(feature = "cuda") {
        eprintln!(
            "cuda: not built into this test binary (build with --features cuda on an NVIDIA host)"
        );
        return None;
    }
    let resolved = resolve(backend).unwrap_or_else(|e| match backend {
        Backend::Wgpu => panic!(
            "{e}\nThe wgpu tests need a Vulkan driver: on Debian/Ubuntu run \
             `apt-get install mesa-vulkan-drivers` (scripts/test does this)."
        ),
        _ => panic!("{e}"),
    });
    Some(Executor::on(&resolved).unwrap_or_else(|e| panic!("{e}")))
}

/// Holds `gpu`'s device rules of a stochastic game to the host's, bit for bit: every action of
/// every state in `states`, one chance draw from each, and `games` random games (seed 4).
/// Returns the actions, for checks of the caller's own.
pub fn assert_stochastic_rules_match<G: GpuStochasticGame>(
    gpu: &mut impl StochasticRules,
    game: &G,
    states: &[G::State],
    games: usize,
) -> Vec<Vec<DeviceAction<G::State>>> {
    let mut cpu = CpuExecutor::new(1).unwrap();
    let want = cpu.actions(game, states).unwrap();
    let got = gpu.actions(game, states).unwrap();
    assert_same("actions", &want, &got);
    let rngs: Vec<u32> = (0..states.len() as u32)
        .map(|i| XorShift32::for_worker(8, i).0)
        .collect();
    let want = cpu.chance_samples(game, states, &rngs).unwrap();
    let got_chance = gpu.chance_samples(game, states, &rngs).unwrap();
    assert_same("chance", &want.0, &got_chance.0);
    assert_same("rngs", &want.1, &got_chance.1);
    let want = cpu.random_games(game, games, 4).unwrap();
    assert_same(
        "random games",
        &want,
        &gpu.random_games(game, games, 4).unwrap(),
    );
    got
}

/// Holds a two-player game's device rules to its host rules on each of `backends` that is built
/// in (CUDA without the `cuda` feature is skipped, as [`executor`] says), for every state in
/// `states` (finished ones included): the outcome, the score, the move count, each move's
/// child (device `play(s, i)` equals host `apply(s, legal_moves(s)[i])`), perft to depth 2,
/// and 8 random playouts from each state (seed 7). Returns the backends it checked.
///
/// # Panics
/// At the first difference, naming the check and the state's index; when a backend that is
/// built in cannot start.
pub fn assert_two_player_rules_match<G: GpuGame>(
    game: &G,
    states: &[G::State],
    backends: &[Backend],
) -> Vec<Backend> {
    let mut cpu = CpuExecutor::new(0).unwrap();
    let moves: Vec<Vec<G::Move>> = states.iter().map(|s| game.moves(s)).collect();
    let want: Vec<DevicePosition<G::State>> = states
        .iter()
        .zip(&moves)
        .map(|(s, moves)| DevicePosition {
            outcome: game.outcome(s).code(),
            moves: moves.len() as u32,
            children: moves.iter().map(|&m| game.apply(s, m)).collect(),
        })
        .collect();
    let want_scores: Vec<i32> = states.iter().map(|s| game.score(s)).collect();
    let most = moves.iter().map(Vec::len).max().unwrap_or(0);
    let perft: Vec<Vec<u64>> = (1..=2)
        .map(|depth| cpu.perft(game, states, depth).unwrap())
        .collect();
    let playouts = cpu.playouts(game, states, 8, 7).unwrap();
    let mut checked = Vec::new();
    for &backend in backends {
        let Some(mut exec) = executor(backend) else {
            continue;
        };
        let at = |what: &str| format!("{what} ({})", backend.name());
        // On the CPU executor the rules are the host's own: only its perft and playouts run.
        if !exec.is_cpu() {
            let task = Rules { game, states, most };
            let (got, scores) = exec.on_device(task, "").unwrap();
            let facts = |p: &[DevicePosition<G::State>]| -> Vec<(u32, u32)> {
                p.iter().map(|p| (p.outcome, p.moves)).collect()
            };
            assert_same(
                &at("(outcome code, move count)"),
                &facts(&want),
                &facts(&got),
            );
            assert_same(&at("scores"), &want_scores, &scores);
            // The counts agree: what is left to differ is the children, in move order.
            assert_same(
                &at("children: play(s, i) against apply(s, legal_moves(s)[i])"),
                &want,
                &got,
            );
        }
        for (depth, want) in (1..=2).zip(&perft) {
            let got = exec.perft(game, states, depth).unwrap();
            assert_same(&at(&format!("perft to depth {depth}")), want, &got);
        }
        let got = exec.playouts(game, states, 8, 7).unwrap();
        assert_same(&at("playouts"), &playouts, &got);
        checked.push(backend);
    }
    checked
}

/// The device's view of `states` ([`launch_children`], [`launch_scores`]) on one GPU.
struct Rules<'a, G: GpuGame> {
    game: &'a G,
    states: &'a [G::State],
    /// Children kept a state: the most moves any state has on the host.
    most: usize,
}

impl<G: GpuGame> DeviceTask for Rules<'_, G> {
    type Output = (Vec<DevicePosition<G::State>>, Vec<i32>);
    fn run<R: cubecl::Runtime>(
        self,
        gpu: &GpuExecutor<R>,
    ) -> cubesearch_core::Result<Self::Output> {
        let children = launch_children(gpu.client(), self.game, self.states, self.most)?;
        Ok((
            children,
            launch_scores(gpu.client(), self.game, self.states)?,
        ))
    }
}

/// Asserts that `gpu` equals the CPU oracle's `cpu`, naming the first index that differs.
pub fn assert_same<T: PartialEq + std::fmt::Debug>(what: &str, cpu: &[T], gpu: &[T]) {
    assert_eq!(
        cpu.len(),
        gpu.len(),
        "{what}: {} results on the CPU, {} on the GPU",
        cpu.len(),
        gpu.len()
    );
    if let Some(i) = cpu.iter().zip(gpu).position(|(c, g)| c != g) {
        panic!(
            "{what}: first difference at {i}: CPU {:?}, GPU {:?}",
            cpu[i], gpu[i]
        );
    }
}

/// Asserts that the device's expectimax results equal the CPU oracle's bit for bit: the same
/// best actions, legal actions and f32 values (`==` on the bits, so `0.0` and `-0.0` differ).
pub fn assert_same_root_values(what: &str, cpu: &[RootValue], gpu: &[RootValue]) {
    let bits = |r: &RootValue| {
        let actions: Vec<Option<u32>> = r.actions.iter().map(|a| a.map(f32::to_bits)).collect();
        (r.best, r.value.to_bits(), actions)
    };
    let cpu: Vec<_> = cpu.iter().map(bits).collect();
    let gpu: Vec<_> = gpu.iter().map(bits).collect();
    assert_same(
        &format!("{what} (best, value bits, action value bits)"),
        &cpu,
        &gpu,
    );
}

/// Asserts that two lists of f32 weights are equal bit for bit.
pub fn assert_same_weights(what: &str, cpu: &[f32], gpu: &[f32]) {
    let bits = |w: &[f32]| w.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    assert_same(&format!("{what} (weight bits)"), &bits(cpu), &bits(gpu));
}

/// `count` positions reached by random games from the start, each cut after
/// `rng.below(max_plies)` plies or at the game's end (finished positions included): the inputs of
/// property and parity tests. Deterministic for a seed.
pub fn random_positions<G: Game>(
    game: &G,
    count: usize,
    max_plies: u32,
    seed: u32,
) -> Vec<G::State> {
    let mut rng = XorShift32::for_worker(seed, 0);
    let mut moves = Vec::new();
    (0..count)
        .map(|_| {
            let mut board = game.initial();
            for _ in 0..rng.below(max_plies) {
                moves.clear();
                game.legal_moves(&board, &mut moves);
                if moves.is_empty() {
                    break;
                }
                board = game.apply(&board, moves[rng.below(moves.len() as u32) as usize]);
            }
            board
        })
        .collect()
}

/// The first `count` positions of random games of a stochastic game, one after another (each
/// finished game included, then a new one): the inputs of device-rule and expectimax parity
/// tests. Deterministic for a seed.
pub fn random_stochastic_positions<G: StochasticGame>(
    game: &G,
    count: usize,
    seed: u32,
) -> Vec<G::State> {
    let mut rng = XorShift32::for_worker(seed, 0);
    let (mut out, mut legal) = (Vec::with_capacity(count), Vec::new());
    let mut s = game.initial(&mut rng);
    while out.len() < count {
        out.push(s);
        legal.clear();
        game.legal_actions(&s, &mut legal);
        if legal.is_empty() {
            s = game.initial(&mut rng);
            continue;
        }
        let (_, after, _) = legal[rng.below(legal.len() as u32) as usize];
        s = game.sample_chance(&after, &mut rng);
    }
    out
}
