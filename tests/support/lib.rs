//! Shared helpers for regionkv's workspace-level integration tests and benchmarks.
//!
//! The root package exists to own `tests/` and `benches/`; this library is deliberately
//! small so that test files stay self-describing.

/// Marsaglia's xorshift64 with a fixed seed: the same values on every run, no `rand`
/// dependency. Used by benchmarks for key and value streams and by crash tests for kill
/// delays (the seed is printed on failure, so a run replays).
#[derive(Debug, Clone)]
pub struct XorShift(pub u64);

impl XorShift {
    /// The next value (the state must not be 0).
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

/// Bytes of the benchmark value.
pub const VALUE_LEN: usize = 100;
/// Incompressible bytes at the start of the benchmark value.
pub const RANDOM_PREFIX: usize = 50;

/// A 100-byte value, about half compressible: 50 random bytes, then 50 copies of one byte
/// (the "about half compressible" values of the project's benchmark targets).
pub fn value(rng: &mut XorShift) -> Vec<u8> {
    let mut v = Vec::with_capacity(VALUE_LEN);
    while v.len() < RANDOM_PREFIX {
        v.extend_from_slice(&rng.next_u64().to_be_bytes());
    }
    v.truncate(RANDOM_PREFIX);
    v.resize(VALUE_LEN, b'v');
    v
}

/// The 16-byte benchmark row key of `n` (zero-padded decimal).
pub fn row(n: u64) -> Vec<u8> {
    format!("{n:016}").into_bytes()
}
