//! Reference files: HBase's `Reference` (`org.apache.hadoop.hbase.io.Reference`), one half
//! of a storefile of another region of the same table, which a split daughter or a merged
//! region reads in place until its compaction rewrites the data into files of its own.
//!
//! HBase writes a small file per reference (`<file>.<parent encoded name>` in the child's
//! family directory); regionkv keeps the same information as an entry of the child's
//! manifest, under the same name, so a reference is created and dropped atomically with the
//! rest of the file set. What lives where:
//!
//! | concern | here |
//! |---|---|
//! | what a reference names (region, file, split row, half) | [`Reference`] |
//! | the manifest entry of a new reference (HBase's name for it) | [`Reference::entry`] |
//! | where the referenced file is | [`Reference::path_in_table`], [`Reference::path_from_store`] |
//! | reading one half of the file (HBase's `HalfStoreFileReader`) | `regionkv_storefile::Half`, via [`Reference::half`] |
//! | which references a split or merge writes | `split/daughters.rs` |
//! | when a region may split again (`hasReferences`) | `Store::has_references` |
//! | how a manifest stores it | `manifest.rs`, `docs/manifest-format.md` |
//!
//! Invariant: a referenced region's directory is kept (by the CatalogJanitor) as long as
//! some listed region's manifest holds a reference to it.

use std::path::{Path, PathBuf};

use regionkv_storefile::Half;

use crate::manifest::StoreFileMeta;

/// A reference: one half of a storefile of another region of the same table (HBase's
/// `Reference` of a split daughter or a merged region).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// Encoded name of the region whose directory holds the file.
    pub region: String,
    /// The file's name in that region's family directory.
    pub file: String,
    /// The half's boundary row.
    pub split_row: Vec<u8>,
    /// True: rows ≥ `split_row` (HBase's `Range.top`); false: rows < `split_row`
    /// (`Range.bottom`).
    pub top: bool,
}

impl Reference {
    /// The manifest entry of a reference to half (`top`) of `meta`, a file of region
    /// `parent`, named as HBase names reference files: `<file>.<parent encoded name>`. Size,
    /// cell count and sequence id are the whole referenced file's, as HBase reports them.
    pub fn entry(meta: &StoreFileMeta, parent: &str, split_row: &[u8], top: bool) -> StoreFileMeta {
        StoreFileMeta {
            name: format!("{}.{parent}", meta.name),
            size: meta.size,
            max_seq_id: meta.max_seq_id,
            cell_count: meta.cell_count,
            reference: Some(Reference {
                region: parent.to_string(),
                file: meta.name.clone(),
                split_row: split_row.to_vec(),
                top,
            }),
            trailer_checksum: meta.trailer_checksum,
        }
    }

    /// The referenced file, in the table directory `table_dir`, for family `family`.
    pub fn path_in_table(&self, table_dir: &Path, family: &[u8]) -> PathBuf {
        table_dir
            .join(&self.region)
            .join(String::from_utf8_lossy(family).as_ref())
            .join(&self.file)
    }

    /// The referenced file, seen from the referencing store's directory `store_dir`
    /// (`<table>/<region>/<family>`): the same family directory of the referenced region,
    /// a sibling of the referencing region's.
    pub fn path_from_store(&self, store_dir: &Path) -> PathBuf {
        let family = store_dir.file_name().unwrap_or_default();
        let table_dir = store_dir
            .parent()
            .and_then(Path::parent)
            .unwrap_or(Path::new(""));
        table_dir.join(&self.region).join(family).join(&self.file)
    }

    /// The half of the referenced file a reader of this reference sees.
    pub fn half(&self) -> Half {
        Half {
            split_row: self.split_row.clone(),
            top: self.top,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn file() -> StoreFileMeta {
        StoreFileMeta {
            name: "0a1b".into(),
            size: 10,
            max_seq_id: 7,
            cell_count: 3,
            reference: None,
            trailer_checksum: Some(42),
        }
    }

    #[test]
    fn an_entry_is_named_as_hbase_names_reference_files_and_points_at_the_parent_file() {
        let e = Reference::entry(&file(), "parentenc", b"m", true);
        assert_eq!(e.name, "0a1b.parentenc");
        let r = e.reference.as_ref().unwrap();
        assert_eq!((r.region.as_str(), r.file.as_str()), ("parentenc", "0a1b"));
        assert_eq!(
            r.half(),
            Half {
                split_row: b"m".to_vec(),
                top: true
            }
        );
        assert_eq!((e.size, e.max_seq_id, e.cell_count), (10, 7, 3));
        assert_eq!(e.trailer_checksum, Some(42));
    }

    #[test]
    fn both_paths_name_the_same_file() {
        let e = Reference::entry(&file(), "parentenc", b"m", false);
        let r = e.reference.unwrap();
        let table = Path::new("/db/data/default/t");
        let from_store = r.path_from_store(&table.join("childenc").join("cf"));
        assert_eq!(from_store, r.path_in_table(table, b"cf"));
        assert_eq!(
            from_store,
            Path::new("/db/data/default/t/parentenc/cf/0a1b")
        );
    }
}
