//! Scanning a store: the merging heap over memstore segments and storefiles.

pub mod heap;
