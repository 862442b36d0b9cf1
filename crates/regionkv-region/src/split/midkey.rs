//! The split row of one storefile, as HBase picks it: the block-index keys the writer
//! stores (`io/hfile/HFileWriterImpl.getMidpoint` / `getMinimumMidpointArray`), which
//! index entry is the file's mid-key (`io/hfile/HFileBlockIndex`, `midkey` and
//! `getMidKeyMetadata`), and when a file cannot split (`StoreUtils.getFileSplitPoint`).
//!
//! The index key of data block *k > 0* is not the block's first key but a shortest key
//! between the last row of block *k − 1* and the first row of block *k*, so the split row
//! of a region can be a row that was never written (`row-0499 | row-0500` → `row-05`).
//! Only the row part matters for splitting, so only rows are handled here.

/// The row of HBase 2.x's block-index key between a block whose last row is `left_row`
/// and the next block, whose first row is `right_row` (`getMidpoint` on the rows):
///
/// * rows differ at byte `d`: `left_row[..d]` then `left_row[d] + 1` (which cannot
///   overflow: `left_row[d] < right_row[d]`), e.g. `the quick…`, `the who…` → `the r`;
/// * `left_row` is a proper prefix of `right_row`: `left_row` + `0x00` (HBase releases
///   before this rule was fixed gave `right_row[..left.len() + 1]`);
/// * equal rows: `right_row` (HBase then shortens the family or qualifier instead, which
///   leaves the row as is).
///
/// HBase throws when `left_row` sorts after `right_row` (blocks out of order); this
/// returns `right_row` for that invalid input rather than panic. Block 0 is indexed by
/// its real first key, and `hbase:meta` keys are never shortened; both are the caller's
/// cases.
pub fn midpoint_row(left_row: &[u8], right_row: &[u8]) -> Vec<u8> {
    let common = left_row
        .iter()
        .zip(right_row)
        .take_while(|(l, r)| l == r)
        .count();
    match (left_row.get(common), right_row.get(common)) {
        (Some(&l), Some(&r)) if l < r => {
            let mut row = left_row[..=common].to_vec();
            row[common] = l + 1; // l < r ≤ 0xff
            row
        }
        (None, Some(_)) => {
            let mut row = left_row.to_vec();
            row.push(0);
            row
        }
        // Equal rows, or left sorts after right.
        _ => right_row.to_vec(),
    }
}

/// Which data block's index entry is the file's mid-key, for a file of
/// `data_block_count` blocks; `None` for a file without blocks (HBase: "HFile empty").
///
/// With a single-level index (all entries in the root, the usual case below ~128 KiB of
/// index) it is the root entry `⌊count / 2⌋`. With a multi-level index HBase stores the
/// leaf entry `⌊(count − 1) / 2⌋` instead, one block earlier for an even count.
pub fn midkey_block(data_block_count: usize, multi_level: bool) -> Option<usize> {
    match data_block_count {
        0 => None,
        n if multi_level => Some((n - 1) / 2),
        n => Some(n / 2),
    }
}

/// The file's split row (`StoreUtils.getFileSplitPoint`): the row of its mid-key, unless
/// that row equals the file's first or last row, in which case the file (and a store
/// whose largest file it is) cannot split; a file holding a single row never can.
pub fn file_split_row(first_row: &[u8], last_row: &[u8], midkey_row: &[u8]) -> Option<Vec<u8>> {
    if midkey_row == first_row || midkey_row == last_row {
        None
    } else {
        Some(midkey_row.to_vec())
    }
}
