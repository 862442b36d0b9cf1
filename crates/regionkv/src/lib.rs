//! regionkv: an embedded LSM storage engine that behaves like the regions of an Apache
//! HBase 2.x table. This facade is what users depend on; the table API grows here under
//! the Table API issue. For now it re-exports the cell vocabulary.

#![forbid(unsafe_code)]

pub use regionkv_cell as cell;
pub use regionkv_cell::{Cell, CellType, Clock, ManualClock, SystemClock, TimeRange};
