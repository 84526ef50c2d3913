//! TD(0) on several GPUs (the seed's 4.6): one agent per device, each with its own copy of the
//! weights and its own stream of games; agent `k` plays the `k`-th contiguous slice of a call's
//! games. The agents meet between launches, games in flight: the host sums their changes since
//! the last meeting, `w = w₀ + Σₖ (wₖ − w₀)`, and gives every device the result, so all copies
//! are equal again. (The seed replays every agent's game history on every GPU; summing deltas
//! applies the same updates, computed against the weights of the last meeting.) No stream
//! drains for a meeting, so no GPU waits for its longest game, and an agent whose slice ends
//! leaves its changes for the next meeting. Games come back as they finish: each agent's in
//! order, the agents' interleaved.

use crate::td::{episode, GpuTd};
use cubecl::prelude::*;
use cubesearch_core::{Error, Result};
use cubesearch_kernels::td::{DeviceTd, TdGame, WeightStorage};
use cubesearch_kernels::GpuStochasticGame;
use cubesearch_learn::{Episode, NTupleNetwork, TdEngine, TupleGame};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How often the agents meet by default: every launch is a few milliseconds on an H200, and a
/// meeting moves the weights (12.6 MB for three 4-tuples of 5-bit cells) to the host and back.
pub const MERGE_EVERY: Duration = Duration::from_secs(2);

/// TD(0) of game `G` on several GPUs (see the module docs).
pub struct MultiGpuTd<R: Runtime, G: GpuStochasticGame> {
    agents: Vec<GpuTd<R, G>>,
    merge_every: Option<Duration>,
    meetings: u64,
}

impl<R: Runtime, G: GpuStochasticGame> MultiGpuTd<R, G> {
    /// One agent per client (a client per device; tests may pass one device twice), meeting
    /// every [`MERGE_EVERY`].
    pub fn new(clients: &[ComputeClient<R>], units: Option<u32>, loop_budget: Option<u32>) -> Self {
        Self {
            agents: clients
                .iter()
                .map(|c| GpuTd::new(c, units, loop_budget))
                .collect(),
            merge_every: Some(MERGE_EVERY),
            meetings: 0,
        }
    }

    /// Every agent storing the weights its launches read as `storage` ([`GpuTd::with_storage`]).
    pub fn with_storage(self, storage: WeightStorage) -> Self {
        Self {
            agents: self
                .agents
                .into_iter()
                .map(|a| a.with_storage(storage))
                .collect(),
            ..self
        }
    }

    /// Meetings held so far (the last one of each call, after the streams end, not counted).
    pub fn meetings(&self) -> u64 {
        self.meetings
    }

    /// Meets every `every` of an agent's time (`None`: only when every stream has ended, so
    /// each agent learns alone from the call's start).
    pub fn merging_every(self, every: Option<Duration>) -> Self {
        Self {
            merge_every: every,
            ..self
        }
    }
}

/// The error of a training whose agent thread panicked.
fn agent_panicked() -> Error {
    Error::Unsupported("a GPU agent's thread panicked".into())
}

/// Where the agents meet.
struct Meeting {
    state: Mutex<MeetingState>,
    done: Condvar,
}

struct MeetingState {
    /// Agents still streaming.
    active: usize,
    /// Agents waiting at the meeting under way.
    arrived: usize,
    /// Set by the first agent due: the others join after their current launch.
    called: bool,
    /// Meetings held.
    held: u64,
    /// The weights every active agent holds since the last meeting.
    base: Arc<Vec<Vec<f32>>>,
    /// `base` plus every change handed in since.
    sum: Vec<Vec<f32>>,
}

impl MeetingState {
    /// Adds `mine − base` to the sum.
    fn hand_in(&mut self, mine: &[Vec<f32>]) {
        for ((s, b), m) in self.sum.iter_mut().zip(self.base.iter()).zip(mine) {
            for ((s, b), m) in s.iter_mut().zip(b).zip(m) {
                *s += m - b;
            }
        }
    }

    /// Closes the meeting: the sum becomes everyone's weights.
    fn close(&mut self, done: &Condvar) {
        self.base = Arc::new(self.sum.clone());
        self.arrived = 0;
        self.called = false;
        self.held += 1;
        done.notify_all();
    }
}

impl Meeting {
    fn new(start: Vec<Vec<f32>>, agents: usize) -> Self {
        Self {
            state: Mutex::new(MeetingState {
                active: agents,
                arrived: 0,
                called: false,
                held: 0,
                base: Arc::new(start.clone()),
                sum: start,
            }),
            done: Condvar::new(),
        }
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, MeetingState>> {
        self.state.lock().map_err(|_| agent_panicked())
    }

    /// An agent's call between launches: it joins a meeting that is called, or calls one when
    /// `due`; at a meeting it hands in its changes, waits for the others and takes the sum.
    fn attend<R: Runtime, G: GpuStochasticGame>(
        &self,
        device: &mut DeviceTd<R, G>,
        due: bool,
    ) -> Result<bool> {
        {
            let mut state = self.lock()?;
            if !(due || state.called) {
                return Ok(false);
            }
            state.called = true;
        }
        let mine = device.read_tables()?;
        let mut state = self.lock()?;
        state.hand_in(&mine);
        state.arrived += 1;
        let meeting = state.held;
        if state.arrived == state.active {
            state.close(&self.done);
        }
        while state.held == meeting {
            state = self.done.wait(state).map_err(|_| agent_panicked())?;
        }
        let merged = state.base.clone();
        drop(state);
        device.write_tables(&merged)?;
        Ok(true)
    }

    /// An agent whose stream ended (or failed) hands in its changes, if it can still read
    /// them, and stops counting toward meetings, so the others never wait for it.
    fn leave<R: Runtime, G: GpuStochasticGame>(
        &self,
        device: Option<&DeviceTd<R, G>>,
    ) -> Result<()> {
        let mine = device.map(|d| d.read_tables()).transpose();
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Ok(Some(mine)) = &mine {
            state.hand_in(mine);
        }
        state.active -= 1;
        if state.arrived > 0 && state.arrived == state.active {
            state.close(&self.done);
        }
        mine.map(|_| ())
    }
}

impl<R: Runtime, G: GpuStochasticGame> MultiGpuTd<R, G> {
    /// Plays games `first..first + games` of `net` (a network of `G`, checked by the caller)
    /// on every agent, handing each finished game to `on_game` (see the module docs).
    fn play_games(
        &mut self,
        net: &NTupleNetwork,
        first: u64,
        games: u64,
        seed: u32,
        step: f32,
        on_game: &mut dyn FnMut(TdGame) -> Result<()>,
    ) -> Result<()> {
        let k = self.agents.len() as u64;
        if k == 0 {
            return Err(Error::Unsupported("multi-GPU training needs a GPU".into()));
        }
        // Every agent holds the same weights between calls: start the meeting from agent 0's.
        let start = self.agents[0].device(net)?.read_tables()?;
        let meeting = Meeting::new(start, self.agents.len());
        let slice = games.div_ceil(k);
        let merge_every = self.merge_every;
        let (sender, received) = mpsc::channel::<TdGame>();
        let results: Vec<Result<()>> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .agents
                .iter_mut()
                .enumerate()
                .map(|(i, agent)| {
                    let lo = (i as u64 * slice).min(games);
                    let hi = ((i as u64 + 1) * slice).min(games);
                    let (meeting, sender) = (&meeting, sender.clone());
                    scope.spawn(move || {
                        let mut last = Instant::now();
                        let play = std::panic::AssertUnwindSafe(|| {
                            agent.play_pausing(
                                net,
                                first + lo,
                                hi - lo,
                                seed,
                                step,
                                &mut |e| {
                                    sender
                                        .send(e)
                                        .map_err(|_| Error::Unsupported("training stopped".into()))
                                },
                                &mut |device| {
                                    let due = merge_every.is_some_and(|m| last.elapsed() >= m);
                                    if meeting.attend(device, due)? {
                                        last = Instant::now();
                                    }
                                    Ok(())
                                },
                            )
                        });
                        let played = std::panic::catch_unwind(play)
                            .unwrap_or_else(|_| Err(agent_panicked()));
                        // Leave even after an error or a panic, so the others do not wait for
                        // this agent.
                        let left = meeting.leave(agent.device.as_ref());
                        played.and(left)
                    })
                })
                .collect();
            drop(sender);
            // Hand the games over here, on the caller's thread, as they arrive; a failing
            // callback drops the receiver, which stops every agent at its next game.
            let mut handed = Ok(());
            for e in received {
                handed = on_game(e);
                if handed.is_err() {
                    break;
                }
            }
            let mut results: Vec<Result<()>> = handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(agent_panicked())))
                .collect();
            results.insert(0, handed);
            results
        });
        for r in results {
            r?;
        }
        // Every change is in the sum now: give it to every agent.
        let state = meeting.lock()?;
        self.meetings += state.held;
        let merged = state.sum.clone();
        drop(state);
        for agent in &mut self.agents {
            agent.device(net)?.write_tables(&merged)?;
        }
        Ok(())
    }
}

impl<R: Runtime, G: GpuStochasticGame + TupleGame> TdEngine<G> for MultiGpuTd<R, G> {
    fn play(
        &mut self,
        _game: &G,
        net: &NTupleNetwork,
        first: u64,
        games: u64,
        seed: u32,
        step: f32,
        on_game: &mut dyn FnMut(Episode) -> Result<()>,
    ) -> Result<()> {
        net.check_game::<G>()?;
        self.play_games(net, first, games, seed, step, &mut |g| on_game(episode(g)))
    }

    fn sync(&mut self, net: &mut NTupleNetwork) -> Result<()> {
        // All agents hold the same weights after every call.
        match self.agents.first_mut() {
            Some(agent) => agent.sync(net),
            None => Ok(()),
        }
    }

    fn parallelism(&self) -> usize {
        self.agents.iter().map(|a| a.parallelism()).sum()
    }

    fn set_deadline(&mut self, deadline: Option<Instant>) {
        for agent in &mut self.agents {
            agent.set_deadline(deadline);
        }
    }

    fn games_between_clock_checks(&self) -> u64 {
        // Each agent checks the deadline after every launch and meets the others while its
        // games run on, so calls can be long.
        self.parallelism() as u64 * 1024
    }

    fn occupancy(&self) -> Option<f64> {
        let seen: Vec<f64> = self.agents.iter().filter_map(|a| a.occupancy()).collect();
        (!seen.is_empty()).then(|| seen.iter().sum::<f64>() / seen.len() as f64)
    }
}
