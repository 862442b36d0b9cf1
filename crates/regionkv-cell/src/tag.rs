//! Cell tags: HBase's per-cell metadata that travels with a cell through the memstore, the
//! WAL and storefiles but is never part of its key (so it never changes the cell order).
//!
//! The encoding is HBase's (`ArrayBackedTag`), a run of tags with no count in front:
//!
//! | field  | size | encoding                                   |
//! |--------|------|--------------------------------------------|
//! | length | 2    | u16 BE: bytes of type + value (≥ 1)        |
//! | type   | 1    | tag type code (table below)                |
//! | value  | len−1 | raw bytes                                 |
//!
//! A cell's whole tag run is at most [`MAX_TAGS_LEN`] bytes (HBase's `MAX_TAGS_LENGTH`).
//! regionkv writes one tag type today, HBase's:
//!
//! | type | name    | value                                                        |
//! |------|---------|--------------------------------------------------------------|
//! | 8    | TTL     | i64 BE, milliseconds (`Mutation#setTTL`)                     |
//!
//! Tags of other types are carried unchanged (HBase carries every tag of a cell forward
//! through increments and appends), so files written by later versions keep their tags.

use crate::error::{Error, Result};

/// HBase's `TagType.TTL_TAG_TYPE`.
pub const TTL_TAG_TYPE: u8 = 8;

/// Largest tag run one cell may carry (HBase's `HConstants.MAX_TAGS_LENGTH`, 2 × 32767 + 1).
pub const MAX_TAGS_LEN: usize = 65_535;

/// One tag: its type and value, borrowed from a tag run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tag<'a> {
    /// The type code.
    pub tag_type: u8,
    /// The value bytes.
    pub value: &'a [u8],
}

/// Iterates the tags of a run. A malformed run (a length past the end, or a zero length)
/// ends the iteration; [`validate_tags`] reports it as an error where runs enter the engine.
#[derive(Debug, Clone)]
pub struct TagIter<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for TagIter<'a> {
    type Item = Tag<'a>;

    fn next(&mut self) -> Option<Tag<'a>> {
        let [hi, lo, ref tail @ ..] = *self.rest else {
            return None;
        };
        let len = u16::from_be_bytes([hi, lo]) as usize;
        if len == 0 || tail.len() < len {
            self.rest = &[];
            return None;
        }
        let (tag, rest) = tail.split_at(len);
        self.rest = rest;
        Some(Tag {
            tag_type: tag[0],
            value: &tag[1..],
        })
    }
}

/// The tags of the run `tags`.
pub fn iter_tags(tags: &[u8]) -> TagIter<'_> {
    TagIter { rest: tags }
}

/// Checks that `tags` is a well-formed run of at most [`MAX_TAGS_LEN`] bytes whose TTL
/// tags hold 8 bytes.
pub fn validate_tags(tags: &[u8]) -> Result<()> {
    if tags.len() > MAX_TAGS_LEN {
        return Err(Error::MalformedTags {
            len: tags.len(),
            reason: "longer than 65535 bytes",
        });
    }
    let mut at = 0;
    while at < tags.len() {
        if tags.len() - at < 3 {
            return Err(Error::MalformedTags {
                len: tags.len(),
                reason: "a tag header runs past the end",
            });
        }
        let len = u16::from_be_bytes([tags[at], tags[at + 1]]) as usize;
        if len == 0 || at + 2 + len > tags.len() {
            return Err(Error::MalformedTags {
                len: tags.len(),
                reason: "a tag length runs past the end",
            });
        }
        if tags[at + 2] == TTL_TAG_TYPE && len != 9 {
            return Err(Error::MalformedTags {
                len: tags.len(),
                reason: "a TTL tag does not hold 8 bytes",
            });
        }
        at += 2 + len;
    }
    Ok(())
}

/// Appends one tag to a run.
pub fn push_tag(run: &mut Vec<u8>, tag_type: u8, value: &[u8]) -> Result<()> {
    let len = value.len() + 1;
    if len > u16::MAX as usize || run.len() + 2 + len > MAX_TAGS_LEN {
        return Err(Error::MalformedTags {
            len: run.len() + 2 + len,
            reason: "longer than 65535 bytes",
        });
    }
    run.extend_from_slice(&(len as u16).to_be_bytes());
    run.push(tag_type);
    run.extend_from_slice(value);
    Ok(())
}

/// The cell TTL in milliseconds of a tag run: the first TTL tag's value (HBase resolves
/// several TTL tags by using the first one).
pub fn ttl_of(tags: &[u8]) -> Option<i64> {
    if tags.is_empty() {
        return None;
    }
    iter_tags(tags)
        .find(|t| t.tag_type == TTL_TAG_TYPE)
        .and_then(|t| <[u8; 8]>::try_from(t.value).ok())
        .map(i64::from_be_bytes)
}

/// HBase's `TagUtil.carryForwardTTLTag`: the run `tags` with its TTL tags replaced by one
/// of `ttl` ms, or unchanged when `ttl` is `None` (HBase's "no TTL", `Long.MAX_VALUE`).
pub fn with_ttl(tags: &[u8], ttl: Option<i64>) -> Vec<u8> {
    let Some(ttl) = ttl else {
        return tags.to_vec();
    };
    let mut out = Vec::with_capacity(tags.len() + 11);
    let mut removed = false;
    for t in iter_tags(tags) {
        // HBase removes the first TTL tag it finds (a run holds at most one).
        if t.tag_type == TTL_TAG_TYPE && !removed {
            removed = true;
            continue;
        }
        out.extend_from_slice(&((t.value.len() + 1) as u16).to_be_bytes());
        out.push(t.tag_type);
        out.extend_from_slice(t.value);
    }
    out.extend_from_slice(&9u16.to_be_bytes());
    out.push(TTL_TAG_TYPE);
    out.extend_from_slice(&ttl.to_be_bytes());
    out
}

/// HBase's `isCellTTLExpired`: a cell whose tags carry a TTL is expired when
/// `timestamp + ttl < now`. The sum wraps like Java's `long` arithmetic, as HBase's does,
/// so results match a real server even for absurd TTLs. A cell TTL never extends the
/// family's TTL: callers check that separately.
pub fn is_cell_ttl_expired(tags: &[u8], timestamp: i64, now: i64) -> bool {
    match ttl_of(tags) {
        Some(ttl) => timestamp.wrapping_add(ttl) < now,
        None => false,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn ttl_tag_has_hbase_layout_and_round_trips() {
        let run = with_ttl(&[], Some(1000));
        assert_eq!(run, [0, 9, 8, 0, 0, 0, 0, 0, 0, 0x03, 0xe8]);
        assert_eq!(ttl_of(&run), Some(1000));
        validate_tags(&run).unwrap();
        assert_eq!(with_ttl(&run, None), run);
    }

    #[test]
    fn carry_forward_replaces_ttl_and_keeps_other_tags() {
        let mut run = Vec::new();
        push_tag(&mut run, 3, b"acl").unwrap();
        push_tag(&mut run, TTL_TAG_TYPE, &5i64.to_be_bytes()).unwrap();
        let out = with_ttl(&run, Some(7));
        let tags: Vec<_> = iter_tags(&out).collect();
        assert_eq!(tags.len(), 2);
        assert_eq!(
            tags[0],
            Tag {
                tag_type: 3,
                value: b"acl"
            }
        );
        assert_eq!(ttl_of(&out), Some(7));
    }

    #[test]
    fn expiry_follows_hbase_including_wrapping() {
        let run = with_ttl(&[], Some(100));
        assert!(
            !is_cell_ttl_expired(&run, 1000, 1100),
            "ts + ttl == now is live"
        );
        assert!(is_cell_ttl_expired(&run, 1000, 1101));
        assert!(!is_cell_ttl_expired(&[], 0, i64::MAX));
        // Java's long wraps: a huge TTL makes ts + ttl negative, so the cell is expired.
        let huge = with_ttl(&[], Some(i64::MAX));
        assert!(is_cell_ttl_expired(&huge, 10, 5));
    }

    #[test]
    fn malformed_runs_are_rejected_and_iteration_stops() {
        assert!(validate_tags(&[0, 5, 8]).is_err());
        assert!(validate_tags(&[0, 0]).is_err());
        assert!(validate_tags(&[0, 2, 8, 1]).is_err(), "short TTL value");
        assert!(validate_tags(&vec![0; MAX_TAGS_LEN + 1]).is_err());
        assert_eq!(iter_tags(&[0, 9, 8]).count(), 0);
        assert_eq!(ttl_of(&[0, 0, 0, 9]), None);
        validate_tags(&[]).unwrap();
    }
}
