//! The seed's benchmark boards (2.6) of 2584 and 2048, as committed in the repository: board files
//! of [`cubesearch_search::boards`] (`class position` a line), one starter, normal and late-game
//! board from each of an expectimax agent's games (`cubesearch boards` makes them).

/// `benches/boards-2584.txt`.
pub const BOARDS_2584: &str = include_str!("../../../../benches/boards-2584.txt");
/// `benches/boards-2048.txt`.
pub const BOARDS_2048: &str = include_str!("../../../../benches/boards-2048.txt");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fib::{Game2048, Game2584};
    use cubesearch_search::boards::{parse, BoardClass};

    #[test]
    fn the_committed_board_files_hold_every_class() {
        let check = |boards: Vec<BoardClass>| {
            for class in BoardClass::ALL {
                assert!(
                    boards.iter().filter(|&&c| c == class).count() >= 4,
                    "{class:?}"
                );
            }
        };
        let text = BOARDS_2584;
        check(
            parse(&Game2584::new(), text)
                .unwrap()
                .into_iter()
                .map(|b| b.0)
                .collect(),
        );
        let text = BOARDS_2048;
        check(
            parse(&Game2048::new(), text)
                .unwrap()
                .into_iter()
                .map(|b| b.0)
                .collect(),
        );
    }

    #[test]
    fn bad_board_files_are_refused_with_the_line() {
        let g = Game2584::new();
        let e = parse(&g, "# c\nstarter 1,2\n").unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
        let e = parse(&g, "middle 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("starter, normal or late"), "{e}");
        let full = "late 1,3,1,3,3,1,3,1,1,3,1,3,3,1,3,1";
        assert!(parse(&g, full)
            .unwrap_err()
            .to_string()
            .contains("no legal move"));
        assert!(parse(&g, "# nothing\n").is_err());
    }
}
