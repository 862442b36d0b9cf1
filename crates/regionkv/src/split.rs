//! HBase's split vocabulary, for pre-splitting tables and choosing how they split: the
//! `RegionSplitter` algorithms ([`SplitAlgorithm`], for
//! [`Admin::create_table_with_algorithm`](crate::Admin::create_table_with_algorithm)),
//! the split policies a table's SPLIT_POLICY names ([`SplitPolicy`], from
//! [`TableDescriptor::split_policy`](crate::TableDescriptor::split_policy)), the table
//! values and configuration keys the policies read, and the error of these computations
//! ([`SplitError`], which the facade reports as
//! [`Error::InvalidSplit`](crate::Error::InvalidSplit)).
//!
//! ```
//! use regionkv::split::{PREFIX_LENGTH_KEY, SplitAlgorithm, SplitPolicy};
//! use regionkv::{ColumnFamilyDescriptor, TableDescriptor};
//!
//! let keys = SplitAlgorithm::hex_string().split(4)?;
//! assert_eq!(keys, [b"40000000".to_vec(), b"80000000".to_vec(), b"c0000000".to_vec()]);
//!
//! let mut desc = TableDescriptor::new("t", vec![ColumnFamilyDescriptor::new(b"cf")?])?;
//! desc.set_attribute("SPLIT_POLICY", "KeyPrefixRegionSplitPolicy")?;
//! desc.metadata.insert(PREFIX_LENGTH_KEY.into(), "2".into());
//! assert!(matches!(desc.split_policy()?, SplitPolicy::KeyPrefix { prefix_length: 2, .. }));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use regionkv_region::split::policy::{
    BUSY_AGG_WINDOW_KEY, BUSY_BLOCKED_REQUESTS_KEY, BUSY_MIN_AGE_KEY, DELIMITED_BASE_POLICY_KEY,
    DELIMITER_KEY, INITIAL_SIZE_KEY, KEY_PREFIX_BASE_POLICY_KEY, MAX_FILESIZE_JITTER_KEY,
    OVERALL_FILES_KEY, PREFIX_LENGTH_KEY, PREFIX_LENGTH_KEY_DEPRECATED,
};
pub use regionkv_region::split::{SplitAlgorithm, SplitAlgorithmKind, SplitError, SplitPolicy};
