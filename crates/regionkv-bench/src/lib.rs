//! regionkv's benchmark harness, a product feature: HBase's PerformanceEvaluation
//! ([`pe`]) and YCSB's core workloads A–F ([`ycsb`]) run in-process against regionkv and,
//! under the `peers` feature, RocksDB and fjall ([`engine`]), with latency histograms
//! (hdrhistogram) and the output shapes of the tools they copy. The `regionkv pe` and
//! `regionkv ycsb` commands of the `regionkv` binary are thin wrappers around this crate.
//!
//! ```no_run
//! use regionkv_bench::pe::{PeCommand, PeOptions};
//!
//! let mut opts = PeOptions::default();
//! opts.rows = 10_000;
//! opts.data = std::path::PathBuf::from("/tmp/pe-data");
//! let report = regionkv_bench::pe::run(PeCommand::RandomWrite, 2, &opts)?;
//! println!("{}", report.total_ops_per_sec());
//! # Ok::<(), regionkv_bench::Error>(())
//! ```

pub mod compare;
pub mod engine;
pub mod generator;
pub mod pe;
#[cfg(feature = "peers")]
pub mod peers;
pub mod stats;
pub mod ycsb;

/// Errors of a benchmark run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad options or arguments.
    #[error("{0}")]
    Usage(String),
    /// regionkv failed.
    #[error(transparent)]
    Regionkv(#[from] regionkv::Error),
    /// A peer engine failed.
    #[error("{0}")]
    Engine(String),
    /// I/O outside the engines (reports, /proc).
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
