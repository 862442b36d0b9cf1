//! The limits and naming rules HBase enforces on rows, families, cells and tables, with
//! HBase's own numbers. Violations are typed errors, raised where data enters the engine.

use crate::bytes::to_string_binary;
use crate::error::{Error, Result};
pub use crate::key::{MAX_FAMILY_LEN, MAX_ROW_LEN};

/// Default maximum size of one cell (key + value) in bytes: HBase's
/// `hbase.client.keyvalue.maxsize` / `hbase.server.keyvalue.maxsize`, 10 MiB.
pub const DEFAULT_MAX_CELL_SIZE: usize = 10 * 1024 * 1024;

/// HBase configuration key of [`DEFAULT_MAX_CELL_SIZE`].
pub const MAX_CELL_SIZE_KEY: &str = "hbase.server.keyvalue.maxsize";

/// Name HBase reserves inside region directories; no family may use it.
pub const RECOVERED_EDITS_DIR: &str = "recovered.edits";

/// HBase's default namespace.
pub const DEFAULT_NAMESPACE: &str = "default";

/// A row as a mutation may name it: not empty, at most 32767 bytes
/// (HBase `Mutation.checkRow`).
pub fn check_row(row: &[u8]) -> Result<()> {
    if row.is_empty() {
        return Err(Error::EmptyRow);
    }
    if row.len() > MAX_ROW_LEN {
        return Err(Error::RowTooLong {
            len: row.len(),
            max: MAX_ROW_LEN,
        });
    }
    Ok(())
}

/// A cell's serialized size against a limit (0 disables the check, as in HBase).
pub fn check_cell_size(size: usize, max: usize) -> Result<()> {
    if max > 0 && size > max {
        return Err(Error::CellTooLarge { size, max });
    }
    Ok(())
}

/// HBase's `ColumnFamilyDescriptorBuilder.isLegalColumnFamilyName`: not empty, no leading
/// `.`, no ISO control characters, no `:`, `\` or `/`, not `recovered.edits`; plus the
/// key format's 127-byte limit.
///
/// HBase tests `Character.isISOControl` on each *signed* byte, so bytes `0x80..=0xFF` are
/// accepted and only `0x00..=0x1F` and `0x7F` count as control characters; we match that.
pub fn check_family_name(name: &[u8]) -> Result<()> {
    let illegal = |reason| Error::IllegalFamilyName {
        name: to_string_binary(name),
        reason,
    };
    if name.is_empty() {
        return Err(illegal("column family name can not be empty"));
    }
    if name.len() > MAX_FAMILY_LEN {
        return Err(Error::FamilyTooLong {
            len: name.len(),
            max: MAX_FAMILY_LEN,
        });
    }
    if name[0] == b'.' {
        return Err(illegal("column family names cannot start with a period"));
    }
    if name
        .iter()
        .any(|&b| b < 0x20 || b == 0x7f || b == b':' || b == b'\\' || b == b'/')
    {
        return Err(illegal(
            "column family names cannot contain control characters or colons",
        ));
    }
    if name == RECOVERED_EDITS_DIR.as_bytes() {
        return Err(illegal("column family name cannot be recovered.edits"));
    }
    Ok(())
}

/// HBase's `TableName.isLegalNamespaceName`: letters, digits and `_`, not empty.
pub fn check_namespace_name(ns: &str) -> Result<()> {
    let illegal = |reason| Error::IllegalTableName {
        name: ns.to_string(),
        reason,
    };
    if ns.is_empty() {
        return Err(illegal("namespace name must not be empty"));
    }
    if !ns.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Err(illegal(
            "namespaces can only contain 'alphanumeric characters' and '_'",
        ));
    }
    Ok(())
}

/// HBase's `TableName.isLegalTableQualifierName`: not empty, first character neither `.`
/// nor `-`, then letters, digits, `_`, `-` and `.` only; `zookeeper` is reserved.
pub fn check_table_qualifier(q: &str) -> Result<()> {
    let illegal = |reason| Error::IllegalTableName {
        name: q.to_string(),
        reason,
    };
    let Some(first) = q.chars().next() else {
        return Err(illegal("table qualifier must not be empty"));
    };
    if first == '.' || first == '-' {
        return Err(illegal(
            "table qualifiers can only start with 'alphanumeric characters'",
        ));
    }
    if q == "zookeeper" {
        return Err(illegal("tables may not be named 'zookeeper'"));
    }
    if !q
        .chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.')
    {
        return Err(illegal(
            "table qualifiers can only contain 'alphanumeric characters', '_', '-' and '.'",
        ));
    }
    Ok(())
}

/// Splits `ns:table` (or `table`, in the default namespace) and checks both parts.
pub fn parse_table_name(name: &str) -> Result<(&str, &str)> {
    let (ns, q) = match name.split_once(':') {
        Some((ns, q)) => (ns, q),
        None => (DEFAULT_NAMESPACE, name),
    };
    check_namespace_name(ns)?;
    check_table_qualifier(q)?;
    Ok((ns, q))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows() {
        assert_eq!(check_row(b""), Err(Error::EmptyRow));
        assert!(check_row(b"r").is_ok());
        assert!(check_row(&vec![b'r'; 32767]).is_ok());
        assert!(matches!(
            check_row(&vec![b'r'; 32768]),
            Err(Error::RowTooLong { .. })
        ));
    }

    #[test]
    fn families_follow_hbase_rules() {
        for ok in [&b"f"[..], b"cf1", b"a.b", b"x-y", &[0x80, 0xff], b"~"] {
            assert!(check_family_name(ok).is_ok(), "{ok:?}");
        }
        for bad in [
            &b""[..],
            b".f",
            b"a:b",
            b"a/b",
            b"a\\b",
            b"a\x00",
            b"\x1f",
            b"a\x7f",
            b"recovered.edits",
        ] {
            assert!(
                matches!(check_family_name(bad), Err(Error::IllegalFamilyName { .. })),
                "{bad:?}"
            );
        }
        assert!(matches!(
            check_family_name(&[b'f'; 128]),
            Err(Error::FamilyTooLong { .. })
        ));
    }

    #[test]
    fn cell_size() {
        assert!(check_cell_size(10, 10).is_ok());
        assert!(check_cell_size(11, 10).is_err());
        assert!(check_cell_size(usize::MAX, 0).is_ok());
    }

    #[test]
    fn table_names_follow_hbase_rules() {
        assert_eq!(parse_table_name("t1").ok(), Some(("default", "t1")));
        assert_eq!(parse_table_name("ns:t.a-b_c").ok(), Some(("ns", "t.a-b_c")));
        for bad in [
            "",
            ".t",
            "-t",
            "t t",
            "ns:",
            ":t",
            "n-s:t",
            "zookeeper",
            "t/x",
            "a:b:c",
        ] {
            assert!(parse_table_name(bad).is_err(), "{bad}");
        }
    }
}
