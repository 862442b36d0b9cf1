//! Shared by the table-driven tests over `testdata/policy-vectors.json` (HBase's own test
//! expectations): loading the file and tallying each group of cases.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

/// The vectors file, copied from ../shared/vectors.
pub const VECTORS: &str = include_str!("../testdata/policy-vectors.json");

/// Parses the groups a test needs (`T` names them as fields) and checks that the copy kept
/// its description.
pub fn load<T: serde::de::DeserializeOwned>() -> T {
    let raw: serde_json::Value = serde_json::from_str(VECTORS).expect("policy-vectors.json parses");
    assert!(
        raw["description"]
            .as_str()
            .is_some_and(|d| d.contains("HBase")),
        "the copied description is kept"
    );
    serde_json::from_value(raw).expect("policy-vectors.json has the expected shape")
}

/// Asserts that every case ran and none failed, and prints the tally.
pub fn finish(group: &str, counts: &BTreeMap<String, usize>, ran: usize, failures: &[String]) {
    println!("{group}: {}/{ran} passed", ran - failures.len());
    assert!(
        failures.is_empty(),
        "{group}: {} of {ran} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(Some(&ran), counts.get(group), "{group}: case count");
}
