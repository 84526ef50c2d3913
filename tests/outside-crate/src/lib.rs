//! The example games built as a game author's crate would build them: with `cubesearch` as the
//! only dependency, `#[cube]` code and all. The examples' `main`s are unused here.
#![allow(dead_code)]
// `#[cube]` code has no `is_multiple_of`: the device rules write `x % 2 == 0`.
#![allow(clippy::manual_is_multiple_of)]

#[path = "../../../examples/connect4.rs"]
pub mod connect4;

#[path = "../../../examples/mini2048.rs"]
pub mod mini2048;
