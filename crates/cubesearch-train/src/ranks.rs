//! TD(0) as one rank of several, one GPU each (one process a GPU under a launcher, or one
//! thread a rank in tests): every rank plays its slice of each call's games on its own device,
//! with its own copy of the weights, and the ranks meet through a [`Collective`]. At a meeting
//! each rank hands in its changes since the last one, `w − base`, and every rank moves each
//! weight by the **mean change of the ranks that changed it**, as the CPU trainer's copies
//! merge: ranks that learned from the same common positions each moved those weights most of
//! the way, so their sum overshoots by the world size (with the sum, 4 ranks' greedy mean fell
//! to 3–12 k where one GPU's reached 100 k), while a weight one rank alone
//! changed keeps that rank's whole change. The weights never leave the devices.
//!
//! Rank 0 leads: its [`TdEngine`] is what `train_on` drives (progress, curve, checkpoints,
//! resuming), and it opens each call by sending its games, seed, step and time left to the
//! others, which [`RankTd::follow`] until the leader [`RankTd::finish`]es. Every rank's first
//! meeting gives all of them rank 0's weights, so a run resumes from rank 0's file at any world
//! size.
//!
//! Ranks meet every few launches, games in flight, as many launches as the ranks measured to
//! take rank 0's interval ([`RankTd::meeting_interval`], [`MERGE_EVERY`] unless told; it goes
//! out with each call, and every rank computes the same number from the same sums). A rank whose
//! slice has ended keeps meeting until no rank is playing, so the last meeting holds every
//! change. The other ranks' finished games reach the leader at meetings, and `train_on` counts
//! every game of the run.

use crate::collective::Collective;
use crate::engine::{TdEngine, TdGames};
use crate::gpu::{episode, GpuTd};
use cubecl::prelude::*;
use cubecl::server::Handle;
use cubesearch_core::{Error, Result, Stop};
use cubesearch_kernels::td::{DeviceTd, TdGame};
use cubesearch_kernels::GpuStochasticGame;
use cubesearch_learn::{Episode, NTupleNetwork, TupleGame};
use std::cell::RefCell;
use std::time::{Duration, Instant};

/// How often ranks meet unless told ([`RankTd::meeting_interval`]): every launch is a few
/// milliseconds on an H200, and a meeting sums the weights' changes and marks (512 MB for
/// 2048's 4x6patt network).
pub const MERGE_EVERY: Duration = Duration::from_secs(2);

/// Launches before the first meeting, before any rate is known.
const FIRST_LAUNCHES: u64 = 8;

/// A call the leader sends: `[what, first game, games, seed, step's bits, ms left + 1 (0: no
/// deadline), meeting interval in µs]`.
const CALL_WORDS: usize = 7;
const PLAY: u64 = 1;
const STOP: u64 = 2;

/// One rank's TD(0) engine (see the module docs).
pub struct RankTd<R: Runtime, G: GpuStochasticGame, C: Collective<R>> {
    agent: GpuTd<R, G>,
    collective: C,
    /// The weights every rank held at the last meeting (after the first).
    base: Option<Handle>,
    /// Launches between meetings: fixed, or measured toward `interval`.
    fixed_launches: Option<u64>,
    interval: Duration,
    launches: u64,
    meetings: u64,
    /// When the run ends (the leader sends the time left with every call).
    deadline: Option<Instant>,
}

impl<R: Runtime, G: GpuStochasticGame, C: Collective<R>> RankTd<R, G, C> {
    /// Rank `collective.rank()` training with `agent` on its device.
    pub fn new(agent: GpuTd<R, G>, collective: C) -> Self {
        Self {
            agent,
            collective,
            base: None,
            fixed_launches: None,
            interval: MERGE_EVERY,
            launches: FIRST_LAUNCHES,
            meetings: 0,
            deadline: None,
        }
    }

    /// Meets about every `interval` of play (as many launches as took that long on average
    /// since the last meeting) instead of every [`MERGE_EVERY`]. Rank 0's interval is every
    /// rank's: it goes out with each call.
    pub fn meeting_interval(self, interval: Duration) -> Self {
        Self { interval, ..self }
    }

    /// How often this rank meets: its own until a call from rank 0 brings rank 0's.
    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// Meets every `launches` launches of each rank instead of about every `interval`
    /// (`u64::MAX`: only when every slice has ended). Every rank must be given the same.
    pub fn meeting_every(self, launches: u64) -> Self {
        Self {
            fixed_launches: Some(launches.max(1)),
            launches: launches.max(1),
            ..self
        }
    }

    /// The rank learning in `order` ([`GpuTd::with_order`]).
    pub fn with_order(self, order: cubesearch_learn::TdOrder) -> Self {
        Self {
            agent: self.agent.with_order(order),
            ..self
        }
    }

    /// Leaves the group after a failure, so that the other ranks stop rather than wait for
    /// this one ([`Collective::abandon`]).
    pub fn abandon(&mut self) {
        self.collective.abandon();
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.collective.rank()
    }

    /// Meetings held so far, the first (rank 0's weights to everyone) included.
    pub fn meetings(&self) -> u64 {
        self.meetings
    }

    /// A follower's loop: plays its slice of every call the leader sends until the leader
    /// [`finish`](RankTd::finish)es; `net` gives the network's shape (the weights come from
    /// rank 0). Returns the games this rank played.
    pub fn follow(&mut self, net: &NTupleNetwork) -> Result<u64> {
        if self.rank() == 0 {
            return Err(Error::Unsupported(
                "rank 0 leads: it does not follow".into(),
            ));
        }
        let mut played = 0u64;
        loop {
            let mut call = [0u64; CALL_WORDS];
            self.collective.sum_u64(&mut call)?;
            match call[0] {
                PLAY => self.play_call(net, &call, &mut |_| {
                    played += 1;
                    Ok(())
                })?,
                STOP => return Ok(played),
                other => {
                    return Err(Error::Unsupported(format!(
                        "rank {}: an unknown call {other} from the leader",
                        self.rank()
                    )))
                }
            }
        }
    }

    /// The leader's last call: the followers return from [`RankTd::follow`].
    pub fn finish(&mut self) -> Result<()> {
        if self.rank() != 0 {
            return Ok(());
        }
        let mut call = [0u64; CALL_WORDS];
        call[0] = STOP;
        let sent = self.collective.sum_u64(&mut call);
        if sent.is_err() {
            self.abandon();
        }
        sent
    }

    /// Plays this rank's slice of a call, meeting the others as it goes and after it ends;
    /// `on_game` gets every rank's games on the leader, this rank's on a follower.
    fn play_call(
        &mut self,
        net: &NTupleNetwork,
        call: &[u64; CALL_WORDS],
        on_game: &mut dyn FnMut(TdGame) -> Result<()>,
    ) -> Result<()> {
        let [_, first, games, seed, step, left, interval] = *call;
        let (seed, step) = (seed as u32, f32::from_bits(step as u32));
        self.interval = Duration::from_micros(interval.max(1));
        // Only the time left reaches every rank: a rank that stopped on its own flag would
        // leave the others waiting at the next meeting.
        self.agent.stop = match left {
            0 => Stop::new(),
            left => Stop::new().with_deadline(Instant::now() + Duration::from_millis(left - 1)),
        };
        let (rank, world) = (self.rank() as u64, self.collective.world() as u64);
        let slice = games.div_ceil(world);
        let (lo, hi) = ((rank * slice).min(games), ((rank + 1) * slice).min(games));
        let leader = rank == 0;
        if self.base.is_none() {
            self.base = Some(first_meeting(
                self.agent.device(net)?,
                &mut self.collective,
            )?);
            self.meetings += 1;
        }
        let base = self.base.as_ref().expect("met above");
        // The leader's own games go straight to `on_game`, after the others' games it got at
        // the last meeting; a follower keeps its games for the next meeting.
        let others: RefCell<Vec<TdGame>> = RefCell::new(Vec::new());
        let mine: RefCell<Vec<TdGame>> = RefCell::new(Vec::new());
        let mut hand_over = |own: Option<TdGame>| -> Result<()> {
            for g in others.borrow_mut().drain(..) {
                on_game(g)?;
            }
            match own {
                Some(g) if leader => on_game(g),
                Some(g) => {
                    on_game(g)?;
                    mine.borrow_mut().push(g);
                    Ok(())
                }
                None => Ok(()),
            }
        };
        let (collective, fixed, interval) =
            (&mut self.collective, self.fixed_launches, self.interval);
        let (mut launches, mut since, mut due) = (0u64, Instant::now(), self.launches);
        let mut meetings = 0u64;
        let mut meet = |device: &mut DeviceTd<R, G>, playing: bool, launches: u64, took| {
            let mut met = meeting(
                device,
                collective,
                base,
                (playing, launches, took),
                interval,
                &mine,
            )?;
            others.borrow_mut().append(&mut met.games);
            meetings += 1;
            Ok::<_, Error>(met)
        };
        let slice = TdGames {
            first: first + lo,
            count: hi - lo,
            seed,
            step,
        };
        self.agent
            .play_pausing(net, slice, &mut |g| hand_over(Some(g)), &mut |device| {
                launches += 1;
                if launches >= due {
                    let met = meet(device, true, launches, since.elapsed())?;
                    due = fixed.unwrap_or(met.next);
                    (launches, since) = (0, Instant::now());
                }
                Ok(())
            })?;
        // This slice has ended: meet until no rank is playing.
        let device = self.agent.device(net)?;
        loop {
            let met = meet(device, false, 0, Duration::ZERO)?;
            if fixed.is_none() && met.next > 0 {
                due = met.next;
            }
            if met.playing == 0 {
                break;
            }
        }
        hand_over(None)?;
        self.launches = due;
        self.meetings += meetings;
        Ok(())
    }
}

/// Gives every rank rank 0's weights: rank 0 hands in its weights as changes from zero, the
/// others no changes, and the mean is everyone's weights and base.
fn first_meeting<R: Runtime, G: GpuStochasticGame, C: Collective<R>>(
    device: &mut DeviceTd<R, G>,
    collective: &mut C,
) -> Result<Handle> {
    device.check_can_meet()?;
    let base = device.zero_weights();
    let mine = if collective.rank() == 0 {
        device.changes_since(&base)
    } else {
        device.no_changes()
    };
    let sum = collective.sum_f32(device.client(), mine, device.contribution_len())?;
    device.take_mean(&base, &sum);
    Ok(base)
}

/// What a meeting told a rank.
struct Met {
    /// Ranks still playing their slices.
    playing: u64,
    /// Launches to the next meeting (0: no rank launched since the last).
    next: u64,
    /// The other ranks' finished games (the leader's only).
    games: Vec<TdGame>,
}

/// One meeting: a control sum (who plays on, launches and time since the last meeting, the
/// finished games each follower brings), the followers' games gathered to every rank (a sum in
/// which each rank fills its own stretch), then the weights' changes and marks summed on the devices.
fn meeting<R: Runtime, G: GpuStochasticGame, C: Collective<R>>(
    device: &mut DeviceTd<R, G>,
    collective: &mut C,
    base: &Handle,
    (playing, launches, took): (bool, u64, Duration),
    interval: Duration,
    mine: &RefCell<Vec<TdGame>>,
) -> Result<Met> {
    let (rank, world) = (collective.rank(), collective.world());
    let mine = std::mem::take(&mut *mine.borrow_mut());
    let mut control = vec![0u64; 3 + world];
    control[0] = playing as u64;
    control[1] = launches;
    control[2] = took.as_micros() as u64;
    control[3 + rank] = mine.len() as u64;
    collective.sum_u64(&mut control)?;
    let counts = &control[3..];
    let total: u64 = counts.iter().sum();
    let mut games = Vec::new();
    if total > 0 {
        let at = counts[..rank].iter().sum::<u64>() as usize;
        let mut words = vec![0u64; 3 * total as usize];
        for (slot, g) in words[3 * at..].chunks_exact_mut(3).zip(&mine) {
            let g = [g.score, g.moves, g.progress];
            slot.copy_from_slice(&g.map(u64::from));
        }
        collective.sum_u64(&mut words)?;
        if rank == 0 {
            games = words
                .chunks_exact(3)
                .map(|w| TdGame {
                    score: w[0] as u32,
                    moves: w[1] as u32,
                    progress: w[2] as u32,
                })
                .collect();
        }
    }
    let changes = device.changes_since(base);
    let sum = collective.sum_f32(device.client(), changes, device.contribution_len())?;
    device.take_mean(base, &sum);
    // As many launches as took `interval` on average since the last meeting.
    let next = match (control[1], control[2]) {
        (0, _) => 0,
        (n, 0) => n,
        (n, micros) => {
            let every = interval.as_micros() as u64;
            (every.saturating_mul(n) / micros).clamp(1, 1 << 20)
        }
    };
    Ok(Met {
        playing: control[0],
        next,
        games,
    })
}

/// The leader's engine: `train_on` drives it as it drives any engine. Only rank 0 may `play`.
impl<R: Runtime, G: GpuStochasticGame + TupleGame, C: Collective<R>> TdEngine<G>
    for RankTd<R, G, C>
{
    fn play(
        &mut self,
        _game: &G,
        net: &NTupleNetwork,
        batch: TdGames,
        on_game: &mut dyn FnMut(Episode) -> Result<()>,
    ) -> Result<()> {
        let TdGames {
            first,
            count: games,
            seed,
            step,
        } = batch;
        net.check_game::<G>()?;
        if self.rank() != 0 {
            return Err(Error::Unsupported(
                "only rank 0 plays calls; the other ranks follow it".into(),
            ));
        }
        let left = self.deadline.map_or(0, |d| {
            d.saturating_duration_since(Instant::now()).as_millis() as u64 + 1
        });
        let interval = self.interval.as_micros().min(u64::MAX as u128) as u64;
        let call = [
            PLAY,
            first,
            games,
            seed as u64,
            step.to_bits() as u64,
            left,
            interval,
        ];
        let mut sent = call;
        let played = self
            .collective
            .sum_u64(&mut sent)
            .and_then(|_| self.play_call(net, &call, &mut |g| on_game(episode(g))));
        if played.is_err() {
            self.abandon();
        }
        played
    }

    fn sync(&mut self, net: &mut NTupleNetwork) -> Result<()> {
        // Every rank holds the same weights after every call.
        self.agent.sync(net)
    }

    fn parallelism(&self) -> usize {
        self.agent.parallelism() * self.collective.world()
    }

    /// Only the deadline: the ranks stop together at its end, and a raised flag stops the run
    /// between calls.
    fn set_stop(&mut self, stop: &Stop) {
        self.deadline = stop.deadline();
    }

    fn games_between_clock_checks(&self) -> u64 {
        self.agent.games_between_clock_checks() * self.collective.world() as u64
    }

    fn occupancy(&self) -> Option<f64> {
        self.agent.occupancy()
    }

    fn finish(&mut self) -> Result<()> {
        RankTd::finish(self)
    }
}

/// A rank on a CUDA device, meeting the others through NCCL.
#[cfg(all(feature = "ranks", feature = "cuda"))]
pub type CudaRank<G> = RankTd<cubecl::cuda::CudaRuntime, G, crate::nccl::NcclCollective>;

/// This process's rank of the run `ranks` describes, on its CUDA device (`ranks.local_rank`),
/// playing `units` games at once (default per `TdShape::for_device`), learning in `order`.
#[cfg(all(feature = "ranks", feature = "cuda"))]
pub fn cuda_rank<G: GpuStochasticGame>(
    ranks: &crate::rendezvous::Ranks,
    units: Option<u32>,
    order: cubesearch_learn::TdOrder,
) -> Result<CudaRank<G>> {
    use cubecl::cuda::{CudaDevice, CudaRuntime};
    let found = cubesearch_core::backend::cuda_device_count();
    if ranks.local_rank >= found {
        return Err(Error::Unsupported(format!(
            "LOCAL_RANK={}: this host has {found} CUDA device(s)",
            ranks.local_rank
        )));
    }
    let client = cubesearch_core::backend::start_client::<CudaRuntime>(
        &CudaDevice::new(ranks.local_rank),
        "cuda",
    )?;
    let agent = GpuTd::new(&client, units, None).with_order(order);
    Ok(RankTd::new(
        agent,
        crate::nccl::NcclCollective::start(ranks)?,
    ))
}
