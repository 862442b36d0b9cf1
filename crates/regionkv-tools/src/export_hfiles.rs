//! `export-hfiles`: writes a table as HFile v3 files HBase's `completebulkload` accepts — the
//! way up from regionkv to a real HBase cluster (docs/interchange.md). The output is what
//! HBase's `HFileOutputFormat2` writes: `<dir>/<family>/<32 hex digits>`, one file per
//! region and family (a region's file rolls at a row boundary past
//! `hbase.hregion.max.filesize`), cut at the table's region boundaries so each file loads
//! into one region without being split again, then `<dir>/_SUCCESS`.
//!
//! Each file is written as HBase's store-file writer would (`regionkv-hfile`): HBase's block
//! layout and index, CRC32C checksums, the family's BLOCKSIZE, a compression HBase has (the
//! family's: NONE or LZ4 with Hadoop's block framing; `hfile.compression` overrides, GZ
//! too), DATA_BLOCK_ENCODING NONE, the family's Bloom filter (ROW or ROWCOL, HBase's
//! compound Bloom, plus the delete-family Bloom), and the FileInfo keys HFileOutputFormat2
//! writes (`BULKLOAD_TIMESTAMP`, `BULKLOAD_SOURCE_TASK`, `MAJOR_COMPACTION_KEY`,
//! `EXCLUDE_FROM_MINOR_COMPACTION`, `TIMERANGE`, `EARLIEST_PUT_TS`, `DELETE_FAMILY_COUNT`).
//! Every file is checked with the structural checker before the export reports success.
//!
//! The cells are the table's raw contents: every version and every delete marker a raw scan
//! returns, so loading the files into a table with the same descriptor reproduces the same
//! raw scan. Files are written under `<dir>/_temporary/` and moved into place at the end
//! (Hadoop's output committer): an interrupted export leaves `_temporary` and no
//! `_SUCCESS`, never a directory that looks complete.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use regionkv::fs::{Fs, RealFs};
use regionkv::{Cell, Db, Scan};
use regionkv_hfile::bloom::BloomType as HBloom;
use regionkv_hfile::check::check;
use regionkv_hfile::file_info::keys;
use regionkv_hfile::key::KeyRef;
use regionkv_hfile::{Compression, HFileReader, HFileWriter, HFileWriterOptions};

use crate::conf::Properties;
use crate::error::{Error, Result};
use crate::read_ahead::ReadAhead;

/// `hfile.compression`: the compression of every file (NONE, GZ, LZ4), instead of each
/// family's.
pub const COMPRESSION_CONF_KEY: &str = "hfile.compression";
/// `hbase.mapreduce.hfileoutputformat.blocksize`: the data block size of every file,
/// instead of each family's BLOCKSIZE.
pub const BLOCK_SIZE_CONF_KEY: &str = "hbase.mapreduce.hfileoutputformat.blocksize";
/// `hbase.hregion.max.filesize`: a file rolls at the next row past this size.
pub const MAX_FILE_SIZE_CONF_KEY: &str = "hbase.hregion.max.filesize";
/// `hbase.mapreduce.hfileoutputformat.compaction.exclude`: the files'
/// `EXCLUDE_FROM_MINOR_COMPACTION`.
pub const COMPACTION_EXCLUDE_CONF_KEY: &str =
    "hbase.mapreduce.hfileoutputformat.compaction.exclude";

/// The options, from `-Dkey=value` properties.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportHFilesOptions {
    /// `hfile.compression` (None: each family's).
    pub compression: Option<Compression>,
    /// The block size override.
    pub block_size: Option<usize>,
    /// `hbase.hregion.max.filesize` (HBase's default 10 GiB).
    pub max_file_size: u64,
    /// `EXCLUDE_FROM_MINOR_COMPACTION`.
    pub compaction_exclude: bool,
    /// Notes on ignored keys.
    pub notes: Vec<String>,
}

impl Default for ExportHFilesOptions {
    fn default() -> Self {
        ExportHFilesOptions {
            compression: None,
            block_size: None,
            max_file_size: 10 * 1024 * 1024 * 1024,
            compaction_exclude: false,
            notes: Vec::new(),
        }
    }
}

impl ExportHFilesOptions {
    /// Reads `-Dkey=value` properties.
    ///
    /// ```
    /// use regionkv_tools::export_hfiles::ExportHFilesOptions;
    /// use regionkv_hfile::Compression;
    ///
    /// let o = ExportHFilesOptions::from_properties([("hfile.compression", "gz")])?;
    /// assert_eq!(o.compression, Some(Compression::Gz));
    /// assert!(ExportHFilesOptions::from_properties([("hfile.compression", "SNAPPY")]).is_err());
    /// # Ok::<(), regionkv_tools::Error>(())
    /// ```
    pub fn from_properties<I, K, V>(properties: I) -> Result<Self>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let props = Properties::new(properties);
        let mut o = ExportHFilesOptions::default();
        if let Some(v) = props.get(COMPRESSION_CONF_KEY) {
            o.compression = Some(match v.trim().to_ascii_uppercase().as_str() {
                "NONE" => Compression::None,
                "GZ" => Compression::Gz,
                "LZ4" => Compression::Lz4,
                other => {
                    return Err(Error::usage(format!(
                        "-D{COMPRESSION_CONF_KEY}={other}: regionkv writes NONE, GZ or LZ4"
                    )));
                }
            });
        }
        let number = |key: &str| -> Result<Option<u64>> {
            props
                .get(key)
                .map(|v| {
                    v.trim()
                        .parse::<u64>()
                        .map_err(|_| Error::usage(format!("-D{key}={v}: not a number")))
                })
                .transpose()
        };
        o.block_size = number(BLOCK_SIZE_CONF_KEY)?.map(|b| b.max(1) as usize);
        if let Some(m) = number(MAX_FILE_SIZE_CONF_KEY)? {
            o.max_file_size = m.max(1);
        }
        o.compaction_exclude = crate::conf::boolean(
            COMPACTION_EXCLUDE_CONF_KEY,
            props.get(COMPACTION_EXCLUDE_CONF_KEY),
            false,
            &mut o.notes,
        );
        for key in props.keys() {
            if ![
                COMPRESSION_CONF_KEY,
                BLOCK_SIZE_CONF_KEY,
                MAX_FILE_SIZE_CONF_KEY,
                COMPACTION_EXCLUDE_CONF_KEY,
            ]
            .contains(&key)
            {
                o.notes.push(format!(
                    "-D{key} is not an option of export-hfiles; ignored"
                ));
            }
        }
        Ok(o)
    }
}

/// One file written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportedFile {
    /// Its path under the output directory, `<family>/<name>`.
    pub path: PathBuf,
    /// Cells.
    pub cells: u64,
    /// Bytes.
    pub bytes: u64,
    /// The first and last rows.
    pub rows: (Vec<u8>, Vec<u8>),
}

/// What an export wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportHFilesReport {
    /// The files, by family, then by rows.
    pub files: Vec<ExportedFile>,
    /// Cells written.
    pub cells: u64,
    /// Bytes written.
    pub bytes: u64,
    /// Regions the table had.
    pub regions: u64,
}

/// A file being written.
struct OpenFile {
    writer: HFileWriter,
    rel: PathBuf,
    region: usize,
    cells: u64,
    first_row: Vec<u8>,
    last_row: Vec<u8>,
}

/// A directory of HFiles being written as HFileOutputFormat2 writes them: per family, files
/// cut at the region boundaries `splits` and rolled past the size limit, under
/// `<out>/_temporary` until [`HFileSet::commit`]. Cells come per family in key order
/// (families may interleave, as a table scan's rows give them). Shared by `export-hfiles`
/// and ImportTsv's `importtsv.bulk.output`.
pub(crate) struct HFileSet {
    out: PathBuf,
    tmp: PathBuf,
    settings: BTreeMap<Vec<u8>, HFileWriterOptions>,
    splits: Vec<Vec<u8>>,
    options: ExportHFilesOptions,
    now: i64,
    source_task: &'static str,
    open: BTreeMap<Vec<u8>, OpenFile>,
    report: ExportHFilesReport,
    key: Vec<u8>,
}

impl HFileSet {
    /// Starts writing under `out` (absent or empty, as Hadoop's `FileOutputFormat`
    /// requires) for the families of `desc` and the region boundaries `splits`.
    pub(crate) fn create(
        out: &Path,
        desc: &regionkv::TableDescriptor,
        splits: Vec<Vec<u8>>,
        options: ExportHFilesOptions,
        now: i64,
        source_task: &'static str,
    ) -> Result<HFileSet> {
        if out.exists()
            && std::fs::read_dir(out)
                .map_err(|e| io_error(out, e))?
                .next()
                .is_some()
        {
            return Err(Error::OutputExists {
                path: out.to_path_buf(),
            });
        }
        let tmp = out.join("_temporary");
        std::fs::create_dir_all(&tmp).map_err(|e| io_error(&tmp, e))?;
        let mut settings = BTreeMap::new();
        for f in &desc.families {
            let compression = options.compression.unwrap_or(match f.compression {
                regionkv::descriptor::Compression::Lz4 => Compression::Lz4,
                regionkv::descriptor::Compression::None => Compression::None,
            });
            let bloom = match f.bloom_type {
                regionkv::descriptor::BloomType::None => None,
                regionkv::descriptor::BloomType::Row => Some(HBloom::Row),
                regionkv::descriptor::BloomType::RowCol => Some(HBloom::RowCol),
            };
            let opts = HFileWriterOptions {
                block_size: options.block_size.unwrap_or(f.block_size),
                compression,
                include_tags: true,
                include_mvcc: true,
                create_time: now,
                store_file: true,
                bloom,
                delete_family_bloom: true,
                ..HFileWriterOptions::default()
            };
            std::fs::create_dir_all(tmp.join(family_dir(&f.name)))
                .map_err(|e| io_error(&tmp, e))?;
            settings.insert(f.name.clone(), opts);
        }
        Ok(HFileSet {
            out: out.to_path_buf(),
            tmp,
            settings,
            report: ExportHFilesReport {
                regions: splits.len() as u64 + 1,
                ..Default::default()
            },
            splits,
            options,
            now,
            source_task,
            open: BTreeMap::new(),
            key: Vec::new(),
        })
    }

    /// Appends `c` to its family's file of its region (a family the table lacks is an
    /// error naming it).
    pub(crate) fn append(&mut self, c: &Cell) -> Result<()> {
        // The key parsed once: each of a cell's accessors parses it again.
        let k = c.key_view();
        let (row, family) = (k.row(), k.family());
        let region = self.splits.partition_point(|s| s.as_slice() <= row);
        // A new region, or a new row past the size limit, closes the family's file: files
        // never straddle a region boundary and never split a row.
        let close = self.open.get(family).is_some_and(|f| {
            f.region != region
                || (f.last_row.as_slice() != row
                    && f.writer.bytes_written() >= self.options.max_file_size)
        });
        if close && let Some(f) = self.open.remove(family) {
            self.close(f)?;
        }
        if !self.open.contains_key(family) {
            let Some(opts) = self.settings.get(family) else {
                return Err(Error::NoSuchColumnFamilies {
                    families: vec![String::from_utf8_lossy(family).into_owned()],
                });
            };
            let rel = family_dir(family).join(file_name(family, self.report.files.len(), self.now));
            let file = RealFs::new()
                .create_new(&self.tmp.join(&rel))
                .map_err(|e| Error::HFile(e.into()))?;
            self.open.insert(
                family.to_vec(),
                OpenFile {
                    writer: HFileWriter::new(file, opts.clone()),
                    rel,
                    region,
                    cells: 0,
                    first_row: row.to_vec(),
                    last_row: row.to_vec(),
                },
            );
        }
        let Some(f) = self.open.get_mut(family) else {
            return Ok(());
        };
        self.key.clear();
        KeyRef {
            row,
            family,
            qualifier: k.qualifier(),
            timestamp: k.timestamp(),
            type_byte: k.cell_type().code(),
        }
        .encode_into(&mut self.key);
        f.writer.append(&self.key, c.value(), c.tags(), 0)?;
        f.cells += 1;
        if f.last_row.as_slice() != row {
            f.last_row.clear();
            f.last_row.extend_from_slice(row);
        }
        Ok(())
    }

    /// Closes every file and moves the family directories into place, then `_SUCCESS`
    /// (Hadoop's output committer).
    pub(crate) fn commit(mut self) -> Result<ExportHFilesReport> {
        for (_, f) in std::mem::take(&mut self.open) {
            self.close(f)?;
        }
        for name in self.settings.keys() {
            let from = self.tmp.join(family_dir(name));
            let to = self.out.join(family_dir(name));
            std::fs::rename(&from, &to).map_err(|e| io_error(&to, e))?;
        }
        std::fs::remove_dir_all(&self.tmp).map_err(|e| io_error(&self.tmp, e))?;
        std::fs::write(self.out.join("_SUCCESS"), b"").map_err(|e| io_error(&self.out, e))?;
        let mut report = std::mem::take(&mut self.report);
        // Listed by family, then by rows (files close in whatever order regions end).
        report
            .files
            .sort_by(|a, b| (a.path.parent(), &a.rows.0).cmp(&(b.path.parent(), &b.rows.0)));
        for f in &mut report.files {
            f.path = self.out.join(&f.path);
        }
        Ok(report)
    }

    /// Finishes a file with HFileOutputFormat2's FileInfo keys and checks it.
    fn close(&mut self, mut f: OpenFile) -> Result<()> {
        f.writer
            .set_file_info(keys::BULKLOAD_TIMESTAMP, self.now.to_be_bytes());
        f.writer.set_file_info(
            keys::BULKLOAD_SOURCE_TASK,
            self.source_task.as_bytes().to_vec(),
        );
        f.writer.set_file_info(keys::MAJOR_COMPACTION_KEY, [0xFFu8]);
        f.writer.set_file_info(
            keys::EXCLUDE_FROM_MINOR_COMPACTION,
            [if self.options.compaction_exclude {
                0xFF
            } else {
                0
            }],
        );
        let summary = f.writer.finish()?;
        // The structural checker walks the file as HBase's reader and bulk load would.
        let path = self.tmp.join(&f.rel);
        let reader = HFileReader::open(
            RealFs::new()
                .open_read(&path)
                .map_err(|e| Error::HFile(e.into()))?,
        )?;
        check(&reader)?;
        self.report.cells += f.cells;
        self.report.bytes += summary.len;
        self.report.files.push(ExportedFile {
            path: f.rel,
            cells: f.cells,
            bytes: summary.len,
            rows: (f.first_row, f.last_row),
        });
        Ok(())
    }
}

/// The export of one table.
pub struct ExportHFiles<'a> {
    db: &'a Db,
    table: String,
    options: ExportHFilesOptions,
}

impl<'a> ExportHFiles<'a> {
    /// An export of `table`.
    pub fn new(db: &'a Db, table: &str, options: ExportHFilesOptions) -> Self {
        Self {
            db,
            table: table.to_string(),
            options,
        }
    }

    /// Writes the files under `out` (which must not exist, or be empty, as Hadoop's
    /// `FileOutputFormat` requires); `cells_done` counts up as cells are written.
    pub fn run(&self, out: &Path, cells_done: &Arc<AtomicU64>) -> Result<ExportHFilesReport> {
        let admin = self.db.admin();
        let desc = admin.describe(&self.table)?;
        let splits = admin.splits(&self.table)?;
        let now = self.db.clock().now_millis();
        let mut set = HFileSet::create(
            out,
            &desc,
            splits,
            self.options.clone(),
            now,
            "regionkv export-hfiles",
        )?;
        let table = self.db.table(&self.table)?;
        // Scanning on a thread of its own, encoding and writing on this one.
        let rows = ReadAhead::spawn(
            "export-hfiles-scan",
            // Each block is read once: not through the block cache (as Export).
            table.scan(&Scan::new().raw(true).all_versions().cache_blocks(false))?,
        )
        .map_err(|e| Error::file(out, e))?;
        for row in rows {
            let row = row?;
            for c in row.cells() {
                set.append(c)?;
            }
            // Counted a row at a time: an atomic add per cell showed in the profile.
            cells_done.fetch_add(row.cells().len() as u64, Ordering::Relaxed);
        }
        set.commit()
    }
}

/// A family's directory name (family names are printable; other bytes as `\xNN`, which no
/// HBase family needs).
fn family_dir(family: &[u8]) -> PathBuf {
    PathBuf::from(regionkv::cell::bytes::to_string_binary(family))
}

/// A 32-hex-digit file name, as HBase's store files are named (its UUID without dashes),
/// unique within the export.
fn file_name(family: &[u8], n: usize, now: i64) -> String {
    let mut h = crc32fast::Hasher::new();
    h.update(family);
    h.update(&std::process::id().to_be_bytes());
    let a = h.finalize();
    format!("{a:08x}{:012x}{n:012x}", now as u64 & 0xffff_ffff_ffff)
}

fn io_error(path: &Path, e: std::io::Error) -> Error {
    Error::File {
        path: path.to_path_buf(),
        source: e,
    }
}
