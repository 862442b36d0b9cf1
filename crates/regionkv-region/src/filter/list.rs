//! [`FilterList`]: HBase 2.x's `FilterList` with its two halves `FilterListWithAND`
//! (`MUST_PASS_ALL`) and `FilterListWithOR` (`MUST_PASS_ONE`), and `FilterListBase`.
//!
//! # Merging return codes
//!
//! Codes are ordered by how far they move the scanner:
//! `Include < Skip < IncludeAndNextCol < NextCol < IncludeAndSeekNextRow < NextRow <
//! SeekNextUsingHint`.
//!
//! - AND takes the *largest* step of its members (`merge_and`, HBase's "maximal step rule"),
//!   evaluating lazily: as soon as the merged code stops including the cell, later members are
//!   not asked (HBASE-20565, so their counters are not disturbed). A member that says
//!   `filter_all_remaining` makes the list answer `NextRow`. When a member asked for a seek,
//!   the list answers `SeekNextUsingHint` and hints the *furthest* of its members' hints.
//! - OR takes the *smallest* step (`merge_or`, the "minimal step rule"), always asking every
//!   member not done (`filter_all_remaining`). Because the list may include a cell one member
//!   wanted to skip past, each member remembers its last code and cell and is not asked again
//!   about a cell its last answer already covers (same column after `NextCol`, same family
//!   after `NextRow`, before its hint after `SeekNextUsingHint`, HBASE-17678/HBASE-18368).
//!   It hints the *nearest* hint, or none when any member has none.
//!
//! `transform_cell` applies, in order, the transforms of the members that included the cell
//! (all of them for AND). Row-level calls combine as: AND drops a row (key or `filter_row`)
//! when any member does and is done when any member is; OR drops when all do and is done
//! when all are. `filter_row_cells` is passed to every member, `has_filter_row` and
//! `is_family_essential` are true when any member's is.

use super::{Filter, ReturnCode};
use regionkv_cell::{Cell, CellRef, OwnedKey, compare_keys};
use std::cmp::Ordering;

/// HBase's `FilterList.Operator`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operator {
    /// AND: a cell or row must pass every member.
    MustPassAll,
    /// OR: a cell or row must pass at least one member.
    MustPassOne,
}

/// HBase's `FilterList`: an ordered list of filters combined with AND or OR (see the module
/// docs for the exact rules). An empty list passes everything.
#[derive(Debug)]
pub struct FilterList {
    operator: Operator,
    filters: Vec<Box<dyn Filter>>,
    reversed: bool,
    /// Per member: did it include the last cell (OR; AND transforms through every member).
    included: Vec<bool>,
    /// OR: per member, its last code and the cell it answered (kept only when the code skips
    /// ahead, i.e. not for `Include`/`Skip`).
    prev_code: Vec<Option<ReturnCode>>,
    prev_cell: Vec<Option<Cell>>,
    /// AND: the members that answered `SeekNextUsingHint` for the last cell.
    seek_hint_filters: Vec<usize>,
}

impl FilterList {
    /// A list combining `filters` with `operator`.
    pub fn new(operator: Operator, filters: Vec<Box<dyn Filter>>) -> Self {
        let n = filters.len();
        Self {
            operator,
            filters,
            reversed: false,
            included: vec![false; n],
            prev_code: vec![None; n],
            prev_cell: vec![None; n],
            seek_hint_filters: Vec::new(),
        }
    }

    /// An AND (`MUST_PASS_ALL`) list.
    pub fn and(filters: Vec<Box<dyn Filter>>) -> Self {
        Self::new(Operator::MustPassAll, filters)
    }

    /// An OR (`MUST_PASS_ONE`) list.
    pub fn or(filters: Vec<Box<dyn Filter>>) -> Self {
        Self::new(Operator::MustPassOne, filters)
    }

    /// Appends a member (it inherits the list's reversed flag, as HBase requires members to
    /// agree with the list).
    pub fn add_filter(&mut self, mut filter: Box<dyn Filter>) {
        if self.reversed {
            filter.set_reversed(true);
        }
        self.filters.push(filter);
        self.included.push(false);
        self.prev_code.push(None);
        self.prev_cell.push(None);
    }

    /// The operator.
    pub fn operator(&self) -> Operator {
        self.operator
    }

    /// The members, in order.
    pub fn filters(&self) -> &[Box<dyn Filter>] {
        &self.filters
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.filters.len()
    }

    /// True when the list has no member.
    pub fn is_empty(&self) -> bool {
        self.filters.is_empty()
    }

    /// Compares two keys in scan direction (HBase's `FilterListBase.compareCell`).
    fn compare_in_scan_order(&self, a: &[u8], b: &[u8]) -> Ordering {
        let cmp = compare_keys(a, b);
        if self.reversed { cmp.reverse() } else { cmp }
    }

    fn filter_cell_and(&mut self, cell: CellRef<'_>) -> ReturnCode {
        let mut rc = ReturnCode::Include;
        self.seek_hint_filters.clear();
        for (i, filter) in self.filters.iter_mut().enumerate() {
            if filter.filter_all_remaining() {
                return ReturnCode::NextRow;
            }
            let local = filter.filter_cell(cell);
            if local == ReturnCode::SeekNextUsingHint {
                self.seek_hint_filters.push(i);
            }
            rc = merge_and(rc, local);
            // Later members must not see a cell the list already rejected (HBASE-20565).
            if !rc.is_include() {
                return rc;
            }
        }
        if self.seek_hint_filters.is_empty() {
            rc
        } else {
            ReturnCode::SeekNextUsingHint
        }
    }

    fn filter_cell_or(&mut self, cell: CellRef<'_>) -> ReturnCode {
        let reversed = self.reversed;
        let mut rc: Option<ReturnCode> = None;
        for i in 0..self.filters.len() {
            let (Some(filter), Some(included), Some(prev_code), Some(prev_cell)) = (
                self.filters.get_mut(i),
                self.included.get_mut(i),
                self.prev_code.get_mut(i),
                self.prev_cell.get_mut(i),
            ) else {
                continue;
            };
            *included = false;
            if filter.filter_all_remaining() {
                continue;
            }
            let local =
                match code_from_previous(&**filter, cell, prev_cell.as_ref(), *prev_code, reversed)
                {
                    Some(code) => code,
                    None => filter.filter_cell(cell),
                };
            *prev_code = Some(local);
            *prev_cell = match local {
                // The next cell always goes to the member again: no need to keep this one.
                ReturnCode::Include | ReturnCode::Skip => None,
                _ => Some(cell.to_cell()),
            };
            rc = Some(match rc {
                None => local,
                Some(rc) => merge_or(rc, local),
            });
            *included = local.is_include();
        }
        // Every member is done: nothing to include.
        rc.unwrap_or(ReturnCode::Skip)
    }
}

/// OR: the code a member's previous answer already implies for `current`, or `None` when the
/// member must be asked (HBase's `FilterListWithOR.calculateReturnCodeByPrevCellAndRC`). The
/// previous cell is of the same row: `reset` forgets it between rows.
fn code_from_previous(
    filter: &dyn Filter,
    current: CellRef<'_>,
    prev_cell: Option<&Cell>,
    prev_code: Option<ReturnCode>,
    reversed: bool,
) -> Option<ReturnCode> {
    let (prev_cell, prev_code) = (prev_cell?, prev_code?);
    match prev_code {
        ReturnCode::Include | ReturnCode::Skip => None,
        ReturnCode::SeekNextUsingHint => {
            let hint = filter.next_cell_hint(prev_cell.as_cell_ref())?;
            let cmp = compare_keys(current.key_bytes(), hint.as_bytes());
            let cmp = if reversed { cmp.reverse() } else { cmp };
            (cmp == Ordering::Less).then_some(ReturnCode::SeekNextUsingHint)
        }
        ReturnCode::NextCol | ReturnCode::IncludeAndNextCol => {
            (prev_cell.family() == current.family() && prev_cell.qualifier() == current.qualifier())
                .then_some(ReturnCode::NextCol)
        }
        ReturnCode::NextRow | ReturnCode::IncludeAndSeekNextRow => {
            (prev_cell.family() == current.family()).then_some(ReturnCode::NextRow)
        }
    }
}

/// AND's "maximal step rule" (HBase's `FilterListWithAND.mergeReturnCode`): `rc` is the code
/// merged so far, `local` the next member's.
pub(crate) fn merge_and(rc: ReturnCode, local: ReturnCode) -> ReturnCode {
    use ReturnCode::{
        Include as I, IncludeAndNextCol as Inc, IncludeAndSeekNextRow as Inr, NextCol as Nc,
        NextRow as Nr, SeekNextUsingHint as H, Skip as S,
    };
    if rc == H {
        return H;
    }
    match (local, rc) {
        (H, _) => H,
        (I, rc) => rc,
        (Inc, I | Inc) => Inc,
        (Inc, Inr) => Inr,
        (Inc, S | Nc) => Nc,
        (Inc, Nr | H) => Nr,
        (Inr, I | Inc | Inr) => Inr,
        (Inr, S | Nc | Nr | H) => Nr,
        (S, I | S) => S,
        (S, Inc | Nc) => Nc,
        (S, Inr | Nr | H) => Nr,
        (Nc, I | Inc | S | Nc) => Nc,
        (Nc, Inr | Nr | H) => Nr,
        (Nr, _) => Nr,
    }
}

/// OR's "minimal step rule" (HBase's `FilterListWithOR.mergeReturnCode`): `rc` is the code
/// merged so far, `local` the next member's.
pub(crate) fn merge_or(rc: ReturnCode, local: ReturnCode) -> ReturnCode {
    use ReturnCode::{
        Include as I, IncludeAndNextCol as Inc, IncludeAndSeekNextRow as Inr, NextCol as Nc,
        NextRow as Nr, SeekNextUsingHint as H, Skip as S,
    };
    match (local, rc) {
        (I, _) => I,
        (Inc, I | S | H) => I,
        (Inc, Inc | Inr | Nc | Nr) => Inc,
        (Inr, I | S | H) => I,
        (Inr, Inc | Nc) => Inc,
        (Inr, Inr | Nr) => Inr,
        (S, I | Inc | Inr) => I,
        (S, S | Nc | Nr | H) => S,
        (Nc, I) => I,
        (Nc, Nc | Nr) => Nc,
        (Nc, Inc | Inr) => Inc,
        (Nc, S | H) => S,
        (Nr, I) => I,
        (Nr, Inc) => Inc,
        (Nr, Inr) => Inr,
        (Nr, S | H) => S,
        (Nr, Nc) => Nc,
        (Nr, Nr) => Nr,
        (H, I | Inc | Inr) => I,
        (H, S | Nc | Nr) => S,
        (H, H) => H,
    }
}

impl Filter for FilterList {
    fn reset(&mut self) {
        for filter in &mut self.filters {
            filter.reset();
        }
        self.included.iter_mut().for_each(|v| *v = false);
        self.prev_code.iter_mut().for_each(|v| *v = None);
        self.prev_cell.iter_mut().for_each(|v| *v = None);
        self.seek_hint_filters.clear();
    }

    fn filter_all_remaining(&self) -> bool {
        if self.filters.is_empty() {
            return false;
        }
        match self.operator {
            Operator::MustPassAll => self.filters.iter().any(|f| f.filter_all_remaining()),
            Operator::MustPassOne => self.filters.iter().all(|f| f.filter_all_remaining()),
        }
    }

    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.filters.is_empty() {
            return false;
        }
        // Every member sees the row key (no early return): filters such as PrefixFilter track
        // row changes here. A member that is done is not asked.
        match self.operator {
            Operator::MustPassAll => {
                let mut drop = false;
                for filter in &mut self.filters {
                    if filter.filter_all_remaining() || filter.filter_row_key(row) {
                        drop = true;
                    }
                }
                drop
            }
            Operator::MustPassOne => {
                let mut drop = true;
                for filter in &mut self.filters {
                    if !filter.filter_all_remaining() && !filter.filter_row_key(row) {
                        drop = false;
                    }
                }
                drop
            }
        }
    }

    fn filter_cell(&mut self, cell: CellRef<'_>) -> ReturnCode {
        if self.filters.is_empty() {
            return ReturnCode::Include;
        }
        match self.operator {
            Operator::MustPassAll => self.filter_cell_and(cell),
            Operator::MustPassOne => self.filter_cell_or(cell),
        }
    }

    fn transform_cell(&self, cell: Cell) -> Cell {
        let mut transformed = cell;
        for (filter, included) in self.filters.iter().zip(&self.included) {
            if self.operator == Operator::MustPassAll || *included {
                transformed = filter.transform_cell(transformed);
            }
        }
        transformed
    }

    fn has_filter_row(&self) -> bool {
        self.filters.iter().any(|f| f.has_filter_row())
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        for filter in &mut self.filters {
            filter.filter_row_cells(cells);
        }
    }

    fn filter_row(&mut self) -> bool {
        if self.filters.is_empty() {
            return false;
        }
        // Short-circuits like HBase: a member after the deciding one is not asked (so a
        // PageFilter there does not count the row).
        match self.operator {
            Operator::MustPassAll => self.filters.iter_mut().any(|f| f.filter_row()),
            Operator::MustPassOne => self.filters.iter_mut().all(|f| f.filter_row()),
        }
    }

    fn next_cell_hint(&self, current: CellRef<'_>) -> Option<OwnedKey> {
        if self.filters.is_empty() {
            return None;
        }
        match self.operator {
            Operator::MustPassAll => {
                // The furthest hint of the members that asked to seek.
                let mut best: Option<OwnedKey> = None;
                for filter in self
                    .seek_hint_filters
                    .iter()
                    .filter_map(|&i| self.filters.get(i))
                {
                    if filter.filter_all_remaining() {
                        continue;
                    }
                    let Some(hint) = filter.next_cell_hint(current) else {
                        continue;
                    };
                    best = match best {
                        Some(b)
                            if self.compare_in_scan_order(b.as_bytes(), hint.as_bytes())
                                != Ordering::Less =>
                        {
                            Some(b)
                        }
                        _ => Some(hint),
                    };
                }
                best
            }
            Operator::MustPassOne => {
                // The nearest hint; any member without one means no hint at all.
                let mut best: Option<OwnedKey> = None;
                for filter in &self.filters {
                    if filter.filter_all_remaining() {
                        continue;
                    }
                    let hint = filter.next_cell_hint(current)?;
                    best = match best {
                        Some(b)
                            if self.compare_in_scan_order(b.as_bytes(), hint.as_bytes())
                                != Ordering::Greater =>
                        {
                            Some(b)
                        }
                        _ => Some(hint),
                    };
                }
                best
            }
        }
    }

    fn is_family_essential(&self, family: &[u8]) -> bool {
        self.filters.is_empty() || self.filters.iter().any(|f| f.is_family_essential(family))
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
        for filter in &mut self.filters {
            filter.set_reversed(reversed);
        }
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        let mut copy = Self::new(
            self.operator,
            self.filters.iter().map(|f| f.box_clone()).collect(),
        );
        copy.reversed = self.reversed;
        Box::new(copy)
    }
}
