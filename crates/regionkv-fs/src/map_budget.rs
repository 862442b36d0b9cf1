//! The mapped-read budget: how much of the memory-mapped storefiles point reads may bring into
//! the process's resident set before they fall back to `pread`.
//!
//! A read through a mapping costs a copy from pages already in the page table; a `pread` costs
//! a system call (about a microsecond on a virtual machine). But every mapped page a read
//! touches stays in the resident set until the file is unmapped, so reading a whole file
//! through its mapping costs the file's size in RSS, beyond the block cache's budget. The
//! budget bounds that: [`ReadableFile::read_mapped_at`](crate::ReadableFile::read_mapped_at)
//! reads through the mapping while the bytes it has charged stay within the limit, and with a
//! positioned read once they would not.
//!
//! **What is charged.** A page fault on a file mapping maps the faulting page and the pages of
//! its aligned 64 KiB window of virtual addresses that are already in the page cache (Linux's
//! fault-around, `fault_around_bytes`). So a mapping is charged in those windows, counted by
//! the virtual address, not the file offset: a window is charged once, on its first read, and
//! the charge is given back when the file is unmapped. The count is an upper bound of what the
//! reads made resident (the kernel may reclaim clean pages under pressure); reads through
//! [`ReadableFile::read_at`](crate::ReadableFile::read_at) and `as_slice` are not charged.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The granule of a charge: Linux's default fault-around window.
pub(crate) const WINDOW: u64 = 64 << 10;

/// A budget shared by every file one [`RealFs`](crate::RealFs) maps (its clones included).
#[derive(Debug)]
pub(crate) struct MapBudget {
    limit: u64,
    used: AtomicU64,
}

impl MapBudget {
    pub(crate) fn new(limit: u64) -> Arc<Self> {
        Arc::new(MapBudget {
            limit,
            used: AtomicU64::new(0),
        })
    }

    pub(crate) fn limit(&self) -> u64 {
        self.limit
    }

    pub(crate) fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// Takes `bytes` from the budget; false, taking nothing, when that would pass the limit.
    fn try_charge(&self, bytes: u64) -> bool {
        self.used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                used.checked_add(bytes).filter(|&u| u <= self.limit)
            })
            .is_ok()
    }

    fn refund(&self, bytes: u64) {
        self.used.fetch_sub(bytes, Ordering::Relaxed);
    }
}

/// One mapping's charged windows. Invariant: the budget holds exactly [`WINDOW`] bytes for
/// every set bit, given back on drop.
#[derive(Debug)]
pub(crate) struct MappedWindows {
    budget: Arc<MapBudget>,
    /// The virtual address of the mapping's first byte.
    base: usize,
    /// The first window's index (`base / WINDOW`).
    first: usize,
    bits: Box<[AtomicU64]>,
}

impl MappedWindows {
    /// The windows of a mapping of `len` bytes at address `base`.
    pub(crate) fn new(budget: Arc<MapBudget>, base: usize, len: usize) -> Self {
        let w = WINDOW as usize;
        let first = base / w;
        let last = (base + len.max(1) - 1) / w;
        let words = (last - first + 1).div_ceil(64);
        MappedWindows {
            budget,
            base,
            first,
            bits: (0..words).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// Whether `len` bytes at `offset` may be read through the mapping: true when every window
    /// they cover is charged already or could be charged now. A read that the budget refuses
    /// keeps the windows it charged on the way (they are read through the mapping next time).
    pub(crate) fn admit(&self, offset: usize, len: usize) -> bool {
        if len == 0 {
            return true;
        }
        let w = WINDOW as usize;
        let from = (self.base + offset) / w - self.first;
        let to = (self.base + offset + len - 1) / w - self.first;
        (from..=to).all(|i| self.charge(i))
    }

    /// Charges window `i` unless it is charged already; false when the budget refuses.
    fn charge(&self, i: usize) -> bool {
        let (word, bit) = (&self.bits[i / 64], 1u64 << (i % 64));
        if word.load(Ordering::Relaxed) & bit != 0 {
            return true;
        }
        if !self.budget.try_charge(WINDOW) {
            return false;
        }
        // A racing reader may have charged the same window: one charge stays.
        if word.fetch_or(bit, Ordering::Relaxed) & bit != 0 {
            self.budget.refund(WINDOW);
        }
        true
    }
}

impl Drop for MappedWindows {
    fn drop(&mut self) {
        let set: u64 = self
            .bits
            .iter()
            .map(|w| u64::from(w.load(Ordering::Relaxed).count_ones()))
            .sum();
        self.budget.refund(set * WINDOW);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_charged_once_and_given_back_on_drop() {
        let budget = MapBudget::new(3 * WINDOW);
        // A mapping that starts 4 KiB into a window: its first window is short.
        let base = 10 * WINDOW as usize + 4096;
        let m = MappedWindows::new(budget.clone(), base, 10 * WINDOW as usize);
        assert!(m.admit(0, 100));
        assert_eq!(budget.used(), WINDOW);
        assert!(m.admit(50, 100), "the same window again costs nothing");
        assert_eq!(budget.used(), WINDOW);
        // Bytes 60 KiB - 100 .. 60 KiB + 100 of the file straddle the first two windows.
        let straddle = WINDOW as usize - 4096 - 100;
        assert!(m.admit(straddle, 200));
        assert_eq!(budget.used(), 2 * WINDOW);
        assert!(m.admit(5 * WINDOW as usize, 1));
        assert_eq!(budget.used(), 3 * WINDOW);
        assert!(!m.admit(7 * WINDOW as usize, 1), "the budget is spent");
        assert!(
            m.admit(10, 10),
            "charged windows still read through the mapping"
        );
        assert_eq!(budget.used(), 3 * WINDOW);
        drop(m);
        assert_eq!(budget.used(), 0);
    }

    #[test]
    fn a_refused_read_keeps_what_it_charged() {
        let budget = MapBudget::new(WINDOW);
        let m = MappedWindows::new(budget.clone(), 0, 4 * WINDOW as usize);
        assert!(!m.admit(WINDOW as usize - 1, 2));
        assert_eq!(budget.used(), WINDOW);
        assert!(m.admit(0, 1));
        drop(m);
        assert_eq!(budget.used(), 0);
    }

    #[test]
    fn a_zero_budget_admits_nothing_and_racing_charges_count_once() {
        let none = MapBudget::new(0);
        let m = MappedWindows::new(none.clone(), 0, 1 << 20);
        assert!(!m.admit(0, 1));
        assert!(m.admit(0, 0), "an empty read touches no page");
        let budget = MapBudget::new(u64::MAX);
        let m = Arc::new(MappedWindows::new(budget.clone(), 0, 64 * WINDOW as usize));
        std::thread::scope(|s| {
            for _ in 0..4 {
                let m = &m;
                s.spawn(move || {
                    for i in 0..64 {
                        assert!(m.admit(i * WINDOW as usize, 1));
                    }
                });
            }
        });
        assert_eq!(budget.used(), 64 * WINDOW);
        drop(m);
        assert_eq!(budget.used(), 0);
    }
}
