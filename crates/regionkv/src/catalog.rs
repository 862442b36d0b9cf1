//! The catalog: what HBase keeps in `hbase:meta` and the namespace table — namespaces,
//! tables (descriptor and enabled state) and each table's regions — persisted in one file,
//! `CATALOG`, replaced atomically on every change (write temp, fsync, rename, fsync dir).
//! Layout in docs/catalog-format.md: an 8-byte magic, a big-endian u32 length, a JSON
//! body (descriptors under HBase's attribute names, row keys as hex) and a CRC-32 over
//! everything before it.
//!
//! ```
//! use regionkv::catalog::Catalog;
//! use regionkv::fs::RealFs;
//! # let dir = tempfile::tempdir()?;
//! # let options = regionkv::DbOptions::default().background(false);
//! # let db = regionkv::Db::open(dir.path(), options)?;
//! # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
//! # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
//! # let table = db.table("t")?;
//! let catalog = Catalog::read(&RealFs::new(), dir.path())?.ok_or("no catalog")?;
//! assert!(catalog.tables.contains_key("t"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::{Error, Result};
use regionkv_cell::bytes::to_hex;
use regionkv_fs::Fs;
use regionkv_region::{ColumnFamilyDescriptor, TableDescriptor};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A region's identity and key range as the catalog records it (HBase's `RegionInfo`):
/// the element of the format. Admin reports regions as [`crate::RegionDescription`].
pub use regionkv_region::RegionInfo;

/// File name of the catalog in the Db directory.
///
/// ```
/// use regionkv::catalog::CATALOG_FILE;
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// assert!(dir.path().join(CATALOG_FILE).is_file());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const CATALOG_FILE: &str = "CATALOG";
const MAGIC: &[u8; 8] = b"RKVCAT01";
/// Largest catalog accepted (bounds allocation on a corrupt length).
const MAX_LEN: usize = 256 << 20;

/// Whether a table serves reads and writes.
///
/// ```
/// use regionkv::catalog::{Catalog, TableState};
/// use regionkv::fs::RealFs;
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// db.admin().disable_table("t")?;
/// let catalog = Catalog::read(&RealFs::new(), dir.path())?.ok_or("no catalog")?;
/// assert_eq!(catalog.tables["t"].state, TableState::Disabled);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableState {
    /// Serving.
    Enabled,
    /// Regions closed (flushed); data kept.
    Disabled,
}

/// One region of a table as the catalog records it.
///
/// ```
/// use regionkv::catalog::Catalog;
/// use regionkv::fs::RealFs;
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// db.admin().split_at("t", b"m")?;
/// let catalog = Catalog::read(&RealFs::new(), dir.path())?.ok_or("no catalog")?;
/// let ranges: Vec<(Vec<u8>, Vec<u8>)> = catalog.tables["t"]
///     .regions
///     .iter()
///     .map(|r| (r.info.start_key.clone(), r.info.end_key.clone()))
///     .collect();
/// assert_eq!(ranges, [(b"".to_vec(), b"m".to_vec()), (b"m".to_vec(), b"".to_vec())]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionEntry {
    /// Identity and key range.
    pub info: RegionInfo,
}

/// One table.
///
/// ```
/// use regionkv::catalog::{Catalog, TableState};
/// use regionkv::fs::RealFs;
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// let catalog = Catalog::read(&RealFs::new(), dir.path())?.ok_or("no catalog")?;
/// let entry = &catalog.tables["t"];
/// assert_eq!(entry.descriptor.name, "t");
/// assert_eq!(entry.state, TableState::Enabled);
/// assert_eq!(entry.regions.len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TableEntry {
    /// Its descriptor.
    pub descriptor: TableDescriptor,
    /// Enabled or disabled.
    pub state: TableState,
    /// Regions in start-key order, covering the key space without gaps or overlaps.
    pub regions: Vec<RegionEntry>,
}

/// Everything the catalog file holds.
///
/// ```
/// use regionkv::catalog::Catalog;
/// use regionkv::fs::RealFs;
///
/// let fresh = Catalog::default();
/// assert_eq!(fresh.namespaces.iter().collect::<Vec<_>>(), ["default", "hbase"]);
/// assert!(fresh.tables.is_empty());
/// # let dir = tempfile::tempdir()?;
/// # let options = regionkv::DbOptions::default().background(false);
/// # let db = regionkv::Db::open(dir.path(), options)?;
/// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
/// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
/// # let table = db.table("t")?;
/// db.admin().create_namespace("ns")?;
/// let catalog = Catalog::read(&RealFs::new(), dir.path())?.ok_or("no catalog")?;
/// assert!(catalog.namespaces.contains("ns"));
/// assert_eq!(catalog.tables.keys().collect::<Vec<_>>(), ["t"]);
/// assert!(catalog.next_region_id > fresh.next_region_id);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    /// Namespaces (always `default` and `hbase`).
    pub namespaces: BTreeSet<String>,
    /// The properties of namespaces that have any (HBase's `NamespaceDescriptor`
    /// configuration, set by `create_namespace` / `alter_namespace`), by namespace name; a
    /// namespace without properties has no entry.
    pub namespace_properties: BTreeMap<String, BTreeMap<String, String>>,
    /// Tables by full name (`ns:qualifier`, `default:` omitted).
    pub tables: BTreeMap<String, TableEntry>,
    /// The next region id handed out (region ids only grow).
    pub next_region_id: u64,
    /// The Db the catalog belongs to (its `REGIONKV` id), so a catalog copied from another
    /// Db is refused; `None` in catalogs written before ids existed (the next open adds it).
    pub db_id: Option<crate::db::DbId>,
}

impl Default for Catalog {
    fn default() -> Self {
        Self {
            namespaces: ["default", "hbase"].iter().map(|s| s.to_string()).collect(),
            namespace_properties: BTreeMap::new(),
            tables: BTreeMap::new(),
            next_region_id: 1,
            db_id: None,
        }
    }
}

pub(crate) fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

fn attrs_json(attrs: Vec<(&'static str, String)>, config: &BTreeMap<String, String>) -> Value {
    let mut m = Map::new();
    for (k, v) in attrs {
        m.insert(k.to_string(), Value::String(v));
    }
    let cfg: Map<String, Value> = config
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    json!({"attributes": m, "configuration": cfg})
}

fn state_name(state: TableState) -> &'static str {
    match state {
        TableState::Enabled => "ENABLED",
        TableState::Disabled => "DISABLED",
    }
}

/// A table's descriptor as the catalog (and the table's `.tableinfo`) stores it: HBase's
/// attribute names and string forms, its configuration and metadata, its families, and
/// `state`.
pub(crate) fn descriptor_json(d: &TableDescriptor, state: &str) -> Value {
    let families: Vec<Value> = d
        .families
        .iter()
        .map(|f| attrs_json(f.attributes(), &f.configuration))
        .collect();
    let mut v = attrs_json(d.attributes(true), &d.configuration);
    v["name"] = Value::String(d.name.clone());
    v["metadata"] = Value::Object(
        d.metadata
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
    );
    v["state"] = Value::String(state.to_string());
    v["families"] = Value::Array(families);
    v
}

/// Parses what [`descriptor_json`] wrote: the descriptor (validated, its options through
/// the shell's `set_attribute`) and the state string.
pub(crate) fn descriptor_from_json(
    t: &Value,
) -> std::result::Result<(TableDescriptor, String), String> {
    let name = t["name"].as_str().ok_or("table without a name")?;
    let mut families = Vec::new();
    for f in t["families"].as_array().ok_or("no families")? {
        let fam_name = f["attributes"]["NAME"]
            .as_str()
            .ok_or("family without NAME")?;
        let mut fd = ColumnFamilyDescriptor::new(fam_name.as_bytes()).map_err(|e| e.to_string())?;
        apply_attrs(f, |k, v| fd.set_attribute(k, v))?;
        fd.configuration = config_of(f)?;
        families.push(fd);
    }
    let mut d = TableDescriptor::new(name, families).map_err(|e| e.to_string())?;
    d.metadata = string_map(&t["metadata"], "metadata")?;
    apply_attrs(t, |k, v| d.set_attribute(k, v))?;
    d.configuration = config_of(t)?;
    d.validate().map_err(|e| e.to_string())?;
    let state = t["state"]
        .as_str()
        .ok_or_else(|| format!("table {name}: no state"))?;
    Ok((d, state.to_string()))
}

/// `magic | body length (u32 BE) | body | CRC-32 of everything before it`: the framing of
/// the catalog and of a table's `.tableinfo` (docs/catalog-format.md).
pub(crate) fn frame(magic: &[u8; 8], body: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 16);
    out.extend_from_slice(magic);
    out.extend_from_slice(&(body.len() as u32).to_be_bytes());
    out.extend_from_slice(body.as_bytes());
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    out
}

/// Checks [`frame`]'s framing and parses the JSON body; every defect is
/// [`Error::Corrupt`] naming `path` and the offset.
pub(crate) fn unframe(magic: &[u8; 8], b: &[u8], path: &Path) -> Result<Value> {
    unframe_as("catalog", magic, b, path)
}

/// [`unframe`] for another kind of file framed the same way (`what` names it in errors).
pub(crate) fn unframe_as(
    what: &'static str,
    magic: &[u8; 8],
    b: &[u8],
    path: &Path,
) -> Result<Value> {
    let corrupt = |offset: usize, reason: String| Error::Corrupt {
        what,
        path: path.to_path_buf(),
        offset: offset as u64,
        reason,
    };
    if b.len() < 16 {
        return Err(corrupt(0, format!("{} bytes is too short", b.len())));
    }
    if &b[..8] != magic {
        return Err(corrupt(0, "bad magic".to_string()));
    }
    let len = u32::from_be_bytes([b[8], b[9], b[10], b[11]]) as usize;
    if len > MAX_LEN || 12 + len + 4 != b.len() {
        return Err(corrupt(
            8,
            format!(
                "a body of {len} bytes needs a file of {} bytes; the file has {}",
                len.saturating_add(16),
                b.len()
            ),
        ));
    }
    let crc_at = 12 + len;
    let stored = u32::from_be_bytes([b[crc_at], b[crc_at + 1], b[crc_at + 2], b[crc_at + 3]]);
    if crc32fast::hash(&b[..crc_at]) != stored {
        return Err(corrupt(crc_at, "checksum mismatch".to_string()));
    }
    serde_json::from_slice(&b[12..crc_at])
        .map_err(|e| corrupt(12 + e.column(), format!("bad JSON: {e}")))
}

/// Reads a whole small file (catalog, `.tableinfo`), refusing one larger than any such file.
pub(crate) fn read_small(fs: &dyn Fs, path: &Path) -> Result<Vec<u8>> {
    let file = fs.open_read(path)?;
    let len = file.len() as usize;
    if len > MAX_LEN + 16 {
        return Err(Error::Corrupt {
            what: "catalog",
            path: path.to_path_buf(),
            offset: 0,
            reason: format!("{len} bytes is larger than any catalog"),
        });
    }
    Ok(file.read_to_vec(0, len)?)
}

impl Catalog {
    /// The catalog's path in `dir`.
    ///
    /// ```
    /// use regionkv::catalog::Catalog;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// assert_eq!(Catalog::path(dir.path()), dir.path().join("CATALOG"));
    /// assert!(Catalog::path(db.dir()).is_file());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn path(dir: &Path) -> PathBuf {
        dir.join(CATALOG_FILE)
    }

    /// Serializes the catalog (see the module docs for the framing).
    ///
    /// ```
    /// use regionkv::catalog::Catalog;
    /// use std::path::Path;
    ///
    /// let mut catalog = Catalog::default();
    /// catalog.namespaces.insert("ns".to_string());
    /// let bytes = catalog.encode();
    /// assert_eq!(&bytes[..8], b"RKVCAT01");
    /// assert_eq!(Catalog::decode(&bytes, Path::new("CATALOG"))?, catalog);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn encode(&self) -> Vec<u8> {
        let tables: Vec<Value> = self
            .tables
            .values()
            .map(|t| {
                let mut v = descriptor_json(&t.descriptor, state_name(t.state));
                let regions: Vec<Value> = t
                    .regions
                    .iter()
                    .map(|r| {
                        json!({
                            "start": to_hex(&r.info.start_key),
                            "end": to_hex(&r.info.end_key),
                            "id": r.info.region_id,
                        })
                    })
                    .collect();
                v["regions"] = Value::Array(regions);
                v
            })
            .collect();
        let mut body = json!({
            "format": 1,
            "namespaces": self.namespaces.iter().collect::<Vec<_>>(),
            "next_region_id": self.next_region_id,
            "tables": tables,
        });
        if let Some(id) = &self.db_id {
            body["db_id"] = Value::String(crate::db::db_id_hex(id));
        }
        // Only when some namespace has properties: a catalog without them is the same bytes
        // as before the field existed.
        let props: Map<String, Value> = self
            .namespace_properties
            .iter()
            .filter(|(_, p)| !p.is_empty())
            .map(|(ns, p)| {
                let p: Map<String, Value> = p
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                    .collect();
                (ns.clone(), Value::Object(p))
            })
            .collect();
        if !props.is_empty() {
            body["namespace_properties"] = Value::Object(props);
        }
        let body = body.to_string();
        frame(MAGIC, &body)
    }

    /// Parses a catalog; every defect is an error naming `path` and an offset.
    ///
    /// ```
    /// use regionkv::Error;
    /// use regionkv::catalog::Catalog;
    /// use std::path::Path;
    ///
    /// let mut bytes = Catalog::default().encode();
    /// assert_eq!(Catalog::decode(&bytes, Path::new("CATALOG"))?, Catalog::default());
    /// bytes[20] ^= 1; // one flipped bit
    /// let decoded = Catalog::decode(&bytes, Path::new("CATALOG"));
    /// let checksum = |r: &str| r == "checksum mismatch";
    /// assert!(matches!(decoded, Err(Error::Corrupt { reason, .. }) if checksum(&reason)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn decode(b: &[u8], path: &Path) -> Result<Self> {
        let v = unframe(MAGIC, b, path)?;
        Self::from_json(&v).map_err(|reason| Error::Corrupt {
            what: "catalog",
            path: path.to_path_buf(),
            offset: 12,
            reason,
        })
    }

    fn from_json(v: &Value) -> std::result::Result<Self, String> {
        let format = v["format"].as_u64().ok_or("no format")?;
        if format != 1 {
            return Err(format!("catalog format {format} is not supported (1)"));
        }
        let namespaces = v["namespaces"]
            .as_array()
            .ok_or("no namespaces")?
            .iter()
            .map(|n| n.as_str().map(str::to_string).ok_or("bad namespace"))
            .collect::<std::result::Result<BTreeSet<_>, _>>()?;
        let next_region_id = v["next_region_id"].as_u64().ok_or("no next_region_id")?;
        // Absent in catalogs written before namespaces had properties.
        let mut namespace_properties = BTreeMap::new();
        match &v["namespace_properties"] {
            Value::Null => {}
            Value::Object(m) => {
                for (ns, p) in m {
                    if !namespaces.contains(ns) {
                        return Err(format!("properties of unknown namespace {ns:?}"));
                    }
                    let p = string_map(p, "namespace_properties")?;
                    if !p.is_empty() {
                        namespace_properties.insert(ns.clone(), p);
                    }
                }
            }
            other => return Err(format!("bad namespace_properties {other}")),
        }
        let db_id = match &v["db_id"] {
            Value::Null => None,
            Value::String(hex) => {
                Some(crate::db::parse_db_id(hex).ok_or_else(|| format!("bad db_id {hex:?}"))?)
            }
            other => return Err(format!("bad db_id {other}")),
        };
        let mut tables = BTreeMap::new();
        for t in v["tables"].as_array().ok_or("no tables")? {
            let (d, state) = descriptor_from_json(t)?;
            let name = d.name.as_str();
            let state = match state.as_str() {
                "ENABLED" => TableState::Enabled,
                "DISABLED" => TableState::Disabled,
                other => return Err(format!("table {name}: bad state {other:?}")),
            };
            let mut regions = Vec::new();
            for r in t["regions"].as_array().ok_or("no regions")? {
                let key = |k: &str| {
                    r[k].as_str()
                        .and_then(unhex)
                        .ok_or_else(|| format!("table {name}: bad region {k} key"))
                };
                regions.push(RegionEntry {
                    info: RegionInfo {
                        table: name.to_string(),
                        start_key: key("start")?,
                        end_key: key("end")?,
                        region_id: r["id"].as_u64().ok_or("bad region id")?,
                    },
                });
            }
            tables.insert(
                d.name.clone(),
                TableEntry {
                    descriptor: d,
                    state,
                    regions,
                },
            );
        }
        Ok(Self {
            namespaces,
            namespace_properties,
            tables,
            next_region_id,
            db_id,
        })
    }

    /// Reads the catalog of `dir`; `None` when there is none yet.
    ///
    /// ```
    /// use regionkv::catalog::Catalog;
    /// use regionkv::fs::RealFs;
    /// # let dir = tempfile::tempdir()?;
    /// # let options = regionkv::DbOptions::default().background(false);
    /// # let db = regionkv::Db::open(dir.path(), options)?;
    /// # let cf = regionkv::ColumnFamilyDescriptor::new(b"cf")?;
    /// # db.admin().create_table(&regionkv::TableDescriptor::new("t", vec![cf])?)?;
    /// # let table = db.table("t")?;
    /// let fs = RealFs::new();
    /// let catalog = Catalog::read(&fs, dir.path())?;
    /// assert!(catalog.is_some_and(|c| c.tables.contains_key("t")));
    /// let empty = tempfile::tempdir()?;
    /// assert!(Catalog::read(&fs, empty.path())?.is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read(fs: &dyn Fs, dir: &Path) -> Result<Option<Self>> {
        let path = Self::path(dir);
        if !fs.exists(&path)? {
            return Ok(None);
        }
        let bytes = read_small(fs, &path)?;
        Self::decode(&bytes, &path).map(Some)
    }

    /// Atomically replaces the catalog of `dir`.
    ///
    /// ```
    /// use regionkv::catalog::Catalog;
    /// use regionkv::fs::{Fs, MemFs};
    /// use std::path::Path;
    ///
    /// let fs = MemFs::new();
    /// fs.create_dir_all(Path::new("/db"))?;
    /// let mut catalog = Catalog::default();
    /// catalog.namespaces.insert("ns".to_string());
    /// catalog.write(&fs, Path::new("/db"))?;
    /// assert_eq!(Catalog::read(&fs, Path::new("/db"))?, Some(catalog));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write(&self, fs: &dyn Fs, dir: &Path) -> Result<()> {
        Ok(regionkv_fs::write_atomic(
            fs,
            &Self::path(dir),
            &self.encode(),
        )?)
    }
}

fn apply_attrs(
    v: &Value,
    mut set: impl FnMut(&str, &str) -> std::result::Result<(), regionkv_region::DescriptorError>,
) -> std::result::Result<(), String> {
    for (k, val) in v["attributes"].as_object().ok_or("no attributes")? {
        if k == "NAME" {
            continue;
        }
        let s = val
            .as_str()
            .ok_or_else(|| format!("attribute {k} is not a string"))?;
        if k == "SPLIT_POLICY" && s.is_empty() {
            continue;
        }
        set(k, s).map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn config_of(v: &Value) -> std::result::Result<BTreeMap<String, String>, String> {
    string_map(&v["configuration"], "configuration")
}

fn string_map(v: &Value, what: &str) -> std::result::Result<BTreeMap<String, String>, String> {
    v.as_object()
        .ok_or_else(|| format!("no {what}"))?
        .iter()
        .map(|(k, v)| {
            v.as_str()
                .map(|s| (k.clone(), s.to_string()))
                .ok_or_else(|| format!("{what} {k} is not a string"))
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use regionkv_fs::MemFs;

    #[test]
    fn namespace_properties_round_trip_and_old_catalogs_open() {
        let mut c = Catalog::default();
        c.namespaces.insert("ns".into());
        let old = c.encode();
        assert!(!String::from_utf8_lossy(&old).contains("namespace_properties"));
        assert_eq!(Catalog::decode(&old, Path::new("CATALOG")).unwrap(), c);
        c.namespace_properties.insert(
            "ns".into(),
            [(
                "hbase.namespace.quota.maxtables".to_string(),
                "5".to_string(),
            )]
            .into(),
        );
        let bytes = c.encode();
        assert_eq!(Catalog::decode(&bytes, Path::new("CATALOG")).unwrap(), c);
        // Properties of a namespace the catalog does not hold are a defect.
        c.namespaces.remove("ns");
        let bytes = c.encode();
        assert!(Catalog::decode(&bytes, Path::new("CATALOG")).is_err());
    }

    fn sample() -> Catalog {
        let mut f = ColumnFamilyDescriptor::new(b"cf").unwrap();
        f.set_attribute("VERSIONS", "3").unwrap();
        f.configuration
            .insert("hbase.hstore.compaction.min".into(), "4".into());
        let mut d = TableDescriptor::new("ns:t", vec![f]).unwrap();
        d.set_attribute("MAX_FILESIZE", "1000").unwrap();
        d.metadata.insert(
            "KeyPrefixRegionSplitPolicy.prefix_length".into(),
            "3".into(),
        );
        d.set_attribute("SPLIT_POLICY", "KeyPrefixRegionSplitPolicy")
            .unwrap();
        let mut c = Catalog::default();
        c.namespaces.insert("ns".into());
        c.tables.insert(
            "ns:t".into(),
            TableEntry {
                descriptor: d,
                state: TableState::Disabled,
                regions: vec![
                    RegionEntry {
                        info: RegionInfo {
                            table: "ns:t".into(),
                            start_key: vec![],
                            end_key: vec![0, 0xff],
                            region_id: 7,
                        },
                    },
                    RegionEntry {
                        info: RegionInfo {
                            table: "ns:t".into(),
                            start_key: vec![0, 0xff],
                            end_key: vec![],
                            region_id: 8,
                        },
                    },
                ],
            },
        );
        c.next_region_id = 9;
        c
    }

    #[test]
    fn round_trips_through_the_file() {
        let fs = MemFs::new();
        fs.create_dir_all(Path::new("/db")).unwrap();
        assert!(Catalog::read(&fs, Path::new("/db")).unwrap().is_none());
        let c = sample();
        c.write(&fs, Path::new("/db")).unwrap();
        assert_eq!(Catalog::read(&fs, Path::new("/db")).unwrap().unwrap(), c);
    }

    #[test]
    fn every_single_bit_flip_is_detected() {
        let bytes = sample().encode();
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                assert!(
                    Catalog::decode(&b, Path::new("CATALOG")).is_err(),
                    "flip of bit {bit} at {i} went unnoticed"
                );
            }
        }
        for cut in 0..bytes.len() {
            assert!(Catalog::decode(&bytes[..cut], Path::new("CATALOG")).is_err());
        }
        let err = Catalog::decode(&bytes[..bytes.len() - 1], Path::new("/db/CATALOG"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("/db/CATALOG") && err.contains("offset"),
            "{err}"
        );
    }
}
