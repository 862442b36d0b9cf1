//! HBase's `DependentColumnFilter` (cells timestamped like a reference column) and
//! `RandomRowFilter` (a random sample of rows) — two filters that decide at the end of the row.

use super::compare::{Comparator, CompareOperator, compare_filters_out};
use super::{Filter, ReturnCode};
use regionkv_cell::{Cell, CellRef};
use std::collections::HashSet;

/// HBase's `DependentColumnFilter`: keeps only the cells of a row whose timestamp is the
/// timestamp of some cell of the dependent column `family:qualifier` in that row.
///
/// With a value check (the five-argument form), only dependent-column cells whose value passes
/// `value <op> comparator` lend their timestamps (and a failing one is not returned either).
/// With `drop_dependent_column` the dependent column's own cells are not returned. The decision
/// needs the whole row (`has_filter_row`), so the filter does not combine with a scan batch
/// limit (HBase says the same); an empty row after the filtering is dropped.
#[derive(Debug, Clone)]
pub struct DependentColumnFilter {
    family: Vec<u8>,
    qualifier: Vec<u8>,
    drop_dependent_column: bool,
    /// `None` for the two- and three-argument forms (HBase: `NO_OP` and no comparator).
    value_check: Option<(CompareOperator, Comparator)>,
    /// The timestamps of the dependent column seen in the current row.
    stamps: HashSet<i64>,
}

impl DependentColumnFilter {
    /// Keeps cells timestamped like a cell of `family:qualifier` (the dependent column's cells
    /// are returned too).
    pub fn new(family: impl Into<Vec<u8>>, qualifier: impl Into<Vec<u8>>) -> Self {
        Self::with_drop(family, qualifier, false)
    }

    /// Like [`DependentColumnFilter::new`]; with `drop_dependent_column` the dependent column's
    /// cells are left out of the result.
    pub fn with_drop(
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        drop_dependent_column: bool,
    ) -> Self {
        Self {
            family: family.into(),
            qualifier: qualifier.into(),
            drop_dependent_column,
            value_check: None,
            stamps: HashSet::new(),
        }
    }

    /// Like [`DependentColumnFilter::with_drop`], counting only dependent-column cells whose
    /// value `v` satisfies `v <op> comparator` (HBase's convention, see [`super::compare`]).
    /// `NoOp` lets no cell pass, as in HBase.
    pub fn with_value_check(
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        drop_dependent_column: bool,
        op: CompareOperator,
        comparator: Comparator,
    ) -> Self {
        let mut filter = Self::with_drop(family, qualifier, drop_dependent_column);
        filter.value_check = Some((op, comparator));
        filter
    }

    /// The dependent column's family.
    pub fn family(&self) -> &[u8] {
        &self.family
    }

    /// The dependent column's qualifier.
    pub fn qualifier(&self) -> &[u8] {
        &self.qualifier
    }

    /// Whether the dependent column's cells are left out.
    pub fn drop_dependent_column(&self) -> bool {
        self.drop_dependent_column
    }

    /// The value check, if any.
    pub fn value_check(&self) -> Option<(CompareOperator, &Comparator)> {
        self.value_check.as_ref().map(|(op, c)| (*op, c))
    }
}

impl Filter for DependentColumnFilter {
    fn reset(&mut self) {
        self.stamps.clear();
    }

    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        false
    }

    fn filter_cell(&mut self, cell: CellRef<'_>) -> ReturnCode {
        if cell.family() != self.family.as_slice() || cell.qualifier() != self.qualifier.as_slice()
        {
            // Kept for now; `filter_row_cells` removes it unless its timestamp turns up.
            return ReturnCode::Include;
        }
        if let Some((op, comparator)) = &self.value_check
            && compare_filters_out(*op, comparator, cell.value())
        {
            return ReturnCode::Skip;
        }
        self.stamps.insert(cell.timestamp());
        if self.drop_dependent_column {
            ReturnCode::Skip
        } else {
            ReturnCode::Include
        }
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        cells.retain(|c| self.stamps.contains(&c.timestamp()));
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        let mut fresh = self.clone();
        fresh.stamps.clear();
        Box::new(fresh)
    }
}

/// HBase's `RandomRowFilter`: keeps each row with probability `chance`, decided per row when
/// its key is seen. A `chance` below 0 keeps no row, above 1 every row; otherwise a row is kept
/// when a uniform draw from `[0, 1)` is below `chance` (so 0 keeps none and 1 keeps all).
///
/// Each copy made for a region ([`Filter::box_clone`]) draws its own numbers, as each of
/// HBase's region servers has its own generator; [`RandomRowFilter::with_seed`] makes the
/// draws — and those of every copy — repeatable, for tests.
#[derive(Debug, Clone)]
pub struct RandomRowFilter {
    chance: f32,
    seed: Option<u64>,
    state: u64,
    filter_out_row: bool,
}

impl RandomRowFilter {
    /// Keeps rows with probability `chance`.
    pub fn new(chance: f32) -> Self {
        Self::seeded(chance, None, entropy())
    }

    /// Like [`RandomRowFilter::new`], drawing from a generator seeded with `seed`.
    pub fn with_seed(chance: f32, seed: u64) -> Self {
        Self::seeded(chance, Some(seed), seed)
    }

    fn seeded(chance: f32, seed: Option<u64>, state: u64) -> Self {
        Self {
            chance,
            seed,
            state,
            filter_out_row: false,
        }
    }

    /// The chance of keeping a row.
    pub fn chance(&self) -> f32 {
        self.chance
    }

    /// Sets the chance (HBase's `setChance`).
    pub fn set_chance(&mut self, chance: f32) {
        self.chance = chance;
    }

    /// A uniform draw from `[0, 1)` with 24 random bits, as Java's `Random.nextFloat`.
    fn next_float(&mut self) -> f32 {
        // splitmix64: small, fast and good enough for sampling rows.
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        // 24 bits fit an f32 mantissa exactly.
        #[allow(clippy::cast_precision_loss)]
        let bits = (z >> 40) as f32;
        bits / (1u32 << 24) as f32
    }
}

/// A seed that differs between filters and runs.
fn entropy() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(0);
    hasher.finish()
}

impl Filter for RandomRowFilter {
    fn reset(&mut self) {
        self.filter_out_row = false;
    }

    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        self.filter_out_row = if self.chance < 0.0 {
            true
        } else if self.chance > 1.0 {
            false
        } else {
            // NaN compares false, so a NaN chance keeps no row (as in HBase).
            self.next_float() >= self.chance || self.chance.is_nan()
        };
        self.filter_out_row
    }

    fn filter_cell(&mut self, _cell: CellRef<'_>) -> ReturnCode {
        if self.filter_out_row {
            ReturnCode::NextRow
        } else {
            ReturnCode::Include
        }
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        self.filter_out_row
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        let state = self.seed.unwrap_or_else(entropy);
        Box::new(Self::seeded(self.chance, self.seed, state))
    }
}
