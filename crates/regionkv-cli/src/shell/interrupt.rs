//! Ctrl-C in an interactive session: a SIGINT handler that raises a flag, which long work
//! (loops of the shell's Ruby, scans, counts) polls and turns into [`Unwind::Interrupt`], so
//! the running statement stops and the prompt comes back, as in HBase's shell. Script mode
//! installs no handler: there Ctrl-C ends the process, as it ends `hbase shell script.rb`.
//!
//! The flag is process-wide (a signal handler has nowhere else to write); it is cleared
//! before each chunk of input, so a Ctrl-C pressed at the prompt does not stop the next one.
//! Unit tests run many sessions at once in one process, so under `cfg(test)` the flag the
//! sessions poll is the test thread's own (the handler's is never installed there).

use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::AtomicBool;
#[cfg(not(test))]
use std::sync::atomic::Ordering;

use super::interp::Unwind;

/// Raised by the SIGINT handler.
static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

fn flag() -> &'static Arc<AtomicBool> {
    FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// Installs the SIGINT handler (once); from then on Ctrl-C raises the flag instead of
/// ending the process.
pub fn install() -> std::io::Result<()> {
    signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(flag())).map(|_| ())
}

/// Clears a pending interrupt (before a chunk of input runs).
pub fn clear() {
    #[cfg(test)]
    TEST_FLAG.with(|f| f.set(false));
    #[cfg(not(test))]
    flag().store(false, Ordering::SeqCst);
}

/// Whether Ctrl-C was pressed since the last [`clear`]; for code that is not the
/// interpreter (a scan's row loop).
pub fn requested() -> bool {
    #[cfg(test)]
    return TEST_FLAG.with(std::cell::Cell::get);
    #[cfg(not(test))]
    flag().load(Ordering::Relaxed)
}

#[cfg(test)]
thread_local! {
    /// The flag of a test thread (see the module docs).
    static TEST_FLAG: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Stops the running statement if Ctrl-C was pressed.
pub fn check() -> Result<(), Unwind> {
    if requested() {
        Err(Unwind::Interrupt)
    } else {
        Ok(())
    }
}

/// Raises the flag as the handler would (for tests).
#[cfg(test)]
pub fn raise() {
    TEST_FLAG.with(|f| f.set(true));
}
