//! Size accounting is exact: `data_size` is the sum of key + value lengths, `heap_size`
//! follows the rules of the `size` module (arena chunks, index entries, own buffers), and a
//! segment's size is the sum of the deltas its adds returned — including equal-key
//! overwrites.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv_cell::{Cell, CellType, KeyValueScanner};
use regionkv_memstore::size::{
    ALLOCATOR_OVERHEAD, HBASE_ACTIVE_SEGMENT_OVERHEAD, HBASE_SNAPSHOT_SEGMENT_OVERHEAD,
    INDEX_ENTRY_OVERHEAD, OWN_BUFFER_LINK_LEN, hbase_cell_heap_size, hbase_keyvalue_len,
    record_header_len,
};
use regionkv_memstore::{MemStore, MemStoreConfig, MemStoreSize};

/// Heap of an own buffer holding `cell`.
fn own(cell: &Cell) -> u64 {
    OWN_BUFFER_LINK_LEN + header(cell) + cell.encoded_len() as u64 + ALLOCATOR_OVERHEAD
}

/// HBase's KeyValue length of `cell`.
fn kv_len(cell: &Cell) -> u64 {
    hbase_keyvalue_len(
        cell.row().len(),
        cell.family().len(),
        cell.qualifier().len(),
        cell.value().len(),
        cell.tags().len(),
    )
}

fn header(cell: &Cell) -> u64 {
    record_header_len(
        cell.key_bytes().len(),
        cell.value().len(),
        cell.tags().len(),
    )
}

fn cells(n: usize, value_len: usize) -> Vec<Cell> {
    (0..n)
        .map(|i| {
            Cell::put(
                format!("row{i:06}").as_bytes(),
                b"cf",
                b"qual",
                5,
                &vec![b'x'; value_len],
            )
            .unwrap()
            .with_seq_id(i as u64 + 1)
        })
        .collect()
}

fn add_all(memstore: &MemStore, cells: &[Cell]) -> MemStoreSize {
    cells.iter().map(|c| memstore.add(c.as_cell_ref())).sum()
}

#[test]
fn with_mslab_heap_is_chunks_plus_index_entries() {
    let chunk = 4096;
    let memstore = MemStore::new(MemStoreConfig {
        chunk_size: chunk,
        max_alloc: 1024,
        ..MemStoreConfig::default()
    });
    let cells = cells(1000, 50);
    let sum = add_all(&memstore, &cells);
    let data: u64 = cells.iter().map(|c| c.encoded_len() as u64).sum();
    let segment = memstore.segments().pop().unwrap();
    let chunks = segment.chunk_count() as u64;
    assert!(chunks > 10, "the cells span many chunks");
    assert_eq!(sum, memstore.size());
    assert_eq!(sum.data_size, data);
    assert_eq!(sum.cell_count, 1000);
    assert_eq!(
        sum.heap_size,
        chunks * chunk as u64 + 1000 * INDEX_ENTRY_OVERHEAD
    );
    assert_eq!(segment.arena_bytes(), chunks * chunk as u64);
    // heap = data + record headers + index entries + arena slack.
    let headers: u64 = cells.iter().map(header).sum();
    assert_eq!(headers, 2 * 1000, "2-byte headers for these cells");
    assert_eq!(
        sum.heap_size,
        data + headers + 1000 * INDEX_ENTRY_OVERHEAD + segment.arena_slack()
    );
}

#[test]
fn a_segments_first_chunks_are_small_and_each_counts_at_its_size() {
    // The defaults: a 4 KiB first chunk, doubling up to 2 MiB.
    let memstore = MemStore::default();
    let cells = cells(1000, 50);
    let first = memstore.add(cells[0].as_cell_ref());
    assert_eq!(first.heap_size, 4096 + INDEX_ENTRY_OVERHEAD);
    let sum = first + add_all(&memstore, &cells[1..]);
    let data: u64 = cells.iter().map(|c| c.encoded_len() as u64).sum();
    let headers: u64 = cells.iter().map(header).sum();
    let segment = memstore.segments().pop().unwrap();
    let chunks = segment.chunk_count() as u32;
    // ~95 KB of records: chunks of 4, 8, 16, 32 and 64 KiB, none full-size yet.
    assert_eq!(chunks, 5);
    assert_eq!(segment.arena_bytes(), 4096 * (2u64.pow(chunks) - 1));
    assert_eq!(sum, memstore.size());
    assert_eq!(
        sum.heap_size,
        segment.arena_bytes() + 1000 * INDEX_ENTRY_OVERHEAD
    );
    assert_eq!(
        segment.arena_bytes(),
        data + headers + segment.arena_slack()
    );
}

#[test]
fn without_mslab_heap_is_own_buffers_plus_index_entries() {
    let memstore = MemStore::new(MemStoreConfig {
        mslab_enabled: false,
        ..MemStoreConfig::default()
    });
    let cells = cells(300, 77);
    let sum = add_all(&memstore, &cells);
    let data: u64 = cells.iter().map(|c| c.encoded_len() as u64).sum();
    assert_eq!(sum, memstore.size());
    assert_eq!(sum.data_size, data);
    let own_buffers: u64 = cells.iter().map(own).sum();
    assert_eq!(sum.heap_size, own_buffers + 300 * INDEX_ENTRY_OVERHEAD);
    assert_eq!(memstore.segments()[0].chunk_count(), 0);
}

#[test]
fn a_cell_over_max_alloc_gets_its_own_buffer_and_is_counted_as_one() {
    let memstore = MemStore::new(MemStoreConfig {
        chunk_size: 4096,
        max_alloc: 256,
        ..MemStoreConfig::default()
    });
    let big = Cell::put(b"big", b"cf", b"q", 1, &[9u8; 1000])
        .unwrap()
        .with_seq_id(1);
    let delta = memstore.add(big.as_cell_ref());
    let len = big.encoded_len() as u64;
    assert_eq!(
        delta,
        MemStoreSize {
            data_size: len,
            heap_size: own(&big) + INDEX_ENTRY_OVERHEAD,
            // HBase would not copy it into a chunk either: a KeyValue of its own.
            hbase_heap_size: hbase_cell_heap_size(kv_len(&big), false),
            cell_count: 1,
        }
    );
    let segment = memstore.segments().pop().unwrap();
    assert_eq!(segment.chunk_count(), 0, "no chunk was opened for it");
    let mut scanner = segment.scanner(1);
    assert_eq!(scanner.peek().unwrap().to_cell(), big);
    scanner.advance().unwrap();
    assert!(scanner.peek().is_none());
}

#[test]
fn an_equal_key_replaces_the_value_and_counts_its_bytes_but_no_cell() {
    let first = Cell::put(b"r", b"cf", b"q", 1, b"first")
        .unwrap()
        .with_seq_id(3);
    let second = Cell::put(b"r", b"cf", b"q", 1, b"second!")
        .unwrap()
        .with_seq_id(3);
    let other_seq = Cell::put(b"r", b"cf", b"q", 1, b"v")
        .unwrap()
        .with_seq_id(4);
    let n = second.encoded_len() as u64;

    // MSLAB on: the new record goes into the (already charged) chunk; no new node.
    let on = MemStore::default();
    let d1 = on.add(first.as_cell_ref());
    let d2 = on.add(second.as_cell_ref());
    assert_eq!(d1.cell_count, 1);
    assert_eq!(
        d2,
        MemStoreSize {
            data_size: n,
            heap_size: 0,
            // HBase copied it into a chunk, so it charges it in full although no entry
            // was added (`Segment#updateMetaInfo`: `succ || mslabUsed`).
            hbase_heap_size: hbase_cell_heap_size(kv_len(&second), true),
            cell_count: 0,
        }
    );
    // MSLAB off: the new record gets its own buffer, which is charged; no new node.
    let off = MemStore::new(MemStoreConfig {
        mslab_enabled: false,
        ..MemStoreConfig::default()
    });
    off.add(first.as_cell_ref());
    assert_eq!(
        off.add(second.as_cell_ref()),
        MemStoreSize {
            data_size: n,
            heap_size: own(&second),
            // Neither a new entry nor an MSLAB copy: HBase charges nothing.
            hbase_heap_size: 0,
            cell_count: 0,
        }
    );

    for memstore in [&on, &off] {
        // A different sequence id is another version, kept beside it.
        assert_eq!(memstore.add(other_seq.as_cell_ref()).cell_count, 1);
        let cells: Vec<Cell> = memstore.segments()[0].iter().collect();
        assert_eq!(cells, vec![other_seq.clone(), second.clone()]);
        assert_eq!(memstore.size().cell_count, 2);
        assert_eq!(memstore.segments()[0].len(), 2);
    }
}

#[test]
fn add_all_sums_the_deltas_and_snapshot_moves_the_size() {
    let memstore = MemStore::default();
    let cells = cells(100, 10);
    let sum = memstore.add_all(cells.iter().map(Cell::as_cell_ref));
    assert_eq!(sum, memstore.active_size());
    assert!(memstore.snapshot_size().is_zero());
    let snapshot = memstore.snapshot().unwrap();
    assert_eq!(snapshot.size(), sum);
    assert_eq!(memstore.snapshot_size(), sum);
    assert!(memstore.active_size().is_zero());
    let more = memstore.add(cells[0].as_cell_ref());
    assert_eq!(memstore.size(), sum + more);
    memstore.clear_snapshot(snapshot.id());
    assert_eq!(memstore.size(), more);
}

#[test]
fn time_range_and_sequence_ids_follow_the_time_range_tracker() {
    let memstore = MemStore::default();
    let segment = memstore.segments().pop().unwrap();
    assert_eq!(segment.time_range(), (i64::MAX, -1), "empty");
    assert_eq!(segment.max_seq_id(), 0);
    let put = |ts, seq| {
        Cell::put(b"r", b"cf", b"q", ts, b"v")
            .unwrap()
            .with_seq_id(seq)
    };
    let marker = |ts, t, seq| {
        Cell::delete_marker(b"r", b"cf", b"q", ts, t)
            .unwrap()
            .with_seq_id(seq)
    };
    memstore.add(put(100, 5).as_cell_ref());
    memstore.add(put(300, 2).as_cell_ref());
    assert_eq!(segment.time_range(), (100, 300));
    // Delete and DeleteFamilyVersion cover one timestamp: the range just includes it.
    memstore.add(marker(50, CellType::Delete, 9).as_cell_ref());
    memstore.add(marker(40, CellType::DeleteFamilyVersion, 9).as_cell_ref());
    assert_eq!(segment.time_range(), (40, 300));
    // DeleteColumn covers every older version: the range reaches down to 0.
    memstore.add(marker(200, CellType::DeleteColumn, 3).as_cell_ref());
    assert_eq!(segment.time_range(), (0, 300));
    let memstore = MemStore::default();
    let segment = memstore.segments().pop().unwrap();
    memstore.add(marker(500, CellType::DeleteFamily, 1).as_cell_ref());
    assert_eq!(segment.time_range(), (0, 500));
    assert_eq!((segment.min_seq_id(), segment.max_seq_id()), (1, 1));
}

#[test]
fn hbase_heap_size_charges_each_cell_as_hbase_does() {
    // "row1"/"cf"/"q"/"v": a 28-byte KeyValue; in a chunk 40 + align8(32 + 28) = 104.
    let small = Cell::put(b"row1", b"cf", b"q", 7, b"v")
        .unwrap()
        .with_seq_id(1);
    assert_eq!(kv_len(&small), 28);
    // A 100-byte value: 132-byte KeyValue, 40 + align8(164) = 208.
    let hundred = Cell::put(b"row-00001", b"cf", b"q", 7, &[b'x'; 100])
        .unwrap()
        .with_seq_id(2);
    assert_eq!(kv_len(&hundred), 132);
    // With a 7-byte tag run: KeyValue 28 + 2 + 7 = 37, 40 + align8(69) = 112.
    let tagged = Cell::put(b"row1", b"cf", b"q", 8, b"v")
        .unwrap()
        .with_tags(vec![0, 5, 1, b'a', b'b', b'c', b'd'])
        .unwrap()
        .with_seq_id(3);
    assert_eq!(kv_len(&tagged), 37);
    let memstore = MemStore::default();
    assert_eq!(memstore.add(small.as_cell_ref()).hbase_heap_size, 104);
    assert_eq!(memstore.add(hundred.as_cell_ref()).hbase_heap_size, 208);
    assert_eq!(memstore.add(tagged.as_cell_ref()).hbase_heap_size, 112);
    assert_eq!(memstore.size().hbase_heap_size, 104 + 208 + 112);
    assert_eq!(
        memstore.hbase_heap_size(),
        HBASE_ACTIVE_SEGMENT_OVERHEAD + 104 + 208 + 112
    );

    // MSLAB off: every cell is a KeyValue of its own, 40 + 32 + align8(16 + length).
    let off = MemStore::new(MemStoreConfig {
        mslab_enabled: false,
        ..MemStoreConfig::default()
    });
    assert_eq!(off.add(small.as_cell_ref()).hbase_heap_size, 40 + 32 + 48);
    assert_eq!(off.add(tagged.as_cell_ref()).hbase_heap_size, 40 + 32 + 56);
}

#[test]
fn hbase_copies_by_keyvalue_length_against_max_alloc() {
    // HBase copies a cell into a chunk when its KeyValue length is at most max_alloc,
    // whatever regionkv's own record layout does with it.
    let at = Cell::put(b"r", b"cf", b"q", 1, &[1u8; 80])
        .unwrap()
        .with_seq_id(1);
    let len = kv_len(&at);
    let over = Cell::put(b"r", b"cf", b"q", 1, &[1u8; 81])
        .unwrap()
        .with_seq_id(2);
    let memstore = MemStore::new(MemStoreConfig {
        chunk_size: 4096,
        max_alloc: len as usize,
        ..MemStoreConfig::default()
    });
    assert_eq!(
        memstore.add(at.as_cell_ref()).hbase_heap_size,
        hbase_cell_heap_size(len, true)
    );
    assert_eq!(
        memstore.add(over.as_cell_ref()).hbase_heap_size,
        hbase_cell_heap_size(len + 1, false)
    );
}

#[test]
fn hbase_heap_size_follows_the_segments_through_a_snapshot() {
    let memstore = MemStore::default();
    assert_eq!(memstore.hbase_heap_size(), HBASE_ACTIVE_SEGMENT_OVERHEAD);
    assert!(!memstore.has_snapshot());
    let cells = cells(10, 20);
    let sum = add_all(&memstore, &cells);
    let per: Vec<u64> = cells
        .iter()
        .map(|c| hbase_cell_heap_size(kv_len(c), true))
        .collect();
    assert_eq!(sum.hbase_heap_size, per.iter().sum::<u64>());
    let snapshot = memstore.snapshot().unwrap();
    assert!(memstore.has_snapshot());
    // The snapshot becomes an immutable segment; a fresh active segment starts.
    assert_eq!(
        memstore.hbase_heap_size(),
        HBASE_SNAPSHOT_SEGMENT_OVERHEAD + sum.hbase_heap_size + HBASE_ACTIVE_SEGMENT_OVERHEAD
    );
    assert_eq!(snapshot.size().hbase_heap_size, sum.hbase_heap_size);
    memstore.clear_snapshot(snapshot.id());
    assert!(!memstore.has_snapshot());
    assert_eq!(memstore.hbase_heap_size(), HBASE_ACTIVE_SEGMENT_OVERHEAD);
}
