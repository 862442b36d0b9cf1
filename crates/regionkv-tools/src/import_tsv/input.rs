//! ImportTsv's input, as Hadoop's `TextInputFormat` gives it to HBase's mapper: the paths
//! named (a directory stands for its files in name order, one level deep, skipping names
//! that start with `_` or `.` as `FileInputFormat` does), standard input for `-`, gzip
//! decoded when a file ends in `.gz` or starts with gzip's magic bytes (concatenated gzip
//! members are one stream, as `gzip -d` reads them), and lines ended by LF, CR or CR LF
//! (Hadoop's `LineReader`).
//!
//! Inputs are user files, not engine files, so they are read with `std::fs` rather than
//! through the engine's Fs seam (which refuses symbolic links, rightly for its own files).
//! Memory is bounded: one read buffer per open input and one line, itself bounded by the
//! longest-line limit (a longer line is read through without being kept).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// Read buffer size: large sequential reads.
const READ_BUFFER: usize = 256 << 10;

/// gzip's two magic bytes.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// One input as named on the command line.
///
/// ```
/// use regionkv_tools::import_tsv::Input;
///
/// assert_eq!(Input::from_arg("-"), Input::Stdin);
/// assert_eq!(Input::from_arg("a.tsv"), Input::Path("a.tsv".into()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Standard input (`-`).
    Stdin,
    /// A file, or a directory of files.
    Path(PathBuf),
}

impl Input {
    /// `-` is standard input; anything else a path.
    pub fn from_arg(arg: &str) -> Self {
        if arg == "-" {
            Self::Stdin
        } else {
            Self::Path(PathBuf::from(arg))
        }
    }
}

/// One file to read, after directories are expanded.
#[derive(Debug, Clone)]
pub(crate) struct InputFile {
    /// `None`: standard input.
    pub path: Option<PathBuf>,
    /// How messages name it.
    pub name: String,
    /// Its size in bytes (as stored: compressed for gzip), when known.
    pub size: Option<u64>,
}

/// Hadoop's hidden-file rule for the entries of an input directory.
fn hidden(name: &std::ffi::OsStr) -> bool {
    let b = name.as_encoded_bytes();
    b.first().is_some_and(|c| *c == b'_' || *c == b'.')
}

fn file(path: PathBuf, meta: &std::fs::Metadata) -> InputFile {
    InputFile {
        name: path.display().to_string(),
        // A FIFO or character device has no meaningful length.
        size: meta.is_file().then_some(meta.len()),
        path: Some(path),
    }
}

/// The files `inputs` stand for, in reading order. Fails before anything is read when a
/// path does not exist or a directory holds a directory.
pub(crate) fn expand(inputs: &[Input]) -> Result<Vec<InputFile>> {
    let mut out = Vec::new();
    for input in inputs {
        let path = match input {
            Input::Stdin => {
                out.push(InputFile {
                    path: None,
                    name: "-".into(),
                    size: None,
                });
                continue;
            }
            Input::Path(p) => p,
        };
        let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => Error::InputPathDoesNotExist { path: path.clone() },
            _ => Error::Input {
                input: path.display().to_string(),
                source: e,
            },
        })?;
        if !meta.is_dir() {
            out.push(file(path.clone(), &meta));
            continue;
        }
        let read_error = |e| Error::Input {
            input: path.display().to_string(),
            source: e,
        };
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(path).map_err(read_error)? {
            let entry = entry.map_err(read_error)?;
            if !hidden(&entry.file_name()) {
                entries.push(entry.path());
            }
        }
        entries.sort();
        for entry in entries {
            let meta = std::fs::metadata(&entry).map_err(|e| Error::Input {
                input: entry.display().to_string(),
                source: e,
            })?;
            if meta.is_dir() {
                return Err(Error::NotAFile { path: entry });
            }
            out.push(file(entry, &meta));
        }
    }
    Ok(out)
}

/// Counts the bytes read from an input as stored (before gzip decoding), for the progress
/// bar and the "Bytes Read" counter.
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Opens `file` for reading lines, adding the bytes read to `count`.
pub(crate) fn open(file: &InputFile, count: Arc<AtomicU64>) -> io::Result<Box<dyn BufRead>> {
    let raw: Box<dyn Read> = match &file.path {
        None => Box::new(io::stdin()),
        Some(p) => Box::new(File::open(p)?),
    };
    let mut raw = Counting { inner: raw, count };
    // Peek at the first two bytes for gzip's magic without losing them.
    let mut head = [0u8; 2];
    let mut got = 0;
    while got < head.len() {
        match raw.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let named_gz = file
        .path
        .as_deref()
        .and_then(Path::extension)
        .is_some_and(|e| e == "gz");
    let gzip = got > 0 && (head == GZIP_MAGIC || named_gz);
    let stream = io::Cursor::new(head[..got].to_vec()).chain(raw);
    Ok(if gzip {
        let decoder =
            flate2::read::MultiGzDecoder::new(BufReader::with_capacity(READ_BUFFER, stream));
        Box::new(BufReader::with_capacity(READ_BUFFER, decoder))
    } else {
        Box::new(BufReader::with_capacity(READ_BUFFER, stream))
    })
}

/// One line read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineInfo {
    /// Offset of its first byte in the (decoded) input.
    pub offset: u64,
    /// Its full length without the terminator; longer than the buffer when it passed the
    /// limit.
    pub len: usize,
}

/// Hadoop's `LineReader` over a buffered input: lines end at LF, CR or CR LF; the last line
/// needs no terminator.
pub(crate) struct LineReader<R> {
    inner: R,
    offset: u64,
    /// The previous line ended with CR: an LF right after belongs to it.
    skip_lf: bool,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R) -> Self {
        Self {
            inner,
            offset: 0,
            skip_lf: false,
        }
    }

    /// Reads the next line into `line` (cleared first), keeping at most `max` bytes of it.
    pub fn next_line(&mut self, line: &mut Vec<u8>, max: usize) -> io::Result<Option<LineInfo>> {
        line.clear();
        let start = self.offset;
        let mut len = 0usize;
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok((len > 0).then_some(LineInfo { offset: start, len }));
            }
            if self.skip_lf {
                self.skip_lf = false;
                if buf[0] == b'\n' {
                    self.inner.consume(1);
                    self.offset += 1;
                    return self.next_line(line, max);
                }
            }
            let end = buf.iter().position(|&b| b == b'\n' || b == b'\r');
            let take = end.unwrap_or(buf.len());
            let room = max.saturating_sub(line.len()).min(take);
            line.extend_from_slice(&buf[..room]);
            len += take;
            match end {
                Some(i) => {
                    self.skip_lf = buf[i] == b'\r';
                    self.inner.consume(i + 1);
                    self.offset += i as u64 + 1;
                    return Ok(Some(LineInfo { offset: start, len }));
                }
                None => {
                    self.inner.consume(take);
                    self.offset += take as u64;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn lines(data: &[u8], max: usize, buffer: usize) -> Vec<(u64, usize, Vec<u8>)> {
        let mut r = LineReader::new(BufReader::with_capacity(buffer, data));
        let mut line = Vec::new();
        let mut out = Vec::new();
        while let Some(info) = r.next_line(&mut line, max).unwrap() {
            out.push((info.offset, info.len, line.clone()));
        }
        out
    }

    #[test]
    fn lf_cr_and_crlf_end_lines_as_in_hadoop() {
        for buffer in [1, 2, 3, 64] {
            let got = lines(b"a\nbb\r\ncc\rd\n\ne", usize::MAX, buffer);
            let expect: Vec<(u64, usize, Vec<u8>)> = vec![
                (0, 1, b"a".to_vec()),
                (2, 2, b"bb".to_vec()),
                (6, 2, b"cc".to_vec()),
                (9, 1, b"d".to_vec()),
                (11, 0, b"".to_vec()),
                (12, 1, b"e".to_vec()),
            ];
            assert_eq!(got, expect, "buffer {buffer}");
        }
        // A final terminator makes no empty last line.
        assert_eq!(lines(b"a\n", 10, 8).len(), 1);
        assert_eq!(lines(b"a\r\n", 10, 8).len(), 1);
        assert!(lines(b"", 10, 8).is_empty());
        assert_eq!(lines(b"\n", 10, 8), vec![(0, 0, vec![])]);
    }

    #[test]
    fn long_lines_are_cut_but_measured() {
        let got = lines(b"abcdef\nxy\n", 3, 2);
        assert_eq!(got[0], (0, 6, b"abc".to_vec()));
        assert_eq!(got[1], (7, 2, b"xy".to_vec()));
    }

    #[test]
    fn gzip_is_detected_by_magic_or_name_and_members_concatenate() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let mut gz = Vec::new();
        for part in [&b"r1\ta\n"[..], b"r2\tb\n"] {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(part).unwrap();
            gz.extend(e.finish().unwrap());
        }
        let plain_name = dir.path().join("data");
        std::fs::write(&plain_name, &gz).unwrap();
        let count = Arc::new(AtomicU64::new(0));
        let files = expand(&[Input::Path(plain_name)]).unwrap();
        let mut text = String::new();
        open(&files[0], count.clone())
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "r1\ta\nr2\tb\n");
        assert_eq!(count.load(Ordering::Relaxed), gz.len() as u64);
        // Named .gz but not gzip: a read error, not garbage.
        let fake = dir.path().join("fake.gz");
        std::fs::write(&fake, b"r1\ta\n").unwrap();
        let files = expand(&[Input::Path(fake)]).unwrap();
        let mut text = String::new();
        assert!(
            open(&files[0], count.clone())
                .unwrap()
                .read_to_string(&mut text)
                .is_err()
        );
        // An empty .gz file is an empty input.
        let empty = dir.path().join("empty.gz");
        std::fs::write(&empty, b"").unwrap();
        let files = expand(&[Input::Path(empty)]).unwrap();
        let mut text = String::new();
        open(&files[0], count)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "");
    }

    #[test]
    fn directories_expand_in_name_order_without_hidden_files() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["b", "a", "_SUCCESS", ".crc", "c.gz"] {
            std::fs::write(dir.path().join(name), b"x").unwrap();
        }
        let files = expand(&[Input::Path(dir.path().to_path_buf()), Input::Stdin]).unwrap();
        let names: Vec<_> = files
            .iter()
            .map(|f| {
                f.path
                    .as_ref()
                    .and_then(|p| p.file_name())
                    .map_or("-".to_string(), |n| n.to_string_lossy().into_owned())
            })
            .collect();
        assert_eq!(names, ["a", "b", "c.gz", "-"]);
        assert_eq!(files[0].size, Some(1));
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        assert!(matches!(
            expand(&[Input::Path(dir.path().to_path_buf())]),
            Err(Error::NotAFile { .. })
        ));
        assert!(matches!(
            expand(&[Input::Path(dir.path().join("missing"))]),
            Err(Error::InputPathDoesNotExist { .. })
        ));
    }
}
