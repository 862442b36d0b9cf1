//! The schema-design lab (issue 26, in progress): run a rowkey design against a workload
//! offline, through the real engine, and see its hotspots, splits and cost.
//!
//! Built so far: [`expr`], the rowkey expression language designs are written in;
//! [`design`], the design files (the table's families and options, pre-splits and split
//! policy, in HBase's own attribute names); [`export`], the HBase shell script that
//! creates a design's table on a real cluster (`regionkv lab export`); [`sizing`],
//! RegionServer sizing by the reference guide's formulas (`regionkv lab sizing`);
//! [`splits`], pre-split points from sampled keys (`regionkv lab splits`); and [`lint`],
//! the literature's rules a design alone decides (`regionkv lab lint`); [`workload`],
//! the records keys are made from (YCSB's distributions, sequences, event times at a
//! rate over simulated time; `regionkv lab keys`); [`skew`], the skew measures of a
//! load over regions (max/mean, CoV, Gini, HBase's balancer cost); and [`heatmap`], Key
//! Visualizer's axes (key buckets of equal row count, time slices) and counts. `simulate`,
//! reports, `compare` and the workload's lint rules follow.

pub mod design;
pub mod export;
pub mod expr;
pub mod heatmap;
pub mod lint;
pub mod sizing;
pub mod skew;
pub mod splits;
pub mod workload;
