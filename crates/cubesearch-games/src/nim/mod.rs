//! Nim, normal play: a move removes at least one object from one heap; whoever takes the last
//! object wins. The seed's board of size n has heaps 1, 3, 5, …, 2n − 1.
//!
//! One position is one u64, shared bit for bit with the device:
//! ```text
//!  bits 63..60   59..56   ...   7..4     3..0
//!      [count]  [heap 14] ... [heap 1] [heap 0]     4 bits a heap, heaps ≤ 15, ≤ 15 heaps
//! ```
//! The heap count is kept so that positions print back as typed (`1,0,5`).

#[allow(missing_docs)] // `#[cube]` and `CubeType` generate items that carry no docs
pub mod device;

use crate::kinds::{Exact, ExactSolver, GameOptions, TwoPlayerGame};
use cubesearch_core::rng::XorShift32;
use cubesearch_core::{Error, Game, Outcome, Result};
use cubesearch_players::player::{NamedPlayers, NoNamed};

pub use device::DeviceNim;

/// Most heaps a position holds.
pub const MAX_HEAPS: usize = 15;
/// Most objects a heap holds.
pub const MAX_HEAP: u32 = 15;

/// Every heap's bits; the top nibble is the heap count.
const HEAP_BITS: u64 = (1 << 60) - 1;

/// The game of Nim.
#[derive(Clone, Copy, Debug, Default)]
pub struct Nim;

/// A Nim position (see the module docs for the layout).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NimState(pub u64);

/// Take `take ≥ 1` objects from heap `heap` (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NimMove {
    /// The heap, from 0.
    pub heap: u8,
    /// How many objects to remove.
    pub take: u8,
}

impl NimState {
    /// A position with these heaps (each ≤ 15, at most 15 heaps).
    pub fn new(heaps: &[u32]) -> Result<Self> {
        if heaps.is_empty() || heaps.len() > MAX_HEAPS {
            return Err(Error::parse(format!(
                "a Nim position has 1 to {MAX_HEAPS} heaps, got {}",
                heaps.len()
            )));
        }
        let mut packed = (heaps.len() as u64) << 60;
        for (i, &h) in heaps.iter().enumerate() {
            if h > MAX_HEAP {
                return Err(Error::parse(format!(
                    "heap {i} holds {h} objects: at most {MAX_HEAP}"
                )));
            }
            packed |= (h as u64) << (4 * i);
        }
        Ok(NimState(packed))
    }

    /// The seed's board of size `n`: heaps 1, 3, …, 2n − 1 (1 ≤ n ≤ 8).
    pub fn seed_board(n: usize) -> Result<Self> {
        if !(1..=8).contains(&n) {
            return Err(Error::parse(format!(
                "the seed's Nim boards have sizes 1 to 8, got {n}"
            )));
        }
        Self::new(&(0..n as u32).map(|i| 2 * i + 1).collect::<Vec<_>>())
    }

    /// How many heaps the position has.
    pub fn heap_count(self) -> usize {
        (self.0 >> 60) as usize
    }

    /// Objects on heap `i`.
    pub fn heap(self, i: usize) -> u32 {
        ((self.0 >> (4 * i)) & 0xF) as u32
    }

    /// The heaps in order.
    pub fn heaps(self) -> impl Iterator<Item = u32> {
        (0..self.heap_count()).map(move |i| self.heap(i))
    }

    /// Objects left on the board, which is also the number of legal moves.
    pub fn objects(self) -> u32 {
        // Heaps summed bytewise (SWAR), as the device does: bytes ≤ 30, their sum ≤ 225.
        let bytes = (self.0 & 0x0F0F_0F0F_0F0F_0F0F) + ((self.0 >> 4) & 0x000F_0F0F_0F0F_0F0F);
        (bytes.wrapping_mul(0x0101_0101_0101_0101) >> 56) as u32
    }

    /// The position after legal move number `index` of the canonical order.
    pub fn play(self, index: u32) -> Self {
        let mut rest = index;
        let mut heap = 0;
        while rest >= self.heap(heap) {
            rest -= self.heap(heap);
            heap += 1;
        }
        NimState(self.0 - (u64::from(rest + 1) << (4 * heap)))
    }

    /// The XOR of the heaps: the side to move loses under perfect play iff it is 0 (Bouton).
    pub fn nim_sum(self) -> u32 {
        self.heaps().fold(0, |x, h| x ^ h)
    }

    /// Every winning move (empty when the nim-sum is 0): heap h becomes h ⊕ s.
    pub fn winning_moves(self) -> Vec<NimMove> {
        let s = self.nim_sum();
        (0..self.heap_count())
            .filter(|&i| s != 0 && (self.heap(i) ^ s) < self.heap(i))
            .map(|i| NimMove {
                heap: i as u8,
                take: (self.heap(i) - (self.heap(i) ^ s)) as u8,
            })
            .collect()
    }
}

impl Game for Nim {
    type State = NimState;
    type Move = NimMove;

    const NAME: &'static str = "nim";
    const STATE_WORDS: usize = 2;

    fn initial(&self) -> NimState {
        NimState::seed_board(4).expect("size 4 is a seed board")
    }

    fn legal_moves(&self, state: &NimState, out: &mut Vec<NimMove>) {
        for heap in 0..state.heap_count() {
            out.extend((1..=state.heap(heap)).map(|take| NimMove {
                heap: heap as u8,
                take: take as u8,
            }));
        }
    }

    fn apply(&self, state: &NimState, mv: NimMove) -> NimState {
        debug_assert!(mv.take >= 1 && u32::from(mv.take) <= state.heap(mv.heap as usize));
        NimState(state.0 - ((mv.take as u64) << (4 * mv.heap as u32)))
    }

    fn play_random(
        &self,
        state: &NimState,
        rng: &mut XorShift32,
        _scratch: &mut Vec<NimMove>,
    ) -> NimState {
        state.play(rng.below(state.objects()))
    }

    fn outcome(&self, state: &NimState) -> Outcome {
        if state.0 & HEAP_BITS == 0 {
            Outcome::Loss
        } else {
            Outcome::Ongoing
        }
    }

    fn encode(&self, state: &NimState, out: &mut [u32]) {
        out[0] = state.0 as u32;
        out[1] = (state.0 >> 32) as u32;
    }

    fn decode(&self, words: &[u32]) -> NimState {
        NimState(words[0] as u64 | (words[1] as u64) << 32)
    }

    fn parse_position(&self, text: &str) -> Result<NimState> {
        let heaps = text
            .split(',')
            .map(|part| {
                part.trim().parse::<u32>().map_err(|_| {
                    Error::parse(format!(
                        "bad Nim position '{text}': expected heap sizes separated by commas, like 1,3,5,7"
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        NimState::new(&heaps)
    }

    fn format_position(&self, state: &NimState) -> String {
        state
            .heaps()
            .map(|h| h.to_string())
            .collect::<Vec<_>>()
            .join(",")
    }

    fn format_move(&self, _state: &NimState, mv: NimMove) -> String {
        format!("{}:{}", mv.heap, mv.take)
    }

    fn parse_move(&self, state: &NimState, text: &str) -> Result<NimMove> {
        let malformed = || {
            Error::parse(format!(
                "bad Nim move '{text}': expected HEAP:COUNT, like 2:3"
            ))
        };
        let (heap, take) = text.trim().split_once(':').ok_or_else(malformed)?;
        let heap: usize = heap.trim().parse().map_err(|_| malformed())?;
        let take: u32 = take.trim().parse().map_err(|_| malformed())?;
        let illegal = |why: String| Error::IllegalMove {
            mv: text.trim().to_string(),
            why,
        };
        if heap >= state.heap_count() {
            return Err(illegal(format!(
                "there are only {} heaps (0-based)",
                state.heap_count()
            )));
        }
        if take == 0 || take > state.heap(heap) {
            return Err(illegal(format!(
                "heap {heap} holds {} objects; take 1 to that many",
                state.heap(heap)
            )));
        }
        Ok(NimMove {
            heap: heap as u8,
            take: take as u8,
        })
    }
}

/// Nim has no players of its own.
impl NamedPlayers for Nim {
    type Named = NoNamed;
}

/// Nim on the command line: no rule sets.
impl TwoPlayerGame for Nim {
    fn from_options(options: &GameOptions) -> Result<Self> {
        options.no_rules(Self::NAME)?;
        Ok(Nim)
    }

    /// Bouton's theorem: the side to move wins (+1) iff the nim-sum is not 0; a winning move
    /// leaves a nim-sum of 0. A lost position answers the first legal move, as a search does.
    fn exact_solver() -> Option<ExactSolver<Self>> {
        Some(ExactSolver {
            name: "nim-sum (Bouton)",
            value: "+1 won, -1 lost",
            solve: |game, state, _, _| {
                let winning = state.winning_moves();
                Some(Exact {
                    value: if winning.is_empty() { -1 } else { 1 },
                    best: winning
                        .first()
                        .copied()
                        .or_else(|| game.moves(state).first().copied()),
                    nodes: 1,
                    facts: vec![("nim-sum", state.nim_sum() as u64)],
                })
            },
            estimate: |_| 1.0,
            threaded: false,
        })
    }

    fn plies_left_at_most(&self, state: &NimState) -> Option<u32> {
        Some(state.objects())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cubesearch_search::perft::{expand, perft, perft_many};
    use rstest::rstest;

    #[rstest]
    #[case("1,3,5,7", 1 ^ 3 ^ 5 ^ 7)]
    #[case("0,0", 0)]
    #[case("15,15,1", 1)]
    fn nim_sum_is_the_xor_of_the_heaps(#[case] text: &str, #[case] sum: u32) {
        assert_eq!(Nim.parse_position(text).unwrap().nim_sum(), sum);
    }

    #[test]
    fn positions_round_trip_with_empty_heaps() {
        let s = Nim.parse_position("1, 0,5").unwrap();
        assert_eq!(Nim.format_position(&s), "1,0,5");
        let mut words = [0; 2];
        Nim.encode(&s, &mut words);
        assert_eq!(Nim.decode(&words), s);
    }

    #[rstest]
    #[case("")]
    #[case("1,x")]
    #[case("16")]
    #[case("1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1")]
    #[case("-1")]
    fn bad_positions_are_refused(#[case] text: &str) {
        assert!(matches!(Nim.parse_position(text), Err(Error::Parse(_))));
    }

    #[test]
    fn moves_are_parsed_and_checked() {
        let s = Nim.parse_position("1,3").unwrap();
        assert_eq!(
            Nim.parse_move(&s, "1:2").unwrap(),
            NimMove { heap: 1, take: 2 }
        );
        assert!(matches!(Nim.parse_move(&s, "1-2"), Err(Error::Parse(_))));
        assert!(matches!(
            Nim.parse_move(&s, "0:2"),
            Err(Error::IllegalMove { .. })
        ));
        assert!(matches!(
            Nim.parse_move(&s, "2:1"),
            Err(Error::IllegalMove { .. })
        ));
        assert!(matches!(
            Nim.parse_move(&s, "1:0"),
            Err(Error::IllegalMove { .. })
        ));
    }

    #[test]
    fn taking_the_last_object_wins() {
        let s = Nim.parse_position("0,1").unwrap();
        let after = Nim.apply(&s, Nim.parse_move(&s, "1:1").unwrap());
        // The side to move now faces an empty board: it has lost.
        assert_eq!(Nim.outcome(&after), Outcome::Loss);
        assert_eq!(Nim.outcome(&s), Outcome::Ongoing);
    }

    #[test]
    fn winning_moves_leave_a_zero_nim_sum() {
        let s = NimState::seed_board(4).unwrap(); // 1^3^5^7 = 0: no winning move
        assert!(s.winning_moves().is_empty());
        let s = Nim.parse_position("3,4,5").unwrap(); // sum 2: only heap 0 (3 → 1) works
        assert_eq!(s.winning_moves(), vec![NimMove { heap: 0, take: 2 }]);
        for mv in s.winning_moves() {
            assert_eq!(Nim.apply(&s, mv).nim_sum(), 0);
        }
    }

    #[test]
    fn fast_random_moves_equal_the_listed_ones() {
        let mut rng = XorShift32::for_worker(5, 0);
        let mut scratch = Vec::new();
        for _ in 0..2000 {
            let heaps: Vec<u32> = (0..1 + rng.below(15)).map(|_| rng.below(16)).collect();
            let s = NimState::new(&heaps).unwrap();
            if s.objects() == 0 {
                continue;
            }
            assert_eq!(s.objects() as usize, Nim.moves(&s).len());
            let (mut a, mut b) = (rng, rng);
            let fast = Nim.play_random(&s, &mut a, &mut scratch);
            let listed =
                cubesearch_core::game::play_random_from_list(&Nim, &s, &mut b, &mut scratch);
            assert_eq!(fast, listed, "{}", Nim.format_position(&s));
            rng.next_u32();
        }
    }

    #[test]
    fn canonical_order_is_heap_then_count() {
        let s = Nim.parse_position("2,0,1").unwrap();
        let texts: Vec<_> = Nim
            .moves(&s)
            .into_iter()
            .map(|m| Nim.format_move(&s, m))
            .collect();
        assert_eq!(texts, ["0:1", "0:2", "2:1"]);
    }

    /// perft on Nim has a closed form at depth 1 (objects on the board) and, for one heap of n,
    /// perft(n, d) = Σ_k perft(n − k, d − 1): compositions of at most n into d positive parts.
    #[test]
    fn nim_single_heap_counts_compositions() {
        let s = NimState::new(&[5]).unwrap();
        assert_eq!(perft(&Nim, &s, 1), 5);
        // Ordered ways to remove ≤ 5 objects in exactly 2 positive takes: Σ_{a=1}^{4} (5 − a) = 10.
        assert_eq!(perft(&Nim, &s, 2), 10);
        // Exactly 3 positive parts summing to ≤ 5: C(5, 3) = 10.
        assert_eq!(perft(&Nim, &s, 3), 10);
    }

    #[test]
    fn expand_then_sum_equals_perft() {
        let s = NimState::seed_board(3).unwrap();
        for depth in 1..=4 {
            for split in 0..=depth {
                let (frontier, terminal) = expand(&Nim, &[s], split);
                let total: u64 = perft_many(&Nim, &frontier, depth - split)
                    .iter()
                    .sum::<u64>()
                    + terminal;
                assert_eq!(total, perft(&Nim, &s, depth), "depth {depth} split {split}");
            }
        }
    }
}
