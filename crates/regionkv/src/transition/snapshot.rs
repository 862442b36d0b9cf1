//! Clone and restore from a snapshot (HBase's `CloneSnapshotProcedure` and
//! `RestoreSnapshotProcedure`) as [`RegionTransition`]s. Both give the table new regions
//! (fresh region ids) over the snapshot's key ranges whose storefiles are hard links to
//! the snapshot's, named as links (`crate::file_link`-style names,
//! `regionkv_region::file_link`), so no byte of data is copied and the work is one link
//! per file.
//!
//! * Clone: a create (`CreateTable`, CREATING mark first) whose Stage links the files,
//!   writes each region's manifest and opens it; the commit adds the table ENABLED.
//! * Restore (a disabled table): Stage links the files into new region directories; the
//!   commit replaces the table's regions and descriptor with the snapshot's (still
//!   DISABLED); Cleanup removes the old region directories. Killed before the commit the
//!   table is as it was; after it, as the snapshot: never a mix, because the catalog names
//!   either the old regions or the new ones.
//!
//! A snapshot region that read a parent's file through a reference (a split daughter not
//! yet compacted) keeps the reference: the parent's file is linked into a holder
//! directory of the new table (a region directory without a manifest, named like a region
//! with a fresh id) and the reference points there. The janitor keeps the holder while a
//! listed region refers to it and removes it once compactions have rewritten the
//! references (a directory holding only links is a leftover: its data lives in the
//! snapshot).

use super::create_table::CreateTable;
use super::{RegionTransition, Tx};
use crate::catalog::{Catalog, RegionEntry, TableState};
use crate::db::{RegionServer, TableHandle};
use crate::error::{Error, Result};
use crate::region_map::RegionMapWriteGuard;
use crate::snapshot::{SnapshotDescription, SnapshotManifest, data_path, snapshot_dir};
use crate::table_info::TableInfoState;
use regionkv_region::file_link::FileLink;
use regionkv_region::manifest::{StoreFileMeta, StoreManifest};
use regionkv_region::reference::Reference;
use regionkv_region::{Manifest, RegionInfo, TableDescriptor};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

/// How the snapshot's regions become new regions: one new region per snapshot region (in
/// the same order), one holder per parent region a reference names.
struct LinkPlan {
    /// The snapshot's directory.
    snapshot: PathBuf,
    /// The snapshot's table (the files' identity names it).
    source_table: String,
    /// Per new region: its info and the snapshot region it takes the files of.
    regions: Vec<(RegionInfo, Manifest)>,
    /// Encoded name of a parent region in the snapshot → the holder that takes its files.
    holders: BTreeMap<String, RegionInfo>,
}

impl LinkPlan {
    /// Plans new regions `infos` (one per snapshot region, same order) of `table`, drawing
    /// holder ids from `scratch`.
    fn new(
        db: &RegionServer,
        scratch: &mut Catalog,
        table: &str,
        description: &SnapshotDescription,
        manifest: &SnapshotManifest,
        infos: Vec<RegionInfo>,
    ) -> Self {
        let mut holders = BTreeMap::new();
        for m in &manifest.regions {
            for sm in m.stores.values() {
                for f in &sm.files {
                    if let Some(r) = &f.reference
                        && !holders.contains_key(&r.region)
                    {
                        let info = RegionInfo {
                            table: table.to_string(),
                            start_key: Vec::new(),
                            end_key: Vec::new(),
                            region_id: db.next_region_id(scratch),
                        };
                        holders.insert(r.region.clone(), info);
                    }
                }
            }
        }
        Self {
            snapshot: snapshot_dir(&db.dir, &description.name),
            source_table: description.table.clone(),
            regions: infos.into_iter().zip(manifest.regions.clone()).collect(),
            holders,
        }
    }

    /// The link name of `file` of snapshot region `region`: the name itself when it is a
    /// link already (a snapshot of a clone), so the name always says where the data was
    /// written.
    fn link_name(&self, region: &str, file: &str) -> String {
        if FileLink::parse(file).is_some() {
            return file.to_string();
        }
        FileLink {
            table: self.source_table.clone(),
            region: region.to_string(),
            file: file.to_string(),
        }
        .name()
    }

    /// Stage: links every file into the new regions (and holders) and writes the new
    /// regions' manifests; every directory is recorded first, so a rollback removes it.
    fn stage(&self, tx: &mut Tx<'_>) -> Result<Vec<RegionInfo>> {
        let fs = tx.db.fs.clone();
        let fs = fs.as_ref();
        let mut synced: BTreeSet<PathBuf> = BTreeSet::new();
        let mut link = |from: PathBuf, to: PathBuf| -> Result<()> {
            if let Some(dir) = to.parent()
                && synced.insert(dir.to_path_buf())
            {
                fs.create_dir_all(dir)?;
            }
            if fs.exists(&to)? {
                // A parent's file two references share, linked once.
                return Ok(());
            }
            fs.hard_link(&from, &to)?;
            Ok(())
        };
        for info in self.holders.values() {
            tx.written.push(info.clone());
        }
        let mut staged = Vec::with_capacity(self.regions.len());
        for (info, src) in &self.regions {
            tx.written.push(info.clone());
            let dir = tx.db.region_dir(info);
            if fs.exists(&dir)? {
                fs.remove_dir_all(&dir)?;
            }
            fs.create_dir_all(&dir)?;
            let src_name = src.region.encoded_name();
            let mut stores = BTreeMap::new();
            for (family, sm) in &src.stores {
                let family_name = String::from_utf8_lossy(family).into_owned();
                fs.create_dir_all(&dir.join(&family_name))?;
                let mut files = Vec::with_capacity(sm.files.len());
                for f in &sm.files {
                    let entry = match &f.reference {
                        None => {
                            let name = self.link_name(&src_name, &f.name);
                            link(
                                data_path(&self.snapshot, &src_name, family, &f.name),
                                dir.join(&family_name).join(&name),
                            )?;
                            StoreFileMeta { name, ..f.clone() }
                        }
                        Some(r) => {
                            let holder =
                                self.holders
                                    .get(&r.region)
                                    .ok_or_else(|| Error::Inconsistent {
                                        region: src_name.clone(),
                                        what: format!("no holder planned for parent {}", r.region),
                                    })?;
                            let holder_enc = holder.encoded_name();
                            let name = self.link_name(&r.region, &r.file);
                            link(
                                data_path(&self.snapshot, &r.region, family, &r.file),
                                tx.db.region_dir(holder).join(&family_name).join(&name),
                            )?;
                            StoreFileMeta {
                                name: format!("{name}.{holder_enc}"),
                                reference: Some(Reference {
                                    region: holder_enc,
                                    file: name,
                                    split_row: r.split_row.clone(),
                                    top: r.top,
                                }),
                                ..f.clone()
                            }
                        }
                    };
                    files.push(entry);
                }
                stores.insert(
                    family.clone(),
                    StoreManifest {
                        flushed_seq_id: sm.flushed_seq_id,
                        files,
                    },
                );
            }
            // The links' directory entries are durable before the manifest naming them.
            for family in src.stores.keys() {
                fs.sync_dir(&dir.join(String::from_utf8_lossy(family).as_ref()))?;
            }
            Manifest {
                region: info.clone(),
                next_file_id: src.next_file_id,
                stores,
                wal_mark: None,
            }
            .write(fs, &dir)?;
            staged.push(info.clone());
        }
        for info in self.holders.values() {
            let dir = tx.db.region_dir(info);
            if fs.exists(&dir)? {
                for family in fs.list(&dir)? {
                    fs.sync_dir(&dir.join(family))?;
                }
                fs.sync_dir(&dir)?;
            }
        }
        if let Some(info) = staged.first() {
            let table_dir = tx.db.table_dir(&info.table);
            fs.sync_dir(&table_dir)?;
        }
        Ok(staged)
    }
}

/// The split keys that give a new table the snapshot's region boundaries.
fn split_keys(manifest: &SnapshotManifest) -> Vec<Vec<u8>> {
    manifest
        .regions
        .iter()
        .skip(1)
        .map(|m| m.region.start_key.clone())
        .collect()
}

/// One clone, checked and ready to run.
pub(crate) struct CloneSnapshot {
    create: CreateTable,
    plan: LinkPlan,
}

impl CloneSnapshot {
    /// A clone of snapshot (`description`, `manifest`) as the new table `table` (canonical
    /// name), under the catalog lock (`catalog`): TableExists and NamespaceNotFound as a
    /// create.
    pub(crate) fn prepare(
        db: &RegionServer,
        catalog: &Catalog,
        description: &SnapshotDescription,
        manifest: &SnapshotManifest,
        table: &str,
    ) -> Result<Self> {
        let mut desc = manifest.descriptor.clone();
        desc.name = table.to_string();
        let create = CreateTable::prepare(db, catalog, desc, &split_keys(manifest))?;
        let mut scratch = catalog.clone();
        scratch.next_region_id = create.next_region_id;
        let plan = LinkPlan::new(
            db,
            &mut scratch,
            table,
            description,
            manifest,
            create.infos.clone(),
        );
        let mut create = create;
        create.next_region_id = scratch.next_region_id;
        Ok(Self { create, plan })
    }
}

impl RegionTransition for CloneSnapshot {
    type Output = ();

    fn name(&self) -> &'static str {
        "clone"
    }

    fn stage(&mut self, tx: &mut Tx<'_>) -> Result<()> {
        self.create.mark_creating(tx)?;
        let staged = self.plan.stage(tx)?;
        for info in &staged {
            let region = tx.open_region(info, &self.create.desc)?;
            tx.staged_open(region.clone());
            self.create.regions.push(region);
        }
        Ok(())
    }

    fn next_catalog(&self, current: &Catalog) -> Catalog {
        self.create.next_catalog(current)
    }

    fn publish(&mut self, tx: &mut Tx<'_>) -> Result<()> {
        self.create.publish(tx)
    }

    fn cleanup(&mut self, tx: &Tx<'_>) {
        self.create.cleanup(tx)
    }
}

/// One restore, checked and ready to run.
pub(crate) struct RestoreSnapshot<'a> {
    _slot: RegionMapWriteGuard<'a>,
    handle: &'a TableHandle,
    desc: TableDescriptor,
    old: Vec<RegionInfo>,
    plan: LinkPlan,
    next_region_id: u64,
}

impl<'a> RestoreSnapshot<'a> {
    /// A restore of `handle`'s table (TableNotDisabled unless it is disabled) to the
    /// snapshot (`description`, `manifest`), under the catalog lock (`catalog`).
    pub(crate) fn prepare(
        db: &RegionServer,
        catalog: &Catalog,
        handle: &'a TableHandle,
        description: &SnapshotDescription,
        manifest: &SnapshotManifest,
    ) -> Result<Self> {
        let slot = handle.regions.write();
        if slot.is_some() {
            return Err(Error::TableNotDisabled(handle.name.clone()));
        }
        let old = catalog
            .tables
            .get(&handle.name)
            .ok_or_else(|| Error::TableNotFound(handle.name.clone()))?;
        let mut scratch = catalog.clone();
        let infos = super::new_table_regions(db, &mut scratch, &handle.name, &split_keys(manifest));
        let plan = LinkPlan::new(db, &mut scratch, &handle.name, description, manifest, infos);
        let mut desc = manifest.descriptor.clone();
        desc.name = handle.name.clone();
        Ok(Self {
            _slot: slot,
            handle,
            desc,
            old: old.regions.iter().map(|r| r.info.clone()).collect(),
            plan,
            next_region_id: scratch.next_region_id,
        })
    }
}

impl RegionTransition for RestoreSnapshot<'_> {
    type Output = ();

    fn name(&self) -> &'static str {
        "restore"
    }

    fn stage(&mut self, tx: &mut Tx<'_>) -> Result<()> {
        self.plan.stage(tx)?;
        Ok(())
    }

    fn next_catalog(&self, current: &Catalog) -> Catalog {
        let mut next = current.clone();
        next.next_region_id = next.next_region_id.max(self.next_region_id);
        if let Some(t) = next.tables.get_mut(&self.handle.name) {
            t.descriptor = self.desc.clone();
            t.state = TableState::Disabled;
            t.regions = self
                .plan
                .regions
                .iter()
                .map(|(info, _)| RegionEntry { info: info.clone() })
                .collect();
        }
        next
    }

    fn publish(&mut self, _tx: &mut Tx<'_>) -> Result<()> {
        // The table stays disabled (HBase's restore leaves it so): only its descriptor
        // changes in memory.
        self.handle.descriptor.store(Arc::new(self.desc.clone()));
        Ok(())
    }

    fn cleanup(&mut self, tx: &Tx<'_>) {
        tx.db
            .refresh_table_info(&self.desc, TableInfoState::Disabled);
        super::create_table::remove_region_dirs(tx, &self.old, "restore");
    }
}
