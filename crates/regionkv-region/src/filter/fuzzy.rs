//! HBase's `FuzzyRowFilter`: rows matching a key with "any byte" positions, with seek hints
//! that jump over whole ranges of rows that cannot match.
//!
//! # Fuzzy info
//!
//! Each rule is a pair (key, fuzzy info) of equal length. Byte `i` of the fuzzy info is `0` when
//! byte `i` of the row must equal byte `i` of the key, and `1` when it may be anything. (HBase
//! 2.x rewrites the info internally to the masks `0xff`/`0x00` — and its constructor also takes
//! an info already in its intermediate form `0xff`/`2`; so does [`FuzzyRowFilter::new`].) The
//! key's bytes at "any" positions are irrelevant and are zeroed, as HBase does.
//!
//! # Matching
//!
//! A row matches a rule when its first `min(row length, key length)` bytes agree at the fixed
//! positions: bytes beyond the key are free, and — HBase's rule, kept here — a row *shorter*
//! than the key matches when its bytes agree as far as they go. A row is kept when it matches
//! any rule.
//!
//! # Hints
//!
//! A row that matches no rule answers `SeekNextUsingHint` for each of its cells, and the hint is
//! the first key of the nearest row (in scan direction) that could match some rule: per rule,
//! the row with the fixed bytes of the key and the row's own bytes at the free positions, bumped
//! at the last free position that can still move when that is not already past the row; the
//! smallest over the rules (the largest for a reversed scan). When no rule has such a row the
//! scan is over (`filter_all_remaining`).

use super::{Filter, FilterError, ReturnCode};
use regionkv_cell::{CellRef, OwnedKey};

/// Whether a row satisfies a rule (HBase's `FuzzyRowFilter.SatisfiesCode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SatisfiesCode {
    /// The row matches.
    Yes,
    /// It does not, but a later row (in scan direction) may.
    NextExists,
    /// It does not, and no later row can.
    NoNext,
}

/// One rule: the key and which of its bytes are fixed.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    /// The key, zero at the free positions.
    key: Vec<u8>,
    /// `true` where the row byte must equal the key byte.
    fixed: Vec<bool>,
}

/// HBase's `FuzzyRowFilter` (see the module docs).
#[derive(Debug, Clone)]
pub struct FuzzyRowFilter {
    rules: Vec<Rule>,
    reversed: bool,
    /// Set by `filter_cell` when the current row matched no rule.
    filter_row: bool,
    /// No row after the current one can match: the scan is over.
    done: bool,
}

impl FuzzyRowFilter {
    /// A filter keeping rows that match any of the `(key, fuzzy info)` pairs (info bytes: `0`
    /// fixed, `1` any; or HBase's preprocessed `0xff` fixed, `2` any, when every byte of the
    /// info is one of those two). Fails, as HBase's constructor does, when a key and its info
    /// differ in length; fails too on other info bytes (HBase gives them a meaning only by
    /// accident of its bit tricks).
    pub fn new(pairs: impl IntoIterator<Item = (Vec<u8>, Vec<u8>)>) -> Result<Self, FilterError> {
        let mut rules = Vec::new();
        for (mut key, info) in pairs {
            if key.len() != info.len() {
                return Err(FilterError::invalid(
                    "FuzzyRowFilter",
                    format!(
                        "Fuzzy pair lengths do not match: key has {} bytes, fuzzy info {}",
                        key.len(),
                        info.len()
                    ),
                ));
            }
            let preprocessed = info.iter().all(|&b| b == 0xff || b == 2);
            let mut fixed = Vec::with_capacity(info.len());
            for (i, &b) in info.iter().enumerate() {
                let is_fixed = match (preprocessed, b) {
                    (true, 0xff) | (false, 0) => true,
                    (true, _) | (false, 1) => false,
                    (false, other) => {
                        return Err(FilterError::invalid(
                            "FuzzyRowFilter",
                            format!(
                                "fuzzy info byte {i} is {other}; expected 0 (fixed) or 1 (any)"
                            ),
                        ));
                    }
                };
                fixed.push(is_fixed);
            }
            for (k, &f) in key.iter_mut().zip(&fixed) {
                if !f {
                    *k = 0;
                }
            }
            rules.push(Rule { key, fixed });
        }
        Ok(Self {
            rules,
            reversed: false,
            filter_row: false,
            done: false,
        })
    }

    /// The rules as `(key, fuzzy info)` with info bytes `0` (fixed) and `1` (any); the key's
    /// free bytes read as zero (HBase's `getFuzzyKeys` does not restore them either).
    pub fn fuzzy_keys(&self) -> Vec<(Vec<u8>, Vec<u8>)> {
        self.rules
            .iter()
            .map(|r| {
                let info = r.fixed.iter().map(|&f| if f { 0 } else { 1 }).collect();
                (r.key.clone(), info)
            })
            .collect()
    }

    /// The nearest row (in scan direction) after `row` that could match some rule, or `None`.
    fn next_row(&self, row: &[u8]) -> Option<Vec<u8>> {
        let mut best: Option<Vec<u8>> = None;
        for rule in &self.rules {
            let Some(candidate) = next_for_fuzzy_rule(self.reversed, row, &rule.key, &rule.fixed)
            else {
                continue;
            };
            let better = match &best {
                None => true,
                Some(b) if self.reversed => candidate > *b,
                Some(b) => candidate < *b,
            };
            if better {
                best = Some(candidate);
            }
        }
        best
    }
}

impl Filter for FuzzyRowFilter {
    fn reset(&mut self) {
        self.filter_row = false;
    }

    fn filter_all_remaining(&self) -> bool {
        self.done
    }

    fn filter_cell(&mut self, cell: CellRef<'_>) -> ReturnCode {
        let row = cell.row();
        let matched = self
            .rules
            .iter()
            .any(|r| satisfies(self.reversed, row, &r.key, &r.fixed) == SatisfiesCode::Yes);
        if matched {
            return ReturnCode::Include;
        }
        // HBase decides "done" when it computes the hint; the hint is a pure function of the
        // row here, so deciding now gives the same scan.
        if self.next_row(row).is_none() {
            self.done = true;
        }
        self.filter_row = true;
        ReturnCode::SeekNextUsingHint
    }

    // HBase 2.x (HBASE-26967) drops a row whose cell was sought past in `filter_row`, so an OR
    // list with another filter cannot keep half of it.
    fn filter_row(&mut self) -> bool {
        self.filter_row
    }

    fn next_cell_hint(&self, current: CellRef<'_>) -> Option<OwnedKey> {
        let next = self.next_row(current.row())?;
        OwnedKey::first_on_row(&next).ok()
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
    }

    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(Self {
            rules: self.rules.clone(),
            reversed: self.reversed,
            filter_row: false,
            done: false,
        })
    }
}

/// Does `row` match the rule `key`/`fixed`? Only the first `min(row, key)` bytes are compared.
/// When it does not, tells whether a row after it (in scan direction) can (HBase's
/// `satisfiesNoUnsafe`; HBase's default word-at-a-time variant answers `NextExists` for every
/// mismatch, which the filter treats alike).
pub fn satisfies(reversed: bool, row: &[u8], key: &[u8], fixed: &[bool]) -> SatisfiesCode {
    let mut can_move_free_byte = false;
    for ((&r, &k), &f) in row.iter().zip(key).zip(fixed) {
        if f && r != k {
            if can_move_free_byte {
                return SatisfiesCode::NextExists;
            }
            // Before the fixed byte in scan direction: the fixed value is still ahead.
            let ahead = if reversed { r > k } else { r < k };
            return if ahead {
                SatisfiesCode::NextExists
            } else {
                SatisfiesCode::NoNext
            };
        }
        // A free byte that is not yet at its last value (0xff forward, 0x00 reversed) can
        // move on to reach a later matching row.
        let last = if reversed { 0x00 } else { 0xff };
        if !f && k != last {
            can_move_free_byte = true;
        }
    }
    SatisfiesCode::Yes
}

/// The nearest row after `row` (in scan direction) that could satisfy the rule, or `None`
/// (HBase's `getNextForFuzzyRule`, whose results the unit tests check byte for byte).
///
/// Working over `max(row, key)` bytes, the candidate takes the key's fixed bytes and the row's
/// bytes elsewhere (positions past the key are free), up to the first fixed byte that differs
/// from the row's. If that fixed byte lies ahead of the row's (greater forward, smaller
/// reversed), the candidate is already past the row. Otherwise — or when no fixed byte differs
/// — the last free byte seen that can still move is moved one step (`+1` forward, `-1`
/// reversed); with none, no row can match. Free bytes after the decision point take their
/// first value (`0x00` forward, `0xff` reversed), trailing free bytes of the key are cut (a
/// shorter row sorts first and matches by prefix), and for a reversed scan the last byte that
/// is not `0xff` is raised by one, so that seeking backwards to the hint lands on or after the
/// wanted row.
pub fn next_for_fuzzy_rule(
    reversed: bool,
    row: &[u8],
    key: &[u8],
    fixed: &[bool],
) -> Option<Vec<u8>> {
    let first = if reversed { 0xff } else { 0x00 };
    let len = row.len().max(key.len());
    let mut result: Vec<u8> = (0..len)
        .map(|i| key.get(i).copied().unwrap_or(first))
        .collect();
    let is_fixed = |i: usize| fixed.get(i).copied().unwrap_or(false);
    // A row byte past the row's end: never read for a row that failed to match (the deciding
    // fixed byte is within the row), kept total anyway.
    let row_byte = |i: usize| row.get(i).copied().unwrap_or(0);
    let mut to_move: Option<usize> = None;
    let mut ahead = false;
    let mut decided_at = len;
    for i in 0..len {
        let r = row_byte(i);
        if !is_fixed(i) {
            if let Some(slot) = result.get_mut(i) {
                *slot = r;
            }
            let at_last = if reversed { r == 0x00 } else { r == 0xff };
            if !at_last {
                to_move = Some(i);
            }
            continue;
        }
        let k = key.get(i).copied().unwrap_or(0);
        if r != k {
            ahead = if reversed { r > k } else { r < k };
            decided_at = i;
            break;
        }
    }
    let fill_from = if ahead {
        decided_at + 1
    } else {
        let i = to_move?;
        if let Some(slot) = result.get_mut(i) {
            *slot = if reversed {
                slot.wrapping_sub(1)
            } else {
                slot.wrapping_add(1)
            };
        }
        i + 1
    };
    for i in fill_from..len {
        if !is_fixed(i)
            && let Some(slot) = result.get_mut(i)
        {
            *slot = first;
        }
    }
    // Cut trailing free bytes of the key (and anything past the key), but never the moved byte.
    let mut keep = key.len().min(result.len());
    while keep > 0 && !is_fixed(keep - 1) {
        keep -= 1;
    }
    if let Some(i) = to_move.filter(|_| !ahead) {
        keep = keep.max(i + 1);
    }
    result.truncate(keep);
    if reversed && let Some(b) = result.iter_mut().rev().find(|b| **b != 0xff) {
        *b += 1;
    }
    Some(result)
}
