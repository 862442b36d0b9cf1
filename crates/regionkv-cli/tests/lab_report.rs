//! `regionkv lab report --html` opened in headless Chromium: the page's inline script runs
//! without error and marks the body rendered, the heatmap canvas and the tables are in the
//! DOM it leaves, and a screenshot shows the heatmap actually painted (not a blank canvas).
//!
//! Chromium is required, not optional: when it is not on PATH the test runs
//! `scripts/install-chromium.sh`, and when that cannot install it the test fails saying
//! why — a skipped browser check would let a page that no longer draws pass CI. The render
//! time is printed for information only (the project forbids timed assertions).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// How long one Chromium run may take before the test gives up on it: a guard against a
/// wedged browser hanging the suite, far above a normal run (about a second), not a
/// performance assertion.
const HANG_GUARD: Duration = Duration::from_secs(300);

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `chromium` or `chromium-browser` on PATH.
fn find_chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
        .find(|p| p.is_file())
}

/// Chromium, installed by `scripts/install-chromium.sh` when missing; panics with the
/// reason when there is none to be had.
fn chromium() -> PathBuf {
    if let Some(found) = find_chromium() {
        return found;
    }
    let script = repo_root().join("scripts/install-chromium.sh");
    let out = match Command::new("bash").arg(&script).output() {
        Ok(out) => out,
        Err(e) => panic!(
            "chromium is not on PATH and {} could not be run: {e}",
            script.display()
        ),
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        panic!(
            "chromium is not on PATH and {} could not install it ({}): {}{}\n\
             Install Chromium (Debian: `apt-get install chromium`) and run the test again.",
            script.display(),
            out.status,
            stdout,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The script prints the binary's path; a PATH lookup again covers a new install.
    let printed = stdout.lines().last().map(|l| PathBuf::from(l.trim()));
    match find_chromium().or(printed.filter(|p| p.is_file())) {
        Some(found) => found,
        None => panic!(
            "{} succeeded but no chromium binary can be found (it printed {stdout:?})",
            script.display()
        ),
    }
}

/// Runs `cmd` to completion, its output captured, giving up after [`HANG_GUARD`].
fn run(cmd: &mut Command) -> Result<Output, Box<dyn std::error::Error>> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    // Drain the pipes on threads so a chatty child never blocks on a full pipe.
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let mut stderr = child.stderr.take().ok_or("no stderr")?;
    let out_thread = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut buf);
        buf
    });
    let err_thread = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stderr, &mut buf);
        buf
    });
    let began = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if began.elapsed() > HANG_GUARD {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{cmd:?} did not finish in {HANG_GUARD:?}").into());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Ok(Output {
        status,
        stdout: out_thread.join().map_err(|_| "stdout reader panicked")?,
        stderr: err_thread.join().map_err(|_| "stderr reader panicked")?,
    })
}

/// Chromium, headless, on `page` with the given output flag; its own profile directory
/// under `tmp` so runs never share (or lock) one.
fn headless(
    chromium: &Path,
    tmp: &Path,
    page: &Path,
    output_flag: &str,
) -> Result<(Output, Duration), Box<dyn std::error::Error>> {
    let mut cmd = Command::new(chromium);
    cmd.args([
        "--headless=new",
        // Root (CI containers) cannot use the sandbox.
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--window-size=1400,1000",
        "--virtual-time-budget=5000",
        // Containers give /dev/shm 64 MB, which Chromium can outgrow.
        "--disable-dev-shm-usage",
        "--no-first-run",
    ])
    .arg(format!(
        "--user-data-dir={}",
        tmp.join(format!("profile{}", output_flag.len())).display()
    ))
    .arg(output_flag)
    .arg(format!("file://{}", page.display()));
    let began = Instant::now();
    let out = run(&mut cmd)?;
    let took = began.elapsed();
    if !out.status.success() {
        return Err(format!(
            "chromium {output_flag} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok((out, took))
}

/// The value of attribute `name` in the first `<tag ...>` of `dom`.
fn attribute<'a>(dom: &'a str, tag: &str, name: &str) -> Option<&'a str> {
    let start = dom.find(&format!("<{tag}"))?;
    let head = &dom[start..start + dom[start..].find('>')?];
    let at = head.find(&format!(" {name}=\""))? + name.len() + 3;
    let len = head[at..].find('"')?;
    Some(&head[at..at + len])
}

#[test]
fn the_report_page_renders_in_headless_chromium() -> TestResult {
    let chromium = chromium();
    let tmp = tempfile::tempdir()?;
    let page = tmp.path().join("r.html");

    let out = run(Command::new(env!("CARGO_BIN_EXE_regionkv")).args([
        "lab".as_ref(),
        "report".as_ref(),
        "--key".as_ref(),
        "pad(id, 8)".as_ref(),
        "--rows".as_ref(),
        "20000".as_ref(),
        "--html".as_ref(),
        page.as_os_str(),
        "--quiet".as_ref(),
    ]))?;
    assert!(
        out.status.success(),
        "regionkv lab report failed ({}): {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page)?;
    println!("report page: {} bytes", html.len());

    // (a) + (b): the DOM after the script ran.
    let (out, took) = headless(&chromium, tmp.path(), &page, "--dump-dom")?;
    println!("chromium --dump-dom: {took:?} (wall clock, information only)");
    let dom = String::from_utf8(out.stdout)?;
    if let Some(err) = attribute(&dom, "body", "data-render-error") {
        panic!("the page's script failed: {err}");
    }
    assert_eq!(
        attribute(&dom, "body", "data-rendered"),
        Some("1"),
        "the script did not mark the body rendered; chromium said: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for needle in [
        "id=\"heatmap-0\"",
        "class=\"heatmap\"",
        "class=\"region-table\"",
        "class=\"skew\"",
        "class=\"splits\"",
        "class=\"queries\"",
        "class=\"lint\"",
        "class=\"metric on\"",
    ] {
        assert!(dom.contains(needle), "the rendered DOM lacks {needle}");
    }
    let rect: Vec<u32> = attribute(&dom, "body", "data-heatmap-rect")
        .ok_or("no data-heatmap-rect on body")?
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let [x0, y0, w, h] = rect[..] else {
        return Err(format!("data-heatmap-rect {rect:?}").into());
    };

    // (c): a screenshot at the same window size; the heatmap's plot area must be painted.
    let shot = tmp.path().join("shot.png");
    let flag = format!("--screenshot={}", shot.display());
    let (_, took) = headless(&chromium, tmp.path(), &page, &flag)?;
    println!("chromium --screenshot: {took:?} (wall clock, information only)");
    let mut decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot)?));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info()?;
    let mut buf = vec![0; reader.output_buffer_size().ok_or("PNG too large")?];
    let info = reader.next_frame(&mut buf)?;
    let channels = info.color_type.samples();
    assert!(
        channels >= 3,
        "screenshot is {:?}, not colour",
        info.color_type
    );
    assert!(
        x0 + w <= info.width && y0 + h <= info.height,
        "the heatmap ({x0},{y0} {w}×{h}) is outside the {}×{} screenshot",
        info.width,
        info.height
    );
    let pixel = |x: u32, y: u32| -> [u8; 3] {
        let o = y as usize * info.line_size + x as usize * channels;
        [buf[o], buf[o + 1], buf[o + 2]]
    };
    let mut page_colours = HashSet::new();
    for y in 0..info.height {
        for x in 0..info.width {
            page_colours.insert(pixel(x, y));
        }
    }
    let (mut painted, mut heat) = (0u64, 0u64);
    let mut heat_colours = HashSet::new();
    for y in y0..y0 + h {
        for x in x0..x0 + w {
            let [r, g, b] = pixel(x, y);
            // The page is white; an undrawn canvas is transparent, so white too.
            if [r, g, b] != [255, 255, 255] {
                painted += 1;
            }
            // The colour scale's warm colours (red through yellow), not black (no count).
            if r >= 60 && r >= g && b <= g.max(r / 2) {
                heat += 1;
                heat_colours.insert([r, g, b]);
            }
        }
    }
    let area = u64::from(w) * u64::from(h);
    println!(
        "screenshot {}×{}: {} colours; heatmap {w}×{h}: {painted} painted, {heat} heat pixels \
         in {} colours",
        info.width,
        info.height,
        page_colours.len(),
        heat_colours.len()
    );
    assert!(
        painted * 10 >= area * 9,
        "only {painted} of {area} heatmap pixels are painted: the canvas was not drawn"
    );
    // A sequential key writes one narrow diagonal band: a few thousand warm pixels.
    assert!(
        heat >= 500,
        "only {heat} heat-coloured pixels: the counts were not drawn"
    );
    assert!(
        heat_colours.len() >= 8,
        "only {} heat colours: the log scale was not applied",
        heat_colours.len()
    );
    assert!(
        page_colours.len() >= 64,
        "only {} colours in the screenshot: a blank page",
        page_colours.len()
    );
    Ok(())
}
