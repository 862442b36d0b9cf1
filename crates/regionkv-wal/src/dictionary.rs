//! The writer's region dictionary (WAL format version 2, `docs/wal-format.md`).
//!
//! A compact edit names its region by a small id instead of the region's 32-character
//! encoded name and its table name, which were about a fifth of a small edit's bytes. An id
//! means something only in a log that declares it (record type 3) before the edits that
//! use it, so a log stays readable on its own.
//!
//! Ids are handed out at append time, when a record is encoded into the pending batch;
//! which log the batch lands in is only known when a group-commit leader writes it. So the
//! leader declares, in front of its batch, every id of the round not yet declared in the
//! log it writes to ([`Dictionary::declare_into`]). A roll therefore needs no re-encoding:
//! the first round written to the new log declares again what it uses.
//!
//! Invariants: an id is never reused within a process (so a stale id can never name
//! another region); an entry is dropped only at a roll, and only when the log rolled from
//! did not declare it and no pending record uses it ([`Dictionary::prune`]), so every
//! unwritten record's id still has its entry.

use rustc_hash::FxHashMap;

use crate::accounting::RoundRegions;
use crate::error::Result;
use crate::format;

/// One region's id and names.
#[derive(Debug)]
struct Entry {
    region: Vec<u8>,
    table: String,
    /// The log that last declared it (0: none yet).
    declared_in: u64,
}

/// See the module docs.
#[derive(Debug, Default)]
pub(crate) struct Dictionary {
    ids: FxHashMap<Vec<u8>, u64>,
    entries: FxHashMap<u64, Entry>,
    /// The last id handed out (ids start at 1).
    last_id: u64,
}

impl Dictionary {
    /// The id of `region` of `table`, assigning one if it has none. Fails only for names
    /// longer than a record can carry.
    pub fn id_of(&mut self, region: &[u8], table: &str) -> Result<u64> {
        if let Some(&id) = self.ids.get(region)
            && self.entries.get(&id).is_some_and(|e| e.table == table)
        {
            return Ok(id);
        }
        format::check_names(region, table)?;
        self.last_id += 1;
        let id = self.last_id;
        self.ids.insert(region.to_vec(), id);
        self.entries.insert(
            id,
            Entry {
                region: region.to_vec(),
                table: table.to_owned(),
                declared_in: 0,
            },
        );
        Ok(id)
    }

    /// The region name of `id`.
    pub fn region(&self, id: u64) -> Option<&[u8]> {
        self.entries.get(&id).map(|e| e.region.as_slice())
    }

    /// Appends to `out` a declaration of every id of `round` that log `log` has not
    /// declared yet, and marks them declared there. Returns the bytes appended.
    pub fn declare_into(&mut self, log: u64, round: &RoundRegions, out: &mut Vec<u8>) -> usize {
        let start = out.len();
        for id in round.ids() {
            let Some(e) = self.entries.get_mut(&id) else {
                continue;
            };
            if e.declared_in == log {
                continue;
            }
            // The names were checked when the id was handed out, so this cannot fail.
            if format::encode_declaration_into(out, id, &e.region, &e.table).is_ok() {
                e.declared_in = log;
            }
        }
        out.len() - start
    }

    /// At a roll away from log `old`: drops the entries `old` did not declare and no
    /// pending record uses. Keeps the dictionary as small as the regions being written.
    pub fn prune(&mut self, old: u64, pending: &RoundRegions) {
        let ids = &mut self.ids;
        self.entries.retain(|&id, e| {
            let keep = e.declared_in == old || pending.contains(id);
            if !keep && ids.get(&e.region) == Some(&id) {
                ids.remove(&e.region);
            }
            keep
        });
    }

    /// Number of entries (for tests).
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_never_reused() {
        let mut d = Dictionary::default();
        let a = d.id_of(b"a", "t").unwrap();
        assert_eq!(d.id_of(b"a", "t").unwrap(), a);
        let b = d.id_of(b"b", "t").unwrap();
        assert_ne!(a, b);
        // Same region name under another table: a new id, the old one keeps its names.
        let a2 = d.id_of(b"a", "u").unwrap();
        assert!(a2 > b);
        assert_eq!(d.region(a), Some(&b"a"[..]));
        let long = vec![b'x'; 70_000];
        assert!(d.id_of(&long, "t").is_err());
    }

    #[test]
    fn declares_once_per_log_and_prunes_idle_entries() {
        let mut d = Dictionary::default();
        let a = d.id_of(b"a", "t").unwrap();
        let b = d.id_of(b"b", "t").unwrap();
        let mut round = RoundRegions::default();
        round.note(a, 5);
        let mut out = Vec::new();
        assert!(d.declare_into(1, &round, &mut out) > 0);
        // Already declared in log 1: nothing more.
        assert_eq!(d.declare_into(1, &round, &mut out), 0);
        // Log 2 needs its own declaration.
        assert!(d.declare_into(2, &round, &mut out) > 0);
        // Rolling away from log 2: `a` was declared there, `b` was not and is not pending.
        d.prune(2, &RoundRegions::default());
        assert_eq!(d.len(), 1);
        assert!(d.region(b).is_none());
        // A pending id survives a roll from a log that never declared it.
        let c = d.id_of(b"c", "t").unwrap();
        let mut pending = RoundRegions::default();
        pending.note(c, 1);
        d.prune(3, &pending);
        assert_eq!(d.region(c), Some(&b"c"[..]));
        assert!(d.region(a).is_none());
        // A pruned region gets a fresh id when it writes again.
        assert!(d.id_of(b"a", "t").unwrap() > c);
    }
}
