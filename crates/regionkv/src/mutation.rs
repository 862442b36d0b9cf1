//! Mutations as HBase's client builds them: `Put`, `Delete`, `Increment`, `Append`,
//! `RowMutations` and `CheckAndMutate`. They are plain builders holding borrowed-in,
//! owned bytes; nothing is checked until the table applies them, so a builder never fails.

use regionkv_cell::key::LATEST_TIMESTAMP;
use regionkv_cell::{CellType, TimeRange};
use regionkv_region::filter::Filter;
use regionkv_wal::Durability;

/// One cell to write: (family, qualifier, timestamp, value).
pub(crate) type PutEntry = (Vec<u8>, Vec<u8>, i64, Vec<u8>);

/// HBase's `Put`: cells for one row.
#[derive(Debug, Clone, PartialEq)]
pub struct Put {
    pub(crate) row: Vec<u8>,
    pub(crate) ts: i64,
    pub(crate) cells: Vec<PutEntry>,
    pub(crate) durability: Durability,
}

impl Put {
    /// A put of `row`; cells without a timestamp get the server's time.
    pub fn new(row: impl AsRef<[u8]>) -> Self {
        Self::with_timestamp(row, LATEST_TIMESTAMP)
    }

    /// A put whose cells default to timestamp `ts`.
    pub fn with_timestamp(row: impl AsRef<[u8]>, ts: i64) -> Self {
        Self {
            row: row.as_ref().to_vec(),
            ts,
            cells: Vec::new(),
            durability: Durability::UseDefault,
        }
    }

    /// Adds `family:qualifier = value` at the put's timestamp.
    pub fn add_column(
        self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
    ) -> Self {
        let ts = self.ts;
        self.add_column_at(family, qualifier, ts, value)
    }

    /// Adds `family:qualifier = value` at timestamp `ts`.
    pub fn add_column_at(
        mut self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        ts: i64,
        value: impl AsRef<[u8]>,
    ) -> Self {
        self.cells.push((
            family.as_ref().to_vec(),
            qualifier.as_ref().to_vec(),
            ts,
            value.as_ref().to_vec(),
        ));
        self
    }

    /// Sets the durability of this mutation (HBase's `setDurability`).
    pub fn durability(mut self, d: Durability) -> Self {
        self.durability = d;
        self
    }

    /// The row.
    pub fn row(&self) -> &[u8] {
        &self.row
    }

    /// True when no cell was added.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
}

/// One marker of a `Delete`: family, qualifier (`None` for family-wide kinds), timestamp
/// and kind.
pub(crate) type DeleteEntry = (Vec<u8>, Option<Vec<u8>>, i64, CellType);

/// HBase's `Delete`. With no family or column added it deletes the whole row (every
/// family, versions up to its timestamp).
#[derive(Debug, Clone, PartialEq)]
pub struct Delete {
    pub(crate) row: Vec<u8>,
    pub(crate) ts: i64,
    pub(crate) entries: Vec<DeleteEntry>,
    pub(crate) durability: Durability,
}

impl Delete {
    /// Deletes `row` (everything up to now, unless narrowed).
    pub fn new(row: impl AsRef<[u8]>) -> Self {
        Self::with_timestamp(row, LATEST_TIMESTAMP)
    }

    /// Deletes versions of `row` up to `ts` (the default timestamp of what is added).
    pub fn with_timestamp(row: impl AsRef<[u8]>, ts: i64) -> Self {
        Self {
            row: row.as_ref().to_vec(),
            ts,
            entries: Vec::new(),
            durability: Durability::UseDefault,
        }
    }

    /// Every column of `family`, versions up to the delete's timestamp (DeleteFamily).
    pub fn add_family(self, family: impl AsRef<[u8]>) -> Self {
        let ts = self.ts;
        self.add_family_at(family, ts)
    }

    /// Every column of `family`, versions up to `ts`.
    pub fn add_family_at(mut self, family: impl AsRef<[u8]>, ts: i64) -> Self {
        self.entries
            .push((family.as_ref().to_vec(), None, ts, CellType::DeleteFamily));
        self
    }

    /// Every column of `family`, only the versions at exactly `ts`
    /// (DeleteFamilyVersion).
    pub fn add_family_version(mut self, family: impl AsRef<[u8]>, ts: i64) -> Self {
        self.entries.push((
            family.as_ref().to_vec(),
            None,
            ts,
            CellType::DeleteFamilyVersion,
        ));
        self
    }

    /// All versions of one column up to the delete's timestamp (DeleteColumn).
    pub fn add_columns(self, family: impl AsRef<[u8]>, qualifier: impl AsRef<[u8]>) -> Self {
        let ts = self.ts;
        self.add_columns_at(family, qualifier, ts)
    }

    /// All versions of one column up to `ts`.
    pub fn add_columns_at(
        mut self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        ts: i64,
    ) -> Self {
        self.entries.push((
            family.as_ref().to_vec(),
            Some(qualifier.as_ref().to_vec()),
            ts,
            CellType::DeleteColumn,
        ));
        self
    }

    /// One version of one column: the newest when the delete has no timestamp, else the
    /// version at the delete's timestamp (Delete).
    pub fn add_column(self, family: impl AsRef<[u8]>, qualifier: impl AsRef<[u8]>) -> Self {
        let ts = self.ts;
        self.add_column_at(family, qualifier, ts)
    }

    /// The version of one column at exactly `ts`.
    pub fn add_column_at(
        mut self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        ts: i64,
    ) -> Self {
        self.entries.push((
            family.as_ref().to_vec(),
            Some(qualifier.as_ref().to_vec()),
            ts,
            CellType::Delete,
        ));
        self
    }

    /// Sets the durability of this mutation.
    pub fn durability(mut self, d: Durability) -> Self {
        self.durability = d;
        self
    }

    /// The row.
    pub fn row(&self) -> &[u8] {
        &self.row
    }
}

/// HBase's `Increment`: adds to 8-byte big-endian counters, atomically per row.
#[derive(Debug, Clone, PartialEq)]
pub struct Increment {
    pub(crate) row: Vec<u8>,
    pub(crate) columns: Vec<(Vec<u8>, Vec<u8>, i64)>,
    pub(crate) time_range: TimeRange,
    pub(crate) return_results: bool,
    pub(crate) durability: Durability,
}

impl Increment {
    /// An increment of `row`.
    pub fn new(row: impl AsRef<[u8]>) -> Self {
        Self {
            row: row.as_ref().to_vec(),
            columns: Vec::new(),
            time_range: TimeRange::all_time(),
            return_results: true,
            durability: Durability::UseDefault,
        }
    }

    /// Adds `amount` to `family:qualifier` (a missing counter starts at 0).
    pub fn add_column(
        mut self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        amount: i64,
    ) -> Self {
        self.columns.push((
            family.as_ref().to_vec(),
            qualifier.as_ref().to_vec(),
            amount,
        ));
        self
    }

    /// Only versions in this range count as the current value.
    pub fn time_range(mut self, tr: TimeRange) -> Self {
        self.time_range = tr;
        self
    }

    /// Whether the new values are returned (default true).
    pub fn return_results(mut self, on: bool) -> Self {
        self.return_results = on;
        self
    }

    /// Sets the durability of this mutation.
    pub fn durability(mut self, d: Durability) -> Self {
        self.durability = d;
        self
    }
}

/// HBase's `Append`: appends bytes to cell values, atomically per row.
#[derive(Debug, Clone, PartialEq)]
pub struct Append {
    pub(crate) row: Vec<u8>,
    pub(crate) columns: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
    pub(crate) time_range: TimeRange,
    pub(crate) return_results: bool,
    pub(crate) durability: Durability,
}

impl Append {
    /// An append to `row`.
    pub fn new(row: impl AsRef<[u8]>) -> Self {
        Self {
            row: row.as_ref().to_vec(),
            columns: Vec::new(),
            time_range: TimeRange::all_time(),
            return_results: true,
            durability: Durability::UseDefault,
        }
    }

    /// Appends `value` to `family:qualifier` (a missing cell starts empty).
    pub fn add_column(
        mut self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
    ) -> Self {
        self.columns.push((
            family.as_ref().to_vec(),
            qualifier.as_ref().to_vec(),
            value.as_ref().to_vec(),
        ));
        self
    }

    /// Only versions in this range count as the current value.
    pub fn time_range(mut self, tr: TimeRange) -> Self {
        self.time_range = tr;
        self
    }

    /// Whether the new values are returned (default true).
    pub fn return_results(mut self, on: bool) -> Self {
        self.return_results = on;
        self
    }

    /// Sets the durability of this mutation.
    pub fn durability(mut self, d: Durability) -> Self {
        self.durability = d;
        self
    }
}

/// A Put or a Delete, as `RowMutations` and batches hold them.
#[derive(Debug, Clone, PartialEq)]
pub enum Mutation {
    /// A put.
    Put(Put),
    /// A delete.
    Delete(Delete),
}

impl Mutation {
    /// The row.
    pub fn row(&self) -> &[u8] {
        match self {
            Self::Put(p) => &p.row,
            Self::Delete(d) => &d.row,
        }
    }
}

impl From<Put> for Mutation {
    fn from(p: Put) -> Self {
        Self::Put(p)
    }
}

impl From<Delete> for Mutation {
    fn from(d: Delete) -> Self {
        Self::Delete(d)
    }
}

/// HBase's `RowMutations`: puts and deletes of one row applied atomically, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct RowMutations {
    pub(crate) row: Vec<u8>,
    pub(crate) mutations: Vec<Mutation>,
}

impl RowMutations {
    /// Mutations of `row`.
    pub fn new(row: impl AsRef<[u8]>) -> Self {
        Self {
            row: row.as_ref().to_vec(),
            mutations: Vec::new(),
        }
    }

    /// Adds a put or delete (of the same row; checked when applied).
    pub fn add_mutation(mut self, m: impl Into<Mutation>) -> Self {
        self.mutations.push(m.into());
        self
    }
}

/// HBase's `CompareOperator`.
pub use regionkv_region::filter::CompareOperator;

/// What a `CheckAndMutate` checks.
#[derive(Debug)]
pub enum Condition {
    /// `family:qualifier`'s newest value compared with `value` by `op`; `value: None`
    /// means "the column does not exist".
    Column {
        /// Family.
        family: Vec<u8>,
        /// Qualifier.
        qualifier: Vec<u8>,
        /// Operator (the stored value is on the left: `stored op value`).
        op: CompareOperator,
        /// The operand; `None` checks absence.
        value: Option<Vec<u8>>,
    },
    /// The row passes `filter` (some cell of it is returned through the filter).
    Filter(Box<dyn Filter>),
}

/// The action of a `CheckAndMutate`.
#[derive(Debug, Clone, PartialEq)]
pub enum CheckAction {
    /// A put.
    Put(Put),
    /// A delete.
    Delete(Delete),
    /// Several, atomically.
    RowMutations(RowMutations),
    /// An increment (its new values are returned).
    Increment(Increment),
    /// An append (its new values are returned).
    Append(Append),
}

/// HBase 2.x's `CheckAndMutate`: if the condition holds on `row`, apply the action —
/// atomically, under the row lock.
#[derive(Debug)]
pub struct CheckAndMutate {
    pub(crate) row: Vec<u8>,
    pub(crate) condition: Condition,
    pub(crate) time_range: TimeRange,
    pub(crate) action: CheckAction,
}

/// Builds a [`CheckAndMutate`] (HBase's `CheckAndMutate.newBuilder(row)`, here `CheckAndMutate::builder(row)`).
#[derive(Debug)]
pub struct CheckAndMutateBuilder {
    row: Vec<u8>,
    condition: Option<Condition>,
    time_range: TimeRange,
}

impl CheckAndMutate {
    /// Starts a check on `row`.
    pub fn builder(row: impl AsRef<[u8]>) -> CheckAndMutateBuilder {
        CheckAndMutateBuilder {
            row: row.as_ref().to_vec(),
            condition: None,
            time_range: TimeRange::all_time(),
        }
    }
}

impl CheckAndMutateBuilder {
    /// Checks that `family:qualifier` does not exist.
    pub fn if_not_exists(mut self, family: impl AsRef<[u8]>, qualifier: impl AsRef<[u8]>) -> Self {
        self.condition = Some(Condition::Column {
            family: family.as_ref().to_vec(),
            qualifier: qualifier.as_ref().to_vec(),
            op: CompareOperator::Equal,
            value: None,
        });
        self
    }

    /// Checks `stored op value` on `family:qualifier`'s newest version.
    pub fn if_matches(
        mut self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        op: CompareOperator,
        value: impl AsRef<[u8]>,
    ) -> Self {
        self.condition = Some(Condition::Column {
            family: family.as_ref().to_vec(),
            qualifier: qualifier.as_ref().to_vec(),
            op,
            value: Some(value.as_ref().to_vec()),
        });
        self
    }

    /// Checks `stored == value`.
    pub fn if_equals(
        self,
        family: impl AsRef<[u8]>,
        qualifier: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
    ) -> Self {
        self.if_matches(family, qualifier, CompareOperator::Equal, value)
    }

    /// Checks that some cell of the row passes `filter`.
    pub fn if_filter(mut self, filter: Box<dyn Filter>) -> Self {
        self.condition = Some(Condition::Filter(filter));
        self
    }

    /// Only versions in this range are checked.
    pub fn time_range(mut self, tr: TimeRange) -> Self {
        self.time_range = tr;
        self
    }

    fn build(self, action: CheckAction) -> CheckAndMutate {
        CheckAndMutate {
            row: self.row,
            // A builder without a condition checks nothing that can fail: absence of an
            // empty-named column is not a condition HBase allows, so this is reported
            // by the table as an error.
            condition: self.condition.unwrap_or(Condition::Column {
                family: Vec::new(),
                qualifier: Vec::new(),
                op: CompareOperator::NoOp,
                value: None,
            }),
            time_range: self.time_range,
            action,
        }
    }

    /// Puts when the condition holds.
    pub fn then_put(self, p: Put) -> CheckAndMutate {
        self.build(CheckAction::Put(p))
    }
    /// Deletes when the condition holds.
    pub fn then_delete(self, d: Delete) -> CheckAndMutate {
        self.build(CheckAction::Delete(d))
    }
    /// Applies row mutations when the condition holds.
    pub fn then_mutate(self, m: RowMutations) -> CheckAndMutate {
        self.build(CheckAction::RowMutations(m))
    }
    /// Increments when the condition holds.
    pub fn then_increment(self, i: Increment) -> CheckAndMutate {
        self.build(CheckAction::Increment(i))
    }
    /// Appends when the condition holds.
    pub fn then_append(self, a: Append) -> CheckAndMutate {
        self.build(CheckAction::Append(a))
    }
}
