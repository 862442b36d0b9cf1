//! Proptest model: a memstore holds exactly the cells of a `BTreeMap` keyed by the encoded
//! key under `compare_keys` (an equal key replaces the value), and its scanners — full scan,
//! `seek`, `reseek`, `advance`, `seek_to_first` — return what that model predicts at any
//! read point. Run against MSLAB on (tiny chunks, so cells cross chunk boundaries, and a
//! tiny `max_alloc`, so some cells get their own buffer), MSLAB off, and HBase's defaults.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use regionkv_cell::key::encode_key;
use regionkv_cell::{Cell, CellType, KeyValueScanner, KeyView, OwnedKey};
use regionkv_memstore::{MemStore, MemStoreConfig, Segment};
use std::collections::BTreeMap;

type Model = BTreeMap<OwnedKey, Vec<u8>>;

fn configs() -> Vec<(&'static str, MemStoreConfig)> {
    vec![
        (
            "tiny arena",
            MemStoreConfig {
                mslab_enabled: true,
                chunk_size: 256,
                // Chunks of 32, 64, 128 and then 256 bytes: the growth is exercised too.
                initial_chunk_size: 32,
                max_alloc: 64,
                pool: None,
            },
        ),
        (
            "mslab off",
            MemStoreConfig {
                mslab_enabled: false,
                ..MemStoreConfig::default()
            },
        ),
        ("defaults", MemStoreConfig::default()),
    ]
}

fn cell_type() -> impl Strategy<Value = CellType> {
    prop_oneof![
        4 => Just(CellType::Put),
        1 => Just(CellType::Delete),
        1 => Just(CellType::DeleteColumn),
        1 => Just(CellType::DeleteFamily),
        1 => Just(CellType::DeleteFamilyVersion),
    ]
}

/// Small alphabets, so that equal rows, columns, timestamps and whole keys are common.
fn cell() -> impl Strategy<Value = Cell> {
    (
        prop::sample::select(vec![&b""[..], b"a", b"ab", b"b", b"\xff"]),
        prop::sample::select(vec![&b"f"[..], b"g"]),
        prop::sample::select(vec![&b""[..], b"q", b"q\x00", b"r"]),
        prop_oneof![Just(0i64), Just(1), Just(2), Just(i64::MAX - 1)],
        cell_type(),
        1u64..6,
        prop_oneof![
            3 => prop::collection::vec(any::<u8>(), 0..16),
            1 => prop::collection::vec(any::<u8>(), 60..120),
        ],
    )
        .prop_map(|(row, family, qualifier, ts, t, seq, value)| {
            Cell::new(row, family, qualifier, ts, t, &value)
                .unwrap()
                .with_seq_id(seq)
        })
}

/// Seek targets: real-looking keys plus HBase's row and column seek keys.
fn target() -> impl Strategy<Value = OwnedKey> {
    let row = prop::sample::select(vec![&b""[..], b"a", b"a\x00", b"ab", b"b", b"c"]);
    prop_oneof![
        (
            row.clone(),
            prop::sample::select(vec![&b"f"[..], b"g"]),
            prop::sample::select(vec![&b""[..], b"q", b"r"]),
            0i64..3,
            cell_type(),
            0u64..7
        )
            .prop_map(|(r, f, q, ts, t, seq)| {
                OwnedKey::from_bytes(encode_key(r, f, q, ts, t, seq).unwrap()).unwrap()
            }),
        row.clone().prop_map(|r| OwnedKey::first_on_row(r).unwrap()),
        row.prop_map(|r| OwnedKey::last_on_row(r).unwrap()),
    ]
}

/// The one segment a memstore of `config` holds after adding `cells`.
fn segment_of(config: MemStoreConfig, cells: &[Cell]) -> std::sync::Arc<Segment> {
    let memstore = MemStore::new(config);
    for c in cells {
        memstore.add(c.as_cell_ref());
    }
    memstore.segments().pop().unwrap()
}

/// The segment holds the model's cells, and a scan at the newest read point returns them
/// all in order.
fn full_scan_matches(
    segment: &std::sync::Arc<Segment>,
    model: &Model,
    name: &str,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(segment.len(), model.len(), "{}", name);
    let mut all = segment.scanner(u64::MAX);
    prop_assert_eq!(drain(&mut all), visible(model, u64::MAX), "{}", name);
    Ok(())
}

fn model_of(cells: &[Cell]) -> Model {
    let mut model = Model::new();
    for c in cells {
        model.insert(
            OwnedKey::from_bytes(c.key_bytes().to_vec()).unwrap(),
            c.value().to_vec(),
        );
    }
    model
}

fn visible(model: &Model, read_point: u64) -> Vec<(Vec<u8>, Vec<u8>)> {
    model
        .iter()
        .filter(|(k, _)| k.view().seq_id() <= read_point)
        .map(|(k, v)| (k.as_bytes().to_vec(), v.clone()))
        .collect()
}

fn first_at_or_after(
    model: &Model,
    target: &OwnedKey,
    read_point: u64,
) -> Option<(Vec<u8>, Vec<u8>)> {
    model
        .range(target.clone()..)
        .find(|(k, _)| k.view().seq_id() <= read_point)
        .map(|(k, v)| (k.as_bytes().to_vec(), v.clone()))
}

fn drain<S: KeyValueScanner>(scanner: &mut S) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    while let Some(c) = scanner.peek() {
        out.push((c.key_bytes().to_vec(), c.value().to_vec()));
        scanner.advance().unwrap();
    }
    out
}

fn current<S: KeyValueScanner>(scanner: &S) -> Option<(Vec<u8>, Vec<u8>)> {
    scanner
        .peek()
        .map(|c| (c.key_bytes().to_vec(), c.value().to_vec()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn scans_return_the_model_in_comparator_order(
        cells in prop::collection::vec(cell(), 0..80),
        read_point in 0u64..7,
    ) {
        let model = model_of(&cells);
        for (name, config) in configs() {
            let segment = segment_of(config, &cells);
            full_scan_matches(&segment, &model, name)?;
            let mut at_rp = segment.scanner(read_point);
            prop_assert_eq!(drain(&mut at_rp), visible(&model, read_point), "{}", name);
            at_rp.seek_to_first();
            prop_assert_eq!(current(&at_rp), visible(&model, read_point).into_iter().next());
            let owned: Vec<(Vec<u8>, Vec<u8>)> =
                segment.iter().map(|c| { let (k, v) = c.into_parts(); (k, v) }).collect();
            prop_assert_eq!(owned, visible(&model, u64::MAX), "{}", name);
            prop_assert_eq!(
                segment.first_key(),
                model.keys().next().map(|k| k.as_bytes().to_vec())
            );
            prop_assert_eq!(
                segment.last_key(),
                model.keys().next_back().map(|k| k.as_bytes().to_vec())
            );
        }
    }

    #[test]
    fn seek_and_reseek_land_on_the_first_visible_key_at_or_after_the_target(
        cells in prop::collection::vec(cell(), 0..80),
        mut targets in prop::collection::vec(target(), 1..20),
        read_point in 0u64..7,
        advances in prop::collection::vec(0usize..3, 20),
    ) {
        let model = model_of(&cells);
        for (name, config) in configs() {
            let segment = segment_of(config, &cells);

            // seek: any order, each from wherever the scanner is.
            let mut scanner = segment.scanner(read_point);
            for t in &targets {
                let expected = first_at_or_after(&model, t, read_point);
                let found = scanner.seek(&t.view()).unwrap();
                prop_assert_eq!(found, expected.is_some(), "{} seek {:?}", name, t);
                prop_assert_eq!(current(&scanner), expected, "{} seek {:?}", name, t);
            }

            // reseek: ascending targets, with some advances in between (the contract:
            // the target is not before the current position).
            targets.sort();
            let mut scanner = segment.scanner(read_point);
            for (t, steps) in targets.iter().zip(&advances) {
                let here = current(&scanner);
                let target_view: KeyView<'_> = t.view();
                // Past the end a scanner stays there; a target at or before the current
                // cell leaves it in place; otherwise it moves to the model's answer.
                let expected = match &here {
                    Some((k, _)) if regionkv_cell::compare_keys(k, t.as_bytes()).is_lt() => {
                        first_at_or_after(&model, t, read_point)
                    }
                    _ => here.clone(),
                };
                let found = scanner.reseek(&target_view).unwrap();
                prop_assert_eq!(found, expected.is_some(), "{} reseek {:?}", name, t);
                prop_assert_eq!(current(&scanner), expected.clone(), "{} reseek {:?}", name, t);
                for _ in 0..*steps {
                    scanner.advance().unwrap();
                }
            }
        }
    }
}

/// Cells whose rows mostly share a prefix of a few bytes (so the segment's index windows
/// start after it), with rows that end inside the window, rows longer than it, rows that
/// are prefixes of the shared prefix and rows that share none of it.
fn prefixed_cell() -> impl Strategy<Value = Cell> {
    let row = prop_oneof![
        6 => (
            prop::sample::select(vec![&b"pp\x00"[..], b"pp\x00\x00", b"pp\x00a"]),
            prop::collection::vec(prop::sample::select(vec![0u8, 1, b'a', 0xff]), 0..11),
        )
            .prop_map(|(p, rest)| [p, &rest[..]].concat()),
        1 => prop::sample::select(vec![&b""[..], b"p", b"pp", b"pq", b"zz", b"pp\x01"])
            .prop_map(<[u8]>::to_vec),
    ];
    (
        row,
        prop::sample::select(vec![&b"f"[..], b"g"]),
        prop::sample::select(vec![&b""[..], b"q"]),
        0i64..3,
        cell_type(),
        1u64..4,
    )
        .prop_map(|(row, family, qualifier, ts, t, seq)| {
            Cell::new(&row, family, qualifier, ts, t, b"v")
                .unwrap()
                .with_seq_id(seq)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Past its first 256 rows a segment compares most keys by a window of the row
    /// (`index_key.rs`); scans and seeks must still follow the comparator exactly.
    #[test]
    fn windowed_segments_scan_and_seek_in_comparator_order(
        first in prop::collection::vec(
            (prop::collection::vec(prop::sample::select(vec![0u8, b'a', 0xff]), 0..6), 1u64..4)
                .prop_map(|(rest, seq)| {
                    Cell::put(&[&b"pp\x00"[..], &rest].concat(), b"f", b"q", 1, b"v")
                        .unwrap()
                        .with_seq_id(seq)
                }),
            256..300,
        ),
        later in prop::collection::vec(prefixed_cell(), 1..400),
        targets in prop::collection::vec(target(), 1..10),
    ) {
        let cells: Vec<Cell> = first.into_iter().chain(later).collect();
        let model = model_of(&cells);
        for (name, config) in configs() {
            let segment = segment_of(config, &cells);
            full_scan_matches(&segment, &model, name)?;
            let mut scanner = segment.scanner(u64::MAX);
            for t in &targets {
                let expected = first_at_or_after(&model, t, u64::MAX);
                scanner.seek(&t.view()).unwrap();
                prop_assert_eq!(current(&scanner), expected, "{} seek {:?}", name, t);
            }
        }
    }
}

#[test]
fn a_scanner_made_before_later_adds_sees_those_ahead_of_it() {
    let memstore = MemStore::default();
    let put = |row: &[u8], seq| {
        Cell::put(row, b"f", b"q", 1, b"v")
            .unwrap()
            .with_seq_id(seq)
    };
    memstore.add(put(b"a", 1).as_cell_ref());
    memstore.add(put(b"c", 1).as_cell_ref());
    let mut scanner = memstore.scanners(5).pop().unwrap();
    assert_eq!(scanner.peek().unwrap().row(), b"a");
    memstore.add(put(b"b", 2).as_cell_ref());
    memstore.add(put(b"d", 9).as_cell_ref()); // above the read point: never seen
    scanner.advance().unwrap();
    assert_eq!(scanner.peek().unwrap().row(), b"b");
    scanner.advance().unwrap();
    assert_eq!(scanner.peek().unwrap().row(), b"c");
    scanner.advance().unwrap();
    assert!(scanner.peek().is_none());
}
