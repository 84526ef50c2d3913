//! SIGINT, SIGTERM and SIGHUP as a stop request. The commands that run long take
//! [`stop_on_signals`]: the first signal raises the request, the work keeps what it has (a
//! checkpoint, the results file) and the command exits 128 + the signal's number (130, 143,
//! 129). Later signals change nothing: they cannot cut a save short (`timeout` signals the
//! child and then its whole group, so two arrive at once), and the work is already stopping.
//! SIGKILL remains for a process that must end now.

use cubesearch_core::Stop;
use std::sync::OnceLock;

/// The stop request SIGINT, SIGTERM and SIGHUP raise (the first signal's number its reason),
/// the handlers installed on first use. Without them (not a Unix system), nothing raises it.
pub fn stop_on_signals() -> Stop {
    static STOP: OnceLock<Stop> = OnceLock::new();
    STOP.get_or_init(|| {
        let stop = Stop::new();
        #[cfg(unix)]
        {
            use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
            use std::sync::atomic::Ordering;
            for signal in [SIGINT, SIGTERM, SIGHUP] {
                let flag = stop.flag();
                // SAFETY: the action only does a lock-free atomic compare-exchange, which is
                // async-signal-safe; it allocates nothing and takes no lock.
                let installed = unsafe {
                    signal_hook::low_level::register(signal, move || {
                        let _ = flag.compare_exchange(
                            0,
                            signal as usize,
                            Ordering::Relaxed,
                            Ordering::Relaxed,
                        );
                    })
                };
                // Without a handler the signal keeps its default action: the process ends.
                let _ = installed;
            }
        }
        stop
    })
    .clone()
}

/// For a rank that follows rank 0 (which saves and then releases it): the first SIGINT, SIGTERM
/// or SIGHUP is marked and otherwise ignored (a terminal's Ctrl-C reaches the whole group, and
/// the follower must stay for rank 0's last meeting); a second one ends the process at once.
/// The request returned is never raised: a follower obeys rank 0, not the signal.
pub fn follower() -> Stop {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        use std::sync::atomic::AtomicBool;
        use std::sync::Arc;
        let seen = Arc::new(AtomicBool::new(false));
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            // In the order they run: a signal after the first ends the process; the first
            // marks itself seen.
            let installed = signal_hook::flag::register_conditional_shutdown(
                signal,
                128 + signal,
                seen.clone(),
            )
            .and_then(|_| signal_hook::flag::register(signal, seen.clone()));
            // Without a handler the signal keeps its default action: the process ends.
            let _ = installed;
        }
    }
    Stop::new()
}

/// The exit status for work ended by a stop request: 128 + the signal's number.
pub fn exit_status(stop: &Stop) -> u8 {
    stop.reason()
        .and_then(|signal| u8::try_from(128 + signal).ok())
        .unwrap_or(130)
}

/// The signal's name for a message: `SIGINT`, `SIGTERM`, `SIGHUP`.
pub fn name(stop: &Stop) -> String {
    match stop.reason() {
        Some(1) => "SIGHUP".into(),
        Some(2) => "SIGINT".into(),
        Some(15) => "SIGTERM".into(),
        Some(n) => format!("signal {n}"),
        None => "a stop request".into(),
    }
}
