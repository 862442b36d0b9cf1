//! Request and key generators: YCSB's (uniform, zipfian after Gray et al., scrambled
//! zipfian, skewed-latest, the FNV-1a hash that scatters keys) and PE's random row.
//!
//! Each generator is deterministic given its random source, so a run with a fixed seed is
//! repeatable (`--seed`).

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::sync::atomic::{AtomicU64, Ordering};

/// YCSB's zipfian constant.
pub const ZIPFIAN_CONSTANT: f64 = 0.99;
/// Item count of YCSB's scrambled zipfian generator (keys are then hashed into range).
pub const SCRAMBLED_ITEM_COUNT: u64 = 10_000_000_000;
/// `zeta(SCRAMBLED_ITEM_COUNT, 0.99)`, the constant YCSB precomputed for it.
pub const SCRAMBLED_ZETAN: f64 = 26.469_028_201_783_02;

const FNV_OFFSET_BASIS_64: u64 = 0xCBF2_9CE4_8422_2325;
const FNV_PRIME_64: u64 = 1_099_511_628_211;

/// YCSB's `Utils.fnvhash64`: FNV-1a over the 8 bytes of `val`, low byte first, made
/// non-negative as Java's `Math.abs` of a `long` does.
pub fn fnv_hash64(mut val: i64) -> i64 {
    let mut hash = FNV_OFFSET_BASIS_64 as i64;
    for _ in 0..8 {
        let octet = val & 0xff;
        val >>= 8;
        hash ^= octet;
        hash = hash.wrapping_mul(FNV_PRIME_64 as i64);
    }
    // Java's Math.abs(Long.MIN_VALUE) is Long.MIN_VALUE; wrapping_abs matches it.
    hash.wrapping_abs()
}

/// A seeded random source per client thread.
pub fn rng(seed: u64, thread: usize) -> SmallRng {
    SmallRng::seed_from_u64(seed ^ (thread as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// `zeta(n, theta) = Σ_{i=1..n} 1 / i^theta`, continuing from `zeta(from, theta) = start`.
fn zeta(from: u64, to: u64, theta: f64, start: f64) -> f64 {
    let mut sum = start;
    for i in from..to {
        sum += 1.0 / ((i + 1) as f64).powf(theta);
    }
    sum
}

/// YCSB's `ZipfianGenerator` over `[base, base + items)`: popular items are the small ones.
#[derive(Debug, Clone)]
pub struct Zipfian {
    base: u64,
    items: u64,
    theta: f64,
    zeta2: f64,
    alpha: f64,
    zetan: f64,
    eta: f64,
    counted_for: u64,
}

impl Zipfian {
    /// A generator over `[min, max]` with YCSB's constant.
    pub fn new(min: u64, max: u64) -> Self {
        let items = max - min + 1;
        let zetan = zeta(0, items, ZIPFIAN_CONSTANT, 0.0);
        Self::with_zetan(min, max, zetan)
    }

    /// A generator whose `zeta(items)` is known (YCSB precomputes it for the scrambled
    /// generator's ten billion items).
    pub fn with_zetan(min: u64, max: u64, zetan: f64) -> Self {
        let items = max - min + 1;
        let theta = ZIPFIAN_CONSTANT;
        let zeta2 = zeta(0, 2, theta, 0.0);
        let alpha = 1.0 / (1.0 - theta);
        let eta = (1.0 - (2.0 / items as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
        Self {
            base: min,
            items,
            theta,
            zeta2,
            alpha,
            zetan,
            eta,
            counted_for: items,
        }
    }

    /// The next value, for an item count that may have grown (YCSB recomputes zeta
    /// incrementally when the count rises, as inserts add keys).
    pub fn next_with_count(&mut self, rng: &mut SmallRng, items: u64) -> u64 {
        if items > self.counted_for {
            self.zetan = zeta(self.counted_for, items, self.theta, self.zetan);
            self.items = items;
            self.counted_for = items;
            self.eta = (1.0 - (2.0 / items as f64).powf(1.0 - self.theta))
                / (1.0 - self.zeta2 / self.zetan);
        }
        let u: f64 = rng.random();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return self.base;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return self.base + 1;
        }
        self.base + (self.items as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64
    }

    /// The next value.
    pub fn next(&mut self, rng: &mut SmallRng) -> u64 {
        let items = self.items;
        self.next_with_count(rng, items)
    }
}

/// YCSB's `ScrambledZipfianGenerator`: zipfian popularity, but the popular keys are spread
/// over the key space by an FNV hash instead of clustered at the start.
#[derive(Debug, Clone)]
pub struct ScrambledZipfian {
    min: u64,
    items: u64,
    inner: Zipfian,
}

impl ScrambledZipfian {
    /// Over `[min, max]`.
    pub fn new(min: u64, max: u64) -> Self {
        Self {
            min,
            items: max - min + 1,
            inner: Zipfian::with_zetan(0, SCRAMBLED_ITEM_COUNT - 1, SCRAMBLED_ZETAN),
        }
    }

    /// The next value.
    pub fn next(&mut self, rng: &mut SmallRng) -> u64 {
        let v = self.inner.next(rng);
        self.min + (fnv_hash64(v as i64) as u64) % self.items
    }
}

/// YCSB's `AcknowledgedCounterGenerator`: hands out insert key numbers, and lets readers
/// ask only for keys below the first one not yet acknowledged, so a read never targets a
/// key whose insert is still in flight.
#[derive(Debug)]
pub struct InsertCounter {
    next: AtomicU64,
    /// Keys acknowledged out of order, and the contiguous limit.
    window: std::sync::Mutex<(std::collections::BTreeSet<u64>, u64)>,
    limit: AtomicU64,
}

impl InsertCounter {
    /// Starts handing out keys at `start` (the record count after the load phase).
    pub fn new(start: u64) -> Self {
        Self {
            next: AtomicU64::new(start),
            window: std::sync::Mutex::new((std::collections::BTreeSet::new(), start)),
            limit: AtomicU64::new(start),
        }
    }

    /// The next key number to insert.
    pub fn next(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// Marks `key` inserted; the readable limit moves over every contiguous acknowledged
    /// key.
    pub fn acknowledge(&self, key: u64) {
        let mut w = self.window.lock().unwrap_or_else(|e| e.into_inner());
        let (pending, limit) = &mut *w;
        pending.insert(key);
        while pending.remove(limit) {
            *limit += 1;
        }
        self.limit.store(*limit, Ordering::Release);
    }

    /// Keys `[0, limit)` are readable.
    pub fn limit(&self) -> u64 {
        self.limit.load(Ordering::Acquire)
    }
}

/// Which keys a request picks (YCSB's `requestdistribution`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Distribution {
    /// Every key equally likely.
    Uniform,
    /// Scrambled zipfian: a few keys are hot, spread over the key space.
    Zipfian,
    /// Skewed towards the most recently inserted keys.
    Latest,
}

/// A per-thread key chooser for one distribution.
#[derive(Debug, Clone)]
pub enum KeyChooser {
    /// Uniform over `[0, limit)`.
    Uniform,
    /// Scrambled zipfian over the initial records.
    Zipfian(ScrambledZipfian),
    /// `limit − 1 − zipfian(limit)`: YCSB's `SkewedLatestGenerator`.
    Latest(Zipfian),
}

impl KeyChooser {
    /// A chooser over `records` initial keys.
    pub fn new(d: Distribution, records: u64) -> Self {
        let max = records.max(1) - 1;
        match d {
            Distribution::Uniform => Self::Uniform,
            Distribution::Zipfian => Self::Zipfian(ScrambledZipfian::new(0, max)),
            Distribution::Latest => Self::Latest(Zipfian::new(0, max)),
        }
    }

    /// A key number below `limit` (the keys inserted so far).
    pub fn next(&mut self, rng: &mut SmallRng, limit: u64) -> u64 {
        let limit = limit.max(1);
        match self {
            Self::Uniform => rng.random_range(0..limit),
            // YCSB's CoreWorkload re-draws until a key below the insert limit comes up.
            Self::Zipfian(z) => loop {
                let k = z.next(rng);
                if k < limit {
                    return k;
                }
            },
            Self::Latest(z) => {
                let back = z.next_with_count(rng, limit);
                limit - 1 - back.min(limit - 1)
            }
        }
    }
}

/// YCSB's record key for key number `n`: `"user"` + the number, hashed unless inserts are
/// ordered, left-padded with zeros to `zero_padding` digits.
pub fn ycsb_key(n: u64, ordered: bool, zero_padding: usize) -> String {
    let v = if ordered {
        n
    } else {
        fnv_hash64(n as i64) as u64
    };
    format!("user{v:0zero_padding$}")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn fnv_matches_ycsb() {
        // FNV-1a 64 of eight zero bytes, then Java's Math.abs.
        let mut h: u64 = FNV_OFFSET_BASIS_64;
        for _ in 0..8 {
            h = h.wrapping_mul(FNV_PRIME_64);
        }
        assert_eq!(fnv_hash64(0), (h as i64).wrapping_abs());
        assert!(fnv_hash64(1) >= 0 && fnv_hash64(12345) >= 0);
        assert_ne!(fnv_hash64(1), fnv_hash64(2));
    }

    #[test]
    fn zipfian_prefers_small_items_and_stays_in_range() {
        let mut rng = rng(7, 0);
        let mut z = Zipfian::new(0, 999);
        let mut counts = vec![0u32; 1000];
        for _ in 0..100_000 {
            let v = z.next(&mut rng);
            assert!(v < 1000);
            counts[v as usize] += 1;
        }
        assert!(counts[0] > counts[1] && counts[1] > counts[10] && counts[10] > counts[500]);
        // Item 0 draws about 1/zeta(1000, 0.99) ≈ 13% of requests.
        assert!((10_000..16_000).contains(&counts[0]), "{}", counts[0]);
    }

    #[test]
    fn scrambled_zipfian_spreads_hot_keys() {
        let mut rng = rng(1, 0);
        let mut z = ScrambledZipfian::new(0, 9_999);
        let mut counts = vec![0u32; 10_000];
        for _ in 0..200_000 {
            counts[z.next(&mut rng) as usize] += 1;
        }
        let hottest = (0..10_000).max_by_key(|&i| counts[i]).unwrap();
        assert!(counts[hottest] > 2_000, "a hot key exists");
        assert_ne!(hottest, 0, "but not at the start of the key space");
    }

    #[test]
    fn latest_prefers_recent_keys_and_grows() {
        let mut rng = rng(3, 0);
        let mut c = KeyChooser::new(Distribution::Latest, 1000);
        let recent = (0..10_000)
            .filter(|_| c.next(&mut rng, 1000) >= 990)
            .count();
        assert!(recent > 3_000, "{recent}");
        assert!((0..1000).all(|_| c.next(&mut rng, 2000) < 2000));
    }

    #[test]
    fn the_insert_limit_moves_only_over_contiguous_acknowledgements() {
        let c = InsertCounter::new(10);
        let (a, b) = (c.next(), c.next());
        assert_eq!((a, b), (10, 11));
        c.acknowledge(b);
        assert_eq!(c.limit(), 10, "10 is still in flight");
        c.acknowledge(a);
        assert_eq!(c.limit(), 12);
    }

    #[test]
    fn keys_are_ycsb_shaped() {
        assert_eq!(ycsb_key(42, true, 1), "user42");
        assert_eq!(ycsb_key(42, true, 5), "user00042");
        assert_eq!(ycsb_key(0, false, 1), format!("user{}", fnv_hash64(0)));
    }
}
