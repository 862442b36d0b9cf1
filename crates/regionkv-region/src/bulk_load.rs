//! Bulk loads into one region (HBase's `HRegion.bulkLoadHFiles` and `HStore.bulkLoadHFile`):
//! sorted cells become new storefiles of the region without passing through the memstore or
//! the WAL. The table-wide transition in the facade drives three steps per region:
//!
//! 1. [`Region::reserve_bulk_load_seq_id`]: flush the memstore if it holds edits, as HBase
//!    does when it assigns bulk-loaded files a sequence id, then take a sequence id above
//!    every edit the region has seen. Every loaded cell carries it, so a loaded cell wins
//!    over an earlier write of the same coordinates, timestamp and type, and loses to a later
//!    one. The flush keeps the WAL's replay rule simple: no edit below a loaded file's
//!    sequence id is left only in the WAL.
//! 2. [`Region::write_bulk_file`]: write one family's cells as a new storefile in the
//!    family's directory, **not listed** in the manifest: a crash here leaves a leftover the
//!    region's next open removes.
//! 3. [`Region::commit_bulk_files`] (region online) or [`apply_bulk_files_on_disk`] (region
//!    closed, at recovery): list the files in the manifest, one atomic replace. Idempotent,
//!    so a recovery may apply a recorded load again.

use std::path::Path;
use std::sync::atomic::Ordering;

use regionkv_cell::Cell;
use regionkv_fs::Fs;

use crate::error::{Error, Result};
use crate::manifest::{Manifest, StoreFileMeta};
use crate::region::Region;
use crate::store::STOREFILE_EXT;

/// One staged file: the family and its manifest entry.
pub type BulkFile = (Vec<u8>, StoreFileMeta);

impl Region {
    /// Step 1: flushes the memstore when it holds edits, then returns a sequence id above
    /// every edit of the region; later writes get higher ones.
    pub fn reserve_bulk_load_seq_id(&self) -> Result<u64> {
        self.check_open()?;
        self.check_writable("bulk load")?;
        if self.memstore_data_size() > 0 {
            self.flush_all()?;
        }
        let entry = self.mvcc().begin();
        let seq = entry.write_number();
        // An empty write: it only moves the sequence past `seq`.
        self.mvcc().complete(entry);
        Ok(seq)
    }

    /// Step 2: writes `cells` (all of `family`, all in this region's key range, in key
    /// order, with distinct coordinates, timestamp and type) as a new, unlisted storefile
    /// whose cells carry `seq_id`. Returns its manifest entry, or `None` for no cells.
    pub fn write_bulk_file(
        &self,
        family: &[u8],
        cells: &mut dyn Iterator<Item = Cell>,
        seq_id: u64,
    ) -> Result<Option<StoreFileMeta>> {
        self.check_open()?;
        self.check_writable("bulk load")?;
        let store = self.store(family)?;
        let info = self.info().clone();
        let encoded = self.encoded_name().to_string();
        // Stop at the first cell outside the region: the caller cut the input wrongly.
        let mut outside: Option<Vec<u8>> = None;
        let name = format!("{}.{STOREFILE_EXT}", self.next_file_id());
        let now = self.services().clock.now_millis();
        let written = {
            let mut in_range = std::iter::from_fn(|| {
                if outside.is_some() {
                    return None;
                }
                let c = cells.next()?;
                if !info.contains_row(c.row()) {
                    outside = Some(c.row().to_vec());
                    return None;
                }
                Some(c)
            });
            store.write_bulk_file(&name, &mut in_range, seq_id, now)?
        };
        if let Some(row) = outside {
            if written.is_some() {
                let _ = self.services().fs.remove_file(&store.dir().join(&name));
            }
            return Err(Error::WrongRegion {
                row: regionkv_cell::bytes::to_string_binary(&row),
                region: encoded,
                start: regionkv_cell::bytes::to_string_binary(&info.start_key),
                end: regionkv_cell::bytes::to_string_binary(&info.end_key),
            });
        }
        Ok(written.map(|h| h.meta))
    }

    /// Step 3 on an open region: lists `files` in the manifest (skipping any already
    /// listed) and makes them live. The commit point of the load for this region.
    pub fn commit_bulk_files(&self, files: &[BulkFile]) -> Result<()> {
        self.check_open()?;
        self.check_writable("bulk load")?;
        let mut opened = Vec::new();
        for (family, meta) in files {
            let store = self.store(family)?;
            if store.files().iter().any(|f| f.meta.name == meta.name) {
                continue;
            }
            opened.push((store.clone(), store.open_file(meta.clone())?));
        }
        if opened.is_empty() {
            return Ok(());
        }
        {
            let mut m = self.manifest_lock().lock();
            let mut next = m.clone();
            if !add_to_manifest(&mut next, files) {
                return Ok(());
            }
            if let Err(e) = next.write(self.services().fs.as_ref(), self.dir()) {
                self.poison(&e);
                return Err(e);
            }
            *m = next;
        }
        for (store, handle) in opened {
            store.replace_files(&[], Some(handle));
        }
        self.metrics().bulk_loads.fetch_add(1, Ordering::Relaxed);
        // A load may make the region big enough to split, as a flush may.
        self.request_split_if_needed();
        Ok(())
    }
}

/// Adds the entries of `files` that `manifest` does not list yet, keeping each store's
/// files in sequence id order and the next file id past every listed name. Returns
/// whether anything changed.
pub(crate) fn add_to_manifest(manifest: &mut Manifest, files: &[BulkFile]) -> bool {
    let mut changed = false;
    for (family, meta) in files {
        let sm = manifest.stores.entry(family.clone()).or_default();
        if sm.files.iter().any(|f| f.name == meta.name) {
            continue;
        }
        sm.files.push(meta.clone());
        sm.files.sort_by_key(|f| f.max_seq_id);
        if let Some(id) = meta
            .name
            .strip_suffix(&format!(".{STOREFILE_EXT}"))
            .and_then(|n| n.parse::<u64>().ok())
        {
            manifest.next_file_id = manifest.next_file_id.max(id + 1);
        }
        changed = true;
    }
    changed
}

/// Step 3 on a closed region, at recovery: lists `files` in the manifest of the region in
/// `region_dir` on disk (before the region opens, so its leftover sweep keeps them).
/// Idempotent; returns whether the manifest changed.
pub fn apply_bulk_files_on_disk(
    fs: &dyn Fs,
    region_dir: &Path,
    files: &[BulkFile],
) -> Result<bool> {
    let Some(mut manifest) = Manifest::read(fs, region_dir)? else {
        return Err(Error::Inconsistent {
            region: region_dir.display().to_string(),
            what: "a recorded bulk load names a region without a manifest".into(),
        });
    };
    for (family, meta) in files {
        let path = region_dir
            .join(String::from_utf8_lossy(family).as_ref())
            .join(&meta.name);
        if !fs.exists(&path)? {
            return Err(Error::Inconsistent {
                region: region_dir.display().to_string(),
                what: format!(
                    "the bulk-loaded file {} the catalog records is missing",
                    path.display()
                ),
            });
        }
    }
    if !add_to_manifest(&mut manifest, files) {
        return Ok(false);
    }
    manifest.write(fs, region_dir)?;
    Ok(true)
}
