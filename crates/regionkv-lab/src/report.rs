//! `lab report` and `lab compare --html`: self-contained HTML pages of simulation reports.
//! One report gives a page for its design; several give a compare page (a table of their
//! figures side by side, then each design's section). Each section has a Bigtable Key
//! Visualizer style heatmap — time slices on X, key buckets on Y (the lowest keys at the
//! top), a log colour scale with a legend, split events as markers, a writes/reads/bytes
//! selector — drawn on a `<canvas>` by inline script, and the report's tables: regions,
//! splits, skew, queries, families, hot key ranges and lint findings.
//!
//! The page fetches nothing (no CDN, fonts or images): it must open from a mail
//! attachment or a CI artifact. To keep a 1,000-bucket × 300-slice report under 2 MB, each
//! metric's matrix is quantised to one byte per cell on a log scale (0: no count; 1..=255:
//! `1 + round(254 · ln c / ln max)`) and embedded as base64, with the exact maximum and
//! per-bucket totals as numbers; a hovered cell shows its approximate count.
//!
//! Every string from the report (keys are `toStringBinary` text and may hold `<`, `&` or
//! quotes) is HTML-escaped, and the embedded data is JSON in a
//! `<script type="application/json">` with `<` written `\u003c`, so no key can close the
//! script element. Element ids and classes the tests look for: `heatmap-N` (class
//! `heatmap`) canvases, tables of class `region-table`, `splits`, `skew`, `queries`,
//! `families`, `hot-ranges`, `lint` (and `compare` on a compare page); the script sets
//! `data-rendered="1"` on `<body>` once it has drawn, `data-heatmap-rect` to the first
//! heatmap's plot area (page pixels, for screenshot checks), or `data-render-error`.

use std::fmt::Write as _;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use regionkv::cell::bytes::to_string_binary;
use serde::Serialize;

use crate::heatmap::Heatmap;
use crate::simulate::{Report, SkewFigures};
use crate::sizing::human;
use crate::workload::utc_date;

/// `write!` into a `String`, which cannot fail (the `fmt::Result` is always `Ok`).
macro_rules! w {
    ($out:expr, $($arg:tt)*) => {{
        let _ = write!($out, $($arg)*);
    }};
}

/// The page of one report, or of several side by side.
pub fn html(reports: &[Report]) -> String {
    // The heatmap data dominates: about 4/3 byte per cell and metric.
    let cells: usize = reports
        .iter()
        .map(|r| r.heatmap_shape.slices * r.heatmap_shape.buckets)
        .sum();
    let mut out = String::with_capacity(64 * 1024 + cells * 4 + reports.len() * 32 * 1024);
    let title = match reports {
        [one] => format!("regionkv lab: {}", one.design.name),
        [] => "regionkv lab".to_string(),
        many => format!(
            "regionkv lab: compare {}",
            many.iter()
                .map(|r| r.design.name.as_str())
                .collect::<Vec<_>>()
                .join(" / ")
        ),
    };
    w!(
        out,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        esc(&title)
    );
    w!(out, "<h1>{}</h1>\n", esc(&title));
    if reports.is_empty() {
        out.push_str("<p>No reports.</p>\n");
    }
    if reports.len() > 1 {
        compare_table(&mut out, reports);
    }
    for (i, r) in reports.iter().enumerate() {
        section(&mut out, i, r);
    }
    out.push_str("<div id=\"tip\" class=\"tip\" hidden></div>\n");
    for (i, r) in reports.iter().enumerate() {
        w!(
            out,
            "<script type=\"application/json\" id=\"data-{i}\" class=\"heatmap-data\">{}</script>\n",
            page_data_json(r)
        );
        // Each index table's heatmap: its own key buckets, the same time slices.
        for (j, ix) in r.indexes.iter().enumerate() {
            w!(
                out,
                "<script type=\"application/json\" id=\"data-{i}-{j}\" class=\"heatmap-data\">{}</script>\n",
                data_json(&ix.name, &ix.heatmap, &ix.splits, r)
            );
        }
    }
    w!(out, "<script>{SCRIPT}</script>\n</body>\n</html>\n");
    out
}

/// HTML-escapes text for element content and quoted attribute values.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// An integer with thousands separators (`1,234,567`).
fn int(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A figure with `places` decimals.
fn num(v: f64, places: usize) -> String {
    if v.is_finite() {
        format!("{v:.places$}")
    } else {
        "–".to_string()
    }
}

/// A share (0 to 1) as a percentage.
fn pct(v: f64) -> String {
    format!("{}%", num(v * 100.0, 1))
}

/// Epoch ms as `yyyy-MM-dd HH:mm:ss` UTC.
fn clock(ms: i64) -> String {
    let d = utc_date(ms);
    let tod = ms.rem_euclid(86_400_000) / 1_000;
    format!(
        "{}-{}-{} {:02}:{:02}:{:02}",
        d.get(0..4).unwrap_or(""),
        d.get(4..6).unwrap_or(""),
        d.get(6..8).unwrap_or(""),
        tod / 3_600,
        tod / 60 % 60,
        tod % 60
    )
}

/// A duration in ms as `1h02m03s` (or `450ms`).
fn span(ms: i64) -> String {
    if ms.abs() < 1_000 {
        return format!("{ms}ms");
    }
    let s = ms / 1_000;
    let (d, h, m, sec) = (s / 86_400, s / 3_600 % 24, s / 60 % 60, s % 60);
    if d > 0 {
        format!("{d}d{h:02}h{m:02}m")
    } else if h > 0 {
        format!("{h}h{m:02}m{sec:02}s")
    } else if m > 0 {
        format!("{m}m{sec:02}s")
    } else {
        format!("{sec}s")
    }
}

/// A key as a table cell: escaped, and marked empty when it is (the table's start or end).
fn key_cell(key: &str, empty: &str) -> String {
    if key.is_empty() {
        format!("<td class=\"key empty\">{empty}</td>")
    } else {
        format!("<td class=\"key\">{}</td>", esc(key))
    }
}

/// The figures of the designs side by side: one row per figure, one column per design.
fn compare_table(out: &mut String, reports: &[Report]) {
    type Figure = (&'static str, fn(&Report) -> String);
    let figures: [Figure; 20] = [
        ("rowkey", |r| esc(&r.design.rowkey)),
        ("workload", |r| esc(&r.workload.name)),
        ("rows written", |r| int(r.rows)),
        ("cells written", |r| int(r.cells)),
        ("mean rowkey bytes", |r| num(r.row_key_bytes, 1)),
        ("key bytes per cell", |r| num(r.key_bytes_per_cell, 1)),
        ("regions at end", |r| int(r.regions.len() as u64)),
        ("splits", |r| int(r.splits.len() as u64)),
        ("storage", |r| human(r.storage_bytes)),
        ("storefiles", |r| int(r.storefiles as u64)),
        ("flushes / compactions", |r| {
            format!("{} / {}", int(r.flushes), int(r.compactions))
        }),
        ("writes max/mean · CoV · Gini · balancer", |r| {
            skew_cell(&r.skew.writes)
        }),
        ("reads max/mean · CoV · Gini · balancer", |r| {
            skew_cell(&r.skew.reads)
        }),
        ("bytes max/mean · CoV · Gini · balancer", |r| {
            skew_cell(&r.skew.bytes)
        }),
        ("reads made", |r| int(r.queries.count)),
        ("fan-out mean / max", |r| {
            format!(
                "{} / {}",
                num(r.queries.fanout_mean, 2),
                int(r.queries.fanout_max)
            )
        }),
        ("rows per read", |r| num(r.queries.rows_per_query, 1)),
        ("full scans", |r| int(r.queries.full_scans)),
        ("hottest write range", |r| hottest(r, "writes")),
        ("lint errors / warnings", |r| {
            let n = |s: &str| r.lint.iter().filter(|l| l.severity == s).count() as u64;
            format!("{} / {}", int(n("error")), int(n("warning")))
        }),
    ];
    out.push_str("<section class=\"compare-section\">\n<h2>Comparison</h2>\n");
    out.push_str("<table class=\"compare\">\n<thead><tr><th></th>");
    for (i, r) in reports.iter().enumerate() {
        w!(
            out,
            "<th><a href=\"#design-{i}\">{}</a></th>",
            esc(&r.design.name)
        );
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (label, figure) in figures {
        w!(out, "<tr><th>{}</th>", esc(label));
        for r in reports {
            w!(out, "<td>{}</td>", figure(r));
        }
        out.push_str("</tr>\n");
    }
    // Only when a design keeps indexes: what they add and what their lookups cost.
    if reports.iter().any(|r| !r.indexes.is_empty()) {
        let index_figures: [Figure; 3] = [
            ("write amplification (rows · bytes)", |r| {
                r.write_amplification.as_ref().map_or_else(
                    || "1.00".to_string(),
                    |w| format!("{} · {}×", num(w.rows, 2), num(w.bytes, 2)),
                )
            }),
            ("index writes max/mean · balancer", |r| {
                let cells: Vec<String> = r
                    .indexes
                    .iter()
                    .map(|i| {
                        format!(
                            "{}: {} · {}",
                            esc(&i.name),
                            num(i.skew.writes.max_mean, 2),
                            num(i.skew.writes.balancer_cost, 3)
                        )
                    })
                    .collect();
                if cells.is_empty() {
                    "–".to_string()
                } else {
                    cells.join("<br>")
                }
            }),
            (
                "index lookups: index regions · base gets · base regions",
                |r| {
                    let cells: Vec<String> = r
                        .queries
                        .kinds
                        .iter()
                        .filter_map(|k| k.index.as_ref().map(|x| (k, x)))
                        .map(|(k, x)| {
                            if x.present {
                                format!(
                                    "{}: {} · {} · {}",
                                    esc(&k.label),
                                    num(x.index_regions_mean, 2),
                                    num(x.base_gets_mean, 1),
                                    num(x.base_regions_mean, 2)
                                )
                            } else {
                                format!("{}: no index", esc(&k.label))
                            }
                        })
                        .collect();
                    if cells.is_empty() {
                        "–".to_string()
                    } else {
                        cells.join("<br>")
                    }
                },
            ),
        ];
        for (label, figure) in index_figures {
            w!(out, "<tr><th>{}</th>", esc(label));
            for r in reports {
                w!(out, "<td>{}</td>", figure(r));
            }
            out.push_str("</tr>\n");
        }
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

/// Skew figures in one cell: max/mean · CoV · Gini · balancer cost.
fn skew_cell(f: &SkewFigures) -> String {
    format!(
        "{} · {} · {} · {}",
        num(f.max_mean, 2),
        num(f.cov, 2),
        num(f.gini, 2),
        num(f.balancer_cost, 3)
    )
}

/// The hottest range of `metric`, escaped: its prefix (or first key) and share.
fn hottest(r: &Report, metric: &str) -> String {
    r.hot_ranges
        .iter()
        .filter(|h| h.metric == metric)
        .max_by(|a, b| a.share.total_cmp(&b.share))
        .map_or_else(
            || "–".to_string(),
            |h| {
                let name = if h.prefix.is_empty() {
                    format!("from {}", h.start)
                } else {
                    format!("{}…", h.prefix)
                };
                format!("<code>{}</code> {}", esc(&name), pct(h.share))
            },
        )
}

/// One design's section: summary, heatmap, tables.
fn section(out: &mut String, i: usize, r: &Report) {
    let d = &r.design;
    let wl = &r.workload;
    w!(
        out,
        "<section class=\"design\" id=\"design-{i}\">\n<h2>{}</h2>\n",
        esc(&d.name)
    );
    if let Some(desc) = &d.description {
        w!(out, "<p class=\"desc\">{}</p>\n", esc(desc));
    }
    w!(
        out,
        "<p class=\"meta\">table <code>{}</code> · rowkey <code>{}</code> · families {} · \
         {} pre-split region(s) · MAX_FILESIZE {} · MEMSTORE_FLUSHSIZE {} · {}<br>\
         workload <b>{}</b> (seed {}) · {} writes, {} reads over {} from {} UTC · \
         simulated in {} ms</p>\n",
        esc(&d.table),
        esc(&d.rowkey),
        esc(&d.families.join(", ")),
        d.presplit_regions,
        human(d.max_filesize),
        human(d.flush_size),
        esc(&d.split_policy),
        esc(&wl.name),
        wl.seed,
        int(wl.writes),
        int(wl.reads),
        span(wl.duration_ms),
        clock(wl.start_ms),
        int(r.elapsed_ms)
    );

    // The heatmap: the script draws it from `data-{i}`.
    heatmap_div(out, &i.to_string(), r);

    skew_table(out, r);
    regions_table(out, r);
    splits_table(out, r);
    queries_table(out, r);
    families_table(out, r);
    hot_table(out, &r.hot_ranges);
    lint_table(out, r);
    indexes_section(out, i, r);
    out.push_str("</section>\n");
}

/// A heatmap's canvas, legend and metric buttons; the script draws it from `data-{id}`.
fn heatmap_div(out: &mut String, id: &str, r: &Report) {
    w!(
        out,
        "<div class=\"hm\" data-index=\"{id}\">\n<div class=\"hm-controls\">\
         <span class=\"hm-label\">Heatmap</span>"
    );
    for (m, label) in [
        ("writes", "writes"),
        ("reads", reads_label(r)),
        ("bytes", "bytes"),
    ] {
        w!(
            out,
            "<button type=\"button\" class=\"metric\" data-metric=\"{m}\">{label}</button>"
        );
    }
    w!(
        out,
        "<canvas class=\"legend\" id=\"legend-{id}\" width=\"360\" height=\"36\"></canvas>\
         <span class=\"hm-note\">{} slices of {} × {} key buckets · log colour scale · \
         <span class=\"split-key\">┃</span> split</span></div>\n\
         <div class=\"hm-wrap\"><canvas class=\"heatmap\" id=\"heatmap-{id}\" width=\"1110\" \
         height=\"530\"></canvas></div>\n</div>\n",
        int(r.heatmap_shape.slices as u64),
        span(r.heatmap_shape.slice_ms),
        int(r.heatmap_shape.buckets as u64)
    );
}

/// The write amplification, each index table (its heatmap, skew, regions, splits and hot
/// ranges, as the base table's) and the index reads' fan-out.
fn indexes_section(out: &mut String, i: usize, r: &Report) {
    let Some(w) = &r.write_amplification else {
        return;
    };
    w!(
        out,
        "<h3>Indexes</h3>\n<p class=\"meta index-wa\">write amplification <b>{}</b> row \
         mutations per base put ({} puts + {} index mutations) · {}× the bytes · client \
         requests per put {} · observer writes per put {}</p>\n",
        num(w.rows, 2),
        int(w.base_puts),
        int(w.index_mutations),
        num(w.bytes, 2),
        num(w.client_requests_per_put, 2),
        num(w.server_writes_per_put, 2)
    );
    let lookups: Vec<_> = r
        .queries
        .kinds
        .iter()
        .filter_map(|k| k.index.as_ref().map(|x| (k, x)))
        .collect();
    if !lookups.is_empty() {
        out.push_str(
            "<table class=\"index-reads\">\n<thead><tr><th>index read</th><th>index requests</th>\
             <th>index regions (max)</th><th>index rows</th><th>base gets (max)</th>\
             <th>base regions (max)</th><th>base rows</th></tr></thead>\n<tbody>\n",
        );
        for (k, x) in lookups {
            if !x.present {
                w!(
                    out,
                    "<tr><th>{}</th><td colspan=\"6\" class=\"none\">no index '{}' in this \
                     design: a scan of its own key</td></tr>\n",
                    esc(&k.label),
                    esc(&x.index)
                );
                continue;
            }
            w!(
                out,
                "<tr><th>{}</th><td>{}</td><td>{} ({})</td><td>{}</td><td>{} ({})</td>\
                 <td>{} ({})</td><td>{}</td></tr>\n",
                esc(&k.label),
                num(x.index_requests_mean, 2),
                num(x.index_regions_mean, 2),
                int(x.index_regions_max),
                num(x.index_rows_mean, 1),
                num(x.base_gets_mean, 1),
                int(x.base_gets_max),
                num(x.base_regions_mean, 2),
                int(x.base_regions_max),
                num(x.base_rows_mean, 1)
            );
        }
        out.push_str(
            "</tbody>\n</table>\n<p class=\"note\">Per lookup: the index table's gets or \
             scans, then a get of each entry's base row, grouped by base region (one \
             multi-get request per region).</p>\n",
        );
    }
    for (j, ix) in r.indexes.iter().enumerate() {
        w!(
            out,
            "<div class=\"index\" id=\"index-{i}-{j}\">\n<h3>Index {} ({}, {}-maintained)</h3>\n\
             <p class=\"meta\">table <code>{}</code> · rowkey <code>{}</code> · {} pre-split \
             region(s) · MAX_FILESIZE {} · MEMSTORE_FLUSHSIZE {} · {}<br>{} row mutations \
             ({} per base put) · {} written · {} in {} storefiles · {} flushes · {} \
             compactions</p>\n",
            esc(&ix.name),
            ix.kind.name(),
            ix.maintained.name(),
            esc(&ix.table),
            esc(&ix.rowkey),
            ix.presplit_regions,
            human(ix.max_filesize),
            human(ix.flush_size),
            esc(&ix.split_policy),
            int(ix.mutations),
            num(ix.per_put, 2),
            human(ix.bytes_written),
            human(ix.storage_bytes),
            int(ix.storefiles as u64),
            int(ix.flushes),
            int(ix.compactions)
        );
        heatmap_div(out, &format!("{i}-{j}"), r);
        skew_rows(out, &ix.skew, reads_label(r));
        regions_rows(out, &ix.regions, r.workload.start_ms);
        splits_rows(out, &ix.splits, r.workload.start_ms);
        hot_table(out, &ix.hot_ranges);
        out.push_str("</div>\n");
    }
}

/// What the reads count: rows in a simulation, requests on a live table.
fn reads_label(r: &Report) -> &'static str {
    if r.live {
        "read requests"
    } else {
        "reads (rows)"
    }
}

fn skew_table(out: &mut String, r: &Report) {
    skew_rows(out, &r.skew, reads_label(r));
}

fn skew_rows(out: &mut String, skew: &crate::simulate::SkewReport, reads: &str) {
    out.push_str(
        "<h3>Skew over regions</h3>\n<table class=\"skew\">\n<thead><tr><th>load</th>\
         <th>max / mean</th><th>CoV</th><th>Gini</th><th>balancer cost</th>\
         <th>slices</th></tr></thead>\n<tbody>\n",
    );
    for (label, f) in [
        ("writes", &skew.writes),
        (reads, &skew.reads),
        ("bytes (at end)", &skew.bytes),
    ] {
        w!(
            out,
            "<tr><th>{label}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            num(f.max_mean, 2),
            num(f.cov, 3),
            num(f.gini, 3),
            num(f.balancer_cost, 4),
            int(f.slices as u64)
        );
    }
    out.push_str(
        "</tbody>\n</table>\n<p class=\"note\">Per time slice over the regions that existed \
         in it, averaged over the slices with load. max/mean 1 and Gini 0 are even; the \
         balancer cost is HBase's table-skew cost (0 to 1).</p>\n",
    );
}

fn regions_table(out: &mut String, r: &Report) {
    regions_rows(out, &r.regions, r.workload.start_ms);
}

fn regions_rows(out: &mut String, regions: &[crate::simulate::RegionRow], start_ms: i64) {
    w!(
        out,
        "<h3>Regions at end ({})</h3>\n<div class=\"scroll\"><table class=\"region-table\">\n\
         <thead><tr><th>region</th><th>start</th><th>end</th><th>writes</th><th>reads</th>\
         <th>bytes</th><th>storefiles</th><th>flushes</th><th>compactions</th>\
         <th>created</th></tr></thead>\n<tbody>\n",
        int(regions.len() as u64)
    );
    for g in regions {
        w!(
            out,
            "<tr><td class=\"key\">{}</td>{}{}<td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td></tr>\n",
            esc(&g.name),
            key_cell(&g.start, "(table start)"),
            key_cell(&g.end, "(table end)"),
            int(g.writes),
            int(g.reads),
            human(g.bytes),
            int(g.storefiles as u64),
            int(g.flushes),
            int(g.compactions),
            span(g.created_ms - start_ms)
        );
    }
    out.push_str("</tbody>\n</table></div>\n");
}

fn splits_table(out: &mut String, r: &Report) {
    splits_rows(out, &r.splits, r.workload.start_ms);
}

fn splits_rows(out: &mut String, splits: &[crate::simulate::SplitEvent], start_ms: i64) {
    w!(
        out,
        "<h3>Splits ({})</h3>\n<div class=\"scroll\"><table class=\"splits\">\n<thead><tr>\
         <th>time (UTC)</th><th>after</th><th>slice</th><th>split key</th><th>parent</th>\
         </tr></thead>\n<tbody>\n",
        int(splits.len() as u64)
    );
    for s in splits {
        w!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td>{}<td class=\"key\">{}</td></tr>\n",
            clock(s.time),
            span(s.time - start_ms),
            s.slice,
            key_cell(&s.key, "(empty)"),
            esc(&s.parent)
        );
    }
    if splits.is_empty() {
        out.push_str("<tr><td colspan=\"5\" class=\"none\">no splits</td></tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n");
}

fn queries_table(out: &mut String, r: &Report) {
    let q = &r.queries;
    out.push_str(
        "<h3>Reads</h3>\n<table class=\"queries\">\n<thead><tr><th>read</th><th>count</th>\
         <th>requests / read</th><th>fan-out mean</th><th>fan-out max</th><th>rows mean</th>\
         <th>rows max</th><th>full scans</th></tr></thead>\n<tbody>\n",
    );
    for k in &q.kinds {
        w!(
            out,
            "<tr><th>{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td></tr>\n",
            esc(&k.label),
            int(k.count),
            num(k.requests_mean, 2),
            num(k.fanout_mean, 2),
            int(k.fanout_max),
            num(k.rows_mean, 1),
            int(k.rows_max),
            int(k.full_scans)
        );
    }
    w!(
        out,
        "<tr class=\"total\"><th>all reads</th><td>{}</td><td></td><td>{}</td><td>{}</td>\
         <td>{}</td><td></td><td>{}</td></tr>\n</tbody>\n</table>\n",
        int(q.count),
        num(q.fanout_mean, 2),
        int(q.fanout_max),
        num(q.rows_per_query, 1),
        int(q.full_scans)
    );
}

fn families_table(out: &mut String, r: &Report) {
    out.push_str(
        "<h3>Families</h3>\n<table class=\"families\">\n<thead><tr><th>family</th>\
         <th>cells</th><th>flushes</th><th>storefiles</th><th>bytes</th></tr></thead>\n<tbody>\n",
    );
    for f in &r.families {
        w!(
            out,
            "<tr><th>{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            esc(&f.family),
            int(f.cells),
            int(f.flushes),
            int(f.storefiles as u64),
            human(f.bytes)
        );
    }
    w!(
        out,
        "<tr class=\"total\"><th>table</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n\
         </tbody>\n</table>\n<p class=\"note\">{} rows; mean rowkey {} bytes; every cell \
         repeats a {}-byte key (row, family, qualifier, timestamp, type); {} compactions.</p>\n",
        int(r.cells),
        int(r.flushes),
        int(r.storefiles as u64),
        human(r.storage_bytes),
        int(r.rows),
        num(r.row_key_bytes, 1),
        num(r.key_bytes_per_cell, 1),
        int(r.compactions)
    );
}

fn hot_table(out: &mut String, hot: &[crate::simulate::HotRange]) {
    out.push_str(
        "<h3>Hot key ranges</h3>\n<table class=\"hot-ranges\">\n<thead><tr><th>load</th>\
         <th>prefix</th><th>first key</th><th>buckets</th><th>share of load</th>\
         <th>share of keys</th></tr></thead>\n<tbody>\n",
    );
    for h in hot {
        w!(
            out,
            "<tr><th>{}</th>{}{}<td>{}–{}</td><td>{}</td><td>{}</td></tr>\n",
            esc(&h.metric),
            key_cell(&h.prefix, "(no shared prefix)"),
            key_cell(&h.start, "(table start)"),
            h.first_bucket,
            h.last_bucket,
            pct(h.share),
            pct(h.key_share)
        );
    }
    if hot.is_empty() {
        out.push_str("<tr><td colspan=\"6\" class=\"none\">no hot ranges</td></tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
}

fn lint_table(out: &mut String, r: &Report) {
    out.push_str(
        "<h3>Lint</h3>\n<table class=\"lint\">\n<thead><tr><th>severity</th><th>rule</th>\
         <th>finding</th><th>fix</th><th>source</th></tr></thead>\n<tbody>\n",
    );
    for l in &r.lint {
        w!(
            out,
            "<tr class=\"sev-{}\"><td class=\"sev\">{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td class=\"source\">{}</td></tr>\n",
            esc(&l.severity),
            esc(&l.severity),
            l.rule,
            esc(&l.message),
            esc(&l.fix),
            esc(&l.source)
        );
    }
    if r.lint.is_empty() {
        out.push_str("<tr><td colspan=\"5\" class=\"none\">no findings</td></tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
}

/// What the script draws one design's heatmap from.
#[derive(Serialize)]
struct PageData<'a> {
    name: &'a str,
    slices: usize,
    buckets: usize,
    start_ms: i64,
    slice_ms: i64,
    /// Each bucket's first key (toStringBinary); a bucket ends where the next starts.
    starts: Vec<String>,
    metrics: Vec<MetricData>,
    splits: Vec<SplitData<'a>>,
}

/// One metric's matrix, quantised (see the module doc).
#[derive(Serialize)]
struct MetricData {
    name: &'static str,
    /// The largest cell (exact).
    max: u64,
    /// Each bucket's total over all slices (exact).
    totals: Vec<u64>,
    /// Base64 of one byte per cell, slice-major (`slice * buckets + bucket`); empty when
    /// every cell is zero.
    q: String,
}

#[derive(Serialize)]
struct SplitData<'a> {
    time: i64,
    slice: usize,
    key: &'a str,
}

/// A cell's byte: 0 for no count, else `1 + round(254 · ln c / ln max)` (255 at the max;
/// the script inverts it with `exp`).
fn quantise(c: u64, ln_max: f64) -> u8 {
    if c == 0 {
        0
    } else if ln_max <= 0.0 {
        255
    } else {
        let q = 1.0 + (254.0 * (c as f64).ln() / ln_max).round();
        q.clamp(1.0, 255.0) as u8
    }
}

fn metric_data(name: &'static str, map: &Heatmap, slices: usize, buckets: usize) -> MetricData {
    let mut max = 0;
    let mut totals = vec![0u64; buckets];
    for s in 0..slices {
        for (b, total) in totals.iter_mut().enumerate() {
            let c = map.get(s, b);
            max = max.max(c);
            *total = total.saturating_add(c);
        }
    }
    let q = if max == 0 {
        String::new()
    } else {
        let ln_max = (max as f64).ln();
        let mut bytes = Vec::with_capacity(slices * buckets);
        for s in 0..slices {
            bytes.extend((0..buckets).map(|b| quantise(map.get(s, b), ln_max)));
        }
        BASE64.encode(bytes)
    };
    MetricData {
        name,
        max,
        totals,
        q,
    }
}

/// The JSON of [`PageData`] for `r`, safe inside a `<script>` element.
fn page_data_json(r: &Report) -> String {
    data_json(&r.design.name, &r.heatmap, &r.splits, r)
}

/// The JSON of [`PageData`] for one table of `r` (the base table or an index table).
fn data_json(
    name: &str,
    h: &crate::simulate::HeatmapData,
    splits: &[crate::simulate::SplitEvent],
    r: &Report,
) -> String {
    let maps = [
        ("writes", h.writes.as_ref()),
        ("reads", h.reads.as_ref()),
        ("bytes", h.bytes.as_ref()),
    ];
    // Every map of a run has the same shape; take it from the first one present.
    let (slices, buckets) = maps
        .iter()
        .find_map(|(_, m)| m.map(Heatmap::shape))
        .unwrap_or((0, 0));
    let (start_ms, slice_ms) = maps
        .iter()
        .find_map(|(_, m)| m.map(|m| (m.start_ms(), m.slice_ms())))
        .unwrap_or((r.workload.start_ms, r.heatmap_shape.slice_ms.max(1)));
    let starts = (0..buckets)
        .map(|i| {
            h.buckets.as_ref().map_or_else(String::new, |kb| {
                if i < kb.len() {
                    to_string_binary(kb.range(i).0)
                } else {
                    String::new()
                }
            })
        })
        .collect();
    let data = PageData {
        name,
        slices,
        buckets,
        start_ms,
        slice_ms,
        starts,
        metrics: maps
            .iter()
            .filter_map(|(name, m)| m.map(|m| metric_data(name, m, slices, buckets)))
            .collect(),
        splits: splits
            .iter()
            .map(|s| SplitData {
                time: s.time,
                slice: s.slice,
                key: &s.key,
            })
            .collect(),
    };
    // `<` only occurs inside JSON strings, where `\u003c` means the same: no `</script>`
    // (nor `<!--`) can appear in the element. `>` and `&` likewise, for good measure.
    serde_json::to_string(&data)
        .unwrap_or_else(|_| "null".to_string())
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

const STYLE: &str = r#"
:root { color-scheme: light; }
body { font: 13px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 12px 18px; color: #1d1d1f; background: #ffffff; }
h1 { font-size: 18px; margin: 0 0 6px; }
h2 { font-size: 16px; margin: 18px 0 4px; border-bottom: 1px solid #ddd; padding-bottom: 2px; }
h3 { font-size: 14px; margin: 16px 0 4px; }
code, .key { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 12px; }
.key { word-break: break-all; max-width: 28em; }
.empty, .none { color: #888; font-style: italic; }
.meta, .desc, .note { margin: 2px 0 6px; color: #444; }
.note { font-size: 12px; color: #666; }
table { border-collapse: collapse; margin: 4px 0; }
th, td { border: 1px solid #ddd; padding: 2px 7px; text-align: right; vertical-align: top; }
th { background: #f3f3f3; font-weight: 600; }
tbody th { text-align: left; }
td.key, td.sev, td.source, td:has(code) { text-align: left; }
table.lint td { text-align: left; max-width: 40em; }
tr.total td, tr.total th { border-top: 2px solid #bbb; }
tr.sev-error td.sev { color: #b00020; font-weight: 600; }
tr.sev-warning td.sev { color: #b35c00; font-weight: 600; }
.scroll { max-height: 420px; overflow: auto; display: inline-block; }
table.compare td { text-align: left; }
.hm { margin: 6px 0 8px; }
.hm-controls { display: flex; align-items: center; gap: 6px; flex-wrap: wrap; margin-bottom: 4px; }
.hm-label { font-weight: 600; margin-right: 4px; }
.hm-note { color: #555; font-size: 12px; }
.split-key { color: #00c8ff; font-weight: 700; }
button.metric { font: inherit; padding: 2px 10px; border: 1px solid #aaa; background: #f6f6f6; border-radius: 3px; cursor: pointer; }
button.metric.on { background: #333; color: #fff; border-color: #333; }
button.metric:disabled { opacity: .4; cursor: default; }
.hm-wrap { position: relative; display: inline-block; }
canvas.heatmap { display: block; }
.split-mark { position: absolute; width: 7px; margin-left: -3px; cursor: help; }
.tip { position: fixed; z-index: 10; pointer-events: none; background: rgba(20,20,20,.92); color: #fff; padding: 5px 8px; border-radius: 3px; font-size: 12px; white-space: pre; max-width: 640px; overflow: hidden; }
"#;

const SCRIPT: &str = r###"
(function () {
  "use strict";
  var LEFT = 190, TOP = 14, PW = 880, PH = 480;
  var tip = document.getElementById("tip");

  // Black -> red -> yellow -> white over t in [0, 1].
  function heat(t) {
    t = Math.max(0, Math.min(1, t));
    if (t < 1 / 3) return [Math.round(255 * 3 * t), 0, 0];
    if (t < 2 / 3) return [255, Math.round(255 * (3 * t - 1)), 0];
    return [255, 255, Math.round(255 * (3 * t - 2))];
  }
  // Byte 0 is "no count" (black); 1..255 start a little above black so a single count shows.
  var LUT = [];
  for (var q = 0; q < 256; q++) LUT.push(q === 0 ? [0, 0, 0] : heat(0.14 + 0.86 * (q - 1) / 254));

  function approx(q, max) {
    if (q === 0) return 0;
    if (max <= 1) return 1;
    return Math.round(Math.exp((q - 1) / 254 * Math.log(max)));
  }
  function fmt(n) { return Number(n).toLocaleString("en-US"); }
  function iso(ms) { return new Date(ms).toISOString().replace("T", " ").replace(".000Z", "Z"); }
  function offset(ms) {
    var s = Math.round(ms / 1000), d = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24,
        m = Math.floor(s / 60) % 60, x = s % 60;
    function p(n) { return (n < 10 ? "0" : "") + n; }
    if (d > 0) return "+" + d + "d" + p(h) + "h";
    if (h > 0) return "+" + h + "h" + p(m) + "m";
    return "+" + m + "m" + p(x) + "s";
  }
  function shorten(s, n) { return s.length > n ? s.slice(0, n - 1) + "\u2026" : s; }
  function decode(b64) {
    var s = atob(b64), a = new Uint8Array(s.length);
    for (var i = 0; i < s.length; i++) a[i] = s.charCodeAt(i);
    return a;
  }

  function setup(root) {
    var i = root.getAttribute("data-index");
    var el = document.getElementById("data-" + i);
    var data = JSON.parse(el.textContent);
    var canvas = document.getElementById("heatmap-" + i);
    var legend = document.getElementById("legend-" + i);
    var ctx = canvas.getContext("2d");
    var S = data.slices, B = data.buckets;
    var metrics = {};
    data.metrics.forEach(function (m) {
      metrics[m.name] = { max: m.max, totals: m.totals, q: m.q ? decode(m.q) : new Uint8Array(S * B) };
    });
    // Each plot column covers slices [xs0, xs1), each row buckets [ys0, ys1): a pixel shows
    // the largest cell it covers, so a hot bucket never disappears when 1,000 buckets
    // share 480 rows.
    var xs0 = [], xs1 = [], ys0 = [], ys1 = [];
    for (var x = 0; x < PW; x++) {
      var a = Math.floor(x * S / PW);
      xs0.push(a); xs1.push(Math.max(a + 1, Math.floor((x + 1) * S / PW)));
    }
    for (var y = 0; y < PH; y++) {
      var b = Math.floor(y * B / PH);
      ys0.push(b); ys1.push(Math.max(b + 1, Math.floor((y + 1) * B / PH)));
    }
    var span = S * data.slice_ms;
    function xOf(t) { return LEFT + (t - data.start_ms) / span * PW; }
    var current = null;

    function cellMax(m, x, y) {
      var best = 0;
      for (var s = xs0[x]; s < xs1[x]; s++)
        for (var b = ys0[y]; b < ys1[y]; b++) {
          var v = m.q[s * B + b];
          if (v > best) best = v;
        }
      return best;
    }

    function drawLegend(name) {
      var m = metrics[name], g = legend.getContext("2d");
      g.clearRect(0, 0, legend.width, legend.height);
      g.fillStyle = "#000"; g.fillRect(0, 4, 14, 14);
      for (var x = 0; x < 300; x++) {
        var c = LUT[1 + Math.round(x * 254 / 299)];
        g.fillStyle = "rgb(" + c[0] + "," + c[1] + "," + c[2] + ")";
        g.fillRect(20 + x, 4, 1, 14);
      }
      g.strokeStyle = "#888"; g.strokeRect(20.5, 4.5, 299, 13);
      g.fillStyle = "#333"; g.font = "10px sans-serif"; g.textBaseline = "top";
      g.fillText("0", 3, 22);
      [1, 64, 128, 192, 255].forEach(function (q, k) {
        var x = 20 + Math.round((q - 1) * 299 / 254);
        var label = fmt(approx(q, m.max));
        var w = g.measureText(label).width;
        g.fillText(label, Math.max(20, Math.min(x - w / 2, 358 - w)), 22);
      });
    }

    function draw(name) {
      current = name;
      var m = metrics[name];
      ctx.fillStyle = "#ffffff"; ctx.fillRect(0, 0, canvas.width, canvas.height);
      var img = ctx.createImageData(PW, PH), px = img.data;
      for (var y = 0; y < PH; y++)
        for (var x = 0; x < PW; x++) {
          var c = LUT[cellMax(m, x, y)], o = (y * PW + x) * 4;
          px[o] = c[0]; px[o + 1] = c[1]; px[o + 2] = c[2]; px[o + 3] = 255;
        }
      ctx.putImageData(img, LEFT, TOP);
      // Y axis: a few buckets named by their start keys (bucket 0, the lowest keys, on top).
      ctx.font = "11px ui-monospace, Menlo, Consolas, monospace";
      ctx.textBaseline = "middle"; ctx.textAlign = "right"; ctx.fillStyle = "#333";
      ctx.strokeStyle = "#999"; ctx.lineWidth = 1;
      var rows = Math.min(B, 12);
      for (var k = 0; k < rows; k++) {
        var yy = Math.round(k * PH / rows), bk = ys0[Math.min(yy, PH - 1)];
        var key = data.starts[bk] || (bk === 0 ? "(start)" : "");
        ctx.fillText(shorten(key, 26), LEFT - 6, TOP + yy + 6);
        ctx.beginPath(); ctx.moveTo(LEFT - 4, TOP + yy + 0.5); ctx.lineTo(LEFT, TOP + yy + 0.5); ctx.stroke();
      }
      // X axis: time since the start.
      ctx.textAlign = "center"; ctx.textBaseline = "top"; ctx.font = "11px sans-serif";
      for (var j = 0; j <= 8; j++) {
        var xx = LEFT + Math.round(j * PW / 8);
        ctx.beginPath(); ctx.moveTo(xx + 0.5, TOP + PH); ctx.lineTo(xx + 0.5, TOP + PH + 4); ctx.stroke();
        ctx.fillText(j === 0 ? iso(data.start_ms) : offset(j * span / 8), Math.min(xx, canvas.width - 36), TOP + PH + 6);
      }
      // Splits: a cyan tick above the plot and a dotted line through it.
      ctx.strokeStyle = "rgba(0,200,255,0.9)";
      data.splits.forEach(function (sp) {
        var sx = Math.round(xOf(sp.time)) + 0.5;
        ctx.setLineDash([]); ctx.beginPath(); ctx.moveTo(sx, 2); ctx.lineTo(sx, TOP); ctx.stroke();
        ctx.setLineDash([2, 3]); ctx.beginPath(); ctx.moveTo(sx, TOP); ctx.lineTo(sx, TOP + PH); ctx.stroke();
      });
      ctx.setLineDash([]);
      ctx.strokeStyle = "#666"; ctx.strokeRect(LEFT - 0.5, TOP - 0.5, PW + 1, PH + 1);
      drawLegend(name);
      Array.prototype.forEach.call(root.querySelectorAll("button.metric"), function (bt) {
        bt.classList.toggle("on", bt.getAttribute("data-metric") === name);
      });
    }

    // Split markers: elements over the canvas whose title is the split key.
    var wrap = canvas.parentNode;
    data.splits.forEach(function (sp) {
      var mk = document.createElement("div");
      mk.className = "split-mark";
      mk.style.left = Math.round(xOf(sp.time)) + "px";
      mk.style.top = "0px";
      mk.style.height = TOP + "px";
      mk.title = "split at " + iso(sp.time) + " (" + offset(sp.time - data.start_ms) + ", slice " + sp.slice + ")\nkey: " + sp.key;
      wrap.appendChild(mk);
    });

    canvas.addEventListener("mousemove", function (ev) {
      var r = canvas.getBoundingClientRect();
      var x = Math.floor(ev.clientX - r.left) - LEFT, y = Math.floor(ev.clientY - r.top) - TOP;
      if (x < 0 || y < 0 || x >= PW || y >= PH || !current) { tip.hidden = true; return; }
      var m = metrics[current], s0 = xs0[x], s1 = xs1[x], b0 = ys0[y], b1 = ys1[y];
      var t0 = data.start_ms + s0 * data.slice_ms, t1 = data.start_ms + s1 * data.slice_ms;
      var end = b1 < B ? data.starts[b1] : "(table end)";
      var total = 0;
      for (var b = b0; b < b1; b++) total += m.totals[b];
      var lines = [
        (s1 - s0 > 1 ? "slices " + s0 + "\u2013" + (s1 - 1) : "slice " + s0) + ": " + iso(t0) + " \u2013 " + iso(t1),
        (b1 - b0 > 1 ? "buckets " + b0 + "\u2013" + (b1 - 1) : "bucket " + b0) + ": [" + (data.starts[b0] || "(table start)") + ", " + end + ")",
        current + ": \u2248" + fmt(approx(cellMax(m, x, y), m.max)) + (b1 - b0 > 1 || s1 - s0 > 1 ? " (largest cell here)" : ""),
        current + " over all time in these keys: " + fmt(total)
      ];
      tip.textContent = lines.join("\n");
      tip.hidden = false;
      tip.style.left = Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 4) + "px";
      tip.style.top = (ev.clientY + 14) + "px";
    });
    canvas.addEventListener("mouseleave", function () { tip.hidden = true; });

    var first = null;
    Array.prototype.forEach.call(root.querySelectorAll("button.metric"), function (bt) {
      var name = bt.getAttribute("data-metric");
      if (!metrics[name]) { bt.disabled = true; return; }
      if (first === null) first = name;
      bt.addEventListener("click", function () { draw(name); });
    });
    if (first !== null && S > 0 && B > 0) draw(first);
    return canvas;
  }

  try {
    var canvases = Array.prototype.map.call(document.querySelectorAll(".hm"), setup);
    if (canvases.length > 0) {
      var r = canvases[0].getBoundingClientRect();
      document.body.dataset.heatmapRect = [Math.round(r.left + window.scrollX + LEFT), Math.round(r.top + window.scrollY + TOP), PW, PH].join(",");
    }
    document.body.dataset.rendered = "1";
  } catch (e) {
    document.body.dataset.renderError = String(e && e.stack || e);
  }
})();
"###;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::Design;
    use crate::heatmap::KeyBuckets;
    use crate::simulate::{SimOptions, SplitEvent, simulate};
    use crate::workload::Workload;

    const DESIGN: &str = r#"
name = "padded id </script><b>x"
table = "t"
rowkey = '''"<&" + pad(id, 8)'''
[table_options]
MEMSTORE_FLUSHSIZE = 1048576
[families.d]
columns = 1
value_size = 20
"#;

    const WORKLOAD: &str = r#"
name = "tiny"
seed = 3
duration = "60s"
rate = 50
read_rate = 5
[[reads]]
kind = "get"
"#;

    fn small_report() -> Result<Report, Box<dyn std::error::Error>> {
        let design = Design::parse(DESIGN, "<test>", std::path::Path::new("."))?;
        let workload = Workload::parse(WORKLOAD, "<test>")?;
        let options = SimOptions {
            slices: 30,
            buckets: 50,
            sample: 10_000,
        };
        Ok(simulate(&design, &workload, &options, &mut |_, _| {})?)
    }

    #[test]
    fn an_index_gets_its_heatmap_and_tables() -> Result<(), Box<dyn std::error::Error>> {
        let text = format!("{DESIGN}[[index]]\nname = \"by_id\"\nrowkey = \"'<' + pad(id, 4)\"\n");
        let design = Design::parse(&text, "<test>", std::path::Path::new("."))?;
        let workload = Workload::parse(
            &format!(
                "{WORKLOAD}[[reads]]\nkind = \"index\"\nindex = \"by_id\"\nfields = [\"id\"]\n"
            ),
            "<test>",
        )?;
        let options = SimOptions {
            slices: 30,
            buckets: 50,
            sample: 10_000,
        };
        let r = simulate(&design, &workload, &options, &mut |_, _| {})?;
        let plain = html(std::slice::from_ref(&small_report()?));
        assert!(!plain.contains("<h3>Indexes</h3>"));
        let page = html(std::slice::from_ref(&r));
        assert_self_contained(&page);
        for expected in [
            "<h3>Indexes</h3>",
            "class=\"index-reads\"",
            "id=\"heatmap-0-0\"",
            "id=\"data-0-0\"",
            "data-index=\"0-0\"",
            "Index by_id (entry, client-maintained)",
        ] {
            assert!(page.contains(expected), "{expected}");
        }
        // The index's keys are escaped like the base table's.
        assert!(!page.contains("'<' + pad"));
        let both = html(&[small_report()?, r]);
        assert!(both.contains("write amplification (rows · bytes)"));
        Ok(())
    }

    /// No element may fetch anything: no external src/href, stylesheet or import.
    fn assert_self_contained(page: &str) {
        let lower = page.to_ascii_lowercase();
        for bad in [
            "src=\"http",
            "src='http",
            "href=\"http",
            "href='http",
            "href=\"//",
            "src=\"//",
            "<link",
            "<img",
            "<iframe",
            "url(",
            "@import",
            "@font-face",
            "fetch(",
            "xmlhttprequest",
        ] {
            assert!(!lower.contains(bad), "the page fetches ({bad})");
        }
        // Every `src=` at all would be a fetch: the page has none.
        assert!(!lower.contains(" src="), "the page has a src attribute");
    }

    #[test]
    fn a_report_page_is_self_contained_and_escaped() -> Result<(), Box<dyn std::error::Error>> {
        let mut report = small_report()?;
        assert!(report.rows > 0);
        assert!(report.heatmap.writes.is_some());
        report.splits.push(SplitEvent {
            time: report.workload.start_ms + 1_000,
            slice: 0,
            key: "k<b>&\"'".to_string(),
            parent: "t,,1.abc".to_string(),
        });
        let page = html(std::slice::from_ref(&report));
        assert_self_contained(&page);
        for needle in [
            "id=\"heatmap-0\"",
            "class=\"heatmap\"",
            "class=\"region-table\"",
            "class=\"skew\"",
            "class=\"splits\"",
            "class=\"lint\"",
            "class=\"queries\"",
            "class=\"families\"",
            "class=\"hot-ranges\"",
            "id=\"legend-0\"",
            "data-metric=\"writes\"",
            "data-metric=\"reads\"",
            "data-metric=\"bytes\"",
            "document.body.dataset.rendered = \"1\"",
        ] {
            assert!(page.contains(needle), "missing {needle}");
        }
        // Keys start with `<&`: escaped in the tables, `\u003c` in the data.
        assert!(
            page.contains("&lt;&amp;000000"),
            "a hot range's key escaped"
        );
        assert!(
            page.contains("k&lt;b&gt;&amp;&quot;&#39;"),
            "split key escaped"
        );
        assert!(
            page.contains("\\u003c\\u0026"),
            "keys in the data are escaped"
        );
        assert!(!page.contains("<&"), "a raw key reached the page");
        assert!(!page.contains("k<b>"), "a raw split key reached the page");
        // The design's name tries to close the script element.
        assert!(!page.contains("</script><b>"));
        assert_eq!(
            page.matches("<script").count(),
            page.matches("</script>").count(),
            "every script element closes once"
        );
        assert!(page.contains("padded id &lt;/script&gt;&lt;b&gt;x"));
        // The data is JSON the script can read back.
        let start = page
            .find("<script type=\"application/json\" id=\"data-0\"")
            .ok_or("no data")?;
        let body = &page[start..];
        let open = body.find('>').ok_or("no data")? + 1;
        let close = body.find("</script>").ok_or("no data")?;
        let data: serde_json::Value = serde_json::from_str(&body[open..close])?;
        assert_eq!(data["slices"], 30);
        assert_eq!(data["metrics"][0]["name"], "writes");
        let totals: u64 = data["metrics"][0]["totals"]
            .as_array()
            .ok_or("no totals")?
            .iter()
            .filter_map(serde_json::Value::as_u64)
            .sum();
        assert_eq!(totals, report.rows, "the exact totals are kept");
        Ok(())
    }

    #[test]
    fn a_compare_page_puts_the_table_first() -> Result<(), Box<dyn std::error::Error>> {
        let a = small_report()?;
        let mut b = a.clone();
        b.design.name = "second".to_string();
        let page = html(&[a, b]);
        assert_self_contained(&page);
        let table = page.find("class=\"compare\"").ok_or("no compare table")?;
        let first = page.find("id=\"heatmap-0\"").ok_or("no heatmap-0")?;
        assert!(page.contains("id=\"heatmap-1\""));
        assert!(page.contains("id=\"data-1\""));
        assert!(table < first, "the comparison comes first");
        Ok(())
    }

    #[test]
    fn quantised_cells_keep_order_and_ends() {
        let ln = (1_000f64).ln();
        assert_eq!(quantise(0, ln), 0);
        assert_eq!(quantise(1, ln), 1);
        assert_eq!(quantise(1_000, ln), 255);
        assert!(quantise(10, ln) < quantise(100, ln));
        assert_eq!(quantise(1, 0.0), 255, "a map whose max is 1");
    }

    #[test]
    fn a_1000_by_300_page_stays_under_2_mb() -> Result<(), Box<dyn std::error::Error>> {
        let mut report = small_report()?;
        let (slices, buckets) = (300, 1_000);
        let start = report.workload.start_ms;
        let duration = 3_600_000;
        let keys: Vec<Vec<u8>> = (0..20_000u32)
            .map(|i| format!("user<{:08}>&tail", i * 7 % 20_000).into_bytes())
            .collect();
        let kb = KeyBuckets::from_sample(keys, buckets);
        assert_eq!(kb.len(), buckets);
        let mut maps = [0u64, 1, 2].map(|_| Heatmap::new(start, duration, slices, buckets));
        let slice_ms = maps[0].slice_ms();
        // Every cell counted, with counts over six orders of magnitude (bytes the widest).
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for s in 0..slices {
            for b in 0..buckets {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let ts = start + s as i64 * slice_ms;
                maps[0].add(ts, b, 1 + x % 5_000);
                maps[1].add(ts, b, 1 + (x >> 20) % 300);
                maps[2].add(ts, b, 1 + (x >> 8) % 5_000_000);
            }
        }
        let [w, r, by] = maps;
        report.heatmap.writes = Some(w);
        report.heatmap.reads = Some(r);
        report.heatmap.bytes = Some(by);
        report.heatmap.buckets = Some(kb);
        report.heatmap_shape.slices = slices;
        report.heatmap_shape.buckets = buckets;
        report.heatmap_shape.slice_ms = slice_ms;
        let page = html(&[report]);
        assert!(
            page.len() <= 2 * 1024 * 1024,
            "{} bytes for 1,000 × 300",
            page.len()
        );
        // Three metrics of 300k one-byte cells, base64: about 1.2 MB of the page.
        assert!(
            page.len() > 1_200_000,
            "{} bytes: data missing?",
            page.len()
        );
        assert_self_contained(&page);
        Ok(())
    }

    #[test]
    fn formats() {
        assert_eq!(int(0), "0");
        assert_eq!(int(1_234_567), "1,234,567");
        assert_eq!(int(999), "999");
        assert_eq!(clock(1_767_225_600_000 + 3_723_000), "2026-01-01 01:02:03");
        assert_eq!(span(3_723_000), "1h02m03s");
        assert_eq!(span(61_000), "1m01s");
        assert_eq!(
            esc("<a href='x'>&\""),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;"
        );
    }
}
