//! Region and Store: memstore plus storefiles per family, query matching, flush,
//! compaction, split and recovery. Built under the read-path, compaction and region
//! issues; this crate reserves its place in the layering.
