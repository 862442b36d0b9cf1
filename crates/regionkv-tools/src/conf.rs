//! Reading `-Dkey=value` properties as a Hadoop `Configuration` does, shared by the tools:
//! the last of a repeated key wins, and booleans are `true`/`false` in any case.

use std::collections::BTreeMap;

/// `-Dkey=value` properties, the last of a repeated key winning.
#[derive(Debug, Default, Clone)]
pub(crate) struct Properties(BTreeMap<String, String>);

impl Properties {
    /// Collects `properties` in order.
    pub(crate) fn new<I, K, V>(properties: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut map = BTreeMap::new();
        for (k, v) in properties {
            map.insert(k.as_ref().to_string(), v.as_ref().to_string());
        }
        Properties(map)
    }

    /// The value of `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    /// Every key, in byte order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }
}

/// Hadoop's `Configuration.getBoolean`: `true`/`false` in any case, surrounding blanks
/// ignored; anything else is the default (and a note here, where Hadoop is silent).
pub(crate) fn boolean(
    key: &str,
    value: Option<&str>,
    default: bool,
    notes: &mut Vec<String>,
) -> bool {
    let Some(v) = value else { return default };
    match v.trim().to_ascii_lowercase().as_str() {
        "true" => true,
        "false" => false,
        _ => {
            notes.push(format!(
                "-D{key}={v} is neither true nor false; using the default ({default})"
            ));
            default
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_key_wins_and_booleans_read_as_hadoop_does() {
        let p = Properties::new([("a", "1"), ("b", "x"), ("a", "2")]);
        assert_eq!(p.get("a"), Some("2"));
        assert_eq!(p.keys().collect::<Vec<_>>(), ["a", "b"]);
        let mut notes = Vec::new();
        assert!(boolean("k", Some(" TRUE "), false, &mut notes));
        assert!(!boolean("k", Some("False"), true, &mut notes));
        assert!(notes.is_empty());
        assert!(boolean("k", Some("yes"), true, &mut notes));
        assert_eq!(
            notes,
            ["-Dk=yes is neither true nor false; using the default (true)"]
        );
        assert!(!boolean("k", None, false, &mut notes));
    }
}
