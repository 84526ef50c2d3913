//! `playnow` bounds a search across the API, both ways: the host (`checkerboard:` players)
//! sets it when the move is stopped, and the library (cubesearch as an engine) watches it and
//! answers with the best move so far. A test file of its own: its own process holds the
//! library's settings, which a 1000-second search needs.

use cubesearch_core::backend::Backend;
use cubesearch_core::{Game, Stop};
use cubesearch_games::checkers::cbapi::EngineCommand;
use cubesearch_games::checkers::{Checkers, Rules};
use cubesearch_players::player::MoveLimits;
use cubesearch_players::spec::PlayerSpec;
use std::ffi::c_char;
use std::time::{Duration, Instant};

#[test]
fn a_stopped_move_sets_playnow_and_the_library_answers_at_once() {
    let library = cubesearch_checkerboard::built_library();
    // SAFETY: our own library; the API fixes the signature; a C string and a 1024-byte reply.
    unsafe {
        let lib = libloading::Library::new(&library).expect("the library loads");
        let command = *lib.get::<EngineCommand>(b"enginecommand\0").unwrap();
        for line in ["set backend cpu\0", "set player mcts:exec=cpu\0"] {
            let mut reply = [0 as c_char; 1024];
            assert_eq!(command(line.as_ptr().cast(), reply.as_mut_ptr()), 1);
        }
        // The player below loads the same library: these settings hold for it.
        std::mem::forget(lib);
    }
    let spec: PlayerSpec<Checkers> = format!("checkerboard:time=1000s,lib={}", library.display())
        .parse()
        .unwrap();
    let mut engine = spec.build(Backend::Cpu, 7).expect("the library loads");
    let stop = Stop::new();
    engine.set_limits(&MoveLimits {
        stop: Some(stop.clone()),
        ..MoveLimits::default()
    });
    let game = Checkers::new(Rules::American);
    let raise = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        stop.request(1);
    });
    let started = Instant::now();
    let mv = engine.choose(&game, &game.initial()).expect("a move");
    let took = started.elapsed();
    raise.join().unwrap();
    assert!(game.moves(&game.initial()).contains(&mv));
    assert!(took < Duration::from_secs(5), "the move took {took:?}");
}
