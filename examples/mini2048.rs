//! A new stochastic game in one file: 2048 on a 3×3 board. Its host rules, its n-tuple cells,
//! its device twin, then TD(0) training and expectimax play on the CPU and on whichever GPU
//! backend `--backend` picks, through the public API.
//!
//! ```text
//! cargo run --release --example mini2048 -- --backend auto [--games 4000] [--play 8]
//! ```

use cubesearch::backend::resolve;
use cubesearch::cubecl::{self, prelude::*};
use cubesearch::device::{rng, Acted};
use cubesearch::expectimax::{play_games, Expectimax, PlayOptions};
use cubesearch::learn::{default_shapes, pack_views, square_symmetries};
use cubesearch::rng::XorShift32;
use cubesearch::train::{engine_on, train_on, TrainConfig};
use cubesearch::{Backend, CpuExecutor, DeviceStochasticGame, Error, Executor, GpuStochasticGame};
use cubesearch::{Result, StochasticGame, TupleBoard};
use std::time::Instant;

// The board: 9 cells of 4 bits, cell c = 3·row + col at bits 4c; a cell holds a tile index k
// (0 empty, tile 2^k).
//
//    c0 c1 c2        word 0 = cells 0..8 (bits 0..32)
//    c3 c4 c5        word 1 = cell 8     (bits 0..4)
//    c6 c7 c8

/// 2048 on a 3×3 board: slide left, right, up or down; equal tiles merge once a move, scoring
/// the new tile; then a 2 (p = 0.9) or a 4 (p = 0.1) appears on a uniformly drawn empty cell.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mini2048;

/// The directions, in canonical order.
pub const DIRECTIONS: [&str; 4] = ["left", "right", "up", "down"];

fn cell(s: u64, c: usize) -> u8 {
    (s >> (4 * c) & 15) as u8
}

fn with_cell(s: u64, c: usize, k: u8) -> u64 {
    s & !(15 << (4 * c)) | (k as u64) << (4 * c)
}

/// The cells of line `i` of direction `dir`, from the side the tiles slide toward.
fn line(dir: u8, i: usize) -> [usize; 3] {
    match dir {
        0 => [3 * i, 3 * i + 1, 3 * i + 2],
        1 => [3 * i + 2, 3 * i + 1, 3 * i],
        2 => [i, i + 3, i + 6],
        _ => [i + 6, i + 3, i],
    }
}

/// One line slid toward its first cell: the new tiles and the points scored.
fn slide_line(tiles: [u8; 3]) -> ([u8; 3], u32) {
    let mut out = [0u8; 3];
    let (mut len, mut reward, mut open) = (0, 0, false);
    for k in tiles.into_iter().filter(|&k| k != 0) {
        if open && out[len - 1] == k && k < 15 {
            out[len - 1] = k + 1;
            reward += 1 << (k + 1);
            open = false;
        } else {
            out[len] = k;
            len += 1;
            open = true;
        }
    }
    (out, reward)
}

impl Mini2048 {
    fn empty_cells(s: u64) -> impl Iterator<Item = usize> {
        (0..9).filter(move |&c| cell(s, c) == 0)
    }
}

impl StochasticGame for Mini2048 {
    type State = u64;
    type Action = u8;
    const NAME: &'static str = "mini2048";
    const ACTIONS: &'static [u8] = &[0, 1, 2, 3];

    fn afterstate(&self, s: &u64, dir: u8) -> Option<(u64, u32)> {
        let (mut after, mut reward) = (*s, 0);
        for i in 0..3 {
            let cells = line(dir, i);
            let (tiles, r) = slide_line(cells.map(|c| cell(*s, c)));
            for (c, k) in cells.into_iter().zip(tiles) {
                after = with_cell(after, c, k);
            }
            reward += r;
        }
        (after != *s).then_some((after, reward))
    }

    fn chance_outcomes(&self, after: &u64, out: &mut Vec<(u64, u32)>) {
        for c in Self::empty_cells(*after) {
            for (k, w) in [(1, 9), (2, 1)] {
                out.push((with_cell(*after, c, k), w));
            }
        }
    }

    fn sample_chance(&self, after: &u64, rng: &mut XorShift32) -> u64 {
        let empty = Self::empty_cells(*after).count() as u32;
        if empty == 0 {
            return *after;
        }
        let nth = rng.below(empty) as usize;
        let k = if rng.below(10) < 9 { 1 } else { 2 };
        let c = Self::empty_cells(*after).nth(nth).expect("nth < empty");
        with_cell(*after, c, k)
    }

    fn initial(&self, rng: &mut XorShift32) -> u64 {
        let s = self.sample_chance(&0, rng);
        self.sample_chance(&s, rng)
    }

    fn parse_position(&self, text: &str) -> Result<u64> {
        let bad = || {
            Error::parse(format!(
                "bad mini2048 board '{text}': 9 tile values, 0 empty"
            ))
        };
        let values: Vec<u32> = text
            .split(',')
            .map(|v| v.trim().parse().map_err(|_| bad()))
            .collect::<Result<_>>()?;
        if values.len() != 9 {
            return Err(bad());
        }
        values.iter().enumerate().try_fold(0, |s, (c, &v)| match v {
            0 => Ok(s),
            v if v.is_power_of_two() && (2..1 << 15).contains(&v) => {
                Ok(with_cell(s, c, v.trailing_zeros() as u8))
            }
            _ => Err(bad()),
        })
    }

    fn format_position(&self, s: &u64) -> String {
        let value = |k: u8| if k == 0 { 0 } else { 1u32 << k };
        (0..9)
            .map(|c| value(cell(*s, c)).to_string())
            .collect::<Vec<_>>()
            .join(",")
    }

    fn format_action(&self, dir: u8) -> String {
        DIRECTIONS[dir as usize].to_string()
    }
}

const SQUARE: [[u8; 9]; 8] = square_symmetries::<3, 9>();

/// What an n-tuple network reads: the 9 cells, the square's 8 symmetries.
impl TupleBoard for Mini2048 {
    type Board = <Self as StochasticGame>::State;
    const GAME: &'static str = <Self as StochasticGame>::NAME;
    const CELLS: usize = 9;
    const CELL_BITS: u32 = 4;
    const SYMMETRIES: &'static [&'static [u8]] = &[
        &SQUARE[0], &SQUARE[1], &SQUARE[2], &SQUARE[3], &SQUARE[4], &SQUARE[5], &SQUARE[6],
        &SQUARE[7],
    ];
    const CELLS_PER_WORD: usize = 16;
    // A corner 2×2 square, a row with the cell below its middle, and a whole side: 16⁴ weights each.
    const SHAPES: &'static [(&'static str, &'static [&'static [u8]])] =
        &[("default", &[&[0, 1, 3, 4], &[0, 1, 2, 4], &[0, 1, 2, 5]])];
    const MILESTONES: &'static [u32] = &[64, 128, 256, 512, 1024];
    type Views<const N: usize> = [[[u64; N]; 1]; 8];

    fn cells(&self, s: &u64, out: &mut [u8]) {
        for (c, o) in out.iter_mut().enumerate() {
            *o = cell(*s, c);
        }
    }

    fn views<const N: usize>(&self, states: [u64; N]) -> Self::Views<N> {
        pack_views(self, states)
    }

    fn progress(&self, s: &u64) -> u32 {
        1u32 << (0..9).map(|c| cell(*s, c)).max().unwrap_or(0)
    }
}

/// The board on the device: its three rows, cell `3r + j` at bits `4j` of row `r`.
#[derive(CubeType, Clone, Copy)]
pub struct Rows {
    r0: u32,
    r1: u32,
    r2: u32,
}

/// The device twin.
pub struct DeviceMini2048;

/// The tile index at position `j` (0..3) of a row value.
#[cube]
fn at(row: u32, j: u32) -> u32 {
    (row >> (4u32 * j)) & 15u32
}

/// The row value of three tile indices.
#[cube]
fn row_of(a: u32, b: u32, c: u32) -> u32 {
    a | (b << 4u32) | (c << 8u32)
}

/// A line being slid toward its first position: the positions filled so far, how many, whether
/// the last tile may still merge (it was not made by a merge this move), and the points.
#[derive(CubeType, Clone, Copy)]
struct Slid {
    line: u32,
    len: u32,
    open: bool,
    reward: u32,
}

/// Feeds tile `k` (0 is skipped) to the line being built, as the host's `slide_line` does.
#[cube]
fn push(acc: &mut Slid, k: u32) {
    if k != 0u32 {
        // The last tile placed (position 0 when none is: `open` is false then).
        let last = at(acc.line, acc.len - select(acc.len > 0u32, 1u32, 0u32));
        if acc.open && last == k && k < 15u32 {
            let line = acc.line + (1u32 << (4u32 * (acc.len - 1u32)));
            let reward = acc.reward + (1u32 << (k + 1u32));
            acc.line = line;
            acc.reward = reward;
            acc.open = false;
        } else {
            let line = acc.line | (k << (4u32 * acc.len));
            let len = acc.len + 1u32;
            acc.line = line;
            acc.len = len;
            acc.open = true;
        }
    }
}

/// A line (its first position where the tiles slide to) slid.
#[cube]
fn slide_line_device(line: u32) -> Slid {
    let mut acc = Slid {
        line: 0u32,
        len: 0u32,
        open: false,
        reward: 0u32,
    };
    push(&mut acc, at(line, 0u32));
    push(&mut acc, at(line, 1u32));
    push(&mut acc, at(line, 2u32));
    acc
}

/// Reverses a line's three positions.
#[cube]
fn reversed(line: u32) -> u32 {
    row_of(at(line, 2u32), at(line, 1u32), at(line, 0u32))
}

/// Column `j` of the board as a line, the top first.
#[cube]
fn column(s: &Rows, j: u32) -> u32 {
    row_of(at(s.r0, j), at(s.r1, j), at(s.r2, j))
}

/// Line `i` of direction `dir` (as the host's `line`), slid.
#[cube]
fn slide_nth(s: &Rows, dir: u32, i: u32) -> Slid {
    let row = select(i == 0u32, s.r0, select(i == 1u32, s.r1, s.r2));
    let vertical = dir >= 2u32;
    let high = dir == 1u32 || dir == 3u32;
    let plain = select(vertical, column(s, i), row);
    let slid = slide_line_device(select(high, reversed(plain), plain));
    Slid {
        line: select(high, reversed(slid.line), slid.line),
        len: slid.len,
        open: slid.open,
        reward: slid.reward,
    }
}

/// Puts tile index `k` in cell `c`.
#[cube]
fn put(s: &mut Rows, c: u32, k: u32) {
    let bit = k << (4u32 * (c % 3u32));
    let r = c / 3u32;
    let n0 = s.r0 | select(r == 0u32, bit, 0u32);
    let n1 = s.r1 | select(r == 1u32, bit, 0u32);
    let n2 = s.r2 | select(r == 2u32, bit, 0u32);
    s.r0 = n0;
    s.r1 = n1;
    s.r2 = n2;
}

#[cube]
impl DeviceStochasticGame for DeviceMini2048 {
    type State = Rows;

    fn load(words: &Array<u32>, offset: usize) -> Rows {
        let w0 = words[offset];
        let w1 = words[offset + 1];
        Rows {
            r0: w0 & 0xFFFu32,
            r1: (w0 >> 12u32) & 0xFFFu32,
            r2: (w0 >> 24u32) | ((w1 & 15u32) << 8u32),
        }
    }

    fn store(s: &Rows, words: &mut Array<u32>, offset: usize) {
        words[offset] = s.r0 | (s.r1 << 12u32) | (s.r2 << 24u32);
        words[offset + 1] = s.r2 >> 8u32;
    }

    fn from_lane(s: &Rows, lane: u32) -> Rows {
        Rows {
            r0: plane_shuffle(s.r0, lane),
            r1: plane_shuffle(s.r1, lane),
            r2: plane_shuffle(s.r2, lane),
        }
    }

    fn assign(to: &mut Rows, from: &Rows) {
        let n0 = from.r0;
        let n1 = from.r1;
        let n2 = from.r2;
        to.r0 = n0;
        to.r1 = n1;
        to.r2 = n2;
    }

    fn act(s: &mut Rows, dir: u32) -> Acted {
        let a = slide_nth(s, dir, 0u32);
        let b = slide_nth(s, dir, 1u32);
        let c = slide_nth(s, dir, 2u32);
        // Columns come back to rows by the same reading.
        let vertical = dir >= 2u32;
        let n0 = select(
            vertical,
            row_of(at(a.line, 0u32), at(b.line, 0u32), at(c.line, 0u32)),
            a.line,
        );
        let n1 = select(
            vertical,
            row_of(at(a.line, 1u32), at(b.line, 1u32), at(c.line, 1u32)),
            b.line,
        );
        let n2 = select(
            vertical,
            row_of(at(a.line, 2u32), at(b.line, 2u32), at(c.line, 2u32)),
            c.line,
        );
        let legal = n0 != s.r0 || n1 != s.r1 || n2 != s.r2;
        s.r0 = n0;
        s.r1 = n1;
        s.r2 = n2;
        Acted {
            reward: select(legal, a.reward + b.reward + c.reward, 0u32),
            legal,
        }
    }

    // Outcome slot o: tile index 1 + o % 2 in cell o / 2.
    fn chance(s: &mut Rows, outcome: u32) -> bool {
        let c = outcome / 2u32;
        let free = Self::cell(s, c) == 0u32;
        if free {
            put(s, c, 1u32 + outcome % 2u32);
        }
        free
    }

    fn chance_packed(s: &mut Rows, slot: u32) -> bool {
        Self::chance(s, slot)
    }

    fn outcome_weight(outcome: u32) -> u32 {
        select((outcome & 1u32) == 0u32, 9u32, 1u32)
    }

    fn sample_chance(s: &mut Rows, rng: &mut u32) {
        let mut empty = 0u32;
        #[unroll]
        for c in 0..9u32 {
            empty += select(Self::cell(s, c) == 0u32, 1u32, 0u32);
        }
        if empty > 0u32 {
            let nth = rng::below(rng, empty);
            let k = select(rng::below(rng, 10u32) < 9u32, 1u32, 2u32);
            let mut seen = 0u32;
            #[unroll]
            for c in 0..9u32 {
                if Self::cell(s, c) == 0u32 {
                    if seen == nth {
                        put(s, c, k);
                    }
                    seen += 1u32;
                }
            }
        }
    }

    fn initial(rng: &mut u32) -> Rows {
        let mut s = Rows {
            r0: 0u32,
            r1: 0u32,
            r2: 0u32,
        };
        Self::sample_chance(&mut s, rng);
        Self::sample_chance(&mut s, rng);
        s
    }

    fn cell(s: &Rows, c: u32) -> u32 {
        let r = c / 3u32;
        at(
            select(r == 0u32, s.r0, select(r == 1u32, s.r1, s.r2)),
            c % 3u32,
        )
    }

    fn progress(s: &Rows) -> u32 {
        let mut top = 0u32;
        #[unroll]
        for c in 0..9u32 {
            let k = Self::cell(s, c);
            top = select(k > top, k, top);
        }
        1u32 << top
    }

    fn stage_progress(s: &Rows) -> u32 {
        Self::progress(s)
    }
}

impl GpuStochasticGame for Mini2048 {
    type Device = DeviceMini2048;
    const STATE_WORDS: usize = 2;
    const OUTCOMES: u32 = 18;

    fn encode(&self, s: &u64, out: &mut [u32]) {
        out[0] = *s as u32;
        out[1] = (*s >> 32) as u32;
    }

    fn decode(&self, words: &[u32]) -> u64 {
        words[0] as u64 | (words[1] as u64) << 32
    }
}

/// `--name value` from the command line, if given.
fn flag(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let backend: Backend = flag(&args, "--backend")
        .as_deref()
        .unwrap_or("auto")
        .parse()?;
    let number = |name: &str, default: u64| -> Result<u64> {
        flag(&args, name).map_or(Ok(default), |v| {
            v.parse()
                .map_err(|_| Error::parse(format!("{name} takes a number, got '{v}'")))
        })
    };
    let (train_games, play) = (number("--games", 4000)?, number("--play", 8)?);
    let game = Mini2048;
    // `auto` prefers a real device, and takes a software rasteriser (lavapipe) only by name.
    let device = resolve(backend)?;
    let exec = Executor::on(&device)?;
    println!("device: {device}");

    // TD(0) on the chosen backend, from zero weights.
    let cfg = TrainConfig {
        games: train_games,
        shapes: Some(default_shapes::<Mini2048>()),
        seed: 7,
        ..TrainConfig::default()
    };
    let mut engine = engine_on::<Mini2048>(&exec, None);
    let (net, report) = train_on(&game, &cfg, engine.as_mut(), |_| {})?;
    println!(
        "trained {} games ({} moves) in {:.2} s: {:.3e} moves/s, mean score of the last games {:.0}",
        report.games, report.moves, report.seconds, report.moves_per_sec, report.recent_mean_score
    );

    // Expectimax, one chance layer, on the CPU and on the device, from the same seeds (the
    // device sums in another order, so a near-tie may go the other way).
    let mut searchers = vec![("cpu", Expectimax::new(Executor::Cpu(CpuExecutor::new(0)?)))];
    if !exec.is_cpu() {
        searchers.push((device.backend().name(), Expectimax::new(exec)));
    }
    for (name, mut searcher) in searchers {
        let start = Instant::now();
        let options = PlayOptions {
            layers: 1,
            games: play,
            seed: 11,
            ..PlayOptions::default()
        };
        let games = play_games(&mut searcher, &game, &net, options, |_, _| {})?;
        let mean = games.iter().map(|g| g.score).sum::<u64>() as f64 / games.len() as f64;
        let best = games
            .iter()
            .map(|g| game.progress(&g.last))
            .max()
            .unwrap_or(0);
        println!(
            "expectimax (1 layer) on {name}: {} games, mean score {mean:.1}, best tile {best}, {:.2} s",
            games.len(),
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
