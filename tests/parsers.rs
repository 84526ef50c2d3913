//! Every parser under property tests with a fixed budget: positions of each game, moves, player
//! specs and weights files. Whatever the input, a parser answers `Ok` or a clear error and never
//! panics; what it accepts it writes back the same way; what it writes it reads back.

use cubesearch::games::seed_shapes;
use cubesearch::games::{Checkers, Game2048, Game2584, Nim, Reversi};
use cubesearch::testing::random_positions;
use cubesearch::{Game, NTupleNetwork, StochasticGame};
use cubesearch_players::player::NamedPlayers;
use cubesearch_players::spec::{PlayerSpec, StochasticPlayerSpec};
use proptest::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

/// Cases per property: enough to reach the odd corners, little enough for CI's two cores.
const CASES: u32 = 256;

/// Reads `text` with `parse`; what it accepts must write back (`format`) to a text that reads
/// back to the same position.
fn round_trip<S>(
    text: &str,
    parse: impl Fn(&str) -> cubesearch::Result<S>,
    format: impl Fn(&S) -> String,
) -> std::result::Result<(), TestCaseError> {
    if let Ok(state) = parse(text) {
        let written = format(&state);
        let again = parse(&written);
        prop_assert!(again.is_ok(), "{text:?} → {written:?} does not read back");
        prop_assert_eq!(format(&again.unwrap()), written);
    }
    Ok(())
}

/// [`round_trip`] for a position of a two-player game.
fn position_round_trip<G: Game>(game: &G, text: &str) -> std::result::Result<(), TestCaseError> {
    round_trip(
        text,
        |t| game.parse_position(t),
        |s| game.format_position(s),
    )
}

/// [`round_trip`] for a board of a tile game, and of a start drawn for it mutated.
fn tile_round_trip<G: StochasticGame>(
    game: &G,
    text: &str,
    at: usize,
    edit: u8,
    c: char,
) -> std::result::Result<(), TestCaseError> {
    let start = game.initial(&mut cubesearch::rng::XorShift32::for_worker(3, 0));
    for text in [
        text.to_string(),
        mutate(&game.format_position(&start), at, edit, c),
    ] {
        round_trip(
            &text,
            |t| game.parse_position(t),
            |s| game.format_position(s),
        )?;
    }
    Ok(())
}

/// Every legal move of reachable positions of `game` reads back from its notation, and
/// `garbage` read as a move is either refused or a legal move.
fn moves_round_trip<G: Game>(
    game: &G,
    seed: u32,
    garbage: &str,
) -> std::result::Result<(), TestCaseError> {
    for state in random_positions(game, 4, 40, seed) {
        let moves = game.moves(&state);
        for &m in &moves {
            let text = game.format_move(&state, m);
            let read = game.parse_move(&state, &text);
            prop_assert!(read.is_ok(), "{text} does not read back: {:?}", read.err());
            prop_assert_eq!(game.format_move(&state, read.unwrap()), text);
        }
        if let Ok(m) = game.parse_move(&state, garbage) {
            prop_assert!(moves.contains(&m), "{garbage:?} read as an illegal move");
        }
        // A reachable position writes and reads back.
        position_round_trip(game, &game.format_position(&state))?;
    }
    Ok(())
}

/// `text` with one character replaced, deleted or inserted at `at`.
fn mutate(text: &str, at: usize, edit: u8, c: char) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let at = at % (chars.len() + 1);
    match edit % 3 {
        0 if at < chars.len() => chars[at] = c,
        1 if at < chars.len() => {
            chars.remove(at);
        }
        _ => chars.insert(at, c),
    }
    chars.into_iter().collect()
}

/// Reads `text` as a spec of game `G`'s players; it is refused with a message or accepted.
fn spec_reads<G: NamedPlayers>(text: &str) {
    if let Err(e) = text.parse::<PlayerSpec<G>>() {
        assert!(!e.to_string().is_empty());
    }
}

/// A saved 2048 network (the seed's shapes, weights touched by a few updates) and the length of
/// its safetensors header.
fn weights_file() -> &'static (Vec<u8>, usize) {
    static FILE: OnceLock<(Vec<u8>, usize)> = OnceLock::new();
    FILE.get_or_init(|| {
        let net = NTupleNetwork::for_game::<Game2048>(&seed_shapes()).unwrap();
        for i in 0..64u8 {
            let cells: [u8; 16] = std::array::from_fn(|c| (c as u8 + i) % 12);
            net.update_cells(&cells, 0, f32::from(i) - 30.0);
        }
        let dir = std::env::temp_dir().join(format!("cubesearch-parsers-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.safetensors");
        net.save(&path, 64, 1.0).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_dir_all(&dir).ok();
        let header = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
        (bytes, 8 + header)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn checkers_positions(text in "[WBKwbk0-9:,.\\- ]{0,48}", at: usize, edit: u8, c in "[WBK0-9:,.\\-x ]") {
        position_round_trip(&Checkers::default(), &text)?;
        let start = Checkers::default().format_position(&Checkers::default().initial());
        position_round_trip(&Checkers::default(), &mutate(&start, at, edit, c.chars().next().unwrap()))?;
    }

    #[test]
    fn reversi_positions(text in "[-XOxo. ]{0,70}", at: usize, edit: u8, c in "[-XO. \n]") {
        position_round_trip(&Reversi, &text)?;
        let start = Reversi.format_position(&Reversi.initial());
        position_round_trip(&Reversi, &mutate(&start, at, edit, c.chars().next().unwrap()))?;
    }

    #[test]
    fn nim_positions(text in "[0-9, ]{0,48}", at: usize, edit: u8, c in "[0-9, x]") {
        position_round_trip(&Nim, &text)?;
        position_round_trip(&Nim, &mutate("1,3,5,7", at, edit, c.chars().next().unwrap()))?;
    }

    #[test]
    fn tile_game_positions(text in "[0-9, ]{0,80}", at: usize, edit: u8, c in "[0-9, ]") {
        let c = c.chars().next().unwrap();
        tile_round_trip(&Game2584::new(), &text, at, edit, c)?;
        tile_round_trip(&Game2048::new(), &text, at, edit, c)?;
    }

    #[test]
    fn moves_of_every_game(seed: u32, garbage in "[a-h1-9x:\\-, ]{0,12}|pass") {
        moves_round_trip(&Checkers::default(), seed, &garbage)?;
        moves_round_trip(&Reversi, seed, &garbage)?;
        moves_round_trip(&Nim, seed, &garbage)?;
    }

    #[test]
    fn tile_game_actions(text in "[a-z\u{1b}\\[ ]{0,8}") {
        if let Ok(action) = Game2048::new().parse_action(&text) {
            let name = Game2048::new().format_action(action);
            prop_assert_eq!(Game2048::new().parse_action(&name).ok(), Some(action));
        }
    }

    #[test]
    fn player_specs(text in "(human|random|flat|mcts|alphabeta|easy|medium|td|expectimax)?(:[a-z]{0,9}(=[0-9a-z.]{0,6})?(,[a-z]{0,9}=[0-9a-z.\\-]{0,6}){0,3})?") {
        spec_reads::<Checkers>(&text);
        spec_reads::<Reversi>(&text);
        spec_reads::<Nim>(&text);
        if let Err(e) = text.parse::<StochasticPlayerSpec>() {
            prop_assert!(!e.to_string().is_empty());
        }
    }

    #[test]
    fn weights_files(index: usize, flip in 1u8..=255, cut: usize) {
        let (bytes, data_start) = weights_file();
        let path = Path::new("w.safetensors");
        // One flipped byte: in the tensor data the checksum must catch it; in the header the
        // file is refused or still reads.
        let mut flipped = bytes.clone();
        let at = index % bytes.len();
        flipped[at] ^= flip;
        let read = NTupleNetwork::from_bytes::<Game2048>(&flipped, path, None);
        if at >= *data_start {
            prop_assert!(read.is_err(), "a flipped data byte at {at} went unnoticed");
        }
        // Cut short anywhere: refused.
        let cut = cut % bytes.len();
        prop_assert!(NTupleNetwork::from_bytes::<Game2048>(&bytes[..cut], path, None).is_err());
        // Another game's tiles: refused.
        prop_assert!(NTupleNetwork::from_bytes::<Game2584>(bytes, path, None).is_err());
    }
}

#[test]
fn the_weights_file_reads_back_unchanged() {
    let (bytes, _) = weights_file();
    assert!(NTupleNetwork::from_bytes::<Game2048>(bytes, Path::new("w"), None).is_ok());
}
