//! The heatmap's axes and cells, as Key Visualizer draws them: time on X, on Y contiguous
//! key ranges ("buckets") of about equal row count — so a range holding many rows gets many
//! buckets and a sparse one few — and a count (writes, reads, bytes) per time slice and
//! bucket. A hot range is named by the longest prefix its keys share.

use crate::splits::shortest_separator;

/// Contiguous key ranges of about equal row count, from a sample of keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyBuckets {
    /// Start keys of buckets 1.. (bucket 0 starts at the empty key), increasing.
    starts: Vec<Vec<u8>>,
    /// The smallest and largest sampled key of each bucket (what names its range).
    sampled: Vec<(Vec<u8>, Vec<u8>)>,
}

impl KeyBuckets {
    /// At most `n` buckets over `keys` (any order; duplicates count as rows). Fewer come
    /// out when the sample has fewer distinct keys.
    pub fn from_sample(mut keys: Vec<Vec<u8>>, n: usize) -> KeyBuckets {
        keys.sort();
        let mut starts: Vec<Vec<u8>> = Vec::new();
        let len = keys.len();
        let mut next = 1;
        for i in 1..n.max(1) {
            let mut idx = (i * len / n).max(next);
            while idx < len && keys[idx] == keys[idx - 1] {
                idx += 1;
            }
            let (Some(prev), Some(key)) =
                (idx.checked_sub(1).and_then(|p| keys.get(p)), keys.get(idx))
            else {
                break;
            };
            starts.push(shortest_separator(prev, key));
            next = idx + 1;
        }
        let mut b = KeyBuckets {
            starts,
            sampled: Vec::new(),
        };
        let mut sampled: Vec<(Vec<u8>, Vec<u8>)> = vec![(Vec::new(), Vec::new()); b.len()];
        for k in &keys {
            let (lo, hi) = &mut sampled[b.bucket_of(k)];
            if lo.is_empty() {
                *lo = k.clone();
            }
            *hi = k.clone();
        }
        b.sampled = sampled;
        b
    }

    /// How many buckets.
    pub fn len(&self) -> usize {
        self.starts.len() + 1
    }

    /// Always false: there is at least one bucket.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The bucket holding `key`.
    pub fn bucket_of(&self, key: &[u8]) -> usize {
        self.starts.partition_point(|s| s.as_slice() <= key)
    }

    /// The bucket holding `key`, trying `hint` first: rows come back from a scan in key
    /// order, so the last row's bucket (or the next) usually holds the next row, and two
    /// comparisons replace a binary search.
    pub fn bucket_of_near(&self, key: &[u8], hint: usize) -> usize {
        let holds = |i: usize| {
            let (start, end) = self.range(i);
            start <= key && end.is_none_or(|e| key < e)
        };
        if hint < self.len() && holds(hint) {
            hint
        } else if hint + 1 < self.len() && holds(hint + 1) {
            hint + 1
        } else {
            self.bucket_of(key)
        }
    }

    /// Bucket `i`'s first key (inclusive) and end key (exclusive; `None`: the end of the
    /// key space).
    pub fn range(&self, i: usize) -> (&[u8], Option<&[u8]>) {
        let start = if i == 0 {
            &[][..]
        } else {
            self.starts.get(i - 1).map_or(&[][..], Vec::as_slice)
        };
        (start, self.starts.get(i).map(Vec::as_slice))
    }

    /// The longest prefix the sampled keys of buckets `first..=last` share — how a hot
    /// range is named (empty when they start with different bytes).
    pub fn common_prefix(&self, first: usize, last: usize) -> Vec<u8> {
        let lo = self
            .sampled
            .get(first)
            .map_or(&[][..], |(lo, _)| lo.as_slice());
        let hi = self
            .sampled
            .get(last)
            .map_or(&[][..], |(_, hi)| hi.as_slice());
        let shared = lo.iter().zip(hi).take_while(|(a, b)| a == b).count();
        lo[..shared].to_vec()
    }
}

/// Counts per time slice and key bucket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heatmap {
    start_ms: i64,
    slice_ms: i64,
    slices: usize,
    buckets: usize,
    cells: Vec<u64>,
}

impl Heatmap {
    /// `slices` time slices over `[start_ms, start_ms + duration_ms)` by `buckets` buckets.
    pub fn new(start_ms: i64, duration_ms: i64, slices: usize, buckets: usize) -> Heatmap {
        let slices = slices.max(1);
        let slice_ms = (duration_ms.max(1) + slices as i64 - 1) / slices as i64;
        Heatmap {
            start_ms,
            slice_ms: slice_ms.max(1),
            slices,
            buckets: buckets.max(1),
            cells: vec![0; slices * buckets.max(1)],
        }
    }

    /// Epoch ms where slice 0 starts.
    pub fn start_ms(&self) -> i64 {
        self.start_ms
    }

    /// Ms per slice.
    pub fn slice_ms(&self) -> i64 {
        self.slice_ms
    }

    /// The slice of time `ts` (clamped to the map).
    pub fn slice_of(&self, ts: i64) -> usize {
        let s = (ts - self.start_ms).max(0) / self.slice_ms;
        usize::try_from(s)
            .unwrap_or(usize::MAX)
            .min(self.slices - 1)
    }

    /// Adds `amount` at time `ts` in `bucket` (clamped to the map).
    pub fn add(&mut self, ts: i64, bucket: usize, amount: u64) {
        let i = self.slice_of(ts) * self.buckets + bucket.min(self.buckets - 1);
        if let Some(c) = self.cells.get_mut(i) {
            *c = c.saturating_add(amount);
        }
    }

    /// The count of `slice` and `bucket`.
    pub fn get(&self, slice: usize, bucket: usize) -> u64 {
        self.cells
            .get(slice * self.buckets + bucket)
            .copied()
            .unwrap_or(0)
    }

    /// Time slices, buckets.
    pub fn shape(&self) -> (usize, usize) {
        (self.slices, self.buckets)
    }

    /// Each bucket's total over all time.
    pub fn bucket_totals(&self) -> Vec<u64> {
        (0..self.buckets)
            .map(|b| (0..self.slices).map(|s| self.get(s, b)).sum())
            .collect()
    }

    /// Each slice's total over all buckets.
    pub fn slice_totals(&self) -> Vec<u64> {
        self.cells
            .chunks(self.buckets)
            .map(|row| row.iter().sum())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hint_finds_the_same_bucket() {
        let keys: Vec<Vec<u8>> = (0..1000u32)
            .map(|i| format!("k{i:04}").into_bytes())
            .collect();
        let b = KeyBuckets::from_sample(keys.clone(), 10);
        for k in &keys {
            let right = b.bucket_of(k);
            for hint in [0, right.saturating_sub(1), right, right + 1, 9, 50] {
                assert_eq!(b.bucket_of_near(k, hint), right);
            }
        }
    }

    #[test]
    fn buckets_hold_equal_shares_of_the_sample() {
        // 900 keys under "a", 100 under "b": of 10 buckets, 9 cover "a".
        let mut keys: Vec<Vec<u8>> = (0..900).map(|i| format!("a{i:03}").into_bytes()).collect();
        keys.extend((0..100).map(|i| format!("b{i:03}").into_bytes()));
        let b = KeyBuckets::from_sample(keys.clone(), 10);
        assert_eq!(b.len(), 10);
        let mut counts = vec![0; b.len()];
        for k in &keys {
            counts[b.bucket_of(k)] += 1;
        }
        assert!(counts.iter().all(|&c| c == 100), "{counts:?}");
        assert_eq!(b.bucket_of(b""), 0);
        assert_eq!(b.bucket_of(b"zzz"), 9);
        assert_eq!(b.range(0).0, b"");
        assert_eq!(b.range(9).1, None);
        assert_eq!(
            b.common_prefix(0, 8),
            b"a",
            "the hot range is named by its prefix"
        );
        assert_eq!(b.common_prefix(0, 9), b"");
        // Fewer distinct keys than buckets: fewer buckets.
        assert_eq!(
            KeyBuckets::from_sample(vec![b"x".to_vec(); 50], 10).len(),
            1
        );
        assert_eq!(KeyBuckets::from_sample(Vec::new(), 10).len(), 1);
    }

    #[test]
    fn a_heatmap_counts_per_slice_and_bucket() {
        let mut h = Heatmap::new(1_000, 10_000, 10, 4);
        h.add(1_000, 0, 1);
        h.add(1_999, 0, 1);
        h.add(2_000, 3, 5);
        h.add(50_000, 9, 7); // past the end and beyond the buckets: clamped
        assert_eq!(h.get(0, 0), 2);
        assert_eq!(h.get(1, 3), 5);
        assert_eq!(h.get(9, 3), 7);
        assert_eq!(h.bucket_totals(), [2, 0, 0, 12]);
        assert_eq!(h.slice_totals().iter().sum::<u64>(), 14);
        assert_eq!(h.shape(), (10, 4));
    }
}
