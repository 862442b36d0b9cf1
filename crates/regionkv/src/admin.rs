//! `Admin`: HBase's administrative API — namespaces, table creation (with pre-split
//! keys), describe/list/exists, alter, disable/enable, truncate, drop, flush, compaction
//! and status. Every operation changes the catalog under the Db's catalog lock, so admin
//! operations run one at a time; the catalog file is replaced atomically, and a crash
//! leaves either the old or the new state (orphaned region directories of an unfinished
//! create are removed at the next create of the same table).
//!
//! ```
//! use regionkv::{ColumnFamilyDescriptor, TableDescriptor};
//! # let dir = tempfile::tempdir()?;
//! # let options = regionkv::DbOptions::default().background(false);
//! # let db = regionkv::Db::open(dir.path(), options)?;
//! let admin = db.admin();
//! admin.create_namespace("ns")?;
//! let desc = TableDescriptor::new("ns:t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
//! admin.create_table_with_splits(&desc, vec![b"m".to_vec()])?;
//! assert_eq!(admin.regions("ns:t")?.len(), 2);
//! admin.disable_table("ns:t")?;
//! admin.delete_table("ns:t")?;
//! admin.drop_namespace("ns")?;
//! assert!(admin.list_tables()?.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::catalog::TableState;
use crate::db::{Db, RegionServer, canonical_table_name, namespace_of};
use crate::error::{Error, Result};
use crate::region_map::RegionMap;
use crate::snapshot::{SnapshotDescription, SnapshotOptions};
use crate::transition::{
    ChangeNamespace, CreateTable, DeleteTable, ModifyTable, NamespaceChange, RegionTransition,
    SetTableState, TruncateTable,
};
use crate::transition::{CloneSnapshot, RestoreSnapshot};
use regionkv_cell::bytes::to_string_binary;
use regionkv_region::{ColumnFamilyDescriptor, Region, RegionInfo, TableDescriptor};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// The administrative handle of a [`Db`].
///
/// ```
/// use regionkv::{ColumnFamilyDescriptor, TableDescriptor};
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// let admin = db.admin();
/// admin.create_namespace("ns")?;
/// let cf = ColumnFamilyDescriptor::new(b"cf")?;
/// admin.create_table(&TableDescriptor::new("ns:t", vec![cf])?)?;
/// assert_eq!(admin.list_namespace_tables("ns")?, ["ns:t"]);
/// assert!(admin.is_table_enabled("ns:t")?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Admin {
    pub(crate) db: Db,
}

/// One store's status (HBase's store metrics).
///
/// ```
/// use regionkv::Put;
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// table.put(&Put::new("r").add_column("cf", "q", "v"))?;
/// let store = db.admin().regions("t")?[0].stores[0].clone();
/// assert_eq!(store.family, b"cf");
/// assert_eq!(store.store_files, 0);
/// assert!(store.memstore_bytes > 0);
///
/// db.admin().flush("t")?;
/// let store = db.admin().regions("t")?[0].stores[0].clone();
/// assert_eq!((store.store_files, store.memstore_bytes), (1, 0));
/// assert!(store.store_file_bytes > 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreStatus {
    /// Family name.
    pub family: Vec<u8>,
    /// Live storefiles.
    pub store_files: usize,
    /// Their total size in bytes.
    pub store_file_bytes: u64,
    /// Memstore data size in bytes (the cell bytes a flush writes).
    pub memstore_bytes: u64,
    /// Memory the memstore holds in bytes (HBase's `memStoreHeapSize`): arena chunks at
    /// their full length, index entries, own buffers. The Db-wide memstore budget counts
    /// this size.
    pub memstore_heap_bytes: u64,
    /// Flushes that wrote a file for this store (HBase's store `flushCount`): with several
    /// families, how often a small family is flushed along with a large one.
    pub flushes: u64,
    /// The storefiles' size with their data blocks uncompressed (HBase's
    /// `storeUncompressedSize`, from each file's trailer).
    pub store_file_uncompressed_bytes: u64,
    /// The storefiles' root block index bytes (HBase's `rootIndexSize`).
    pub store_file_index_bytes: u64,
    /// The storefiles' bloom filter bytes (HBase's `totalStaticBloomSize`).
    pub bloom_bytes: u64,
    /// Cells written by this store's last compaction (HBase's compaction progress, which
    /// keeps the last compaction's count once it completes); 0 before any.
    pub last_compaction_kvs: u64,
    /// The creation time (ms) of the oldest storefile written by a major compaction, if
    /// any (HBase's `getOldestHfileTs(true)`).
    pub oldest_major_compacted_ts: Option<i64>,
}

/// One region of a table: its identity and key range (HBase's `RegionInfo`), as the
/// catalog lists it ([`Admin::table_regions`], open or not) and as a split or merge made it
/// ([`Admin::split_at`], [`Admin::merge_regions`] ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionDescription {
    /// HBase's region name: `table,startkey,id.encoded.`
    pub name: String,
    /// The encoded name (the region directory).
    pub encoded_name: String,
    /// The region id (HBase: its creation time in ms).
    pub region_id: u64,
    /// First row (inclusive).
    pub start_key: Vec<u8>,
    /// End row (exclusive; empty: the end of the table).
    pub end_key: Vec<u8>,
}

impl RegionDescription {
    /// The description of `info`.
    pub(crate) fn of(info: &RegionInfo) -> Self {
        RegionDescription {
            name: info.region_name(),
            encoded_name: info.encoded_name(),
            region_id: info.region_id,
            start_key: info.start_key.clone(),
            end_key: info.end_key.clone(),
        }
    }
}

/// One region's status (HBase's region metrics, as `status 'detailed'` shows them).
///
/// ```
/// use regionkv::{ColumnFamilyDescriptor, Get, Put, TableDescriptor};
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// let admin = db.admin();
/// let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
/// admin.create_table_with_splits(&desc, vec![b"m".to_vec()])?;
/// let table = db.table("t")?;
/// table.put(&Put::new("x").add_column("cf", "q", "v"))?;
/// table.get(&Get::new("x"))?;
///
/// let regions = admin.regions("t")?;
/// assert_eq!(regions.len(), 2);
/// let (first, second) = (&regions[0], &regions[1]);
/// assert_eq!((first.start_key.as_slice(), first.end_key.as_slice()), (&b""[..], &b"m"[..]));
/// assert_eq!((second.start_key.as_slice(), second.end_key.as_slice()), (&b"m"[..], &b""[..]));
/// assert_eq!(first.write_requests, 0);
/// assert_eq!((second.write_requests, second.read_requests), (1, 1));
/// assert!(second.memstore_bytes > 0 && second.store_files == 0);
/// // The memory held: the cell in the memstore's first (4 KiB) arena chunk, and its index
/// // entry; the other region holds none.
/// assert!(second.memstore_heap_bytes > 4096 && second.memstore_heap_bytes < 8192);
/// assert_eq!(first.memstore_heap_bytes, 0);
/// assert!(second.name.starts_with("t,m,"));
/// assert!(second.name.ends_with(&format!(".{}.", second.encoded_name)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionStatus {
    /// HBase's region name: `table,startkey,id.encoded.`
    pub name: String,
    /// The encoded name (the region directory).
    pub encoded_name: String,
    /// The region id (HBase: its creation time in ms).
    pub region_id: u64,
    /// First row (inclusive).
    pub start_key: Vec<u8>,
    /// End row (exclusive; empty: the end of the table).
    pub end_key: Vec<u8>,
    /// Read requests: one per non-empty result returned, a row or a `batch` piece of one
    /// (HBase 2.x's `readRequestsCount`; a get that finds nothing is not one).
    pub read_requests: u64,
    /// Rows read but not returned: dropped by a filter, or left empty by deletes, TTL or
    /// the columns asked for (HBase's `filteredReadRequestsCount`).
    pub filtered_read_requests: u64,
    /// Mutations applied: one per Put, Delete, Increment or Append, one per mutation of a
    /// RowMutations (HBase's `writeRequestsCount`).
    pub write_requests: u64,
    /// Memstore data size in bytes (the cell bytes a flush writes).
    pub memstore_bytes: u64,
    /// Memory the memstores hold in bytes (see [`StoreStatus::memstore_heap_bytes`]).
    pub memstore_heap_bytes: u64,
    /// Storefiles over all stores.
    pub store_files: usize,
    /// Their total size in bytes.
    pub store_file_bytes: u64,
    /// Their size with data blocks uncompressed, in bytes.
    pub store_file_uncompressed_bytes: u64,
    /// Their root block index bytes.
    pub store_file_index_bytes: u64,
    /// Their bloom filter bytes.
    pub bloom_bytes: u64,
    /// Cells written by the stores' last compactions (HBase's `totalCompactingKVs` and
    /// `currentCompactedKVs`, equal once a compaction completes).
    pub compacted_kvs: u64,
    /// HBase's `lastMajorCompactionTimestamp`: the creation time (ms) of the oldest
    /// storefile a major compaction wrote; 0 when no live file came from one.
    pub last_major_compaction_ts: i64,
    /// Compactions run.
    pub compactions: u64,
    /// Flushes that wrote at least one file.
    pub flushes: u64,
    /// The sequence id of the newest write visible to reads (HBase's MVCC read point,
    /// `HRegion.getReadPoint`). Never goes backwards, across crashes and splits included.
    pub sequence_id: u64,
    /// Every edit at or below this sequence id is in a storefile (HBase's
    /// `completeSequenceId`: the lowest flushed sequence id over the region's stores).
    pub completed_sequence_id: u64,
    /// Per store.
    pub stores: Vec<StoreStatus>,
}

fn region_status(r: &Region) -> RegionStatus {
    let info = r.info();
    let stores: Vec<StoreStatus> = r
        .stores()
        .iter()
        .map(|(f, s)| {
            let files = s.files();
            let trailer_sum = |f: fn(&regionkv_region::store::StoreFileHandle) -> u64| {
                files.iter().map(f).sum::<u64>()
            };
            StoreStatus {
                family: f.clone(),
                store_files: files.len(),
                store_file_bytes: files.iter().map(|h| h.meta.size).sum(),
                memstore_bytes: s.memstore().size().data_size,
                memstore_heap_bytes: s.memstore().size().heap_size,
                flushes: s.metrics().flush_count.load(Ordering::Relaxed),
                // The trailer counts the data blocks uncompressed; the sections after
                // them (index, bloom, file info) are never compressed.
                store_file_uncompressed_bytes: trailer_sum(|h| {
                    let t = h.reader.trailer();
                    t.uncompressed_data_bytes + h.reader.len().saturating_sub(t.data_section_end)
                }),
                store_file_index_bytes: trailer_sum(|h| {
                    u64::from(h.reader.trailer().root_index_size)
                }),
                bloom_bytes: trailer_sum(|h| u64::from(h.reader.trailer().bloom_size)),
                last_compaction_kvs: s.metrics().last_compaction_kvs.load(Ordering::Relaxed),
                oldest_major_compacted_ts: files
                    .iter()
                    .filter(|h| h.reader.file_info().major_compaction)
                    .map(|h| {
                        h.reader
                            .file_info()
                            .extra
                            .get(regionkv_region::store::CREATE_TIME_KEY)
                            .and_then(|v| <[u8; 8]>::try_from(v.as_slice()).ok())
                            .map_or(0, i64::from_be_bytes)
                    })
                    .min(),
            }
        })
        .collect();
    let m = r.metrics();
    RegionStatus {
        name: info.region_name(),
        encoded_name: r.encoded_name().to_string(),
        region_id: info.region_id,
        start_key: info.start_key.clone(),
        end_key: info.end_key.clone(),
        read_requests: m.read_requests.load(Ordering::Relaxed),
        filtered_read_requests: m.filtered_read_requests.load(Ordering::Relaxed),
        write_requests: m.write_requests.load(Ordering::Relaxed),
        memstore_bytes: r.memstore_data_size(),
        memstore_heap_bytes: r.memstore_heap_size(),
        store_files: stores.iter().map(|s| s.store_files).sum(),
        store_file_bytes: stores.iter().map(|s| s.store_file_bytes).sum(),
        store_file_uncompressed_bytes: stores.iter().map(|s| s.store_file_uncompressed_bytes).sum(),
        store_file_index_bytes: stores.iter().map(|s| s.store_file_index_bytes).sum(),
        bloom_bytes: stores.iter().map(|s| s.bloom_bytes).sum(),
        compacted_kvs: stores.iter().map(|s| s.last_compaction_kvs).sum(),
        last_major_compaction_ts: stores
            .iter()
            .filter_map(|s| s.oldest_major_compacted_ts)
            .min()
            .unwrap_or(0),
        compactions: m.compactions.load(Ordering::Relaxed),
        flushes: m.flushes.load(Ordering::Relaxed),
        sequence_id: r.mvcc().read_point(),
        completed_sequence_id: r
            .manifest()
            .stores
            .values()
            .map(|s| s.flushed_seq_id)
            .min()
            .unwrap_or(0),
        stores,
    }
}

/// A table-wide flush or compaction passes over a region that a concurrent split or
/// merge closed meanwhile, as HBase's flush and compaction of a table skip regions in
/// transition: its close flushed everything, and its children compact their references
/// on their own. Other errors stand.
fn skip_closed<T>(r: regionkv_region::Result<T>) -> Result<()> {
    match r {
        Ok(_) | Err(regionkv_region::Error::Closed(_)) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// After a user-triggered flush of `region`: as HBase's `RSRpcServices#flushRegion`, a
/// flush that left a store with enough files asks for a system compaction ("Compaction
/// through user triggered flush"), which runs in the background like any other. A region
/// closed meanwhile is skipped, as [`skip_closed`].
fn compact_if_needed(
    region: &Arc<regionkv_region::Region>,
    flushed: regionkv_region::Result<regionkv_region::FlushResult>,
) -> Result<()> {
    match flushed {
        Ok(r) => {
            if r.compaction_needed {
                region.request_compaction();
            }
            Ok(())
        }
        Err(regionkv_region::Error::Closed(_)) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// The most regions a table can be created with (pre-split keys + 1, or NUMREGIONS).
/// HBase has no such cap — a create of a million regions there fails slowly, out of
/// memory or time on its master; regionkv, which opens every region in one process with a
/// directory, a manifest and a memstore each, refuses at once instead. Splits may grow a
/// table past it later.
///
/// ```
/// use regionkv::admin::MAX_REGIONS_AT_CREATE;
/// use regionkv::{ColumnFamilyDescriptor, Error, TableDescriptor};
/// use regionkv::split::SplitAlgorithm;
/// # let dir = tempfile::tempdir()?;
/// # let db = regionkv::Db::open(dir.path(), regionkv::DbOptions::default().background(false))?;
/// let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
/// let too_many = db.admin().create_table_with_algorithm(
///     &desc,
///     &SplitAlgorithm::hex_string(),
///     MAX_REGIONS_AT_CREATE + 1,
/// );
/// assert!(matches!(too_many, Err(Error::InvalidArgument(m)) if m.contains("10000")));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const MAX_REGIONS_AT_CREATE: usize = 10_000;

/// The error for a create of `regions` regions, past [`MAX_REGIONS_AT_CREATE`].
pub fn check_region_count(regions: usize) -> Result<()> {
    if regions > MAX_REGIONS_AT_CREATE {
        return Err(Error::InvalidArgument(format!(
            "Number of regions {regions} is more than regionkv creates a table with \
             ({MAX_REGIONS_AT_CREATE}); create fewer and let the table split"
        )));
    }
    Ok(())
}

/// Checks split keys as HBase's `createTable` does and returns them sorted.
fn check_split_keys(mut keys: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>> {
    check_region_count(keys.len().saturating_add(1))?;
    if keys.iter().any(Vec::is_empty) {
        return Err(Error::InvalidArgument(
            "Empty split key must not be passed in the split keys.".to_string(),
        ));
    }
    keys.sort();
    for w in keys.windows(2) {
        if w[0] == w[1] {
            return Err(Error::InvalidArgument(format!(
                "All split keys must be unique, found duplicate: {}, {}",
                to_string_binary(&w[0]),
                to_string_binary(&w[1])
            )));
        }
    }
    for k in &keys {
        regionkv_cell::limits::check_row(k)?;
    }
    Ok(keys)
}

impl Admin {
    fn inner(&self) -> &RegionServer {
        &self.db.inner
    }

    // ---- namespaces -------------------------------------------------------------------

    /// HBase's `createNamespace`.
    ///
    /// ```
    /// use regionkv::Error;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// admin.create_namespace("ns")?;
    /// assert!(admin.list_namespaces()?.contains(&"ns".to_string()));
    /// assert!(matches!(admin.create_namespace("ns"), Err(Error::NamespaceExists(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_namespace(&self, name: &str) -> Result<()> {
        self.create_namespace_with_properties(name, BTreeMap::new())
    }

    /// HBase's `createNamespace` of a descriptor with properties (its configuration, e.g.
    /// `hbase.namespace.quota.maxtables`). regionkv stores them with the namespace and
    /// returns them from [`Self::namespace_properties`]; it acts on none of them.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// let props = [("owner".to_string(), "ops".to_string())].into();
    /// admin.create_namespace_with_properties("ns", props)?;
    /// assert_eq!(admin.namespace_properties("ns")?["owner"], "ops");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_namespace_with_properties(
        &self,
        name: &str,
        properties: BTreeMap<String, String>,
    ) -> Result<()> {
        self.inner()
            .ensure_writable("create_namespace_with_properties")?;
        self.inner().check_open()?;
        regionkv_cell::limits::check_namespace_name(name)?;
        let mut cat = self.inner().catalog.lock();
        if cat.namespaces.contains(name) {
            return Err(Error::NamespaceExists(name.to_string()));
        }
        let mut create = ChangeNamespace {
            name: name.to_string(),
            change: NamespaceChange::Create(properties),
        };
        crate::transition::execute(self.inner(), &mut cat, &mut create)
    }

    /// HBase's `deleteNamespace`: only an empty, non-reserved namespace.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Error, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// admin.create_namespace("ns")?;
    /// let cf = ColumnFamilyDescriptor::new(b"cf")?;
    /// admin.create_table(&TableDescriptor::new("ns:t", vec![cf])?)?;
    /// // Not while it holds a table, and never a reserved one.
    /// assert!(matches!(admin.drop_namespace("ns"), Err(Error::NamespaceConstraint(..))));
    /// assert!(matches!(admin.drop_namespace("hbase"), Err(Error::NamespaceConstraint(..))));
    /// admin.disable_table("ns:t")?;
    /// admin.delete_table("ns:t")?;
    /// admin.drop_namespace("ns")?;
    /// assert_eq!(admin.list_namespaces()?, ["default", "hbase"]);
    /// assert!(matches!(admin.drop_namespace("ns"), Err(Error::NamespaceNotFound(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn drop_namespace(&self, name: &str) -> Result<()> {
        self.inner().ensure_writable("drop_namespace")?;
        self.inner().check_open()?;
        let mut cat = self.inner().catalog.lock();
        if name == "default" || name == "hbase" {
            return Err(Error::NamespaceConstraint(
                name.to_string(),
                "Reserved namespace cannot be removed.".to_string(),
            ));
        }
        if !cat.namespaces.contains(name) {
            return Err(Error::NamespaceNotFound(name.to_string()));
        }
        let n = cat
            .tables
            .keys()
            .filter(|t| namespace_of(t) == name)
            .count();
        if n > 0 {
            return Err(Error::NamespaceConstraint(
                name.to_string(),
                format!("Only empty namespaces can be removed. Namespace {name} has {n} tables"),
            ));
        }
        let mut drop = ChangeNamespace {
            name: name.to_string(),
            change: NamespaceChange::Drop,
        };
        crate::transition::execute(self.inner(), &mut cat, &mut drop)
    }

    /// The properties of namespace `name` (empty when it has none), sorted by key as
    /// HBase's `NamespaceDescriptor` keeps them.
    ///
    /// ```
    /// use regionkv::Error;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// assert!(admin.namespace_properties("default")?.is_empty());
    /// assert!(matches!(admin.namespace_properties("nope"), Err(Error::NamespaceNotFound(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn namespace_properties(&self, name: &str) -> Result<BTreeMap<String, String>> {
        self.inner().check_open()?;
        let cat = self.inner().catalog.lock();
        if !cat.namespaces.contains(name) {
            return Err(Error::NamespaceNotFound(name.to_string()));
        }
        Ok(cat
            .namespace_properties
            .get(name)
            .cloned()
            .unwrap_or_default())
    }

    /// HBase's `modifyNamespace`: replaces the properties of namespace `name`.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// admin.create_namespace("ns")?;
    /// let mut props = admin.namespace_properties("ns")?;
    /// props.insert("owner".to_string(), "ops".to_string());
    /// admin.modify_namespace("ns", props)?;
    /// assert_eq!(admin.namespace_properties("ns")?.len(), 1);
    /// admin.modify_namespace("ns", Default::default())?;
    /// assert!(admin.namespace_properties("ns")?.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn modify_namespace(&self, name: &str, properties: BTreeMap<String, String>) -> Result<()> {
        self.inner().ensure_writable("modify_namespace")?;
        self.inner().check_open()?;
        let mut cat = self.inner().catalog.lock();
        if !cat.namespaces.contains(name) {
            return Err(Error::NamespaceNotFound(name.to_string()));
        }
        let mut modify = ChangeNamespace {
            name: name.to_string(),
            change: NamespaceChange::Modify(properties),
        };
        if modify.next_catalog(&cat) == *cat {
            return Ok(());
        }
        crate::transition::execute(self.inner(), &mut cat, &mut modify)
    }

    /// Every namespace, sorted.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// assert_eq!(admin.list_namespaces()?, ["default", "hbase"]);
    /// admin.create_namespace("app")?;
    /// assert_eq!(admin.list_namespaces()?, ["app", "default", "hbase"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn list_namespaces(&self) -> Result<Vec<String>> {
        self.inner().check_open()?;
        Ok(self
            .inner()
            .catalog
            .lock()
            .namespaces
            .iter()
            .cloned()
            .collect())
    }

    /// The tables of namespace `ns`.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Error, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// admin.create_namespace("ns")?;
    /// for name in ["ns:a", "b"] {
    ///     let cf = ColumnFamilyDescriptor::new(b"cf")?;
    ///     admin.create_table(&TableDescriptor::new(name, vec![cf])?)?;
    /// }
    /// assert_eq!(admin.list_namespace_tables("ns")?, ["ns:a"]);
    /// assert_eq!(admin.list_namespace_tables("default")?, ["b"]);
    /// assert!(matches!(admin.list_namespace_tables("nope"), Err(Error::NamespaceNotFound(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn list_namespace_tables(&self, ns: &str) -> Result<Vec<String>> {
        self.inner().check_open()?;
        let cat = self.inner().catalog.lock();
        if !cat.namespaces.contains(ns) {
            return Err(Error::NamespaceNotFound(ns.to_string()));
        }
        Ok(cat
            .tables
            .keys()
            .filter(|t| namespace_of(t) == ns)
            .cloned()
            .collect())
    }

    // ---- tables -----------------------------------------------------------------------

    /// HBase's `createTable(desc)`: one region.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Error, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// admin.create_table(&desc)?;
    /// assert_eq!(admin.regions("t")?.len(), 1);
    /// assert!(matches!(admin.create_table(&desc), Err(Error::TableExists(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_table(&self, desc: &TableDescriptor) -> Result<()> {
        self.create_table_with_splits(desc, Vec::new())
    }

    /// HBase's `createTable(desc, splitKeys)`: regions `[, k1) [k1, k2) … [kn, )`.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Error, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// // Keys may come in any order; they must be unique and not empty.
    /// let dup = vec![b"m".to_vec(), b"m".to_vec()];
    /// let created = admin.create_table_with_splits(&desc, dup);
    /// assert!(matches!(created, Err(Error::InvalidArgument(_))));
    /// admin.create_table_with_splits(&desc, vec![b"t".to_vec(), b"g".to_vec()])?;
    /// assert_eq!(admin.splits("t")?, [b"g".to_vec(), b"t".to_vec()]);
    /// assert_eq!(admin.regions("t")?.len(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_table_with_splits(
        &self,
        desc: &TableDescriptor,
        split_keys: Vec<Vec<u8>>,
    ) -> Result<()> {
        self.inner().ensure_writable("create_table_with_splits")?;
        let inner = self.inner();
        inner.check_open()?;
        let mut desc = desc.clone();
        desc.name = canonical_table_name(&desc.name)?;
        desc.validate()?;
        desc.check_hbase_limits()?;
        let registry = &inner.coprocessors;
        desc.check_coprocessors(&|class| registry.is_loadable(class))?;
        if let Some(class) = crate::constraint::unknown_classes(&desc, registry).first() {
            return Err(Error::InvalidArgument(format!(
                "constraint class {class} is neither shipped nor registered"
            )));
        }
        let keys = check_split_keys(split_keys)?;
        let span =
            tracing::info_span!("create_table", table = %desc.name, regions = keys.len() + 1);
        let _enter = span.enter();
        let mut cat = inner.catalog.lock();
        let mut create = CreateTable::prepare(inner, &cat, desc, &keys)?;
        crate::transition::execute(inner, &mut cat, &mut create)
    }

    /// HBase's `createTable` with a RegionSplitter algorithm (the shell's `NUMREGIONS => n,
    /// SPLITALGO => 'HexStringSplit'`): the algorithm's `n − 1` split keys.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, TableDescriptor};
    /// use regionkv::split::SplitAlgorithm;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// admin.create_table_with_algorithm(&desc, &SplitAlgorithm::hex_string(), 4)?;
    /// let splits = admin.splits("t")?;
    /// assert_eq!(splits, [b"40000000".to_vec(), b"80000000".to_vec(), b"c0000000".to_vec()]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_table_with_algorithm(
        &self,
        desc: &TableDescriptor,
        algorithm: &crate::split::SplitAlgorithm,
        num_regions: usize,
    ) -> Result<()> {
        self.inner()
            .ensure_writable("create_table_with_algorithm")?;
        check_region_count(num_regions)?;
        let keys = algorithm
            .split(num_regions)
            .map_err(regionkv_region::Error::from)?;
        self.create_table_with_splits(desc, keys)
    }

    /// HBase's `createTable(desc, startKey, endKey, numRegions)`: split keys from
    /// `Bytes.split` arithmetic between the two keys.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// // Three regions: before "a", from "a" to "z", from "z" on.
    /// admin.create_table_with_range(&desc, b"a", b"z", 3)?;
    /// assert_eq!(admin.splits("t")?, [b"a".to_vec(), b"z".to_vec()]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_table_with_range(
        &self,
        desc: &TableDescriptor,
        start_key: &[u8],
        end_key: &[u8],
        num_regions: usize,
    ) -> Result<()> {
        self.inner().ensure_writable("create_table_with_range")?;
        check_region_count(num_regions)?;
        let keys = regionkv_region::split::split_keys_for_range(start_key, end_key, num_regions)
            .map_err(regionkv_region::Error::from)?;
        self.create_table_with_splits(desc, keys)
    }

    /// The table's descriptor (HBase's `getDescriptor`).
    ///
    /// ```
    /// use regionkv::Error;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let desc = db.admin().describe("t")?;
    /// assert_eq!(desc.name, "t");
    /// assert_eq!(desc.families[0].name, b"cf");
    /// assert!(matches!(db.admin().describe("nope"), Err(Error::TableNotFound(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn describe(&self, name: &str) -> Result<TableDescriptor> {
        Ok((**self.inner().table(name)?.descriptor.load()).clone())
    }

    /// The coprocessors the enabled tables' regions load, by simple class name, sorted and
    /// each once (HBase's `ServerMetrics#getCoprocessorNames`, which `status 'detailed'`
    /// prints): each `coprocessor$N` spec whose class regionkv ships or the program
    /// registered.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let mut desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// assert!(db.admin().coprocessor_names()?.is_empty());
    /// desc.add_coprocessor("|org.apache.hadoop.hbase.coprocessor.AggregateImplementation||")?;
    /// db.admin().create_table(&desc)?;
    /// assert_eq!(db.admin().coprocessor_names()?, ["AggregateImplementation"]);
    /// db.admin().disable_table("t")?;
    /// assert!(db.admin().coprocessor_names()?.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn coprocessor_names(&self) -> Result<Vec<String>> {
        let mut names = std::collections::BTreeSet::new();
        for table in self.list_tables()? {
            if !self.is_table_enabled(&table)? {
                continue;
            }
            for (_, spec) in self.describe(&table)?.coprocessors() {
                if self.inner().coprocessors.is_loadable(&spec.class_name) {
                    let simple = spec.class_name.rsplit('.').next().unwrap_or_default();
                    names.insert(simple.to_string());
                }
            }
        }
        Ok(names.into_iter().collect())
    }

    /// Every table name, sorted.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// admin.create_namespace("ns")?;
    /// for name in ["ns:b", "a", "default:c"] {
    ///     let cf = ColumnFamilyDescriptor::new(b"cf")?;
    ///     admin.create_table(&TableDescriptor::new(name, vec![cf])?)?;
    /// }
    /// assert_eq!(admin.list_tables()?, ["a", "c", "ns:b"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn list_tables(&self) -> Result<Vec<String>> {
        self.inner().check_open()?;
        Ok(self.inner().tables.read().keys().cloned().collect())
    }

    /// Whether the table exists.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// assert!(db.admin().table_exists("t")?);
    /// assert!(db.admin().table_exists("default:t")?);
    /// assert!(!db.admin().table_exists("nope")?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn table_exists(&self, name: &str) -> Result<bool> {
        match self.inner().table(name) {
            Ok(_) => Ok(true),
            Err(Error::TableNotFound(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Whether the table is enabled.
    ///
    /// ```
    /// use regionkv::Error;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let admin = db.admin();
    /// assert!(admin.is_table_enabled("t")?);
    /// admin.disable_table("t")?;
    /// assert!(!admin.is_table_enabled("t")?);
    /// assert!(matches!(admin.is_table_enabled("nope"), Err(Error::TableNotFound(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_table_enabled(&self, name: &str) -> Result<bool> {
        Ok(self.inner().table(name)?.regions.read().is_some())
    }

    /// Whether the table is disabled.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let admin = db.admin();
    /// assert!(!admin.is_table_disabled("t")?);
    /// admin.disable_table("t")?;
    /// assert!(admin.is_table_disabled("t")?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_table_disabled(&self, name: &str) -> Result<bool> {
        Ok(!self.is_table_enabled(name)?)
    }

    /// HBase's `modifyTable`: replaces the descriptor (families added, changed or
    /// removed; options changed) without losing data. An enabled table's regions are
    /// flushed, closed and reopened with the new descriptor; a removed family's files
    /// are deleted.
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let admin = db.admin();
    /// table.put(&Put::new("r").add_column("cf", "q", "v"))?;
    /// let mut desc = admin.describe("t")?;
    /// desc.families[0].max_versions = 3;
    /// desc.memstore_flush_size = 64 << 20;
    /// admin.modify_table(&desc)?;
    /// let now = admin.describe("t")?;
    /// assert_eq!((now.families[0].max_versions, now.memstore_flush_size), (3, 64 << 20));
    /// // The data is still there.
    /// assert_eq!(table.get(&Get::new("r"))?.value(b"cf", b"q"), Some(&b"v"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn modify_table(&self, desc: &TableDescriptor) -> Result<()> {
        self.inner().ensure_writable("modify_table")?;
        let inner = self.inner();
        let handle = inner.table(&desc.name)?;
        let mut desc = desc.clone();
        desc.name = handle.name.clone();
        desc.validate()?;
        desc.check_hbase_limits()?;
        let registry = &inner.coprocessors;
        desc.check_coprocessors(&|class| registry.is_loadable(class))?;
        if let Some(class) = crate::constraint::unknown_classes(&desc, registry).first() {
            return Err(Error::InvalidArgument(format!(
                "constraint class {class} is neither shipped nor registered"
            )));
        }
        let span = tracing::info_span!("alter", table = %desc.name);
        let _enter = span.enter();
        let mut cat = inner.catalog.lock();
        let mut alter = ModifyTable::prepare(&cat, &handle, desc)?;
        crate::transition::execute(inner, &mut cat, &mut alter)
    }

    /// Adds a family (HBase's `addColumnFamily`).
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Error, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let admin = db.admin();
    /// admin.add_family("t", ColumnFamilyDescriptor::new(b"extra")?)?;
    /// let names: Vec<_> = admin.describe("t")?.families.iter().map(|f| f.name.clone()).collect();
    /// assert_eq!(names, [b"cf".to_vec(), b"extra".to_vec()]);
    /// table.put(&Put::new("r").add_column("extra", "q", "v"))?;
    /// assert!(table.exists(&Get::new("r"))?);
    /// let again = admin.add_family("t", ColumnFamilyDescriptor::new(b"extra")?);
    /// assert!(matches!(again, Err(Error::InvalidArgument(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_family(&self, table: &str, family: ColumnFamilyDescriptor) -> Result<()> {
        self.inner().ensure_writable("add_family")?;
        let mut desc = self.describe(table)?;
        if desc.family(&family.name).is_some() {
            return Err(Error::InvalidArgument(format!(
                "Column family {} already exists in table {}",
                to_string_binary(&family.name),
                desc.name
            )));
        }
        desc.families.push(family);
        desc.families.sort_by(|a, b| a.name.cmp(&b.name));
        self.modify_table(&desc)
    }

    /// Replaces a family's options (HBase's `modifyColumnFamily`).
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Error};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let admin = db.admin();
    /// let mut cf = ColumnFamilyDescriptor::new(b"cf")?;
    /// cf.set_attribute("VERSIONS", "5")?;
    /// admin.modify_family("t", cf)?;
    /// assert_eq!(admin.describe("t")?.families[0].max_versions, 5);
    /// let unknown = admin.modify_family("t", ColumnFamilyDescriptor::new(b"nope")?);
    /// assert!(matches!(unknown, Err(Error::InvalidArgument(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn modify_family(&self, table: &str, family: ColumnFamilyDescriptor) -> Result<()> {
        self.inner().ensure_writable("modify_family")?;
        let mut desc = self.describe(table)?;
        let slot = desc
            .families
            .iter_mut()
            .find(|f| f.name == family.name)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "Column family {} does not exist in table {}",
                    to_string_binary(&family.name),
                    table
                ))
            })?;
        *slot = family;
        self.modify_table(&desc)
    }

    /// Removes a family and its data (HBase's `deleteColumnFamily`).
    ///
    /// ```
    /// use regionkv::{Error, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # let cg = regionkv::ColumnFamilyDescriptor::new(b"cg")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf, cg])?)?;
    /// # let table = db.table("t")?;
    /// let admin = db.admin();
    /// table.put(&Put::new("r").add_column("cf", "q", "1").add_column("cg", "q", "2"))?;
    /// admin.delete_family("t", b"cg")?;
    /// assert_eq!(admin.describe("t")?.families.len(), 1);
    /// assert_eq!(table.get(&Get::new("r"))?.len(), 1); // cg's data went with it
    /// // A table keeps at least one family.
    /// assert!(matches!(admin.delete_family("t", b"cf"), Err(Error::InvalidArgument(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn delete_family(&self, table: &str, family: &[u8]) -> Result<()> {
        self.inner().ensure_writable("delete_family")?;
        let mut desc = self.describe(table)?;
        let before = desc.families.len();
        desc.families.retain(|f| f.name != family);
        if desc.families.len() == before {
            return Err(Error::InvalidArgument(format!(
                "Family '{}' does not exist, so it cannot be deleted",
                to_string_binary(family)
            )));
        }
        if desc.families.is_empty() {
            return Err(Error::InvalidArgument(
                "Family cannot be deleted: the table would have no column family".to_string(),
            ));
        }
        self.modify_table(&desc)
    }

    fn set_state(&self, name: &str, state: TableState) -> Result<()> {
        let inner = self.inner();
        let handle = inner.table(name)?;
        let mut cat = inner.catalog.lock();
        let mut change = SetTableState::prepare(&cat, &handle, state)?;
        let span =
            tracing::info_span!("set_state", transition = change.name(), table = %handle.name);
        let _enter = span.enter();
        crate::transition::execute(inner, &mut cat, &mut change)
    }

    /// HBase's `disableTable`: flushes and closes the regions; the data stays.
    ///
    /// ```
    /// use regionkv::{Error, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let admin = db.admin();
    /// table.put(&Put::new("r").add_column("cf", "q", "v"))?;
    /// admin.disable_table("t")?;
    /// assert!(matches!(table.get(&Get::new("r")), Err(Error::TableNotEnabled(_))));
    /// assert!(matches!(admin.disable_table("t"), Err(Error::TableNotEnabled(_))));
    /// assert_eq!(admin.list_tables()?, ["t"]); // still there
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn disable_table(&self, name: &str) -> Result<()> {
        self.inner().ensure_writable("disable_table")?;
        self.set_state(name, TableState::Disabled)
    }

    /// HBase's `enableTable`.
    ///
    /// ```
    /// use regionkv::{Error, Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let admin = db.admin();
    /// table.put(&Put::new("r").add_column("cf", "q", "v"))?;
    /// admin.disable_table("t")?;
    /// admin.enable_table("t")?;
    /// assert_eq!(table.get(&Get::new("r"))?.value(b"cf", b"q"), Some(&b"v"[..]));
    /// assert!(matches!(admin.enable_table("t"), Err(Error::TableNotDisabled(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn enable_table(&self, name: &str) -> Result<()> {
        self.inner().ensure_writable("enable_table")?;
        self.set_state(name, TableState::Enabled)
    }

    /// HBase's `truncateTable`: the table must be disabled; all data goes, the table comes
    /// back enabled — with its region boundaries when `preserve_splits`, else as one
    /// region.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Error, Put, Scan, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// admin.create_table_with_splits(&desc, vec![b"m".to_vec()])?;
    /// let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "q", "v"))?;
    /// assert!(matches!(admin.truncate_table("t", true), Err(Error::TableNotDisabled(_))));
    /// admin.disable_table("t")?;
    /// admin.truncate_table("t", true)?;
    /// assert!(admin.is_table_enabled("t")?);
    /// assert_eq!(table.scan(&Scan::new())?.count(), 0);
    /// assert_eq!(admin.splits("t")?, [b"m".to_vec()]); // preserved
    /// admin.disable_table("t")?;
    /// admin.truncate_table("t", false)?;
    /// assert!(admin.splits("t")?.is_empty()); // one region again
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn truncate_table(&self, name: &str, preserve_splits: bool) -> Result<()> {
        self.inner().ensure_writable("truncate_table")?;
        let inner = self.inner();
        let handle = inner.table(name)?;
        let span = tracing::info_span!("truncate", table = %handle.name, preserve_splits);
        let _enter = span.enter();
        let mut cat = inner.catalog.lock();
        let mut truncate = TruncateTable::prepare(inner, &cat, &handle, preserve_splits)?;
        crate::transition::execute(inner, &mut cat, &mut truncate)
    }

    /// HBase's `deleteTable`: the table must be disabled; its data is removed.
    ///
    /// ```
    /// use regionkv::Error;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let admin = db.admin();
    /// assert!(matches!(admin.delete_table("t"), Err(Error::TableNotDisabled(_))));
    /// admin.disable_table("t")?;
    /// admin.delete_table("t")?;
    /// assert!(!admin.table_exists("t")?);
    /// assert!(matches!(admin.delete_table("t"), Err(Error::TableNotFound(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn delete_table(&self, name: &str) -> Result<()> {
        self.inner().ensure_writable("delete_table")?;
        let inner = self.inner();
        let handle = inner.table(name)?;
        let span = tracing::info_span!("drop", table = %handle.name);
        let _enter = span.enter();
        let mut cat = inner.catalog.lock();
        let mut delete = DeleteTable::prepare(inner, &handle)?;
        crate::transition::execute(inner, &mut cat, &mut delete)
    }

    // ---- snapshots (docs/snapshots.md) ---------------------------------------------------

    /// HBase's `snapshot`: a snapshot `name` of `table`, flushed first (an enabled table)
    /// or of its closed regions (a disabled one). SnapshotExists when the name is taken;
    /// the name must be a legal table qualifier.
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let admin = db.admin();
    /// table.put(&Put::new("r").add_column("cf", "q", "v1"))?;
    /// admin.snapshot("before", "t")?;
    /// table.put(&Put::new("r").add_column("cf", "q", "v2"))?;
    /// admin.clone_snapshot("before", "t_then")?;
    /// let then = db.table("t_then")?.get(&Get::new("r"))?;
    /// assert_eq!(then.value(b"cf", b"q"), Some(&b"v1"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn snapshot(&self, name: &str, table: &str) -> Result<SnapshotDescription> {
        self.snapshot_with(name, table, &SnapshotOptions::default())
    }

    /// [`Admin::snapshot`] with HBase's options: `SKIP_FLUSH` (edits still in the memstores
    /// are left out) and `TTL` (seconds; listed as expired after it, and then refused by
    /// clone and restore).
    pub fn snapshot_with(
        &self,
        name: &str,
        table: &str,
        options: &SnapshotOptions,
    ) -> Result<SnapshotDescription> {
        let inner = self.inner();
        inner.check_open()?;
        inner.ensure_writable("snapshot")?;
        let span = tracing::info_span!("snapshot", snapshot = name, table);
        let _enter = span.enter();
        let cat = inner.catalog.lock();
        inner.take_snapshot(&cat, name, table, options)
    }

    /// HBase's `listSnapshots`: every snapshot, by name.
    pub fn list_snapshots(&self) -> Result<Vec<SnapshotDescription>> {
        let inner = self.inner();
        inner.check_open()?;
        crate::snapshot::list(inner.fs.as_ref(), &inner.dir)
    }

    /// HBase's `cloneSnapshot`: a new table `table` with the snapshot's descriptor, region
    /// boundaries and data, sharing the snapshot's files (nothing is copied). TableExists
    /// when `table` exists.
    pub fn clone_snapshot(&self, name: &str, table: &str) -> Result<()> {
        let inner = self.inner();
        inner.check_open()?;
        inner.ensure_writable("clone_snapshot")?;
        let table = canonical_table_name(table)?;
        let span = tracing::info_span!("clone_snapshot", snapshot = name, %table);
        let _enter = span.enter();
        let mut cat = inner.catalog.lock();
        let (description, manifest) = self.readable_snapshot(name)?;
        let mut clone = CloneSnapshot::prepare(inner, &cat, &description, &manifest, &table)?;
        crate::transition::execute(inner, &mut cat, &mut clone)
    }

    /// HBase's `restoreSnapshot`: the snapshot's table, which must be disabled, gets the
    /// snapshot's descriptor, regions and data back, and stays disabled. A table that no
    /// longer exists is cloned from the snapshot instead (HBase's
    /// `restoreOrCloneSnapshot`).
    pub fn restore_snapshot(&self, name: &str) -> Result<()> {
        let inner = self.inner();
        inner.check_open()?;
        inner.ensure_writable("restore_snapshot")?;
        let span = tracing::info_span!("restore_snapshot", snapshot = name);
        let _enter = span.enter();
        let mut cat = inner.catalog.lock();
        let (description, manifest) = self.readable_snapshot(name)?;
        if !cat.tables.contains_key(&description.table) {
            let mut clone =
                CloneSnapshot::prepare(inner, &cat, &description, &manifest, &description.table)?;
            return crate::transition::execute(inner, &mut cat, &mut clone);
        }
        let handle = inner.table(&description.table)?;
        let mut restore = RestoreSnapshot::prepare(inner, &cat, &handle, &description, &manifest)?;
        crate::transition::execute(inner, &mut cat, &mut restore)
    }

    /// HBase's `deleteSnapshot`: the snapshot's links go; files no table uses any more go
    /// with them. SnapshotDoesNotExist when there is none of that name.
    pub fn delete_snapshot(&self, name: &str) -> Result<()> {
        let inner = self.inner();
        inner.check_open()?;
        inner.ensure_writable("delete_snapshot")?;
        let cat = inner.catalog.lock();
        inner.delete_snapshot(&cat, name)
    }

    /// A snapshot to clone or restore from: whole, and not expired (HBase's
    /// SnapshotTTLExpiredException).
    fn readable_snapshot(
        &self,
        name: &str,
    ) -> Result<(SnapshotDescription, crate::snapshot::SnapshotManifest)> {
        let inner = self.inner();
        let (description, manifest) =
            crate::snapshot::read_snapshot(inner.fs.as_ref(), &inner.dir, name)?;
        if description.is_expired(inner.services.clock.now_millis()) {
            return Err(Error::SnapshotTtlExpired(name.to_string()));
        }
        Ok((description, manifest))
    }

    // ---- flush, compaction, status ----------------------------------------------------

    fn regions_of(&self, name: &str) -> Result<Arc<RegionMap>> {
        self.inner().table(name)?.region_map()
    }

    /// Flushes every region of the table (HBase's `flush`). A region whose flush left a
    /// store with `hbase.hstore.compaction.min` files asks for a system compaction, which
    /// the background pool runs after this returns (HBase's `RSRpcServices#flushRegion`).
    ///
    /// ```
    /// use regionkv::Put;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let admin = db.admin();
    /// table.put(&Put::new("r").add_column("cf", "q", "v"))?;
    /// assert_eq!(admin.regions("t")?[0].store_files, 0);
    /// admin.flush("t")?;
    /// let region = &admin.regions("t")?[0];
    /// assert_eq!((region.store_files, region.memstore_bytes), (1, 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn flush(&self, name: &str) -> Result<()> {
        self.inner().ensure_writable("flush")?;
        for r in self.regions_of(name)?.regions() {
            compact_if_needed(r, r.flush_all())?;
        }
        self.inner().splitter.run_pending();
        Ok(())
    }

    /// HBase's `Admin.rollWALWriter` (shell `wal_roll`): starts a new write-ahead log file
    /// now. The old log is closed, and every log whose edits are all in storefiles is
    /// deleted — after a flush of everything, that is every log but the new, empty one.
    /// (The log also rolls on its own when it reaches `WalConfig::roll_size`, 128 MiB.)
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Put, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let db = regionkv::Db::open(dir.path(), regionkv::DbOptions::default().background(false))?;
    /// let admin = db.admin();
    /// admin.create_table(&TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?)?;
    /// let table = db.table("t")?;
    /// table.put(&Put::new("r").add_column("cf", "q", [b'v'; 1000]))?;
    /// admin.flush("t")?;
    /// let wal_bytes = || -> std::io::Result<u64> {
    ///     let mut n = 0;
    ///     for f in std::fs::read_dir(dir.path().join("wal"))? {
    ///         n += f?.metadata()?.len();
    ///     }
    ///     Ok(n)
    /// };
    /// assert!(wal_bytes()? > 1000); // the flushed edit is still in the current log
    /// admin.roll_wal_writer()?;
    /// assert!(wal_bytes()? < 100); // only the new log's header is left
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn roll_wal_writer(&self) -> Result<()> {
        self.inner().ensure_writable("roll_wal_writer")?;
        let Some(wal) = &self.inner().services.wal else {
            return Err(Error::ReadOnly("roll_wal_writer".into()));
        };
        wal.roll()
            .map_err(|e| Error::from(regionkv_region::Error::Wal(e)))
    }

    /// A user compaction of every region, through HBase's selection policy (a store
    /// with fewer than `hbase.hstore.compaction.min` files is left alone). Runs now and
    /// returns when done.
    ///
    /// ```
    /// use regionkv::Put;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let admin = db.admin();
    /// let files = || -> regionkv::Result<usize> { Ok(admin.regions("t")?[0].store_files) };
    /// for i in 0..2 {
    ///     table.put(&Put::new(format!("r{i}")).add_column("cf", "q", "v"))?;
    ///     admin.flush("t")?;
    /// }
    /// admin.compact("t")?;
    /// assert_eq!(files()?, 2); // fewer than hbase.hstore.compaction.min (3): left alone
    /// table.put(&Put::new("r2").add_column("cf", "q", "v"))?;
    /// admin.flush("t")?;
    /// admin.compact("t")?;
    /// assert_eq!(files()?, 1);
    /// assert_eq!(admin.regions("t")?[0].compactions, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn compact(&self, name: &str) -> Result<()> {
        self.inner().ensure_writable("compact")?;
        for r in self.regions_of(name)?.regions() {
            skip_closed(r.compact(false))?;
        }
        self.inner().splitter.run_pending();
        Ok(())
    }

    /// A major compaction of every store of every region: delete markers and what they
    /// mask, expired cells and excess versions are dropped (KEEP_DELETED_CELLS aside).
    ///
    /// ```
    /// use regionkv::{Delete, Put, Scan};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let admin = db.admin();
    /// table.put(&Put::new("r").add_column("cf", "q", "v"))?;
    /// admin.flush("t")?;
    /// table.delete(&Delete::new("r"))?;
    /// admin.flush("t")?;
    /// // A raw scan still sees the put and the delete marker...
    /// let raw = table.scan(&Scan::new().raw(true))?.next().transpose()?;
    /// assert_eq!(raw.map(|r| r.len()), Some(2));
    /// // ...which a major compaction drops, with the cell it masks.
    /// admin.major_compact("t")?;
    /// assert_eq!(table.scan(&Scan::new().raw(true))?.count(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn major_compact(&self, name: &str) -> Result<()> {
        self.inner().ensure_writable("major_compact")?;
        for r in self.regions_of(name)?.regions() {
            skip_closed(r.compact(true))?;
        }
        self.inner().splitter.run_pending();
        Ok(())
    }

    /// HBase's `Admin.split(TableName)` (shell `split 'table'`): asks every region of the
    /// table to split at its split point (the mid-key of its largest store's largest file,
    /// cut by a key-prefix policy; a region whose data is all in the memstore is flushed
    /// first, as HBase's region server does). Like HBase, every region is tried and the
    /// call fails with the first refusal (e.g. a region too small to have a split point,
    /// or still holding references); the splits that succeeded stay. Synchronous: returns
    /// the daughters made.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Put, Scan, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// let mut cf = ColumnFamilyDescriptor::new(b"cf")?;
    /// cf.block_size = 1024; // small blocks, so a few rows make a file with a mid-key
    /// admin.create_table(&TableDescriptor::new("t", vec![cf])?)?;
    /// let table = db.table("t")?;
    /// let value = [b'v'; 200];
    /// for i in 0..20 {
    ///     table.put(&Put::new(format!("row{i:02}")).add_column("cf", "q", value))?;
    /// }
    /// let daughters = admin.split("t")?; // the memstore is flushed first
    /// assert_eq!(daughters.len(), 2);
    /// assert_eq!(daughters[0].end_key, daughters[1].start_key);
    /// assert_eq!(admin.splits("t")?, [daughters[1].start_key.clone()]);
    /// assert_eq!(daughters[1], admin.table_regions("t")?[1]);
    /// assert_eq!(table.scan(&Scan::new())?.count(), 20); // every row still served once
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn split(&self, table: &str) -> Result<Vec<RegionDescription>> {
        self.inner().ensure_writable("split")?;
        let name = crate::db::canonical_table_name(table)?;
        let encoded: Vec<String> = self
            .regions_of(&name)?
            .regions()
            .iter()
            .map(|r| r.encoded_name().to_string())
            .collect();
        let mut out = Vec::new();
        let mut first_err = None;
        for e in encoded {
            match self.inner().split_region(&name, &e, None, true) {
                Ok(d) => out.extend(d.iter().flatten().map(RegionDescription::of)),
                Err(err) => {
                    first_err.get_or_insert(err);
                }
            }
        }
        match first_err {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// HBase's `Admin.split(TableName, splitPoint)` (shell `split 'table', 'row'`): splits
    /// the region holding `split_point` there. Returns the two daughters.
    ///
    /// ```
    /// use regionkv::{Get, Put};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let admin = db.admin();
    /// table.put(&Put::new("x").add_column("cf", "q", "v"))?;
    /// let [low, high] = admin.split_at("t", b"m")?;
    /// assert_eq!(low.name, format!("t,,{}.{}.", low.region_id, low.encoded_name));
    /// assert_eq!((low.start_key, low.end_key), (b"".to_vec(), b"m".to_vec()));
    /// assert_eq!((high.start_key, high.end_key), (b"m".to_vec(), b"".to_vec()));
    /// assert_eq!(admin.splits("t")?, [b"m".to_vec()]);
    /// assert!(table.exists(&Get::new("x"))?);
    /// // A region cannot split at its own start key.
    /// assert!(admin.split_at("t", b"m").is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn split_at(&self, table: &str, split_point: &[u8]) -> Result<[RegionDescription; 2]> {
        self.inner().ensure_writable("split_at")?;
        let name = crate::db::canonical_table_name(table)?;
        let encoded = self
            .regions_of(&name)?
            .locate(split_point)
            .map(|r| r.encoded_name().to_string())
            .ok_or_else(|| Error::TableNotEnabled(name.clone()))?;
        self.split_region_of(&name, &encoded, Some(split_point))
    }

    /// HBase's `Admin.splitRegionAsync(regionName[, splitPoint])` (shell `split
    /// 'REGIONNAME'` or `split 'ENCODED_REGIONNAME', 'row'`), done synchronously: `region`
    /// is a full region name (`table,startkey,id.encoded.`) or an encoded name. Without a
    /// split point the policy's is used; a region without one is an error.
    ///
    /// ```
    /// use regionkv::Error;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let admin = db.admin();
    /// let encoded = admin.regions("t")?[0].encoded_name.clone();
    /// admin.split_region(&encoded, Some(b"m"))?;
    /// // Full region names work as well as encoded ones.
    /// let full = admin.regions("t")?[1].name.clone();
    /// let [a, b] = admin.split_region(&full, Some(b"t"))?;
    /// assert_eq!((a.start_key, b.start_key), (b"m".to_vec(), b"t".to_vec()));
    /// assert_eq!(admin.splits("t")?, [b"m".to_vec(), b"t".to_vec()]);
    /// // An empty region has no split point of its own.
    /// let first = admin.regions("t")?[0].encoded_name.clone();
    /// assert!(admin.split_region(&first, None).is_err());
    /// let unknown = admin.split_region("no-such-region", None);
    /// assert!(matches!(unknown, Err(Error::InvalidArgument(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn split_region(
        &self,
        region: &str,
        split_point: Option<&[u8]>,
    ) -> Result<[RegionDescription; 2]> {
        self.inner().ensure_writable("split_region")?;
        let (table, encoded) = self.find_region(region)?;
        self.split_region_of(&table, &encoded, split_point)
    }

    fn split_region_of(
        &self,
        table: &str,
        encoded: &str,
        split_point: Option<&[u8]>,
    ) -> Result<[RegionDescription; 2]> {
        // A user request is refused loudly rather than dropped, so `None` does not come
        // back; were it to, it would mean the region has nothing to split at.
        self.inner()
            .split_region(table, encoded, split_point, true)?
            .map(|daughters| daughters.each_ref().map(RegionDescription::of))
            .ok_or_else(|| {
                Error::SplitRefused(crate::SplitProblem::NoSplitPoint {
                    region: encoded.to_string(),
                })
            })
    }

    /// HBase's `Admin.mergeRegionsAsync(regions, forcible)` (shell `merge_region`), done
    /// synchronously: merges two or more adjacent regions of one table (full or encoded
    /// names) into one region, which reads its parents' files through references until
    /// its first compaction. Regions still holding references cannot merge. Non-adjacent
    /// regions are refused, with or without `forcible`.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Get, Put, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// admin.create_table_with_splits(&desc, vec![b"g".to_vec(), b"p".to_vec()])?;
    /// let table = db.table("t")?;
    /// table.put(&Put::new("a").add_column("cf", "q", "v"))?;
    /// let r = admin.regions("t")?;
    /// // Only adjacent regions merge.
    /// assert!(admin.merge_regions(&[&r[0].encoded_name, &r[2].encoded_name], false).is_err());
    /// let merged = admin.merge_regions(&[&r[0].encoded_name, &r[1].name], false)?;
    /// assert_eq!((merged.start_key, merged.end_key), (b"".to_vec(), b"p".to_vec()));
    /// assert_eq!(admin.splits("t")?, [b"p".to_vec()]);
    /// assert!(table.exists(&Get::new("a"))?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn merge_regions(&self, regions: &[&str], forcible: bool) -> Result<RegionDescription> {
        self.inner().ensure_writable("merge_regions")?;
        let mut encoded = Vec::new();
        for r in regions {
            encoded.push(self.find_region(r)?.1);
        }
        let names: Vec<&str> = encoded.iter().map(String::as_str).collect();
        let merged = self.inner().merge_regions(&names, forcible)?;
        Ok(RegionDescription::of(&merged))
    }

    /// The table and encoded name of an online region given by its encoded name (hex,
    /// either case) or its full name `table,startkey,id.encoded.` (the table must match),
    /// or HBase's older form `table,startkey,id` without the encoded suffix.
    fn find_region(&self, region: &str) -> Result<(String, String)> {
        let inner = self.inner();
        inner.check_open()?;
        let suffix = region
            .strip_suffix('.')
            .and_then(|r| r.rsplit_once('.'))
            .filter(|(_, e)| e.len() == 32 && e.bytes().all(|b| b.is_ascii_hexdigit()));
        let table_part = region.split_once(',').map(|(t, _)| t);
        for (name, t) in inner.tables.read().iter() {
            let Some(map) = t.regions.read().clone() else {
                continue;
            };
            for r in map.regions() {
                let full = r.info().region_name();
                let hit = match (suffix, table_part) {
                    // A full name: its table and encoded name must both match.
                    (Some((_, enc)), Some(tbl)) => {
                        enc.eq_ignore_ascii_case(r.encoded_name())
                            && crate::db::canonical_table_name(tbl).ok().as_deref()
                                == Some(name.as_str())
                    }
                    // `table,startkey,id`: the full name without its encoded suffix.
                    (None, Some(_)) => full
                        .strip_suffix(&format!(".{}.", r.encoded_name()))
                        .is_some_and(|prefix| prefix == region),
                    _ => region.eq_ignore_ascii_case(r.encoded_name()),
                };
                if hit {
                    return Ok((name.clone(), r.encoded_name().to_string()));
                }
            }
        }
        Err(Error::InvalidArgument(format!(
            "Unknown region {region} (not an online region)"
        )))
    }

    /// HBase's `flush 'table', 'family'`: flushes one family of every region.
    ///
    /// ```
    /// use regionkv::Put;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # let cg = regionkv::ColumnFamilyDescriptor::new(b"cg")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf, cg])?)?;
    /// # let table = db.table("t")?;
    /// let admin = db.admin();
    /// table.put(&Put::new("r").add_column("cf", "q", "1").add_column("cg", "q", "2"))?;
    /// admin.flush_family("t", b"cf")?;
    /// let stores = admin.regions("t")?[0].stores.clone();
    /// assert_eq!((stores[0].family.as_slice(), stores[0].store_files), (&b"cf"[..], 1));
    /// assert_eq!((stores[1].family.as_slice(), stores[1].store_files), (&b"cg"[..], 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn flush_family(&self, table: &str, family: &[u8]) -> Result<()> {
        self.inner().ensure_writable("flush_family")?;
        for r in self.regions_of(table)?.regions() {
            compact_if_needed(r, r.flush_families(&[family.to_vec()]))?;
        }
        self.inner().splitter.run_pending();
        Ok(())
    }

    /// HBase's `compact 'table', 'family'` (`major`: `major_compact`): one family of every
    /// region, through the selection policy as [`Admin::compact`].
    ///
    /// ```
    /// use regionkv::Put;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let admin = db.admin();
    /// for i in 0..2 {
    ///     table.put(&Put::new(format!("r{i}")).add_column("cf", "q", "v"))?;
    ///     admin.flush("t")?;
    /// }
    /// admin.compact_family("t", b"cf", false)?; // too few files for a minor compaction
    /// assert_eq!(admin.regions("t")?[0].store_files, 2);
    /// admin.compact_family("t", b"cf", true)?; // a major one takes them all
    /// assert_eq!(admin.regions("t")?[0].store_files, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn compact_family(&self, table: &str, family: &[u8], major: bool) -> Result<()> {
        self.inner().ensure_writable("compact_family")?;
        for r in self.regions_of(table)?.regions() {
            skip_closed(r.compact_store(family, true, major))?;
        }
        self.inner().splitter.run_pending();
        Ok(())
    }

    /// HBase's `flush 'REGIONNAME'` / `flush 'ENCODED_REGIONNAME'[, 'family']`: flushes
    /// one region (full or encoded name), or one family of it.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Put, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// admin.create_table_with_splits(&desc, vec![b"m".to_vec()])?;
    /// let table = db.table("t")?;
    /// table.put(&Put::new("a").add_column("cf", "q", "v"))?;
    /// table.put(&Put::new("x").add_column("cf", "q", "v"))?;
    /// let first = admin.regions("t")?[0].encoded_name.clone();
    /// admin.flush_region(&first, None)?;
    /// let files: Vec<usize> = admin.regions("t")?.iter().map(|r| r.store_files).collect();
    /// assert_eq!(files, [1, 0]);
    /// let second = admin.regions("t")?[1].name.clone();
    /// admin.flush_region(&second, Some(b"cf"))?;
    /// assert_eq!(admin.regions("t")?[1].store_files, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn flush_region(&self, region: &str, family: Option<&[u8]>) -> Result<()> {
        self.inner().ensure_writable("flush_region")?;
        let r = self.online_region(region)?;
        let flushed = match family {
            Some(f) => r.flush_families(&[f.to_vec()]),
            None => r.flush_all(),
        };
        if flushed?.compaction_needed {
            r.request_compaction();
        }
        self.inner().splitter.run_pending();
        Ok(())
    }

    /// HBase's `compact 'REGIONNAME'[, 'family']` and `major_compact` of one region.
    ///
    /// ```
    /// use regionkv::Put;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let admin = db.admin();
    /// for i in 0..2 {
    ///     table.put(&Put::new(format!("r{i}")).add_column("cf", "q", "v"))?;
    ///     admin.flush("t")?;
    /// }
    /// let region = admin.regions("t")?[0].name.clone();
    /// admin.compact_region(&region, Some(b"cf"), false)?; // minor: too few files
    /// assert_eq!(admin.regions("t")?[0].store_files, 2);
    /// admin.compact_region(&region, None, true)?; // major
    /// assert_eq!(admin.regions("t")?[0].store_files, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn compact_region(&self, region: &str, family: Option<&[u8]>, major: bool) -> Result<()> {
        self.inner().ensure_writable("compact_region")?;
        let r = self.online_region(region)?;
        match family {
            Some(f) => {
                r.compact_store(f, true, major)?;
            }
            None => {
                r.compact(major)?;
            }
        }
        self.inner().splitter.run_pending();
        Ok(())
    }

    fn online_region(&self, region: &str) -> Result<Arc<Region>> {
        let (table, encoded) = self.find_region(region)?;
        self.regions_of(&table)?
            .regions()
            .iter()
            .find(|r| r.encoded_name() == encoded)
            .cloned()
            .ok_or_else(|| Error::InvalidArgument(format!("Unknown region {region}")))
    }

    /// The table's regions with their metrics, in key order.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, Error, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// admin.create_table_with_splits(&desc, vec![b"g".to_vec(), b"p".to_vec()])?;
    /// let starts: Vec<Vec<u8>> = admin.regions("t")?.into_iter().map(|r| r.start_key).collect();
    /// assert_eq!(starts, [b"".to_vec(), b"g".to_vec(), b"p".to_vec()]);
    /// admin.disable_table("t")?;
    /// assert!(matches!(admin.regions("t"), Err(Error::TableNotEnabled(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn regions(&self, name: &str) -> Result<Vec<RegionStatus>> {
        Ok(self
            .regions_of(name)?
            .regions()
            .iter()
            .map(|r| region_status(r))
            .collect())
    }

    /// The table's regions as the catalog lists them, in key order, whether the table is
    /// enabled or disabled (HBase's `Admin.getRegions(TableName)`, which reads
    /// `hbase:meta`). For a disabled table this is the only view of its regions:
    /// [`Admin::regions`] reports the open ones.
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// admin.create_table_with_splits(&desc, vec![b"m".to_vec()])?;
    /// admin.disable_table("t")?;
    /// let regions = admin.table_regions("t")?;
    /// let bounds: Vec<(&[u8], &[u8])> =
    ///     regions.iter().map(|r| (&r.start_key[..], &r.end_key[..])).collect();
    /// assert_eq!(bounds, [(&b""[..], &b"m"[..]), (&b"m"[..], &b""[..])]);
    /// assert!(regions[0].name.starts_with("t,,"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn table_regions(&self, name: &str) -> Result<Vec<RegionDescription>> {
        let inner = self.inner();
        inner.check_open()?;
        let name = canonical_table_name(name)?;
        let catalog = inner.catalog.lock();
        let entry = catalog
            .tables
            .get(&name)
            .ok_or_else(|| Error::TableNotFound(name.clone()))?;
        Ok(entry
            .regions
            .iter()
            .map(|r| RegionDescription::of(&r.info))
            .collect())
    }

    /// The table's split keys: the start keys of every region but the first (what the
    /// shell's `get_splits` prints).
    ///
    /// ```
    /// use regionkv::{ColumnFamilyDescriptor, TableDescriptor};
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// let admin = db.admin();
    /// let desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
    /// admin.create_table(&desc)?;
    /// assert!(admin.splits("t")?.is_empty());
    /// admin.split_at("t", b"k")?;
    /// assert_eq!(admin.splits("t")?, [b"k".to_vec()]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn splits(&self, name: &str) -> Result<Vec<Vec<u8>>> {
        Ok(self
            .regions_of(name)?
            .regions()
            .iter()
            .skip(1)
            .map(|r| r.info().start_key.clone())
            .collect())
    }
}
