//! Runs many games on CPU threads.
//!
//! Game number `g` of a run draws its randomness from `XorShift32::for_worker(seed, g)`, so one
//! thread replays a run exactly. Several threads learning share the network in one of two
//! ways ([`Sharing`]):
//! - **copies**: each thread learns on its own copy of the weights; after every round of
//!   about [`ROUND_MOVES`] moves a thread, each weight moves by the mean change of the copies
//!   that changed it, and every copy starts again from the result (the seed's 4.6 scheme, one
//!   agent a thread, with the GPU trainer's per-weight averaging). Thread `t` of `T` plays
//!   games `t, t + T, …`, and the sums run in thread order, so a run on a given number of
//!   threads replays exactly;
//! - **table**: the threads read and write one table without locks (the seed's 4.3). Their
//!   updates interleave, so a run is not bit-reproducible. Every thread writes the table's hot
//!   weights (the empty and nearly empty tuples every game passes through), and each write
//!   takes the cache line from every other core: with a 4-tuple network of 5-bit cells 16 threads
//!   learned no faster than one.
//!
//! The default, [`Sharing::Auto`], takes copies for a network of at most [`AUTO_COPY_BYTES`]
//! and the table above: merging large copies costs more than their games (on two threads,
//! 2048's 256 MB `4x6patt` ran 2.8 M moves/s on copies and 5.2 M on one table, a 16 MB
//! network 6.3 M on copies and 3.1 M on the table; docs/BENCHMARKS.md, row "`--sharing`").
//! Copies take a network's weights once a thread; above [`MAX_COPY_BYTES`] in all, the threads
//! share the table whatever was asked. Play without learning always reads the one network.

use crate::game::TupleGame;
use crate::network::NTupleNetwork;
use crate::td::{play_episode, random_episode, Episode, Learning, Trajectory};
use cubesearch_core::rng::XorShift32;
use cubesearch_core::{Result, Stop};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Barrier, OnceLock};

/// How the games of a run are played.
#[derive(Clone, Copy, Debug)]
pub enum Policy<'a> {
    /// Greedy on the network; learn as given, if given.
    Greedy(&'a NTupleNetwork, Option<Learning>),
    /// Uniformly random legal moves.
    Random,
}

/// How several learning threads share the weights (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sharing {
    /// Copies for a network of at most [`AUTO_COPY_BYTES`], one table above.
    #[default]
    Auto,
    /// A copy a thread, merged every round (a run replays exactly).
    Copies,
    /// One table, read and written without locks.
    Table,
}

/// The largest network [`Sharing::Auto`] gives each thread a copy of.
pub const AUTO_COPY_BYTES: usize = 32 << 20;

impl Sharing {
    /// How `threads` threads learning on a network of `network_bytes` share it: copies when
    /// asked (or, for `Auto`, when the network is small) and they fit [`MAX_COPY_BYTES`],
    /// else the table.
    pub fn resolve(self, threads: usize, network_bytes: usize) -> Sharing {
        let copies_fit = threads.saturating_mul(network_bytes) <= MAX_COPY_BYTES;
        match self {
            Sharing::Auto if network_bytes <= AUTO_COPY_BYTES && copies_fit => Sharing::Copies,
            Sharing::Copies if copies_fit => Sharing::Copies,
            _ => Sharing::Table,
        }
    }
}

impl std::str::FromStr for Sharing {
    type Err = cubesearch_core::Error;

    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(Sharing::Auto),
            "copies" => Ok(Sharing::Copies),
            "table" => Ok(Sharing::Table),
            other => Err(cubesearch_core::Error::parse(format!(
                "unknown weight sharing '{other}': auto, copies or table"
            ))),
        }
    }
}

/// Moves a thread plays between two merges of the copies (about 20 ms of play). Longer rounds
/// learn less a game, shorter ones spend more time merging.
pub const ROUND_MOVES: u64 = 1 << 16;

/// Weights a bit of a thread's record of the weights it changed stands for.
const MERGE_BLOCK: usize = 64;

/// The most bytes of weight copies a run makes; beyond, the threads share the table.
pub const MAX_COPY_BYTES: usize = 2 << 30;

/// The number of threads to use for `requested` (0 = every core).
pub fn thread_count(requested: usize) -> usize {
    if requested > 0 {
        requested
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}

/// Which games a run plays, on how many threads, until when.
#[derive(Clone, Debug)]
pub struct Schedule<'a> {
    /// Game numbers: game `g` draws from `XorShift32::for_worker(seed, g)`.
    pub games: std::ops::Range<u64>,
    /// The run's seed.
    pub seed: u32,
    /// CPU threads (0 = every core).
    pub threads: usize,
    /// Raised: each thread ends its game in hand and takes no other.
    pub stop: &'a Stop,
    /// How several threads learning share the weights (see the module docs).
    pub sharing: Sharing,
}

/// Plays the games of `schedule`, handing each finished game to `on_game` on the calling thread
/// (in the order they finish). An error from `on_game` stops the run and is returned; a raised
/// stop ends it once each thread's game in hand is over.
pub fn run_games<G: TupleGame>(
    game: &G,
    policy: Policy<'_>,
    schedule: Schedule<'_>,
    mut on_game: impl FnMut(Episode) -> Result<()>,
) -> Result<()> {
    let Schedule {
        games: range,
        seed,
        threads,
        stop,
        sharing: schedule_sharing,
    } = schedule;
    let (first, games) = (range.start, range.end.saturating_sub(range.start));
    let play = |g: u64, path: &mut Trajectory<G>| {
        let mut rng = XorShift32::for_worker(seed, g as u32);
        match policy {
            Policy::Greedy(net, learning) => play_episode(game, net, &mut rng, learning, path),
            Policy::Random => random_episode(game, &mut rng),
        }
    };
    let threads = thread_count(threads).min(games.max(1) as usize);
    if let Policy::Greedy(net, Some(learning)) = policy {
        let sharing = schedule_sharing.resolve(threads, net.memory_bytes());
        if threads > 1 && sharing == Sharing::Copies {
            let schedule = Schedule {
                games: range,
                seed,
                threads,
                stop,
                sharing,
            };
            return run_on_copies(game, net, learning, schedule, on_game);
        }
    }
    if threads <= 1 {
        let mut path = Trajectory::default();
        for g in first..first + games {
            if stop.is_raised() {
                break;
            }
            on_game(play(g, &mut path))?;
        }
        return Ok(());
    }
    let next = AtomicU64::new(first);
    let failed = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<Episode>();
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, failed, play) = (&next, &failed, &play);
            scope.spawn(move || {
                let mut path = Trajectory::default();
                while !failed.load(Ordering::Relaxed) && !stop.is_raised() {
                    let g = next.fetch_add(1, Ordering::Relaxed);
                    if g >= first + games || tx.send(play(g, &mut path)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        hand_over(rx, &failed, &mut on_game)
    })
}

/// [`run_games`] learning on a copy of `net` a thread, merged every round (see the module
/// docs).
fn run_on_copies<G: TupleGame>(
    game: &G,
    net: &NTupleNetwork,
    learning: Learning,
    schedule: Schedule<'_>,
    mut on_game: impl FnMut(Episode) -> Result<()>,
) -> Result<()> {
    let Schedule {
        games,
        seed,
        threads,
        stop,
        ..
    } = schedule;
    net.check_replicas_fit(threads)?;
    let copies: Vec<OnceLock<NTupleNetwork>> = (0..threads).map(|_| OnceLock::new()).collect();
    let blocks = net.weight_count().div_ceil(MERGE_BLOCK);
    let changed: Vec<ChangedBlocks> = (0..threads).map(|_| ChangedBlocks::new(blocks)).collect();
    let playing = StillPlaying::default();
    let failed = AtomicBool::new(false);
    let barrier = Barrier::new(threads);
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<Episode>();
        for t in 0..threads {
            let tx = tx.clone();
            let (copies, changed, playing, failed, barrier, games) =
                (&copies, &changed, &playing, &failed, &barrier, &games);
            let ended = move || failed.load(Ordering::Relaxed) || stop.is_raised();
            scope.spawn(move || {
                let copy = copies[t].get_or_init(|| net.replica());
                let mut path = Trajectory::default();
                let mut g = games.start + t as u64;
                for round in 0.. {
                    let mut moves = 0u64;
                    while moves < ROUND_MOVES && g < games.end && !ended() {
                        let mut rng = XorShift32::for_worker(seed, g as u32);
                        let episode = play_episode(game, copy, &mut rng, Some(learning), &mut path);
                        changed[t].mark(path.indices());
                        moves += episode.moves as u64;
                        if tx.send(episode).is_err() {
                            failed.store(true, Ordering::Relaxed);
                        }
                        g += threads as u64;
                    }
                    let more = g < games.end && !ended();
                    playing.report(round, t, more);
                    barrier.wait();
                    let all: Vec<&NTupleNetwork> =
                        copies.iter().map(|c| c.get().unwrap()).collect();
                    merge_blocks(
                        net,
                        &all,
                        changed,
                        blocks * t / threads..blocks * (t + 1) / threads,
                    );
                    barrier.wait();
                    changed[t].clear();
                    if !playing.any(round) {
                        break;
                    }
                }
            });
        }
        drop(tx);
        hand_over(rx, &failed, &mut on_game)
    })
}

/// The blocks of [`MERGE_BLOCK`] weights one thread's games changed this round, a bit a block:
/// a merge reads a copy only where it learned. Its thread writes it while the games run, and
/// the merging threads read it between two barriers.
struct ChangedBlocks(Vec<AtomicU64>);

impl ChangedBlocks {
    fn new(blocks: usize) -> Self {
        ChangedBlocks(
            (0..blocks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
        )
    }

    /// Marks the blocks of the weights `indices`.
    fn mark(&self, indices: &[u32]) {
        for &i in indices {
            let block = i as usize / MERGE_BLOCK;
            let word = &self.0[block / 64];
            // A plain load and store: no other thread writes this word meanwhile.
            word.store(
                word.load(Ordering::Relaxed) | 1 << (block % 64),
                Ordering::Relaxed,
            );
        }
    }

    fn has(&self, block: usize) -> bool {
        self.0[block / 64].load(Ordering::Relaxed) >> (block % 64) & 1 == 1
    }

    fn clear(&self) {
        for word in &self.0 {
            word.store(0, Ordering::Relaxed);
        }
    }
}

/// [`NTupleNetwork::merge_copies`] over the weights of `blocks`, each block reading only the
/// copies that changed it.
fn merge_blocks(
    net: &NTupleNetwork,
    copies: &[&NTupleNetwork],
    changed: &[ChangedBlocks],
    blocks: std::ops::Range<usize>,
) {
    let mut learners = Vec::with_capacity(copies.len());
    for block in blocks {
        learners.clear();
        learners.extend((0..copies.len()).filter(|&c| changed[c].has(block)));
        if !learners.is_empty() {
            let start = block * MERGE_BLOCK;
            let end = (start + MERGE_BLOCK).min(net.weight_count());
            net.merge_copies(copies, &learners, start..end);
        }
    }
}

/// Whether any thread has games left after a round. Round `r` counts in slot `r % 3`: read
/// after the round's second barrier, and cleared by thread 0 in round `r + 2`, before that
/// round's first barrier, when nobody reads or counts it.
#[derive(Default)]
struct StillPlaying([AtomicUsize; 3]);

impl StillPlaying {
    /// Thread `t` ends round `round`, with games left or not (before the round's first
    /// barrier).
    fn report(&self, round: usize, t: usize, more: bool) {
        if more {
            self.0[round % 3].fetch_add(1, Ordering::Relaxed);
        }
        if t == 0 {
            self.0[(round + 1) % 3].store(0, Ordering::Relaxed);
        }
    }

    /// Whether a thread had games left after `round` (after the round's second barrier).
    fn any(&self, round: usize) -> bool {
        self.0[round % 3].load(Ordering::Relaxed) > 0
    }
}

/// Hands the threads' finished games to `on_game` on this thread until they are all done; after
/// an error from it, tells them it `failed` and returns the error once they are.
fn hand_over(
    rx: mpsc::Receiver<Episode>,
    failed: &AtomicBool,
    on_game: &mut impl FnMut(Episode) -> Result<()>,
) -> Result<()> {
    let mut result = Ok(());
    for episode in rx {
        if result.is_ok() {
            result = on_game(episode);
            if result.is_err() {
                failed.store(true, Ordering::Relaxed);
            }
        }
    }
    result
}
