//! Datadriven test files: the parser, the comparison and the rewrite of pebble's
//! `datadriven` package, in this workspace's golden notation (the one
//! `tests/testdata/semantics/README.md` documents). This module owns the notation only;
//! what a command means belongs to the test that runs the file.
//!
//! ```text
//! # A comment line. Blank lines and comments are kept by a rewrite.
//! create t families=cf splits=m      # a trailing comment starts at ` #`
//! split t at=g
//! > error: the output of the command above, one `> ` line per output line
//! >
//! > (a `>` alone is an empty output line)
//! ```
//!
//! * One command per line: a word, then arguments separated by white space (`key=value`
//!   or plain words; the test decides which it takes). ` #` and everything after it is a
//!   comment, so values cannot contain ` #`.
//! * The expected output is the block of `>` lines directly after its command: a blank
//!   or comment line between them is an error, so a block cannot silently float away from
//!   its command. No block means "prints nothing".
//! * Expected and actual lines are compared without trailing white space (editors strip
//!   it); leading white space after the `> ` is kept.
//!
//! [`check_file`] runs every command of a file through a closure, compares each output
//! with its block, and reports each mismatch with the file, the line and a diff (`-`
//! expected, `+` actual); with rewrite requested it writes the actual outputs into the
//! file instead, keeping everything else byte for byte. A command that panics fails the
//! file in both modes, and a file that panicked is never rewritten: a rewrite cannot turn a
//! crash into an expectation.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// One command of a file and the output expected from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// 1-based line of the command.
    pub line: usize,
    /// The command line without its trailing comment and outer white space.
    pub text: String,
    /// The first word.
    pub command: String,
    /// The other words, as written.
    pub args: Vec<String>,
    /// The `>` lines after the command (`None`: there were none).
    pub expected: Option<Vec<String>>,
    /// 1-based line of the first `>` line, when there is one.
    pub expected_line: Option<usize>,
}

impl Step {
    /// The value of the first `key=value` argument.
    pub fn value(&self, key: &str) -> Option<&str> {
        self.args
            .iter()
            .find_map(|a| a.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
    }

    /// True when `word` is one of the arguments.
    pub fn has(&self, word: &str) -> bool {
        self.args.iter().any(|a| a == word)
    }

    /// The `i`-th argument.
    pub fn arg(&self, i: usize) -> Option<&str> {
        self.args.get(i).map(String::as_str)
    }
}

/// A line a file cannot have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// `line` without a trailing ` # comment` and without outer white space.
pub fn strip_comment(line: &str) -> &str {
    match line.find(" #") {
        Some(i) => line[..i].trim(),
        None => line.trim(),
    }
}

/// The expected line a `>` line holds, or `None` for another line.
fn expected_line(raw: &str) -> Option<&str> {
    let rest = raw.trim_start().strip_prefix('>')?;
    Some(rest.strip_prefix(' ').unwrap_or(rest).trim_end())
}

/// Every command of `text` with its expected block.
pub fn parse(text: &str) -> Result<Vec<Step>, ParseError> {
    let mut steps: Vec<Step> = Vec::new();
    // Whether a `>` line may follow: the previous line was a command or a `>` line.
    let mut in_block = false;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if let Some(exp) = expected_line(raw) {
            let step = steps
                .last_mut()
                .filter(|_| in_block)
                .ok_or_else(|| ParseError {
                    line,
                    message: "`>` lines must directly follow a command".into(),
                })?;
            step.expected_line.get_or_insert(line);
            step.expected
                .get_or_insert_with(Vec::new)
                .push(exp.to_string());
            continue;
        }
        let trimmed = raw.trim();
        in_block = false;
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let text = strip_comment(trimmed);
        let mut words = text.split_whitespace().map(String::from);
        let Some(command) = words.next() else {
            continue;
        };
        steps.push(Step {
            line,
            text: text.to_string(),
            command,
            args: words.collect(),
            expected: None,
            expected_line: None,
        });
        in_block = true;
    }
    Ok(steps)
}

/// `lines` as an expected block: `> line`, or `>` for an empty line.
pub fn block(lines: &[String]) -> String {
    let mut out = String::new();
    for l in lines {
        let l = l.trim_end();
        if l.is_empty() {
            out.push_str(">\n");
        } else {
            let _ = writeln!(out, "> {l}");
        }
    }
    out
}

/// `text` with every expected block removed and, after each command line named in
/// `blocks` (by 1-based line), that block written. Every other line stays as it is. Only
/// for a text [`parse`] accepts (there, every `>` line belongs to a command).
pub fn rewritten(text: &str, blocks: &BTreeMap<usize, Vec<String>>) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.lines().enumerate() {
        if expected_line(line).is_some() {
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if let Some(lines) = blocks.get(&(i + 1)) {
            out.push_str(&block(lines));
        }
    }
    out
}

/// A line diff (longest common subsequence), indented for a failure message: `-` only
/// in `expected`, `+` only in `actual`, the lines both have unmarked.
pub fn diff(expected: &[String], actual: &[String]) -> String {
    let (n, m) = (expected.len(), actual.len());
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if expected[i] == actual[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = String::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && expected[i] == actual[j] {
            let _ = writeln!(out, "      {}", expected[i]);
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            let _ = writeln!(out, "    - {}", expected[i]);
            i += 1;
        } else {
            let _ = writeln!(out, "    + {}", actual[j]);
            j += 1;
        }
    }
    out
}

/// The lines of a command's output as they are compared: split at newlines (one final
/// newline ends the last line rather than adding an empty one), trailing white space
/// dropped.
pub fn output_lines(output: &str) -> Vec<String> {
    output.lines().map(|l| l.trim_end().to_string()).collect()
}

/// What running one file found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Commands run (up to a panic).
    pub steps: usize,
    /// Every failure, each naming the file and line: output mismatches (not in rewrite
    /// mode), a parse error, a panic, an empty file, an unreadable or unwritable file.
    pub failures: Vec<String>,
    /// True when rewrite mode changed the file.
    pub rewritten: bool,
}

/// Runs every command of the file at `path` through `run` (which returns the command's
/// output) and compares. With `rewrite`, a file whose commands all ran without panicking
/// gets the actual outputs as its expected blocks, and mismatches are not failures.
pub fn check_file(path: &Path, rewrite: bool, mut run: impl FnMut(&Step) -> String) -> Outcome {
    let mut out = Outcome::default();
    let name = path.display();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            out.failures.push(format!("{name}: {e}"));
            return out;
        }
    };
    let steps = match parse(&text) {
        Ok(s) => s,
        Err(e) => {
            out.failures
                .push(format!("{name}:{}: {}", e.line, e.message));
            return out;
        }
    };
    if steps.is_empty() {
        out.failures.push(format!("{name}: no commands"));
        return out;
    }
    let mut blocks = BTreeMap::new();
    for step in &steps {
        let at = format!("{name}:{}: `{}`", step.line, step.text);
        let output = match catch_unwind(AssertUnwindSafe(|| run(step))) {
            Ok(o) => o,
            Err(panic) => {
                out.failures
                    .push(format!("{at}\n    panicked: {}", panic_message(&*panic)));
                // The state behind the remaining commands is unknown, and a file that
                // panicked is never rewritten.
                return out;
            }
        };
        out.steps += 1;
        let actual = output_lines(&output);
        let expected = step.expected.clone().unwrap_or_default();
        if actual != expected && !rewrite {
            out.failures.push(format!(
                "{at}\n    output differs (- expected, + actual):\n{}",
                diff(&expected, &actual)
            ));
        }
        if !actual.is_empty() {
            blocks.insert(step.line, actual);
        }
    }
    if rewrite {
        let new = rewritten(&text, &blocks);
        if new != text {
            match std::fs::write(path, new) {
                Ok(()) => out.rewritten = true,
                Err(e) => out.failures.push(format!("{name}: rewrite: {e}")),
            }
        }
    }
    out
}

/// [`check_file`] as a test: rewrites when [`crate::rewrite_requested`], and panics
/// with every failure of the file.
///
/// # Panics
///
/// On any failure [`check_file`] reports.
pub fn run_file(path: &Path, run: impl FnMut(&Step) -> String) {
    let out = check_file(path, crate::rewrite_requested(), run);
    if out.rewritten {
        eprintln!("rewrote {}", path.display());
    }
    assert!(
        out.failures.is_empty(),
        "{} failure(s):\n\n{}",
        out.failures.len(),
        out.failures.join("\n\n")
    );
}

/// The `*.txt` files of `dir`, sorted by name.
///
/// # Panics
///
/// When `dir` cannot be read or holds no `.txt` file: a runner that finds nothing to run
/// must not pass.
pub fn test_files(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("testdata directory {}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .map(|e| {
            e.unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .path()
        })
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no *.txt files in testdata directory {}",
        dir.display()
    );
    files
}

/// The message of a caught panic.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic without a message)".to_string()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const FILE: &str = "\
# A file header.

create t families=cf splits=m   # trailing comment
> ok
put t a cf:q=1
scan t
> a/cf:q=1
>
>   indented
# between commands
flush t
";

    /// A file in a directory of its own, removed with it on drop (no `tempfile`
    /// dependency for this crate).
    struct TempFile {
        path: PathBuf,
    }

    impl Drop for TempFile {
        fn drop(&mut self) {
            if let Some(dir) = self.path.parent() {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }

    impl std::ops::Deref for TempFile {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.path
        }
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("regionkv-datadriven-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn temp_file(name: &str, text: &str) -> TempFile {
        let path = temp_dir(name).join(format!("{name}.txt"));
        std::fs::write(&path, text).unwrap();
        TempFile { path }
    }

    #[test]
    fn parses_commands_arguments_and_blocks() {
        let steps = parse(FILE).unwrap();
        assert_eq!(steps.len(), 4);
        let create = &steps[0];
        assert_eq!((create.line, create.command.as_str()), (3, "create"));
        assert_eq!(create.text, "create t families=cf splits=m");
        assert_eq!(create.args, ["t", "families=cf", "splits=m"]);
        assert_eq!(create.value("families"), Some("cf"));
        assert_eq!(create.value("split"), None, "a key is a whole word");
        assert!(create.has("t") && !create.has("cf"));
        assert_eq!(create.expected.as_deref(), Some(&["ok".to_string()][..]));
        assert_eq!(create.expected_line, Some(4));
        assert_eq!(steps[1].expected, None);
        assert_eq!(steps[1].arg(2), Some("cf:q=1"));
        assert_eq!(
            steps[2].expected.as_deref().unwrap(),
            ["a/cf:q=1", "", "  indented"]
        );
        assert_eq!((steps[3].line, steps[3].expected.clone()), (11, None));
    }

    #[test]
    fn trailing_comments_need_a_space_before_the_hash() {
        assert_eq!(strip_comment("put t r cf:q=a#b # note"), "put t r cf:q=a#b");
        assert_eq!(strip_comment("  scan t\t"), "scan t");
        let steps = parse("scan t # what\n> x # kept: output is not a command\n").unwrap();
        assert_eq!(steps[0].text, "scan t");
        assert_eq!(
            steps[0].expected.as_deref().unwrap(),
            ["x # kept: output is not a command"]
        );
    }

    #[test]
    fn a_block_must_follow_its_command() {
        let err = |t: &str| parse(t).unwrap_err();
        assert_eq!(err("> x\n").line, 1);
        assert_eq!(err("scan t\n\n> x\n").line, 3);
        assert_eq!(err("scan t\n# c\n> x\n").line, 3);
        assert_eq!(
            err("scan t\n\n> x\n").to_string(),
            "line 3: `>` lines must directly follow a command"
        );
    }

    #[test]
    fn rewriting_with_the_same_outputs_gives_the_same_text() {
        let steps = parse(FILE).unwrap();
        let blocks: BTreeMap<usize, Vec<String>> = steps
            .iter()
            .filter_map(|s| s.expected.clone().map(|e| (s.line, e)))
            .collect();
        assert_eq!(rewritten(FILE, &blocks), FILE);
    }

    #[test]
    fn rewrite_replaces_blocks_and_keeps_comments_and_blank_lines() {
        let path = temp_file("rewrite", FILE);
        let outputs = ["", "", "b/cf:q=2\n", "flushed\n\n"];
        let mut i = 0;
        let out = check_file(&path, true, |_| {
            i += 1;
            outputs[i - 1].to_string()
        });
        assert!(out.failures.is_empty(), "{:?}", out.failures);
        assert!(out.rewritten);
        let text = std::fs::read_to_string(&*path).unwrap();
        assert_eq!(
            text,
            "\
# A file header.

create t families=cf splits=m   # trailing comment
put t a cf:q=1
scan t
> b/cf:q=2
# between commands
flush t
> flushed
>
"
        );
        // The rewritten file now passes a check with the same outputs.
        let mut i = 0;
        let again = check_file(&path, false, |_| {
            i += 1;
            outputs[i - 1].to_string()
        });
        assert!(again.failures.is_empty(), "{:?}", again.failures);
        assert_eq!(again.steps, 4);
    }

    #[test]
    fn mismatches_name_the_file_line_and_diff() {
        let path = temp_file("mismatch", FILE);
        let out = check_file(&path, false, |s| match s.command.as_str() {
            "create" => "ok\n".into(),
            "scan" => "a/cf:q=1\n\n  indented\nextra\n".into(),
            "flush" => "unexpected\n".into(),
            _ => String::new(),
        });
        assert_eq!(out.steps, 4);
        assert_eq!(out.failures.len(), 2, "{:#?}", out.failures);
        let name = path.display().to_string();
        assert!(out.failures[0].starts_with(&format!("{name}:6: `scan t`")));
        assert!(
            out.failures[0].contains("\n    + extra\n"),
            "{}",
            out.failures[0]
        );
        assert!(out.failures[0].contains("\n      a/cf:q=1\n"));
        assert!(out.failures[1].starts_with(&format!("{name}:11: `flush t`")));
        assert!(out.failures[1].contains("\n    + unexpected\n"));
        assert_eq!(std::fs::read_to_string(&*path).unwrap(), FILE, "no rewrite");
    }

    #[test]
    fn a_panic_fails_the_file_even_in_rewrite_mode_and_nothing_is_rewritten() {
        let path = temp_file("panic", FILE);
        for rewrite in [false, true] {
            let out = check_file(&path, rewrite, |s| {
                assert!(s.command != "put", "engine exploded");
                "ok\n".to_string()
            });
            assert_eq!(out.steps, 1, "the commands after the panic do not run");
            assert_eq!(out.failures.len(), 1);
            assert!(out.failures[0].contains(":5: `put t a cf:q=1`"));
            assert!(out.failures[0].contains("panicked: engine exploded"));
            assert!(!out.rewritten);
            assert_eq!(std::fs::read_to_string(&*path).unwrap(), FILE);
        }
    }

    #[test]
    fn empty_and_malformed_files_fail() {
        let empty = temp_file("empty", "# only a comment\n");
        let out = check_file(&empty, true, |_| String::new());
        assert!(
            out.failures[0].ends_with("no commands"),
            "{:?}",
            out.failures
        );
        let bad = temp_file("bad", "scan t\n\n> x\n");
        let out = check_file(&bad, true, |_| String::new());
        assert!(out.failures[0].ends_with(":3: `>` lines must directly follow a command"));
        let missing = empty.with_file_name("missing.txt");
        assert_eq!(
            check_file(&missing, false, |_| String::new())
                .failures
                .len(),
            1
        );
    }

    #[test]
    #[should_panic(expected = "no *.txt files")]
    fn a_directory_without_files_fails() {
        let dir = temp_file("none", "");
        std::fs::remove_file(&*dir).unwrap();
        test_files(dir.parent().unwrap());
    }

    #[test]
    #[should_panic(expected = "testdata directory")]
    fn a_missing_directory_fails() {
        test_files(Path::new("/nonexistent/regionkv/testdata"));
    }

    #[test]
    fn diff_marks_removed_and_added_lines() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            diff(&s(&["a", "b", "c"]), &s(&["a", "x", "c"])),
            "      a\n    - b\n    + x\n      c\n"
        );
        assert_eq!(output_lines("a  \n\nb\n"), s(&["a", "", "b"]));
        assert!(output_lines("").is_empty());
    }
}
