//! Coprocessors: the `coprocessor$N` specs of a table (from `regionkv_region::coprocessor`,
//! re-exported here) and region observers, HBase's `RegionObserver` hooks on the client
//! operations of a region. The rules are HBase's (`docs/hbase-coprocessors.md`, section 1);
//! where the hooks are called and what differs is in `docs/coprocessors.md` and the design
//! record `docs/decisions/2026-11-28-region-observers.md`.
//!
//! A program registers an observer class by name ([`crate::DbOptions::coprocessor`]); a
//! table loads it when one of its `coprocessor$N` specs names that class. Each region
//! makes its own instance from the factory (HBase makes one environment per region), the
//! first time an operation reaches the region, so a split's daughters and a reopened
//! region start with fresh instances. Observers run in the specs' order: priority, then N.
//!
//! Errors: a hook's [`CoprocessorError`] fails the operation with
//! [`crate::Error::Coprocessor`] (HBase's IOException from a hook; the region keeps
//! serving). A hook that panics is removed from that region's observers and the operation
//! fails with [`crate::Error::CoprocessorRemoved`], HBase's behaviour with
//! `hbase.coprocessor.abortonerror=false` (its default, aborting the region server, has no
//! meaning for an embedded engine).

pub use regionkv_region::coprocessor::*;

use crate::error::{Error, Result};
use crate::mutation::{Append, CheckAndMutate, Delete, Increment, Put};
use crate::read::{Get, RowResult, Scan};
use crate::table::CheckAndMutateResult;
use arc_swap::ArcSwap;
use regionkv_cell::Cell;
use regionkv_region::{Region, RegionInfo};
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, OnceLock, Weak};

/// What a hook returns: its value, or an error the client sees (HBase's IOException).
pub type CoprocessorResult<T> = std::result::Result<T, CoprocessorError>;

/// An error a hook returns: the operation fails with it (HBase's IOException thrown by a
/// coprocessor), and the region keeps serving.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct CoprocessorError {
    message: String,
    /// The constraint class, when this is a constraint's violation.
    constraint: Option<String>,
}

impl CoprocessorError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            constraint: None,
        }
    }

    /// A constraint's violation (HBase's `ConstraintException`): the operation fails with
    /// [`Error::ConstraintViolation`].
    pub fn constraint(class: &str, message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            constraint: Some(class.to_string()),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// What an observer instance knows of where it runs (HBase's
/// `RegionCoprocessorEnvironment`).
#[derive(Debug, Clone)]
pub struct RegionEnvironment {
    /// The table.
    pub table: String,
    /// The region's name (`table,start key,id.encoded.`).
    pub region_name: String,
    /// The region's first row (empty: the table's start).
    pub start_key: Vec<u8>,
    /// The row after the region (empty: the table's end).
    pub end_key: Vec<u8>,
    /// The spec that loaded the observer (its priority and `k=v` parameters).
    pub spec: CoprocessorSpec,
    /// The Db the region belongs to, held weakly (an observer lives inside the Db), in the
    /// cell the Db fills once it is built: a region may load its observers before that
    /// (a flush or compaction while the Db opens), so the cell is read per call.
    connection: Arc<OnceLock<Weak<crate::db::RegionServer>>>,
}

impl RegionEnvironment {
    /// A handle on the Db the region belongs to, for an observer that writes or reads
    /// other tables (HBase's `env.getConnection()`); `None` once the Db is closed or
    /// closing (and while it is still opening). The handle does not keep the Db open:
    /// when the program's last handle drops, the Db closes and calls through this one
    /// fail with [`crate::Error::Closed`].
    pub fn connection(&self) -> Option<crate::Db> {
        let server = self.connection.get()?.upgrade()?;
        let db = crate::db::Db::connection_to(server);
        (!db.is_closed()).then_some(db)
    }
}

/// The context of one hook call (HBase's `ObserverContext`).
#[derive(Debug)]
pub struct ObserverContext<'a> {
    env: &'a RegionEnvironment,
    bypass: bool,
}

impl ObserverContext<'_> {
    /// Where the observer runs.
    pub fn environment(&self) -> &RegionEnvironment {
        self.env
    }

    /// Skips the operation and the observers after this one (HBase's `bypass()`). Only
    /// the bypassable hooks honour it; on another, the operation fails with an error, as
    /// HBase's `UnsupportedOperationException` does under `abortonerror=false`.
    pub fn bypass(&mut self) {
        self.bypass = true;
    }
}

/// HBase's `RegionObserver`: hooks around a region's client operations. Every hook has a
/// default that does nothing. A pre hook runs before the operation touches the region (for
/// writes, before the row lock and the family checks) and may change the request; a post
/// hook runs after the operation's effect is durable and visible (its error reaches the
/// client although the write happened, as in HBase).
///
/// The bypassable hooks (HBase's): `pre_put`, `pre_delete` (the write is skipped, the
/// client sees success, the post hook still runs), `pre_get` (the cells the hook left in
/// `result` are the answer, `post_get` does not run), `pre_increment` and `pre_append`
/// (only with a result: the hook's result is the answer), `pre_check_and_mutate` (only
/// with a result).
#[allow(unused_variables)]
pub trait RegionObserver: Send + Sync {
    /// Before a put (HBase's `prePut`). Bypassable.
    fn pre_put(&self, ctx: &mut ObserverContext<'_>, put: &mut Put) -> CoprocessorResult<()> {
        Ok(())
    }
    /// After a put, or a bypassed one (HBase's `postPut`).
    fn post_put(&self, ctx: &mut ObserverContext<'_>, put: &Put) -> CoprocessorResult<()> {
        Ok(())
    }
    /// Before a delete (HBase's `preDelete`). Bypassable.
    fn pre_delete(
        &self,
        ctx: &mut ObserverContext<'_>,
        delete: &mut Delete,
    ) -> CoprocessorResult<()> {
        Ok(())
    }
    /// After a delete, or a bypassed one (HBase's `postDelete`).
    fn post_delete(&self, ctx: &mut ObserverContext<'_>, delete: &Delete) -> CoprocessorResult<()> {
        Ok(())
    }
    /// Before a get (HBase's `preGetOp`): cells left in `result` come before the region's
    /// own; with `bypass`, they are the whole answer.
    fn pre_get(
        &self,
        ctx: &mut ObserverContext<'_>,
        get: &Get,
        result: &mut Vec<Cell>,
    ) -> CoprocessorResult<()> {
        Ok(())
    }
    /// After a get (HBase's `postGetOp`): may change the answer.
    fn post_get(
        &self,
        ctx: &mut ObserverContext<'_>,
        get: &Get,
        result: &mut Vec<Cell>,
    ) -> CoprocessorResult<()> {
        Ok(())
    }
    /// Before a scan reads this region (HBase's `preScannerOpen`): may change the scan.
    fn pre_scanner_open(
        &self,
        ctx: &mut ObserverContext<'_>,
        scan: &mut Scan,
    ) -> CoprocessorResult<()> {
        Ok(())
    }
    /// Before an increment (HBase's `preIncrement`). With `bypass` and `Some`, the result
    /// is the answer and nothing is written.
    fn pre_increment(
        &self,
        ctx: &mut ObserverContext<'_>,
        increment: &mut Increment,
    ) -> CoprocessorResult<Option<RowResult>> {
        Ok(None)
    }
    /// After an increment (HBase's `postIncrement`): returns the answer (chained).
    fn post_increment(
        &self,
        ctx: &mut ObserverContext<'_>,
        increment: &Increment,
        result: RowResult,
    ) -> CoprocessorResult<RowResult> {
        Ok(result)
    }
    /// Before an append (HBase's `preAppend`); as [`Self::pre_increment`].
    fn pre_append(
        &self,
        ctx: &mut ObserverContext<'_>,
        append: &mut Append,
    ) -> CoprocessorResult<Option<RowResult>> {
        Ok(None)
    }
    /// After an append (HBase's `postAppend`): returns the answer (chained).
    fn post_append(
        &self,
        ctx: &mut ObserverContext<'_>,
        append: &Append,
        result: RowResult,
    ) -> CoprocessorResult<RowResult> {
        Ok(result)
    }
    /// Before a flush of the region (HBase's region-level `preFlush`): an error fails the
    /// flush before anything is taken (it is retried later, as any failed flush).
    fn pre_flush(&self, ctx: &mut ObserverContext<'_>) -> CoprocessorResult<()> {
        Ok(())
    }
    /// After a flush committed `file` of `family` (HBase's `postFlush`): an error is
    /// logged, the flush stands.
    fn post_flush(
        &self,
        ctx: &mut ObserverContext<'_>,
        family: &[u8],
        file: &str,
    ) -> CoprocessorResult<()> {
        Ok(())
    }
    /// Each row a compaction of `family` is about to write (HBase's `preCompact`, whose
    /// scanner wrapper sees the cells a compaction writes): the hook may change or drop
    /// cells, and what it drops is gone for good. Cells must stay in key order and in
    /// the row; an error fails the compaction, whose inputs stay.
    fn pre_compact(
        &self,
        ctx: &mut ObserverContext<'_>,
        family: &[u8],
        major: bool,
        row: &mut Vec<Cell>,
    ) -> CoprocessorResult<()> {
        Ok(())
    }
    /// After a compaction of `family` committed `file` (`None`: it wrote nothing; HBase's
    /// `postCompact`): an error is logged, the compaction stands.
    fn post_compact(
        &self,
        ctx: &mut ObserverContext<'_>,
        family: &[u8],
        file: Option<&str>,
    ) -> CoprocessorResult<()> {
        Ok(())
    }
    /// Before this region splits at `split_row` (HBase 2 has it on the master:
    /// `MasterObserver#preSplitRegionAction`): an error refuses the split, which a user
    /// request sees and an automatic one logs. Runs for requested and automatic splits,
    /// without the Db's catalog lock, so the hook may use [`RegionEnvironment::connection`].
    fn pre_split(&self, ctx: &mut ObserverContext<'_>, split_row: &[u8]) -> CoprocessorResult<()> {
        Ok(())
    }
    /// After this region split into `daughters` (HBase's
    /// `MasterObserver#postCompletedSplitRegionAction`); the daughters serve with fresh
    /// instances. An error is logged, the split stands.
    fn post_split(
        &self,
        ctx: &mut ObserverContext<'_>,
        daughters: &[RegionInfo; 2],
    ) -> CoprocessorResult<()> {
        Ok(())
    }
    /// Before `regions` (sorted, this one first) merge (HBase's
    /// `MasterObserver#preMergeRegionsAction`); called on the first region's observers
    /// only. An error refuses the merge.
    fn pre_merge(
        &self,
        ctx: &mut ObserverContext<'_>,
        regions: &[RegionInfo],
    ) -> CoprocessorResult<()> {
        Ok(())
    }
    /// After `regions` merged into `merged` (HBase's
    /// `MasterObserver#postCompletedMergeRegionsAction`), on the first region's
    /// observers. An error is logged, the merge stands.
    fn post_merge(
        &self,
        ctx: &mut ObserverContext<'_>,
        regions: &[RegionInfo],
        merged: &RegionInfo,
    ) -> CoprocessorResult<()> {
        Ok(())
    }
    /// Before a check-and-mutate takes the row lock (HBase's `preCheckAndMutate`). With
    /// `bypass` and `Some`, the result is the answer and nothing is checked or written.
    fn pre_check_and_mutate(
        &self,
        ctx: &mut ObserverContext<'_>,
        check: &CheckAndMutate,
    ) -> CoprocessorResult<Option<CheckAndMutateResult>> {
        Ok(None)
    }
    /// After a check-and-mutate (HBase's `postCheckAndMutate`): returns the answer.
    fn post_check_and_mutate(
        &self,
        ctx: &mut ObserverContext<'_>,
        check: &CheckAndMutate,
        result: CheckAndMutateResult,
    ) -> CoprocessorResult<CheckAndMutateResult> {
        Ok(result)
    }
}

/// Makes a region's instance of an observer class.
pub type ObserverFactory = Arc<dyn Fn(&RegionEnvironment) -> Arc<dyn RegionObserver> + Send + Sync>;

/// The observer and constraint classes a program registered, by class name.
#[derive(Clone, Default)]
pub struct CoprocessorRegistry {
    classes: BTreeMap<String, ObserverFactory>,
    pub(crate) constraints: BTreeMap<String, crate::constraint::ConstraintFactory>,
    /// The Db this registry serves, set once it is built ([`Self::for_db`] gives each
    /// open its own cell, so options reused for a second Db do not reach the first).
    link: Arc<OnceLock<Weak<crate::db::RegionServer>>>,
}

impl std::fmt::Debug for CoprocessorRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CoprocessorRegistry")
            .field("observers", &self.classes.keys().collect::<Vec<_>>())
            .field("constraints", &self.constraints.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl CoprocessorRegistry {
    /// This registry for one Db being opened: the same classes, a fresh link to the Db.
    pub(crate) fn for_db(&self) -> Self {
        Self {
            link: Arc::default(),
            ..self.clone()
        }
    }

    /// Links the registry to its Db (once, when the Db is built).
    pub(crate) fn link(&self, server: &Arc<crate::db::RegionServer>) {
        let _ = self.link.set(Arc::downgrade(server));
    }

    /// Registers `class_name` (replacing an earlier registration of it).
    pub fn register(&mut self, class_name: &str, factory: ObserverFactory) {
        self.classes.insert(class_name.to_string(), factory);
    }

    /// Registers a constraint class (replacing an earlier registration of it).
    pub fn register_constraint(
        &mut self,
        class_name: &str,
        factory: crate::constraint::ConstraintFactory,
    ) {
        self.constraints.insert(class_name.to_string(), factory);
    }

    /// True when `class_name` names an observer the program registered or one regionkv
    /// ships (the constraint processor).
    pub fn is_observer(&self, class_name: &str) -> bool {
        self.classes.contains_key(class_name) || class_name == CONSTRAINT_PROCESSOR
    }

    /// True when a spec naming `class_name` can load: a class regionkv ships or one the
    /// program registered.
    pub fn is_loadable(&self, class_name: &str) -> bool {
        BUILTIN_CLASSES.contains(&class_name) || self.classes.contains_key(class_name)
    }

    /// The host of a region of `desc`: an instance of each registered observer class its
    /// specs name, in run order. `None` when there is none (the common case: no hook,
    /// no cost).
    fn host_for(&self, region: &Region) -> Option<RegionCoprocessorHost> {
        let info = region.info();
        let observers: Vec<Loaded> = region
            .table()
            .coprocessors()
            .into_iter()
            .filter_map(|(_, spec)| {
                let factory = self.classes.get(&spec.class_name);
                if factory.is_none() && spec.class_name != CONSTRAINT_PROCESSOR {
                    return None;
                }
                let env = RegionEnvironment {
                    table: info.table.clone(),
                    region_name: info.region_name(),
                    start_key: info.start_key.clone(),
                    end_key: info.end_key.clone(),
                    spec,
                    connection: self.link.clone(),
                };
                let observer = match factory {
                    Some(factory) => factory(&env),
                    None => crate::constraint::processor(region.table(), self),
                };
                Some(Loaded {
                    env: Arc::new(env),
                    observer,
                })
            })
            .collect();
        (!observers.is_empty()).then(|| RegionCoprocessorHost {
            observers: ArcSwap::from_pointee(observers),
        })
    }
}

/// One loaded observer of a region.
#[derive(Clone)]
struct Loaded {
    env: Arc<RegionEnvironment>,
    observer: Arc<dyn RegionObserver>,
}

/// The observers of one region (HBase's `RegionCoprocessorHost`). Read without a lock on
/// every hook call (each client operation of a table with observers makes several);
/// replaced whole when a panicking observer is removed.
pub(crate) struct RegionCoprocessorHost {
    observers: ArcSwap<Vec<Loaded>>,
}

/// Whether a hook may be bypassed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bypass {
    /// The hook honours `bypass`.
    Allowed,
    /// `bypass` is an error.
    Refused,
}

impl RegionCoprocessorHost {
    /// The host of `region`, made on first use and kept with the region (`None` when the
    /// table loads no observer class).
    pub(crate) fn of(registry: &CoprocessorRegistry, region: &Region) -> Option<Arc<Self>> {
        let slot = region.coprocessor_slot().get_or_init(|| {
            let host: Option<Arc<Self>> = registry.host_for(region).map(Arc::new);
            Arc::new(host)
        });
        slot.downcast_ref::<Option<Arc<Self>>>().cloned().flatten()
    }

    /// Runs `hook` on each observer in order. Returns true when one bypassed (the rest
    /// were not called). A hook's error, a bypass where it is refused, and a panic end
    /// the walk with the error the client sees; a panicking observer is removed.
    pub(crate) fn exec(
        &self,
        bypass: Bypass,
        mut hook: impl FnMut(&dyn RegionObserver, &mut ObserverContext<'_>) -> CoprocessorResult<()>,
    ) -> Result<bool> {
        let observers = self.observers.load_full();
        for loaded in observers.iter() {
            let mut ctx = ObserverContext {
                env: &loaded.env,
                bypass: false,
            };
            let class = &loaded.env.spec.class_name;
            match catch_unwind(AssertUnwindSafe(|| hook(&*loaded.observer, &mut ctx))) {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    return Err(match e.constraint {
                        Some(constraint) => Error::ConstraintViolation {
                            constraint,
                            message: e.message,
                        },
                        None => Error::Coprocessor {
                            class: class.clone(),
                            message: e.message,
                        },
                    });
                }
                Err(panic) => {
                    let cause = panic_text(&panic);
                    self.observers.rcu(|now| {
                        now.iter()
                            .filter(|l| !Arc::ptr_eq(&l.observer, &loaded.observer))
                            .cloned()
                            .collect::<Vec<_>>()
                    });
                    tracing::error!(class = %class, cause = %cause, region = %loaded.env.region_name,
                        "coprocessor panicked; removed from the region's active set");
                    return Err(Error::CoprocessorRemoved {
                        class: class.clone(),
                        cause,
                    });
                }
            }
            if ctx.bypass {
                return match bypass {
                    Bypass::Allowed => Ok(true),
                    Bypass::Refused => Err(Error::Coprocessor {
                        class: class.clone(),
                        message: "This method does not support 'bypass'.".into(),
                    }),
                };
            }
        }
        Ok(false)
    }
}

impl crate::db::RegionServer {
    /// The observers of `region`, when its table loads any.
    pub(crate) fn observers_of(&self, region: &Region) -> Option<Arc<RegionCoprocessorHost>> {
        RegionCoprocessorHost::of(&self.coprocessors, region)
    }
}

/// The message of a panic payload.
fn panic_text(payload: &Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string())
}

/// A region's observers as the hooks of its flushes and compactions (what the region
/// crate calls, `regionkv_region::coprocessor::RegionHooks`).
pub(crate) struct HostHooks(pub(crate) Arc<RegionCoprocessorHost>);

impl std::fmt::Debug for HostHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let classes: Vec<String> = self
            .0
            .observers
            .load()
            .iter()
            .map(|l| l.env.spec.class_name.clone())
            .collect();
        f.debug_tuple("HostHooks").field(&classes).finish()
    }
}

/// The failure a region reports for a hook's error.
fn failure(e: Error) -> HookFailure {
    match e {
        Error::Coprocessor { class, message } => HookFailure { class, message },
        e @ Error::CoprocessorRemoved { .. } => HookFailure {
            class: match &e {
                Error::CoprocessorRemoved { class, .. } => class.clone(),
                _ => String::new(),
            },
            message: e.to_string(),
        },
        other => HookFailure {
            class: String::new(),
            message: other.to_string(),
        },
    }
}

impl RegionHooks for HostHooks {
    fn pre_flush(&self) -> std::result::Result<(), HookFailure> {
        self.0
            .exec(Bypass::Refused, |o, c| o.pre_flush(c))
            .map(drop)
            .map_err(failure)
    }

    fn post_flush(&self, family: &[u8], file: &str) {
        if let Err(e) = self
            .0
            .exec(Bypass::Refused, |o, c| o.post_flush(c, family, file))
        {
            tracing::warn!(error = %e, "post_flush hook failed; the flush stands");
        }
    }

    fn compaction_row(
        &self,
        family: &[u8],
        major: bool,
        cells: &mut Vec<Cell>,
    ) -> std::result::Result<(), HookFailure> {
        self.0
            .exec(Bypass::Refused, |o, c| {
                o.pre_compact(c, family, major, cells)
            })
            .map(drop)
            .map_err(failure)
    }

    fn post_compact(&self, family: &[u8], file: Option<&str>) {
        if let Err(e) = self
            .0
            .exec(Bypass::Refused, |o, c| o.post_compact(c, family, file))
        {
            tracing::warn!(error = %e, "post_compact hook failed; the compaction stands");
        }
    }
}
