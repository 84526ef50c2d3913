//! A host of the CheckerBoard API, as CheckerBoard or `cliche` would be: loads the built
//! library with `libloading`, plays whole games through `getmove` against cubesearch's random
//! player, and checks every board it gets back is one legal move on and every `CBmove` says
//! what that move did. Bad boards and commands must come back as error replies.

use cubesearch_core::backend::Backend;
use cubesearch_core::{Game, Outcome};
use cubesearch_games::checkers::cbapi::{
    coor, move_to, read_board, write_board, CbBoard, CbMove, EngineCommand, GetMove, IsLegal,
    BLACK, EMPTY, FREE, KING, MAN, UNKNOWN, WHITE,
};
use cubesearch_games::checkers::{Checkers, Rules, Side};
use cubesearch_players::builtin::RandomPlayer;
use cubesearch_players::player::{play_game, Player};
use cubesearch_players::spec::PlayerSpec;
use std::ffi::{c_char, c_int, CStr};

struct Api {
    getmove: GetMove,
    command: EngineCommand,
    islegal: IsLegal,
    _library: libloading::Library,
}

impl Api {
    fn load() -> Api {
        // SAFETY: our own library; the API fixes the signatures.
        unsafe {
            let library = libloading::Library::new(cubesearch_checkerboard::built_library())
                .expect("the library loads");
            let getmove = *library.get::<GetMove>(b"getmove\0").unwrap();
            let command = *library.get::<EngineCommand>(b"enginecommand\0").unwrap();
            let islegal = *library.get::<IsLegal>(b"islegal\0").unwrap();
            let api = Api {
                getmove,
                command,
                islegal,
                _library: library,
            };
            // Every test asks for the same quick, deterministic player: tests share the library.
            assert_eq!(api.ask("set backend cpu"), (1, "cpu".into()));
            let spec = "mcts:playouts=200,exec=cpu";
            assert_eq!(api.ask(&format!("set player {spec}")), (1, spec.into()));
            api
        }
    }

    fn ask(&self, command: &str) -> (c_int, String) {
        let command = format!("{command}\0");
        let mut reply = [0 as c_char; 1024];
        // SAFETY: a C string and a 1024-byte reply.
        let handled = unsafe { (self.command)(command.as_ptr().cast(), reply.as_mut_ptr()) };
        (handled, text(&reply))
    }

    /// `getmove` on `board`: the verdict, the board and move it wrote, and its text.
    fn getmove(
        &self,
        board: &CbBoard,
        color: c_int,
        info: c_int,
    ) -> (c_int, CbBoard, CbMove, String) {
        let mut board = *board;
        let mut mv = CbMove::default();
        let mut said = [0 as c_char; 1024];
        let mut playnow = 0;
        // SAFETY: every pointer is to a live local of the API's size.
        let verdict = unsafe {
            (self.getmove)(
                &mut board,
                color,
                0.05,
                said.as_mut_ptr(),
                &mut playnow,
                info,
                0,
                &mut mv,
            )
        };
        (verdict, board, mv, text(&said))
    }

    fn islegal(&self, board: &CbBoard, color: c_int, from: c_int, to: c_int) -> Option<CbMove> {
        let mut board = *board;
        let mut mv = CbMove::default();
        // SAFETY: as above.
        let legal = unsafe { (self.islegal)(&mut board, color, from, to, &mut mv) };
        (legal == 1).then_some(mv)
    }
}

fn text(buffer: &[c_char; 1024]) -> String {
    assert!(buffer.contains(&0), "the reply is NUL-terminated");
    // SAFETY: NUL-terminated, checked above.
    unsafe { CStr::from_ptr(buffer.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

fn at(board: &CbBoard, c: cubesearch_games::checkers::cbapi::Coor) -> c_int {
    board[c.x as usize][c.y as usize]
}

fn game() -> Checkers {
    Checkers::new(Rules::American)
}

/// One whole game, the engine on `engine_side`; every answer checked. The result for Black.
fn host_game(api: &Api, engine_side: Side, seed: u32) -> i32 {
    let game = game();
    let mut random = RandomPlayer::new(seed);
    let mut state = game.initial();
    let mut first = 1;
    loop {
        match game.outcome(&state) {
            Outcome::Ongoing => {}
            Outcome::Draw => return 0,
            _ if state.side() == Side::Black => return -1,
            _ => return 1,
        }
        if state.side() != engine_side {
            let mv = random.choose(&game, &state).unwrap();
            state = game.apply(&state, mv);
            continue;
        }
        let mut before = [[0; 8]; 8];
        write_board(&state, &mut before);
        let color = if engine_side == Side::Black {
            BLACK
        } else {
            WHITE
        };
        // Bit 0 on the first move: a new game.
        let (verdict, after, cb, said) = api.getmove(&before, color, std::mem::take(&mut first));
        assert!(!said.starts_with("error"), "{said}");
        assert!((0..=3).contains(&verdict));
        let next = read_board(&game, &after, BLACK + WHITE - color).expect("a well-formed board");
        let mv = move_to(&game, &state, &next).unwrap_or_else(|| {
            panic!(
                "{said}: not one legal move on from {}",
                game.format_position(&state)
            )
        });
        // The CBmove says what the move did.
        assert_eq!(
            (cb.from, cb.to, cb.ismove),
            (coor(mv.from), coor(mv.to), c_int::from(mv.jumps))
        );
        assert_eq!(cb.oldpiece, at(&before, cb.from));
        assert_eq!(cb.newpiece, at(&after, cb.to));
        assert_eq!(
            (cb.path[0], cb.path[mv.jumps.max(1) as usize]),
            (cb.from, cb.to)
        );
        for k in 0..cb.ismove as usize {
            assert_eq!(cb.delpiece[k], at(&before, cb.del[k]));
            assert_eq!(cb.delpiece[k] & (BLACK | WHITE), BLACK + WHITE - color);
            assert_eq!(at(&after, cb.del[k]), EMPTY);
        }
        // islegal agrees, by standard square numbers.
        let number =
            |i: u8| c_int::from(cubesearch_games::checkers::board::GEOMETRY.number[i as usize]);
        let legal = api.islegal(&before, color, number(mv.from), number(mv.to));
        assert_eq!(legal.map(|m| (m.from, m.to)), Some((cb.from, cb.to)));
        state = game.apply(&state, mv);
    }
}

#[test]
fn a_host_plays_whole_games_through_getmove() {
    let api = Api::load();
    for (side, seed) in [(Side::Black, 1), (Side::White, 2)] {
        let result = host_game(&api, side, seed);
        assert!((-1..=1).contains(&result));
    }
}

#[test]
fn match_loads_the_library_as_a_player() {
    let _api = Api::load();
    let game = game();
    let spec: PlayerSpec<Checkers> = format!(
        "checkerboard:time=20ms,lib={}",
        cubesearch_checkerboard::built_library().display()
    )
    .parse()
    .unwrap();
    let mut engine = spec
        .build(Backend::Cpu, 7)
        .expect("the library loads as a player");
    assert!(
        engine.name().starts_with("cubesearch ("),
        "{}",
        engine.name()
    );
    let mut random = RandomPlayer::new(3);
    for engine_first in [true, false] {
        let players: [&mut dyn Player<Checkers>; 2] = if engine_first {
            [engine.as_mut(), &mut random]
        } else {
            [&mut random, engine.as_mut()]
        };
        let record =
            play_game(&game, game.initial(), players, |_, _, _| Ok(())).expect("every move legal");
        assert!(!record.moves.is_empty());
    }
}

#[test]
fn commands_answer_and_bad_input_is_an_error_reply() {
    let api = Api::load();
    assert_eq!(api.ask("get protocolversion"), (1, "2".into()));
    assert_eq!(api.ask("get gametype"), (1, "21".into()));
    assert_eq!(api.ask("name"), (1, "cubesearch".into()));
    assert_eq!(api.ask("set hashsize 128"), (1, "128".into()));
    assert_eq!(api.ask("get hashsize"), (1, "128".into()));
    assert_eq!(api.ask("launch rockets"), (0, "?".into()));
    let (handled, reply) = api.ask("set player nonsense:x=1");
    assert_eq!(handled, 0);
    assert!(reply.starts_with("error: "), "{reply}");
    assert_eq!(api.ask("set player human").0, 0);
    assert_eq!(api.ask("set hashsize lots").0, 0);
    assert_eq!(
        api.ask("get player"),
        (1, "mcts:playouts=200,exec=cpu".into())
    );

    let game = game();
    let mut start = [[0; 8]; 8];
    write_board(&game.initial(), &mut start);
    // islegal: 9-13 and 9-14 open the game for Black; 1-5 is blocked, White does not move first
    // from 9, and 21-17 is White's.
    assert!(api.islegal(&start, BLACK, 9, 13).is_some());
    assert!(api.islegal(&start, BLACK, 9, 14).is_some());
    assert!(api.islegal(&start, BLACK, 1, 5).is_none());
    assert!(api.islegal(&start, WHITE, 21, 17).is_some());
    assert!(api.islegal(&start, WHITE, 9, 13).is_none());

    let mut bad_boards = Vec::new();
    let mut light = start;
    light[1][0] = BLACK | MAN; // (1, 0) is a light square
    bad_boards.push(light);
    let mut crowned_man = start;
    crowned_man[1][7] = BLACK | MAN; // square 32, Black's crowning row
    bad_boards.push(crowned_man);
    let mut unknown = start;
    unknown[0][0] = 3;
    bad_boards.push(unknown);
    for board in &bad_boards {
        let (verdict, after, _, said) = api.getmove(board, BLACK, 0);
        assert_eq!(verdict, UNKNOWN);
        assert!(said.starts_with("error: "), "{said}");
        assert_eq!(&after, board, "a refused board is left alone");
        assert!(api.islegal(board, BLACK, 9, 13).is_none());
    }
    let (verdict, _, _, said) = api.getmove(&start, 5, 0);
    assert_eq!(verdict, UNKNOWN);
    assert!(said.contains("color 5"), "{said}");
    // A null board is refused, not read.
    let mut said = [0 as c_char; 1024];
    // SAFETY: a null board is what is being tested; the rest are valid.
    let verdict = unsafe {
        (api.getmove)(
            std::ptr::null_mut(),
            BLACK,
            1.0,
            said.as_mut_ptr(),
            std::ptr::null_mut(),
            0,
            0,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(verdict, UNKNOWN);
    assert!(text(&said).starts_with("error: "));
    // Light squares given as 0 instead of FREE are the same board; kings are read too.
    let mut zeros = start;
    for column in zeros.iter_mut() {
        for square in column.iter_mut() {
            if *square == FREE {
                *square = EMPTY;
            }
        }
    }
    zeros[6][0] = BLACK | KING; // square 1
    let state = read_board(&game, &zeros, BLACK).unwrap();
    assert_eq!(state.kings.count_ones(), 1);
}
