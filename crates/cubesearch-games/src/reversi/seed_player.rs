//! The seed's Reversi players (seed 003) as [`Player`]s: `easy` and `medium`, on the CPU or, with
//! `exec=gpu`, scored on the device one unit per square as the seed's CUDA version
//! ([`device::seed_players`](super::device::seed_players)). The move choices themselves are
//! [`players`](super::players); both places give bit-identical square values and the
//! same reservoir draw, so a GPU player makes the CPU player's moves.

pub use super::players::Level;
use super::players::{easy_move, medium_move, reservoir_best};
use super::{is_finished, Board, Reversi, ReversiMove};
use cubecl::prelude::Runtime;
use cubesearch_core::backend::Backend;
use cubesearch_core::rng::XorShift32;
use cubesearch_core::{Error, Result};
use cubesearch_players::player::Player;
use cubesearch_players::spec::Exec;
use cubesearch_players::text::SpecText;
use cubesearch_search::{DeviceTask, Executor, GpuExecutor};

/// One of the seed's Reversi players, its ties drawn from its own seeded generator.
pub struct SeedReversiPlayer {
    level: Level,
    rng: XorShift32,
    /// Where squares are scored with `exec=gpu`, and the backend's name.
    device: Option<(Executor, String)>,
}

impl SeedReversiPlayer {
    /// A CPU player of `level` whose tie-breaks are drawn from a generator seeded with `seed`.
    pub fn new(level: Level, seed: u32) -> Self {
        Self {
            level,
            rng: XorShift32::for_worker(seed, 0x5EED_0003),
            device: None,
        }
    }

    /// The same player scoring squares on `exec` (a GPU executor).
    pub fn on_device(level: Level, seed: u32, exec: Executor, label: String) -> Self {
        Self {
            device: Some((exec, label)),
            ..Self::new(level, seed)
        }
    }
}

/// The value of every square of every board ([`device::seed_players`](super::device::seed_players)), in
/// one launch on a GPU executor.
pub fn device_square_values(
    exec: &Executor,
    boards: &[Board],
    level: Level,
) -> Result<Vec<[i32; 64]>> {
    struct SquareValues<'a>(&'a [Board], Level);
    impl DeviceTask for SquareValues<'_> {
        type Output = Vec<[i32; 64]>;
        fn run<R: Runtime>(self, gpu: &GpuExecutor<R>) -> Result<Self::Output> {
            super::device::seed_players::launch_seed_values(gpu.client(), self.0, self.1)
        }
    }
    exec.on_device(
        SquareValues(boards, level),
        "device square values need a GPU executor",
    )
}

/// Whole games of the AI of `level` against random, in one launch on a GPU executor
/// ([`launch_seed_match`](super::device::seed_players::launch_seed_match)): every game's move slots and
/// final disc difference.
pub fn device_seed_games(
    exec: &Executor,
    games: u32,
    seed: u32,
    level: Level,
) -> Result<(Vec<u32>, Vec<i32>)> {
    struct SeedGames {
        games: u32,
        seed: u32,
        level: Level,
    }
    impl DeviceTask for SeedGames {
        type Output = (Vec<u32>, Vec<i32>);
        fn run<R: Runtime>(self, gpu: &GpuExecutor<R>) -> Result<Self::Output> {
            super::device::seed_players::launch_seed_match(
                gpu.client(),
                self.games,
                self.seed,
                self.level,
            )
        }
    }
    let task = SeedGames { games, seed, level };
    exec.on_device(task, "whole games on the device need a GPU executor")
}

/// The seed's choice from a board's 64 square values: reservoir sampling over the best legal
/// squares in ascending order, as the CPU players draw.
pub fn choose_from_values(values: &[i32; 64], rng: &mut XorShift32) -> ReversiMove {
    use super::device::seed_players::NOT_LEGAL;
    reservoir_best(
        values
            .iter()
            .enumerate()
            .filter(|&(_, &v)| v != NOT_LEGAL)
            .map(|(sq, &v)| (sq as u8, v)),
        rng,
    )
}

impl Player<Reversi> for SeedReversiPlayer {
    fn name(&self) -> String {
        let level = match self.level {
            Level::Easy => "easy",
            Level::Medium => "medium",
        };
        match &self.device {
            None => level.into(),
            Some((_, label)) => format!("{level}:exec=gpu ({label})"),
        }
    }

    fn choose(&mut self, _game: &Reversi, state: &Board) -> Result<ReversiMove> {
        if is_finished(state) {
            return Err(Error::Unsupported("no legal move: the game is over".into()));
        }
        if let Some((exec, _)) = &self.device {
            let values = device_square_values(exec, std::slice::from_ref(state), self.level)?;
            return Ok(choose_from_values(&values[0], &mut self.rng));
        }
        Ok(match self.level {
            Level::Easy => easy_move(state, &mut self.rng),
            Level::Medium => medium_move(state, &mut self.rng),
        })
    }
}

/// The spec of one of the seed's players: `easy` or `medium`, `[:exec=cpu|gpu]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeedSpec {
    /// Which player.
    pub level: Level,
    /// Where its squares are scored (default: the CPU).
    pub exec: Exec,
}

impl SeedSpec {
    /// Reads `easy`/`medium[:exec=cpu|gpu]`, if `spec` names one of them.
    pub fn parse(spec: &SpecText) -> Option<Result<SeedSpec>> {
        let level = match spec.name() {
            "easy" => Level::Easy,
            "medium" => Level::Medium,
            _ => return None,
        };
        Some(spec.options(&["exec"]).and_then(|options| {
            let mut exec = Exec::Cpu;
            for (_, value) in options {
                exec = spec.parse(value)?;
            }
            Ok(SeedSpec { level, exec })
        }))
    }

    /// The player this spec names; `backend` is where `exec=gpu` runs.
    pub fn build(&self, backend: Backend, seed: u32) -> Result<Box<dyn Player<Reversi>>> {
        Ok(match self.exec {
            Exec::Cpu => Box::new(SeedReversiPlayer::new(self.level, seed)),
            Exec::Gpu => {
                let (exec, label) = Exec::Gpu.executor(backend)?;
                Box::new(SeedReversiPlayer::on_device(self.level, seed, exec, label))
            }
        })
    }
}
