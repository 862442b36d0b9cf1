//! The shared block cache: decoded storefile blocks kept in memory, keyed by
//! `(file_id, offset)`, bounded in bytes, evicted with the three-priority LRU of HBase's
//! `LruBlockCache`. This module owns the cache's byte accounting, the
//! single → multi promotion, the eviction decision, and the knobs that drive it
//! ([`BlockCacheConfig`], with HBase's configuration key names). It does not decide *what* a
//! block is or how big it is: callers cache whatever decoded type `V` they like and tell the
//! cache how many bytes it holds.
//!
//! # Thread-safety contract
//!
//! [`BlockCache<V>`] is `Send + Sync` whenever `V: Send + Sync`, and is meant to be shared as
//! `Arc<BlockCache<V>>` by every reader of every storefile of an engine. All of its state sits
//! behind one `parking_lot::Mutex`; every public method takes it once, for a short, bounded
//! critical section (O(1) per block touched), and none of them calls back into caller code
//! while holding it. Values are handed out as `Arc<V>`, so a reader keeps using a block after the
//! cache has evicted it, and evicted values are dropped only after the lock is released (a large
//! block's destructor never runs under the lock). The refused-insert counter is an atomic outside
//! the lock, so refusing an oversized block never touches the lock at all.
//!
//! # Why it is built this way
//!
//! The rules are HBase 2.x's `LruBlockCache`, `LruCachedBlock` and `LruCachedBlockQueue`,
//! re-expressed: blocks start [`BlockPriority::Single`] (or [`BlockPriority::InMemory`] for an
//! IN_MEMORY family), a hit promotes a single block to [`BlockPriority::Multi`], and when the
//! cache grows past `acceptable × capacity` one eviction run frees it down to `min × capacity`,
//! fairly across the three priority buckets (see [`BlockCache::insert`] for the exact algorithm,
//! including HBase's `hbase.lru.rs.inmemoryforcemode`). Keeping HBase's algorithm, rather than a
//! generic LRU or a TinyLFU, is the point: the scan resistance and the IN_MEMORY guarantees are
//! part of the HBase behaviour regionkv promises.
//!
//! Roads not taken:
//!
//! - **A background eviction thread, as HBase has.** Eviction runs inline, on the thread whose
//!   insert pushed the cache over the acceptable size, inside the same critical section. Tests
//!   are deterministic (no waiting for a thread to catch up), there is no thread to start, park
//!   and shut down, and the cache never sits above its acceptable size between an insert and the
//!   next eviction. That last property is why HBase's hard capacity limit
//!   (`hbase.lru.blockcache.hard.capacity.limit.factor`, which refuses inserts while a lagging
//!   eviction thread lets the cache run past 1.2 × acceptable) has no equivalent here: it could
//!   never fire. The price is that one insert in many pays for an eviction run; a run touches only
//!   the blocks it evicts (the per-bucket LRU order is maintained incrementally, not rebuilt by a
//!   full scan as HBase does).
//! - **A sharded or lock-free map** (HBase's `ConcurrentHashMap`, or per-shard LRUs as in
//!   RocksDB). HBase's eviction decision needs a global view of all three buckets; per-shard
//!   budgets would change which blocks survive. One mutex is acceptable for now because every
//!   operation under it is O(1) and short; sharding the lookup map while keeping the eviction
//!   decision global is the upgrade path if contention ever shows up in profiles.
//! - **Heap-size accounting.** HBase charges each block its Java heap size plus per-entry
//!   overhead. Here the caller states `size_bytes` and the cache adds nothing to it.
//!
//! # Differences from HBase 2.x, all deliberate
//!
//! - Inline eviction and no hard capacity limit (above).
//! - A block larger than the acceptable size (`acceptable × capacity`) is refused like a block
//!   larger than `hbase.lru.max.block.size` (HBase has only the latter). Such a block could never
//!   be resident when `insert` returns: the eviction run its own insertion triggers must remove
//!   it, after first flushing every older block of its bucket.
//! - Inserting a key that is already cached keeps the existing entry and returns `false`, without
//!   comparing contents (HBase compares the serialized bytes and throws if they differ, and 2.x
//!   replaces an entry that lacks `nextBlockOnDiskSize`; a generic `V` offers neither).
//! - Factors are `f64`; the three shares must sum to 1.0 within 1e-6 (HBase compares `f32` sums
//!   exactly), and `min` must be strictly positive (HBase does not check). Byte thresholds
//!   are computed exactly to nine decimal places rather than in Java `float`; the two agree for
//!   every capacity and factor HBase's tests use, and may differ by a byte elsewhere.
//! - When two buckets overflow by the same number of bytes, they are processed in the order
//!   single, multi, in-memory (HBase leaves the order to `java.util.PriorityQueue`).
//! - No victim (L2) cache, no `setMaxSize` resizing, no per-block-type statistics and no
//!   statistics-logging thread.

use rustc_hash::{FxHashMap, FxHashSet};
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use thiserror::Error;

/// HBase key of [`BlockCacheConfig::single_factor`].
pub const SINGLE_PERCENTAGE_KEY: &str = "hbase.lru.blockcache.single.percentage";
/// HBase key of [`BlockCacheConfig::multi_factor`].
pub const MULTI_PERCENTAGE_KEY: &str = "hbase.lru.blockcache.multi.percentage";
/// HBase key of [`BlockCacheConfig::memory_factor`].
pub const MEMORY_PERCENTAGE_KEY: &str = "hbase.lru.blockcache.memory.percentage";
/// HBase key of [`BlockCacheConfig::acceptable_factor`].
pub const ACCEPTABLE_FACTOR_KEY: &str = "hbase.lru.blockcache.acceptable.factor";
/// HBase key of [`BlockCacheConfig::min_factor`].
pub const MIN_FACTOR_KEY: &str = "hbase.lru.blockcache.min.factor";
/// HBase key of [`BlockCacheConfig::force_in_memory`].
pub const IN_MEMORY_FORCE_MODE_KEY: &str = "hbase.lru.rs.inmemoryforcemode";
/// HBase key of [`BlockCacheConfig::max_block_size`].
pub const MAX_BLOCK_SIZE_KEY: &str = "hbase.lru.max.block.size";

/// Tolerance of the check that the three bucket shares sum to 1.0.
const SHARE_SUM_TOLERANCE: f64 = 1e-6;

/// HBase's `memoryFactor > 0.999f` test: a cache that is (almost) all in-memory share evicts in
/// force-in-memory mode even when the flag is off.
const MEMORY_FACTOR_FORCE_THRESHOLD: f64 = 0.999;

/// HBase logs one refused oversized block in this many, so a stream of them cannot flood the log.
const OVERSIZE_WARN_EVERY: u64 = 50;

/// Identifies one cached block: the storefile it belongs to and the block's byte offset in it.
///
/// Ordered by `file_id`, then `offset`, so all blocks of a file are contiguous.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockCacheKey {
    /// Engine-wide id of the storefile (never reused while blocks of it may be cached).
    pub file_id: u64,
    /// Byte offset of the block within the file.
    pub offset: u64,
}

impl BlockCacheKey {
    /// The key of the block at `offset` in file `file_id`.
    pub const fn new(file_id: u64, offset: u64) -> Self {
        Self { file_id, offset }
    }
}

/// Eviction priority of a cached block (HBase's `BlockPriority`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlockPriority {
    /// Cached and not read since: the first to go, which makes the cache scan-resistant.
    Single,
    /// Read at least once while cached (promoted from [`BlockPriority::Single`] on a hit).
    Multi,
    /// Cached for an IN_MEMORY column family; keeps this priority for life.
    InMemory,
}

impl BlockPriority {
    /// All priorities, in bucket-index order.
    const ALL: [Self; 3] = [Self::Single, Self::Multi, Self::InMemory];

    /// Index of this priority's bucket in the per-bucket arrays.
    const fn index(self) -> usize {
        match self {
            Self::Single => 0,
            Self::Multi => 1,
            Self::InMemory => 2,
        }
    }
}

/// Tuning of a [`BlockCache`], field for field HBase's `LruBlockCache` settings.
///
/// `Default` gives HBase's defaults. The three `*_factor` shares split the cache between the
/// priorities: during an eviction run each bucket may keep `capacity × share × min_factor`
/// bytes before it counts as overflowing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockCacheConfig {
    /// Share of single-access blocks ([`SINGLE_PERCENTAGE_KEY`], default 0.25).
    pub single_factor: f64,
    /// Share of multiple-access blocks ([`MULTI_PERCENTAGE_KEY`], default 0.50).
    pub multi_factor: f64,
    /// Share of in-memory blocks ([`MEMORY_PERCENTAGE_KEY`], default 0.25).
    pub memory_factor: f64,
    /// An eviction run starts when the cached bytes exceed `capacity × acceptable_factor`
    /// ([`ACCEPTABLE_FACTOR_KEY`], default 0.99).
    pub acceptable_factor: f64,
    /// An eviction run frees bytes until the cache holds about `capacity × min_factor`
    /// ([`MIN_FACTOR_KEY`], default 0.95).
    pub min_factor: f64,
    /// Evict single and multi blocks before any in-memory block, whatever the shares say
    /// ([`IN_MEMORY_FORCE_MODE_KEY`], default `false`).
    pub force_in_memory: bool,
    /// Blocks larger than this many bytes are refused ([`MAX_BLOCK_SIZE_KEY`], default 16 MiB).
    pub max_block_size: u64,
}

impl BlockCacheConfig {
    /// HBase's default single-access share.
    pub const DEFAULT_SINGLE_FACTOR: f64 = 0.25;
    /// HBase's default multiple-access share.
    pub const DEFAULT_MULTI_FACTOR: f64 = 0.50;
    /// HBase's default in-memory share.
    pub const DEFAULT_MEMORY_FACTOR: f64 = 0.25;
    /// HBase's default acceptable factor.
    pub const DEFAULT_ACCEPTABLE_FACTOR: f64 = 0.99;
    /// HBase's default min factor.
    pub const DEFAULT_MIN_FACTOR: f64 = 0.95;
    /// HBase's default maximum block size, 16 MiB.
    pub const DEFAULT_MAX_BLOCK_SIZE: u64 = 16 * 1024 * 1024;

    /// Checks HBase's constraints: the three shares are non-negative and sum to 1.0, and
    /// `0 < min_factor < acceptable_factor < 1`.
    pub fn validate(&self) -> Result<(), CacheConfigError> {
        let shares = [self.single_factor, self.multi_factor, self.memory_factor];
        let sum: f64 = shares.iter().sum();
        if shares.iter().any(|s| !s.is_finite() || *s < 0.0)
            || (sum - 1.0).abs() > SHARE_SUM_TOLERANCE
        {
            return Err(CacheConfigError::Shares {
                single: self.single_factor,
                multi: self.multi_factor,
                memory: self.memory_factor,
            });
        }
        let (min, acceptable) = (self.min_factor, self.acceptable_factor);
        // Written so that NaN fails every comparison and is rejected.
        if !(min > 0.0 && min < acceptable && acceptable < 1.0) {
            return Err(CacheConfigError::Thresholds { min, acceptable });
        }
        Ok(())
    }

    /// Sets the field named by the HBase configuration `key` from its textual `value`.
    ///
    /// Returns `Ok(false)` when `key` is not a block cache key (the config is unchanged), and an
    /// error when the value does not parse. Does not [`validate`](Self::validate): the shares
    /// can only be consistent once all three are set.
    pub fn set(&mut self, key: &str, value: &str) -> Result<bool, CacheConfigError> {
        let invalid = || CacheConfigError::InvalidValue {
            key: key.to_owned(),
            value: value.to_owned(),
        };
        let float = || value.trim().parse::<f64>().map_err(|_| invalid());
        match key {
            SINGLE_PERCENTAGE_KEY => self.single_factor = float()?,
            MULTI_PERCENTAGE_KEY => self.multi_factor = float()?,
            MEMORY_PERCENTAGE_KEY => self.memory_factor = float()?,
            ACCEPTABLE_FACTOR_KEY => self.acceptable_factor = float()?,
            MIN_FACTOR_KEY => self.min_factor = float()?,
            IN_MEMORY_FORCE_MODE_KEY => {
                self.force_in_memory = value.trim().parse::<bool>().map_err(|_| invalid())?;
            }
            MAX_BLOCK_SIZE_KEY => {
                self.max_block_size = value.trim().parse::<u64>().map_err(|_| invalid())?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

impl Default for BlockCacheConfig {
    fn default() -> Self {
        Self {
            single_factor: Self::DEFAULT_SINGLE_FACTOR,
            multi_factor: Self::DEFAULT_MULTI_FACTOR,
            memory_factor: Self::DEFAULT_MEMORY_FACTOR,
            acceptable_factor: Self::DEFAULT_ACCEPTABLE_FACTOR,
            min_factor: Self::DEFAULT_MIN_FACTOR,
            force_in_memory: false,
            max_block_size: Self::DEFAULT_MAX_BLOCK_SIZE,
        }
    }
}

/// A [`BlockCacheConfig`] that HBase would refuse.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum CacheConfigError {
    /// The single, multi and memory shares are negative, not finite, or do not total 1.0.
    #[error(
        "single, multi and memory factors must be non-negative and total 1.0, got {single} + {multi} + {memory}"
    )]
    Shares {
        /// The single-access share.
        single: f64,
        /// The multiple-access share.
        multi: f64,
        /// The in-memory share.
        memory: f64,
    },
    /// The eviction thresholds break `0 < min < acceptable < 1`.
    #[error(
        "eviction factors must satisfy 0 < min < acceptable < 1, got min {min}, acceptable {acceptable}"
    )]
    Thresholds {
        /// The min factor.
        min: f64,
        /// The acceptable factor.
        acceptable: f64,
    },
    /// A configuration value that does not parse as its field's type.
    #[error("invalid value {value:?} for {key}")]
    InvalidValue {
        /// The configuration key.
        key: String,
        /// The value as given.
        value: String,
    },
}

/// A snapshot of a [`BlockCache`]'s counters and sizes.
///
/// Every counter is exact. Blocks dropped by [`BlockCache::evict_file`] are removals, not
/// evictions: they change the sizes but none of the eviction counters (as in HBase, where
/// invalidating a file's blocks does not count as eviction).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlockCacheStats {
    /// [`BlockCache::get`] calls that found their block.
    pub hits: u64,
    /// [`BlockCache::get`] calls that did not.
    pub misses: u64,
    /// Eviction runs.
    pub evictions: u64,
    /// Blocks removed by eviction runs.
    pub evicted_blocks: u64,
    /// Bytes removed by eviction runs.
    pub evicted_bytes: u64,
    /// Inserts refused because the block was too large (duplicates are not counted).
    pub failed_inserts: u64,
    /// Bytes currently cached (the sum of the cached blocks' `size_bytes`).
    pub size_bytes: u64,
    /// Blocks currently cached.
    pub block_count: u64,
    /// The capacity the cache was built with.
    pub capacity_bytes: u64,
    /// Bytes currently cached at [`BlockPriority::Single`].
    pub single_size_bytes: u64,
    /// Bytes currently cached at [`BlockPriority::Multi`].
    pub multi_size_bytes: u64,
    /// Bytes currently cached at [`BlockPriority::InMemory`].
    pub in_memory_size_bytes: u64,
}

impl BlockCacheStats {
    /// `hits / (hits + misses)`, or 0.0 before the first lookup.
    pub fn hit_ratio(&self) -> f64 {
        let requests = self.hits + self.misses;
        if requests == 0 {
            0.0
        } else {
            self.hits as f64 / requests as f64
        }
    }
}

/// Byte thresholds derived once from the capacity and the config.
#[derive(Debug, Clone, Copy)]
struct Limits {
    /// `floor(capacity × acceptable)`: an insert that leaves more than this starts a run.
    acceptable_size: u64,
    /// `floor(capacity × min)`: a run frees down to about this.
    min_size: u64,
    /// Per-bucket `floor(capacity × share × min)`, by [`BlockPriority::index`].
    bucket_targets: [u64; 3],
    /// Largest admissible block: `min(max_block_size, acceptable_size)`.
    max_admissible: u64,
    /// Whether runs use HBase's force-in-memory algorithm.
    force_in_memory_eviction: bool,
}

/// Factors are applied in fixed point, to nine decimal places, so that thresholds are what the
/// decimal configuration says (`floor(100 × 0.29)` is 29, where `f64` arithmetic gives 28).
const FACTOR_SCALE: u128 = 1_000_000_000;

/// `factor` in units of 1/[`FACTOR_SCALE`]; factors are validated to lie in [0, 1].
fn scaled(factor: f64) -> u128 {
    (factor.clamp(0.0, 1.0) * FACTOR_SCALE as f64).round() as u128
}

/// `floor(capacity × a × b)`, exactly (for `a` and `b` as nine-decimal fixed point).
///
/// No overflow: `capacity < 2^64` and each scaled factor is at most `10^9 < 2^30`.
fn fraction_of(capacity: u64, a: f64, b: f64) -> u64 {
    let value = u128::from(capacity) * scaled(a) * scaled(b) / (FACTOR_SCALE * FACTOR_SCALE);
    // The factors are at most 1, so the value never exceeds `capacity`.
    u64::try_from(value).unwrap_or(capacity)
}

impl Limits {
    fn new(capacity: u64, config: &BlockCacheConfig) -> Self {
        let acceptable_size = fraction_of(capacity, config.acceptable_factor, 1.0);
        let shares = [
            config.single_factor,
            config.multi_factor,
            config.memory_factor,
        ];
        Self {
            acceptable_size,
            min_size: fraction_of(capacity, config.min_factor, 1.0),
            bucket_targets: shares.map(|share| fraction_of(capacity, share, config.min_factor)),
            max_admissible: config.max_block_size.min(acceptable_size),
            force_in_memory_eviction: config.force_in_memory
                || config.memory_factor > MEMORY_FACTOR_FORCE_THRESHOLD,
        }
    }
}

/// One cached block.
struct Entry<V> {
    value: Arc<V>,
    size: u64,
    priority: BlockPriority,
}

/// "No slot": the end of a list.
const NIL: usize = usize::MAX;

/// A slot of the entry table: a cached block and its neighbours in its bucket's LRU list.
struct Slot<V> {
    key: BlockCacheKey,
    entry: Entry<V>,
    /// Towards the least recently used end.
    prev: usize,
    /// Towards the most recently used end.
    next: usize,
}

/// One bucket's recency order: a doubly linked list through the slots, least recently used
/// at the head.
#[derive(Clone, Copy)]
struct Lru {
    head: usize,
    tail: usize,
    len: usize,
}

impl Lru {
    const EMPTY: Lru = Lru {
        head: NIL,
        tail: NIL,
        len: 0,
    };
}

/// Everything behind the lock.
///
/// Every hit and insert moves one block within or between the recency lists, so both the
/// lookup and the recency order are O(1): a hash map from key to slot, and per bucket a
/// doubly linked list through the slots (a `BTreeMap` keyed by access time, as before,
/// was a fifth of a cached point read). Invariant: a key is in `map` iff its slot is
/// `Some` and linked into exactly the list of its entry's priority.
struct State<V> {
    map: FxHashMap<BlockCacheKey, usize>,
    /// Per file, the offsets of its cached blocks: what `evict_file` removes without
    /// scanning the cache. Updated on insert and removal only, never on a hit.
    by_file: FxHashMap<u64, FxHashSet<u64>>,
    slots: Vec<Option<Slot<V>>>,
    /// Indices of `None` slots.
    free: Vec<usize>,
    /// Per bucket, the recency order.
    lru: [Lru; 3],
    /// Per bucket, the bytes cached in it.
    bucket_bytes: [u64; 3],
    /// Sum of `bucket_bytes`.
    size: u64,
    hits: u64,
    misses: u64,
    eviction_runs: u64,
    evicted_blocks: u64,
    evicted_bytes: u64,
}

impl<V> State<V> {
    fn new() -> Self {
        Self {
            map: FxHashMap::default(),
            by_file: FxHashMap::default(),
            slots: Vec::new(),
            free: Vec::new(),
            lru: [Lru::EMPTY; 3],
            bucket_bytes: [0; 3],
            size: 0,
            hits: 0,
            misses: 0,
            eviction_runs: 0,
            evicted_blocks: 0,
            evicted_bytes: 0,
        }
    }

    fn slot_mut(&mut self, i: usize) -> Option<&mut Slot<V>> {
        self.slots.get_mut(i).and_then(Option::as_mut)
    }

    /// Appends slot `i` (filled, not linked) as the most recently used of `bucket`.
    fn push_back(&mut self, bucket: usize, i: usize) {
        let Some(list) = self.lru.get(bucket).copied() else {
            return;
        };
        if let Some(slot) = self.slot_mut(i) {
            slot.prev = list.tail;
            slot.next = NIL;
        }
        match self.slot_mut(list.tail) {
            Some(tail) => tail.next = i,
            None => {
                if let Some(l) = self.lru.get_mut(bucket) {
                    l.head = i;
                }
            }
        }
        if let Some(l) = self.lru.get_mut(bucket) {
            l.tail = i;
            l.len += 1;
        }
    }

    /// Takes slot `i` (filled, linked into `bucket`) out of its list.
    fn unlink(&mut self, bucket: usize, i: usize) {
        let Some((prev, next)) = self.slot_mut(i).map(|s| (s.prev, s.next)) else {
            return;
        };
        match self.slot_mut(prev) {
            Some(p) => p.next = next,
            None => {
                if let Some(l) = self.lru.get_mut(bucket) {
                    l.head = next;
                }
            }
        }
        match self.slot_mut(next) {
            Some(n) => n.prev = prev,
            None => {
                if let Some(l) = self.lru.get_mut(bucket) {
                    l.tail = prev;
                }
            }
        }
        if let Some(l) = self.lru.get_mut(bucket) {
            l.len -= 1;
        }
    }

    /// Adds a block the caller has checked is absent and fits in the size counter.
    fn add(&mut self, key: BlockCacheKey, value: Arc<V>, size: u64, priority: BlockPriority) {
        let slot = Slot {
            key,
            entry: Entry {
                value,
                size,
                priority,
            },
            prev: NIL,
            next: NIL,
        };
        let i = match self.free.pop() {
            Some(i) => {
                if let Some(s) = self.slots.get_mut(i) {
                    *s = Some(slot);
                }
                i
            }
            None => {
                self.slots.push(Some(slot));
                self.slots.len() - 1
            }
        };
        self.push_back(priority.index(), i);
        self.bucket_bytes[priority.index()] += size;
        self.size += size;
        self.map.insert(key, i);
        self.by_file
            .entry(key.file_id)
            .or_default()
            .insert(key.offset);
    }

    /// Forgets `key` in the per-file index.
    fn unindex(&mut self, key: &BlockCacheKey) {
        if let Some(offsets) = self.by_file.get_mut(&key.file_id) {
            offsets.remove(&key.offset);
            if offsets.is_empty() {
                self.by_file.remove(&key.file_id);
            }
        }
    }

    /// Unlinks and empties slot `i` of `bucket`; returns its entry (the key stays in `map`).
    fn take_slot(&mut self, bucket: usize, i: usize) -> Option<(BlockCacheKey, Entry<V>)> {
        self.unlink(bucket, i);
        let slot = self.slots.get_mut(i).and_then(Option::take)?;
        self.free.push(i);
        self.bucket_bytes[bucket] -= slot.entry.size;
        self.size -= slot.entry.size;
        Some((slot.key, slot.entry))
    }

    /// Removes `key` from every structure and returns its entry.
    fn remove(&mut self, key: &BlockCacheKey) -> Option<Entry<V>> {
        let i = self.map.remove(key)?;
        self.unindex(key);
        let bucket = self.slots.get(i)?.as_ref()?.entry.priority.index();
        self.take_slot(bucket, i).map(|(_, entry)| entry)
    }

    /// A hit: refreshes the block's recency and promotes single to multi.
    fn touch(&mut self, key: &BlockCacheKey) -> Option<Arc<V>> {
        let i = *self.map.get(key)?;
        let (old, size) = {
            let slot = self.slot_mut(i)?;
            (slot.entry.priority, slot.entry.size)
        };
        let new = match old {
            BlockPriority::Single => BlockPriority::Multi,
            other => other,
        };
        self.unlink(old.index(), i);
        self.push_back(new.index(), i);
        self.bucket_bytes[old.index()] -= size;
        self.bucket_bytes[new.index()] += size;
        let slot = self.slot_mut(i)?;
        slot.entry.priority = new;
        Some(Arc::clone(&slot.entry.value))
    }

    /// HBase's `LruBlockCache.evict()`: one eviction run, freeing the cache down to about
    /// `min_size`. Evicted values go to `graveyard`, to be dropped after the lock is released.
    fn evict(&mut self, limits: &Limits, graveyard: &mut Vec<Arc<V>>) {
        self.eviction_runs += 1;
        let bytes_to_free = i128::from(self.size) - i128::from(limits.min_size);
        if bytes_to_free <= 0 {
            return;
        }
        // Bucket totals as of the start of the run, as HBase's BlockBucket snapshots them.
        let total = self.bucket_bytes.map(i128::from);
        let [single, multi, _] = total;
        let mut freed: i128 = 0;
        if limits.force_in_memory_eviction {
            if bytes_to_free > single + multi {
                // In-memory blocks must go too: empty single and multi first.
                freed += self.free_from(BlockPriority::Single, single, graveyard);
                freed += self.free_from(BlockPriority::Multi, multi, graveyard);
                freed += self.free_from(BlockPriority::InMemory, bytes_to_free - freed, graveyard);
            } else {
                // In-memory blocks are spared; aim for single : multi = 1 : 2 afterwards.
                let remain = single + multi - bytes_to_free;
                if 3 * single <= remain {
                    freed = self.free_from(BlockPriority::Multi, bytes_to_free, graveyard);
                } else if 3 * multi <= 2 * remain {
                    freed = self.free_from(BlockPriority::Single, bytes_to_free, graveyard);
                } else {
                    freed = self.free_from(BlockPriority::Single, single - remain / 3, graveyard);
                    if freed < bytes_to_free {
                        freed +=
                            self.free_from(BlockPriority::Multi, bytes_to_free - freed, graveyard);
                    }
                }
            }
        } else {
            // Buckets in increasing overflow order; each overflowing one frees its overflow, or
            // its fair part of what is still to free, whichever is less.
            let mut order = BlockPriority::ALL.map(|p| {
                (
                    total[p.index()] - i128::from(limits.bucket_targets[p.index()]),
                    p,
                )
            });
            order.sort_by_key(|&(overflow, p)| (overflow, p.index()));
            let mut remaining_buckets: i128 = 3;
            for (overflow, priority) in order {
                if overflow > 0 {
                    // May be zero or negative after an earlier bucket overshot; `free_from`
                    // still evicts one block then, exactly as HBase's `BlockBucket.free` does.
                    let share = overflow.min((bytes_to_free - freed) / remaining_buckets);
                    freed += self.free_from(priority, share, graveyard);
                }
                remaining_buckets -= 1;
            }
        }
        tracing::trace!(
            bytes_to_free = %bytes_to_free,
            freed = %freed,
            size = self.size,
            single = self.bucket_bytes[0],
            multi = self.bucket_bytes[1],
            in_memory = self.bucket_bytes[2],
            "block cache eviction run completed"
        );
    }

    /// HBase's `BlockBucket.free`: evicts the bucket's blocks least recently used first until at
    /// least `to_free` bytes are freed. Like HBase it checks only after evicting, so it evicts
    /// one block even when `to_free <= 0` (if the bucket has any).
    fn free_from(
        &mut self,
        priority: BlockPriority,
        to_free: i128,
        graveyard: &mut Vec<Arc<V>>,
    ) -> i128 {
        let mut freed: i128 = 0;
        let bucket = priority.index();
        while let Some(head) = self.lru.get(bucket).map(|l| l.head).filter(|&h| h != NIL) {
            let Some((key, entry)) = self.take_slot(bucket, head) else {
                debug_assert!(false, "LRU list of {priority:?} names an empty slot");
                break;
            };
            self.map.remove(&key);
            self.unindex(&key);
            self.evicted_blocks += 1;
            self.evicted_bytes += entry.size;
            freed += i128::from(entry.size);
            graveyard.push(entry.value);
            if freed >= to_free {
                break;
            }
        }
        freed
    }
}

/// The shared block cache; see the [module documentation](self) for its rules and contract.
pub struct BlockCache<V> {
    capacity: u64,
    config: BlockCacheConfig,
    limits: Limits,
    failed_inserts: AtomicU64,
    state: Mutex<State<V>>,
}

impl<V> BlockCache<V> {
    /// A cache of `capacity_bytes` with HBase's default configuration.
    pub fn new(capacity_bytes: u64) -> Self {
        Self::build(capacity_bytes, BlockCacheConfig::default())
    }

    /// A cache of `capacity_bytes` tuned by `config`, which must pass
    /// [`BlockCacheConfig::validate`].
    pub fn with_config(
        capacity_bytes: u64,
        config: BlockCacheConfig,
    ) -> Result<Self, CacheConfigError> {
        config.validate()?;
        Ok(Self::build(capacity_bytes, config))
    }

    fn build(capacity: u64, config: BlockCacheConfig) -> Self {
        Self {
            capacity,
            config,
            limits: Limits::new(capacity, &config),
            failed_inserts: AtomicU64::new(0),
            state: Mutex::new(State::new()),
        }
    }

    /// The block cached under `key`, if any.
    ///
    /// Counts a hit or a miss. A hit makes the block the most recently used of its bucket and
    /// promotes a [`BlockPriority::Single`] block to [`BlockPriority::Multi`].
    pub fn get(&self, key: &BlockCacheKey) -> Option<Arc<V>> {
        let mut state = self.state.lock();
        let found = state.touch(key);
        if found.is_some() {
            state.hits += 1;
        } else {
            state.misses += 1;
        }
        found
    }

    /// Whether `key` is cached. Counts nothing and changes no recency or priority.
    pub fn contains(&self, key: &BlockCacheKey) -> bool {
        self.state.lock().map.contains_key(key)
    }

    /// Caches `value`, which the caller says holds `size_bytes`, under `key`, at priority
    /// [`BlockPriority::InMemory`] if `in_memory` (the block's family is IN_MEMORY) and
    /// [`BlockPriority::Single`] otherwise.
    ///
    /// Returns `false`, caching nothing, when:
    /// - `size_bytes` exceeds [`BlockCacheConfig::max_block_size`] or the acceptable size
    ///   (`capacity × acceptable_factor`); this counts as a failed insert;
    /// - `key` is already cached: the existing entry is kept, with its value, priority and
    ///   recency untouched (HBase's "cached an already cached block", which is harmless when two
    ///   readers load the same block concurrently).
    ///
    /// Otherwise the block is added as the most recently used of its bucket and `true` is
    /// returned. If the cache now holds more than the acceptable size, an eviction run follows
    /// before returning, so the cache never holds more than the acceptable size once `insert`
    /// returns. Note that the run may evict the block just added (for example a single block in
    /// force-in-memory mode when the cache is full of in-memory blocks).
    ///
    /// # The eviction run
    ///
    /// It frees `bytes_to_free = size − min × capacity`, least recently used first within each
    /// bucket. Each bucket has a target of `capacity × share × min` bytes and an overflow of
    /// `bucket bytes − target`.
    ///
    /// - Normally the buckets are taken in increasing overflow order, and each bucket with a
    ///   positive overflow frees `min(overflow, still to free / buckets not yet taken)`.
    /// - In force-in-memory mode ([`BlockCacheConfig::force_in_memory`], or a memory share above
    ///   0.999): if single and multi blocks together hold less than `bytes_to_free`, both buckets
    ///   are emptied and the rest comes from the in-memory bucket. Otherwise no in-memory block
    ///   is evicted, and the bytes come from single and multi so as to leave them as near a
    ///   1 : 2 ratio as the algorithm allows: all from multi if single would keep no more than a
    ///   third of what stays, all from single if multi would keep no more than two thirds,
    ///   otherwise single down to a third of what stays and the remainder from multi.
    ///
    /// A bucket asked to free `n` bytes evicts whole blocks until it has freed at least `n`,
    /// checking only after each eviction (so at least one block goes if it has any).
    pub fn insert(
        &self,
        key: BlockCacheKey,
        value: Arc<V>,
        size_bytes: u64,
        in_memory: bool,
    ) -> bool {
        if size_bytes > self.limits.max_admissible {
            self.refuse_oversized(key, size_bytes);
            return false;
        }
        let priority = if in_memory {
            BlockPriority::InMemory
        } else {
            BlockPriority::Single
        };
        let mut graveyard = Vec::new();
        {
            let mut state = self.state.lock();
            if state.map.contains_key(&key) {
                tracing::debug!(
                    ?key,
                    "cached an already cached block; keeping the existing entry (harmless, see HBASE-8547)"
                );
                return false;
            }
            let Some(new_size) = state.size.checked_add(size_bytes) else {
                // Unreachable for any capacity below 2^63 bytes; refuse rather than wrap.
                drop(state);
                self.refuse_oversized(key, size_bytes);
                return false;
            };
            state.add(key, value, size_bytes, priority);
            if new_size > self.limits.acceptable_size {
                state.evict(&self.limits, &mut graveyard);
            }
        }
        // Evicted blocks are dropped here, outside the lock.
        drop(graveyard);
        true
    }

    /// Drops every cached block of file `file_id` (the file was deleted, e.g. after a
    /// compaction) and returns how many there were.
    ///
    /// This is a removal, not an eviction: no eviction counter changes. O(k) for k blocks
    /// of the file.
    pub fn evict_file(&self, file_id: u64) -> usize {
        let mut graveyard = Vec::new();
        {
            let mut state = self.state.lock();
            let keys: Vec<BlockCacheKey> = state
                .by_file
                .get(&file_id)
                .map(|offsets| {
                    offsets
                        .iter()
                        .map(|&offset| BlockCacheKey::new(file_id, offset))
                        .collect()
                })
                .unwrap_or_default();
            for key in &keys {
                if let Some(entry) = state.remove(key) {
                    graveyard.push(entry.value);
                }
            }
        }
        let removed = graveyard.len();
        drop(graveyard);
        removed
    }

    /// A consistent snapshot of the counters and sizes.
    pub fn stats(&self) -> BlockCacheStats {
        let failed_inserts = self.failed_inserts.load(Ordering::Relaxed);
        let state = self.state.lock();
        BlockCacheStats {
            hits: state.hits,
            misses: state.misses,
            evictions: state.eviction_runs,
            evicted_blocks: state.evicted_blocks,
            evicted_bytes: state.evicted_bytes,
            failed_inserts,
            size_bytes: state.size,
            block_count: state.map.len() as u64,
            capacity_bytes: self.capacity,
            single_size_bytes: state.bucket_bytes[BlockPriority::Single.index()],
            multi_size_bytes: state.bucket_bytes[BlockPriority::Multi.index()],
            in_memory_size_bytes: state.bucket_bytes[BlockPriority::InMemory.index()],
        }
    }

    /// The capacity in bytes the cache was built with.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// The configuration the cache was built with.
    pub fn config(&self) -> &BlockCacheConfig {
        &self.config
    }

    fn refuse_oversized(&self, key: BlockCacheKey, size_bytes: u64) {
        let refused_before = self.failed_inserts.fetch_add(1, Ordering::Relaxed);
        if refused_before.is_multiple_of(OVERSIZE_WARN_EVERY) {
            tracing::warn!(
                ?key,
                size_bytes,
                max_block_size = self.config.max_block_size,
                acceptable_size = self.limits.acceptable_size,
                "trying to cache too large a block; not cached (logging 1 in {OVERSIZE_WARN_EVERY})"
            );
        }
    }
}

impl<V> fmt::Debug for BlockCache<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BlockCache")
            .field("capacity", &self.capacity)
            .field("config", &self.config)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    //! Ports of HBase's `TestLruBlockCache` (the 2.x cases that apply), plus regionkv's own.
    //!
    //! HBase sizes blocks by Java heap size with per-entry overhead, computed by
    //! `calculateBlockSize(maxSize, 10)` so that ten blocks land just above the acceptable size
    //! of a 100 000-byte cache and nine just below. Here sizes are plain bytes: the ported tests
    //! keep HBase's capacities and factors and use blocks of [`B`] = 9 950 bytes, which has the
    //! same property (9 × 9 950 = 89 550 ≤ 99 000 < 99 500 = 10 × 9 950), and HBase's payload
    //! sizes (10 000, 600, 1 029) where a test gives them literally. The expected survivors,
    //! run counts and evicted counts are HBase's, unchanged.

    use super::*;
    use proptest::prelude::*;

    /// Plain-byte stand-in for HBase's `calculateBlockSize(100000, 10)`.
    const B: u64 = 9_950;

    /// A test block: key, value (its name, for readable failures) and size.
    struct Item {
        key: BlockCacheKey,
        value: Arc<String>,
        size: u64,
    }

    /// HBase's `generateFixedBlocks`: `n` blocks of `size` bytes; `file` tells sets apart.
    fn blocks(n: usize, size: u64, file: u64, prefix: &str) -> Vec<Item> {
        (0..n)
            .map(|i| Item {
                key: BlockCacheKey::new(file, i as u64 * 1_000_000),
                value: Arc::new(format!("{prefix}{i}")),
                size,
            })
            .collect()
    }

    fn put(cache: &BlockCache<String>, item: &Item) -> bool {
        cache.insert(item.key, Arc::clone(&item.value), item.size, false)
    }

    fn put_in_memory(cache: &BlockCache<String>, item: &Item) -> bool {
        cache.insert(item.key, Arc::clone(&item.value), item.size, true)
    }

    fn get(cache: &BlockCache<String>, item: &Item) -> Option<String> {
        cache.get(&item.key).map(|v| (*v).clone())
    }

    fn config(min: f64, acceptable: f64, single: f64, multi: f64, memory: f64) -> BlockCacheConfig {
        BlockCacheConfig {
            single_factor: single,
            multi_factor: multi,
            memory_factor: memory,
            acceptable_factor: acceptable,
            min_factor: min,
            ..BlockCacheConfig::default()
        }
    }

    impl<V> BlockCache<V> {
        /// Checks every internal invariant and returns the sum of the cached entries' sizes.
        fn check_invariants(&self) -> u64 {
            let state = self.state.lock();
            let mut per_bucket = [0u64; 3];
            let mut per_bucket_count = [0usize; 3];
            for (key, &i) in &state.map {
                let slot = state.slots[i].as_ref().expect("a mapped slot is filled");
                assert_eq!(slot.key, *key);
                let entry = &slot.entry;
                per_bucket[entry.priority.index()] += entry.size;
                per_bucket_count[entry.priority.index()] += 1;
            }
            let indexed: usize = state.by_file.values().map(|o| o.len()).sum();
            assert_eq!(indexed, state.map.len());
            for (file, offsets) in &state.by_file {
                assert!(!offsets.is_empty());
                for &offset in offsets {
                    assert!(state.map.contains_key(&BlockCacheKey::new(*file, offset)));
                }
            }
            let filled = state.slots.iter().filter(|s| s.is_some()).count();
            assert_eq!(filled, state.map.len());
            assert_eq!(state.slots.len(), filled + state.free.len());
            for p in BlockPriority::ALL {
                // Walk the list both ways: every member is of this bucket, links agree.
                let list = state.lru[p.index()];
                let (mut at, mut prev, mut n) = (list.head, NIL, 0);
                while at != NIL {
                    let slot = state.slots[at].as_ref().expect("a listed slot is filled");
                    assert_eq!(slot.entry.priority, p, "{:?} listed under {p:?}", slot.key);
                    assert_eq!(slot.prev, prev);
                    assert_eq!(state.map.get(&slot.key), Some(&at));
                    prev = at;
                    at = slot.next;
                    n += 1;
                }
                assert_eq!(list.tail, prev);
                assert_eq!(list.len, n);
                assert_eq!(n, per_bucket_count[p.index()]);
                assert_eq!(state.bucket_bytes[p.index()], per_bucket[p.index()]);
            }
            let sum: u64 = per_bucket.iter().sum();
            assert_eq!(state.size, sum);
            sum
        }
    }

    /// testCacheSimple: 100 blocks of random size fill a 1 000 000-byte cache without eviction;
    /// sizes add up; re-inserting every block changes nothing.
    #[test]
    fn hbase_cache_simple() {
        let cache = BlockCache::new(1_000_000);
        // calculateBlockSizeDefault(1000000, 101) ~ 9 800: random sizes in 1..=9 800 (a fixed
        // LCG, so a failure reproduces), which cannot reach the acceptable 990 000 bytes.
        let mut seed: u64 = 0x5eed;
        let items: Vec<Item> = (0..100)
            .map(|i| {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                Item {
                    key: BlockCacheKey::new(7, i * 65_536),
                    value: Arc::new(format!("block{i}")),
                    size: (seed >> 33) % 9_800 + 1,
                }
            })
            .collect();
        for item in &items {
            assert_eq!(get(&cache, item), None);
        }
        let mut expected_size = 0;
        for item in &items {
            assert!(put(&cache, item));
            expected_size += item.size;
        }
        assert_eq!(cache.stats().size_bytes, expected_size);
        for item in &items {
            assert_eq!(get(&cache, item).as_deref(), Some(item.value.as_str()));
        }

        let count = cache.stats().block_count;
        for item in &items {
            assert!(!put(&cache, item), "a re-insert must be ignored");
        }
        assert_eq!(cache.stats().block_count, count);
        assert_eq!(cache.stats().size_bytes, expected_size);
        for item in &items {
            assert_eq!(get(&cache, item).as_deref(), Some(item.value.as_str()));
        }
        assert_eq!(cache.stats().evictions, 0);
        assert_eq!(cache.check_invariants(), expected_size);
    }

    /// testCacheEvictionSimple: the tenth block of a 100 000-byte cache triggers one run, which
    /// evicts only the oldest block.
    #[test]
    fn hbase_cache_eviction_simple() {
        let cache = BlockCache::new(100_000);
        let items = blocks(10, B, 1, "block");
        let mut expected_size = 0;
        for item in &items {
            assert!(put(&cache, item));
            expected_size += item.size;
        }
        let stats = cache.stats();
        assert_eq!(stats.evictions, 1);
        assert!(expected_size as f64 > 100_000.0 * 0.99);
        assert!(stats.size_bytes < 100_000);
        assert!((stats.size_bytes as f64) < 100_000.0 * 0.99);
        assert_eq!(get(&cache, &items[0]), None);
        for item in &items[1..] {
            assert_eq!(get(&cache, item).as_deref(), Some(item.value.as_str()));
        }
    }

    /// testCacheEvictionTwoPriorities: five multi and five single blocks of 10 000 bytes; the
    /// run takes the oldest of each (multi barely overflows; single is asked for a negative
    /// amount after multi overshot, and still gives one block, as in HBase).
    #[test]
    fn hbase_cache_eviction_two_priorities() {
        let cache = BlockCache::new(100_000);
        let single = blocks(5, 10_000, 1, "single");
        let multi = blocks(5, 10_000, 2, "multi");
        let mut expected_size = 0;
        for item in &multi {
            put(&cache, item);
            expected_size += item.size;
            assert_eq!(get(&cache, item).as_deref(), Some(item.value.as_str()));
        }
        for item in &single {
            put(&cache, item);
            expected_size += item.size;
        }
        let stats = cache.stats();
        assert_eq!(stats.evictions, 1);
        assert_eq!(stats.evicted_blocks, 2);
        assert!(expected_size as f64 > 100_000.0 * 0.99);
        assert!(stats.size_bytes <= 100_000);
        assert!(stats.size_bytes as f64 <= 100_000.0 * 0.99);
        assert_eq!(get(&cache, &single[0]), None);
        assert_eq!(get(&cache, &multi[0]), None);
        for i in 1..4 {
            assert_eq!(
                get(&cache, &single[i]).as_deref(),
                Some(single[i].value.as_str())
            );
            assert_eq!(
                get(&cache, &multi[i]).as_deref(),
                Some(multi[i].value.as_str())
            );
        }
    }

    /// testCacheEvictionThreePriorities: each bucket gives up its own oldest block when it is
    /// the one overflowing, and a block three times the size makes a bucket give up three.
    #[test]
    fn hbase_cache_eviction_three_priorities() {
        let cache = BlockCache::with_config(100_000, config(0.98, 0.99, 0.33, 0.33, 0.34)).unwrap();
        let single = blocks(5, B, 1, "single");
        let multi = blocks(5, B, 2, "multi");
        let memory = blocks(5, B, 3, "memory");
        let mut expected_size = 0;
        for i in 0..3 {
            put(&cache, &single[i]);
            put(&cache, &multi[i]);
            get(&cache, &multi[i]);
            put_in_memory(&cache, &memory[i]);
            expected_size += 3 * B;
        }
        assert_eq!(cache.stats().evictions, 0);
        assert_eq!(cache.stats().size_bytes, expected_size);

        // A single block: the oldest single goes.
        put(&cache, &single[3]);
        assert_eq!(
            (cache.stats().evictions, cache.stats().evicted_blocks),
            (1, 1)
        );
        assert_eq!(get(&cache, &single[0]), None);

        // Promote the oldest remaining single; then a new single makes multi overflow.
        get(&cache, &single[1]);
        put(&cache, &single[4]);
        assert_eq!(
            (cache.stats().evictions, cache.stats().evicted_blocks),
            (2, 2)
        );
        assert_eq!(get(&cache, &multi[0]), None);

        // A memory block: the oldest memory block goes.
        put_in_memory(&cache, &memory[3]);
        assert_eq!(
            (cache.stats().evictions, cache.stats().evicted_blocks),
            (3, 3)
        );
        assert_eq!(get(&cache, &memory[0]), None);

        // A single block three times the size: the three remaining singles go.
        let big = blocks(3, 3 * B, 4, "big");
        put(&cache, &big[0]);
        assert_eq!(
            (cache.stats().evictions, cache.stats().evicted_blocks),
            (4, 6)
        );
        assert_eq!(get(&cache, &single[2]), None);
        assert_eq!(get(&cache, &single[3]), None);
        assert_eq!(get(&cache, &single[4]), None);

        // Make the big block multi; another big single: the three older multis go.
        get(&cache, &big[0]);
        put(&cache, &big[1]);
        assert_eq!(
            (cache.stats().evictions, cache.stats().evicted_blocks),
            (5, 9)
        );
        assert_eq!(get(&cache, &single[1]), None);
        assert_eq!(get(&cache, &multi[1]), None);
        assert_eq!(get(&cache, &multi[2]), None);

        // A big memory block: the three remaining memory blocks go.
        put_in_memory(&cache, &big[2]);
        assert_eq!(
            (cache.stats().evictions, cache.stats().evicted_blocks),
            (6, 12)
        );
        assert_eq!(get(&cache, &memory[1]), None);
        assert_eq!(get(&cache, &memory[2]), None);
        assert_eq!(get(&cache, &memory[3]), None);
        cache.check_invariants();
    }

    /// testCacheEvictionInMemoryForceMode: in force mode in-memory blocks push out single and
    /// multi blocks (keeping them near 1 : 2) until only in-memory blocks are left; then the
    /// oldest in-memory block goes, and a new single block evicts itself.
    #[test]
    fn hbase_cache_eviction_in_memory_force_mode() {
        let mut cfg = config(0.98, 0.99, 0.2, 0.3, 0.5);
        cfg.force_in_memory = true;
        let cache = BlockCache::with_config(100_000, cfg).unwrap();
        let single = blocks(10, B, 1, "single");
        let multi = blocks(10, B, 2, "multi");
        let memory = blocks(10, B, 3, "memory");
        let runs = |c: &BlockCache<String>| (c.stats().evictions, c.stats().evicted_blocks);

        // 0. si:mu:me = 5:4:0, no eviction yet.
        for i in 0..4 {
            put(&cache, &single[i]);
            put(&cache, &multi[i]);
            get(&cache, &multi[i]);
        }
        put(&cache, &single[4]);
        assert_eq!(cache.stats().evictions, 0);
        assert_eq!(cache.stats().size_bytes, 9 * B);

        // 1. A memory block: the oldest single goes, 4:4:1.
        put_in_memory(&cache, &memory[0]);
        assert_eq!(runs(&cache), (1, 1));
        assert_eq!(get(&cache, &single[0]), None);

        // 2. Another: the next single goes, 3:4:2.
        put_in_memory(&cache, &memory[1]);
        assert_eq!(runs(&cache), (2, 2));
        assert_eq!(get(&cache, &single[1]), None);

        // 3. Four more: two singles and two multis go, 1:2:6.
        for item in &memory[2..6] {
            put_in_memory(&cache, item);
        }
        assert_eq!(runs(&cache), (6, 6));
        assert_eq!(get(&cache, &single[2]), None);
        assert_eq!(get(&cache, &single[3]), None);
        assert_eq!(get(&cache, &multi[0]), None);
        assert_eq!(get(&cache, &multi[1]), None);

        // 4. Three more: the last single and two multis go, 0:0:9.
        for item in &memory[6..9] {
            put_in_memory(&cache, item);
        }
        assert_eq!(runs(&cache), (9, 9));
        assert_eq!(get(&cache, &single[4]), None);
        assert_eq!(get(&cache, &multi[2]), None);
        assert_eq!(get(&cache, &multi[3]), None);

        // 5. One more: the oldest memory block goes, still 0:0:9.
        put_in_memory(&cache, &memory[9]);
        assert_eq!(runs(&cache), (10, 10));
        assert_eq!(get(&cache, &memory[0]), None);

        // 6. A single block is admitted and evicted at once: memory blocks outrank it.
        assert!(put(&cache, &single[9]));
        assert_eq!(runs(&cache), (11, 11));
        assert_eq!(get(&cache, &single[9]), None);
        assert_eq!(cache.stats().in_memory_size_bytes, 9 * B);
        cache.check_invariants();
    }

    /// testScanResistance: a stream of single blocks (a scan) takes its evictions from the
    /// single bucket once multi is down to its share.
    #[test]
    fn hbase_scan_resistance() {
        let cache = BlockCache::with_config(100_000, config(0.66, 0.99, 0.33, 0.33, 0.34)).unwrap();
        let single = blocks(20, B, 1, "single");
        let multi = blocks(5, B, 2, "multi");
        for item in &multi {
            put(&cache, item);
            get(&cache, item);
        }
        for item in &single[..5] {
            put(&cache, item);
        }
        // One run; to get down to two thirds it evicts four blocks, two from each bucket.
        assert_eq!(cache.stats().evictions, 1);
        assert_eq!(cache.stats().evicted_blocks, 4);
        assert_eq!(get(&cache, &single[0]), None);
        assert_eq!(get(&cache, &single[1]), None);
        assert_eq!(get(&cache, &multi[0]), None);
        assert_eq!(get(&cache, &multi[1]), None);

        // Every fourth insert reaches ten blocks and a run evicts four.
        for item in &single[5..18] {
            put(&cache, item);
        }
        assert_eq!(cache.stats().evictions, 4);
        assert_eq!(cache.stats().evicted_blocks, 16);
        assert_eq!(cache.stats().block_count, 7);
        // The scan did not flush the multi blocks that were within their share.
        assert!(cache.contains(&multi[3].key));
        assert!(cache.contains(&multi[4].key));
    }

    /// testMaxBlockSize: blocks over `hbase.lru.max.block.size` are refused and counted.
    #[test]
    fn hbase_max_block_size() {
        let mut cfg = config(0.66, 0.99, 0.33, 0.33, 0.34);
        cfg.max_block_size = 1024;
        let cache = BlockCache::with_config(100_000, cfg).unwrap();
        let too_long = blocks(10, 1024 + 5, 1, "long");
        let small = blocks(15, 600, 2, "small");
        for item in &too_long {
            assert!(!put(&cache, item));
        }
        for item in &small {
            assert!(put(&cache, item));
        }
        assert_eq!(cache.stats().block_count, 15);
        for item in &small {
            assert!(get(&cache, item).is_some());
        }
        for item in &too_long {
            assert_eq!(get(&cache, item), None);
        }
        assert_eq!(cache.stats().failed_inserts, 10);
        // Exactly max_block_size is admitted (HBase refuses only sizes above it).
        assert!(cache.insert(
            BlockCacheKey::new(3, 0),
            Arc::new("edge".into()),
            1024,
            false
        ));
    }

    #[test]
    fn blocks_above_the_acceptable_size_are_refused() {
        let cache: BlockCache<u32> = BlockCache::new(1_000); // acceptable 990
        assert!(!cache.insert(BlockCacheKey::new(1, 0), Arc::new(0), 991, false));
        assert!(!cache.insert(BlockCacheKey::new(1, 1), Arc::new(1), 5_000, true));
        assert_eq!(cache.stats().failed_inserts, 2);
        assert_eq!(cache.stats().block_count, 0);
        assert!(cache.insert(BlockCacheKey::new(1, 2), Arc::new(2), 990, false));
        assert_eq!(cache.stats().evictions, 0);
        assert!(cache.contains(&BlockCacheKey::new(1, 2)));
    }

    #[test]
    fn duplicate_insert_keeps_the_existing_entry() {
        let cache: BlockCache<&str> = BlockCache::new(10_000);
        let key = BlockCacheKey::new(1, 0);
        assert!(cache.insert(key, Arc::new("first"), 100, false));
        assert!(!cache.insert(key, Arc::new("second"), 300, true));
        let stats = cache.stats();
        assert_eq!((stats.size_bytes, stats.block_count), (100, 1));
        assert_eq!(
            (stats.single_size_bytes, stats.in_memory_size_bytes),
            (100, 0)
        );
        assert_eq!(stats.failed_inserts, 0);
        assert_eq!(cache.get(&key).as_deref(), Some(&"first"));
    }

    #[test]
    fn second_access_promotes_single_to_multi() {
        let cache: BlockCache<u8> = BlockCache::new(10_000);
        let (a, m) = (BlockCacheKey::new(1, 0), BlockCacheKey::new(1, 100));
        cache.insert(a, Arc::new(1), 100, false);
        cache.insert(m, Arc::new(2), 40, true);
        let sizes = |s: BlockCacheStats| {
            (
                s.single_size_bytes,
                s.multi_size_bytes,
                s.in_memory_size_bytes,
            )
        };
        assert_eq!(sizes(cache.stats()), (100, 0, 40));
        // contains() is not an access.
        assert!(cache.contains(&a));
        assert_eq!(sizes(cache.stats()), (100, 0, 40));
        cache.get(&a);
        assert_eq!(sizes(cache.stats()), (0, 100, 40));
        cache.get(&a);
        assert_eq!(sizes(cache.stats()), (0, 100, 40));
        // In-memory blocks stay in-memory when read.
        cache.get(&m);
        assert_eq!(sizes(cache.stats()), (0, 100, 40));
        cache.check_invariants();
    }

    /// An in-memory block survives a flood of single blocks that evicts every one of its
    /// contemporaries; inserted as a single block, the same block would be the first to go.
    #[test]
    fn in_memory_block_outlives_single_blocks() {
        for in_memory in [true, false] {
            let cache: BlockCache<u64> = BlockCache::new(100_000);
            let special = BlockCacheKey::new(9, 0);
            cache.insert(special, Arc::new(0), 10_000, in_memory);
            for i in 0..30 {
                cache.insert(BlockCacheKey::new(1, i), Arc::new(i), 10_000, false);
            }
            assert!(cache.stats().evicted_blocks >= 20);
            assert!(!cache.contains(&BlockCacheKey::new(1, 0)));
            assert_eq!(
                cache.contains(&special),
                in_memory,
                "in_memory = {in_memory}"
            );
        }
    }

    /// Likewise a block read once (multi) outlives the scan's single blocks.
    #[test]
    fn multi_block_outlives_single_blocks() {
        let cache: BlockCache<u64> = BlockCache::new(100_000);
        let hot = BlockCacheKey::new(9, 0);
        cache.insert(hot, Arc::new(0), 10_000, false);
        assert!(cache.get(&hot).is_some());
        for i in 0..30 {
            cache.insert(BlockCacheKey::new(1, i), Arc::new(i), 10_000, false);
        }
        assert!(cache.contains(&hot));
    }

    #[test]
    fn evict_file_removes_only_that_files_blocks() {
        let cache: BlockCache<(u64, u64)> = BlockCache::new(1_000_000);
        for file in [1, 2, 3] {
            for offset in [0, 4_096, 8_192, u64::MAX] {
                let in_memory = offset == 0;
                cache.insert(
                    BlockCacheKey::new(file, offset),
                    Arc::new((file, offset)),
                    100 * file,
                    in_memory,
                );
            }
        }
        let before = cache.stats();
        assert_eq!(before.size_bytes, 4 * (100 + 200 + 300));

        assert_eq!(cache.evict_file(2), 4);
        let after = cache.stats();
        assert_eq!(after.block_count, 8);
        assert_eq!(after.size_bytes, 4 * (100 + 300));
        for offset in [0, 4_096, 8_192, u64::MAX] {
            assert!(!cache.contains(&BlockCacheKey::new(2, offset)));
            assert!(cache.contains(&BlockCacheKey::new(1, offset)));
            assert!(cache.contains(&BlockCacheKey::new(3, offset)));
        }
        // A removal, not an eviction.
        assert_eq!(
            (after.evictions, after.evicted_blocks, after.evicted_bytes),
            (0, 0, 0)
        );
        assert_eq!(cache.evict_file(2), 0);
        assert_eq!(cache.evict_file(42), 0);
        cache.check_invariants();
        // The file's keys can be cached again afterwards.
        assert!(cache.insert(BlockCacheKey::new(2, 0), Arc::new((2, 0)), 10, false));
    }

    #[test]
    fn stats_counters_are_exact() {
        let cache: BlockCache<u64> = BlockCache::new(1_000); // acceptable 990, min 950
        let k = |i: u64| BlockCacheKey::new(1, i);
        assert_eq!(cache.stats().hit_ratio(), 0.0);
        for i in 0..9 {
            assert!(cache.insert(k(i), Arc::new(i), 100, false));
        }
        assert!(cache.insert(k(100), Arc::new(100), 50, true));
        cache.get(&k(0)); // hit, promotes
        cache.get(&k(1)); // hit, promotes
        cache.get(&k(50)); // miss
        assert!(!cache.insert(k(200), Arc::new(200), 991, false)); // refused
        assert!(!cache.insert(k(0), Arc::new(0), 100, false)); // duplicate: not counted
        let stats = cache.stats();
        assert_eq!(
            stats,
            BlockCacheStats {
                hits: 2,
                misses: 1,
                evictions: 0,
                evicted_blocks: 0,
                evicted_bytes: 0,
                failed_inserts: 1,
                size_bytes: 950,
                block_count: 10,
                capacity_bytes: 1_000,
                single_size_bytes: 700,
                multi_size_bytes: 200,
                in_memory_size_bytes: 50,
            }
        );
        assert!((stats.hit_ratio() - 2.0 / 3.0).abs() < 1e-12);

        // 1 050 > 990: one run frees 1 050 - 950 = 100 bytes. Targets: single 237, multi 475,
        // memory 237; overflows -275 (multi), -187 (memory), 563 (single, 800 bytes): single is
        // last and frees min(563, 100): its oldest block, k(2).
        assert!(cache.insert(k(9), Arc::new(9), 100, false));
        let stats = cache.stats();
        assert_eq!(
            (stats.evictions, stats.evicted_blocks, stats.evicted_bytes),
            (1, 1, 100)
        );
        assert_eq!((stats.size_bytes, stats.block_count), (950, 10));
        assert_eq!(stats.single_size_bytes, 700);
        assert!(!cache.contains(&k(2)));
        assert_eq!(cache.capacity(), 1_000);
        assert_eq!(stats.capacity_bytes, 1_000);
    }

    #[test]
    fn thresholds_are_decimal_exact() {
        // In f64, 100 × 0.29 is 28.999999999999996.
        let limits = Limits::new(100, &config(0.2, 0.29, 0.25, 0.5, 0.25));
        assert_eq!(limits.acceptable_size, 29);
        assert_eq!(limits.min_size, 20);
        assert_eq!(limits.bucket_targets, [5, 10, 5]);
        let limits = Limits::new(100_000, &config(0.98, 0.99, 0.33, 0.33, 0.34));
        assert_eq!(limits.bucket_targets, [32_340, 32_340, 33_320]);
        let limits = Limits::new(u64::MAX, &BlockCacheConfig::default());
        assert_eq!(
            limits.max_admissible,
            BlockCacheConfig::DEFAULT_MAX_BLOCK_SIZE
        );
        assert!(limits.acceptable_size > limits.min_size);
    }

    #[test]
    fn config_validation_follows_hbase() {
        assert_eq!(BlockCacheConfig::default().validate(), Ok(()));
        let ok = |c: BlockCacheConfig| c.validate().is_ok();
        assert!(ok(config(0.98, 0.99, 0.33, 0.33, 0.34)));
        assert!(ok(config(0.5, 0.6, 0.0, 0.0, 1.0)));
        assert!(
            !ok(config(0.95, 0.99, 0.25, 0.5, 0.5)),
            "shares sum to 1.25"
        );
        assert!(!ok(config(0.95, 0.99, 0.5, 0.75, -0.25)), "negative share");
        assert!(!ok(config(0.95, 0.99, f64::NAN, 0.5, 0.5)), "NaN share");
        assert!(
            !ok(config(0.99, 0.99, 0.25, 0.5, 0.25)),
            "min == acceptable"
        );
        assert!(!ok(config(0.99, 0.95, 0.25, 0.5, 0.25)), "min > acceptable");
        assert!(!ok(config(0.95, 1.0, 0.25, 0.5, 0.25)), "acceptable == 1");
        assert!(!ok(config(0.0, 0.99, 0.25, 0.5, 0.25)), "min == 0");
        assert!(!ok(config(f64::NAN, 0.99, 0.25, 0.5, 0.25)), "NaN min");
        let err =
            BlockCache::<u8>::with_config(10, config(0.99, 0.95, 0.25, 0.5, 0.25)).unwrap_err();
        assert_eq!(
            err,
            CacheConfigError::Thresholds {
                min: 0.99,
                acceptable: 0.95
            }
        );
    }

    #[test]
    fn config_set_reads_hbase_keys() {
        let mut c = BlockCacheConfig::default();
        assert_eq!(c.set(SINGLE_PERCENTAGE_KEY, "0.2"), Ok(true));
        assert_eq!(c.set(MULTI_PERCENTAGE_KEY, " 0.3 "), Ok(true));
        assert_eq!(c.set(MEMORY_PERCENTAGE_KEY, "0.5"), Ok(true));
        assert_eq!(c.set(MIN_FACTOR_KEY, "0.8"), Ok(true));
        assert_eq!(c.set(ACCEPTABLE_FACTOR_KEY, "0.9"), Ok(true));
        assert_eq!(c.set(IN_MEMORY_FORCE_MODE_KEY, "true"), Ok(true));
        assert_eq!(c.set(MAX_BLOCK_SIZE_KEY, "4096"), Ok(true));
        assert_eq!(c.set("hbase.regionserver.handler.count", "30"), Ok(false));
        assert!(matches!(
            c.set(MIN_FACTOR_KEY, "lots"),
            Err(CacheConfigError::InvalidValue { .. })
        ));
        assert_eq!(
            c,
            BlockCacheConfig {
                single_factor: 0.2,
                multi_factor: 0.3,
                memory_factor: 0.5,
                acceptable_factor: 0.9,
                min_factor: 0.8,
                force_in_memory: true,
                max_block_size: 4096,
            }
        );
        assert_eq!(c.validate(), Ok(()));
    }

    #[test]
    fn values_outlive_their_eviction() {
        let cache: BlockCache<Vec<u8>> = BlockCache::new(1_000);
        let key = BlockCacheKey::new(1, 0);
        cache.insert(key, Arc::new(vec![7; 16]), 500, false);
        let held = cache.get(&key).unwrap();
        cache.evict_file(1);
        assert!(!cache.contains(&key));
        assert_eq!(*held, vec![7; 16]);
    }

    #[test]
    fn is_send_and_sync_and_usable_across_threads() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<BlockCache<Vec<u8>>>();
        assert_send_sync::<Arc<BlockCache<String>>>();

        let cache: Arc<BlockCache<u64>> = Arc::new(BlockCache::new(50_000));
        let threads: Vec<_> = (0..4u64)
            .map(|t| {
                let cache = Arc::clone(&cache);
                std::thread::spawn(move || {
                    for i in 0..2_000u64 {
                        let key = BlockCacheKey::new(i % 7, (i * 31 + t) % 500);
                        match i % 5 {
                            0 | 1 => {
                                cache.insert(key, Arc::new(i), 100 + (i % 900), i % 11 == 0);
                            }
                            4 if i % 97 == 0 => {
                                cache.evict_file(t);
                            }
                            _ => {
                                if let Some(v) = cache.get(&key) {
                                    assert!(*v < 2_000);
                                }
                            }
                        }
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        let size = cache.check_invariants();
        assert!(size <= 49_500);
        let stats = cache.stats();
        assert_eq!(stats.size_bytes, size);
        assert!(stats.evictions > 0);
    }

    #[derive(Debug, Clone)]
    enum Op {
        Insert {
            file: u64,
            offset: u64,
            size: u64,
            in_memory: bool,
        },
        Get {
            file: u64,
            offset: u64,
        },
        EvictFile {
            file: u64,
        },
    }

    fn op(capacity: u64) -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (0..4u64, 0..24u64, 0..=capacity / 4, any::<bool>()).prop_map(
                |(file, offset, size, in_memory)| Op::Insert { file, offset, size, in_memory }
            ),
            1 => (0..4u64, 0..24u64, capacity / 4..=capacity + capacity / 8, any::<bool>())
                .prop_map(|(file, offset, size, in_memory)| Op::Insert { file, offset, size, in_memory }),
            5 => (0..4u64, 0..24u64).prop_map(|(file, offset)| Op::Get { file, offset }),
            1 => (0..4u64).prop_map(|file| Op::EvictFile { file }),
        ]
    }

    fn config_strategy() -> impl Strategy<Value = BlockCacheConfig> {
        prop_oneof![
            Just(BlockCacheConfig::default()),
            Just(config(0.98, 0.99, 0.33, 0.33, 0.34)),
            Just(config(0.66, 0.99, 0.33, 0.33, 0.34)),
            Just(BlockCacheConfig {
                force_in_memory: true,
                ..config(0.98, 0.99, 0.2, 0.3, 0.5)
            }),
            Just(config(0.5, 0.6, 0.0, 0.0, 1.0)),
            (1u32..=8, 1u32..=8, 50u32..=90, 1u32..=9, any::<bool>()).prop_map(
                |(s, m, min, gap, force)| {
                    let total = f64::from(s + m + 4);
                    BlockCacheConfig {
                        single_factor: f64::from(s) / total,
                        multi_factor: f64::from(m) / total,
                        memory_factor: 4.0 / total,
                        min_factor: f64::from(min) / 100.0,
                        acceptable_factor: f64::from(min + gap) / 100.0,
                        force_in_memory: force,
                        ..BlockCacheConfig::default()
                    }
                }
            ),
        ]
    }

    fn scenario() -> impl Strategy<Value = (u64, BlockCacheConfig, Vec<Op>)> {
        (1_000u64..=200_000, config_strategy()).prop_flat_map(|(capacity, cfg)| {
            (
                Just(capacity),
                Just(cfg),
                proptest::collection::vec(op(capacity), 1..200),
            )
        })
    }

    proptest! {
        /// After every operation: the accounted size equals the sum of the cached entries'
        /// sizes (and every internal index agrees), the cache holds no more than the acceptable
        /// size, `get` returns the value that was inserted, and `insert`'s answer is exact.
        #[test]
        fn accounting_and_bound_hold_for_any_sequence((capacity, cfg, ops) in scenario()) {
            let cache: BlockCache<(u64, u64, u64)> = BlockCache::with_config(capacity, cfg).unwrap();
            let acceptable = cache.limits.acceptable_size;
            prop_assert!(acceptable <= capacity);
            let mut version = 0u64;
            let mut last_inserted = std::collections::HashMap::new();
            for op in ops {
                match op {
                    Op::Insert { file, offset, size, in_memory } => {
                        let key = BlockCacheKey::new(file, offset);
                        version += 1;
                        let was_cached = cache.contains(&key);
                        let fits = size <= acceptable && size <= cfg.max_block_size;
                        let admitted = cache.insert(key, Arc::new((file, offset, version)), size, in_memory);
                        prop_assert_eq!(admitted, fits && !was_cached);
                        if admitted {
                            last_inserted.insert(key, version);
                        }
                        prop_assert!(cache.stats().size_bytes <= acceptable,
                            "{} cached > acceptable {}", cache.stats().size_bytes, acceptable);
                    }
                    Op::Get { file, offset } => {
                        let key = BlockCacheKey::new(file, offset);
                        if let Some(v) = cache.get(&key) {
                            prop_assert_eq!(*v, (file, offset, last_inserted[&key]));
                        }
                    }
                    Op::EvictFile { file } => {
                        cache.evict_file(file);
                        for offset in 0..24 {
                            prop_assert!(!cache.contains(&BlockCacheKey::new(file, offset)));
                        }
                    }
                }
                let sum = cache.check_invariants();
                let stats = cache.stats();
                prop_assert_eq!(stats.size_bytes, sum);
                prop_assert_eq!(
                    stats.single_size_bytes + stats.multi_size_bytes + stats.in_memory_size_bytes,
                    sum
                );
            }
        }
    }
}
