//! The filter call protocol as a small executable model: [`run_scan`] plays HBase's
//! `RegionScannerImpl` + `StoreScanner` + `UserScanQueryMatcher` filter calls over rows held in
//! memory. The unit tests and the filter-language integration test use it; the region scanner
//! must give the same rows for the cells its query matcher hands to the filter.
//!
//! The model starts *after* the matcher: its input is the cells that passed the time range,
//! column, delete, TTL and version checks. What it models:
//! - rows in scan order (descending for a reversed scan, after `set_reversed(true)`), cells in
//!   key order within a row (families ascending, also when reversed);
//! - each family seeks on its own, as each family is its own `StoreScanner` in HBase:
//!   `NextCol`/`IncludeAndNextCol` skip the rest of the column, `NextRow`/
//!   `IncludeAndSeekNextRow` skip the rest of the row *in that family*, `SeekNextUsingHint`
//!   skips that family's cells before the hint when the hint lies after the cell (otherwise it
//!   is a plain skip). A hint may lie in a later row ([`super::FuzzyRowFilter`],
//!   [`super::MultiRowRangeFilter`]): the family's scanner then passes over the rows between,
//!   and a row none of whose families has a cell left never reaches the filter. A reversed
//!   scan moves between rows afresh, so a hint (which points to a lower row) is a plain skip
//!   there;
//! - `filter_all_remaining` before each row, before each cell (no further cell of the row is
//!   offered, the row is finished, then the scan ends) and after each row;
//! - the end of row through [`super::finish_row`].

use super::{Filter, ReturnCode, finish_row};
use regionkv_cell::{Cell, OwnedKey, compare_keys};
use std::cmp::Ordering;
use std::collections::HashMap;

/// Runs `filter` over `cells` (any order; they are sorted first) and returns the rows it keeps,
/// each with its included, transformed cells, in scan order.
pub fn run_scan(filter: &mut dyn Filter, cells: &[Cell], reversed: bool) -> Vec<Vec<Cell>> {
    let mut sorted = cells.to_vec();
    sorted.sort();
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    for cell in sorted {
        match rows.last_mut() {
            Some(row) if row.first().is_some_and(|c| c.row() == cell.row()) => row.push(cell),
            _ => rows.push(vec![cell]),
        }
    }
    if reversed {
        filter.set_reversed(true);
        rows.reverse();
    }

    let mut result = Vec::new();
    // Per family: the key the family's scanner has sought to; it carries across rows.
    let mut seek: HashMap<Vec<u8>, OwnedKey> = HashMap::new();
    for row_cells in rows {
        if reversed {
            // Each row is found afresh: no seek outlives its row.
            seek.clear();
        }
        let row_cells: Vec<Cell> = row_cells
            .into_iter()
            .filter(|c| !sought_past(&seek, c))
            .collect();
        let Some(row) = row_cells.first().map(|c| c.row().to_vec()) else {
            continue;
        };
        filter.reset();
        if filter.filter_all_remaining() {
            break;
        }
        if filter.filter_row_key(&row) {
            if filter.filter_all_remaining() {
                break;
            }
            continue;
        }
        let (mut kept, scan_done) = offer_cells(filter, &row, &row_cells, &mut seek);
        if !finish_row(filter, &mut kept) {
            result.push(kept);
        }
        if scan_done || filter.filter_all_remaining() {
            break;
        }
    }
    result
}

/// Offers one row's cells to the filter, honouring the return codes; returns the kept cells and
/// whether `filter_all_remaining` cut the row short.
fn offer_cells(
    filter: &mut dyn Filter,
    row: &[u8],
    row_cells: &[Cell],
    seek: &mut HashMap<Vec<u8>, OwnedKey>,
) -> (Vec<Cell>, bool) {
    let mut kept = Vec::new();
    for cell in row_cells {
        let cell_ref = cell.as_cell_ref();
        if sought_past(seek, cell) {
            continue;
        }
        if filter.filter_all_remaining() {
            return (kept, true);
        }
        let rc = filter.filter_cell(cell_ref);
        if rc.is_include() {
            kept.push(filter.transform_cell(cell.clone()));
        }
        let target = match rc {
            ReturnCode::Include | ReturnCode::Skip => None,
            ReturnCode::IncludeAndNextCol | ReturnCode::NextCol => {
                OwnedKey::last_on_column(row, cell.family(), cell.qualifier()).ok()
            }
            ReturnCode::IncludeAndSeekNextRow | ReturnCode::NextRow => {
                OwnedKey::last_on_row(row).ok()
            }
            ReturnCode::SeekNextUsingHint => filter.next_cell_hint(cell_ref).filter(|hint| {
                compare_keys(hint.as_bytes(), cell.key_bytes()) == Ordering::Greater
            }),
        };
        if let Some(target) = target {
            seek.insert(cell.family().to_vec(), target);
        }
    }
    (kept, false)
}

/// True when `cell`'s family has sought past it (forward scans only record seeks that move
/// forward, so this is a plain key comparison).
fn sought_past(seek: &HashMap<Vec<u8>, OwnedKey>, cell: &Cell) -> bool {
    seek.get(cell.family())
        .is_some_and(|to| compare_keys(cell.key_bytes(), to.as_bytes()) == Ordering::Less)
}
