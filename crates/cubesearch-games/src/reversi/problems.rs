//! Endgame test positions as data: [`FFO_40_59`] is `benches/ffo-40-59.txt`, the FFO suite
//! #40–#59 with each position's exact value and best moves, which [`parse_problems`] reads.

use super::{Board, Reversi, ReversiMove};
use cubesearch_core::{Error, Game, Result};

/// FFO #40–#59 (www.radagast.se/othello/ffotest.html), one a line (see the file's header).
pub const FFO_40_59: &str = include_str!("../../../../benches/ffo-40-59.txt");

/// A test position: its name, the board, the final disc difference for the side to move under
/// perfect play, and every move that reaches it.
#[derive(Clone, Debug, PartialEq)]
pub struct EndgameProblem {
    /// The suite's number for it (`40`).
    pub name: String,
    /// The position.
    pub board: Board,
    /// Its exact value.
    pub value: i32,
    /// Its best moves.
    pub best: Vec<ReversiMove>,
}

/// The problems of `text`: a line each, `NUMBER BOARD SIDE VALUE MOVE[,MOVE…]`, as
/// [`FFO_40_59`] writes them; blank lines and `#` comments are skipped. A bad line is an error
/// naming it.
pub fn parse_problems(text: &str) -> Result<Vec<EndgameProblem>> {
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let bad = |why: String| Error::parse(format!("problem line {}: {why}", i + 1));
        let [name, squares, side, value, moves] = line.split_whitespace().collect::<Vec<_>>()[..]
        else {
            return Err(bad(format!(
                "expected NUMBER BOARD SIDE VALUE MOVES, got '{line}'"
            )));
        };
        let board = Reversi
            .parse_position(&format!("{squares} {side}"))
            .map_err(|e| bad(e.to_string()))?;
        let value = value
            .parse()
            .map_err(|_| bad(format!("'{value}' is not a disc difference")))?;
        let best = moves
            .split(',')
            .map(|m| {
                Reversi
                    .parse_move(&board, m)
                    .map_err(|e| bad(e.to_string()))
            })
            .collect::<Result<_>>()?;
        problems.push(EndgameProblem {
            name: name.to_string(),
            board,
            value,
            best,
        });
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reversi::endgame::Solver;

    /// The file holds #40–#59, and the solver finds the published value and one of the
    /// published moves of #40–#44 (the set CI's time allows).
    #[test]
    fn the_solver_agrees_with_ffo_40_to_44_from_the_data_file() {
        let problems = parse_problems(FFO_40_59).unwrap();
        let names: Vec<_> = problems.iter().map(|p| p.name.as_str()).collect();
        let want: Vec<String> = (40..=59).map(|n| n.to_string()).collect();
        assert_eq!(names, want);
        let mut solver = Solver::new();
        for problem in &problems[..5] {
            let solved = solver.solve(&problem.board);
            assert_eq!(solved.value, problem.value, "FFO #{}", problem.name);
            let best = solved.best.expect("a move");
            assert!(
                problem.best.contains(&best),
                "FFO #{}: {best:?}",
                problem.name
            );
        }
    }

    #[test]
    fn a_bad_problem_line_is_named() {
        for (text, says) in [
            (
                "40 O--O X +38",
                "problem line 1: expected NUMBER BOARD SIDE VALUE MOVES",
            ),
            ("# header\n\n41 --- X +0 h4", "problem line 3"),
            (
                "40 O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X many a2",
                "'many' is not a disc difference",
            ),
        ] {
            let err = parse_problems(text).expect_err(text).to_string();
            assert!(err.contains(says), "{text}: {err}");
        }
    }
}
