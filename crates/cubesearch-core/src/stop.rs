//! A request to stop long work early: a flag any thread (or a signal handler) may raise, and an
//! optional deadline. Work that may run long takes a [`Stop`] and checks it between steps; the
//! caller learns from [`Stop::reason`] why it ended.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// A shared stop request: raised by [`Stop::request`] (from any clone) or by its deadline
/// passing. Clones share the flag; each keeps its own deadline.
#[derive(Clone, Debug, Default)]
pub struct Stop {
    /// 0 while nobody asked; else the reason given (a signal's number, for the command line).
    flag: Arc<AtomicUsize>,
    deadline: Option<Instant>,
}

impl Stop {
    /// A request nobody has raised, with no deadline.
    pub fn new() -> Self {
        Self::default()
    }

    /// This request, also raised once `deadline` passes (the earlier deadline if it had one).
    pub fn with_deadline(&self, deadline: Instant) -> Self {
        Self {
            flag: self.flag.clone(),
            deadline: Some(self.deadline.map_or(deadline, |d| d.min(deadline))),
        }
    }

    /// The deadline, if any.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Raises the request for every clone; `reason` (nonzero) is what [`Stop::reason`] reports.
    pub fn request(&self, reason: usize) {
        let _ = self
            .flag
            .compare_exchange(0, reason.max(1), Ordering::Relaxed, Ordering::Relaxed);
    }

    /// The reason the request was raised with, if it was (a deadline is not a reason).
    pub fn reason(&self) -> Option<usize> {
        match self.flag.load(Ordering::Relaxed) {
            0 => None,
            reason => Some(reason),
        }
    }

    /// Whether the work should stop now: the request was raised or the deadline has passed.
    pub fn is_raised(&self) -> bool {
        self.reason().is_some() || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The flag itself, for code that raises it from outside (a signal handler stores the
    /// signal's number in it).
    pub fn flag(&self) -> Arc<AtomicUsize> {
        self.flag.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::Stop;
    use std::time::{Duration, Instant};

    #[test]
    fn clones_share_the_request_and_keep_their_own_deadline() {
        let stop = Stop::new();
        assert!(!stop.is_raised());
        let past = stop.with_deadline(Instant::now() - Duration::from_millis(1));
        assert!(past.is_raised() && !stop.is_raised());
        assert_eq!(past.reason(), None);
        let later = Instant::now() + Duration::from_secs(3600);
        let far = stop.with_deadline(later);
        assert_eq!(
            far.with_deadline(later + Duration::from_secs(1)).deadline(),
            Some(later)
        );
        assert!(!far.is_raised());
        far.request(15);
        far.request(2);
        assert!(stop.is_raised() && far.is_raised());
        assert_eq!(stop.reason(), Some(15), "the first reason stays");
    }
}
