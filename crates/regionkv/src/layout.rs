//! Where things live in a Db directory, and how the engine recognises its own entries
//! there (docs/catalog-format.md, "Db directory"): `data/<ns>/<table>/<region>/`, region
//! directories named by their 32-hex-digit encoded name, the table's `.tableinfo`.
//!
//! The engine deletes only entries it recognises: a name that is not an encoded region
//! name is never a region directory, so a user's file in a table directory is left alone.

use crate::error::Result;
use regionkv_fs::Fs;
use std::path::{Path, PathBuf};

/// The directory of `table` (`ns:q`, or `q` in the default namespace) under `dir`.
pub(crate) fn table_dir(dir: &Path, table: &str) -> PathBuf {
    let (ns, q) = table.split_once(':').unwrap_or(("default", table));
    dir.join("data").join(ns).join(q)
}

/// The directory of namespace `ns` under `dir`.
pub(crate) fn namespace_dir(dir: &Path, ns: &str) -> PathBuf {
    dir.join("data").join(ns)
}

/// True for a region directory's name: 32 lower-case hex digits (`RegionInfo::encoded_name`).
pub(crate) fn is_encoded_name(name: &str) -> bool {
    name.len() == 32
        && name
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Every table directory under `dir/data`, as (canonical table name, path), sorted. Names
/// that no table can have (e.g. starting with `.`) are skipped.
pub(crate) fn table_dirs(fs: &dyn Fs, dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let data = dir.join("data");
    if !fs.exists(&data)? {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for ns in fs.list(&data)? {
        if regionkv_cell::limits::check_namespace_name(&ns).is_err() {
            continue;
        }
        let ns_dir = data.join(&ns);
        for q in list_dir(fs, &ns_dir)? {
            let name = if ns == "default" {
                q.clone()
            } else {
                format!("{ns}:{q}")
            };
            if regionkv_cell::limits::parse_table_name(&name).is_err() {
                continue;
            }
            out.push((name, ns_dir.join(q)));
        }
    }
    Ok(out)
}

/// The namespace directories under `dir/data` that are empty and not in `listed`: the
/// leftovers of a namespace drop finished in the catalog only. Entries that are no
/// directory, or not named like a namespace, are never returned.
pub(crate) fn empty_unlisted_namespace_dirs(
    fs: &dyn Fs,
    dir: &Path,
    listed: &std::collections::BTreeSet<String>,
) -> Result<Vec<PathBuf>> {
    let data = dir.join("data");
    if !fs.exists(&data)? {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for ns in fs.list(&data)? {
        if listed.contains(&ns) || regionkv_cell::limits::check_namespace_name(&ns).is_err() {
            continue;
        }
        let path = data.join(&ns);
        match fs.list(&path) {
            Ok(entries) if entries.is_empty() => out.push(path),
            Ok(_) => {}
            Err(e) if is_not_a_directory(&e) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(out)
}

/// The names of the region directories in `table_dir` (entries named like one), sorted.
pub(crate) fn region_dirs(fs: &dyn Fs, table_dir: &Path) -> Result<Vec<String>> {
    Ok(list_dir(fs, table_dir)?
        .into_iter()
        .filter(|n| is_encoded_name(n))
        .collect())
}

/// What `dir/data` holds that a catalog should describe, as text for a message; `None`
/// when nothing: no table directory and no namespace directory but `default` and `hbase`
/// (which every Db makes at its first open).
pub(crate) fn described_data(fs: &dyn Fs, dir: &Path) -> Result<Option<String>> {
    let tables = table_dirs(fs, dir)?;
    if !tables.is_empty() {
        let mut regions = 0;
        for (_, tdir) in &tables {
            regions += region_dirs(fs, tdir)?.len();
        }
        return Ok(Some(format!(
            "{regions} region directories in {} table directories",
            tables.len()
        )));
    }
    let data = dir.join("data");
    let namespaces: Vec<String> = if fs.exists(&data)? {
        list_dir(fs, &data)?
            .into_iter()
            .filter(|ns| ns != "default" && ns != "hbase")
            .collect()
    } else {
        Vec::new()
    };
    Ok((!namespaces.is_empty())
        .then(|| format!("the namespace directories {}", namespaces.join(", "))))
}

/// True when some family directory of `region_dir` holds a file (a storefile, or
/// anything else a deletion would lose).
pub(crate) fn holds_files(fs: &dyn Fs, region_dir: &Path) -> Result<bool> {
    for entry in list_dir(fs, region_dir)? {
        let path = region_dir.join(&entry);
        if entry == regionkv_region::manifest::MANIFEST_FILE || entry.ends_with(".tmp") {
            continue;
        }
        // A family directory lists its files; a plain file (not ours) counts itself.
        match fs.list(&path) {
            Ok(files) if files.is_empty() => {}
            _ => return Ok(true),
        }
    }
    Ok(false)
}

/// Like [`holds_files`], but a file linked from a snapshot (a link name,
/// `regionkv_region::file_link`) does not count: its data lives on in the snapshot, so a
/// region directory holding only links holds nothing of its own (an uncommitted clone's
/// or restore's region, or a holder of a parent's linked files).
pub(crate) fn holds_own_files(fs: &dyn Fs, region_dir: &Path) -> Result<bool> {
    for entry in list_dir(fs, region_dir)? {
        let path = region_dir.join(&entry);
        if entry == regionkv_region::manifest::MANIFEST_FILE || entry.ends_with(".tmp") {
            continue;
        }
        match fs.list(&path) {
            Ok(files) => {
                if files
                    .iter()
                    .any(|f| regionkv_region::file_link::FileLink::parse(f).is_none())
                {
                    return Ok(true);
                }
            }
            Err(_) => return Ok(true),
        }
    }
    Ok(false)
}

/// Removes the table directory `tdir` with its `.tableinfo` last, so that a crash half-way
/// leaves the mark that says what the rest is (a DROPPING or CREATING table whose leftover
/// regions the next open removes), never region directories with data and no mark, which
/// the next open would have to keep as an unknown table.
pub(crate) fn remove_table_dir(fs: &dyn Fs, tdir: &Path) -> Result<()> {
    for entry in list_dir(fs, tdir)? {
        if entry == crate::table_info::TABLE_INFO_FILE {
            continue;
        }
        let path = tdir.join(&entry);
        match fs.list(&path) {
            Ok(_) => fs.remove_dir_all(&path)?,
            Err(_) => fs.remove_file(&path)?,
        }
    }
    fs.sync_dir(tdir)?;
    fs.remove_dir_all(tdir)?;
    Ok(())
}

/// Removes the region directory `rdir` with its `MANIFEST` last, so that a crash half-way
/// leaves a directory the janitor still recognises (by its manifest) or one without data;
/// never storefiles without the manifest that says whose they are, which only a repair
/// could classify.
pub(crate) fn remove_region_dir(fs: &dyn Fs, rdir: &Path) -> Result<()> {
    for entry in list_dir(fs, rdir)? {
        if entry == regionkv_region::manifest::MANIFEST_FILE {
            continue;
        }
        let path = rdir.join(&entry);
        match fs.list(&path) {
            Ok(_) => fs.remove_dir_all(&path)?,
            Err(_) => fs.remove_file(&path)?,
        }
    }
    fs.sync_dir(rdir)?;
    fs.remove_dir_all(rdir)?;
    Ok(())
}

/// The entries of `dir`; none when `dir` is not a directory (a stray file where a
/// namespace or table directory would be is not ours to read).
fn list_dir(fs: &dyn Fs, dir: &Path) -> Result<Vec<String>> {
    match fs.list(dir) {
        Ok(names) => Ok(names),
        Err(e) if is_not_a_directory(&e) => Ok(Vec::new()),
        Err(e) => Err(e.into()),
    }
}

fn is_not_a_directory(e: &regionkv_fs::Error) -> bool {
    matches!(e, regionkv_fs::Error::Io { source, .. }
        if source.kind() == std::io::ErrorKind::NotADirectory || source.raw_os_error() == Some(20))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn encoded_names_are_32_lower_case_hex_digits() {
        let info = regionkv_region::RegionInfo::whole_table("t", 7);
        assert!(is_encoded_name(&info.encoded_name()));
        assert!(!is_encoded_name(".tableinfo"));
        assert!(!is_encoded_name(&"A".repeat(32)));
        assert!(!is_encoded_name(&"a".repeat(31)));
    }

    #[test]
    fn table_dirs_name_tables_as_the_catalog_does() {
        let fs = regionkv_fs::MemFs::new();
        for d in ["/db/data/default/t1", "/db/data/ns/t2", "/db/data/.junk/t3"] {
            fs.create_dir_all(Path::new(d)).unwrap();
        }
        let names: Vec<String> = table_dirs(&fs, Path::new("/db"))
            .unwrap()
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names, ["t1", "ns:t2"]);
    }

    #[test]
    fn only_empty_unlisted_namespace_directories_are_leftovers() {
        let fs = regionkv_fs::MemFs::new();
        for d in [
            "/db/data/default",
            "/db/data/gone",
            "/db/data/kept/t",
            "/db/data/.junk",
        ] {
            fs.create_dir_all(Path::new(d)).unwrap();
        }
        // A file where a namespace directory would be is never one.
        let mut f = fs.create_new(Path::new("/db/data/file")).unwrap();
        f.append(b"x").unwrap();
        let listed = std::collections::BTreeSet::from(["default".to_string()]);
        let got = empty_unlisted_namespace_dirs(&fs, Path::new("/db"), &listed).unwrap();
        assert_eq!(got, [PathBuf::from("/db/data/gone")]);
        let none = empty_unlisted_namespace_dirs(&fs, Path::new("/nowhere"), &listed).unwrap();
        assert!(none.is_empty());
    }
}
