//! The games the command line knows, one line each in the `registry! { … }` list of this
//! module's source, and how a command reaches the one it is given.
//!
//! A command is a [`GameVisitor`]: one method for two-player games and one for one-player
//! stochastic games, each generic over the game. [`visit`] makes the game a name stands for
//! (under the command line's [`GameOptions`]) and hands it to the method of its kind, so no
//! command matches on game names. What only some games do comes from the game's traits:
//! [`TwoPlayerGame`] (rule sets, the depth `solve` searches by default, an exact solver, a record
//! format) and [`OnePlayerGame`] (an n-tuple network on the device: `train`, `boards`,
//! expectimax players).
//!
//! Adding a game: its folder (host rules, device twin, the traits above), its `pub mod` in the
//! crate root, and one line in the list, `two_player <path>` or `one_player <path>`.
//!
//! ```
//! use cubesearch_core::Result;
//! use cubesearch_games::registry::{self, GameOptions, GameVisitor, OnePlayerGame, TwoPlayerGame};
//!
//! /// A command that only says what kind of game it got.
//! struct Kind;
//!
//! impl GameVisitor for Kind {
//!     type Output = &'static str;
//!     fn two_player<G: TwoPlayerGame>(self, _: G) -> Result<&'static str> {
//!         Ok("two players")
//!     }
//!     fn one_player<G: OnePlayerGame>(self, _: G) -> Result<&'static str> {
//!         Ok("one player, with chance")
//!     }
//! }
//!
//! assert_eq!(registry::NAMES, ["checkers", "reversi", "nim", "2584", "2048"]);
//! assert_eq!(registry::visit("nim", &GameOptions::default(), Kind)?, "two players");
//! assert_eq!(registry::visit("2048", &GameOptions::default(), Kind)?, "one player, with chance");
//! let rules = GameOptions { rules: Some("american"), ..GameOptions::default() };
//! assert!(registry::visit("nim", &rules, Kind).is_err()); // Nim has no rule sets
//! assert!(registry::visit("checkers", &rules, Kind).is_ok());
//! # Ok::<(), cubesearch_core::Error>(())
//! ```

pub use crate::kinds::{
    Exact, ExactSolver, GameOptions, GameVisitor, Learner, OnePlayerGame, TwoPlayerGame,
};
use cubesearch_core::{Error, Game, Result, StochasticGame};

/// Lists the games: each line `two_player <type>` or `one_player <type>`, in the order the
/// command line's help shows them. Makes [`NAMES`], [`GAMES`] and [`visit`].
macro_rules! registry {
    ($($kind:ident $game:ty,)*) => {
        /// Every game's command-line name, in the order the help lists them.
        pub const NAMES: &[&str] = &[$(registry!(@name $kind $game)),*];

        /// Every game: its name, its kind and its record format.
        pub const GAMES: &[Entry] = &[$(Entry {
            name: registry!(@name $kind $game),
            kind: registry!(@kind $kind),
            record_format: registry!(@record $kind $game),
            trains: registry!(@trains $kind $game),
        }),*];

        /// Makes the game called `name` under `options` and runs `visitor`'s method for its
        /// kind on it. A game refuses options it has no use for (`--rules` for a game without
        /// rule sets).
        pub fn visit<V: GameVisitor>(
            name: &str,
            options: &GameOptions,
            visitor: V,
        ) -> Result<V::Output> {
            $(
                if name == registry!(@name $kind $game) {
                    return registry!(@visit $kind $game, options, visitor);
                }
            )*
            Err(Error::parse(format!(
                "unknown game '{name}': {}",
                NAMES.join(", ")
            )))
        }
    };
    (@name two_player $game:ty) => { <$game as Game>::NAME };
    (@name one_player $game:ty) => { <$game as StochasticGame>::NAME };
    (@kind two_player) => { Kind::TwoPlayer };
    (@kind one_player) => { Kind::OnePlayer };
    (@record two_player $game:ty) => { <$game as TwoPlayerGame>::RECORD_FORMAT };
    (@record one_player $game:ty) => { None };
    (@trains two_player $game:ty) => { <$game as TwoPlayerGame>::LEARNER.is_some() };
    (@trains one_player $game:ty) => { true };
    (@visit two_player $game:ty, $options:expr, $visitor:expr) => {
        $visitor.two_player(<$game as TwoPlayerGame>::from_options($options)?)
    };
    (@visit one_player $game:ty, $options:expr, $visitor:expr) => {{
        $options.no_rules(<$game as StochasticGame>::NAME)?;
        $visitor.one_player(<$game as Default>::default())
    }};
}

// The games, one line each.
registry! {
    two_player crate::checkers::Checkers,
    two_player crate::reversi::Reversi,
    two_player crate::nim::Nim,
    one_player crate::fib::Game2584,
    one_player crate::fib::Game2048,
}

/// The two kinds of game a command handles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Two players taking turns ([`TwoPlayerGame`]).
    TwoPlayer,
    /// One player against chance ([`OnePlayerGame`]).
    OnePlayer,
}

/// One line of the registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The command-line name.
    pub name: &'static str,
    /// Its kind.
    pub kind: Kind,
    /// Its record format ([`TwoPlayerGame::RECORD_FORMAT`]).
    pub record_format: Option<&'static str>,
    /// Whether `train` learns it: every one-player game, and two-player games with a
    /// [`TwoPlayerGame::LEARNER`].
    pub trains: bool,
}

/// The names of the games of `kind`, in registry order.
pub fn names(kind: Kind) -> Vec<&'static str> {
    GAMES
        .iter()
        .filter(|g| g.kind == kind)
        .map(|g| g.name)
        .collect()
}

/// The games `train` learns ([`Entry::trains`]), in registry order.
pub fn trained_names() -> Vec<&'static str> {
    GAMES.iter().filter(|g| g.trains).map(|g| g.name).collect()
}

/// Which games write their records (`play --pdn`), as a clause: `only checkers (PDN) and
/// reversi (GGF) write game records`.
pub fn record_formats() -> String {
    let written: Vec<String> = GAMES
        .iter()
        .filter_map(|g| g.record_format.map(|f| format!("{} ({f})", g.name)))
        .collect();
    match written.split_last() {
        None => "no game writes game records".to_string(),
        Some((last, [])) => format!("only {last} writes game records"),
        Some((last, rest)) => format!("only {} and {last} write game records", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names what it was given.
    struct Name;

    impl GameVisitor for Name {
        type Output = String;
        fn two_player<G: TwoPlayerGame>(self, _: G) -> Result<String> {
            Ok(format!("two {}", <G as Game>::NAME))
        }
        fn one_player<G: OnePlayerGame>(self, _: G) -> Result<String> {
            Ok(format!("one {}", G::NAME))
        }
    }

    #[test]
    fn every_name_reaches_its_game_and_kind() {
        for entry in GAMES {
            let kind = match entry.kind {
                Kind::TwoPlayer => "two",
                Kind::OnePlayer => "one",
            };
            let visited = visit(entry.name, &GameOptions::default(), Name).unwrap();
            assert_eq!(visited, format!("{kind} {}", entry.name));
        }
        assert_eq!(names(Kind::OnePlayer), ["2584", "2048"]);
        assert_eq!(names(Kind::TwoPlayer), ["checkers", "reversi", "nim"]);
        let err = visit("chess", &GameOptions::default(), Name).unwrap_err();
        assert!(err.to_string().contains("unknown game 'chess'"), "{err}");
    }

    #[test]
    fn options_reach_the_games_that_take_them() {
        let american = GameOptions {
            rules: Some("american"),
            ..GameOptions::default()
        };
        assert!(visit("checkers", &american, Name).is_ok());
        let err = visit("2584", &american, Name).unwrap_err().to_string();
        assert!(err.contains("2584 has no rule set to choose"), "{err}");
        let err = visit("reversi", &american, Name).unwrap_err().to_string();
        assert!(err.contains("reversi has no rule set to choose; got --rules american"));
        let bad = GameOptions {
            rules: Some("bogus"),
            ..GameOptions::default()
        };
        assert!(visit("checkers", &bad, Name).is_err());
        let limit = |n| GameOptions {
            draw_plies: Some(n),
            ..GameOptions::default()
        };
        assert!(visit("checkers", &limit(255), Name).is_ok());
        for refused in [0, 256] {
            let err = visit("checkers", &limit(refused), Name).unwrap_err();
            assert!(err.to_string().contains("1 to 255"), "{err}");
        }
        let err = visit("nim", &limit(40), Name).unwrap_err().to_string();
        assert!(
            err.contains("nim has no draw limit to set; got --draw-plies 40"),
            "{err}"
        );
        assert_eq!(
            record_formats(),
            "only checkers (PDN) and reversi (GGF) write game records"
        );
    }
}
