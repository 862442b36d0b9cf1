//! The MemStore of one column family, as HBase's `DefaultMemStore`: an **active** segment
//! that takes writes and at most one **snapshot** segment being flushed. A segment is a
//! lock-free skiplist (crossbeam-skiplist) ordered by [`regionkv_cell::compare_keys`] whose
//! cells' bytes live in an MSLAB arena of chunks (taken at the first cell, 4 KiB at first and
//! doubling up to 2 MiB, so a store with a few cells costs a few KiB), whose full-size chunks
//! are optionally recycled through a [`ChunkPool`] shared by all memstores of a database.
//!
//! ```
//! use regionkv_cell::{Cell, KeyValueScanner};
//! use regionkv_memstore::{MemStore, MemStoreConfig};
//!
//! let memstore = MemStore::new(MemStoreConfig::default());
//! let cell = Cell::put(b"row1", b"cf", b"q", 10, b"v")?.with_seq_id(1);
//! let delta = memstore.add(cell.as_cell_ref());
//! assert_eq!(delta.data_size, cell.encoded_len() as u64);
//!
//! // A reader at read point 1 sees the cell; flush takes a snapshot and clears it after.
//! let scanners = memstore.scanners(1);
//! assert_eq!(scanners[0].peek().map(|c| c.to_cell()), Some(cell));
//! let snapshot = memstore.snapshot().expect("the active segment is not empty");
//! let flushed: Vec<_> = snapshot.iter().collect();
//! assert_eq!(flushed.len(), 1);
//! memstore.clear_snapshot(snapshot.id());
//! # Ok::<(), regionkv_cell::Error>(())
//! ```
//!
//! # Contracts
//! * **Concurrency.** [`MemStore::add`] runs on any number of threads at once, alongside
//!   scanners. [`MemStore::snapshot`] takes the memstore's lock exclusively: it waits for
//!   the adds in flight, and no add lands in a segment after it became the snapshot (each
//!   add holds the lock shared for its whole insert). Which writes belong before a flush's
//!   sequence id is still the region's business (HBase's `updatesLock` and MVCC).
//! * **Equal keys.** An add whose key (row, family, qualifier, timestamp, type *and*
//!   sequence id) equals a cell already in the active segment replaces that cell's value:
//!   the skiplist node stays and points at the new copy, readers see the new value from
//!   then on, and the old copy stays in the arena until the segment drops. Of several adds
//!   racing on a new key exactly one creates the cell. Cells equal up to the sequence id
//!   are different versions and are all kept.
//! * **MVCC.** A [`SegmentScanner`] skips cells whose sequence id is above its read point;
//!   the sequence id must be set before `add`.
//! * **Sizes.** A segment's [`MemStoreSize`] is exactly the sum of the deltas its adds
//!   returned: `data_size` the key + value bytes of every add, `heap_size` the memory held
//!   (arena chunks as taken, own buffers, skiplist nodes), `hbase_heap_size` what HBase 2.x
//!   would charge its heap size for the same adds (the number HBase's flush and blocking
//!   decisions use; [`MemStore::hbase_heap_size`] adds HBase's segment overheads),
//!   `cell_count` the cells in the index. The rules, and where they differ from HBase, are
//!   in [`size`].
//! * **Lifetime.** A segment's memory is freed (chunks go back to the [`ChunkPool`]) when its
//!   last `Arc` drops: after `clear_snapshot` *and* after every scanner over it.
//!
//! # Why an arena
//! HBase's MSLAB fights JVM heap fragmentation; regionkv has no moving collector and keeps
//! the arena for its own reasons, measured in `docs/benchmarks.md` ("MemStore"): one
//! allocation per 2 MiB chunk instead of one per cell; cells packed in insertion order with
//! no allocator header or size-class rounding between them (less memory per cell); bulk free
//! at flush, with the memory going back to the operating system or to the pool instead of
//! into the allocator's free lists; and a heap size known exactly rather than estimated.
//!
//! # Unsafe inventory
//! `unsafe` is confined to the arena (`lab.rs`), the layout of a cell in it (`record.rs`)
//! and the skiplist key that points into it (`index_key.rs`); the scanner holds its cursor
//! next to the `Arc<Segment>` it borrows from with the `self_cell` crate and has none. Every
//! block carries a `// SAFETY:` comment. The whole test suite also runs clean under
//! Valgrind (no invalid access, no leak; `docs/benchmarks.md`, "MemStore").
//!
//! | where | what | why it is sound | exercised by |
//! |---|---|---|---|
//! | `lab.rs` `unsafe impl Send`, `Sync for ChunkMemory` | a chunk's raw block crosses threads | it owns the block like a `Box`; concurrent writes go only to ranges reserved by CAS | `lab::tests::concurrent_copies_get_disjoint_ranges_with_intact_bytes` |
//! | `lab.rs` `Drop for ChunkMemory` | `Box::from_raw` of the block | it came from `Box::leak`; freed once, when the arena drops, after every reader | `lab::tests::chunks_go_back_to_the_pool_up_to_its_bound_and_are_reused`, `tests/scanner_keeps_snapshot_alive.rs` |
//! | `lab.rs` `Chunk::try_copy` | `copy_nonoverlapping` of header, key, value into the chunk | the range was reserved for this call alone by a compare-and-swap and lies inside the block (of whatever size the chunk is) | `lab::tests::*`, `lab::tests::concurrent_copies_into_growing_chunks_get_disjoint_ranges_with_intact_bytes` |
//! | `lab.rs` `MemStoreLab::copy_cell` | dereference of the `current` chunk pointer | it points into an `Arc<Chunk>` the arena holds until it drops | `lab::tests::concurrent_copies_get_disjoint_ranges_with_intact_bytes`, `lab::tests::concurrent_copies_into_growing_chunks_get_disjoint_ranges_with_intact_bytes` |
//! | `lab.rs` `MemStoreLab::copy_to_own_buffer` (2 blocks) | write the list link into a fresh own buffer; offset to its record | the buffer is unpublished and the offset inside it | `lab::tests::records_over_max_alloc_get_their_own_buffer`, `lab::tests::without_chunks_every_record_gets_its_own_buffer` |
//! | `lab.rs` `Drop for MemStoreLab` | walk the own-buffer list, `Box::from_raw` each | each was leaked by `copy_to_own_buffer`, linked once, freed once; `&mut self` | as above, plus every MSLAB-off test |
//! | `record.rs` `read_varint`, `parts` | read a record's header, `slice::from_raw_parts` over its key and value | callers pass complete, immutable records that outlive the borrow | `record::tests::headers_round_trip_across_varint_widths` and every scan |
//! | `index_key.rs` `IndexKey::parts`, `IndexKey::replace` | read the record the key points at | module invariant: records are published with release/acquire and live until the arena drops, after the skiplist | `tests/model_segment_order.rs`, `tests/size_accounting.rs` |
//! | `index_key.rs` `KeyBytes::new` | `&[u8]` to `&KeyBytes` cast | `repr(transparent)` over `[u8]` | every `seek` in `tests/model_segment_order.rs` |
//! | `segment.rs` `Segment::add` (calls the `unsafe fn`s `IndexKey::new`, `IndexKey::replace`) | a key over an arena record; swap in the record of an equal key | the arena is a field of the segment declared after the index, so it outlives every node; equal under `compare_keys` means byte-equal | `tests/snapshot_concurrent_adds.rs`, `tests/size_accounting.rs` |

#![deny(unsafe_op_in_unsafe_fn)]

mod error;
mod index_key;
pub mod lab;
mod memstore;
mod record;
mod scanner;
mod segment;
pub mod size;

pub use error::{Error, Result};
pub use lab::{
    CHUNK_POOL_MAXSIZE_KEY, CHUNK_SIZE_KEY, ChunkPool, ChunkPoolStats, MAX_ALLOC_KEY,
    MSLAB_ENABLED_KEY, MemStoreConfig,
};
pub use memstore::MemStore;
pub use scanner::SegmentScanner;
pub use segment::Segment;
pub use size::MemStoreSize;
