//! Open scanners of a gateway, by id: Thrift's ScannerID and REST's scanner URLs name an
//! entry here. One registry serves every connection of a protocol (a Thrift client may
//! open a scanner on one pooled connection and read it on another, as with HBase).
//!
//! Invariants: at most `max` scanners are open; an id is never reused while the process
//! lives (ids count up from 0, as HBase's Thrift server numbers them); a scanner unused
//! for longer than the lease is closed by the next registry operation, so an abandoned
//! scanner holds its read point and memory for at most about one lease.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

struct Entry<S> {
    scanner: Arc<Mutex<S>>,
    last_used: Instant,
}

struct Inner<S> {
    entries: HashMap<u64, Entry<S>>,
    next_id: u64,
    last_sweep: Instant,
}

/// The open scanners of one protocol.
pub struct ScannerRegistry<S> {
    inner: Mutex<Inner<S>>,
    max: usize,
    lease: Duration,
}

/// Opening one more scanner would pass the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooManyScanners(pub usize);

impl std::fmt::Display for TooManyScanners {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "too many open scanners (the limit is {})", self.0)
    }
}

impl<S> ScannerRegistry<S> {
    /// An empty registry holding at most `max` scanners, each closed after `lease` unused.
    pub fn new(max: usize, lease: Duration) -> Self {
        ScannerRegistry {
            inner: Mutex::new(Inner {
                entries: HashMap::new(),
                next_id: 0,
                last_sweep: Instant::now(),
            }),
            max,
            lease,
        }
    }

    /// Registers `scanner` and returns its id.
    ///
    /// # Errors
    /// [`TooManyScanners`] when `max` scanners are open (after closing expired ones).
    pub fn insert(&self, scanner: S) -> Result<u64, TooManyScanners> {
        let mut inner = self.inner.lock();
        let now = Instant::now();
        self.sweep(&mut inner, now, true);
        if inner.entries.len() >= self.max {
            return Err(TooManyScanners(self.max));
        }
        let id = inner.next_id;
        inner.next_id += 1;
        inner.entries.insert(
            id,
            Entry {
                scanner: Arc::new(Mutex::new(scanner)),
                last_used: now,
            },
        );
        Ok(id)
    }

    /// The scanner `id`, its lease renewed; `None` if unknown, closed or expired.
    pub fn get(&self, id: u64) -> Option<Arc<Mutex<S>>> {
        let mut inner = self.inner.lock();
        let now = Instant::now();
        self.sweep(&mut inner, now, false);
        let lease = self.lease;
        let entry = inner.entries.get_mut(&id)?;
        if now.duration_since(entry.last_used) > lease {
            inner.entries.remove(&id);
            return None;
        }
        entry.last_used = now;
        Some(Arc::clone(&entry.scanner))
    }

    /// Closes scanner `id`; false if there was none.
    pub fn remove(&self, id: u64) -> bool {
        self.inner.lock().entries.remove(&id).is_some()
    }

    /// Open scanners (expired ones included until the next sweep).
    pub fn len(&self) -> usize {
        self.inner.lock().entries.len()
    }

    /// True when no scanner is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Closes every scanner.
    pub fn clear(&self) {
        self.inner.lock().entries.clear();
    }

    /// Drops expired entries: always when `force`, else at most once a second (a sweep
    /// walks every entry).
    fn sweep(&self, inner: &mut Inner<S>, now: Instant, force: bool) {
        if !force && now.duration_since(inner.last_sweep) < Duration::from_secs(1) {
            return;
        }
        inner.last_sweep = now;
        let lease = self.lease;
        inner.entries.retain(|id, e| {
            let keep = now.duration_since(e.last_used) <= lease;
            if !keep {
                tracing::debug!("scanner {id} expired after {lease:?} unused");
            }
            keep
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_count_up_and_are_not_reused() {
        let r = ScannerRegistry::new(10, Duration::from_secs(60));
        assert_eq!(r.insert("a"), Ok(0));
        assert_eq!(r.insert("b"), Ok(1));
        assert!(r.remove(0));
        assert!(!r.remove(0));
        assert_eq!(r.insert("c"), Ok(2));
        assert!(r.get(0).is_none());
        assert_eq!(*r.get(2).map(|s| *s.lock()).as_ref().unwrap_or(&""), "c");
    }

    #[test]
    fn the_limit_counts_open_scanners() {
        let r = ScannerRegistry::new(2, Duration::from_secs(60));
        assert!(r.insert(1).is_ok());
        assert!(r.insert(2).is_ok());
        assert_eq!(r.insert(3), Err(TooManyScanners(2)));
        r.remove(0);
        assert!(r.insert(3).is_ok());
    }

    #[test]
    fn an_unused_scanner_expires_and_frees_its_slot() {
        let r = ScannerRegistry::new(1, Duration::from_millis(50));
        let id = r.insert(1).unwrap_or(u64::MAX);
        std::thread::sleep(Duration::from_millis(120));
        assert!(r.get(id).is_none(), "the lease ran out");
        assert!(r.insert(2).is_ok(), "the expired scanner no longer counts");
    }

    #[test]
    fn use_renews_the_lease() {
        let r = ScannerRegistry::new(1, Duration::from_millis(200));
        let id = r.insert(1).unwrap_or(u64::MAX);
        for _ in 0..5 {
            std::thread::sleep(Duration::from_millis(60));
            assert!(r.get(id).is_some());
        }
    }
}
