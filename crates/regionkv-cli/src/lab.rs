//! `regionkv lab`: the schema-design lab (see `regionkv_lab` and docs/lab.md): `simulate`
//! a design against a workload through the engine, `report` it as an HTML page,
//! `compare` designs under one workload, `lint`, `splits`, `export`, `sizing`, `keys`.
//! Every command that takes a design file takes the quick flags in its place (`--key EXPR`
//! with `--presplit`/`--split-algo` or `--splits`, `--max-filesize`, `--flush-size`).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use regionkv_lab::design::{Design, PreSplit, presplit_from};
use regionkv_lab::simulate::{Report, SimOptions, simulate};
use regionkv_lab::workload::Workload;

/// `regionkv lab`.
#[derive(Debug, clap::Args)]
pub struct LabArgs {
    #[command(subcommand)]
    command: LabCommand,
}

/// A design: a file, or the quick flags.
#[derive(Debug, Clone, clap::Args)]
struct DesignArgs {
    /// The design file (TOML); or give --key
    #[arg(required_unless_present = "key")]
    design: Option<PathBuf>,
    #[command(flatten)]
    quick: QuickArgs,
}

/// The quick flags (a design without a file) and the size overrides.
#[derive(Debug, Clone, clap::Args)]
struct QuickArgs {
    /// The rowkey expression of a quick design (table 't', family 'cf', scaled-down sizes:
    /// 2 MiB flushes, 32 MiB MAX_FILESIZE)
    #[arg(long)]
    key: Option<String>,
    /// Pre-split a quick design into N regions with --split-algo
    #[arg(long, conflicts_with = "splits")]
    presplit: Option<usize>,
    /// HexStringSplit (default), UniformSplit or DecimalStringSplit
    #[arg(long = "split-algo", requires = "presplit")]
    split_algo: Option<String>,
    /// Pre-split a quick design at these keys (comma-separated, `\xHH` escapes)
    #[arg(long, value_delimiter = ',')]
    splits: Option<Vec<String>>,
    /// MAX_FILESIZE, overriding the design's (k/m/g suffixes)
    #[arg(long = "max-filesize")]
    max_filesize: Option<String>,
    /// MEMSTORE_FLUSHSIZE, overriding the design's (k/m/g suffixes)
    #[arg(long = "flush-size")]
    flush_size: Option<String>,
}

/// A run: the workload and the output.
#[derive(Debug, Clone, clap::Args)]
struct RunArgs {
    /// A workload file, or a built-in workload: events (default), timeseries
    #[arg(long, default_value = "events")]
    workload: String,
    /// Write this many records (the workload's rates kept, its duration changed)
    #[arg(long)]
    rows: Option<u64>,
    /// Time slices of the skew and the heatmap
    #[arg(long, default_value_t = 300)]
    slices: usize,
    /// Key buckets of the heatmap
    #[arg(long, default_value_t = 1000)]
    buckets: usize,
    /// Also write the figures as JSON to FILE
    #[arg(long)]
    json: Option<PathBuf>,
    /// No progress bar
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Debug, clap::Subcommand)]
enum LabCommand {
    /// Run DESIGN against a workload through the engine: per-region writes, reads, bytes,
    /// storefiles and flushes, splits over time, skew, scan fan-out, key bytes per cell
    Simulate {
        #[command(flatten)]
        design: DesignArgs,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Simulate DESIGN and write a self-contained HTML page: a Key Visualizer-style
    /// heatmap with split events, the regions, hot key ranges, skew and lint findings
    Report {
        #[command(flatten)]
        design: DesignArgs,
        #[command(flatten)]
        run: RunArgs,
        /// The page to write
        #[arg(long)]
        html: PathBuf,
    },
    /// The same seeded workload through each design, side by side
    Compare {
        /// The design files (TOML)
        #[arg(required = true, num_args = 1..)]
        designs: Vec<PathBuf>,
        #[command(flatten)]
        run: RunArgs,
        /// Also write an HTML page with every design's heatmap
        #[arg(long)]
        html: Option<PathBuf>,
    },
    /// Print the HBase shell script that creates DESIGN's table (families, options,
    /// pre-splits) on a real cluster
    Export {
        #[command(flatten)]
        design: DesignArgs,
        /// Also write the result as JSON to FILE
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// HBase RegionServer sizing: regions per server, disk/heap ratio, servers needed,
    /// split sizes (the reference guide's and Hofhansl's formulas)
    Sizing(SizingArgs),
    /// Pre-split points from a sample of real keys (their quantiles; salt buckets kept
    /// whole when the design's key starts with one), as an HBase shell `create` line and a
    /// SPLITS_FILE
    Splits(SplitsArgs),
    /// The HBase literature's rules on DESIGN (and, with --workload, on its reads):
    /// findings with severity, source and fix (exit status 1 when one is an error)
    Lint {
        #[command(flatten)]
        design: DesignArgs,
        /// Also check the reads of this workload (file or built-in name)
        #[arg(long)]
        workload: Option<String>,
        /// Also write the result as JSON to FILE
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// The first keys DESIGN makes from WORKLOAD's records, one a line (as HBase's
    /// Bytes.toStringBinary prints them)
    Keys {
        #[command(flatten)]
        design: DesignArgs,
        /// The workload (file or built-in name)
        #[arg(long, default_value = "events")]
        workload: String,
        /// How many
        #[arg(long, default_value_t = 10)]
        limit: u64,
        /// Also write the result as JSON to FILE
        #[arg(long)]
        json: Option<PathBuf>,
    },
}

impl DesignArgs {
    fn load(&self) -> Result<Design, String> {
        let q = &self.quick;
        let mut d = match (&self.design, &q.key) {
            (Some(_), None) if q.presplit.is_some() || q.splits.is_some() => {
                return Err(
                    "--presplit and --splits go with --key; a design file has its own \
                            [presplit]"
                        .into(),
                );
            }
            (Some(path), None) => Design::load(path).map_err(|e| e.to_string())?,
            (None, Some(key)) => {
                let presplit = if q.presplit.is_some() || q.splits.is_some() {
                    presplit_from(q.splits.clone(), q.presplit, q.split_algo.clone())?
                } else {
                    PreSplit::None
                };
                Design::quick(key, presplit).map_err(|e| e.to_string())?
            }
            _ => return Err("give a design file or --key, not both".into()),
        };
        let size = |s: &Option<String>| {
            s.as_deref()
                .map(regionkv_lab::sizing::parse_size)
                .transpose()
        };
        d.set_sizes(size(&q.max_filesize)?, size(&q.flush_size)?)
            .map_err(|e| e.to_string())?;
        Ok(d)
    }
}

impl RunArgs {
    fn workload(&self) -> Result<Workload, String> {
        let w = Workload::find(&self.workload).map_err(|e| e.to_string())?;
        if self.rows == Some(0) {
            return Err("--rows must be at least 1".into());
        }
        Ok(match self.rows {
            Some(n) => w.with_records(n),
            None => w,
        })
    }

    fn options(&self) -> SimOptions {
        SimOptions {
            slices: self.slices.max(1),
            buckets: self.buckets.max(1),
            ..SimOptions::default()
        }
    }

    /// A progress bar on a terminal, hidden with --quiet or in scripts; with `multi`, one
    /// of several drawn together.
    fn progress(
        &self,
        label: &str,
        multi: Option<&indicatif::MultiProgress>,
    ) -> indicatif::ProgressBar {
        let mut bar = indicatif::ProgressBar::new(0);
        if self.quiet || !std::io::stderr().is_terminal() {
            bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        } else if let Some(m) = multi {
            bar = m.add(bar);
        }
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{prefix:30!} [{bar:40}] {pos}/{len} ops ({per_sec}, {eta} left)",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar.set_prefix(label.to_string());
        bar
    }

    fn simulate(&self, design: &Design, workload: &Workload) -> Result<Report, String> {
        self.simulate_with(design, workload, None)
    }

    fn simulate_with(
        &self,
        design: &Design,
        workload: &Workload,
        multi: Option<&indicatif::MultiProgress>,
    ) -> Result<Report, String> {
        let bar = self.progress(&design.name, multi);
        let report = simulate(design, workload, &self.options(), &mut |done, total| {
            bar.set_length(total);
            bar.set_position(done);
        })
        .map_err(|e| format!("{}: {e}", design.name))?;
        bar.finish_and_clear();
        Ok(report)
    }

    /// Each design under the same workload, as many at once as there are cores (each run
    /// is single-threaded and deterministic, so running them side by side changes no
    /// figure), in the order given.
    fn simulate_all(&self, designs: &[Design], workload: &Workload) -> Result<Vec<Report>, String> {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let multi = indicatif::MultiProgress::new();
        let mut reports = Vec::with_capacity(designs.len());
        for chunk in designs.chunks(cores.max(1)) {
            let results: Vec<Result<Report, String>> = std::thread::scope(|s| {
                let handles: Vec<_> = chunk
                    .iter()
                    .map(|d| s.spawn(|| self.simulate_with(d, workload, Some(&multi))))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join()
                            .unwrap_or_else(|_| Err("a simulation panicked".into()))
                    })
                    .collect()
            });
            for r in results {
                reports.push(r?);
            }
        }
        Ok(reports)
    }

    fn write_json(&self, value: &impl serde::Serialize) -> Result<(), String> {
        write_json(&self.json, value)
    }
}

/// `lab splits`.
#[derive(Debug, clap::Args)]
struct SplitsArgs {
    /// Sampled row keys, one a line (`\xHH` escapes, as Bytes.toBytesBinary), or a CSV
    /// file with --csv-column; without it, the keys of --design over --workload
    #[arg(long, required_unless_present = "workload")]
    keys: Option<PathBuf>,
    /// The workload (file or built-in name) whose records make the design's keys
    /// (instead of --keys)
    #[arg(long, conflicts_with = "keys")]
    workload: Option<String>,
    /// Take the keys from this 0-based column of a comma-separated file
    #[arg(long = "csv-column")]
    csv_column: Option<usize>,
    /// How many regions
    #[arg(long)]
    regions: usize,
    /// The design: its table and families for the `create` line, its salt for alignment
    #[arg(long, conflicts_with = "key")]
    design: Option<PathBuf>,
    #[command(flatten)]
    quick: QuickArgs,
    /// Also write the points to this SPLITS_FILE
    #[arg(long = "splits-file")]
    splits_file: Option<PathBuf>,
    /// Also write the result as JSON to FILE
    #[arg(long)]
    json: Option<PathBuf>,
}

/// `lab sizing` (sizes take k/m/g/t suffixes, binary multiples).
#[derive(Debug, clap::Args)]
struct SizingArgs {
    /// Also write the figures as JSON to FILE
    #[arg(long)]
    json: Option<PathBuf>,
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
        LabCommand::Simulate { design, run } => (|| {
            let d = design.load()?;
            let report = run.simulate(&d, &run.workload()?)?;
            run.write_json(&report)?;
            Ok(crate::lab_text::simulation(&report))
        })(),
        LabCommand::Report { design, run, html } => (|| {
            let d = design.load()?;
            let report = run.simulate(&d, &run.workload()?)?;
            run.write_json(&report)?;
            write_html(html, std::slice::from_ref(&report))?;
            Ok(format!(
                "{}wrote {}\n",
                crate::lab_text::summary_line(&report),
                html.display()
            ))
        })(),
        LabCommand::Compare { designs, run, html } => (|| {
            let workload = run.workload()?;
            let designs = designs
                .iter()
                .map(|p| Design::load(p).map_err(|e| e.to_string()))
                .collect::<Result<Vec<_>, _>>()?;
            let reports = run.simulate_all(&designs, &workload)?;
            run.write_json(&reports)?;
            if let Some(html) = html {
                write_html(html, &reports)?;
            }
            Ok(crate::lab_text::comparison(&reports))
        })(),
        LabCommand::Export { design, json } => design.load().and_then(|d| {
            let script = regionkv_lab::export::shell_script(&d)?;
            write_json(
                json,
                &serde_json::json!({ "table": d.descriptor.name, "script": script }),
            )?;
            Ok(script)
        }),
        LabCommand::Sizing(a) => sizing(a),
        LabCommand::Splits(a) => splits(a),
        LabCommand::Lint {
            design,
            workload,
            json,
        } => return lint(design, workload.as_deref(), json),
        LabCommand::Keys {
            design,
            workload,
            limit,
            json,
        } => keys(design, workload, *limit, json),
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

/// Writes `value` as pretty JSON to `path`, if one was given.
fn write_json(path: &Option<PathBuf>, value: &impl serde::Serialize) -> Result<(), String> {
    if let Some(path) = path {
        let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

fn write_html(path: &std::path::Path, reports: &[Report]) -> Result<(), String> {
    std::fs::write(path, regionkv_lab::report::html(reports))
        .map_err(|e| format!("{}: {e}", path.display()))
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
    write_json(&a.json, &serde_json::json!({ "input": input, "sizing": s }))?;
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
    let design = if a.design.is_some() || a.quick.key.is_some() {
        Some(
            DesignArgs {
                design: a.design.clone(),
                quick: a.quick.clone(),
            }
            .load()?,
        )
    } else {
        None
    };
    let keys = match (&a.keys, &a.workload, &design) {
        (Some(path), _, _) => regionkv_lab::splits::read_keys(path, a.csv_column)?,
        (None, Some(workload), Some(d)) => {
            let w = Workload::find(workload).map_err(|e| e.to_string())?;
            design_keys(d, &w, u64::MAX)?
        }
        _ => return Err("give --keys, or a design (file or --key) with --workload".into()),
    };
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
                .map(regionkv_lab::export::family_hash)
                .collect::<Vec<_>>(),
        ),
        None => ("t".to_string(), vec!["'cf'".to_string()]),
    };
    let list: Vec<String> = points.iter().map(|p| ruby_string(p)).collect();
    let create = format!(
        "create {}, {}, SPLITS => [{}]",
        ruby_string(table.as_bytes()),
        families.join(", "),
        list.join(", ")
    );
    write_json(
        &a.json,
        &serde_json::json!({
            "regions": points.len() + 1,
            "sampled": sampled,
            "salt_aligned": salt.is_some(),
            "points": points.iter().map(|p| regionkv::cell::bytes::to_string_binary(p)).collect::<Vec<_>>(),
            "create": create,
        }),
    )?;
    let mut out = format!(
        "# {} split points for {} regions from {sampled} sampled keys{}\n",
        points.len(),
        points.len() + 1,
        match salt {
            Some(_) => ", on the design's salt buckets",
            None => "",
        }
    );
    out.push_str(&create);
    out.push('\n');
    Ok(out)
}

fn lint(args: &DesignArgs, workload: Option<&str>, json: &Option<PathBuf>) -> ExitCode {
    use regionkv_lab::lint::{Severity, lint_with};
    let loaded = args.load().and_then(|d| {
        let w = workload
            .map(|w| Workload::find(w).map_err(|e| e.to_string()))
            .transpose()?;
        Ok((d, w))
    });
    let (design, workload) = match loaded {
        Ok(x) => x,
        Err(e) => {
            eprintln!("ERROR: {e}");
            return ExitCode::FAILURE;
        }
    };
    let findings = lint_with(&design, workload.as_ref());
    let rows: Vec<regionkv_lab::simulate::LintRow> = findings.iter().map(Into::into).collect();
    if let Err(e) = write_json(json, &rows) {
        eprintln!("ERROR: {e}");
        return ExitCode::FAILURE;
    }
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
    let name = args
        .design
        .as_ref()
        .map_or_else(|| design.name.clone(), |p| p.display().to_string());
    out.push_str(&format!(
        "{name}: {} finding(s), {errors} error(s)\n",
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
fn design_keys(design: &Design, w: &Workload, limit: u64) -> Result<Vec<Vec<u8>>, String> {
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
    design: &DesignArgs,
    workload: &str,
    limit: u64,
    json: &Option<PathBuf>,
) -> Result<String, String> {
    let d = design.load()?;
    let w = Workload::find(workload).map_err(|e| e.to_string())?;
    let keys: Vec<String> = design_keys(&d, &w, limit)?
        .iter()
        .map(|k| regionkv::cell::bytes::to_string_binary(k))
        .collect();
    write_json(json, &keys)?;
    Ok(keys.iter().map(|k| format!("{k}\n")).collect())
}
