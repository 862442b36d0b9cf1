//! ImportTsv's counters and their printed form: the groups and names a Hadoop job prints
//! when HBase's ImportTsv finishes (`Job.monitorAndPrintJob`), limited to the counters that
//! mean something for an import in one process.

/// What an import counted.
///
/// ```
/// use regionkv_tools::import_tsv::Counters;
///
/// let c = Counters { input_records: 3, output_records: 2, bad_lines: 1, bytes_read: 40 };
/// assert_eq!(
///     c.render(),
///     "Counters: 4\n\
///      \tMap-Reduce Framework\n\
///      \t\tMap input records=3\n\
///      \t\tMap output records=2\n\
///      \tImportTsv\n\
///      \t\tBad Lines=1\n\
///      \tFile Input Format Counters \n\
///      \t\tBytes Read=40\n"
/// );
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Lines read, good and bad ("Map input records").
    pub input_records: u64,
    /// Puts made, one per good line ("Map output records"); in a dry run too.
    pub output_records: u64,
    /// Bad lines skipped (group "ImportTsv", "Bad Lines"). A bad line that fails the import
    /// (`importtsv.skip.bad.lines=false`) is not counted, as in HBase.
    pub bad_lines: u64,
    /// Bytes read from the inputs as stored (compressed for gzip) ("File Input Format
    /// Counters", "Bytes Read").
    pub bytes_read: u64,
}

impl Counters {
    /// Hadoop's counter listing: `Counters: N`, then each group and its counters indented
    /// by tabs. The "ImportTsv" group appears only when a bad line was counted, as Hadoop
    /// lists only counters that were incremented; the trailing blank after "File Input
    /// Format Counters" is Hadoop's.
    pub fn render(&self) -> String {
        let mut groups: Vec<(&str, Vec<(&str, u64)>)> = vec![(
            "Map-Reduce Framework",
            vec![
                ("Map input records", self.input_records),
                ("Map output records", self.output_records),
            ],
        )];
        if self.bad_lines > 0 {
            groups.push(("ImportTsv", vec![("Bad Lines", self.bad_lines)]));
        }
        groups.push((
            "File Input Format Counters ",
            vec![("Bytes Read", self.bytes_read)],
        ));
        let total: usize = groups.iter().map(|(_, c)| c.len()).sum();
        let mut out = format!("Counters: {total}\n");
        for (group, counters) in groups {
            out.push('\t');
            out.push_str(group);
            out.push('\n');
            for (name, value) in counters {
                out.push_str(&format!("\t\t{name}={value}\n"));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_importtsv_group_without_bad_lines() {
        let c = Counters {
            input_records: 2,
            output_records: 2,
            bad_lines: 0,
            bytes_read: 10,
        };
        let text = c.render();
        assert!(text.starts_with("Counters: 3\n"), "{text}");
        assert!(!text.contains("ImportTsv"), "{text}");
    }
}
