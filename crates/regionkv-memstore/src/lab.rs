//! The MSLAB arena: chunks that a segment copies its cells into with a bump pointer, and the
//! chunk pool shared by every memstore of a database (HBase's `MemStoreLABImpl`, `Chunk` and
//! `ChunkCreator`).
//!
//! Why regionkv has an arena (HBase's reason, JVM heap fragmentation, does not apply to a
//! program without a moving garbage collector):
//!
//! 1. **Allocation cost.** One `malloc` per chunk (2 MiB once a segment has grown) instead of
//!    one per cell; the common path of an insert is one compare-and-swap on the chunk's
//!    offset and a `memcpy`.
//! 2. **Locality.** The cells of a segment sit next to each other in a few large blocks, in
//!    insertion order, instead of being interleaved with every other allocation of the
//!    process; and there is no per-allocation header or size-class rounding between them.
//! 3. **Bulk free.** A flushed segment gives back its memory as a handful of chunks (to the
//!    pool, already faulted in, for the next active segment) instead of a million `free`s.
//! 4. **Exact accounting.** The heap a segment holds is the sum of its chunks plus its index
//!    entries, known at the moment it is taken, not an estimate of what the allocator does.
//!
//! `docs/benchmarks.md` ("MemStore") measures 1 to 3 with MSLAB on and off.
//!
//! **Chunks are taken lazily, and a segment's first chunks are small.** An arena takes no
//! chunk until its first cell (as HBase's `MemStoreLABImpl` makes its first chunk on the
//! first copy). Its first chunk is `initial_chunk_size` bytes (4 KiB by default), each later
//! one twice the one before, up to `chunk_size`; a record that does not fit the next size
//! gets the smallest power of two that holds it instead (never more than `chunk_size`, which
//! holds any record up to `max_alloc`). The reason is memory outside the budget (issue 24):
//! a store with a few unflushed cells should cost a few KiB, not a whole 2 MiB chunk. With
//! a full-size first chunk, 1,000 families with one cell each held 2 GB of RSS, because
//! where large blocks get transparent huge pages (mimalloc, which the `regionkv` binary
//! links, or a kernel with THP set to `always`) the first byte written makes all 2 MiB
//! resident. The growth costs a store that fills up about ten more allocations per segment
//! (4 KiB, 8 KiB … 1 MiB: 2 MiB in all before the first full chunk), and while it grows a
//! segment holds at most about twice the bytes it stores; under mimalloc with huge pages
//! the small chunks also cost a fixed 6 MiB or so of RSS (measured once per process, not
//! per store or segment: they fill huge pages only in part; `docs/benchmarks.md`, "Memory
//! per store"). Only full-size chunks come from and go back to the [`ChunkPool`]: pooled
//! chunks must be interchangeable, and the small ones are cheap to allocate. Every chunk
//! counts in the segment's heap size at its full length from the moment it is taken
//! (`size.rs`), so the Db-wide memstore budget sees the slack too.
//!
//! The arena owns every cell byte of its segment: cells up to `max_alloc` bytes are copied
//! into chunks; larger ones (or all, with MSLAB off) get a heap buffer of their own, linked
//! into a list the arena frees when it drops. Both hold a cell record (`record.rs`). Nothing
//! is freed before the arena drops, so a record's address stays valid and unique for the
//! segment's whole life; the skiplist relies on that. A record never straddles two chunks.
//!
//! Concurrency: `MemStoreLab::copy_cell` may be called from any number of threads at once.
//! A thread reserves its bytes in the current chunk by a compare-and-swap on the chunk's
//! `next_free` offset, so reservations never overlap; when a cell does not fit, one thread
//! (under the `chunks` mutex) retires the chunk and installs a new one while the others wait
//! for that mutex and then retry on the new chunk. Own buffers are pushed on their list by a
//! compare-and-swap on its head. The chunk size only changes under that mutex, so the
//! lock-free path is the same for small and full-size chunks.

use crate::record;
use parking_lot::Mutex;
use std::fmt;
use std::mem::MaybeUninit;
use std::ptr::{self, NonNull};
use std::sync::Arc;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};

/// HBase's key to turn the arena on or off (default [`DEFAULT_MSLAB_ENABLED`]).
pub const MSLAB_ENABLED_KEY: &str = "hbase.hregion.memstore.mslab.enabled";
/// HBase's key for the chunk size in bytes (default [`DEFAULT_CHUNK_SIZE`]).
pub const CHUNK_SIZE_KEY: &str = "hbase.hregion.memstore.mslab.chunksize";
/// HBase's key for the largest cell copied into a chunk (default [`DEFAULT_MAX_ALLOC`]);
/// larger cells get a heap buffer of their own.
pub const MAX_ALLOC_KEY: &str = "hbase.hregion.memstore.mslab.max.allocation";
/// HBase's key for the chunk pool size. HBase reads a fraction of the global memstore size;
/// regionkv reads a number of chunks ([`ChunkPool::new`]'s `max_pooled_chunks`).
pub const CHUNK_POOL_MAXSIZE_KEY: &str = "hbase.hregion.memstore.chunkpool.maxsize";

/// HBase's default for [`MSLAB_ENABLED_KEY`].
pub const DEFAULT_MSLAB_ENABLED: bool = true;
/// HBase's default for [`CHUNK_SIZE_KEY`]: 2 MiB.
pub const DEFAULT_CHUNK_SIZE: usize = 2 * 1024 * 1024;
/// HBase's default for [`MAX_ALLOC_KEY`]: 256 KiB.
pub const DEFAULT_MAX_ALLOC: usize = 256 * 1024;
/// regionkv's default for [`MemStoreConfig::initial_chunk_size`]: 4 KiB, one page. HBase
/// has no such setting (all its chunks are [`CHUNK_SIZE_KEY`] bytes).
pub const DEFAULT_INITIAL_CHUNK_SIZE: usize = 4 * 1024;

/// How one memstore lays out its cells.
///
/// Normalisation done by [`crate::MemStore::new`] (HBase rejects the second case at start;
/// we log a warning and repair it, because a memstore cannot fail to open):
/// * with a `pool`, the pool's chunk size replaces `chunk_size`;
/// * `max_alloc` larger than the chunk size is lowered to the chunk size (a larger request
///   could never fit in a fresh chunk);
/// * `chunk_size == 0` or `max_alloc == 0` means every cell gets its own buffer, as with
///   `mslab_enabled == false`;
/// * `initial_chunk_size` of 0 or above the chunk size means every chunk is full-size
///   (HBase's layout).
#[derive(Clone, Debug)]
pub struct MemStoreConfig {
    /// Copy cells into chunks ([`MSLAB_ENABLED_KEY`]); `false`: one heap buffer per cell.
    pub mslab_enabled: bool,
    /// Bytes per full-size chunk ([`CHUNK_SIZE_KEY`]), the only size the pool holds.
    pub chunk_size: usize,
    /// Bytes of a segment's first chunk; each later chunk doubles the one before until
    /// `chunk_size` (see the module docs). Default [`DEFAULT_INITIAL_CHUNK_SIZE`].
    pub initial_chunk_size: usize,
    /// Largest cell (key + value bytes) copied into a chunk ([`MAX_ALLOC_KEY`]).
    pub max_alloc: usize,
    /// Pool to take chunks from and give them back to; `None`: chunks are allocated and
    /// freed directly.
    pub pool: Option<Arc<ChunkPool>>,
}

impl Default for MemStoreConfig {
    /// HBase's defaults: MSLAB on, 2 MiB chunks, 256 KiB max allocation, no pool; plus
    /// regionkv's 4 KiB first chunk.
    fn default() -> Self {
        Self {
            mslab_enabled: DEFAULT_MSLAB_ENABLED,
            chunk_size: DEFAULT_CHUNK_SIZE,
            initial_chunk_size: DEFAULT_INITIAL_CHUNK_SIZE,
            max_alloc: DEFAULT_MAX_ALLOC,
            pool: None,
        }
    }
}

/// [`MemStoreConfig`] after normalisation: what each segment's arena is built from.
#[derive(Clone, Debug)]
pub(crate) struct LabSettings {
    pub(crate) chunk_size: usize,
    /// Size of an arena's first chunk; `1..=chunk_size` whenever `chunk_size > 0`.
    pub(crate) initial_chunk_size: usize,
    /// Largest record (header, key, value) copied into a chunk; 0: no chunks at all.
    pub(crate) max_alloc: usize,
    pub(crate) pool: Option<Arc<ChunkPool>>,
}

impl LabSettings {
    /// No chunks: every cell gets its own buffer (MSLAB off).
    pub(crate) fn own_buffers_only() -> Self {
        Self {
            chunk_size: 0,
            initial_chunk_size: 0,
            max_alloc: 0,
            pool: None,
        }
    }

    /// Applies the normalisation rules of [`MemStoreConfig`].
    pub(crate) fn from_config(config: &MemStoreConfig) -> Self {
        if !config.mslab_enabled {
            return Self::own_buffers_only();
        }
        let chunk_size = match &config.pool {
            Some(pool) => {
                if pool.chunk_size() != config.chunk_size {
                    tracing::warn!(
                        configured = config.chunk_size,
                        pool = pool.chunk_size(),
                        "{CHUNK_SIZE_KEY} differs from the chunk pool's chunk size; using the pool's"
                    );
                }
                pool.chunk_size()
            }
            None => config.chunk_size,
        };
        let mut max_alloc = config.max_alloc;
        if max_alloc > chunk_size {
            tracing::warn!(
                max_alloc,
                chunk_size,
                "{MAX_ALLOC_KEY} must not exceed {CHUNK_SIZE_KEY}; lowering it to the chunk size"
            );
            max_alloc = chunk_size;
        }
        if chunk_size == 0 || max_alloc == 0 {
            return Self::own_buffers_only();
        }
        let initial_chunk_size = match config.initial_chunk_size {
            0 => chunk_size,
            n => n.min(chunk_size),
        };
        Self {
            chunk_size,
            initial_chunk_size,
            max_alloc,
            pool: config.pool.clone(),
        }
    }
}

/// The bytes of one chunk: a heap block of `len` bytes, uninitialised until written.
///
/// Invariant: `block` comes from `Box::<[MaybeUninit<u8>]>::leak` and is freed exactly
/// once, by `Drop`. It is written only through [`Chunk::try_copy`], into ranges reserved
/// by its `next_free` counter.
struct ChunkMemory {
    block: NonNull<[MaybeUninit<u8>]>,
}

// SAFETY: `ChunkMemory` owns its block exclusively (like a `Box<[u8]>`, which is `Send`);
// the raw pointer only hides that ownership from the compiler.
unsafe impl Send for ChunkMemory {}
// SAFETY: shared access hands out no `&mut`; concurrent writers go through
// `Chunk::try_copy`, which writes only a range its compare-and-swap reserved for the
// calling thread alone, and readers read only ranges whose writing finished before the
// cell was published in the segment's index (a release/acquire pair in the skiplist).
unsafe impl Sync for ChunkMemory {}

impl ChunkMemory {
    fn allocate(len: usize) -> Self {
        let block: Box<[MaybeUninit<u8>]> = Box::new_uninit_slice(len);
        Self {
            block: NonNull::from(Box::leak(block)),
        }
    }

    fn len(&self) -> usize {
        self.block.len()
    }
}

impl Drop for ChunkMemory {
    fn drop(&mut self) {
        // SAFETY: `block` came from `Box::leak` (struct invariant) and `drop` runs once.
        // No reference into the block outlives this: chunks are dropped or pooled only
        // when their `MemStoreLab` drops, which happens after its segment's index (and
        // every scanner, which holds an `Arc` of the segment) is gone.
        drop(unsafe { Box::from_raw(self.block.as_ptr()) });
    }
}

/// A chunk in use by one arena: its memory plus the bump offset.
struct Chunk {
    memory: ChunkMemory,
    /// Offset of the first free byte. Never exceeds `memory.len()`.
    next_free: AtomicUsize,
    /// The chunk belongs to the arena's pool and goes back to it when the arena drops.
    pooled: bool,
}

impl Chunk {
    fn new(memory: ChunkMemory, pooled: bool) -> Self {
        Self {
            memory,
            next_free: AtomicUsize::new(0),
            pooled,
        }
    }

    /// Copies the record `header`, `key`, `value` into the next free bytes and returns
    /// where it starts, or `None` when it does not fit in what is left of the chunk.
    fn try_copy(&self, pieces: &[&[u8]; 4]) -> Option<NonNull<u8>> {
        let len = pieces.iter().map(|p| p.len()).sum::<usize>();
        let capacity = self.memory.len();
        let mut start = self.next_free.load(Ordering::Relaxed);
        loop {
            let end = start.checked_add(len).filter(|&end| end <= capacity)?;
            // Relaxed is enough: the read-modify-writes of one atomic are totally ordered,
            // so no two threads get overlapping ranges. The bytes are published to readers
            // by the skiplist insert that follows, not by this counter.
            match self.next_free.compare_exchange_weak(
                start,
                end,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => break,
                Err(current) => start = current,
            }
        }
        let base = self.memory.block.cast::<u8>();
        // SAFETY: the compare-and-swap above reserved `[start, start + len)` for this call
        // alone, and `start + len <= capacity`, so the copies (whose lengths sum to `len`)
        // stay inside the block and race with no other writer or reader (nobody reads the
        // range before the caller publishes it). The sources are caller slices, outside
        // the arena's unreserved memory, so they cannot overlap the destination.
        let at = unsafe {
            let at = base.add(start);
            let mut dst = at.as_ptr();
            for piece in pieces {
                ptr::copy_nonoverlapping(piece.as_ptr(), dst, piece.len());
                dst = dst.add(piece.len());
            }
            at
        };
        Some(at)
    }

    fn used(&self) -> usize {
        self.next_free.load(Ordering::Relaxed)
    }
}

/// Chunks kept for reuse across the memstores of one database (HBase's `ChunkCreator` with
/// its `MemStoreChunkPool`).
///
/// A flushed segment gives its full-size chunks back here; the next arena that needs a
/// full-size chunk takes one instead of allocating (a segment's first, smaller chunks are
/// allocated and freed directly: see the module docs).
///
/// As in HBase's `MemStoreChunkPool`, the pool owns at most `max_pooled_chunks` chunks, in
/// use or idle. An arena asking when none is idle gets a new pool chunk while the pool owns
/// fewer, and otherwise a transient chunk, freed when the arena drops. So the idle chunks
/// and the pool chunks in use together stay within `max_pooled_chunks` chunks: with the
/// Db's pool sized to the global memstore budget, idle chunks only hold memory the
/// memstores gave back and the budget would allow them to take again, instead of adding a
/// second budget's worth beside it (what a cap on idle chunks alone allowed).
///
/// **Idle chunks are trimmed to recent demand** ([`Self::trim_idle`], which the Db's flush
/// threads call a few times a second). HBase's pool lives inside a JVM heap that is
/// reserved anyway; here an idle chunk is resident memory nobody uses. A flush gives a
/// whole memstore's chunks back at once (64 of them for HBase's 128 MiB flush size), and
/// if writes then slow down or stop (a read phase, YCSB's read-mostly mixes) they stayed
/// resident beside the block cache for as long as the process ran: 150 MiB through the
/// comparison suite's read phase, and the peak of its YCSB runs. So each trim keeps as
/// many idle chunks as arenas took over the last [`TRIM_HORIZON`] (at the rate measured
/// since the previous trim) and frees the rest; a steady writer keeps its chunks, and what
/// a trim frees costs the next taker only the first-touch faults the pool would have saved.
pub struct ChunkPool {
    chunk_size: usize,
    max_pooled_chunks: usize,
    state: Mutex<PoolState>,
    created: AtomicU64,
    reused: AtomicU64,
    returned: AtomicU64,
    dropped: AtomicU64,
    trimmed: AtomicU64,
    /// When the last trim ran and how many chunks had been taken by then.
    last_trim: Mutex<(std::time::Instant, u64)>,
}

/// How far ahead a trim keeps idle chunks for: as many as arenas took in this long, at the
/// rate of the last interval between trims.
/// Three seconds: a steady writer retakes a flushed memstore's chunks within about that
/// (a 128 MiB memstore at ~40 MB/s), so fills keep them all, while a read phase or a
/// read-mostly mix frees them within a trim or two.
pub const TRIM_HORIZON: std::time::Duration = std::time::Duration::from_secs(3);

/// Trims closer together than this do nothing (several flush threads call it).
const TRIM_INTERVAL: std::time::Duration = std::time::Duration::from_millis(250);

/// The chunks a [`ChunkPool`] holds. Invariant: `idle.len() <= owned <= max_pooled_chunks`.
struct PoolState {
    /// Pool chunks no arena uses now.
    idle: Vec<ChunkMemory>,
    /// Pool chunks in existence, in use or idle.
    owned: usize,
}

/// Counters of a [`ChunkPool`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChunkPoolStats {
    /// Chunks allocated because no pooled one was idle when an arena asked (pool chunks
    /// and transient ones).
    pub created: u64,
    /// Requests served with a pooled chunk.
    pub reused: u64,
    /// Chunks idle in the pool now.
    pub pooled: u64,
    /// Chunks that belong to the pool now, in use or idle (at most its maximum).
    pub owned: u64,
    /// Pool chunks given back and kept.
    pub returned: u64,
    /// Transient chunks freed when given back (taken while the pool owned its maximum).
    pub dropped: u64,
    /// Idle pool chunks freed by [`ChunkPool::trim_idle`].
    pub trimmed: u64,
}

impl ChunkPool {
    /// A pool of `chunk_size`-byte chunks that owns at most `max_pooled_chunks` of them, in
    /// use or idle. It starts empty (HBase can pre-allocate a fraction; regionkv does not).
    pub fn new(chunk_size: usize, max_pooled_chunks: usize) -> Arc<Self> {
        Arc::new(Self {
            chunk_size,
            max_pooled_chunks,
            state: Mutex::new(PoolState {
                idle: Vec::new(),
                owned: 0,
            }),
            created: AtomicU64::new(0),
            reused: AtomicU64::new(0),
            returned: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            trimmed: AtomicU64::new(0),
            last_trim: Mutex::new((std::time::Instant::now(), 0)),
        })
    }

    /// Frees the idle chunks beyond recent demand (see the type's docs) and returns how
    /// many; does nothing when the last trim was under 250 ms ago.
    pub fn trim_idle(&self) -> usize {
        self.trim_idle_at(std::time::Instant::now())
    }

    /// [`Self::trim_idle`] at `now` (tests drive the clock).
    pub fn trim_idle_at(&self, now: std::time::Instant) -> usize {
        let taken = self.created.load(Ordering::Relaxed) + self.reused.load(Ordering::Relaxed);
        let keep = {
            let mut last = self.last_trim.lock();
            let elapsed = now.saturating_duration_since(last.0);
            if elapsed < TRIM_INTERVAL {
                return 0;
            }
            let recent = taken.saturating_sub(last.1) as f64;
            *last = (now, taken);
            (recent * TRIM_HORIZON.as_secs_f64() / elapsed.as_secs_f64()).ceil() as usize
        };
        let freed: Vec<ChunkMemory> = {
            let mut state = self.state.lock();
            let excess = state.idle.len().saturating_sub(keep);
            // The oldest idle chunks go: `take` reuses the most recently returned first.
            let freed: Vec<ChunkMemory> = state.idle.drain(..excess).collect();
            state.owned -= freed.len();
            freed
        };
        // Freed outside the lock, so that arenas need not wait for it.
        let n = freed.len();
        drop(freed);
        self.trimmed.fetch_add(n as u64, Ordering::Relaxed);
        n
    }

    /// Bytes per chunk.
    pub fn chunk_size(&self) -> usize {
        self.chunk_size
    }

    /// Most chunks the pool owns, in use or idle (HBase's `maxCount`).
    pub fn max_pooled_chunks(&self) -> usize {
        self.max_pooled_chunks
    }

    /// The counters now.
    pub fn stats(&self) -> ChunkPoolStats {
        let (pooled, owned) = {
            let state = self.state.lock();
            (state.idle.len() as u64, state.owned as u64)
        };
        ChunkPoolStats {
            created: self.created.load(Ordering::Relaxed),
            reused: self.reused.load(Ordering::Relaxed),
            pooled,
            owned,
            returned: self.returned.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
            trimmed: self.trimmed.load(Ordering::Relaxed),
        }
    }

    /// A full-size chunk, and whether it belongs to the pool: an idle pool chunk, else a
    /// new pool chunk while the pool owns fewer than its maximum, else a transient one.
    fn take(&self) -> (ChunkMemory, bool) {
        let mut state = self.state.lock();
        if let Some(memory) = state.idle.pop() {
            drop(state);
            self.reused.fetch_add(1, Ordering::Relaxed);
            return (memory, true);
        }
        let pooled = state.owned < self.max_pooled_chunks;
        if pooled {
            state.owned += 1;
        }
        // Allocated outside the lock, so that other arenas need not wait for it.
        drop(state);
        self.created.fetch_add(1, Ordering::Relaxed);
        (ChunkMemory::allocate(self.chunk_size), pooled)
    }

    /// Takes back a chunk that [`Self::take`] gave out: a pool chunk becomes idle (there is
    /// room: the pool owns it), a transient one is freed.
    fn give_back(&self, memory: ChunkMemory, pooled: bool) {
        debug_assert_eq!(memory.len(), self.chunk_size);
        if pooled {
            self.state.lock().idle.push(memory);
            self.returned.fetch_add(1, Ordering::Relaxed);
        } else {
            drop(memory);
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl fmt::Debug for ChunkPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChunkPool")
            .field("chunk_size", &self.chunk_size)
            .field("max_pooled_chunks", &self.max_pooled_chunks)
            .field("stats", &self.stats())
            .finish()
    }
}

/// Where [`MemStoreLab::copy_cell`] put a record.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Copied {
    /// The record (header, key, value); valid and unchanged until the arena drops.
    pub(crate) record: NonNull<u8>,
    /// Bytes of the chunk this call took from the allocator or the pool (0 unless it opened
    /// one; a segment's first chunks are smaller than the full chunk size).
    pub(crate) opened_chunk: u64,
    /// `None`: the record is in a chunk. `Some(n)`: it got a buffer of its own of `n` bytes
    /// (link, header, key, value).
    pub(crate) own_buffer: Option<u64>,
}

/// Bytes in front of a record in an own buffer: the link to the next own buffer.
pub(crate) const OWN_BUFFER_LINK_LEN: usize = size_of::<usize>();

/// One segment's arena (HBase's `MemStoreLABImpl`), plus the segment's own buffers.
///
/// Invariants:
/// 1. `current` is null or points to a chunk owned by an `Arc` in `chunks`; `chunks` only
///    grows until `Drop`, so a pointer loaded from `current` stays valid while `&self` does.
/// 2. `own_buffers` is null or the first of a singly linked list of own buffers, each a
///    leaked `Box<[u8]>` of `OWN_BUFFER_LINK_LEN + record length` bytes whose first bytes
///    hold the address of the next one (0 at the end); only `Drop` frees them.
/// 3. Every chunk is `initial_chunk_size..=chunk_size` bytes (more than `initial_chunk_size`
///    only to hold a record, or by doubling), and `max_alloc <= chunk_size`, so a fresh
///    chunk always holds the record that asked for it.
pub(crate) struct MemStoreLab {
    chunk_size: usize,
    initial_chunk_size: usize,
    max_alloc: usize,
    pool: Option<Arc<ChunkPool>>,
    current: AtomicPtr<Chunk>,
    /// Every chunk this arena took, in order; the last one is `current`.
    chunks: Mutex<Vec<Arc<Chunk>>>,
    own_buffers: AtomicPtr<u8>,
}

impl MemStoreLab {
    pub(crate) fn new(settings: &LabSettings) -> Self {
        Self {
            chunk_size: settings.chunk_size,
            initial_chunk_size: settings.initial_chunk_size,
            max_alloc: settings.max_alloc,
            pool: settings.pool.clone(),
            current: AtomicPtr::new(ptr::null_mut()),
            chunks: Mutex::new(Vec::new()),
            own_buffers: AtomicPtr::new(ptr::null_mut()),
        }
    }

    /// Largest record copied into a chunk (0: MSLAB off, every record gets its own buffer).
    pub(crate) fn max_alloc(&self) -> usize {
        self.max_alloc
    }

    /// Copies the cell into the arena as a record: into a chunk when the record is at most
    /// `max_alloc` bytes, otherwise into a buffer of its own.
    ///
    /// REQUIRES: `key.len() + value.len() + tags.len() <= record::MAX_CELL_BYTES`.
    pub(crate) fn copy_cell(&self, key: &[u8], value: &[u8], tags: &[u8]) -> Copied {
        let (header, header_len) = record::header(key, value, tags);
        let pieces = [&header[..header_len], key, value, tags];
        let len = header_len + key.len() + value.len() + tags.len();
        if len > self.max_alloc {
            return self.copy_to_own_buffer(&pieces);
        }
        let mut opened_chunk = 0u64;
        loop {
            let seen = self.current.load(Ordering::Acquire);
            // SAFETY: invariant 1: `seen` is null or points into an `Arc<Chunk>` held by
            // `self.chunks` until `self` drops, and `&self` outlives this borrow.
            if let Some(chunk) = unsafe { seen.as_ref() }
                && let Some(record) = chunk.try_copy(&pieces)
            {
                return Copied {
                    record,
                    opened_chunk,
                    own_buffer: None,
                };
            }
            opened_chunk += self.replace_chunk(seen, len);
        }
    }

    fn copy_to_own_buffer(&self, pieces: &[&[u8]; 4]) -> Copied {
        let len = OWN_BUFFER_LINK_LEN + pieces.iter().map(|p| p.len()).sum::<usize>();
        let mut buf = Vec::with_capacity(len);
        buf.extend_from_slice(&[0; OWN_BUFFER_LINK_LEN]);
        for piece in pieces {
            buf.extend_from_slice(piece);
        }
        let base = NonNull::from(Box::leak(buf.into_boxed_slice())).cast::<u8>();
        let mut head = self.own_buffers.load(Ordering::Relaxed);
        loop {
            // SAFETY: `base` is the start of a buffer of `len > OWN_BUFFER_LINK_LEN` bytes
            // that this thread owns alone until the compare-and-swap below publishes it.
            unsafe {
                base.as_ptr().cast::<usize>().write_unaligned(head as usize);
            }
            match self.own_buffers.compare_exchange_weak(
                head,
                base.as_ptr(),
                Ordering::Release,
                Ordering::Relaxed,
            ) {
                Ok(_) => break,
                Err(now) => head = now,
            }
        }
        // SAFETY: `base + OWN_BUFFER_LINK_LEN` lies inside the `len`-byte buffer.
        let record = unsafe { base.add(OWN_BUFFER_LINK_LEN) };
        Copied {
            record,
            opened_chunk: 0,
            own_buffer: Some(len as u64),
        }
    }

    /// Retires the chunk `seen` (null: none yet) and installs a fresh one that holds at
    /// least `needed` bytes, unless another thread already replaced `seen`. Returns the
    /// bytes taken (0 if another thread did it).
    fn replace_chunk(&self, seen: *mut Chunk, needed: usize) -> u64 {
        let mut chunks = self.chunks.lock();
        if self.current.load(Ordering::Acquire) != seen {
            return 0;
        }
        let size = self.next_chunk_size(chunks.last().map(|c| c.memory.len()), needed);
        let (memory, pooled) = match &self.pool {
            // Only full-size chunks are pooled (module docs).
            Some(pool) if size == pool.chunk_size() => pool.take(),
            _ => (ChunkMemory::allocate(size), false),
        };
        let chunk = Arc::new(Chunk::new(memory, pooled));
        self.current
            .store(Arc::as_ptr(&chunk).cast_mut(), Ordering::Release);
        chunks.push(chunk);
        size as u64
    }

    /// The size of the chunk after one of `last` bytes (`None`: the first chunk) for a
    /// record of `needed` bytes: double the last one, or the initial size, or the smallest
    /// power of two that holds the record if that is more; never above the chunk size.
    /// REQUIRES: `needed <= self.max_alloc` (hence `<= self.chunk_size`), so the result
    /// holds the record (invariant 3).
    fn next_chunk_size(&self, last: Option<usize>, needed: usize) -> usize {
        let grown = last.map_or(self.initial_chunk_size, |len| len.saturating_mul(2));
        let fits = needed.checked_next_power_of_two().unwrap_or(usize::MAX);
        grown.max(fits).min(self.chunk_size)
    }

    /// Chunks taken so far.
    pub(crate) fn chunk_count(&self) -> usize {
        self.chunks.lock().len()
    }

    /// Bytes of records copied into the chunks so far.
    #[cfg(test)]
    pub(crate) fn used_bytes(&self) -> usize {
        self.chunks.lock().iter().map(|c| c.used()).sum()
    }

    /// Bytes of all the chunks taken so far (what they count in the segment's heap size).
    pub(crate) fn chunk_bytes(&self) -> usize {
        self.chunks.lock().iter().map(|c| c.memory.len()).sum()
    }

    /// Bytes of the chunks not holding records: the unused tails of retired chunks plus the
    /// free rest of the current one.
    pub(crate) fn slack_bytes(&self) -> usize {
        self.chunks
            .lock()
            .iter()
            .map(|c| c.memory.len() - c.used())
            .sum()
    }
}

impl Drop for MemStoreLab {
    fn drop(&mut self) {
        *self.current.get_mut() = ptr::null_mut();
        let chunks = std::mem::take(self.chunks.get_mut());
        for chunk in chunks {
            let Some(chunk) = Arc::into_inner(chunk) else {
                // Unreachable: the arena never clones these `Arc`s. Dropping is still right.
                continue;
            };
            match &self.pool {
                // Transient full-size chunks too: the pool counts them as dropped.
                Some(pool) if chunk.memory.len() == pool.chunk_size() => {
                    pool.give_back(chunk.memory, chunk.pooled);
                }
                _ => drop(chunk.memory),
            }
        }
        let mut next = std::mem::replace(self.own_buffers.get_mut(), ptr::null_mut());
        while let Some(base) = NonNull::new(next) {
            // SAFETY: invariant 2: `base` starts a live own buffer: its first bytes link to
            // the next one and a complete record follows, whose header gives the buffer's
            // length. `&mut self` means no reader is left (they all borrowed the segment),
            // and each buffer is visited, and so freed, once.
            unsafe {
                next = base.as_ptr().cast::<usize>().read_unaligned() as *mut u8;
                let record_len = record::parts(base.add(OWN_BUFFER_LINK_LEN)).len;
                let len = OWN_BUFFER_LINK_LEN + record_len;
                drop(Box::from_raw(ptr::slice_from_raw_parts_mut(
                    base.as_ptr(),
                    len,
                )));
            }
        }
    }
}

impl fmt::Debug for MemStoreLab {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemStoreLab")
            .field("chunk_size", &self.chunk_size)
            .field("initial_chunk_size", &self.initial_chunk_size)
            .field("max_alloc", &self.max_alloc)
            .field("chunks", &self.chunk_count())
            .field("pooled", &self.pool.is_some())
            .finish()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    /// An arena whose chunks are all `chunk_size` bytes (HBase's layout).
    fn lab(chunk_size: usize, max_alloc: usize, pool: Option<Arc<ChunkPool>>) -> MemStoreLab {
        growing_lab(chunk_size, chunk_size, max_alloc, pool)
    }

    /// An arena whose first chunk is `initial` bytes.
    fn growing_lab(
        initial: usize,
        chunk_size: usize,
        max_alloc: usize,
        pool: Option<Arc<ChunkPool>>,
    ) -> MemStoreLab {
        MemStoreLab::new(&LabSettings {
            chunk_size,
            initial_chunk_size: initial,
            max_alloc,
            pool,
        })
    }

    /// Copies a record of exactly `len` bytes (`len >= 13`): a 10-byte key and a value,
    /// all `fill`.
    fn copy_len(lab: &MemStoreLab, len: usize, fill: u8) -> Copied {
        // The header is 1 byte for the key length and 1 (value under 128) or 2 for the value.
        let value_len = if len - 12 < 128 { len - 12 } else { len - 13 };
        assert_eq!(record::record_len(10, value_len, 0), len, "no such record");
        lab.copy_cell(&[fill; 10], &vec![fill; value_len], &[])
    }

    fn read(lab: &MemStoreLab, at: NonNull<u8>) -> (Vec<u8>, Vec<u8>) {
        // SAFETY: (test) `at` came from `copy_cell` of `lab`, which is alive and never
        // rewrites or frees a record before it drops.
        let record::Parts {
            key: k, value: v, ..
        } = unsafe { record::parts(at) };
        let _ = lab;
        (k.to_vec(), v.to_vec())
    }

    #[test]
    fn records_fill_chunks_and_never_straddle_a_boundary() {
        let lab = lab(100, 100, None);
        let mut placed = Vec::new();
        // 30-byte records (2 header + 12 key + 16 value): three fit in a 100-byte chunk,
        // the fourth opens a new chunk.
        for i in 0..10u8 {
            let key = [i; 12];
            let value = [i.wrapping_add(100); 16];
            let copied = lab.copy_cell(&key, &value, &[]);
            assert_eq!(
                copied.opened_chunk,
                if i % 3 == 0 { 100 } else { 0 },
                "cell {i}"
            );
            assert_eq!(copied.own_buffer, None);
            placed.push((copied.record, key, value));
        }
        assert_eq!(lab.chunk_count(), 4);
        assert_eq!(lab.used_bytes(), 300);
        // 10 bytes unused at the end of each of 3 full chunks, 70 free in the last one.
        assert_eq!(lab.slack_bytes(), 3 * 10 + 70);
        for (at, key, value) in &placed {
            assert_eq!(read(&lab, *at), (key.to_vec(), value.to_vec()));
        }
        // Consecutive records of one chunk are contiguous.
        let gap = placed[1].0.as_ptr() as usize - placed[0].0.as_ptr() as usize;
        assert_eq!(gap, 30);
    }

    #[test]
    fn a_record_exactly_filling_a_chunk_fits() {
        let lab = lab(64, 64, None);
        assert_eq!(lab.copy_cell(&[1; 40], &[2; 22], &[]).opened_chunk, 64);
        assert_eq!(lab.slack_bytes(), 0);
        assert_eq!(lab.copy_cell(&[3; 1], &[], &[]).opened_chunk, 64);
        assert_eq!(lab.chunk_count(), 2);
    }

    #[test]
    fn records_over_max_alloc_get_their_own_buffer() {
        let lab = lab(1024, 100, None);
        let big = lab.copy_cell(&[4; 60], &[5; 39], &[]);
        assert_eq!(big.own_buffer, Some((OWN_BUFFER_LINK_LEN + 101) as u64));
        assert_eq!(lab.chunk_count(), 0, "an own buffer takes no chunk");
        let small = lab.copy_cell(&[6; 60], &[7; 38], &[]);
        assert_eq!(small.own_buffer, None);
        let other_big = lab.copy_cell(&[8; 200], &[9; 1], &[]);
        assert_eq!(read(&lab, big.record), (vec![4; 60], vec![5; 39]));
        assert_eq!(read(&lab, small.record), (vec![6; 60], vec![7; 38]));
        assert_eq!(read(&lab, other_big.record), (vec![8; 200], vec![9; 1]));
        // Dropping the lab frees the linked own buffers (checked for leaks and double
        // frees by running the tests under Miri or an allocator checker).
    }

    #[test]
    fn without_chunks_every_record_gets_its_own_buffer() {
        let lab = MemStoreLab::new(&LabSettings::own_buffers_only());
        let copies: Vec<Copied> = (0..100u8)
            .map(|i| lab.copy_cell(&[i; 20], &[i; 3], &[]))
            .collect();
        assert_eq!(lab.chunk_count(), 0);
        for (i, c) in copies.iter().enumerate() {
            assert_eq!(c.own_buffer, Some((OWN_BUFFER_LINK_LEN + 25) as u64));
            assert_eq!(read(&lab, c.record), (vec![i as u8; 20], vec![i as u8; 3]));
        }
    }

    #[test]
    fn max_alloc_is_capped_at_the_chunk_size_and_zero_disables_chunks() {
        let cfg = MemStoreConfig {
            chunk_size: 1000,
            max_alloc: 5000,
            ..MemStoreConfig::default()
        };
        assert_eq!(LabSettings::from_config(&cfg).max_alloc, 1000);
        let cfg = MemStoreConfig {
            max_alloc: 0,
            ..MemStoreConfig::default()
        };
        assert_eq!(LabSettings::from_config(&cfg).max_alloc, 0);
        let cfg = MemStoreConfig {
            mslab_enabled: false,
            ..MemStoreConfig::default()
        };
        assert_eq!(LabSettings::from_config(&cfg).max_alloc, 0);
        let pool = ChunkPool::new(4096, 1);
        let cfg = MemStoreConfig {
            pool: Some(pool),
            ..MemStoreConfig::default()
        };
        let settings = LabSettings::from_config(&cfg);
        assert_eq!(settings.chunk_size, 4096, "the pool's chunk size wins");
        assert_eq!(settings.max_alloc, 4096);
        assert_eq!(settings.initial_chunk_size, DEFAULT_INITIAL_CHUNK_SIZE);
    }

    #[test]
    fn the_first_chunk_size_is_kept_between_one_byte_and_the_chunk_size() {
        let settings = |initial_chunk_size| {
            LabSettings::from_config(&MemStoreConfig {
                chunk_size: 8192,
                max_alloc: 1024,
                initial_chunk_size,
                ..MemStoreConfig::default()
            })
            .initial_chunk_size
        };
        assert_eq!(settings(4096), 4096);
        assert_eq!(settings(100), 100);
        assert_eq!(settings(0), 8192, "0: full-size chunks only");
        assert_eq!(settings(1 << 20), 8192, "capped at the chunk size");
        assert_eq!(
            LabSettings::from_config(&MemStoreConfig::default()).initial_chunk_size,
            DEFAULT_INITIAL_CHUNK_SIZE
        );
        let off = MemStoreConfig {
            mslab_enabled: false,
            ..MemStoreConfig::default()
        };
        assert_eq!(LabSettings::from_config(&off).initial_chunk_size, 0);
    }

    #[test]
    fn no_chunk_is_taken_before_the_first_cell() {
        let lab = growing_lab(4096, 1 << 21, 1 << 18, None);
        assert_eq!((lab.chunk_count(), lab.chunk_bytes()), (0, 0));
        assert_eq!(lab.slack_bytes(), 0);
        let copied = copy_len(&lab, 40, 1);
        assert_eq!(
            copied.opened_chunk, 4096,
            "the first chunk is the small one"
        );
        assert_eq!((lab.chunk_count(), lab.chunk_bytes()), (1, 4096));
        assert_eq!(lab.slack_bytes(), 4096 - 40);
    }

    #[test]
    fn chunks_start_small_and_double_up_to_the_chunk_size() {
        let lab = growing_lab(64, 1024, 1024, None);
        let mut opened = Vec::new();
        let mut placed = Vec::new();
        // 100 records of 30 bytes: 2 fit in 64, 4 in 128, 8 in 256, 17 in 512, 34 in 1024.
        for i in 0..100u8 {
            let copied = copy_len(&lab, 30, i);
            if copied.opened_chunk > 0 {
                opened.push(copied.opened_chunk);
            }
            placed.push((copied.record, i));
        }
        assert_eq!(opened, [64, 128, 256, 512, 1024, 1024, 1024]);
        assert_eq!(lab.chunk_bytes() as u64, opened.iter().sum::<u64>());
        assert_eq!(lab.used_bytes(), 100 * 30);
        assert_eq!(lab.slack_bytes(), lab.chunk_bytes() - 100 * 30);
        for (at, fill) in placed {
            assert_eq!(read(&lab, at).0[0], fill);
        }
    }

    #[test]
    fn a_record_larger_than_the_next_size_gets_a_chunk_that_holds_it() {
        let lab = growing_lab(64, 4096, 4096, None);
        // (record length, chunk it opens): 300 bytes skip 64..256 and open 512; 30 fit in
        // what is left; 1000 open 1024 (the doubling and the fit agree); 3000 open the
        // full 4096 although the doubling says 2048; a record of exactly the chunk size
        // opens another full one, which it fills.
        let cases: [(usize, u64); 5] = [
            (300, 512),
            (30, 0),
            (1000, 1024),
            (3000, 4096),
            (4096, 4096),
        ];
        for (i, (len, opens)) in cases.into_iter().enumerate() {
            let copied = copy_len(&lab, len, i as u8);
            assert_eq!(copied.opened_chunk, opens, "record of {len} bytes");
            assert_eq!(copied.own_buffer, None);
            let (key, value) = read(&lab, copied.record);
            assert_eq!(record::record_len(key.len(), value.len(), 0), len);
            assert!(key.iter().chain(&value).all(|&b| b == i as u8));
        }
        assert_eq!(lab.chunk_bytes(), 512 + 1024 + 4096 + 4096);
        assert_eq!(
            lab.slack_bytes(),
            lab.chunk_bytes() - (300 + 30 + 1000 + 3000 + 4096)
        );
    }

    #[test]
    fn only_full_size_chunks_come_from_and_go_back_to_the_pool() {
        let pool = ChunkPool::new(1024, 8);
        {
            let lab = growing_lab(256, 1024, 1024, Some(Arc::clone(&pool)));
            // 120-byte records, 2 in 256, 4 in 512, 8 in 1024, so 16 open 256, 512, 1024
            // and 1024.
            let opened: Vec<u64> = (0..16u8)
                .map(|i| copy_len(&lab, 120, i).opened_chunk)
                .filter(|&n| n > 0)
                .collect();
            assert_eq!(opened, [256, 512, 1024, 1024]);
            assert_eq!(
                pool.stats().created,
                2,
                "the small chunks are not the pool's"
            );
        }
        let s = pool.stats();
        assert_eq!((s.returned, s.dropped, s.pooled), (2, 0, 2));
        {
            let lab = growing_lab(256, 1024, 1024, Some(Arc::clone(&pool)));
            for i in 0..16u8 {
                let copied = copy_len(&lab, 120, i);
                assert_eq!(read(&lab, copied.record).0[0], i);
            }
            let s = pool.stats();
            assert_eq!((s.reused, s.created, s.pooled), (2, 2, 0));
        }
        assert_eq!(pool.stats().pooled, 2);
    }

    #[test]
    fn chunks_go_back_to_the_pool_up_to_its_bound_and_are_reused() {
        let pool = ChunkPool::new(64, 2);
        {
            let lab = lab(64, 64, Some(Arc::clone(&pool)));
            for _ in 0..5 {
                lab.copy_cell(&[7; 62], &[], &[]);
            }
            assert_eq!(lab.chunk_count(), 5);
            assert_eq!(pool.stats().created, 5);
            assert_eq!(pool.stats().pooled, 0, "chunks in use are not in the pool");
        }
        let after_drop = pool.stats();
        assert_eq!(after_drop.pooled, 2);
        assert_eq!(after_drop.returned, 2);
        assert_eq!(after_drop.dropped, 3);
        {
            let lab = lab(64, 64, Some(Arc::clone(&pool)));
            for i in 0..3u8 {
                let at = lab.copy_cell(&[i; 62], &[], &[]).record;
                // A reused chunk holds the previous owner's bytes until overwritten; the
                // new record must read back as written.
                assert_eq!(read(&lab, at), (vec![i; 62], vec![]));
            }
            let s = pool.stats();
            assert_eq!((s.reused, s.created, s.pooled), (2, 6, 0));
        }
        let s = pool.stats();
        assert_eq!((s.pooled, s.returned, s.dropped), (2, 4, 4));
    }

    #[test]
    fn the_pool_owns_at_most_its_maximum_in_use_or_idle() {
        // HBase's MemStoreChunkPool rule: chunks taken once the pool owns its maximum are
        // transient, so idle chunks never add to the chunks in use beyond the maximum.
        let pool = ChunkPool::new(64, 3);
        let fill = |lab: &MemStoreLab, n: u8| {
            for i in 0..n {
                lab.copy_cell(&[i; 62], &[], &[]);
            }
        };
        let a = lab(64, 64, Some(Arc::clone(&pool)));
        fill(&a, 2);
        let b = lab(64, 64, Some(Arc::clone(&pool)));
        fill(&b, 2);
        let s = pool.stats();
        assert_eq!(
            (s.created, s.owned, s.pooled),
            (4, 3, 0),
            "b's second is transient"
        );
        drop(a);
        let s = pool.stats();
        assert_eq!((s.returned, s.pooled, s.owned), (2, 2, 3));
        let c = lab(64, 64, Some(Arc::clone(&pool)));
        fill(&c, 3);
        let s = pool.stats();
        // Two idle pool chunks reused, and a transient third: b still holds a pool chunk.
        assert_eq!((s.reused, s.created, s.pooled, s.owned), (2, 5, 0, 3));
        drop(b);
        let s = pool.stats();
        assert_eq!((s.returned, s.dropped, s.pooled), (3, 1, 1));
        drop(c);
        let s = pool.stats();
        assert_eq!((s.returned, s.dropped, s.pooled, s.owned), (5, 2, 3, 3));
    }

    #[test]
    fn trims_keep_the_idle_chunks_recent_demand_needs_and_free_the_rest() {
        use std::time::{Duration, Instant};
        let pool = ChunkPool::new(64, 16);
        let fill = |lab: &MemStoreLab, n: u8| {
            for i in 0..n {
                lab.copy_cell(&[i; 62], &[], &[]);
            }
        };
        let t0 = Instant::now() + Duration::from_secs(1);
        // A writer takes 8 chunks, then its segment is flushed: 8 idle chunks.
        drop({
            let l = lab(64, 64, Some(Arc::clone(&pool)));
            fill(&l, 8);
            l
        });
        assert_eq!(pool.stats().pooled, 8);
        // 8 taken in the second before this trim: all 8 are kept (24 would be).
        assert_eq!(pool.trim_idle_at(t0), 0);
        assert_eq!(
            pool.trim_idle_at(t0 + Duration::from_millis(100)),
            0,
            "too soon"
        );
        // The writer goes on at 4 chunks a second for a second: it reuses 4, and a trim
        // then keeps the 4 idle ones (12 would be).
        let busy = lab(64, 64, Some(Arc::clone(&pool)));
        fill(&busy, 4);
        assert_eq!(pool.trim_idle_at(t0 + Duration::from_secs(1)), 0);
        assert_eq!(pool.stats().pooled, 4);
        // Writes slow to 1 chunk in 2 seconds: 2 idle chunks are kept (1.5, rounded up),
        // 1 goes.
        fill(&busy, 1);
        assert_eq!(pool.trim_idle_at(t0 + Duration::from_secs(3)), 1);
        let s = pool.stats();
        assert_eq!((s.pooled, s.owned, s.trimmed), (2, 7, 1));
        // No writes: the last idle chunks go; the chunks in use stay.
        assert_eq!(pool.trim_idle_at(t0 + Duration::from_secs(4)), 2);
        let s = pool.stats();
        assert_eq!((s.pooled, s.owned, s.trimmed), (0, 5, 3));
        // A trimmed pool takes new chunks again, up to its maximum.
        drop(busy);
        assert_eq!(pool.stats().pooled, 5);
        let again = lab(64, 64, Some(Arc::clone(&pool)));
        fill(&again, 7);
        let s = pool.stats();
        assert_eq!((s.pooled, s.owned), (0, 7));
    }

    #[test]
    fn concurrent_copies_get_disjoint_ranges_with_intact_bytes() {
        // Small chunks so that chunk replacement races happen often; records over 512
        // bytes go to own buffers, so both paths race.
        concurrent_copies(&lab(4096, 512, None));
    }

    #[test]
    fn concurrent_copies_into_growing_chunks_get_disjoint_ranges_with_intact_bytes() {
        // Threads race to replace chunks while the size still doubles (64 … 4096), and
        // records larger than the next size ask for bigger chunks than the doubling.
        for _ in 0..4 {
            concurrent_copies(&growing_lab(64, 4096, 512, None));
        }
    }

    fn concurrent_copies(lab: &MemStoreLab) {
        const THREADS: usize = 4;
        const PER_THREAD: usize = 5_000;
        let placed: Vec<Vec<(usize, usize, u8)>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..THREADS)
                .map(|t| {
                    s.spawn(move || {
                        let mut out = Vec::with_capacity(PER_THREAD);
                        for i in 0..PER_THREAD {
                            let len = 1 + (i * 7 + t * 13) % 600;
                            let fill = (t * 64 + i % 64) as u8;
                            let bytes = vec![fill; len];
                            let (key, value) = bytes.split_at(len / 3);
                            let at = lab.copy_cell(key, value, &[]).record;
                            out.push((at.as_ptr() as usize, len, fill));
                        }
                        out
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut all: Vec<(usize, usize, u8)> = placed.into_iter().flatten().collect();
        assert_eq!(all.len(), THREADS * PER_THREAD);
        for &(addr, len, fill) in &all {
            let at = NonNull::new(addr as *mut u8).unwrap();
            let (k, v) = read(lab, at);
            assert_eq!(k.len() + v.len(), len);
            assert!(
                k.iter().chain(&v).all(|&b| b == fill),
                "record at {addr:#x}"
            );
        }
        all.sort_unstable();
        let record_len = |len: usize| record::record_len(len / 3, len - len / 3, 0);
        for pair in all.windows(2) {
            let end = pair[0].0 + record_len(pair[0].1);
            assert!(end <= pair[1].0, "records overlap: {pair:?}");
        }
        // No record in a chunk straddles the chunk's end.
        let chunks: Vec<(usize, usize)> = lab
            .chunks
            .lock()
            .iter()
            .map(|c| {
                let start = c.memory.block.cast::<u8>().as_ptr() as usize;
                (start, start + c.memory.len())
            })
            .collect();
        for &(addr, len, _) in all.iter().filter(|c| record_len(c.1) <= 512) {
            let end = addr + record_len(len);
            assert!(
                chunks.iter().any(|&(s, e)| s <= addr && end <= e),
                "record at {addr:#x}..{end:#x} is not inside one chunk"
            );
        }
        let in_chunks: usize = all
            .iter()
            .map(|c| record_len(c.1))
            .filter(|&n| n <= 512)
            .sum();
        assert_eq!(lab.used_bytes(), in_chunks);
    }
}
