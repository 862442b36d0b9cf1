//! regionkv's vocabulary: cells, their key encoding and comparator, time ranges, HBase's
//! `Bytes` conventions, the injectable clock, HBase's limits, and the scanner contract.
//!
//! This crate sits at the bottom of the layering (see `DESIGN.md`) and depends on no other
//! regionkv crate. Everything here is pure computation: no I/O, no threads.
//!
//! ```
//! use regionkv_cell::{Cell, CellType, compare_keys};
//!
//! let newer = Cell::put(b"row1", b"cf", b"q", 2, b"v2")?;
//! let older = Cell::put(b"row1", b"cf", b"q", 1, b"v1")?;
//! // Timestamps sort descending: the newer version comes first.
//! assert!(compare_keys(newer.key_bytes(), older.key_bytes()).is_lt());
//! assert_eq!(older.cell_type(), CellType::Put);
//! # Ok::<(), regionkv_cell::Error>(())
//! ```

#![forbid(unsafe_code)]

pub mod bytes;
mod cell;
mod cell_type;
pub mod clock;
mod error;
pub mod key;
pub mod limits;
mod scanner;
pub mod tag;
mod time_range;

pub use cell::{Cell, CellRef};
pub use cell_type::CellType;
pub use clock::{Clock, IncrementingClock, ManualClock, SharedClock, SystemClock, civil_from_days};
pub use error::{Error, Result};
pub use key::{KeyView, OwnedKey, compare_bytes, compare_keys, compare_rows};
pub use scanner::KeyValueScanner;
pub use time_range::TimeRange;
