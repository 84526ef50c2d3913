//! cubesearch as a CheckerBoard engine: a shared library (`libcubesearch_checkerboard.so`,
//! `cubesearch_checkerboard.dll`) exporting the three functions of the CheckerBoard engine API,
//! protocol version 2, English/American checkers (game type 21):
//!
//! - `getmove(board, color, maxtime, str, &playnow, info, moreinfo, &move)`: the engine's move,
//!   written back into `board` and `move`, a line about the search into `str`;
//! - `enginecommand(command, reply)`: `name`, `about`, `help`, `get protocolversion` (2),
//!   `get gametype` (21), `get|set player <spec>`, `get|set backend auto|cpu|wgpu|cuda`,
//!   `get|set book|hashsize|dbmbytes|allscores`;
//! - `islegal(board, color, from, to, &move)`.
//!
//! The player is any `cubesearch play` spec (default `mcts`, on the `auto` backend: the GPU
//! when there is one), from `set player`, else the environment's `CUBESEARCH_PLAYER` and
//! `CUBESEARCH_BACKEND`. The host's `maxtime` is each move's time (a depth with `info` bit 3)
//! unless the spec names its own budget (`mcts:playouts=5000`). When `playnow` turns nonzero
//! during a search (CheckerBoard's "play now", or a host's deadline), the search stops and its
//! best move so far is played; one asked with `playnow` already set gets 10 ms.
//!
//! The player, its compiled kernels and its MCTS tree live on one thread of their own (hosts
//! call from any thread), kept from move to move: a board one legal move after the engine's
//! last answer continues that game (`info` bit 0 says it does not). Nothing crosses the boundary
//! as a panic: a bad board, a bad spec or a failure is an `error: …` line in `str` (the board
//! left alone, UNKNOWN returned) or in `reply`.

use cubesearch_core::backend::Backend;
use cubesearch_core::{Game, Outcome, Stop};
use cubesearch_games::checkers::cbapi::{
    cb_move, move_between, move_to, read_board, write_board, CbBoard, CbMove, DRAW, GAME_TYPE,
    LOSS, PROTOCOL_VERSION, UNKNOWN, WIN,
};
use cubesearch_games::checkers::{Checkers, CheckersState, Rules};
use cubesearch_players::player::{MoveLimits, Player};
use cubesearch_players::spec::PlayerSpec;
use std::ffi::{c_char, c_int};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, Sender};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

/// Bytes of `getmove`'s `str` and `enginecommand`'s `reply`.
const TEXT_BYTES: usize = 1024;
/// Bytes of `enginecommand`'s `command`.
const COMMAND_BYTES: usize = 256;

/// The game the API plays: American rules, cubesearch's default draw limit.
fn checkers() -> Checkers {
    Checkers::new(Rules::American)
}

/// What `enginecommand` sets; plain data, shared by every thread.
#[derive(Clone, Debug)]
struct Settings {
    player: String,
    backend: Backend,
    book: c_int,
    hashsize: c_int,
    dbmbytes: c_int,
    allscores: c_int,
}

fn settings() -> MutexGuard<'static, Settings> {
    static SETTINGS: OnceLock<Mutex<Settings>> = OnceLock::new();
    SETTINGS
        .get_or_init(|| {
            let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
            Mutex::new(Settings {
                player: env("CUBESEARCH_PLAYER").unwrap_or_else(|| "mcts".into()),
                backend: env("CUBESEARCH_BACKEND")
                    .and_then(|b| b.parse().ok())
                    .unwrap_or(Backend::Auto),
                book: 0,
                hashsize: 64,
                dbmbytes: 0,
                allscores: 0,
            })
        })
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
}

/// A spec the engine may play: any but `human`.
fn check_spec(spec: &str) -> Result<(), String> {
    match spec.parse::<PlayerSpec<Checkers>>() {
        Ok(PlayerSpec::Human) => Err("human is the other side of the API".into()),
        Ok(_) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

/// Whether `spec` sets its own budget, which then wins over the host's `maxtime`.
fn names_budget(spec: &str) -> bool {
    let body = spec.split_once(':').map_or("", |(_, body)| body);
    body.split(',').any(|pair| {
        matches!(
            pair.split_once('=').map(|(key, _)| key.trim()),
            Some("time" | "playouts" | "depth")
        )
    })
}

/// `getmove`'s answer.
struct Reply {
    board: CbBoard,
    mv: CbMove,
    text: String,
    verdict: c_int,
}

/// The player and the game it is in, on the engine thread.
#[derive(Default)]
struct Engine {
    /// The player, and the spec and backend it was built from.
    player: Option<(String, Backend, Box<dyn Player<Checkers>>)>,
    /// The position after the engine's last move.
    last: Option<CheckersState>,
}

impl Engine {
    fn getmove(
        &mut self,
        board: CbBoard,
        color: c_int,
        maxtime: f64,
        playnow: bool,
        info: c_int,
        stop: Stop,
    ) -> Result<Reply, String> {
        let game = checkers();
        let given = read_board(&game, &board, color).map_err(|e| e.to_string())?;
        let Settings {
            player: spec,
            backend,
            ..
        } = settings().clone();
        if !matches!(&self.player, Some((s, b, _)) if *s == spec && *b == backend) {
            check_spec(&spec)?;
            let built = spec
                .parse::<PlayerSpec<Checkers>>()
                .and_then(|p| p.build(backend, 0x5EED))
                .map_err(|e| e.to_string())?;
            self.player = Some((spec.clone(), backend, built));
            self.last = None;
        }
        let (_, _, player) = self.player.as_mut().expect("built above");
        // One opponent move after our last answer: the same game goes on (tree, quiet plies).
        let mut state = given;
        if let Some(last) = self.last.take().filter(|_| info & 1 == 0) {
            if let Some(mv) = move_to(&game, &last, &given) {
                player.observe(&game, &last, mv);
                state = game.apply(&last, mv);
            }
        }
        let finished = |text: &str, verdict| Reply {
            board,
            mv: CbMove::default(),
            text: format!("cubesearch: {text}"),
            verdict,
        };
        match game.outcome(&state) {
            Outcome::Ongoing => {}
            Outcome::Draw => return Ok(finished("the game is drawn", DRAW)),
            _ => return Ok(finished("no legal move", LOSS)),
        }
        let mut limits = MoveLimits {
            stop: Some(stop),
            ..MoveLimits::default()
        };
        if !names_budget(&spec) {
            if info & 8 != 0 {
                limits.depth = Some(maxtime.clamp(1.0, 64.0) as u32);
            } else {
                let seconds = if playnow { 0.01 } else { maxtime };
                limits.time = Some(Duration::from_secs_f64(seconds.clamp(0.001, 86_400.0)));
            }
        }
        player.set_limits(&limits);
        let started = std::time::Instant::now();
        let mv = player.choose(&game, &state).map_err(|e| e.to_string())?;
        player.observe(&game, &state, mv);
        let after = game.apply(&state, mv);
        self.last = Some(after);
        let mut out = board;
        write_board(&after, &mut out);
        let search = match player.last_search() {
            Some(s) => format!(
                "{}{} nodes in {:.2} s; ",
                s.playouts
                    .map(|p| format!("{p} playouts, "))
                    .unwrap_or_default(),
                s.nodes,
                started.elapsed().as_secs_f64()
            ),
            None => String::new(),
        };
        let verdict = match game.outcome(&after) {
            Outcome::Loss => WIN,
            Outcome::Draw => DRAW,
            _ => UNKNOWN,
        };
        Ok(Reply {
            board: out,
            mv: cb_move(&game, &state, &mv),
            text: format!(
                "cubesearch {}: {search}plays {}",
                player.name(),
                game.format_move(&state, mv)
            ),
            verdict,
        })
    }
}

/// Work for the engine thread.
type Job = Box<dyn FnOnce(&mut Engine) + Send>;

/// The engine thread's inbox; `None` before the first move and after a panic ended the thread.
static ENGINE: Mutex<Option<Sender<Job>>> = Mutex::new(None);

/// Runs `work` on the engine thread, started on first use, and returns its answer. A panic
/// there ends the thread (the next call starts a fresh one) and is an error here.
/// `stop` is raised once `watch` says so while the work runs.
fn on_engine<R: Send + 'static>(
    work: impl FnOnce(&mut Engine) -> R + Send + 'static,
    watch: impl Fn() -> bool,
    stop: &Stop,
) -> Result<R, String> {
    let (answer, answered) = mpsc::channel();
    let job: Job = Box::new(move |engine| {
        let _ = answer.send(work(engine));
    });
    let sent = {
        let mut inbox = ENGINE.lock().unwrap_or_else(PoisonError::into_inner);
        let inbox = inbox.get_or_insert_with(start_engine);
        inbox.send(job).is_ok()
    };
    let reply = if !sent {
        None
    } else {
        loop {
            match answered.recv_timeout(Duration::from_millis(2)) {
                Ok(r) => break Some(r),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if watch() {
                        stop.request(1);
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break None,
            }
        }
    };
    reply.ok_or_else(|| {
        *ENGINE.lock().unwrap_or_else(PoisonError::into_inner) = None;
        "the engine failed (it starts afresh on the next move)".to_string()
    })
}

fn start_engine() -> Sender<Job> {
    let (inbox, jobs) = mpsc::channel::<Job>();
    // A thread that cannot start drops `jobs`: the send fails and the caller reports it.
    let _ = std::thread::Builder::new()
        .name("cubesearch-engine".into())
        .spawn(move || {
            let mut engine = Engine::default();
            for job in jobs {
                job(&mut engine);
            }
        });
    inbox
}

/// `text` into the C buffer `out` of `bytes` bytes, cut to fit, NUL-terminated.
///
/// # Safety
/// `out` is null or writable for `bytes` bytes.
unsafe fn write_text(out: *mut c_char, bytes: usize, text: &str) {
    if out.is_null() || bytes == 0 {
        return;
    }
    let mut end = text.len().min(bytes - 1);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    std::ptr::copy_nonoverlapping(text.as_ptr().cast::<c_char>(), out, end);
    *out.add(end) = 0;
}

/// The C string at `text`, read up to its NUL or `bytes` bytes.
///
/// # Safety
/// `text` is null or readable up to its NUL or for `bytes` bytes.
unsafe fn read_text(text: *const c_char, bytes: usize) -> String {
    if text.is_null() {
        return String::new();
    }
    let mut len = 0;
    while len < bytes && *text.add(len) != 0 {
        len += 1;
    }
    String::from_utf8_lossy(std::slice::from_raw_parts(text.cast::<u8>(), len)).into_owned()
}

/// The engine's move in `board` for `color` (BLACK 2, WHITE 1): see the crate's docs.
///
/// # Safety
/// `board` points to an `int[8][8]`, `text` to 1024 writable bytes, `playnow` and `mv` to their
/// types; `text`, `playnow` and `mv` may be null.
#[no_mangle]
pub unsafe extern "system" fn getmove(
    board: *mut CbBoard,
    color: c_int,
    maxtime: f64,
    text: *mut c_char,
    playnow: *mut c_int,
    info: c_int,
    _moreinfo: c_int,
    mv: *mut CbMove,
) -> c_int {
    let answer = catch_unwind(AssertUnwindSafe(|| {
        if board.is_null() {
            return Err("the board is a null pointer".to_string());
        }
        let given = *board;
        let now = !playnow.is_null() && *playnow != 0;
        let stop = Stop::new();
        let search = stop.clone();
        // The host may set `playnow` while the engine thread searches: it is watched here.
        let watch = || !playnow.is_null() && std::ptr::read_volatile(playnow) != 0;
        on_engine(
            move |engine| engine.getmove(given, color, maxtime, now, info, search),
            watch,
            &stop,
        )?
    }))
    .unwrap_or_else(|_| Err("the engine failed".into()));
    match answer {
        Ok(reply) => {
            *board = reply.board;
            if !mv.is_null() {
                *mv = reply.mv;
            }
            write_text(text, TEXT_BYTES, &reply.text);
            reply.verdict
        }
        Err(why) => {
            write_text(text, TEXT_BYTES, &format!("error: {why}"));
            UNKNOWN
        }
    }
}

/// Answers one `enginecommand` (see the crate's docs): 1 when handled, 0 with `?` (or an
/// `error: …` for a bad value) otherwise.
fn command(line: &str) -> (c_int, String) {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut settings = settings();
    let number = |value: &str| {
        value
            .parse::<c_int>()
            .map_err(|_| format!("error: '{value}' is not a number"))
    };
    let answer: Result<String, String> = match words.as_slice() {
        ["name"] => Ok("cubesearch".into()),
        ["about"] => Ok(format!(
            "cubesearch {}: game-tree search on GPUs (CubeCL kernels on CUDA and wgpu). Player {} on backend {}.",
            env!("CARGO_PKG_VERSION"),
            settings.player,
            settings.backend
        )),
        ["help"] => Ok("name, about, help, get protocolversion, get gametype, get|set player <spec> (any cubesearch play spec: mcts, mcts:time=1s,exec=gpu, alphabeta:depth=8, ...), get|set backend auto|cpu|wgpu|cuda, get|set book|hashsize|dbmbytes|allscores <n>".into()),
        ["get", "protocolversion"] => Ok(PROTOCOL_VERSION.to_string()),
        ["get", "gametype"] => Ok(GAME_TYPE.to_string()),
        ["get", "player"] => Ok(settings.player.clone()),
        ["get", "backend"] => Ok(settings.backend.to_string()),
        ["set", "player", spec @ ..] if !spec.is_empty() => {
            let spec = spec.join(" ");
            check_spec(&spec).map_err(|e| format!("error: {e}")).map(|()| {
                settings.player = spec.clone();
                spec
            })
        }
        ["set", "backend", name] => name
            .parse::<Backend>()
            .map_err(|e| format!("error: {e}"))
            .map(|backend| {
                settings.backend = backend;
                backend.to_string()
            }),
        ["get", "book"] => Ok(settings.book.to_string()),
        ["get", "hashsize"] => Ok(settings.hashsize.to_string()),
        ["get", "dbmbytes"] => Ok(settings.dbmbytes.to_string()),
        ["get", "allscores"] => Ok(settings.allscores.to_string()),
        // Kept and reported back; cubesearch has no opening book or endgame database.
        ["set", "book", n] => number(n).map(|n| { settings.book = n; n.to_string() }),
        ["set", "hashsize", n] => number(n).map(|n| { settings.hashsize = n; n.to_string() }),
        ["set", "dbmbytes", n] => number(n).map(|n| { settings.dbmbytes = n; n.to_string() }),
        ["set", "allscores", n] => number(n).map(|n| { settings.allscores = n; n.to_string() }),
        _ => Err("?".into()),
    };
    match answer {
        Ok(reply) => (1, reply),
        Err(reply) => (0, reply),
    }
}

/// `enginecommand(command[256], reply[1024])`.
///
/// # Safety
/// `command` is null or a C string (read up to 256 bytes), `reply` null or 1024 writable bytes.
#[no_mangle]
pub unsafe extern "system" fn enginecommand(
    command_text: *const c_char,
    reply: *mut c_char,
) -> c_int {
    let line = read_text(command_text, COMMAND_BYTES);
    let (handled, text) =
        catch_unwind(|| command(&line)).unwrap_or_else(|_| (0, "error: the engine failed".into()));
    write_text(reply, TEXT_BYTES, &text);
    handled
}

/// 1 and the move in `mv` when `color` may play from square `from` to square `to` (standard
/// numbers) on `board`, else 0 (a bad board too).
///
/// # Safety
/// `board` is null or points to an `int[8][8]`; `mv` is null or points to a `CBmove`.
#[no_mangle]
pub unsafe extern "system" fn islegal(
    board: *mut CbBoard,
    color: c_int,
    from: c_int,
    to: c_int,
    mv: *mut CbMove,
) -> c_int {
    if board.is_null() {
        return 0;
    }
    let given = *board;
    let found = catch_unwind(|| {
        let game = checkers();
        let state = read_board(&game, &given, color).ok()?;
        move_between(&game, &state, from, to).map(|m| cb_move(&game, &state, &m))
    })
    .ok()
    .flatten();
    match found {
        Some(found) => {
            if !mv.is_null() {
                *mv = found;
            }
            1
        }
        None => 0,
    }
}

/// Where cargo built this library for the workspace's tests and examples: beside the running
/// binary or one folder up (`target/<profile>/deps/` or `target/<profile>/`). Hosts' tests load
/// it from there.
#[doc(hidden)]
pub fn built_library() -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("the running binary's path");
    let name = format!(
        "{}cubesearch_checkerboard{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    exe.ancestors()
        .skip(1)
        .take(2)
        .map(|dir| dir.join(&name))
        .find(|path| path.exists())
        .unwrap_or_else(|| panic!("{name} is built beside {}", exe.display()))
}
