//! Which logs are still needed: HBase's `SequenceIdAccounting`, as a pure data structure.
//!
//! One WAL serves every region of a Db, so a log may be deleted only when *every* region with
//! edits in it has flushed them. For each live log the accounting keeps, per region, the
//! largest sequence id the log holds for it; per region it keeps the largest flushed sequence
//! id. A log that is not the current one is deletable when each of its regions has flushed
//! past the log's largest sequence id for it (or was forgotten).
//!
//! One more rule keeps replay's torn-tail decision possible: a log started by
//! [`Wal::open`](crate::Wal::open) names the log its predecessor process wrote last, which
//! may legitimately end in a torn record. It is kept while any older log is live, so that the
//! older log never loses the evidence that it was the last of its process.
//!
//! Invariant: `current` is a key of `logs` and the largest one.

use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use crate::dictionary::Dictionary;
use crate::format::LogOrigin;
use crate::reader::LogSummary;

/// A live log.
#[derive(Debug, Clone)]
struct LogEntry {
    path: PathBuf,
    origin: LogOrigin,
    /// Region → largest sequence id in this log. `None` for a log inherited from an earlier
    /// process whose contents are not known (not [adopted](Accounting::adopt)): it is never
    /// deleted.
    regions: Option<HashMap<Vec<u8>, u64>>,
}

/// Region id ([`Dictionary`]) → largest sequence id among the records of one group-commit
/// round. Reused from round to round (the map keeps its capacity), so that an append
/// allocates nothing in the steady state: every write appends.
#[derive(Debug, Default)]
pub(crate) struct RoundRegions {
    map: FxHashMap<u64, u64>,
}

impl RoundRegions {
    /// Notes an edit of the region with id `id` and sequence id `seq`.
    pub fn note(&mut self, id: u64, seq: u64) {
        let max = self.map.entry(id).or_insert(seq);
        *max = (*max).max(seq);
    }

    /// The region ids noted.
    pub fn ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.map.keys().copied()
    }

    /// True when `id` was noted.
    pub fn contains(&self, id: u64) -> bool {
        self.map.contains_key(&id)
    }
}

/// Per-log and per-region sequence id bookkeeping.
#[derive(Debug, Default)]
pub(crate) struct Accounting {
    logs: BTreeMap<u64, LogEntry>,
    current: u64,
    flushed: HashMap<Vec<u8>, u64>,
}

impl Accounting {
    /// Records a log inherited from an earlier process, contents unknown.
    pub fn add_inherited(&mut self, number: u64, path: PathBuf) {
        self.logs.insert(
            number,
            LogEntry {
                path,
                origin: LogOrigin::Roll,
                regions: None,
            },
        );
    }

    /// Records a new, empty log and makes it the current one.
    pub fn add_current(&mut self, number: u64, path: PathBuf, origin: LogOrigin) {
        debug_assert!(self.logs.keys().all(|&n| n < number));
        self.logs.insert(
            number,
            LogEntry {
                path,
                origin,
                regions: Some(HashMap::new()),
            },
        );
        self.current = number;
    }

    /// Records that log `number` now holds the edits of one group-commit round (region ids
    /// resolved through `dict`), and empties `round` for reuse.
    pub fn record_round(&mut self, number: u64, round: &mut RoundRegions, dict: &Dictionary) {
        let mut target = self.logs.get_mut(&number).and_then(|e| e.regions.as_mut());
        for (id, seq) in round.map.drain() {
            let (Some(map), Some(region)) = (target.as_deref_mut(), dict.region(id)) else {
                continue;
            };
            match map.get_mut(region) {
                Some(max) => *max = (*max).max(seq),
                None => {
                    map.insert(region.to_vec(), seq);
                }
            }
        }
    }

    /// Records that log `number` now holds edits of these regions up to these sequence ids.
    #[cfg(test)]
    pub fn record(&mut self, number: u64, regions: impl IntoIterator<Item = (Vec<u8>, u64)>) {
        let Some(map) = self.logs.get_mut(&number).and_then(|e| e.regions.as_mut()) else {
            return;
        };
        for (region, seq) in regions {
            let max = map.entry(region).or_insert(seq);
            *max = (*max).max(seq);
        }
    }

    /// Records what replay found in inherited logs, so they can be deleted once flushed.
    pub fn adopt(&mut self, summaries: &[LogSummary]) {
        for s in summaries {
            if let Some(e) = self.logs.get_mut(&s.header.number)
                && e.regions.is_none()
            {
                e.origin = s.header.origin;
                e.regions = Some(
                    s.max_seq_by_region
                        .iter()
                        .map(|(r, &seq)| (r.clone(), seq))
                        .collect(),
                );
            }
        }
    }

    /// Every edit of `region` up to `seq` is in a storefile.
    pub fn mark_flushed(&mut self, region: &[u8], seq: u64) {
        match self.flushed.get_mut(region) {
            Some(f) => *f = (*f).max(seq),
            None => {
                self.flushed.insert(region.to_vec(), seq);
            }
        }
    }

    /// `region` is gone: no log is held for it any more.
    pub fn forget(&mut self, region: &[u8]) {
        self.flushed.remove(region);
        for e in self.logs.values_mut() {
            if let Some(map) = e.regions.as_mut() {
                map.remove(region);
            }
        }
    }

    fn unflushed<'a>(&'a self, e: &'a LogEntry) -> Option<impl Iterator<Item = &'a Vec<u8>>> {
        let map = e.regions.as_ref()?;
        Some(
            map.iter()
                .filter(|(r, max)| self.flushed.get(*r).is_none_or(|f| *max > f))
                .map(|(r, _)| r),
        )
    }

    /// Removes and returns the logs that may be deleted now.
    pub fn take_deletable(&mut self) -> Vec<(u64, PathBuf)> {
        let mut deletable = Vec::new();
        let mut older_live = false;
        for (&n, e) in &self.logs {
            if n == self.current {
                break;
            }
            let flushed = self.unflushed(e).is_some_and(|mut it| it.next().is_none());
            let keeps_evidence = e.origin == LogOrigin::Open && older_live;
            if flushed && !keeps_evidence {
                deletable.push((n, e.path.clone()));
            } else {
                older_live = true;
            }
        }
        for (n, _) in &deletable {
            self.logs.remove(n);
        }
        deletable
    }

    /// When more than `max_logs` logs are live: the regions with unflushed edits in the
    /// oldest log that has any (HBase's `findRegionsToForceFlush`), sorted.
    pub fn regions_to_flush(&self, max_logs: usize) -> Vec<Vec<u8>> {
        if self.logs.len() <= max_logs {
            return Vec::new();
        }
        for (&n, e) in &self.logs {
            if n == self.current {
                break;
            }
            if let Some(it) = self.unflushed(e) {
                let mut regions: Vec<Vec<u8>> = it.cloned().collect();
                if !regions.is_empty() {
                    regions.sort();
                    return regions;
                }
            }
        }
        Vec::new()
    }

    /// The paths of the live logs, oldest first.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.logs.values().map(|e| e.path.clone()).collect()
    }

    /// How many logs are live.
    pub fn live(&self) -> usize {
        self.logs.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{FORMAT_VERSION, LogHeader};

    fn acc_with(logs: &[(u64, LogOrigin)]) -> Accounting {
        let mut a = Accounting::default();
        for &(n, origin) in logs {
            a.add_current(n, PathBuf::from(format!("/w/{n}")), origin);
        }
        a
    }

    fn numbers(v: &[(u64, PathBuf)]) -> Vec<u64> {
        v.iter().map(|(n, _)| *n).collect()
    }

    #[test]
    fn a_log_goes_when_every_region_in_it_has_flushed_past_it() {
        let mut a = acc_with(&[
            (1, LogOrigin::Open),
            (2, LogOrigin::Roll),
            (3, LogOrigin::Roll),
        ]);
        a.record(1, [(b"A".to_vec(), 5), (b"B".to_vec(), 7)]);
        a.record(2, [(b"A".to_vec(), 9)]);
        a.record(3, [(b"B".to_vec(), 11)]);
        a.mark_flushed(b"A", 9);
        assert_eq!(numbers(&a.take_deletable()), [2]);
        a.mark_flushed(b"B", 6);
        assert!(a.take_deletable().is_empty(), "B's 7 is not flushed");
        a.mark_flushed(b"B", 7);
        assert_eq!(numbers(&a.take_deletable()), [1]);
        a.mark_flushed(b"B", 100);
        assert!(a.take_deletable().is_empty(), "the current log stays");
        assert_eq!(a.paths(), [PathBuf::from("/w/3")]);
    }

    #[test]
    fn flushed_ids_only_grow_and_forget_releases() {
        let mut a = acc_with(&[(1, LogOrigin::Open), (2, LogOrigin::Roll)]);
        a.record(1, [(b"A".to_vec(), 5), (b"C".to_vec(), 1)]);
        a.mark_flushed(b"A", 5);
        a.mark_flushed(b"A", 2);
        assert!(a.take_deletable().is_empty(), "C holds log 1");
        assert_eq!(a.regions_to_flush(1), [b"C".to_vec()]);
        a.forget(b"C");
        assert_eq!(numbers(&a.take_deletable()), [1]);
    }

    #[test]
    fn a_log_started_by_open_outlives_every_older_log() {
        let mut a = Accounting::default();
        a.add_inherited(4, "/w/4".into());
        a.add_current(5, "/w/5".into(), LogOrigin::Open);
        a.add_current(6, "/w/6".into(), LogOrigin::Roll);
        a.add_current(7, "/w/7".into(), LogOrigin::Roll);
        a.record(6, [(b"A".to_vec(), 3)]);
        assert!(a.take_deletable().is_empty(), "5 keeps the evidence for 4");
        a.mark_flushed(b"A", 3);
        assert_eq!(numbers(&a.take_deletable()), [6], "a rolled log may go");
        let header = LogHeader {
            version: FORMAT_VERSION,
            origin: LogOrigin::Roll,
            number: 4,
            created_ms: 0,
            prev_log: 3,
            preallocated: false,
            db_id: [0; 16],
            prev_len: 0,
        };
        a.adopt(&[LogSummary {
            path: "/w/4".into(),
            header,
            edits: 1,
            valid_len: 100,
            max_seq_by_region: [(b"A".to_vec(), 2)].into_iter().collect(),
            sealed: false,
        }]);
        assert_eq!(numbers(&a.take_deletable()), [4, 5]);
    }

    #[test]
    fn regions_to_flush_names_the_oldest_held_log_only_past_max_logs() {
        let mut a = acc_with(&[
            (1, LogOrigin::Open),
            (2, LogOrigin::Roll),
            (3, LogOrigin::Roll),
        ]);
        a.record(
            1,
            [(b"B".to_vec(), 1), (b"A".to_vec(), 2), (b"Z".to_vec(), 1)],
        );
        a.record(2, [(b"C".to_vec(), 1)]);
        a.mark_flushed(b"Z", 1);
        assert!(a.regions_to_flush(3).is_empty());
        assert_eq!(a.regions_to_flush(2), [b"A".to_vec(), b"B".to_vec()]);
        assert_eq!(a.live(), 3);
    }
}
