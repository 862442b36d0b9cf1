//! Corruption matrix over every file a Db writes (RELIABILITY.md §3, issue 10): WAL logs,
//! storefiles (data, index, bloom, file info and trailer sections), region manifests (with
//! region info and the daughters' reference entries) and the catalog, each hit with
//! single-bit flips, truncations, zeroed pages, appended garbage and deletion; plus stray
//! files dropped into every directory.
//!
//! Gate, for every case: opening and reading never panic; every answer that comes back is
//! the right one (a wrong answer is the one failure that cannot be allowed); a single-bit
//! flip anywhere in these files is detected (they are checksummed end to end); and an
//! error names the damaged file. `REGIONKV_SOAK=1` flips every byte of every file instead
//! of a sample.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use regionkv::table_info::TableInfo;
use regionkv::{
    ColumnFamilyDescriptor, Db, DbOptions, Get, ManualClock, Put, Scan, TableDescriptor,
};
use regionkv_fs::{Fs, MemFs};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// Every file of a Db and its bytes.
type Files = Vec<(PathBuf, Vec<u8>)>;

/// A named way to damage a copy of the file system.
type Damage = (String, Box<dyn Fn(&MemFs)>);

fn row(i: u32) -> Vec<u8> {
    format!("row{i:04}").into_bytes()
}

fn value(i: u32, round: u32) -> Vec<u8> {
    format!("value-{i}-{round}-{}", "v".repeat(50)).into_bytes()
}

fn open(mem: &MemFs, clock: &ManualClock) -> regionkv::Result<Db> {
    Db::open(
        "/db",
        DbOptions::default()
            .background(false)
            .clock(Arc::new(clock.clone()))
            .fs(Arc::new(mem.clone())),
    )
}

/// A Db with flushed storefiles, daughters of a split still on reference files, and
/// unflushed edits (some with a cell TTL, so type-2 WAL records) in the WAL.
fn build() -> (MemFs, Model, Vec<String>) {
    let mem = MemFs::new();
    let clock = ManualClock::new(1_700_000_000_000);
    let db = open(&mem, &clock).unwrap();
    let mut cf = ColumnFamilyDescriptor::new(b"cf").unwrap();
    cf.block_size = 1024;
    let mut d = TableDescriptor::new("t", vec![cf]).unwrap();
    d.set_attribute("DURABILITY", "FSYNC_WAL").unwrap();
    db.admin().create_table(&d).unwrap();
    let t = db.table("t").unwrap();
    let mut model = Model::new();
    for i in 0..60 {
        t.put(&Put::new(row(i)).add_column(b"cf", b"q", value(i, 0)))
            .unwrap();
        model.insert(row(i), value(i, 0));
    }
    db.admin().flush("t").unwrap();
    db.admin().split_at("t", &row(30)).unwrap();
    for i in (0..60).step_by(7) {
        clock.advance(1);
        let p = Put::new(row(i))
            .add_column(b"cf", b"q", value(i, 1))
            .ttl(if i % 2 == 0 { 86_400_000 } else { i64::MAX });
        t.put(&p).unwrap();
        model.insert(row(i), value(i, 1));
    }
    let live = db
        .admin()
        .regions("t")
        .unwrap()
        .into_iter()
        .map(|r| r.encoded_name)
        .collect();
    db.close().unwrap();
    (mem, model, live)
}

/// A fresh file system holding `files`.
fn restore(files: &[(PathBuf, Vec<u8>)]) -> MemFs {
    let mem = MemFs::new();
    for (p, bytes) in files {
        if let Some(dir) = p.parent() {
            mem.create_dir_all(dir).unwrap();
        }
        let mut f = mem.create_new(p).unwrap();
        f.append(bytes).unwrap();
        f.sync_all().unwrap();
        if let Some(dir) = p.parent() {
            mem.sync_dir(dir).unwrap();
        }
    }
    mem
}

enum Outcome {
    /// Every read answered and matched the model.
    Correct,
    /// Open or a read failed with this message.
    Detected(String),
}

/// Opens the Db on `mem` and reads everything (a full scan, a reversed scan and a get of
/// every row): a wrong answer panics; an error is returned as detected.
fn check(mem: &MemFs, model: &Model, what: &str) -> Outcome {
    let clock = ManualClock::new(1_700_000_100_000);
    let db = match open(mem, &clock) {
        Ok(db) => db,
        Err(e) => return Outcome::Detected(e.to_string()),
    };
    let t = match db.table("t") {
        Ok(t) => t,
        Err(e) => return Outcome::Detected(e.to_string()),
    };
    for reversed in [false, true] {
        let scan = match t.scan(&Scan::new().reversed(reversed)) {
            Ok(s) => s,
            Err(e) => return Outcome::Detected(e.to_string()),
        };
        let mut got = Model::new();
        for r in scan {
            match r {
                Ok(r) => {
                    got.insert(
                        r.row().to_vec(),
                        r.value(b"cf", b"q").unwrap_or_default().to_vec(),
                    );
                }
                Err(e) => return Outcome::Detected(e.to_string()),
            }
        }
        assert!(
            &got == model,
            "{what}: a scan (reversed: {reversed}) answered wrongly: {} rows, want {}",
            got.len(),
            model.len()
        );
    }
    for (k, v) in model {
        match t.get(&Get::new(k.clone())) {
            Ok(r) => assert_eq!(
                r.value(b"cf", b"q"),
                Some(&v[..]),
                "{what}: a get of {k:?} answered wrongly"
            ),
            Err(e) => return Outcome::Detected(e.to_string()),
        }
    }
    Outcome::Correct
}

/// Where the last record of a WAL log starts. Damage there, with nothing valid after it,
/// is what a power cut tearing the unsynced last page leaves: recovery drops it as a torn
/// tail (docs/wal-format.md). The answers must still be right — the matrix checks them —
/// which they are when that record's edit is already in a storefile.
fn last_wal_record(bytes: &[u8]) -> u64 {
    let mut pos = regionkv_wal::format::HEADER_LEN;
    let mut last = pos;
    while pos < bytes.len() {
        match regionkv_wal::format::parse_record(bytes, pos) {
            Ok((_, end)) => {
                last = pos;
                pos = end;
            }
            Err(_) => break,
        }
    }
    last as u64
}

fn kind_of(p: &Path) -> &'static str {
    let s = p.to_string_lossy();
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    if s.contains("/wal/") {
        "wal"
    } else if name == "CATALOG" {
        "catalog"
    } else if name == "MANIFEST" {
        "manifest"
    } else if name == ".tableinfo" {
        // The table's own copy of its catalog entry: rewritten from the catalog at open.
        "tableinfo"
    } else if s.contains("/data/") {
        "storefile"
    } else {
        "other"
    }
}

fn soak() -> bool {
    std::env::var_os("REGIONKV_SOAK").is_some()
}

#[test]
fn every_file_kind_detects_damage_and_never_answers_wrongly() {
    let (mem, model, live) = build();
    let files: Vec<(PathBuf, Vec<u8>)> = mem
        .files()
        .into_iter()
        .map(|p| {
            let b = mem.contents(&p).unwrap();
            (p, b)
        })
        .collect();
    // The split parent's manifest is inert: the daughters read the parent's storefiles
    // through their own manifests' reference entries, and the janitor deletes the parent's
    // directory once no daughter refers to it, without reading it. Damage to it cannot
    // change an answer, so it may go unnoticed; every other file is read by open or by
    // the reads below, and must show its damage.
    let inert = |p: &Path| {
        kind_of(p) == "manifest"
            && !live
                .iter()
                .any(|r| p.to_string_lossy().contains(r.as_str()))
    };
    assert_eq!(
        files.iter().filter(|(p, _)| inert(p)).count(),
        1,
        "one split parent"
    );
    // The clean copy reads right.
    assert!(matches!(
        check(&restore(&files), &model, "clean"),
        Outcome::Correct
    ));
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for (p, _) in &files {
        *kinds.entry(kind_of(p)).or_default() += 1;
    }
    for k in ["wal", "catalog", "manifest", "storefile"] {
        assert!(
            kinds.get(k).copied().unwrap_or(0) > 0,
            "no {k} file: {files:?}"
        );
    }
    // Daughters on references: more manifests than regions' storefiles would suggest.
    assert!(kinds["manifest"] >= 3, "{kinds:?}");

    let (mut cases, mut detected, mut flips, mut inert_flips) = (0usize, 0usize, 0usize, 0usize);
    let (mut tail_flips, mut healed) = (0usize, 0usize);
    for (i, (path, bytes)) in files.iter().enumerate() {
        let kind = kind_of(path);
        if kind == "other" {
            continue; // LOCK and the format marker carry no data
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let len = bytes.len() as u64;
        let torn_tail_from = if kind == "wal" {
            last_wal_record(bytes)
        } else {
            len
        };
        // Single-bit flips: every byte of small files (and in soak runs), else a sample
        // with both ends (headers, trailers) byte by byte.
        let offsets: Vec<u64> = if soak() || len <= 600 {
            (0..len).collect()
        } else {
            let mut o: Vec<u64> = (0..64).chain(len - 128..len).collect();
            o.extend((64..len - 128).step_by(((len - 192) / 200).max(1) as usize));
            o
        };
        for off in offsets {
            let m = restore(&files);
            m.corrupt(path, off, 1 << (off % 8)).unwrap();
            let what = format!("{kind} {name}: bit {} of byte {off} flipped", off % 8);
            match check(&m, &model, &what) {
                Outcome::Correct if inert(path) => inert_flips += 1,
                Outcome::Correct if off >= torn_tail_from => tail_flips += 1,
                // A damaged `.tableinfo` is rewritten from the catalog (with a warning):
                // the catalog is the table's record; this copy serves a lost catalog.
                Outcome::Correct if kind == "tableinfo" => {
                    assert!(
                        TableInfo::read(&m, path.parent().unwrap()).is_ok(),
                        "{what}: not rewritten at open"
                    );
                    healed += 1;
                }
                Outcome::Correct => panic!("{what}: not detected ({})", path.display()),
                Outcome::Detected(e) => {
                    assert!(
                        e.contains(&name),
                        "{what}: the error does not name the file: {e}"
                    );
                    detected += 1;
                }
            }
            flips += 1;
            cases += 1;
        }
        // Truncations, a zeroed page, garbage at the end, the file deleted: detected or
        // still right — never wrong.
        let mut damage: Vec<Damage> = Vec::new();
        for cut in [0, len / 2, len.saturating_sub(1)] {
            let p = path.clone();
            damage.push((
                format!("truncated to {cut}"),
                Box::new(move |m| m.truncate(&p, cut).unwrap()),
            ));
        }
        {
            let p = path.clone();
            let b = bytes.clone();
            damage.push((
                "first page zeroed".into(),
                Box::new(move |m| {
                    for (o, x) in b.iter().enumerate().take(4096) {
                        if *x != 0 {
                            m.corrupt(&p, o as u64, *x).unwrap();
                        }
                    }
                }),
            ));
        }
        {
            let p = path.clone();
            damage.push((
                "garbage appended".into(),
                Box::new(move |m| {
                    let mut f = m.open_append(&p).unwrap();
                    f.append(&[0xA5; 77]).unwrap();
                    f.sync_all().unwrap();
                }),
            ));
        }
        {
            let p = path.clone();
            damage.push((
                "deleted".into(),
                Box::new(move |m| m.remove_file(&p).unwrap()),
            ));
        }
        for (how, apply) in &damage {
            let m = restore(&files);
            apply(&m);
            let what = format!("{kind} {name}: {how}");
            match check(&m, &model, &what) {
                Outcome::Correct => {}
                // Detected only when the error names the damaged file (a TableNotFound
                // after a lost catalog would be no detection at all).
                Outcome::Detected(e) => {
                    assert!(
                        e.contains(&name),
                        "{what}: the error does not name the file: {e}"
                    );
                    detected += 1;
                }
            }
            cases += 1;
        }
        // A stray file next to this one is ignored (or, for the WAL, not taken for a log).
        let m = restore(&files);
        let stray = path.with_file_name(format!("stray-{i}"));
        let mut f = m.create_new(&stray).unwrap();
        f.append(b"not ours").unwrap();
        f.sync_all().unwrap();
        assert!(
            matches!(
                check(&m, &model, &format!("stray next to {name}")),
                Outcome::Correct
            ),
            "a stray file next to {name} broke the Db"
        );
        cases += 1;
    }
    eprintln!(
        "corruption matrix: {} files ({kinds:?}), {cases} cases, {flips} bit flips ({} \
         detected, {inert_flips} in the inert split-parent manifest, {tail_flips} in the \
         last WAL record dropped as a torn tail with right answers, {healed} in .tableinfo \
         files rewritten from the catalog), {detected} detected in all",
        files.len(),
        flips - inert_flips - tail_flips - healed
    );
}

#[test]
fn swapped_files_and_a_deleted_catalog_are_detected_by_name_not_served() {
    // Files that trade places keep their bytes, so no checksum fails: the identity a
    // storefile or manifest carries (and the size and trailer checksum the manifest
    // records) must catch it, and the error must name the file and say what it is.
    let (mem, model, live) = build();
    let files: Vec<(PathBuf, Vec<u8>)> = mem
        .files()
        .into_iter()
        .map(|p| {
            let b = mem.contents(&p).unwrap();
            (p, b)
        })
        .collect();
    let of_region = |kind: &str, region: &str| {
        (0..files.len())
            .find(|i| {
                kind_of(&files[*i].0) == kind && files[*i].0.to_string_lossy().contains(region)
            })
            .unwrap()
    };
    let swapped = |a: usize, b: usize| {
        let mut f = files.clone();
        let tmp = f[a].1.clone();
        f[a].1 = f[b].1.clone();
        f[b].1 = tmp;
        f
    };
    let (d0, d1) = (live[0].as_str(), live[1].as_str());
    // (what, the files, the index of the file the error must name, what it must say)
    let cases: Vec<(&str, Files, usize, &str)> = vec![
        (
            "the daughters' own storefiles swapped",
            swapped(of_region("storefile", d0), of_region("storefile", d1)),
            of_region("storefile", d0),
            "belongs elsewhere",
        ),
        (
            "the daughters' manifests swapped",
            swapped(of_region("manifest", d0), of_region("manifest", d1)),
            of_region("manifest", d0),
            "belongs elsewhere",
        ),
        (
            "a storefile and a manifest swapped",
            swapped(of_region("storefile", d0), of_region("manifest", d0)),
            of_region("manifest", d0),
            "MANIFEST",
        ),
    ];
    for (what, damaged, named, says) in cases {
        let name = files[named].0.display().to_string();
        match check(&restore(&damaged), &model, what) {
            Outcome::Correct => panic!("{what}: not detected"),
            Outcome::Detected(e) => {
                assert!(e.contains(&name) && e.contains(says), "{what}: {e}")
            }
        }
    }
    // The catalog deleted: refused as a lost catalog, never opened as an empty database.
    let without: Vec<_> = files
        .iter()
        .filter(|(p, _)| kind_of(p) != "catalog")
        .cloned()
        .collect();
    match check(&restore(&without), &model, "catalog deleted") {
        Outcome::Correct => panic!("catalog deleted: not detected"),
        Outcome::Detected(e) => {
            assert!(
                e.contains("catalog missing") && e.contains("CATALOG"),
                "{e}"
            )
        }
    }
}

fn repair_on(mem: &MemFs) -> regionkv::Result<regionkv::repair::RepairReport> {
    regionkv::repair::repair(
        "/db",
        DbOptions::default()
            .background(false)
            .clock(Arc::new(ManualClock::new(1_700_000_100_000)))
            .fs(Arc::new(mem.clone())),
    )
}

/// After a repair the Db opens and every read succeeds; what it serves is right for
/// every row it still has. Returns the rows served.
fn served_after_repair(mem: &MemFs, model: &Model) -> Model {
    let clock = ManualClock::new(1_700_000_200_000);
    let db = open(mem, &clock).unwrap_or_else(|e| panic!("open after repair: {e}"));
    let t = db.table("t").unwrap();
    let mut got = Model::new();
    for r in t.scan(&Scan::new()).unwrap() {
        let r = r.unwrap_or_else(|e| panic!("a read after repair failed: {e}"));
        let v = r.value(b"cf", b"q").unwrap().to_vec();
        assert_eq!(model.get(r.row()), Some(&v), "wrong value after repair");
        got.insert(r.row().to_vec(), v);
    }
    got
}

#[test]
fn repair_moves_an_unreadable_storefile_aside_and_salvages_a_damaged_wal() {
    // A clean Db: nothing to do.
    let (mem, model, _) = build();
    let report = repair_on(&mem).unwrap();
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(served_after_repair(&mem, &model), model);

    // A flipped bit in the middle of the split parent's storefile (both daughters refer
    // to it): reads fail; repair moves it aside and drops the references.
    let (mem, model, live) = build();
    let sf = mem
        .files()
        .into_iter()
        .find(|p| {
            kind_of(p) == "storefile"
                && !live
                    .iter()
                    .any(|r| p.to_string_lossy().contains(r.as_str()))
        })
        .unwrap();
    let len = mem.contents(&sf).unwrap().len() as u64;
    mem.corrupt(&sf, len / 3, 0x10).unwrap();
    assert!(matches!(
        check(&mem, &model, "before repair"),
        Outcome::Detected(_)
    ));
    let report = repair_on(&mem).unwrap();
    assert_eq!(report.moved_aside.len(), 1, "{report:?}");
    assert_eq!(
        report.manifest_entries_dropped, 2,
        "both daughters' references: {report:?}"
    );
    let aside = &report.moved_aside[0].0;
    assert!(aside.starts_with("/db/corrupt/data/"), "{aside:?}");
    assert!(mem.exists(aside).unwrap() && !mem.exists(&sf).unwrap());
    let served = served_after_repair(&mem, &model);
    // The rows written after the split (every 7th) went to the daughters' own files when
    // the Db closed, and survive.
    for i in (0..60).step_by(7) {
        assert!(served.contains_key(&row(i)), "row {i} lost");
    }
    assert!(served.len() < model.len());
    // And the directory opens normally from now on.
    assert!(repair_on(&mem).unwrap().is_clean());

    // A flipped bit in the middle of the WAL: a normal open refuses (a complete record
    // with a bad CRC is corruption, not a torn tail); repair salvages the other records.
    let (mem, model, _) = build();
    let log = mem
        .files()
        .into_iter()
        .find(|p| kind_of(p) == "wal")
        .unwrap();
    let len = mem.contents(&log).unwrap().len() as u64;
    mem.corrupt(&log, len / 2, 0x04).unwrap();
    let clock = ManualClock::new(1_700_000_100_000);
    let e = open(&mem, &clock).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("wal."), "{e}");
    let report = repair_on(&mem).unwrap();
    assert_eq!(report.moved_aside.len(), 1, "{report:?}");
    assert!(report.wal_ranges_skipped >= 1, "{report:?}");
    assert!(mem.exists(&report.moved_aside[0].0).unwrap());
    let served = served_after_repair(&mem, &model);
    // At most the damaged record's edit is lost; the flushed rows are all there.
    assert!(
        served.len() >= model.len() - 1,
        "{} of {}",
        served.len(),
        model.len()
    );
    assert!(repair_on(&mem).unwrap().is_clean());

    // A damaged catalog is moved aside and rebuilt from the region manifests and the
    // table's `.tableinfo`: nothing is lost.
    let (mem, model, _) = build();
    mem.corrupt(Path::new("/db/CATALOG"), 10, 1).unwrap();
    let report = repair_on(&mem).unwrap();
    assert!(report.catalog_rebuilt, "{report:?}");
    assert!(
        report.moved_aside[0].0.ends_with("corrupt/CATALOG"),
        "{report:?}"
    );
    assert_eq!(served_after_repair(&mem, &model), model);
    assert!(repair_on(&mem).unwrap().is_clean());
}
