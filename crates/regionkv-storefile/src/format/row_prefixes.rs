//! The search aid shared by part tables (`parts::PartIndex`) and index blocks
//! (`crate::index::SearchableIndexBlock`): eight bytes of each sorted key's row, taken
//! after the prefix all the rows share, so that a binary search compares integers in a
//! few cache lines instead of chasing each probe's key through a block. Both kinds of
//! block are searched once per Get and per file, and are rarely in the CPU caches: the
//! key chasing was 7% (part tables) and 17% (index blocks, 4 KiB data blocks) of a
//! random Get.
//!
//! Why after the shared prefix: rows of one block often share their first bytes
//! (zero-padded numbers, a salt, a tenant id), and eight bytes of those would all be
//! equal and decide nothing.
//!
//! The ordering argument, which every user relies on: among rows that start with the
//! same `common` bytes, if `pack8(a_rest) < pack8(b_rest)` then row a < row b (at the
//! first differing byte either both rows have a byte there, or a ended, padding 0, while b
//! goes on, so a is a prefix of b); `>` likewise. Keys order by row first, so only equal
//! prefixes need the full key comparison.

use regionkv_cell::key::key_row;
use std::cmp::Ordering;

/// The first eight bytes of `bytes`, big-endian, zero-padded.
pub fn pack8(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = bytes.len().min(8);
    b[..n].copy_from_slice(&bytes[..n]);
    u64::from_be_bytes(b)
}

/// The first eight bytes of `key`'s row (see [`pack8`]); `None` when the key's row length
/// runs past it.
pub fn row_prefix(key: &[u8]) -> Option<u64> {
    key_row(key).map(pack8)
}

/// The aid for `keys` (sorted): the bytes every row shares, and [`pack8`] of each row
/// after them. `None` when some key is not a well-formed cell key (the caller then
/// searches without the aid).
pub fn build<'a>(keys: impl Iterator<Item = &'a [u8]>) -> Option<(Vec<u8>, Vec<u64>)> {
    let rows: Vec<&[u8]> = keys.map(key_row).collect::<Option<_>>()?;
    let common = match rows.split_first() {
        Some((first, rest)) => {
            let n = rest.iter().fold(first.len(), |n, r| {
                n.min(first.iter().zip(*r).take_while(|(a, b)| a == b).count())
            });
            first.get(..n).unwrap_or_default().to_vec()
        }
        None => Vec::new(),
    };
    let prefixes = rows
        .iter()
        .map(|r| pack8(r.get(common.len()..).unwrap_or_default()))
        .collect();
    Some((common, prefixes))
}

/// The prefix a search for `key` compares with, or `None` when `key`'s row does not start
/// with `common` (or is malformed): the caller then takes its plain search.
pub fn search_prefix(common: &[u8], key: &[u8]) -> Option<u64> {
    key_row(key).and_then(|r| r.strip_prefix(common)).map(pack8)
}

/// Index of the last of `n` sorted keys that is ≤ the searched key, or 0 when none is.
/// `prefix_at(i)` is key i's aid prefix and `p` the searched key's ([`search_prefix`]);
/// `compare_at(i)` compares key i with the searched key in full and is called only on
/// equal prefixes (or a missing prefix, which a corrupt aid cannot produce but is safe).
pub fn find_last_le(
    n: usize,
    p: u64,
    prefix_at: impl Fn(usize) -> Option<u64>,
    compare_at: impl Fn(usize) -> Ordering,
) -> usize {
    let (mut lo, mut hi) = (0usize, n);
    // Invariant: keys before `lo` are ≤ the searched key; from `hi` on they are greater.
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let greater = match prefix_at(mid).map(|m| m.cmp(&p)) {
            Some(Ordering::Greater) => true,
            Some(Ordering::Less) => false,
            _ => compare_at(mid).is_gt(),
        };
        if greater {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo.saturating_sub(1)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use regionkv_cell::{CellType, compare_keys, key::encode_key};

    fn key(row: &[u8]) -> Vec<u8> {
        encode_key(row, b"f", b"q", 1, CellType::Put, 0).unwrap()
    }

    #[test]
    fn the_shared_prefix_is_cut_before_the_eight_bytes() {
        let keys: Vec<Vec<u8>> = [&b"tenant-0001-a"[..], b"tenant-0001-b", b"tenant-0002"]
            .iter()
            .map(|r| key(r))
            .collect();
        let (common, prefixes) = build(keys.iter().map(|k| k.as_slice())).unwrap();
        assert_eq!(common, b"tenant-000");
        assert_eq!(prefixes[0], pack8(b"1-a"));
        assert!(prefixes[0] < prefixes[1] && prefixes[1] < prefixes[2]);
        assert_eq!(
            search_prefix(&common, &key(b"tenant-0001-a")),
            Some(prefixes[0])
        );
        assert_eq!(search_prefix(&common, &key(b"other")), None);
        assert!(build([&b"not a key"[..]].into_iter()).is_none());
    }

    #[test]
    fn find_last_le_agrees_with_a_plain_search() {
        let rows: Vec<Vec<u8>> = (0..200u32)
            .map(|i| format!("00000{:06}", i * 7).into_bytes())
            .collect();
        let keys: Vec<Vec<u8>> = rows.iter().map(|r| key(r)).collect();
        let (common, prefixes) = build(keys.iter().map(|k| k.as_slice())).unwrap();
        for probe in 0..1500u32 {
            let target = key(format!("00000{probe:06}").as_bytes());
            let plain = keys
                .iter()
                .rposition(|k| compare_keys(k, &target).is_le())
                .unwrap_or(0);
            let p = search_prefix(&common, &target).unwrap();
            let found = find_last_le(
                keys.len(),
                p,
                |i| prefixes.get(i).copied(),
                |i| compare_keys(&keys[i], &target),
            );
            assert_eq!(found, plain, "probe {probe}");
        }
    }
}
