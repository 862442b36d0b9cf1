//! A tiny deterministic PRNG (SplitMix64) for seeded crash simulation.
//!
//! Crash outcomes must be reproducible from a seed printed by a failing test, and this crate
//! takes no `rand` dependency for that. SplitMix64 is statistically fine for choosing prefix
//! lengths and garbage bytes; it is not for cryptography.

/// SplitMix64 (Steele, Lea and Flood, 2014), as used to seed xoshiro.
#[derive(Debug, Clone)]
pub(crate) struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose sequence is fixed by `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..=max` (with a negligible modulo bias).
    pub(crate) fn up_to(&mut self, max: u64) -> u64 {
        match max.checked_add(1) {
            Some(bound) => self.next_u64() % bound,
            None => self.next_u64(),
        }
    }

    /// A random byte that is never zero, so XOR-ing with it always changes the target.
    pub(crate) fn nonzero_byte(&mut self) -> u8 {
        // 1..=255
        (self.next_u64() % 255) as u8 + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence_and_bounds_hold() {
        let mut a = SplitMix64::new(42);
        let mut b = SplitMix64::new(42);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
            assert!(a.up_to(7) <= 7);
            b.up_to(7);
            assert_ne!(a.nonzero_byte(), 0);
            b.nonzero_byte();
        }
        assert_ne!(SplitMix64::new(1).next_u64(), SplitMix64::new(2).next_u64());
        assert_eq!(SplitMix64::new(3).up_to(0), 0);
    }
}
