//! `lab export`: the HBase shell script that creates a design's table on a real cluster —
//! its families with their options, its table attributes and its pre-splits — so a design
//! tried in the lab moves to HBase unchanged. The script is also valid input for
//! `regionkv shell`, which is how the tests check it.
//!
//! Only options that differ from HBase's defaults are written (what a person would type);
//! every value is a quoted string, as `describe` prints them and `create` takes them. A
//! design's index tables get `create` lines of their own.

use regionkv::ColumnFamilyDescriptor;

use crate::design::{Design, PreSplit};

/// The script for `design`: comment lines naming the design and its rowkey, then one
/// `create` statement, then one per index table (`[[index]]`), each after a comment
/// naming the index and its key.
///
/// # Errors
/// A pre-split the split algorithm cannot make (it is written out as the keys it makes).
pub fn shell_script(design: &Design) -> Result<String, String> {
    let mut out = String::new();
    out.push_str(&format!(
        "# regionkv lab export: {}\n",
        one_line(&design.name)
    ));
    if let Some(d) = &design.description {
        out.push_str(&format!("# {}\n", one_line(d)));
    }
    out.push_str(&format!("# rowkey: {}\n", one_line(&design.rowkey_text)));
    out.push_str(&create_line(
        &design.descriptor,
        &design.presplit,
        design.scaled_sizes,
    ));
    // Each index is a table of its own, created beside the base table.
    for ix in &design.indexes {
        out.push_str(&format!(
            "# index {}: {} ({}-maintained), rowkey: {}\n",
            one_line(&ix.name),
            ix.kind.name(),
            ix.maintained.name(),
            one_line(&ix.rowkey_text)
        ));
        out.push_str(&create_line(
            &ix.descriptor,
            &ix.presplit,
            design.scaled_sizes,
        ));
        ix.split_keys()?;
    }
    // The algorithm's keys are HBase's own; checking them here reports an impossible split
    // now rather than on the cluster.
    design.split_keys()?;
    Ok(out)
}

/// The comment (when scaled sizes are left out) and `create` line of one table.
fn create_line(
    desc: &regionkv::TableDescriptor,
    presplit: &PreSplit,
    scaled_sizes: bool,
) -> String {
    let mut out = String::new();
    let mut args = vec![ruby_string(desc.name.as_bytes())];
    for f in &desc.families {
        args.push(family_hash(f));
    }
    // A quick design's scaled-down sizes are the lab's, not the cluster's.
    let scaled = |k: &str, v: &str| {
        scaled_sizes
            && ((k == "MAX_FILESIZE" && v == crate::design::QUICK_MAX_FILESIZE.to_string())
                || (k == "MEMSTORE_FLUSHSIZE" && v == crate::design::QUICK_FLUSH_SIZE.to_string()))
    };
    let attributes = desc.attributes(false);
    if attributes.iter().any(|(k, v)| scaled(k, v)) {
        out.push_str(
            "# the lab's scaled-down MAX_FILESIZE / MEMSTORE_FLUSHSIZE are left out: HBase's \
             defaults apply\n",
        );
    }
    let mut table: Vec<String> = attributes
        .into_iter()
        .filter(|(k, v)| !scaled(k, v))
        .map(|(k, v)| format!("{k} => {}", ruby_string(v.as_bytes())))
        .collect();
    match presplit {
        PreSplit::None => {}
        PreSplit::Algorithm { algorithm, regions } => {
            table.push(format!("NUMREGIONS => {regions}"));
            table.push(format!(
                "SPLITALGO => {}",
                ruby_string(algorithm.as_bytes())
            ));
        }
        PreSplit::Keys(keys) => {
            let keys: Vec<String> = keys.iter().map(|k| ruby_string(k)).collect();
            table.push(format!("SPLITS => [{}]", keys.join(", ")));
        }
    }
    if !table.is_empty() {
        args.push(format!("{{{}}}", table.join(", ")));
    }
    out.push_str(&format!("create {}\n", args.join(", ")));
    out
}

/// The `create` statement that makes an existing table's twin on a real cluster: its
/// families with the options that differ from HBase's defaults, its table attributes and
/// its region boundaries as `SPLITS` (what `export-hfiles` writes beside the HFiles, so
/// `completebulkload` finds every file inside one region).
///
/// ```
/// use regionkv::{ColumnFamilyDescriptor, TableDescriptor};
///
/// let mut cf = ColumnFamilyDescriptor::new(b"d")?;
/// cf.max_versions = 3;
/// let desc = TableDescriptor::new("t", vec![cf])?;
/// assert_eq!(
///     regionkv_lab::export::create_statement(&desc, &[b"g".to_vec(), b"\x00".to_vec()]),
///     "create 't', {NAME => 'd', VERSIONS => '3'}, {SPLITS => ['g', \"\\x00\"]}"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn create_statement(desc: &regionkv::TableDescriptor, splits: &[Vec<u8>]) -> String {
    let mut args = vec![ruby_string(desc.name.as_bytes())];
    args.extend(desc.families.iter().map(family_hash));
    let mut table: Vec<String> = desc
        .attributes(false)
        .into_iter()
        .map(|(k, v)| format!("{k} => {}", ruby_string(v.as_bytes())))
        .collect();
    if !splits.is_empty() {
        let keys: Vec<String> = splits.iter().map(|k| ruby_string(k)).collect();
        table.push(format!("SPLITS => [{}]", keys.join(", ")));
    }
    if !table.is_empty() {
        args.push(format!("{{{}}}", table.join(", ")));
    }
    format!("create {}", args.join(", "))
}

/// `{NAME => 'f', KEY => 'value', ...}` with the options that differ from a new family's.
pub fn family_hash(f: &ColumnFamilyDescriptor) -> String {
    let defaults = ColumnFamilyDescriptor::new(&f.name)
        .map(|d| d.attributes())
        .unwrap_or_default();
    let mut parts = vec![format!("NAME => {}", ruby_string(&f.name))];
    for (k, v) in f.attributes() {
        if k == "NAME" || defaults.iter().any(|(dk, dv)| *dk == k && *dv == v) {
            continue;
        }
        parts.push(format!("{k} => {}", ruby_string(v.as_bytes())));
    }
    format!("{{{}}}", parts.join(", "))
}

/// A Ruby string literal of `bytes` the shell reads back byte for byte: single quotes for
/// plain printable text, else double quotes with `\xHH` for every byte outside printable
/// ASCII and `\\`, `\"` and `\#` escaped.
pub fn ruby_string(bytes: &[u8]) -> String {
    let plain = bytes
        .iter()
        .all(|&b| (0x20..0x7f).contains(&b) && b != b'\'' && b != b'\\');
    if plain {
        return format!("'{}'", String::from_utf8_lossy(bytes));
    }
    let mut s = String::from("\"");
    for &b in bytes {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            b'#' => s.push_str("\\#"),
            0x20..=0x7e => s.push(char::from(b)),
            _ => s.push_str(&format!("\\x{b:02X}")),
        }
    }
    s.push('"');
    s
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn ruby_strings_round_trip_bytes() {
        assert_eq!(ruby_string(b"abc"), "'abc'");
        assert_eq!(ruby_string(b"it's"), "\"it's\"");
        assert_eq!(ruby_string(b"\x00a\xff"), "\"\\x00a\\xFF\"");
        assert_eq!(ruby_string(b"a\\b\"#{x}"), "\"a\\\\b\\\"\\#{x}\"");
    }

    #[test]
    fn the_script_names_only_what_differs() -> Result<(), Box<dyn std::error::Error>> {
        let text = r#"
name = "seed"
table = "stats"
rowkey = "bucket(id, 16) + id"
[table_options]
MAX_FILESIZE = 2147483648
MEMSTORE_FLUSHSIZE = 134217728
[families.d]
VERSIONS = 3
TTL = 86400
[families.e]
[presplit]
SPLITS = ["\\x00", "08"]
"#;
        let d = Design::parse(text, "t.toml", Path::new("."))?;
        let script = shell_script(&d)?;
        assert!(script.starts_with("# regionkv lab export: seed\n# rowkey: bucket(id, 16) + id\n"));
        let create = script.lines().last().ok_or("no create")?;
        assert_eq!(
            create,
            "create 'stats', {NAME => 'd', VERSIONS => '3', TTL => '86400'}, {NAME => 'e'}, \
             {MAX_FILESIZE => '2147483648', SPLITS => [\"\\x00\", '08']}"
        );
        Ok(())
    }
}
