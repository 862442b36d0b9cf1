//! Reading a store: the merging heap over memstore segments and storefiles, the query
//! matcher with its delete and column trackers, and the store scanner that drives them.

pub mod column_tracker;
pub mod delete_tracker;
pub mod heap;
pub mod query_matcher;
pub mod store_scanner;
