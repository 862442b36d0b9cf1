//! Gathers input lines into complete chunks of statements and builds the IRB-style prompt.
//!
//! Both the interactive reader and the script runner feed lines through a [`Chunker`], so a
//! script behaves exactly as the same lines typed at the prompt: a statement left open by a
//! string, a bracket, or a trailing `,`, `=>` or `\` takes the next line too.
//!
//! The prompt is HBase 2.4's `hbase:001:0>` with our name: `regionkv:NNN:D> `, where `NNN`
//! counts input lines from 1 and `D` is the number of open brackets. Like IRB, a continuation
//! line ends in the open quote (`regionkv:002:0' `) or in `*` (`regionkv:002:1* `).
//!
//! Deciding completeness re-lexes the pending lines, so a script whose statement stays open
//! for many lines (a stray quote early in a long generated script) would cost time quadratic
//! in its length. A script chunker therefore checks a long pending chunk only when its line
//! count reaches a power of two: the total work stays linear, and the only effect is that
//! statements following a very long one may be parsed together with it (a syntax error in
//! such a group then stops the whole group). The interactive chunker checks every line.

use super::grammar::{Completeness, completeness};

/// Accumulates lines until they form a complete chunk.
#[derive(Debug)]
pub struct Chunker {
    /// The lines of the pending chunk.
    lines: Vec<String>,
    /// The line number of the pending chunk's first line.
    first_line: u32,
    /// The number the next line will have.
    next_line: u32,
    /// Whether the pending lines need more (always `Complete` when there are none).
    state: Completeness,
    /// Check completeness after every line, however long the pending chunk is.
    eager: bool,
}

/// Up to this many pending lines, a script chunker checks completeness after every line.
const EAGER_LINES: usize = 64;

impl Default for Chunker {
    fn default() -> Self {
        Chunker {
            lines: Vec::new(),
            first_line: 1,
            next_line: 1,
            state: Completeness::Complete,
            eager: true,
        }
    }
}

impl Chunker {
    /// A chunker for interactive input, whose first line is line 1.
    pub fn new() -> Self {
        Chunker::default()
    }

    /// A chunker for a script: long pending chunks are checked less often (see the module
    /// docs).
    pub fn for_script() -> Self {
        Chunker {
            eager: false,
            ..Chunker::default()
        }
    }

    /// Adds one line (without its line terminator). Returns the chunk and its first line
    /// number once the lines so far are complete.
    ///
    /// A line is taken by value and a one-line chunk handed back without a copy: a script
    /// line may be tens of megabytes (one large value).
    pub fn push(&mut self, line: impl Into<String>) -> Option<(String, u32)> {
        if self.lines.is_empty() {
            self.first_line = self.next_line;
        }
        self.lines.push(line.into());
        self.next_line = self.next_line.saturating_add(1);
        let pending = self.lines.len();
        if !self.eager && pending > EAGER_LINES && !pending.is_power_of_two() {
            return None;
        }
        let text = match self.lines.as_mut_slice() {
            [one] => std::mem::take(one),
            many => many.join("\n"),
        };
        match completeness(&text, &Default::default()) {
            Completeness::Complete => {
                self.lines.clear();
                self.state = Completeness::Complete;
                Some((text, self.first_line))
            }
            incomplete => {
                if let [one] = self.lines.as_mut_slice() {
                    *one = text;
                }
                self.state = incomplete;
                None
            }
        }
    }

    /// Takes whatever is pending at the end of the input (to be parsed, and so reported).
    pub fn finish(&mut self) -> Option<(String, u32)> {
        if self.lines.is_empty() {
            return None;
        }
        let text = self.lines.join("\n");
        self.discard();
        Some((text, self.first_line))
    }

    /// Drops the pending lines (Ctrl-C at the prompt).
    pub fn discard(&mut self) {
        self.lines.clear();
        self.state = Completeness::Complete;
    }

    /// The prompt for the next line.
    pub fn prompt(&self) -> String {
        let (depth, mark) = match self.state {
            Completeness::Complete => (0, '>'),
            Completeness::Incomplete {
                depth,
                quote: Some(quote),
            } => (depth, quote),
            Completeness::Incomplete { depth, quote: None } => (depth, '*'),
        };
        format!("regionkv:{:03}:{depth}{mark} ", self.next_line)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn complete_lines_come_back_at_once_with_their_line_numbers() {
        let mut c = Chunker::new();
        assert_eq!(c.prompt(), "regionkv:001:0> ");
        assert_eq!(c.push("version"), Some(("version".into(), 1)));
        assert_eq!(c.push(""), Some(("".into(), 2)));
        assert_eq!(c.prompt(), "regionkv:003:0> ");
        assert_eq!(c.finish(), None);
    }

    #[test]
    fn open_statements_take_more_lines_and_the_prompt_shows_why() {
        let mut c = Chunker::new();
        assert_eq!(c.push("version"), Some(("version".into(), 1)));
        assert_eq!(c.push("create 't1', {NAME => 'f1',"), None);
        assert_eq!(c.prompt(), "regionkv:003:1* ");
        assert_eq!(c.push("  VERSIONS => 'x"), None);
        assert_eq!(c.prompt(), "regionkv:004:1' ");
        assert_eq!(
            c.push("y'}"),
            Some((
                "create 't1', {NAME => 'f1',\n  VERSIONS => 'x\ny'}".into(),
                2
            ))
        );
        assert_eq!(c.prompt(), "regionkv:005:0> ");
    }

    #[test]
    fn broken_input_is_complete_and_leftovers_are_finished_or_discarded() {
        let mut c = Chunker::new();
        assert_eq!(c.push("put ]"), Some(("put ]".into(), 1)));
        assert_eq!(c.push("put \"abc"), None);
        assert_eq!(c.prompt(), "regionkv:003:0\" ");
        c.discard();
        assert_eq!(c.prompt(), "regionkv:003:0> ");
        assert_eq!(c.push("get 't',"), None);
        assert_eq!(c.finish(), Some(("get 't',".into(), 3)));
        assert_eq!(c.finish(), None);
    }

    #[test]
    fn a_script_chunker_checks_long_chunks_at_powers_of_two() {
        let mut c = Chunker::for_script();
        assert_eq!(c.push("put 'stray"), None);
        for _ in 2..=70 {
            assert_eq!(c.push("x"), None);
        }
        // Line 71 closes the string, but 71 is past 64 and not a power of two.
        assert_eq!(c.push("'"), None);
        for _ in 72..128 {
            assert_eq!(c.push("version"), None);
        }
        let (text, first) = c.push("version").unwrap();
        assert_eq!((text.lines().count(), first), (128, 1));
        // Short chunks are still checked after every line.
        assert_eq!(c.push("put 't',"), None);
        assert_eq!(c.push("'r'"), Some(("put 't',\n'r'".into(), 129)));
    }
}
