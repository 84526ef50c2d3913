//! A new game in one file: Connect Four's host rules, its device twin, and then perft, MCTS and
//! alpha-beta on the CPU and on whichever GPU backend `--backend` picks, through the public API.
//! Then it learns an evaluation by self-play, on the CPU and on the device, and plays it with
//! alpha-beta and MCTS.
//!
//! ```text
//! cargo run --release --example connect4 -- --backend auto
//! ```

use cubesearch::cubecl::{self, prelude::*};
use cubesearch::device::{self, rng, DeviceTupleGame};
use cubesearch::learn::{default_shapes, pack_views};
use cubesearch::learn::{learn_games, SelfPlay, SelfPlayPlan, TwoPlayerTupleGame};
use cubesearch::mcts::{Budget, Mcts, MctsConfig};
use cubesearch::minimax::{self, Strategy};
use cubesearch::players::{Evaluated, NamedPlayers, NoNamed, ValueLeaves};
use cubesearch::train::learn_self_play;
use cubesearch::{perft, Backend, CpuExecutor, DeviceGame, Error, Executor, NTupleNetwork};
use cubesearch::{Game, GpuGame, Outcome, Result, Stop, TupleBoard};
use std::sync::Arc;

// A column is 7 bits, bottom cell first; the 7th bit of each column stays empty, so a shift can
// never carry a line from one column into the next (John Tromp's layout):
//
//   5 12 19 26 33 40 47      row 5 (top)
//   ...
//   0  7 14 21 28 35 42      row 0 (bottom)
//  col 1  2  3  4  5  6  7   (the move names)
const BOTTOM: u64 = 0x0000_0408_1020_4081; // bit 0 of every column: 1 << 7c
const TOP: u64 = BOTTOM << 5;
const FULL: u64 = BOTTOM * 0x3F;
const COLUMN: u64 = 0x7F;

/// Connect Four: the side to move's stones and all stones, as two 49-bit boards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub mine: u64,
    pub all: u64,
}

/// The host rules.
pub struct ConnectFour;

/// Whether `stones` hold four in a line: vertical (1), horizontal (7) and both diagonals (6, 8).
fn four_in_a_row(stones: u64) -> bool {
    [1, 7, 6, 8].iter().any(|&s| {
        let pairs = stones & (stones >> s);
        pairs & (pairs >> (2 * s)) != 0
    })
}

impl Game for ConnectFour {
    type State = Position;
    type Move = u8; // a column, 0..7
    const NAME: &'static str = "connect4";
    const STATE_WORDS: usize = 4;

    fn initial(&self) -> Position {
        Position { mine: 0, all: 0 }
    }

    fn legal_moves(&self, s: &Position, out: &mut Vec<u8>) {
        if self.outcome(s) == Outcome::Ongoing {
            out.extend((0..7).filter(|&c| s.all & TOP & (COLUMN << (7 * c)) == 0));
        }
    }

    fn apply(&self, s: &Position, column: u8) -> Position {
        // The opponent moves next: their stones are everything that is not ours.
        let all = s.all | (s.all + (BOTTOM & (COLUMN << (7 * column))));
        let mine = s.mine ^ s.all;
        Position { mine, all }
    }

    fn outcome(&self, s: &Position) -> Outcome {
        if four_in_a_row(s.mine ^ s.all) {
            Outcome::Loss // the player who just moved made four
        } else if s.all == FULL {
            Outcome::Draw
        } else {
            Outcome::Ongoing
        }
    }

    /// Words, low half first: mine, mine >> 32, all, all >> 32.
    fn encode(&self, s: &Position, out: &mut [u32]) {
        for (i, w) in out.iter_mut().enumerate() {
            *w = ([s.mine, s.all][i / 2] >> (32 * (i % 2))) as u32;
        }
    }

    fn decode(&self, w: &[u32]) -> Position {
        let word = |i: usize| u64::from(w[i]) | u64::from(w[i + 1]) << 32;
        let (mine, all) = (word(0), word(2));
        Position { mine, all }
    }

    /// The columns played from the empty board, 1-based: `4453`.
    fn parse_position(&self, text: &str) -> Result<Position> {
        text.trim().chars().try_fold(self.initial(), |s, ch| {
            let column = ch.to_digit(10).filter(|c| (1..=7).contains(c));
            match column.map(|c| c as u8 - 1) {
                Some(c) if self.moves(&s).contains(&c) => Ok(self.apply(&s, c)),
                _ => Err(Error::parse(format!(
                    "'{ch}' in '{text}' is not a playable column 1-7"
                ))),
            }
        })
    }

    /// The board, top row first: `x` the side to move, `o` the other, `.` empty.
    fn format_position(&self, s: &Position) -> String {
        let cell = |bit: u64| ['.', 'o', 'x'][((s.all >> bit & 1) + (s.mine >> bit & 1)) as usize];
        let row = |r: u64| (0..7).map(|c| cell(7 * c + r)).collect::<String>();
        (0..6).rev().map(row).collect::<Vec<_>>().join("/")
    }

    fn format_move(&self, _: &Position, column: u8) -> String {
        (column + 1).to_string()
    }
}

/// The device twin: the same two boards in registers.
pub struct DeviceConnectFour;

impl GpuGame for ConnectFour {
    type Device = DeviceConnectFour;
    const MAX_SCORE: i32 = 1;
}

impl NamedPlayers for ConnectFour {
    type Named = NoNamed;
}

#[derive(CubeType, Clone, Copy)]
pub struct DevicePosition {
    mine: u64,
    all: u64,
}

#[cube]
fn device_line(stones: u64, step: u64) -> bool {
    let pairs = stones & (stones >> step);
    (pairs & (pairs >> (2u64 * step))) != 0u64
}

#[cube]
fn device_four(stones: u64) -> bool {
    device_line(stones, 1u64)
        || device_line(stones, 7u64)
        || device_line(stones, 6u64)
        || device_line(stones, 8u64)
}

/// Whether column `c` has room, as 0 or 1.
#[cube]
fn open(all: u64, c: u64) -> u32 {
    u32::cast_from(((all & TOP) >> (7u64 * c + 5u64)) & 1u64) ^ 1u32
}

#[cube]
impl DeviceGame for DeviceConnectFour {
    type State = DevicePosition;

    fn load(w: &Array<u32>, at: usize) -> DevicePosition {
        DevicePosition {
            mine: u64::cast_from(w[at]) | (u64::cast_from(w[at + 1]) << 32u64),
            all: u64::cast_from(w[at + 2]) | (u64::cast_from(w[at + 3]) << 32u64),
        }
    }

    fn store(s: &DevicePosition, w: &mut Array<u32>, at: usize) {
        w[at] = u32::cast_from(s.mine);
        w[at + 1] = u32::cast_from(s.mine >> 32u64);
        w[at + 2] = u32::cast_from(s.all);
        w[at + 3] = u32::cast_from(s.all >> 32u64);
    }

    fn outcome(s: &DevicePosition) -> u32 {
        let ended = select(s.all == FULL, device::DRAW, device::ONGOING);
        select(device_four(s.mine ^ s.all), device::LOSS, ended)
    }

    fn score(s: &DevicePosition) -> i32 {
        select(Self::outcome(s) == device::LOSS, -1i32, 0i32)
    }

    fn move_count(s: &DevicePosition) -> u32 {
        let mut count = 0u32;
        #[unroll]
        for c in 0..7u64 {
            count += open(s.all, c);
        }
        select(Self::outcome(s) == device::ONGOING, count, 0u32)
    }

    fn play(s: &mut DevicePosition, index: u32) {
        // The index-th column whose top cell is empty.
        let mut column = 0u64;
        let mut skip = index;
        while skip > 0u32 || open(s.all, column) == 0u32 {
            skip -= open(s.all, column);
            column += 1u64;
        }
        let all = s.all | (s.all + (BOTTOM & (COLUMN << (7u64 * column))));
        s.mine ^= s.all;
        s.all = all;
    }

    fn play_out(s: &mut DevicePosition, state: &mut u32) -> u32 {
        let mut plies = 0u32;
        while Self::outcome(s) == device::ONGOING {
            let pick = rng::below(state, Self::move_count(s));
            Self::play(s, pick);
            plies += 1u32;
        }
        plies
    }
}

/// The network's cells: 6 a column, bottom first (cell `6c + r` is bit `7c + r`).
const fn bit_of(cell: usize) -> u64 {
    (7 * (cell / 6) + cell % 6) as u64
}

/// A cell and its mirror image, one `TupleBoard::SYMMETRIES` entry each.
const fn symmetry(mirror: bool) -> [u8; 42] {
    let mut out = [0u8; 42];
    let mut c = 0;
    while c < 42 {
        let column = if mirror { 6 - c / 6 } else { c / 6 };
        out[c] = (6 * column + c % 6) as u8;
        c += 1;
    }
    out
}
const IDENTITY: [u8; 42] = symmetry(false);
const MIRROR: [u8; 42] = symmetry(true);

/// Six 8-cell shapes, two columns by four rows: columns 1–2, 2–3 and 3–4 (the mirror covers
/// the others), low and high.
const BLOCKS: &[&[u8]] = &[
    &[0, 1, 2, 3, 6, 7, 8, 9],
    &[2, 3, 4, 5, 8, 9, 10, 11],
    &[6, 7, 8, 9, 12, 13, 14, 15],
    &[8, 9, 10, 11, 14, 15, 16, 17],
    &[12, 13, 14, 15, 18, 19, 20, 21],
    &[14, 15, 16, 17, 20, 21, 22, 23],
];

/// What a network reads of a position, from the side to move's seat: a cell is empty (0), the
/// side to move's (1) or the other side's (2).
impl TupleBoard for ConnectFour {
    type Board = Position;
    const GAME: &'static str = "connect4";
    const CELLS: usize = 42;
    const CELL_BITS: u32 = 2;
    const SYMMETRIES: &'static [&'static [u8]] = &[&IDENTITY, &MIRROR];
    const CELLS_PER_WORD: usize = 32;
    const SHAPES: &'static [(&'static str, &'static [&'static [u8]])] = &[("blocks", BLOCKS)];
    const MILESTONES: &'static [u32] = &[];
    type Views<const N: usize> = [[[u64; N]; 2]; 2];

    fn cells(&self, s: &Position, out: &mut [u8]) {
        for (c, cell) in out.iter_mut().enumerate() {
            let stone = s.all >> bit_of(c) & 1;
            let theirs = (s.all & !s.mine) >> bit_of(c) & 1;
            *cell = (stone + theirs) as u8;
        }
    }

    fn views<const N: usize>(&self, boards: [Position; N]) -> Self::Views<N> {
        pack_views(self, boards)
    }

    fn progress(&self, s: &Position) -> u32 {
        s.all.count_ones()
    }
}

/// A won game is worth 1 (the default `final_value`), one stage.
impl TwoPlayerTupleGame for ConnectFour {}

/// The same cells on the device, so that self-play runs there too.
#[cube]
impl DeviceTupleGame for DeviceConnectFour {
    fn cell(s: &DevicePosition, c: u32) -> u32 {
        let bit = u64::cast_from(7u32 * (c / 6u32) + c % 6u32);
        let stone = u32::cast_from((s.all >> bit) & 1u64);
        let theirs = u32::cast_from(((s.all & !s.mine) >> bit) & 1u64);
        stone + theirs
    }

    fn stage_progress(s: &DevicePosition) -> u32 {
        u32::cast_from(s.all & 0xFFFF_FFFFu64).count_ones()
            + u32::cast_from(s.all >> 32u64).count_ones()
    }

    fn final_value(s: &DevicePosition) -> f32 {
        select(Self::outcome(s) == device::LOSS, -1.0f32, 0.0f32)
    }
}

/// Score units a won game is worth to a learned alpha-beta; the network's value (a won game is
/// 1) is scaled into the units below it.
pub const WIN: i32 = 1000;

/// `games` games of self-play from the empty board, on one CPU thread and with one unit on
/// `backend`: the two networks, bit for bit the same.
pub fn learn(backend: Backend, games: u64) -> Result<[NTupleNetwork; 2]> {
    let game = ConnectFour;
    let plan = SelfPlayPlan {
        games,
        threads: 1,
        units: Some(1),
        seed: 1,
        options: SelfPlay::default(),
        stop: Stop::new(),
    };
    let on_cpu = NTupleNetwork::for_game::<ConnectFour>(&default_shapes::<ConnectFour>())?;
    learn_games(&game, &on_cpu, game.initial(), plan.clone(), &mut |_| {});
    let (exec, _) = Executor::new(backend)?;
    let mut on_device = NTupleNetwork::for_game::<ConnectFour>(&default_shapes::<ConnectFour>())?;
    learn_self_play(&exec, &game, &mut on_device, plan, &mut |_| {})?;
    Ok([on_cpu, on_device])
}

/// Connect Four scored by `net`: a won game `WIN`, a position in play the network's value in
/// thousandths (kept below a won game).
pub fn scored(net: Arc<NTupleNetwork>) -> Evaluated<ConnectFour> {
    Evaluated::with_win(
        ConnectFour,
        Box::new(move |game, s| ((net.value(game, *s) * 1000.0) as i32).clamp(1 - WIN, WIN - 1)),
        WIN,
    )
}

/// A learned network's alpha-beta move and MCTS move from `root`, on the CPU.
pub fn play_learned(net: NTupleNetwork, root: Position) -> Result<[Option<u8>; 2]> {
    let net = Arc::new(net);
    let mut options = minimax::SearchOptions {
        order: Some(minimax::order_by_score::<Evaluated<ConnectFour>>),
        ..Default::default()
    };
    let game = scored(net.clone());
    let solved = minimax::solve_iterative(&game, &root, 6, &Stop::new(), &mut options).solution;
    let config = MctsConfig {
        budget: Budget::Playouts(20_000),
        ..MctsConfig::default()
    };
    let mut leaves = ValueLeaves::new(scored(net));
    let (mcts, _) = Mcts::new(root, config).search(&mut leaves, &ConnectFour)?;
    Ok([solved.best, mcts])
}

/// Perft, an MCTS move and an alpha-beta value from `position`, on the CPU and on `backend`.
pub fn tour(backend: Backend, position: &str) -> Result<()> {
    let game = ConnectFour;
    let root = game.parse_position(position)?;
    let (mut gpu, device) = Executor::new(backend)?;
    let mut cpu = CpuExecutor::new(0)?;
    println!("connect4 on {device}\n{}", game.format_position(&root));
    for depth in 1..=6 {
        let on_cpu = perft::perft_split(&mut cpu, &game, &root, depth)?;
        let on_gpu = perft::perft_split(&mut gpu, &game, &root, depth)?;
        let backend = device.backend();
        println!("perft({depth}) = {on_cpu} on the CPU, {on_gpu} on {backend}");
    }
    let config = MctsConfig {
        budget: Budget::Playouts(200_000),
        ..MctsConfig::default()
    };
    let (best, stats) = Mcts::new(root, config).search(&mut gpu, &game)?;
    let column = |best: Option<u8>| best.map_or(0, |c| c + 1);
    println!(
        "mcts: column {} after {} playouts",
        column(best),
        stats.playouts
    );
    for strategy in [Strategy::Cpu, Strategy::Split] {
        let solved = minimax::solve(&mut gpu, &game, &root, 6, strategy)?.solution;
        let (value, best) = (solved.value, column(solved.best));
        println!("alpha-beta depth 6 ({strategy}): value {value}, column {best}");
    }
    let [on_cpu, on_device] = learn(backend, 2_000)?;
    let same = (0..on_cpu.tables()).all(|t| {
        let bits =
            |net: &NTupleNetwork| net.table(t).iter().map(|w| w.to_bits()).collect::<Vec<_>>();
        bits(&on_cpu) == bits(&on_device)
    });
    println!("self-play, 2000 games: the device's weights equal the CPU's: {same}");
    let [alphabeta, mcts] = play_learned(on_cpu, root)?;
    println!(
        "learned evaluation: alpha-beta column {}, mcts column {}",
        column(alphabeta),
        column(mcts)
    );
    Ok(())
}

/// `[--backend B] [--position COLUMNS]`; a bad flag is one line on stderr and exit status 2.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| args.iter().position(|a| a == name).map(|i| args.get(i + 1));
    let backend = flag("--backend")
        .flatten()
        .map_or(Ok(Backend::Auto), |b| b.parse());
    let position = flag("--position").flatten().map_or("", |p| p.as_str());
    if let Err(e) = backend.and_then(|b| tour(b, position)) {
        eprintln!("connect4: {e}");
        std::process::exit(2);
    }
}
