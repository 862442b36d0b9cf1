//! `regionkv lab`: the schema-design lab (see `regionkv_lab` and, as it grows, docs/lab.md).
//! Today: `lab export DESIGN`, the HBase shell script creating a design's table, and
//! `lab sizing`, RegionServer sizing by the reference guide's formulas, and `lab splits`,
//! pre-split points from sampled keys, `lab lint`, the literature's rules, and `lab keys`,
//! the keys a design makes from a workload.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// `regionkv lab`.
#[derive(Debug, clap::Args)]
pub struct LabArgs {
    #[command(subcommand)]
    command: LabCommand,
}

#[derive(Debug, clap::Subcommand)]
enum LabCommand {
    /// Print the HBase shell script that creates DESIGN's table (families, options,
    /// pre-splits) on a real cluster
    Export {
        /// The design file (TOML)
        design: PathBuf,
    },
    /// HBase RegionServer sizing: regions per server, disk/heap ratio, servers needed,
    /// split sizes (the reference guide's and Hofhansl's formulas)
    Sizing(SizingArgs),
    /// Pre-split points from a sample of real keys (their quantiles; salt buckets kept
    /// whole when the design's key starts with one), as an HBase shell `create` line and a
    /// SPLITS_FILE
    Splits(SplitsArgs),
    /// The HBase literature's rules on DESIGN: findings with severity, source and fix (exit
    /// status 1 when one is an error)
    Lint {
        /// The design file (TOML)
        design: PathBuf,
    },
    /// The first keys DESIGN makes from WORKLOAD's records, one a line (as HBase's
    /// Bytes.toStringBinary prints them)
    Keys {
        /// The design file (TOML)
        design: PathBuf,
        /// The workload file (TOML)
        #[arg(long)]
        workload: PathBuf,
        /// How many
        #[arg(long, default_value_t = 10)]
        limit: u64,
    },
}

/// `lab splits`.
#[derive(Debug, clap::Args)]
struct SplitsArgs {
    /// Sampled row keys, one a line (`\xHH` escapes, as Bytes.toBytesBinary), or a CSV
    /// file with --csv-column; without it, the keys of --design over --workload
    #[arg(long, required_unless_present = "workload")]
    keys: Option<PathBuf>,
    /// The workload whose records make the design's keys (instead of --keys)
    #[arg(long, requires = "design", conflicts_with = "keys")]
    workload: Option<PathBuf>,
    /// Take the keys from this 0-based column of a comma-separated file
    #[arg(long = "csv-column")]
    csv_column: Option<usize>,
    /// How many regions
    #[arg(long)]
    regions: usize,
    /// The design: its table and families for the `create` line, its salt for alignment
    #[arg(long)]
    design: Option<PathBuf>,
    /// Also write the points to this SPLITS_FILE
    #[arg(long = "splits-file")]
    splits_file: Option<PathBuf>,
}

/// `lab sizing` (sizes take k/m/g/t suffixes, binary multiples).
#[derive(Debug, clap::Args)]
struct SizingArgs {
    /// RegionServer heap
    #[arg(long, default_value = "16g")]
    heap: String,
    /// hbase.regionserver.global.memstore.size
    #[arg(long = "memstore-fraction", default_value_t = 0.4)]
    memstore_fraction: f64,
    /// hbase.hregion.memstore.flush.size
    #[arg(long = "flush-size", default_value = "128m")]
    flush_size: String,
    /// Column families written per region
    #[arg(long, default_value_t = 1)]
    families: u32,
    /// Region size (MAX_FILESIZE)
    #[arg(long = "region-size", default_value = "10g")]
    region_size: String,
    /// HDFS replication
    #[arg(long, default_value_t = 3)]
    replication: u32,
    /// Data to store, before replication (e.g. 20t)
    #[arg(long)]
    data: Option<String>,
    /// Write rate, bytes per second (e.g. 50m)
    #[arg(long = "write-rate")]
    write_rate: Option<String>,
}

/// Runs `regionkv lab`.
pub fn run(args: &LabArgs) -> ExitCode {
    let result = match &args.command {
        LabCommand::Export { design } => regionkv_lab::design::Design::load(design)
            .map_err(|e| e.to_string())
            .and_then(|d| regionkv_lab::export::shell_script(&d)),
        LabCommand::Sizing(a) => sizing(a),
        LabCommand::Splits(a) => splits(a),
        LabCommand::Lint { design } => return lint(design),
        LabCommand::Keys {
            design,
            workload,
            limit,
        } => keys(design, workload, *limit),
    };
    match result {
        Ok(text) => {
            let mut out = std::io::stdout().lock();
            if out
                .write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .is_err()
            {
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ERROR: {e}");
            ExitCode::FAILURE
        }
    }
}

fn sizing(a: &SizingArgs) -> Result<String, String> {
    use regionkv_lab::sizing::{SizingInput, human, parse_size, size};
    let input = SizingInput {
        heap: parse_size(&a.heap)?,
        memstore_fraction: a.memstore_fraction,
        flush_size: parse_size(&a.flush_size)?,
        families: a.families,
        region_size: parse_size(&a.region_size)?,
        replication: a.replication,
        data: a.data.as_deref().map(parse_size).transpose()?.unwrap_or(0),
        write_rate: a
            .write_rate
            .as_deref()
            .map(parse_size)
            .transpose()?
            .unwrap_or(0) as f64,
    };
    let s = size(&input)?;
    let mut out = String::new();
    let mut line = |k: &str, v: String| out.push_str(&format!("{k:<34} {v}\n"));
    line(
        "regions per server",
        format!(
            "{} (heap {} x {} / (flush {} x {} families))",
            s.regions_per_server,
            human(input.heap),
            input.memstore_fraction,
            human(input.flush_size),
            input.families
        ),
    );
    line(
        "disk / heap",
        format!(
            "{:.1} (region {} / flush {} x replication {} x {}): {} of raw disk",
            s.disk_to_heap,
            human(input.region_size),
            human(input.flush_size),
            input.replication,
            input.memstore_fraction,
            human((input.heap as f64 * s.disk_to_heap) as u64)
        ),
    );
    line(
        "data per server",
        format!("{} before replication", human(s.data_per_server)),
    );
    if input.data > 0 {
        line("regions", s.regions.to_string());
        line("servers", s.servers.to_string());
    }
    if let Some(t) = s.flush_interval_s {
        line(
            "memstores of a server fill in",
            format!("{t:.0} s at the write rate"),
        );
    }
    let steps: Vec<String> = s.increasing_splits.iter().map(|&b| human(b)).collect();
    line("splits, IncreasingToUpperBound", steps.join(" -> "));
    line(
        "splits, Stepping (2.x default)",
        format!(
            "{} -> {}",
            human(s.stepping_splits[0]),
            human(s.stepping_splits[1])
        ),
    );
    for w in &s.warnings {
        out.push_str(&format!("WARNING: {w}\n"));
    }
    out.push_str(
        "(formulas: HBase reference guide, ops.capacity.regions; L. Hofhansl, HBase region \
         server memory sizing, 2013)\n",
    );
    Ok(out)
}

fn splits(a: &SplitsArgs) -> Result<String, String> {
    use regionkv_lab::export::ruby_string;
    use regionkv_lab::splits::{Salt, from_keys};
    let design = a
        .design
        .as_deref()
        .map(regionkv_lab::design::Design::load)
        .transpose()
        .map_err(|e| e.to_string())?;
    let mut keys = Vec::new();
    match (&a.keys, &a.workload, &design) {
        (Some(path), _, _) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            for (n, line) in text.lines().enumerate() {
                let field = match a.csv_column {
                    None => line.trim(),
                    Some(c) => line.split(',').nth(c).map(str::trim).unwrap_or(""),
                };
                if field.is_empty() {
                    continue;
                }
                let key = regionkv::cell::bytes::to_bytes_binary(field)
                    .map_err(|e| format!("{} line {}: {e}", path.display(), n + 1))?;
                keys.push(key);
            }
        }
        (None, Some(workload), Some(d)) => keys = design_keys(d, workload, u64::MAX)?,
        _ => return Err("give --keys, or --design with --workload".into()),
    }
    let salt = design.as_ref().and_then(|d| Salt::of(&d.rowkey));
    let sampled = keys.len();
    let points = from_keys(keys, a.regions, salt)?;
    if let Some(path) = &a.splits_file {
        let body: String = points
            .iter()
            .map(|p| format!("{}\n", regionkv::cell::bytes::to_string_binary(p)))
            .collect();
        std::fs::write(path, body).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let (table, families) = match &design {
        Some(d) => (
            d.descriptor.name.clone(),
            d.descriptor
                .families
                .iter()
                .map(|f| ruby_string(&f.name))
                .collect::<Vec<_>>(),
        ),
        None => ("t".to_string(), vec!["'cf'".to_string()]),
    };
    let list: Vec<String> = points.iter().map(|p| ruby_string(p)).collect();
    let mut out = format!(
        "# {} split points for {} regions from {sampled} sampled keys{}\n",
        points.len(),
        points.len() + 1,
        match salt {
            Some(_) => ", on the design's salt buckets",
            None => "",
        }
    );
    out.push_str(&format!(
        "create {}, {}, SPLITS => [{}]\n",
        ruby_string(table.as_bytes()),
        families.join(", "),
        list.join(", ")
    ));
    Ok(out)
}

fn lint(path: &std::path::Path) -> ExitCode {
    use regionkv_lab::lint::{Severity, lint};
    let design = match regionkv_lab::design::Design::load(path) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("ERROR: {e}");
            return ExitCode::FAILURE;
        }
    };
    let findings = lint(&design);
    let mut out = String::new();
    for f in &findings {
        out.push_str(&format!(
            "{}: rule {}: {}\n  fix: {}\n  source: {}\n",
            f.severity, f.rule, f.message, f.fix, f.source
        ));
    }
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    out.push_str(&format!(
        "{}: {} finding(s), {errors} error(s)\n",
        path.display(),
        findings.len()
    ));
    let mut stdout = std::io::stdout().lock();
    if stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return ExitCode::FAILURE;
    }
    if errors > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The keys `design` makes from `workload`'s records (at most `limit`).
fn design_keys(
    design: &regionkv_lab::design::Design,
    workload: &std::path::Path,
    limit: u64,
) -> Result<Vec<Vec<u8>>, String> {
    let w = regionkv_lab::workload::Workload::load(workload).map_err(|e| e.to_string())?;
    let mut rng = regionkv_lab::expr::seeded_rng(w.seed);
    let mut keys = Vec::new();
    for (_, record) in w
        .stream()
        .take(usize::try_from(limit).unwrap_or(usize::MAX))
    {
        keys.push(
            design
                .rowkey
                .eval(&record, &mut rng)
                .map_err(|e| e.to_string())?,
        );
    }
    Ok(keys)
}

fn keys(
    design: &std::path::Path,
    workload: &std::path::Path,
    limit: u64,
) -> Result<String, String> {
    let d = regionkv_lab::design::Design::load(design).map_err(|e| e.to_string())?;
    Ok(design_keys(&d, workload, limit)?
        .iter()
        .map(|k| format!("{}\n", regionkv::cell::bytes::to_string_binary(k)))
        .collect())
}
