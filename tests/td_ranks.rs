//! TD(0) over ranks (issue #24), with the CPU stand-in for NCCL: two ranks are two threads on
//! one device, summing through host memory behind the same `Collective` trait NCCL implements.
//! The meeting logic is all here: the leader's calls, slices, meetings with games in flight,
//! the followers' games reaching the leader, each weight's mean change over the ranks that
//! changed it, and `train_on` with checkpoints and resuming at another world size. `nccl`
//! (CUDA) runs the real thing.

use cubesearch::games::seed_shapes;
use cubesearch::testing::executor;
use cubesearch::train::GpuTd;
use cubesearch::train::LocalCollective;
use cubesearch::train::RankTd;
use cubesearch::train::{train_on, TdEngine, TdGames, TrainConfig};
use cubesearch::NTupleNetwork;
use cubesearch::{Backend, Executor, GpuExecutor, Result};
use cubesearch_games::fib::{Pow2, Sliding};
use cubesearch_games::Game2048;
use rstest::rstest;

type Wgpu = cubecl::wgpu::WgpuRuntime;
type Rank = RankTd<Wgpu, Sliding<Pow2>, LocalCollective>;

fn wgpu() -> GpuExecutor<Wgpu> {
    let Some(Executor::Wgpu(gpu)) = executor(Backend::Wgpu) else {
        panic!("the wgpu executor")
    };
    gpu
}

fn zero_net() -> NTupleNetwork {
    staged_net(&[])
}

/// A zero network with a stage after each of `thresholds` (the sum of the two largest tiles).
fn staged_net(thresholds: &[u32]) -> NTupleNetwork {
    NTupleNetwork::staged::<Game2048>(&seed_shapes(), thresholds).unwrap()
}

/// `world` ranks on one device, one unit each, with the device's loop budget or `budget`.
fn ranks(gpu: &GpuExecutor<Wgpu>, world: usize, budget: Option<u32>) -> Vec<Rank> {
    let budget = budget.or(gpu.limits().loop_iterations);
    LocalCollective::group(world)
        .into_iter()
        .map(|c| RankTd::new(GpuTd::new(gpu.client(), Some(1), budget), c))
        .collect()
}

/// Runs `lead` on rank 0 while the others follow; returns what `lead` returned and each
/// follower's games.
fn with_followers<T: Send>(
    ranks: &mut [Rank],
    net: &NTupleNetwork,
    lead: impl FnOnce(&mut Rank) -> Result<T> + Send,
) -> (T, Vec<u64>) {
    let (leader, followers) = ranks.split_first_mut().unwrap();
    std::thread::scope(|s| {
        let handles: Vec<_> = followers
            .iter_mut()
            .map(|f| s.spawn(move || f.follow(net)))
            .collect();
        let out = lead(leader).unwrap();
        leader.finish().unwrap();
        let played = handles
            .into_iter()
            .map(|h| h.join().unwrap().unwrap())
            .collect();
        (out, played)
    })
}

/// Plays games `first..first + games` on the leader, returning the scores it was handed.
fn play(
    leader: &mut dyn TdEngine<Game2048>,
    net: &NTupleNetwork,
    first: u64,
    games: u64,
    step: f32,
) -> Result<Vec<u64>> {
    let mut scores = Vec::new();
    leader.play(
        &Game2048::new(),
        net,
        TdGames {
            first,
            count: games,
            seed: 9,
            step,
        },
        &mut |e| {
            scores.push(e.score);
            Ok(())
        },
    )?;
    Ok(scores)
}

/// What one engine learns alone from zero on games `first..first + games`, and their scores.
fn alone(
    gpu: &GpuExecutor<Wgpu>,
    stages: &[u32],
    first: u64,
    games: u64,
    step: f32,
) -> (NTupleNetwork, Vec<u64>) {
    let mut net = staged_net(stages);
    let mut engine =
        GpuTd::<Wgpu, Sliding<Pow2>>::new(gpu.client(), Some(1), gpu.limits().loop_iterations);
    let mut scores = Vec::new();
    engine
        .play(
            &Game2048::new(),
            &net,
            TdGames {
                first,
                count: games,
                seed: 9,
                step,
            },
            &mut |e| {
                scores.push(e.score);
                Ok(())
            },
        )
        .unwrap();
    engine.sync(&mut net).unwrap();
    (net, scores)
}

fn weights(rank: &mut Rank, stages: &[u32]) -> NTupleNetwork {
    let mut net = staged_net(stages);
    rank.sync(&mut net).unwrap();
    net
}

/// Ranks meeting only when their slices end hold `w₀ + ((w_a − w₀) + (w_b − w₀)) / n` bit for
/// bit, `n` the ranks that changed the weight (1 or 2), where `w_a` and `w_b` are what each
/// learned alone on its half of the games (one unit each, so each run is deterministic), and
/// the leader was handed every game of both; a staged network's every table too.
#[rstest]
#[case::one_stage(&[])]
#[case::two_stages(&[64])]
fn ranks_take_the_mean_change_of_the_ranks_that_changed_a_weight(#[case] stages: &[u32]) {
    let gpu = wgpu();
    let net = staged_net(stages);
    let step = 0.1 / net.lookups() as f32;
    let mut ranks: Vec<Rank> = ranks(&gpu, 2, None)
        .into_iter()
        .map(|r| r.meeting_every(u64::MAX))
        .collect();
    let (mut scores, played) =
        with_followers(&mut ranks, &net, |leader| play(leader, &net, 0, 16, step));
    assert_eq!(played, [8], "the follower plays its half");
    let (a, sa) = alone(&gpu, stages, 0, 8, step);
    let (b, sb) = alone(&gpu, stages, 8, 8, step);
    let mut want = [sa, sb].concat();
    want.sort_unstable();
    scores.sort_unstable();
    assert_eq!(scores, want, "every game of both ranks, on the leader");
    // The first meeting (rank 0's weights to all) and the one when both slices ended.
    assert_eq!(ranks[0].meetings(), 2);
    let (lead, follow) = (
        weights(&mut ranks[0], stages),
        weights(&mut ranks[1], stages),
    );
    for t in 0..net.tables() {
        let (l, f, a, b) = (lead.table(t), follow.table(t), a.table(t), b.table(t));
        for i in 0..l.len() {
            let (da, db) = (a[i] - 0.0, b[i] - 0.0);
            let changed_by = (da != 0.0) as u32 + (db != 0.0) as u32;
            let want = 0.0 + (da + db) / changed_by.max(1) as f32;
            assert_eq!(
                l[i].to_bits(),
                want.to_bits(),
                "table {t} weight {i}: {} from {} and {}",
                l[i],
                a[i],
                b[i]
            );
            assert_eq!(
                f[i].to_bits(),
                l[i].to_bits(),
                "table {t} weight {i} differs between ranks"
            );
        }
        let overlap = (0..l.len()).filter(|&i| a[i] != 0.0 && b[i] != 0.0).count();
        assert!(
            overlap > 10,
            "table {t}: the ranks' changes overlap in {overlap} weights"
        );
    }
}

/// Ranks meeting after every launch (one unit, a few moves a launch): they meet while their
/// games run, the leader gets every game, both end with the same weights, and those are the
/// mean of every change: with no learning (step 0) the next games score on each rank as on one
/// engine started from them.
#[test]
fn ranks_meet_while_their_games_run() {
    let gpu = wgpu();
    let net = zero_net();
    let step = 0.1 / net.lookups() as f32;
    let mut ranks: Vec<Rank> = ranks(&gpu, 2, Some(2_000))
        .into_iter()
        .map(|r| r.meeting_every(1))
        .collect();
    let (games, _) = with_followers(&mut ranks, &net, |leader| {
        let n = play(leader, &net, 0, 8, step)?.len();
        Ok(n)
    });
    assert_eq!(games, 8);
    assert!(ranks[0].meetings() > 3, "{} meetings", ranks[0].meetings());
    let learned = weights(&mut ranks[0], &[]);
    assert_eq!(learned.table(0), weights(&mut ranks[1], &[]).table(0));
    assert!((0..3).any(|t| learned.table(t).iter().any(|&w| w != 0.0)));
    let mut one = GpuTd::<Wgpu, Sliding<Pow2>>::new(gpu.client(), Some(1), Some(2_000));
    let reference: Vec<u64> = (100..102)
        .map(|g| {
            let mut score = 0;
            one.play(
                &Game2048::new(),
                &learned,
                TdGames {
                    first: g,
                    count: 1,
                    seed: 9,
                    step: 0.0,
                },
                &mut |e| {
                    score = e.score;
                    Ok(())
                },
            )
            .unwrap();
            score
        })
        .collect();
    // The ranks keep their weights between runs; rank 0 plays game 100, rank 1 game 101.
    let (mut got, _) = with_followers(&mut ranks, &learned, |leader| {
        play(leader, &learned, 100, 2, 0.0)
    });
    got.sort_unstable();
    let mut want = reference;
    want.sort_unstable();
    assert_eq!(got, want);
}

/// A follower meets as often as rank 0 says, whatever it was given itself.
#[test]
fn followers_take_the_leaders_meeting_interval() {
    let gpu = wgpu();
    let net = zero_net();
    let every = std::time::Duration::from_millis(250);
    let mut ranks = ranks(&gpu, 2, None);
    let leader = ranks.remove(0).meeting_interval(every);
    ranks.insert(0, leader);
    assert_ne!(ranks[1].interval(), every);
    with_followers(&mut ranks, &net, |leader| play(leader, &net, 0, 4, 0.0));
    assert_eq!(ranks[1].interval(), every);
}

/// The first meeting gives every rank rank 0's weights, whatever the others started from.
#[test]
fn every_rank_starts_from_rank_zeros_weights() {
    let gpu = wgpu();
    let (trained, _) = alone(&gpu, &[], 0, 4, 0.01);
    let mut ranks = ranks(&gpu, 2, None);
    let (leader, follower) = ranks.split_at_mut(1);
    std::thread::scope(|s| {
        // The follower is handed zero weights, the leader trained ones.
        let f = s.spawn(|| follower[0].follow(&zero_net()));
        play(&mut leader[0], &trained, 0, 0, 0.0).unwrap();
        leader[0].finish().unwrap();
        f.join().unwrap().unwrap();
    });
    for rank in ranks.iter_mut() {
        let got = weights(rank, &[]);
        for t in 0..3 {
            assert_eq!(got.table(t), trained.table(t));
        }
    }
}

/// A rank that leaves (an error, a panic) breaks its group: the others' calls fail instead of
/// waiting for it forever.
#[test]
fn a_rank_that_leaves_stops_the_others() {
    let gpu = wgpu();
    let mut pair = ranks(&gpu, 2, None);
    let follower = pair.pop().unwrap();
    let leader = pair.pop().unwrap();
    let followed = std::thread::scope(|s| {
        let mut follower = follower;
        let f = s.spawn(move || follower.follow(&zero_net()));
        drop(leader);
        f.join().unwrap()
    });
    assert!(followed.is_err());
    // A follower cannot lead, and the leader cannot follow.
    let mut ranks = ranks(&gpu, 2, None);
    assert!(ranks[0].follow(&zero_net()).is_err());
    assert!(play(&mut ranks[1], &zero_net(), 0, 1, 0.0).is_err());
}

/// `train_on` drives the leader as any engine: every game counted, a checkpoint saved by the
/// leader, and the file resumed by a run of another world size.
#[test]
fn training_over_ranks_saves_and_resumes_at_any_world_size() {
    let gpu = wgpu();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ranks.cstd");
    let cfg = TrainConfig {
        games: 24,
        seed: 3,
        shapes: Some(seed_shapes()),
        checkpoint_every: 8,
        out: Some(out.clone()),
        ..TrainConfig::default()
    };
    let net = zero_net();
    let mut two = ranks(&gpu, 2, None);
    let ((trained, report), _) = with_followers(&mut two, &net, |leader| {
        train_on(&Game2048::new(), &cfg, leader, |_| {})
    });
    assert_eq!((report.games, report.total_games), (24, 24));
    let (saved, meta) = NTupleNetwork::load::<Game2048>(&out, None).unwrap();
    assert_eq!(meta.games, 24);
    assert_eq!(saved.table(1), trained.table(1));
    // One rank resumes it.
    let mut one = ranks(&gpu, 1, None);
    let cfg = TrainConfig {
        games: 8,
        checkpoint_every: 0,
        resume: Some(out.clone()),
        ..cfg
    };
    let ((_, report), _) = with_followers(&mut one, &net, |leader| {
        train_on(&Game2048::new(), &cfg, leader, |_| {})
    });
    assert_eq!((report.games, report.total_games), (8, 32));
}

/// NCCL itself, on a CUDA host: a world of one rank takes the path of many (the first meeting,
/// meetings with games in flight, the last). Meeting only when its slice ends, from zero
/// weights, it learns exactly what one engine learns alone (`0 + (w − 0) = w`); meeting after
/// every launch, it still gets every game and learns.
#[cfg(all(feature = "ranks", feature = "cuda"))]
#[test]
fn nccl_with_one_rank_learns_as_one_engine() {
    use cubecl::cuda::CudaRuntime;
    use cubesearch::learn::TdOrder;
    use cubesearch_train::ranks::cuda_rank;
    use cubesearch_train::rendezvous::{Ranks, Rendezvous};
    let Some(Executor::Cuda(gpu)) = executor(Backend::Cuda) else {
        return;
    };
    let ranks = Ranks {
        rank: 0,
        world: 1,
        local_rank: 0,
        rendezvous: Rendezvous::File(Default::default()),
    };
    let net = zero_net();
    let step = 0.1 / net.lookups() as f32;
    let mut rank = cuda_rank::<Game2048>(&ranks, Some(1), TdOrder::Backward)
        .unwrap()
        .meeting_every(u64::MAX);
    let scores = play(&mut rank, &net, 0, 8, step).unwrap();
    rank.finish().unwrap();
    let mut alone = GpuTd::<CudaRuntime, Game2048>::new(gpu.client(), Some(1), None);
    let mut want = Vec::new();
    alone
        .play(
            &Game2048::new(),
            &net,
            TdGames {
                first: 0,
                count: 8,
                seed: 9,
                step,
            },
            &mut |e| {
                want.push(e.score);
                Ok(())
            },
        )
        .unwrap();
    assert_eq!(scores, want);
    let (mut got, mut one) = (zero_net(), zero_net());
    rank.sync(&mut got).unwrap();
    alone.sync(&mut one).unwrap();
    for t in 0..3 {
        assert_eq!(got.table(t), one.table(t), "table {t}");
    }
    // Many units, meeting after every launch.
    let mut rank = cuda_rank::<Game2048>(&ranks, Some(4096), TdOrder::Backward)
        .unwrap()
        .meeting_every(1);
    let games = play(&mut rank, &net, 0, 8192, step).unwrap().len();
    assert_eq!(games, 8192);
    assert!(rank.meetings() > 3, "{} meetings", rank.meetings());
    let mut learned = zero_net();
    rank.sync(&mut learned).unwrap();
    assert!((0..3).any(|t| learned.table(t).iter().any(|&w| w != 0.0)));
}
