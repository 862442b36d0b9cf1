//! Rebuilding catalog entries from the directories (HBase's `hbck` / `OfflineMetaRepair`
//! rebuilding `hbase:meta` from each region's `.regioninfo` and the table's
//! `.tableinfo`): each region's MANIFEST knows its table, start and end keys and region
//! id; each table's `.tableinfo` knows its descriptor and state.
//!
//! Choosing the live regions of a table. A table directory may hold more region
//! directories than the table has regions: split and merge parents kept while their
//! children still read their files, the children of a split or merge a crash
//! interrupted before its commit, the old regions of a truncate. Of two overlapping
//! regions:
//! * when one refers to the other's files (a child and its parent), the child wins,
//!   unless the parent shows writes after the split (a file no child refers to, or WAL
//!   edits above its flushed sequence id): then the split never committed and the parent
//!   wins;
//! * otherwise the one holding data (files or WAL edits) wins; if both hold none, the
//!   newer (higher region id) wins; if both hold data, the table is refused — only the
//!   operator can say which is right.
//!
//! The survivors must tile the key space from the empty start to the empty end: a gap or
//! a leftover overlap refuses the table with a report, and nothing is written.

use crate::catalog::{RegionEntry, TableEntry, TableState};
use crate::layout;
use crate::table_info::{TableInfo, TableInfoState};
use regionkv_cell::bytes::to_string_binary;
use regionkv_fs::Fs;
use regionkv_region::{ColumnFamilyDescriptor, Manifest, RegionInfo, TableDescriptor};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One region directory found on disk.
#[derive(Debug)]
struct Candidate {
    manifest: Manifest,
    name: String,
    /// Holds storefiles (of its own or references) or WAL edits.
    holds_data: bool,
    /// Highest sequence id of its WAL edits (0: none).
    wal_max_seq: u64,
}

impl Candidate {
    fn info(&self) -> &RegionInfo {
        &self.manifest.region
    }

    fn refers_to(&self, other: &str) -> bool {
        self.manifest.stores.values().any(|s| {
            s.files
                .iter()
                .any(|f| f.reference.as_ref().is_some_and(|r| r.region == other))
        })
    }

    /// The sequence id its stores were flushed to at least (the smallest over them).
    fn flushed_seq_id(&self) -> u64 {
        self.manifest
            .stores
            .values()
            .map(|s| s.flushed_seq_id)
            .min()
            .unwrap_or(0)
    }

    /// True when this region, a parent of `children`, was written after they were made.
    /// A child starts with every store flushed to the parent's last sequence id at the
    /// split or merge, and only a child that opened (its commit happened) moves past it;
    /// so the smallest flushed sequence id among the children is at most that split
    /// point. A parent file or WAL edit above it was written after the split: the parent
    /// served again, and the split never committed.
    fn written_after_split(&self, children: &[&Candidate]) -> bool {
        let split_seq = children
            .iter()
            .map(|c| c.flushed_seq_id())
            .min()
            .unwrap_or(u64::MAX);
        let newest_file = self
            .manifest
            .stores
            .values()
            .flat_map(|s| s.files.iter())
            .filter(|f| f.reference.is_none())
            .map(|f| f.max_seq_id)
            .max()
            .unwrap_or(0);
        newest_file > split_seq || self.wal_max_seq > split_seq
    }
}

/// What rebuilding one table found.
#[derive(Debug)]
pub(crate) enum Rebuilt {
    /// The table's entry, and what was decided on the way.
    Table(TableEntry, Vec<String>),
    /// A leftover of an interrupted create or drop: not a table (the next open removes it).
    Leftover(String),
    /// The directories do not make a consistent table; nothing is written for it.
    Refused(Vec<String>),
}

fn range(info: &RegionInfo) -> String {
    format!(
        "[{}, {})",
        to_string_binary(&info.start_key),
        if info.end_key.is_empty() {
            "end".to_string()
        } else {
            to_string_binary(&info.end_key)
        }
    )
}

/// Rebuilds the entry of table `name` from its directory `tdir`. `wal_max_seq` maps a
/// region's encoded name to the highest sequence id of its edits in the WAL.
pub(crate) fn rebuild_table(
    fs: &dyn Fs,
    name: &str,
    tdir: &Path,
    wal_max_seq: &BTreeMap<String, u64>,
) -> crate::Result<Rebuilt> {
    let mut notes = Vec::new();
    let info = match TableInfo::read(fs, tdir) {
        Ok(info) => info,
        Err(e) => {
            notes.push(format!("table {name}: unreadable .tableinfo ({e})"));
            None
        }
    };
    if let Some(i) = info.as_ref().filter(|i| i.descriptor.name != name) {
        return Ok(Rebuilt::Refused(vec![format!(
            "{} describes table {}, but was found in the directory of table {name} (delete it to \
             rebuild the table with the families of its manifests at default options)",
            TableInfo::path(tdir).display(),
            i.descriptor.name
        )]));
    }
    let mut candidates = Vec::new();
    let mut problems = Vec::new();
    for region in layout::region_dirs(fs, tdir)? {
        let rdir = tdir.join(&region);
        let manifest = match Manifest::read(fs, &rdir) {
            Ok(Some(m)) => m,
            Ok(None) => {
                if layout::holds_files(fs, &rdir)? {
                    problems.push(format!(
                        "region directory {} holds files but no MANIFEST",
                        rdir.display()
                    ));
                }
                continue;
            }
            Err(e) => {
                problems.push(format!("region directory {}: {e}", rdir.display()));
                continue;
            }
        };
        if manifest.region.table != name || manifest.region.encoded_name() != region {
            problems.push(format!(
                "{} claims to be region {} of table {}, but was found as region {region} of table {name}",
                Manifest::path(&rdir).display(),
                manifest.region.encoded_name(),
                manifest.region.table
            ));
            continue;
        }
        let wal_max = wal_max_seq.get(&region).copied().unwrap_or(0);
        let files = manifest.stores.values().any(|s| !s.files.is_empty());
        candidates.push(Candidate {
            holds_data: files || wal_max > 0,
            wal_max_seq: wal_max,
            name: region,
            manifest,
        });
    }
    if !problems.is_empty() {
        return Ok(Rebuilt::Refused(problems));
    }
    // The leftovers of an interrupted create or drop, as the open judges them
    // (`RegionServer::unlisted_table_leftover`): a drop that committed; a create, or a directory
    // without `.tableinfo`, that holds no data.
    let holds_data = candidates.iter().any(|c| c.holds_data);
    let leftover = match info.as_ref().map(|i| i.state) {
        Some(TableInfoState::Dropping) => Some("a drop that committed"),
        Some(TableInfoState::Creating) | None if !holds_data => {
            Some("an interrupted create, holding no data")
        }
        _ => None,
    };
    if let Some(what) = leftover {
        return Ok(Rebuilt::Leftover(format!(
            "table {name}: the leftover of {what} (removed by the next open)"
        )));
    }
    let mut losers: BTreeSet<usize> = BTreeSet::new();
    // 1. Split and merge parents: the regions others refer to. Either the children
    // committed (the parent is superseded, whatever its other children did since: one may
    // have compacted its references away) or they did not (the parent was written after).
    for (p, parent) in candidates.iter().enumerate() {
        let children: Vec<usize> = (0..candidates.len())
            .filter(|c| candidates[*c].refers_to(&parent.name))
            .collect();
        if children.is_empty() {
            continue;
        }
        let refs: Vec<&Candidate> = children.iter().map(|c| &candidates[*c]).collect();
        if parent.written_after_split(&refs) {
            for c in children {
                if losers.insert(c) {
                    notes.push(format!(
                        "table {name}: left out region {} {}, the child of a split or merge that did not commit (its parent {} was written after it)",
                        candidates[c].name,
                        range(candidates[c].info()),
                        parent.name
                    ));
                }
            }
        } else if losers.insert(p) {
            notes.push(format!(
                "table {name}: left out region {} {}, a split or merge parent its children superseded",
                parent.name,
                range(parent.info())
            ));
        }
    }
    // 2. Other overlaps: the region holding data wins; of two empty ones, the newer.
    for i in 0..candidates.len() {
        for j in i + 1..candidates.len() {
            let (a, b) = (&candidates[i], &candidates[j]);
            if losers.contains(&i) || losers.contains(&j) || !a.info().overlaps(b.info()) {
                continue;
            }
            let loser = match (a.holds_data, b.holds_data) {
                (true, true) => {
                    problems.push(format!(
                        "regions {} {} and {} {} overlap and both hold data",
                        a.name,
                        range(a.info()),
                        b.name,
                        range(b.info())
                    ));
                    continue;
                }
                (true, false) => j,
                (false, true) => i,
                (false, false) if a.info().region_id < b.info().region_id => i,
                (false, false) => j,
            };
            losers.insert(loser);
            let other = if loser == i { b } else { a };
            notes.push(format!(
                "table {name}: left out region {} {}, which holds no data and overlaps {}",
                candidates[loser].name,
                range(candidates[loser].info()),
                other.name
            ));
        }
    }
    let mut live: Vec<&Candidate> = candidates
        .iter()
        .enumerate()
        .filter(|(i, _)| !losers.contains(i))
        .map(|(_, c)| c)
        .collect();
    live.sort_by(|a, b| a.info().start_key.cmp(&b.info().start_key));
    // The survivors must tile the key space.
    let mut expected_start: Vec<u8> = Vec::new();
    for (k, c) in live.iter().enumerate() {
        if c.info().start_key != expected_start {
            problems.push(format!(
                "table {name}: {} between {} and region {} {}",
                if c.info().start_key > expected_start {
                    "a gap"
                } else {
                    "an overlap"
                },
                to_string_binary(&expected_start),
                c.name,
                range(c.info())
            ));
        }
        if c.info().end_key.is_empty() && k + 1 != live.len() {
            problems.push(format!(
                "table {name}: region {} ends the table but is not the last",
                c.name
            ));
        }
        expected_start = c.info().end_key.clone();
    }
    if live.last().is_none_or(|c| !c.info().end_key.is_empty()) {
        problems.push(format!(
            "table {name}: a gap from {} to the end of the table",
            to_string_binary(&expected_start)
        ));
    }
    if !problems.is_empty() {
        return Ok(Rebuilt::Refused(problems));
    }
    let (descriptor, state) = match info {
        Some(i) => (
            i.descriptor,
            if i.state == TableInfoState::Disabled {
                TableState::Disabled
            } else {
                TableState::Enabled
            },
        ),
        None => {
            // A table written before `.tableinfo` existed: the families are known from the
            // manifests; their options are lost and take HBase's defaults.
            let families: BTreeSet<Vec<u8>> = candidates
                .iter()
                .flat_map(|c| c.manifest.stores.keys().cloned())
                .collect();
            let fds = families
                .iter()
                .map(|f| ColumnFamilyDescriptor::new(f))
                .collect::<Result<Vec<_>, _>>()?;
            notes.push(format!(
                "table {name}: no .tableinfo; rebuilt with the families found in its manifests ({}) at default options — check them with `describe` and `alter`",
                families
                    .iter()
                    .map(|f| String::from_utf8_lossy(f).into_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            (TableDescriptor::new(name, fds)?, TableState::Enabled)
        }
    };
    let regions = live
        .iter()
        .map(|c| RegionEntry {
            info: c.info().clone(),
        })
        .collect();
    Ok(Rebuilt::Table(
        TableEntry {
            descriptor,
            state,
            regions,
        },
        notes,
    ))
}

/// The highest region id among the manifests of every table directory under `dir`.
pub(crate) fn max_region_id(fs: &dyn Fs, dir: &Path) -> crate::Result<u64> {
    let mut max = 0;
    for (_, tdir) in layout::table_dirs(fs, dir)? {
        for region in layout::region_dirs(fs, &tdir)? {
            if let Ok(Some(m)) = Manifest::read(fs, &tdir.join(&region)) {
                max = max.max(m.region.region_id);
            }
        }
    }
    Ok(max)
}
