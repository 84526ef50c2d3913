//! The CheckerBoard engine API (protocol version 2, game type 21: English/American checkers):
//! its C types, its board converted to and from [`CheckersState`], and a player that loads an
//! engine library through it (`checkerboard:[time=T,]lib=PATH`). The engine side, cubesearch as
//! such a library, is the `cubesearch-checkerboard` crate.
//!
//! CheckerBoard passes `int board[8][8]` as `board[x][y]`, x the column and y the row, Black's
//! men starting on rows 0–2. It is [`board`](super::board)'s diagram turned half a turn: the
//! square at (x, y) there is (7 − x, 7 − y) here. Standard numbers are the same on both.
//!
//! ```text
//!          x=0  x=1  x=2  x=3  x=4  x=5  x=6  x=7
//!   y=7     .   32    .   31    .   30    .   29      White's men start on rows 5–7
//!   y=6    28    .   27    .   26    .   25    .
//!   …
//!   y=1     .    8    .    7    .    6    .    5
//!   y=0     4    .    3    .    2    .    1    .      Black's men start on rows 0–2
//! ```
//!
//! A square holds EMPTY (0), or a colour (WHITE 1, BLACK 2) with MAN (4) or KING (8); the light
//! squares hold FREE (16) (hosts also pass 0 there).

use super::board::{coords_of_number, index_of, on_board, Side, GEOMETRY, ROW_1, ROW_8};
use super::movegen::CheckersMove;
use super::{Checkers, CheckersState};
use cubesearch_core::{Error, Game, Result, Stop};
use cubesearch_players::text::SpecText;
use std::ffi::{c_char, c_int, CStr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, TryRecvError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long past its move time an engine library searches before `playnow` is set: the
/// grace an external UGI engine gets by default. A library that then goes on for as long
/// again is given up.
const PLAYNOW_GRACE: Duration = Duration::from_secs(5);
/// How long a library has to answer `playnow` when the host stops the move (`stop`, `quit`, a
/// signal to the match) before it is given up.
const STOPPED_GRACE: Duration = Duration::from_millis(500);

/// An empty dark square.
pub const EMPTY: c_int = 0;
/// White (moves second).
pub const WHITE: c_int = 1;
/// Black (moves first).
pub const BLACK: c_int = 2;
/// A man (with a colour).
pub const MAN: c_int = 4;
/// A king (with a colour).
pub const KING: c_int = 8;
/// A light square, where no piece may stand.
pub const FREE: c_int = 16;

/// `getmove`'s verdict: a draw.
pub const DRAW: c_int = 0;
/// `getmove`'s verdict: the side that moved wins.
pub const WIN: c_int = 1;
/// `getmove`'s verdict: the side that moved loses.
pub const LOSS: c_int = 2;
/// `getmove`'s verdict: not known.
pub const UNKNOWN: c_int = 3;

/// The protocol version this module speaks.
pub const PROTOCOL_VERSION: c_int = 2;
/// CheckerBoard's number for English/American checkers.
pub const GAME_TYPE: c_int = 21;

/// `board[x][y]`.
pub type CbBoard = [[c_int; 8]; 8];

/// A square, as CheckerBoard's coordinates.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coor {
    /// Column 0..8.
    pub x: c_int,
    /// Row 0..8.
    pub y: c_int,
}

/// `struct CBmove`: a move as the host applies and shows it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CbMove {
    /// Pieces captured (0 for a plain move).
    pub ismove: c_int,
    /// The piece on `to` after the move (a crowned man is a king).
    pub newpiece: c_int,
    /// The piece that stood on `from`.
    pub oldpiece: c_int,
    /// Where the piece starts.
    pub from: Coor,
    /// Where it ends.
    pub to: Coor,
    /// The squares it stands on, `from` first and `to` last (one step: both).
    pub path: [Coor; 12],
    /// The captured pieces' squares, in the order taken.
    pub del: [Coor; 12],
    /// The captured pieces.
    pub delpiece: [c_int; 12],
}

/// `getmove(board, color, maxtime, str[1024], &playnow, info, moreinfo, &move)`.
pub type GetMove = unsafe extern "system" fn(
    *mut CbBoard,
    c_int,
    f64,
    *mut c_char,
    *mut c_int,
    c_int,
    c_int,
    *mut CbMove,
) -> c_int;
/// `enginecommand(command[256], reply[1024])`.
pub type EngineCommand = unsafe extern "system" fn(*const c_char, *mut c_char) -> c_int;
/// `islegal(board, color, from, to, &move)`.
pub type IsLegal =
    unsafe extern "system" fn(*mut CbBoard, c_int, c_int, c_int, *mut CbMove) -> c_int;

/// CheckerBoard's coordinates of the square at bit index `index`.
pub fn coor(index: u8) -> Coor {
    let (x, y) = coords_of_number(GEOMETRY.number[index as usize]);
    Coor { x: 7 - x, y: 7 - y }
}

/// The colour code of `side`.
pub fn color(side: Side) -> c_int {
    match side {
        Side::Black => BLACK,
        Side::White => WHITE,
    }
}

/// The value of the square at bit index `index`: EMPTY, or colour | MAN or KING.
pub fn piece(state: &CheckersState, index: u8) -> c_int {
    let bit = 1u32 << index;
    let colour = if state.black & bit != 0 {
        BLACK
    } else if state.white & bit != 0 {
        WHITE
    } else {
        return EMPTY;
    };
    colour | if state.kings & bit != 0 { KING } else { MAN }
}

/// The position CheckerBoard's `board` shows, `color` to move, no quiet plies yet; a board no
/// game can hold (a piece on a light square, a man on its crowning row, an unknown value) is an
/// error naming the square.
pub fn read_board(game: &Checkers, board: &CbBoard, color: c_int) -> Result<CheckersState> {
    let side = match color {
        BLACK => Side::Black,
        WHITE => Side::White,
        other => return Err(Error::parse(format!("color {other}: BLACK is 2, WHITE 1"))),
    };
    let (mut white, mut black, mut kings) = (0u32, 0u32, 0u32);
    for (x, column) in board.iter().enumerate() {
        for (y, &value) in column.iter().enumerate() {
            let (ours_x, ours_y) = (7 - x as i32, 7 - y as i32);
            if !on_board(ours_x, ours_y) {
                if value != EMPTY && value != FREE {
                    return Err(Error::parse(format!(
                        "board[{x}][{y}] is a light square but holds {value}"
                    )));
                }
                continue;
            }
            let index = index_of(ours_x, ours_y);
            let bit = 1u32 << index;
            let square = GEOMETRY.number[index as usize];
            match value {
                EMPTY => {}
                v if v == BLACK | MAN && bit & ROW_1 == 0 => black |= bit,
                v if v == WHITE | MAN && bit & ROW_8 == 0 => white |= bit,
                v if v == BLACK | KING => (black, kings) = (black | bit, kings | bit),
                v if v == WHITE | KING => (white, kings) = (white | bit, kings | bit),
                v if v & MAN != 0 => {
                    return Err(Error::parse(format!(
                        "square {square} holds a man on the row that crowns it"
                    )))
                }
                v => {
                    return Err(Error::parse(format!(
                        "square {square} holds {v}: a piece is BLACK (2) or WHITE (1) with MAN (4) or KING (8)"
                    )))
                }
            }
        }
    }
    Ok(game.position(white, black, kings, side))
}

/// `state`'s pieces written into `board` (light squares FREE).
pub fn write_board(state: &CheckersState, board: &mut CbBoard) {
    for (x, column) in board.iter_mut().enumerate() {
        for (y, value) in column.iter_mut().enumerate() {
            let (ours_x, ours_y) = (7 - x as i32, 7 - y as i32);
            *value = if on_board(ours_x, ours_y) {
                piece(state, index_of(ours_x, ours_y))
            } else {
                FREE
            };
        }
    }
}

/// `mv`, played from `before`, as CheckerBoard's move.
pub fn cb_move(game: &Checkers, before: &CheckersState, mv: &CheckersMove) -> CbMove {
    let after = game.apply(before, *mv);
    let squares = mv.squares();
    let mut out = CbMove {
        ismove: c_int::from(mv.jumps),
        newpiece: piece(&after, mv.to),
        oldpiece: piece(before, mv.from),
        from: coor(mv.from),
        to: coor(mv.to),
        ..CbMove::default()
    };
    for (slot, &square) in out.path.iter_mut().zip(&squares) {
        *slot = coor(square);
    }
    if mv.jumps > 0 {
        // Each jump passes over the neighbour of the square it leaves, in its direction.
        for (k, pair) in squares.windows(2).take(12).enumerate() {
            let over = GEOMETRY.neighbour[pair[0] as usize][mv.direction(k as u32)];
            out.del[k] = coor(over);
            out.delpiece[k] = piece(before, over);
        }
    }
    out
}

/// Whether two positions hold the same pieces and side to move (quiet plies aside).
pub fn same_board(a: &CheckersState, b: &CheckersState) -> bool {
    (a.white, a.black, a.kings, a.side()) == (b.white, b.black, b.kings, b.side())
}

/// The legal move from `before` that leads to `after`'s pieces, if one does.
pub fn move_to(
    game: &Checkers,
    before: &CheckersState,
    after: &CheckersState,
) -> Option<CheckersMove> {
    game.moves(before)
        .into_iter()
        .find(|&m| same_board(&game.apply(before, m), after))
}

/// The bit index of the square at CheckerBoard's coordinates `c`, if it is a dark square.
pub fn index_of_coor(c: Coor) -> Option<u8> {
    let (x, y) = (7 - c.x, 7 - c.y);
    on_board(x, y).then(|| index_of(x, y))
}

/// The legal move from `state` that `reported` describes: the same `from` and `to`, the same
/// number of pieces taken, and the same set of captured squares (`del`, in any order). Engines
/// differ in the rest: Cake 1.22 lists `del` by square and repeats `to` through `path`, so
/// neither `path`'s order nor the pieces' values are compared.
pub fn move_of_cb_move(
    game: &Checkers,
    state: &CheckersState,
    reported: &CbMove,
) -> Option<CheckersMove> {
    let (from, to) = (index_of_coor(reported.from)?, index_of_coor(reported.to)?);
    let jumps = usize::try_from(reported.ismove).ok().filter(|&j| j <= 12)?;
    let mut captured = 0u32;
    for &square in &reported.del[..jumps] {
        captured |= 1 << index_of_coor(square)?;
    }
    game.moves(state)
        .into_iter()
        .find(|m| (m.from, m.to, usize::from(m.jumps), m.captured) == (from, to, jumps, captured))
}

/// What `getmove` handed back, read against the position it was asked about: the board it
/// wrote and the `CBmove` it filled must name one legal move. Engines report the move in
/// either or both (Cake 1.22's Linux build fills only `CBmove` and leaves the board as it
/// was); `move_filled` says whether `CBmove` was written at all.
pub fn reported_move(
    game: &Checkers,
    state: &CheckersState,
    board: &CbBoard,
    reported: Option<&CbMove>,
) -> std::result::Result<CheckersMove, String> {
    let mut asked = [[0; 8]; 8];
    write_board(state, &mut asked);
    let from_board = if same_squares(board, &asked) {
        None
    } else {
        let after = read_board(game, board, BLACK + WHITE - color(state.side()))
            .map_err(|e| format!("returned a bad board: {e}"))?;
        Some(move_to(game, state, &after).ok_or("returned a board no legal move reaches")?)
    };
    let from_cb_move = match reported {
        None => None,
        Some(cb) => Some(move_of_cb_move(game, state, cb).ok_or_else(|| {
            format!(
                "reported a CBmove that is no legal move ({})",
                describe_cb_move(cb)
            )
        })?),
    };
    match (from_board, from_cb_move) {
        (Some(a), Some(b)) if !same_board(&game.apply(state, a), &game.apply(state, b)) => {
            Err(format!(
                "its board and its CBmove disagree: the board shows {}, the CBmove {}",
                game.format_move(state, a),
                game.format_move(state, b)
            ))
        }
        (Some(mv), _) | (None, Some(mv)) => Ok(mv),
        (None, None) => {
            Err("reported no move: the board came back unchanged and CBmove empty".into())
        }
    }
}

/// Whether two boards hold the same pieces on the dark squares (light squares may be 0 or FREE).
fn same_squares(a: &CbBoard, b: &CbBoard) -> bool {
    (0..8).all(|x| (0..8).all(|y| !on_board(7 - x as i32, 7 - y as i32) || a[x][y] == b[x][y]))
}

/// `from`–`to` of a `CBmove` in standard numbers, or its raw coordinates off the board.
fn describe_cb_move(cb: &CbMove) -> String {
    let square = |c: Coor| match index_of_coor(c) {
        Some(i) => GEOMETRY.number[i as usize].to_string(),
        None => format!("({}, {})", c.x, c.y),
    };
    let sep = if cb.ismove > 0 { 'x' } else { '-' };
    format!(
        "{}{sep}{}, {} taken",
        square(cb.from),
        square(cb.to),
        cb.ismove
    )
}

/// The legal move from square `from` to square `to` (standard numbers), if there is one.
pub fn move_between(
    game: &Checkers,
    state: &CheckersState,
    from: c_int,
    to: c_int,
) -> Option<CheckersMove> {
    let number = |index: u8| c_int::from(GEOMETRY.number[index as usize]);
    game.moves(state)
        .into_iter()
        .find(|m| number(m.from) == from && number(m.to) == to)
}

/// `checkerboard:[time=T,]lib=PATH` or `checkerboard:PATH`: an engine library and the time it
/// gets a move (default 1 s).
#[derive(Clone, Debug, PartialEq)]
pub struct CheckerBoardSpec {
    /// The shared library (`.so`, `.dll`, `.dylib`).
    pub library: PathBuf,
    /// `maxtime` passed to `getmove`.
    pub time: Duration,
    /// The spec as written.
    pub text: String,
}

impl CheckerBoardSpec {
    /// Reads `checkerboard:[time=T,]lib=PATH` (or `checkerboard:PATH`).
    pub fn parse(text: &str) -> Result<Self> {
        let spec = SpecText::new(text);
        let (options, library) = spec.options_then("lib", &["time"], "the engine library")?;
        let mut time = Duration::from_secs(1);
        for (_, value) in options {
            time = spec.duration(value)?;
        }
        // A bare file name is a file here, not a name for the loader to look up in the
        // library path (which dlopen does for a name without a slash).
        let library = PathBuf::from(library);
        let library = match library.parent() {
            Some(folder) if folder.as_os_str().is_empty() => PathBuf::from(".").join(library),
            _ => library,
        };
        Ok(Self {
            library,
            time,
            text: text.to_string(),
        })
    }
}

/// An engine library loaded through the CheckerBoard API, asked for each move by `getmove`;
/// every board it returns must be one legal move on. `playnow` is set when the move is stopped
/// and 5 s past the move's time.
///
/// `getmove` runs on a thread of its own, so that a library that ignores `playnow` cannot hold
/// the process: once stopped (or 5 s past `playnow`) the move is given up with an error and
/// the thread left running, never joined (the process may end meanwhile). It holds the
/// library, which stays loaded until it returns; until then the player asks no more moves.
pub struct CheckerBoardPlayer {
    spec: CheckerBoardSpec,
    name: String,
    getmove: GetMove,
    fresh: bool,
    /// The host's request for the move now: it sets `playnow`, as does the move's deadline.
    stop: Stop,
    /// A move given up on, whose `getmove` may not have returned yet.
    given_up: Option<Receiver<Asked>>,
    // Last: the functions above point into it.
    library: Arc<libloading::Library>,
}

/// What one `getmove` call is given and hands back, owned by the thread that makes it.
struct Asked {
    board: CbBoard,
    color: c_int,
    text: [c_char; 1024],
    info: c_int,
    mv: CbMove,
}

impl CheckerBoardPlayer {
    /// Loads the library and checks that it speaks protocol 2 for game type 21.
    pub fn load(spec: &CheckerBoardSpec) -> Result<Self> {
        let failed = |why: String| Error::Unsupported(format!("{}: {why}", spec.text));
        // SAFETY: loading runs the library's initialisers; the user named it as an engine.
        let library = unsafe { libloading::Library::new(&spec.library) }
            .map_err(|e| failed(format!("cannot load {}: {e}", spec.library.display())))?;
        // SAFETY: the API fixes these functions' signatures.
        let (getmove, command) = unsafe {
            let getmove = library.get::<GetMove>(b"getmove\0");
            let command = library.get::<EngineCommand>(b"enginecommand\0");
            match (getmove, command) {
                (Ok(g), Ok(c)) => (*g, *c),
                _ => {
                    return Err(failed(
                        "not a CheckerBoard engine (it lacks getmove or enginecommand)".into(),
                    ))
                }
            }
        };
        let ask = |question: &str| -> String {
            let question = format!("{question}\0");
            let mut reply = [0 as c_char; 1024];
            // SAFETY: a NUL-terminated command and a 1024-byte reply, as the API fixes.
            unsafe { command(question.as_ptr().cast(), reply.as_mut_ptr()) };
            reply[1023] = 0;
            // SAFETY: NUL-terminated just above at the latest.
            unsafe { CStr::from_ptr(reply.as_ptr()) }
                .to_string_lossy()
                .trim()
                .to_string()
        };
        let (version, kind) = (ask("get protocolversion"), ask("get gametype"));
        if version != PROTOCOL_VERSION.to_string() || kind != GAME_TYPE.to_string() {
            return Err(failed(format!(
                "speaks protocol '{version}' for game type '{kind}'; cubesearch needs {PROTOCOL_VERSION} and {GAME_TYPE} (English/American checkers)"
            )));
        }
        let name = match ask("name") {
            n if n.is_empty() => spec.text.clone(),
            n => format!("{n} ({})", spec.text),
        };
        Ok(Self {
            spec: spec.clone(),
            name,
            getmove,
            fresh: true,
            stop: Stop::new(),
            given_up: None,
            library: Arc::new(library),
        })
    }
}

/// The process's stdout pointed at /dev/null while this lives (Unix; elsewhere nothing
/// changes). What the engine wrote through C's stdio is flushed there before stdout returns.
struct SilencedStdout {
    #[cfg(unix)]
    saved: Option<std::os::fd::OwnedFd>,
}

impl SilencedStdout {
    fn new() -> Self {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        #[cfg(unix)]
        {
            use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
            let null = std::fs::OpenOptions::new().write(true).open("/dev/null");
            // SAFETY: dup and dup2 on descriptors this process owns; the copy of stdout is
            // owned by `saved` and put back on drop.
            let saved = null.ok().and_then(|null| unsafe {
                let copy = libc::dup(libc::STDOUT_FILENO);
                if copy < 0 {
                    return None;
                }
                let saved = OwnedFd::from_raw_fd(copy);
                (libc::dup2(null.as_raw_fd(), libc::STDOUT_FILENO) >= 0).then_some(saved)
            });
            Self { saved }
        }
        #[cfg(not(unix))]
        Self {}
    }
}

impl Drop for SilencedStdout {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(saved) = self.saved.take() {
            use std::os::fd::AsRawFd;
            // SAFETY: flushes C's streams into /dev/null, then puts the saved stdout back.
            unsafe {
                libc::fflush(std::ptr::null_mut());
                libc::dup2(saved.as_raw_fd(), libc::STDOUT_FILENO);
            }
        }
    }
}

impl cubesearch_players::player::Player<Checkers> for CheckerBoardPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose(&mut self, game: &Checkers, state: &CheckersState) -> Result<CheckersMove> {
        let failed = |why: String| Error::Unsupported(format!("{}: {why}", self.spec.text));
        if let Some(earlier) = &self.given_up {
            match earlier.try_recv() {
                Err(TryRecvError::Empty) => return Err(failed(
                    "the library is still searching a move it was stopped in (it ignores playnow)"
                        .into(),
                )),
                _ => self.given_up = None,
            }
        }
        // Coordinates no square has: an engine that fills CBmove overwrites them.
        let unset = CbMove {
            from: Coor { x: -1, y: -1 },
            to: Coor { x: -1, y: -1 },
            ..CbMove::default()
        };
        let mut asked = Asked {
            board: [[0; 8]; 8],
            color: color(state.side()),
            text: [0; 1024],
            // Bit 0 on the first move: whatever the engine remembers is from another game.
            info: c_int::from(std::mem::take(&mut self.fresh)),
            mv: unset,
        };
        write_board(state, &mut asked.board);
        // Set below while the engine searches: an atomic of `int`'s layout.
        let playnow = Arc::new(AtomicI32::new(0));
        // Engines print their search to stdout (Cake does): it goes to /dev/null, so that
        // our stdout stays ours (`--json` keeps it to one object).
        let silenced = SilencedStdout::new();
        let (answer, answered) = sync_channel(1);
        let (getmove, library, time) = (self.getmove, self.library.clone(), self.spec.time);
        let flag = playnow.clone();
        std::thread::Builder::new()
            .name("checkerboard-getmove".into())
            .spawn(move || {
                // SAFETY: every pointer is to memory this thread owns, of the size the API
                // fixes (`playnow` is an `int` in memory, shared); `library` keeps the
                // function loaded.
                unsafe {
                    getmove(
                        &mut asked.board,
                        asked.color,
                        time.as_secs_f64(),
                        asked.text.as_mut_ptr(),
                        flag.as_ptr(),
                        asked.info,
                        0,
                        &mut asked.mv,
                    )
                };
                drop(library);
                let _ = answer.send(asked);
            })
            .map_err(|e| failed(format!("cannot start a thread for the library: {e}")))?;
        // The API's only way to bound a search: `playnow` is set once the host stops the move
        // or its time and a grace have passed. A library that ignores it is given up.
        let playnow_at = Instant::now() + time + PLAYNOW_GRACE;
        let mut give_up_at = None;
        let asked = loop {
            match answered.recv_timeout(Duration::from_millis(2)) {
                Ok(asked) => break Ok(asked),
                Err(RecvTimeoutError::Disconnected) => {
                    break Err("the library's call ended without an answer".to_string())
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            let now = Instant::now();
            if give_up_at.is_none() {
                let grace = if self.stop.is_raised() {
                    Some(STOPPED_GRACE)
                } else {
                    (now >= playnow_at).then_some(PLAYNOW_GRACE)
                };
                if let Some(grace) = grace {
                    playnow.store(1, Ordering::Release);
                    give_up_at = Some(now + grace);
                }
            }
            if give_up_at.is_some_and(|at| now >= at) {
                self.given_up = Some(answered);
                break Err(format!(
                    "the library did not answer playnow within {:?} (given up; it goes on searching)",
                    if self.stop.is_raised() { STOPPED_GRACE } else { PLAYNOW_GRACE }
                ));
            }
        };
        drop(silenced);
        let mut asked = asked.map_err(failed)?;
        asked.text[1023] = 0;
        // SAFETY: NUL-terminated just above at the latest.
        let said = unsafe { CStr::from_ptr(asked.text.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        let mv = asked.mv;
        // A CBmove left as given, or zeroed, was not filled.
        let filled = (mv.from, mv.to) != (unset.from, unset.to) && mv != CbMove::default();
        reported_move(game, state, &asked.board, filled.then_some(&mv)).map_err(|why| {
            failed(format!(
                "{why} from {} ({said})",
                game.format_position(state)
            ))
        })
    }

    fn set_limits(&mut self, limits: &cubesearch_players::player::MoveLimits) {
        if let Some(time) = limits.time {
            self.spec.time = time;
        }
        if let Some(stop) = &limits.stop {
            self.stop = stop.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `mv` from `state` as Cake 1.22's Linux build fills CBmove: the captured squares in
    /// another order, `to` again and again in `path`, the mover's colour as each captured piece.
    fn cake_cb_move(game: &Checkers, state: &CheckersState, mv: &CheckersMove) -> CbMove {
        let mut cb = cb_move(game, state, mv);
        let n = cb.ismove as usize;
        cb.del[..n].reverse();
        for k in 0..n.max(1) {
            cb.path[k] = cb.to;
            cb.delpiece[k] = color(state.side());
        }
        cb
    }

    #[test]
    fn a_move_is_read_from_cbmove_or_the_board_and_both_must_agree() {
        let game = Checkers::default();
        let mut most_taken = 0;
        for fen in [
            "W:WK26:B14,15,22,23",
            "B:W14,23:B9",
            "B:W21,22,23,24:B11,12",
        ] {
            let state = game.parse_position(fen).unwrap();
            let moves = game.moves(&state);
            most_taken = moves
                .iter()
                .map(|m| m.jumps)
                .max()
                .unwrap_or(0)
                .max(most_taken);
            assert!(!moves.is_empty(), "{fen}");
            let mut unchanged = [[0; 8]; 8];
            write_board(&state, &mut unchanged);
            for mv in &moves {
                let mut after = [[0; 8]; 8];
                write_board(&game.apply(&state, *mv), &mut after);
                let cake = cake_cb_move(&game, &state, mv);
                let exact = cb_move(&game, &state, mv);
                let same =
                    |m: CheckersMove| same_board(&game.apply(&state, m), &game.apply(&state, *mv));
                // CBmove alone (Cake), the board alone, and both.
                for (board, cb) in [
                    (&unchanged, Some(&cake)),
                    (&after, None),
                    (&after, Some(&exact)),
                ] {
                    let read = reported_move(&game, &state, board, cb).unwrap();
                    assert!(same(read), "{fen}: {}", game.format_move(&state, *mv));
                }
                // Another legal move in CBmove, beside this move's board, is refused.
                if let Some(other) = moves.iter().find(|m| !same(**m)) {
                    let cb = cb_move(&game, &state, other);
                    let err = reported_move(&game, &state, &after, Some(&cb)).unwrap_err();
                    assert!(err.contains("disagree"), "{err}");
                }
            }
            let err = reported_move(&game, &state, &unchanged, None).unwrap_err();
            assert!(err.contains("reported no move"), "{err}");
            // A CBmove with a square off the board, or too many captures, names no move.
            let mut wrong = cb_move(&game, &state, &moves[0]);
            wrong.to = Coor { x: 1, y: 0 };
            assert!(reported_move(&game, &state, &unchanged, Some(&wrong)).is_err());
            wrong.ismove = 13;
            assert!(move_of_cb_move(&game, &state, &wrong).is_none());
        }
        assert!(
            most_taken >= 2,
            "a multi-jump, whose captures Cake lists out of order"
        );
    }
}
