//! File links: HBase's `HFileLink`, a storefile of another table or region used in place
//! through a second name. A clone or restore from a snapshot (HBase's
//! `RestoreSnapshotHelper`) gives its new regions the snapshot's storefiles this way,
//! without copying a byte: the file in the new region's family directory is a hard link to
//! the snapshot's, named as HBase names link files, `<table>=<region>-<file>`
//! (`<namespace>=<qualifier>=<region>-<file>` outside the default namespace).
//!
//! A storefile records the store it was written for (its identity: table, region,
//! family, file name; docs/storefile-format.md), and a store refuses a file whose identity
//! is not the one its manifest entry implies. The link's name is what keeps that check
//! whole: it says which table, region and file the linked file claims to be, so
//! [`crate::store::expected_identity`] expects exactly that, and a file put under a link
//! name it does not match is still refused.
//!
//! Links are ordinary directory entries of the region that lists them: a compaction
//! removes a linked input as it removes its own, which drops one name of the file; the data
//! goes when its last name (the snapshot's, the source table's) goes.

/// What a link name says: the storefile's table, region (encoded name) and file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileLink {
    /// The table the linked file was written for (`ns:table`, or `table` in the default
    /// namespace).
    pub table: String,
    /// The encoded name of the region it was written for.
    pub region: String,
    /// Its name in that region's family directory.
    pub file: String,
}

/// Length of an encoded region name (32 hex digits).
const ENCODED_LEN: usize = 32;

impl FileLink {
    /// The link's name (HBase's `HFileLink.createHFileLinkName`): `table=region-file`, with
    /// the namespace as another `=`-separated part unless it is `default`.
    ///
    /// ```
    /// use regionkv_region::file_link::FileLink;
    /// let link = FileLink {
    ///     table: "ns:t".into(),
    ///     region: "0123456789abcdef0123456789abcdef".into(),
    ///     file: "7.sf".into(),
    /// };
    /// assert_eq!(link.name(), "ns=t=0123456789abcdef0123456789abcdef-7.sf");
    /// assert_eq!(FileLink::parse(&link.name()), Some(link));
    /// ```
    pub fn name(&self) -> String {
        let table = match self.table.split_once(':') {
            Some(("default", q)) => q.to_string(),
            Some((ns, q)) => format!("{ns}={q}"),
            None => self.table.clone(),
        };
        format!("{table}={}-{}", self.region, self.file)
    }

    /// Parses a link name; `None` for any other name (an own storefile is `<id>.sf`,
    /// which has no `=`).
    pub fn parse(name: &str) -> Option<Self> {
        let (table, rest) = name.rsplit_once('=')?;
        let region = rest.get(..ENCODED_LEN)?;
        let file = rest.get(ENCODED_LEN..)?.strip_prefix('-')?;
        if file.is_empty()
            || !region
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return None;
        }
        let table = match table.split_once('=') {
            Some((ns, q)) if !q.contains('=') && !ns.is_empty() && !q.is_empty() => {
                format!("{ns}:{q}")
            }
            Some(_) => return None,
            None if table.is_empty() => return None,
            None => table.to_string(),
        };
        Some(Self {
            table,
            region: region.to_string(),
            file: file.to_string(),
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const REGION: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn names_round_trip_in_every_namespace() {
        for table in ["t", "ns:t", "my.table-1"] {
            let link = FileLink {
                table: table.into(),
                region: REGION.into(),
                file: "12.sf".into(),
            };
            assert_eq!(FileLink::parse(&link.name()), Some(link), "{table}");
        }
        // The default namespace is left out, as HBase leaves it out.
        let link = FileLink {
            table: "default:t".into(),
            region: REGION.into(),
            file: "1.sf".into(),
        };
        assert_eq!(link.name(), format!("t={REGION}-1.sf"));
    }

    #[test]
    fn other_names_are_no_links() {
        for name in [
            "1.sf",
            "1.sf.0123456789abcdef0123456789abcdef",
            "t=short-1.sf",
            &format!("t={REGION}1.sf"),
            &format!("t={REGION}-"),
            &format!("={REGION}-1.sf"),
            &format!("a=b=c={REGION}-1.sf"),
            &format!("t={}-1.sf", REGION.to_uppercase()),
        ] {
            assert_eq!(FileLink::parse(name), None, "{name}");
        }
    }
}
