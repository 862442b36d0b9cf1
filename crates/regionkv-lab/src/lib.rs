//! The schema-design lab (issue 26): run a rowkey design against a workload offline,
//! through the real engine, and see its hotspots, splits and cost.
//!
//! [`expr`] is the rowkey expression language designs are written in; [`design`] the
//! design files (families and options, pre-splits, split policy, in HBase's attribute
//! names); [`workload`] the records and reads (YCSB's distributions, sequences, event
//! times at a rate over simulated time, read mixes, replayed keys); [`query`] turns a read
//! stated in fields into the gets and scans a design's key allows; [`simulate`] runs it
//! all through a Db on a simulated clock and counts per region and time slice; [`skew`]
//! and [`heatmap`] are the figures and Key Visualizer's axes; [`report`] the HTML page;
//! [`lint`] the literature's rules; [`live`] a live table's recorded activity as a
//! report (the shell's `lab_report`); [`splits`], [`export`] and [`sizing`] carry a design
//! to a real cluster (split points, the shell's `create`, RegionServer sizing).

pub mod design;
pub mod export;
pub mod expr;
pub mod heatmap;
pub mod lint;
pub mod live;
pub mod query;
pub mod report;
pub mod simulate;
pub mod sizing;
pub mod skew;
pub mod splits;
pub mod workload;
