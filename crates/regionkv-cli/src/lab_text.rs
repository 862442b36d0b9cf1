//! The lab's terminal output: a simulation's figures (`lab simulate`) and designs side by
//! side (`lab compare`), as plain aligned text that reads in a terminal and diffs in a
//! script. The JSON (`--json`) holds the same figures in full. A design with indexes gets,
//! after its own figures, the write amplification and each index table's regions, splits,
//! skew and hot ranges; its index reads get their fan-out split into index and base parts.

use regionkv_lab::simulate::{HotRange, RegionRow, Report, SkewFigures, SkewReport, SplitEvent};
use regionkv_lab::sizing::human;

/// Regions listed before "... N more" (the JSON has them all).
const MAX_REGION_LINES: usize = 40;

/// `+HH:MM:SS` of simulated time since the start.
fn offset(report: &Report, ms: i64) -> String {
    let s = (ms - report.workload.start_ms).max(0) / 1000;
    format!("+{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn skew_line(name: &str, s: &SkewFigures) -> String {
    format!(
        "  {name:<22} {:>9.2} {:>7.2} {:>6.3} {:>9.3}\n",
        s.max_mean, s.cov, s.gini, s.balancer_cost
    )
}

/// One line: the design, the work done, and its headline figures.
pub fn summary_line(r: &Report) -> String {
    format!(
        "{}: {} writes, {} reads -> {} regions ({} splits); write skew max/mean {:.2}, \
         {:.1} regions per read, {:.1} rows per read\n",
        r.design.name,
        count(r.workload.writes),
        count(r.workload.reads),
        r.regions.len(),
        r.splits.len(),
        r.skew.writes.max_mean,
        r.queries.fanout_mean,
        r.queries.rows_per_query,
    )
}

/// `lab simulate`'s report.
pub fn simulation(r: &Report) -> String {
    let mut out = String::new();
    let d = &r.design;
    out.push_str(&format!("design    {} (table '{}')\n", d.name, d.table));
    out.push_str(&format!("rowkey    {}\n", d.rowkey));
    out.push_str(&format!(
        "table     {} at create; MAX_FILESIZE {}, MEMSTORE_FLUSHSIZE {}, {}; families {}\n",
        plural(d.presplit_regions as u64, "region"),
        human(d.max_filesize),
        human(d.flush_size),
        d.split_policy,
        d.families.join(", ")
    ));
    out.push_str(&format!(
        "workload  {} (seed {}): {} writes, {} reads over {} of simulated time; ran in {:.1} s\n\n",
        r.workload.name,
        r.workload.seed,
        count(r.workload.writes),
        count(r.workload.reads),
        offset(r, r.workload.start_ms + r.workload.duration_ms).trim_start_matches('+'),
        r.elapsed_ms as f64 / 1000.0
    ));

    regions_block(&mut out, r, &r.regions, &r.splits);
    out.push('\n');
    skew_block(&mut out, &r.skew);

    if r.queries.count > 0 {
        out.push_str(&format!(
            "\nreads: {:.2} regions and {:.1} rows per read on average; {} full-table scans\n",
            r.queries.fanout_mean,
            r.queries.rows_per_query,
            count(r.queries.full_scans)
        ));
        out.push_str(&format!(
            "  {:<36} {:>8} {:>9} {:>13} {:>15} {:>6} {:>7}\n",
            "read", "count", "requests", "regions (max)", "rows (max)", "full", "capped"
        ));
        for k in &r.queries.kinds {
            out.push_str(&format!(
                "  {:<36} {:>8} {:>9.1} {:>13} {:>15} {:>6} {:>7}\n",
                k.label,
                count(k.count),
                k.requests_mean,
                format!("{:.1} ({})", k.fanout_mean, k.fanout_max),
                format!("{:.1} ({})", k.rows_mean, k.rows_max),
                count(k.full_scans),
                count(k.capped)
            ));
        }
        index_reads_block(&mut out, r);
        if r.queries.kinds.iter().any(|k| k.capped > 0) {
            out.push_str(&format!(
                "  (a read stops after {} rows, a full-table scan after {}: 'capped' reads would have read more)\n",
                regionkv_lab::simulate::MAX_ROWS_PER_READ,
                regionkv_lab::simulate::FULL_SCAN_ROWS
            ));
        }
    }

    out.push_str(&format!(
        "\nstorage   {} in {} storefiles; {} cells; rowkey {:.1} B, key per cell {:.1} B\n",
        human(r.storage_bytes),
        r.storefiles,
        count(r.cells),
        r.row_key_bytes,
        r.key_bytes_per_cell
    ));
    out.push_str(&format!(
        "flushes   {} ({}); compactions {}\n",
        r.flushes,
        r.families
            .iter()
            .map(|f| format!("{}: {}", f.family, f.flushes))
            .collect::<Vec<_>>()
            .join(", "),
        r.compactions
    ));
    hot_block(&mut out, &r.hot_ranges);
    indexes_block(&mut out, r);
    if !r.lint.is_empty() {
        out.push_str("\nlint\n");
        for f in &r.lint {
            out.push_str(&format!(
                "  {}: rule {}: {}\n    fix: {}\n",
                f.severity, f.rule, f.message, f.fix
            ));
        }
    }
    out
}

/// Keys longer than the column are cut, never inside a `\xHH` escape.
fn cut(s: &str) -> String {
    if s.chars().count() <= 24 {
        return s.to_string();
    }
    let mut head: String = s.chars().take(23).collect();
    if let Some(i) = head.rfind('\\')
        && head.len() - i < 4
    {
        head.truncate(i);
    }
    format!("{head}…")
}

/// A table's regions at the end and its splits over simulated time.
fn regions_block(out: &mut String, r: &Report, regions: &[RegionRow], splits: &[SplitEvent]) {
    out.push_str(&format!(
        "regions ({} at the end, {})\n",
        regions.len(),
        plural(splits.len() as u64, "split")
    ));
    out.push_str(&format!(
        "  {:<24} {:<24} {:>10} {:>9} {:>9} {:>6} {:>7}\n",
        "start", "end", "writes", "reads", "bytes", "files", "flushes"
    ));
    for reg in regions.iter().take(MAX_REGION_LINES) {
        out.push_str(&format!(
            "  {:<24} {:<24} {:>10} {:>9} {:>9} {:>6} {:>7}\n",
            cut(&reg.start),
            cut(&reg.end),
            count(reg.writes),
            count(reg.reads),
            human(reg.bytes),
            reg.storefiles,
            reg.flushes
        ));
    }
    if regions.len() > MAX_REGION_LINES {
        out.push_str(&format!(
            "  ... {} more (--json FILE lists every region)\n",
            regions.len() - MAX_REGION_LINES
        ));
    }
    if !splits.is_empty() {
        out.push_str("\nsplits over simulated time\n");
        for s in splits.iter().take(MAX_REGION_LINES) {
            out.push_str(&format!("  {}  at {}\n", offset(r, s.time), s.key));
        }
        if splits.len() > MAX_REGION_LINES {
            out.push_str(&format!("  ... {} more\n", splits.len() - MAX_REGION_LINES));
        }
    }
}

fn skew_block(out: &mut String, skew: &SkewReport) {
    out.push_str(
        "skew over regions (per time slice, averaged)  max/mean     CoV   Gini  balancer\n",
    );
    out.push_str(&skew_line("writes", &skew.writes));
    out.push_str(&skew_line("rows read", &skew.reads));
    out.push_str(&skew_line("bytes (at the end)", &skew.bytes));
}

fn hot_block(out: &mut String, hot: &[HotRange]) {
    if hot.is_empty() {
        return;
    }
    out.push_str("\nhot key ranges\n");
    for h in hot {
        out.push_str(&format!(
            "  {:<6} {:>5.1}% in {:>5.1}% of the keys, from {} (prefix '{}')\n",
            h.metric,
            h.share * 100.0,
            h.key_share * 100.0,
            if h.start.is_empty() {
                "(start)"
            } else {
                &h.start
            },
            h.prefix
        ));
    }
}

/// The index reads' fan-out: the index lookup's part and the base gets' part.
fn index_reads_block(out: &mut String, r: &Report) {
    let rows: Vec<_> = r
        .queries
        .kinds
        .iter()
        .filter_map(|k| k.index.as_ref().map(|i| (k, i)))
        .collect();
    if rows.is_empty() {
        return;
    }
    out.push_str(&format!(
        "  index reads, per lookup {:>12} {:>13} {:>10} {:>14} {:>14}\n",
        "index reqs", "index regions", "index rows", "base gets", "base regions"
    ));
    for (k, i) in rows {
        if !i.present {
            out.push_str(&format!(
                "  {:<36} (the design has no index '{}': a scan of its own key)\n",
                k.label, i.index
            ));
            continue;
        }
        out.push_str(&format!(
            "  {:<23} {:>12.1} {:>13} {:>10.1} {:>14} {:>14}\n",
            k.label,
            i.index_requests_mean,
            format!("{:.1} ({})", i.index_regions_mean, i.index_regions_max),
            i.index_rows_mean,
            format!("{:.1} ({})", i.base_gets_mean, i.base_gets_max),
            format!("{:.1} ({})", i.base_regions_mean, i.base_regions_max),
        ));
    }
}

/// The write amplification and each index table's figures.
fn indexes_block(out: &mut String, r: &Report) {
    let Some(w) = &r.write_amplification else {
        return;
    };
    out.push_str(&format!(
        "\nwrite amplification  {:.2} row mutations per base put ({} puts + {} index mutations), \
         {:.2}x the bytes; client requests per put {:.2}, observer writes per put {:.2}\n",
        w.rows,
        count(w.base_puts),
        count(w.index_mutations),
        w.bytes,
        w.client_requests_per_put,
        w.server_writes_per_put
    ));
    for ix in &r.indexes {
        out.push_str(&format!(
            "\nindex {} (table '{}', {}, {}-maintained)\n",
            ix.name,
            ix.table,
            ix.kind.name(),
            ix.maintained.name()
        ));
        out.push_str(&format!("  rowkey    {}\n", ix.rowkey));
        out.push_str(&format!(
            "  table     {} at create; MAX_FILESIZE {}, MEMSTORE_FLUSHSIZE {}, {}\n",
            plural(ix.presplit_regions as u64, "region"),
            human(ix.max_filesize),
            human(ix.flush_size),
            ix.split_policy
        ));
        out.push_str(&format!(
            "  writes    {} row mutations ({:.2} per base put), {} written, rowkey {:.1} B; \
             {} in {} storefiles; flushes {}, compactions {}\n\n",
            count(ix.mutations),
            ix.per_put,
            human(ix.bytes_written),
            ix.row_key_bytes,
            human(ix.storage_bytes),
            ix.storefiles,
            ix.flushes,
            ix.compactions
        ));
        regions_block(out, r, &ix.regions, &ix.splits);
        out.push('\n');
        skew_block(out, &ix.skew);
        hot_block(out, &ix.hot_ranges);
    }
}

fn plural(n: u64, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// `lab compare`'s table: one column per design.
pub fn comparison(reports: &[Report]) -> String {
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    let mut row = |name: &str, f: &dyn Fn(&Report) -> String| {
        rows.push((name.to_string(), reports.iter().map(f).collect()));
    };
    row("rowkey", &|r| r.design.rowkey.clone());
    row("regions at create", &|r| {
        r.design.presplit_regions.to_string()
    });
    row("regions at the end", &|r| r.regions.len().to_string());
    row("splits", &|r| r.splits.len().to_string());
    row("write skew max/mean", &|r| {
        format!("{:.2}", r.skew.writes.max_mean)
    });
    row("write skew CoV", &|r| format!("{:.2}", r.skew.writes.cov));
    row("write skew Gini", &|r| format!("{:.3}", r.skew.writes.gini));
    row("write balancer cost", &|r| {
        format!("{:.3}", r.skew.writes.balancer_cost)
    });
    row("read skew max/mean", &|r| {
        format!("{:.2}", r.skew.reads.max_mean)
    });
    row("regions per read", &|r| {
        format!("{:.2}", r.queries.fanout_mean)
    });
    row("requests per read", &|r| {
        let reqs: f64 = r
            .queries
            .kinds
            .iter()
            .map(|k| k.requests_mean * k.count as f64)
            .sum();
        format!("{:.2}", reqs / r.queries.count.max(1) as f64)
    });
    row("rows per read", &|r| {
        format!("{:.1}", r.queries.rows_per_query)
    });
    row("full-table scans", &|r| count(r.queries.full_scans));
    row("storage", &|r| human(r.storage_bytes));
    row("key bytes per cell", &|r| {
        format!("{:.1}", r.key_bytes_per_cell)
    });
    row("flushes", &|r| r.flushes.to_string());
    // Only when a design keeps indexes: what they add, per index and per index read.
    if reports.iter().any(|r| !r.indexes.is_empty()) {
        row("write amplification", &|r| {
            r.write_amplification.as_ref().map_or_else(
                || "1.00".to_string(),
                |w| format!("{:.2} ({:.2}x bytes)", w.rows, w.bytes),
            )
        });
        let mut names: Vec<&str> = Vec::new();
        for ix in reports.iter().flat_map(|r| &r.indexes) {
            if !names.contains(&ix.name.as_str()) {
                names.push(&ix.name);
            }
        }
        for name in names {
            let of = |r: &Report| r.indexes.iter().find(|i| i.name == name).cloned();
            let show = |r: &Report, f: &dyn Fn(&regionkv_lab::simulate::IndexReport) -> String| {
                of(r).map_or_else(|| "-".to_string(), |i| f(&i))
            };
            row(&format!("{name}: regions/splits"), &|r| {
                show(r, &|i| format!("{} / {}", i.regions.len(), i.splits.len()))
            });
            row(&format!("{name}: write max/mean"), &|r| {
                show(r, &|i| format!("{:.2}", i.skew.writes.max_mean))
            });
            row(&format!("{name}: write balancer"), &|r| {
                show(r, &|i| format!("{:.3}", i.skew.writes.balancer_cost))
            });
        }
        let mut reads: Vec<String> = Vec::new();
        for k in reports.iter().flat_map(|r| &r.queries.kinds) {
            if k.index.is_some() && !reads.contains(&k.label) {
                reads.push(k.label.clone());
            }
        }
        for label in reads {
            let of = |r: &Report| {
                r.queries
                    .kinds
                    .iter()
                    .find(|k| k.label == label)
                    .and_then(|k| k.index.clone())
            };
            let show =
                |r: &Report, f: &dyn Fn(&regionkv_lab::simulate::IndexReadRow) -> String| match of(
                    r,
                ) {
                    Some(i) if i.present => f(&i),
                    Some(_) => "no index".to_string(),
                    None => "-".to_string(),
                };
            row(&format!("{label}: index regions"), &|r| {
                show(r, &|i| format!("{:.2}", i.index_regions_mean))
            });
            row(&format!("{label}: base gets"), &|r| {
                show(r, &|i| format!("{:.1}", i.base_gets_mean))
            });
            row(&format!("{label}: base regions"), &|r| {
                show(r, &|i| format!("{:.2}", i.base_regions_mean))
            });
        }
    }
    row("lint (errors/all)", &|r| {
        let errors = r.lint.iter().filter(|f| f.severity == "error").count();
        format!("{errors}/{}", r.lint.len())
    });
    let width = |col: usize| {
        reports
            .get(col)
            .map_or(0, |r| r.design.name.chars().count())
            .max(
                rows.iter()
                    .map(|(_, v)| v[col].chars().count())
                    .max()
                    .unwrap_or(0),
            )
            .min(48)
    };
    let widths: Vec<usize> = (0..reports.len()).map(width).collect();
    // The label column: 22 wide, wider for an index read's long labels.
    let lw = rows
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(0)
        .max(22);
    let mut out = format!("{:<lw$}", "");
    for (r, w) in reports.iter().zip(&widths) {
        out.push_str(&format!("  {:<w$}", r.design.name, w = *w));
    }
    out.push('\n');
    for (name, values) in &rows {
        out.push_str(&format!("{name:<lw$}"));
        for (v, w) in values.iter().zip(&widths) {
            out.push_str(&format!("  {v:<w$}", w = *w));
        }
        out.push('\n');
    }
    let w = &reports.first().map(|r| &r.workload);
    if let Some(w) = w {
        out.push_str(&format!(
            "(each design: workload {} seed {}, {} writes, {} reads)\n",
            w.name,
            w.seed,
            count(w.writes),
            count(w.reads)
        ));
    }
    for r in reports {
        for f in r.lint.iter().filter(|f| f.severity == "error") {
            out.push_str(&format!(
                "{}: error: rule {}: {}\n",
                r.design.name, f.rule, f.message
            ));
        }
    }
    out
}
