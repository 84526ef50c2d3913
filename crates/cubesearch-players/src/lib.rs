//! Players of two-player games, and the specs that name them: the text a command line names a
//! player by (`random`, `mcts:time=1s,exec=gpu`, `alphabeta:depth=6`, `ugi:cmd=…`, a game's own
//! players), read once into typed values ([`spec`]) and built into players ([`build`]); one
//! game between two players ([`player::play_game`]); a match of many, from [`openings`], with
//! its Elo and a results file to resume from ([`matches`](mod@matches)); and what a search would cost, to
//! refuse work that cannot end ([`effort`]).
//!
//! The modules build on one another in one direction: [`text`] (the grammar) ← [`player`] (the
//! trait) ← [`spec`] ← the players ([`builtin`], [`alphabeta`], [`external`]) ← [`build`]; and
//! [`player`] ← [`openings`] ← the results file ← [`matches`](mod@matches).

#![deny(missing_docs)]

pub mod alphabeta;
pub mod build;
pub mod builtin;
pub mod effort;
pub mod external;
pub mod learned;
pub mod matches;
pub mod openings;
pub mod player;
mod results_file;
pub mod spec;
pub mod text;

pub use matches::{play_match, Elo, Match, MatchGame, MatchOptions, MatchReport, Tally};
pub use openings::{Opening, Openings};
pub use player::{play_game, GameRecord, MoveLimits, NamedPlayers, NoNamed, Player, SearchReport};
pub use spec::{PlayerSpec, StochasticPlayerSpec};
pub use text::{parse_duration, SpecText};
