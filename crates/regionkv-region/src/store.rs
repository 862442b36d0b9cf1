//! `Store`: one column family of one region — its memstore and its live storefiles
//! (HBase's `HStore`). The region drives it: writes add cells to the memstore; a flush
//! writes the memstore snapshot into a new storefile and then, once the manifest records
//! the file, swaps it into the file list and drops the snapshot.
//!
//! Thread safety: `add` runs concurrently from many writers (the memstore is concurrent);
//! the file list is copy-on-write behind a read-write lock, so scanners take a cheap
//! snapshot of it and keep reading files that a later flush or compaction replaces.

use crate::descriptor::ColumnFamilyDescriptor;
use crate::error::Result;
use crate::manifest::{StoreFileMeta, StoreManifest};
use crate::scan::heap::{KeyValueHeap, SourceScanner};
use crate::scan::query_matcher::{MatcherKind, QueryMatcher};
use crate::scan::store_scanner::StoreScanner;
use crate::split::midkey::{midkey_block, midpoint_row};
use parking_lot::RwLock;
use regionkv_cell::key::encode_key;
use regionkv_cell::{Cell, CellRef, CellType, KeyValueScanner, KeyView, OwnedKey};

/// What a compaction's coprocessors do to each row it writes (`Store::write_file`).
pub(crate) type RowHook<'a> = &'a dyn Fn(&mut Vec<Cell>) -> Result<()>;
use regionkv_fs::Fs;
use regionkv_memstore::{MemStore, MemStoreConfig, MemStoreSize, Segment};
use regionkv_storefile::{
    ReaderOptions, StoreFileBlockCache, StoreFileIdentity, StoreFileReader, StoreFileScanner,
    StoreFileWriter, StoreFileWriterOptions,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Block cache ids must be unique among all open readers of a process.
static NEXT_CACHE_ID: AtomicU64 = AtomicU64::new(1);

/// File info key of a storefile's creation time (HBase's `CREATE_TIME_TS`), 8 bytes BE ms:
/// the compaction policy's "modification time" for periodic majors.
pub const CREATE_TIME_KEY: &str = "CREATE_TIME_TS";
/// FileInfo key marking a file a bulk load wrote, with its time (HBase's
/// `BULKLOAD_TIMESTAMP`).
pub const BULKLOAD_TIME_KEY: &str = "BULKLOAD_TIMESTAMP";

/// Extension of storefile names.
pub const STOREFILE_EXT: &str = "sf";

/// A live storefile: its manifest entry and its open reader.
#[derive(Debug, Clone)]
pub struct StoreFileHandle {
    /// The manifest entry.
    pub meta: StoreFileMeta,
    /// The open reader.
    pub reader: Arc<StoreFileReader>,
}

/// Which sources a user read may skip (HBase's `StoreFileScanner.shouldUseScanner` and
/// `Segment.shouldSeek`): those whose cells all lie outside the query's time range, and
/// those whose newest cell is expired (only when MIN_VERSIONS is 0). A source's range
/// reaches down to 0 when it holds a DeleteColumn/DeleteFamily marker (HBase's
/// TimeRangeTracker), so no marker that masks a cell in range is ever skipped. It is
/// still not result-neutral, and HBase's answers depend on it: a skipped source's puts no
/// longer end a column (SEEK_NEXT_COL after a column delete) before a family marker of
/// another source is seen, so that marker masks more (see the model test's
/// `pinned_skipped_file_no_longer_hides_family_marker`).
#[derive(Debug, Clone, Copy)]
pub struct SourceFilter {
    /// The query's time range.
    pub time_range: regionkv_cell::TimeRange,
    /// Sources whose newest cell is older than this are skipped.
    pub expired_before: i64,
    /// File scanners add the data blocks they read to the block cache
    /// ([`crate::ReadQuery::cache_blocks`]).
    pub cache_blocks: bool,
}

impl SourceFilter {
    /// A filter that skips nothing.
    pub fn none() -> Self {
        Self {
            time_range: regionkv_cell::TimeRange::all_time(),
            expired_before: i64::MIN,
            cache_blocks: true,
        }
    }

    fn keeps_range(&self, min: i64, max: i64) -> bool {
        max >= self.expired_before
            && (self.time_range.is_all_time()
                || (min < self.time_range.max() && max >= self.time_range.min()))
    }

    /// Whether a segment may hold visible cells.
    pub fn keeps_segment(&self, segment: &Segment) -> bool {
        let (min, max) = segment.time_range();
        !segment.is_empty() && self.keeps_range(min, max)
    }

    /// Whether a storefile may hold visible cells.
    pub fn keeps_file(&self, reader: &StoreFileReader) -> bool {
        let info = reader.file_info();
        info.cell_count > 0 && self.keeps_range(info.min_timestamp, info.max_timestamp)
    }
}

/// Counters of one store (HBase's store metrics).
#[derive(Debug, Default)]
pub struct StoreMetrics {
    /// Flushes that wrote a file for this store.
    pub flush_count: AtomicU64,
    /// Bytes of storefiles written by flushes.
    pub flushed_bytes: AtomicU64,
    /// Cells written by flushes.
    pub flushed_cells: AtomicU64,
    /// Cells the last compaction of this store wrote (HBase's `CompactionProgress` of the
    /// store's compactor, which stays at the last compaction's count once it completes:
    /// `totalCompactingKVs` = `currentCompactedKVs` = the cells it wrote).
    pub last_compaction_kvs: AtomicU64,
}

/// Whose store this is: the table and the region (encoded name) its files must say they
/// belong to, and that the files it writes record as their identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreOwner {
    /// The table (`ns:table`).
    pub table: String,
    /// The region's encoded name.
    pub region: String,
}

/// One column family of a region.
#[derive(Debug)]
pub struct Store {
    owner: StoreOwner,
    family: ColumnFamilyDescriptor,
    dir: PathBuf,
    fs: Arc<dyn Fs>,
    memstore: MemStore,
    files: RwLock<Arc<Vec<StoreFileHandle>>>,
    cache: Option<Arc<StoreFileBlockCache>>,
    metrics: StoreMetrics,
    /// Clock time of the oldest edit in the active memstore segment (`i64::MAX` when it
    /// holds none): HBase's `timeOfOldestEdit`, for the flush policy's old-edit rule.
    oldest_edit_ms: std::sync::atomic::AtomicI64,
}

impl Store {
    /// Opens the store of `family` in `region_dir`: creates its directory if needed, opens
    /// the files the manifest names and deletes every other file in the directory (the
    /// leftovers of an interrupted flush or compaction).
    ///
    /// Every file must be the one its manifest entry names: its identity (when it has
    /// one: files written before identities existed have none) must say this table, this
    /// region (a reference: the referenced region and file), this family and this name;
    /// its length must be the recorded size and its trailer checksum the recorded one
    /// (when recorded). Anything else is [`crate::Error::Misplaced`], never served.
    #[expect(
        clippy::too_many_arguments,
        reason = "what a store is opened with, each from a different owner (region, table, services)"
    )]
    pub fn open(
        fs: Arc<dyn Fs>,
        region_dir: &Path,
        owner: StoreOwner,
        family: ColumnFamilyDescriptor,
        manifest: &StoreManifest,
        cache: Option<Arc<StoreFileBlockCache>>,
        memstore_config: MemStoreConfig,
        read_only: bool,
    ) -> Result<Self> {
        let dir = region_dir.join(String::from_utf8_lossy(&family.name).as_ref());
        // Read-only: the directory is the writer's. A file not in the manifest may be its
        // flush or compaction in progress, so nothing is created or swept.
        let sweep = if read_only {
            Vec::new()
        } else {
            fs.create_dir_all(&dir)?;
            fs.list(&dir)?
        };
        let mut removed = false;
        for name in sweep {
            if manifest.files.iter().any(|f| f.name == name) {
                continue;
            }
            let path = dir.join(&name);
            // The leftovers of an interrupted flush or compaction of this store are
            // deleted; a whole storefile that says it belongs to another store is not
            // ours to delete (it was put here by hand, or swapped): left for repair.
            if let Some(claim) = foreign_identity(fs.as_ref(), &path, &owner, &family.name) {
                tracing::warn!(file = %path.display(), %claim, "a storefile of another store, not in this one's manifest; left in place (run `regionkv repair`)");
                continue;
            }
            tracing::info!(file = %path.display(), "removing storefile not in the manifest");
            fs.remove_file(&path)?;
            removed = true;
        }
        if removed {
            fs.sync_dir(&dir)?;
        }
        let mut files = Vec::with_capacity(manifest.files.len());
        for meta in &manifest.files {
            let reader =
                Self::open_reader(fs.as_ref(), &dir, meta, cache.clone(), &family, &owner)?;
            let mut meta = meta.clone();
            // Entries of older manifests learn their file's checksum now; the region's next
            // manifest change records it.
            meta.trailer_checksum = Some(reader.trailer().checksum());
            files.push(StoreFileHandle { meta, reader });
        }
        Ok(Self {
            owner,
            family,
            dir,
            fs,
            memstore: MemStore::new(memstore_config),
            files: RwLock::new(Arc::new(files)),
            cache,
            metrics: StoreMetrics::default(),
            oldest_edit_ms: std::sync::atomic::AtomicI64::new(i64::MAX),
        })
    }

    fn open_reader(
        fs: &dyn Fs,
        dir: &Path,
        meta: &StoreFileMeta,
        cache: Option<Arc<StoreFileBlockCache>>,
        family: &ColumnFamilyDescriptor,
        owner: &StoreOwner,
    ) -> Result<Arc<StoreFileReader>> {
        let cache = cache.filter(|_| family.block_cache_enabled);
        let path = match &meta.reference {
            None => dir.join(&meta.name),
            Some(r) => r.path_from_store(dir),
        };
        let reader = StoreFileReader::open(
            fs,
            &path,
            NEXT_CACHE_ID.fetch_add(1, Ordering::Relaxed),
            cache,
            ReaderOptions {
                in_memory: family.in_memory,
            },
        )?;
        check_file_is_the_entry(&reader, meta, &family.name, owner)?;
        let reader = match &meta.reference {
            None => reader,
            Some(r) => reader.with_half(r.half())?,
        };
        Ok(Arc::new(reader))
    }

    /// True while some live file is a reference to a parent region's file (HBase's
    /// `hasReferences`): the region cannot split again until compaction rewrites them.
    pub fn has_references(&self) -> bool {
        self.files().iter().any(|f| f.meta.reference.is_some())
    }

    /// Total size of the live files (HBase's store size; a reference counts the whole
    /// referenced file, as HBase's half reader reports it).
    pub fn size(&self) -> u64 {
        self.files().iter().map(|f| f.meta.size).sum()
    }

    /// The store's split row (HBase's `HStore.getSplitPoint` →
    /// `StoreUtils.getSplitPoint`): none while it has references; otherwise the split row
    /// of its largest file — the row of that file's block-index mid-key, as HBase 2.x
    /// writes index keys (see [`crate::split::midkey`]) — unless it is the file's first or
    /// last row.
    pub fn split_row(&self) -> Result<Option<Vec<u8>>> {
        let files = self.files();
        if files.iter().any(|f| f.meta.reference.is_some()) {
            return Ok(None);
        }
        // The largest file; the first of equal sizes, as HBase's scan for the maximum.
        let Some(largest) = files
            .iter()
            .fold(None::<&StoreFileHandle>, |best, f| match best {
                Some(b) if b.reader.len() >= f.reader.len() => Some(b),
                _ => Some(f),
            })
        else {
            return Ok(None);
        };
        file_split_row(&largest.reader)
    }

    /// The family.
    pub fn family(&self) -> &ColumnFamilyDescriptor {
        &self.family
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The memstore.
    pub fn memstore(&self) -> &MemStore {
        &self.memstore
    }

    /// Counters.
    pub fn metrics(&self) -> &StoreMetrics {
        &self.metrics
    }

    /// Adds a cell (already stamped with timestamp and sequence id) to the memstore;
    /// `now` is the clock time of the write.
    pub fn add(&self, cell: CellRef<'_>, now: i64) -> MemStoreSize {
        self.oldest_edit_ms.fetch_min(now, Ordering::AcqRel);
        self.memstore.add(cell)
    }

    /// Clock time of the oldest unflushed edit of the active segment (`i64::MAX`: none).
    pub fn oldest_edit_ms(&self) -> i64 {
        self.oldest_edit_ms.load(Ordering::Acquire)
    }

    /// Takes the memstore snapshot for a flush. REQUIRES: no write is in progress (the
    /// region holds its updates lock exclusively), so the oldest-edit clock restarts with
    /// the new active segment.
    pub fn snapshot_for_flush(&self) -> Option<Arc<Segment>> {
        let seg = self.memstore.snapshot();
        self.oldest_edit_ms.store(i64::MAX, Ordering::Release);
        seg
    }

    /// The live files, oldest first (a snapshot: later flushes do not change it).
    pub fn files(&self) -> Arc<Vec<StoreFileHandle>> {
        self.files.read().clone()
    }

    /// Writes a memstore snapshot into the new file `name` through the flush rules (HBase
    /// flushes with the minor-compaction matcher: expired cells, masked puts and versions
    /// beyond VERSIONS are dropped; delete markers are kept; cells above
    /// `smallest_read_point` are kept uncounted for readers that cannot see them yet).
    /// The file is fully written
    /// and synced, with its directory entry synced, and opened. It is not live until the
    /// manifest names it and [`Self::commit_files`] swaps it in. `None` when nothing
    /// survived the rules (no file is left behind).
    pub fn write_snapshot(
        &self,
        snapshot: &Arc<Segment>,
        name: &str,
        now: i64,
        smallest_read_point: u64,
    ) -> Result<Option<StoreFileHandle>> {
        let mut source = snapshot.scanner(u64::MAX);
        source.seek_to_first();
        let heap = KeyValueHeap::new(vec![SourceScanner::Memstore(source)]);
        let matcher = QueryMatcher::compaction(
            &self.family,
            MatcherKind::MinorCompaction,
            now,
            smallest_read_point,
        );
        let tags = snapshot.tags_present();
        self.write_file(
            StoreScanner::new(heap, matcher),
            name,
            false,
            tags,
            now,
            None,
        )
        .inspect(|h| {
            if let Some(h) = h {
                self.metrics.flush_count.fetch_add(1, Ordering::Relaxed);
                self.metrics
                    .flushed_bytes
                    .fetch_add(h.meta.size, Ordering::Relaxed);
                self.metrics
                    .flushed_cells
                    .fetch_add(h.meta.cell_count, Ordering::Relaxed);
            }
        })
    }

    /// Writes what `scanner` keeps into the new file `name` and opens it; removes the file
    /// and returns `None` when it would hold no cell. `include_tags`: some input cell may
    /// carry tags (HBase decides the same way: a snapshot's `tagsPresent`, a compaction's
    /// inputs' max tags length). `row_hook` (a compaction's coprocessors, HBase's
    /// `preCompact` scanner wrapper) sees each row's cells before they are written and may
    /// change or drop them; a row it leaves out of order fails the write.
    pub(crate) fn write_file(
        &self,
        mut scanner: StoreScanner,
        name: &str,
        major: bool,
        include_tags: bool,
        now: i64,
        row_hook: Option<RowHook<'_>>,
    ) -> Result<Option<StoreFileHandle>> {
        let path = self.dir.join(name);
        let mut options = self.new_file_options(name, major, now);
        options.include_tags = include_tags;
        let mut writer = StoreFileWriter::new(self.fs.create_new(&path)?, options)?;
        let mut failed = None;
        let mut hooked: Vec<Cell> = Vec::new();
        while let Some(row) = scanner.peek_row().map(<[u8]>::to_vec) {
            if let Some(hook) = row_hook {
                hooked.clear();
                scanner.next_row(&row, |c| hooked.push(c.to_cell()))?;
                hook(&mut hooked)?;
                for c in &hooked {
                    writer.append(c.as_cell_ref())?;
                }
                continue;
            }
            scanner.next_row(&row, |c| {
                if failed.is_none()
                    && let Err(e) = writer.append(c)
                {
                    failed = Some(e);
                }
            })?;
            if let Some(e) = failed.take() {
                return Err(e.into());
            }
        }
        if writer.cell_count() == 0 {
            drop(writer);
            self.fs.remove_file(&path)?;
            return Ok(None);
        }
        let written = writer.finish()?;
        self.fs.sync_dir(&self.dir)?;
        self.open_written(name, &written).map(Some)
    }

    /// The writer options of this store's new file `name`, created at `now`: the family's
    /// options, the file's identity and its creation time.
    fn new_file_options(&self, name: &str, major: bool, now: i64) -> StoreFileWriterOptions {
        let mut options = self.family.writer_options(major);
        options.identity = Some(StoreFileIdentity {
            table: self.owner.table.clone(),
            region: self.owner.region.clone(),
            family: self.family.name.clone(),
            file: name.to_string(),
        });
        options
            .extra
            .insert(CREATE_TIME_KEY.to_string(), now.to_be_bytes().to_vec());
        options
    }

    /// The handle of the file `name` a writer just finished (and synced with its directory).
    fn open_written(
        &self,
        name: &str,
        written: &regionkv_storefile::writer::WrittenFile,
    ) -> Result<StoreFileHandle> {
        let meta = StoreFileMeta {
            name: name.to_string(),
            size: written.size,
            max_seq_id: written.file_info.max_seq_id,
            cell_count: written.file_info.cell_count,
            reference: None,
            trailer_checksum: Some(written.trailer.checksum()),
        };
        self.open_file(meta)
    }

    /// Opens the live file of manifest entry `meta` (a file this store's manifest is about
    /// to list, such as a staged bulk-load file).
    pub fn open_file(&self, meta: StoreFileMeta) -> Result<StoreFileHandle> {
        let reader = Self::open_reader(
            self.fs.as_ref(),
            &self.dir,
            &meta,
            self.cache.clone(),
            &self.family,
            &self.owner,
        )?;
        Ok(StoreFileHandle { meta, reader })
    }

    /// Writes `cells` into the new file `name` as a bulk load does (HBase's
    /// `HStore.bulkLoadHFile`): every cell gets sequence id `seq_id`, the file is marked with
    /// `BULKLOAD_TIMESTAMP`, and it is not listed anywhere yet. The cells must be of this
    /// family, in key order, with distinct coordinates, timestamp and type. Returns `None`
    /// (and leaves no file) when there is no cell.
    pub fn write_bulk_file(
        &self,
        name: &str,
        cells: &mut dyn Iterator<Item = Cell>,
        seq_id: u64,
        now: i64,
    ) -> Result<Option<StoreFileHandle>> {
        let path = self.dir.join(name);
        let mut options = self.new_file_options(name, false, now);
        options
            .extra
            .insert(BULKLOAD_TIME_KEY.to_string(), now.to_be_bytes().to_vec());
        // Cells carry a tags length, as HBase's bulk writer always writes them in v3: the
        // layout is fixed before the first cell, whatever later cells hold.
        options.include_tags = true;
        let mut cells = cells.peekable();
        if cells.peek().is_none() {
            return Ok(None);
        }
        let mut writer = StoreFileWriter::new(self.fs.create_new(&path)?, options)?;
        let failed = (|| -> Result<()> {
            for c in cells {
                if c.family() != self.family.name.as_slice() {
                    return Err(crate::error::Error::NoSuchColumnFamily {
                        family: regionkv_cell::bytes::to_string_binary(c.family()),
                        region: self.owner.region.clone(),
                        table: self.owner.table.clone(),
                    });
                }
                writer.append(c.with_seq_id(seq_id).as_cell_ref())?;
            }
            Ok(())
        })();
        if let Err(e) = failed {
            drop(writer);
            // The file was never listed: removing it is all the cleanup there is.
            let _ = self.fs.remove_file(&path);
            return Err(e);
        }
        let written = writer.finish()?;
        self.fs.sync_dir(&self.dir)?;
        self.open_written(name, &written).map(Some)
    }

    /// Replaces `removed` (by name) with `added` in the live set (after the manifest
    /// recorded the change).
    pub fn replace_files(&self, removed: &[String], added: Option<StoreFileHandle>) {
        let mut files = self.files.write();
        let mut next: Vec<StoreFileHandle> = files
            .iter()
            .filter(|f| !removed.contains(&f.meta.name))
            .cloned()
            .collect();
        next.extend(added);
        next.sort_by_key(|f| f.meta.max_seq_id);
        *files = Arc::new(next);
    }

    /// Scanners for a Get of `row`, each positioned at `key` (the first key on the row):
    /// files whose bloom filter rules the row (or, for one named column, the row and
    /// column) out are not read.
    ///
    /// With `lazy`, for named columns, a file's seek is put off (HBase's lazy seek for
    /// explicit-column reads): the file stands in the merge at the first wanted column at
    /// its newest timestamp, and reads a block only when that key reaches the top. A get
    /// for the newest version finds it in the newest source that has the column, and
    /// older files never seek.
    ///
    /// The stand-in key hides only cells the answer cannot depend on. The file's cells
    /// of the wanted columns are at or below its newest timestamp, so none is before the
    /// key. Cells of earlier columns are never returned; they could change the answer
    /// only as family delete markers, or as empty-qualifier cells that end the markers'
    /// column before the matcher reaches a marker (the quirk pinned by the model test's
    /// `pinned_empty_qualifier_hides_family_marker`). So seeks are put off only when no source of the store holds a family marker; the
    /// read is then the same cell for cell as with every seek done up front. (HBase's own
    /// lazy seek also runs with markers present, deciding per file by a delete-family
    /// bloom, and can then differ from its eager reads in that quirk; regionkv keeps the
    /// eager answer there.) The caller passes `lazy = false` when a filter sees cells.
    pub fn get_scanners(
        &self,
        read_point: u64,
        row: &[u8],
        key: &OwnedKey,
        qualifiers: &[Vec<u8>],
        filter: &SourceFilter,
        lazy: bool,
    ) -> Result<KeyValueHeap> {
        // Segments before files, as in `scanners`: a flush adds its file before it drops
        // its snapshot, so a flush committing in between cannot hide its cells.
        let (snapshot, active) = self.memstore.segment_pair();
        let files = self.files();
        let no_family_markers = || {
            !active.family_deletes_present()
                && !snapshot
                    .as_ref()
                    .is_some_and(|s| s.family_deletes_present())
                && files
                    .iter()
                    .all(|f| f.reader.file_info().delete_family_count == 0)
        };
        // Which files may hold the row (time range, key range, bloom): bit `i` for file
        // `i`, so the blooms are probed once. Stores have far fewer than 64 files (writes
        // block at `hbase.hstore.blockingStoreFiles`, 16); any beyond are probed below.
        let may_hold = |f: &StoreFileHandle| {
            filter.keeps_file(&f.reader)
                && match qualifiers {
                    [q] => f.reader.may_contain_row_col(row, q),
                    _ => f.reader.may_contain_row(row),
                }
                && f.reader.may_contain_rows(row, &[])
        };
        let mut held = 0u64;
        let mut sources = files.len().saturating_sub(64);
        for (i, f) in files.iter().enumerate().take(64) {
            if may_hold(f) {
                held |= 1 << i;
                sources += 1;
            }
        }
        let segments = || snapshot.iter().chain(std::iter::once(&active));
        sources += segments()
            .filter(|seg| !seg.is_empty() && filter.keeps_segment(seg))
            .count();
        // A put-off seek pays only when another source may answer first; with one source
        // it would just cost its stand-in key.
        let first_column = qualifiers
            .iter()
            .min()
            .filter(|_| lazy && sources > 1 && no_family_markers());
        let mut out = KeyValueHeap::with_capacity(2 + files.len());
        for seg in segments() {
            if !filter.keeps_segment(seg) {
                continue;
            }
            let mut s = seg.scanner(read_point);
            let Ok(_) = s.seek(&key.view());
            out.push(SourceScanner::Memstore(s));
        }
        for (i, f) in files.iter().enumerate() {
            let holds = if i < 64 {
                held & (1 << i) != 0
            } else {
                may_hold(f)
            };
            if !holds {
                continue;
            }
            let mut s = StoreFileScanner::new(f.reader.clone())
                .with_read_point(read_point, f.meta.max_seq_id)
                .cache_blocks(filter.cache_blocks);
            let info = f.reader.file_info();
            match first_column {
                // A file info whose timestamps describe no cell (impossible from our
                // writer) cannot bound the file's cells: such a file seeks up front.
                Some(q) if info.min_timestamp <= info.max_timestamp => s.request_seek(encode_key(
                    row,
                    &self.family.name,
                    q,
                    info.max_timestamp,
                    CellType::Maximum,
                    u64::MAX,
                )?),
                _ => {
                    s.seek(&key.view())?;
                }
            }
            out.push(SourceScanner::File(s));
        }
        out.settle()?;
        Ok(out)
    }

    /// Makes `added` live (after the manifest recorded them).
    pub fn commit_files(&self, added: Vec<StoreFileHandle>) {
        let mut files = self.files.write();
        let mut next: Vec<StoreFileHandle> = files.as_ref().clone();
        next.extend(added);
        *files = Arc::new(next);
    }

    /// Scanners over every source of the store at `read_point`, each positioned at the
    /// first cell ≥ `key`. Files that cannot hold rows in `[start_row, stop_row)` are
    /// skipped.
    pub fn scanners(
        &self,
        read_point: u64,
        key: &KeyView<'_>,
        start_row: &[u8],
        stop_row: &[u8],
        filter: &SourceFilter,
    ) -> Result<Vec<SourceScanner>> {
        let mut out = Vec::new();
        for seg in self.memstore.segments() {
            if !filter.keeps_segment(&seg) {
                continue;
            }
            let mut s = seg.scanner(read_point);
            let Ok(_) = s.seek(key);
            out.push(SourceScanner::Memstore(s));
        }
        for f in self.files().iter() {
            if !filter.keeps_file(&f.reader) || !f.reader.may_contain_rows(start_row, stop_row) {
                continue;
            }
            let mut s = StoreFileScanner::new(f.reader.clone())
                .with_read_point(read_point, f.meta.max_seq_id)
                .cache_blocks(filter.cache_blocks);
            s.seek(key)?;
            out.push(SourceScanner::File(s));
        }
        Ok(out)
    }
}

/// The identity of the storefile at `path` when it is a readable storefile that names
/// another store than `family` of `owner`; `None` otherwise (ours, unreadable, or without
/// an identity).
fn foreign_identity(
    fs: &dyn Fs,
    path: &Path,
    owner: &StoreOwner,
    family: &[u8],
) -> Option<StoreFileIdentity> {
    if path.extension().and_then(|e| e.to_str()) != Some(STOREFILE_EXT) {
        return None;
    }
    let id = NEXT_CACHE_ID.fetch_add(1, Ordering::Relaxed);
    let reader = StoreFileReader::open(fs, path, id, None, ReaderOptions::default()).ok()?;
    let id = reader.file_info().identity.clone()?;
    (id.table != owner.table || id.region != owner.region || id.family != family).then_some(id)
}

/// What the manifest entry `meta` of store `family` of `owner` expects its file to say,
/// as an identity: a reference's file belongs to the referenced region, a linked file
/// ([`crate::file_link`]) to the store its link name names.
pub fn expected_identity(
    meta: &StoreFileMeta,
    family: &[u8],
    owner: &StoreOwner,
) -> StoreFileIdentity {
    let (region, file) = match &meta.reference {
        None => (&owner.region, &meta.name),
        Some(r) => (&r.region, &r.file),
    };
    // A link (a clone's or restore's file from a snapshot) names the store the file was
    // written for.
    if let Some(link) = crate::file_link::FileLink::parse(file) {
        return StoreFileIdentity {
            table: link.table,
            region: link.region,
            family: family.to_vec(),
            file: link.file,
        };
    }
    StoreFileIdentity {
        table: owner.table.clone(),
        region: region.clone(),
        family: family.to_vec(),
        file: file.clone(),
    }
}

/// Checks that the file `reader` opened is the one the manifest entry `meta` names: its
/// identity (when it has one), its length and its trailer checksum (when recorded).
pub fn check_file_is_the_entry(
    reader: &StoreFileReader,
    meta: &StoreFileMeta,
    family: &[u8],
    owner: &StoreOwner,
) -> Result<()> {
    let expected = expected_identity(meta, family, owner);
    let misplaced = |claims: String, found_as: String| crate::Error::Misplaced {
        what: "storefile",
        path: reader.path().to_path_buf(),
        claims,
        found_as,
    };
    if let Some(id) = &reader.file_info().identity
        && *id != expected
    {
        return Err(misplaced(id.to_string(), expected.to_string()));
    }
    let checksum = reader.trailer().checksum();
    if reader.len() != meta.size || meta.trailer_checksum.is_some_and(|c| c != checksum) {
        return Err(misplaced(
            format!(
                "a file of {} bytes with trailer checksum {checksum:#010x}",
                reader.len()
            ),
            format!(
                "{expected}, which the manifest records as {} bytes{}",
                meta.size,
                meta.trailer_checksum
                    .map(|c| format!(" with trailer checksum {c:#010x}"))
                    .unwrap_or_default()
            ),
        ));
    }
    Ok(())
}

/// The split row of one storefile (`StoreUtils.getFileSplitPoint` on the mid-key HBase's
/// block index would hold): `None` for an empty file, a half file, or when the mid-key's
/// row is the file's first or last row.
pub fn file_split_row(reader: &StoreFileReader) -> Result<Option<Vec<u8>>> {
    if reader.half().is_some() {
        return Ok(None);
    }
    let n = reader.trailer().data_block_count;
    let Some(k) = midkey_block(n as usize, reader.trailer().index_levels > 1) else {
        return Ok(None);
    };
    let row_of =
        |key: &[u8]| -> Option<Vec<u8>> { KeyView::parse(key).ok().map(|v| v.row().to_vec()) };
    let Some(first_of_k) = reader.block_first_key(k as u64)? else {
        return Ok(None);
    };
    let Some(right) = row_of(&first_of_k) else {
        return Ok(None);
    };
    // Block 0 is indexed by its real first key; later blocks by a shortest key between the
    // previous block's last row and their first row.
    let mid = if k == 0 {
        right
    } else {
        match reader.last_row_before(Some(&first_of_k))? {
            Some(left) => midpoint_row(&left, &right),
            None => right,
        }
    };
    let info = reader.file_info();
    let (Some(first), Some(last)) = (
        info.first_key.as_deref().and_then(row_of),
        info.last_key.as_deref().and_then(row_of),
    ) else {
        return Ok(None);
    };
    Ok(crate::split::midkey::file_split_row(&first, &last, &mid))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use regionkv_cell::Cell;
    use regionkv_fs::MemFs;
    use regionkv_storefile::Half;

    fn write(fs: &MemFs, rows: &[Vec<u8>], index_block_size: usize) -> StoreFileReader {
        let options = StoreFileWriterOptions {
            block_size: 1024,
            index_block_size,
            ..Default::default()
        };
        let path = Path::new("/f.sf");
        let _ = fs.remove_file(path);
        let mut w = StoreFileWriter::new(fs.create_new(path).unwrap(), options).unwrap();
        for r in rows {
            let c = Cell::put(r, b"f", b"q", 1, &[b'v'; 60]).unwrap();
            w.append(c.as_cell_ref()).unwrap();
        }
        w.finish().unwrap();
        StoreFileReader::open(fs, path, 1, None, ReaderOptions::default()).unwrap()
    }

    #[test]
    fn split_row_is_the_shortened_index_key_of_the_mid_block() {
        let fs = MemFs::new();
        let rows: Vec<Vec<u8>> = (0..1000)
            .map(|i| format!("the-row-{:05}", i * 10).into_bytes())
            .collect();
        for index_block_size in [64, 1 << 16] {
            let reader = write(&fs, &rows, index_block_size);
            let n = reader.trailer().data_block_count;
            assert!(n > 20);
            let multi = reader.trailer().index_levels > 1;
            assert_eq!(multi, index_block_size == 64);
            let k = if multi { (n - 1) / 2 } else { n / 2 };
            // Independently: the first row of block k and the row before it.
            let first = reader.block_first_key(k).unwrap().unwrap();
            let right = KeyView::parse(&first).unwrap().row().to_vec();
            let left = rows.iter().rev().find(|r| **r < right).unwrap().clone();
            let want = midpoint_row(&left, &right);
            assert!(want.as_slice() > left.as_slice() && want.as_slice() <= right.as_slice());
            assert!(want.len() < right.len(), "shortened: {want:?}");
            assert_eq!(file_split_row(&reader).unwrap(), Some(want));
        }
        // A file of one row never splits.
        let one = vec![b"only".to_vec(); 1];
        let reader = write(&fs, &one, 1 << 16);
        assert_eq!(file_split_row(&reader).unwrap(), None);
        // Nor does a half file.
        let reader = write(&fs, &rows, 1 << 16)
            .with_half(Half {
                split_row: b"the-row-05000".to_vec(),
                top: true,
            })
            .unwrap();
        assert_eq!(file_split_row(&reader).unwrap(), None);
    }
}
