//! The shell's command table: every command name of HBase 2.x's shell, grouped as HBase groups
//! them, with what this build of regionkv does with each, plus the text of `help` and
//! `version`.
//!
//! A name is in one of three states ([`Support`]): implemented here, part of regionkv's plan
//! but not built yet, or an HBase cluster-administration command (replication, security,
//! balancing, ...) that an embedded engine has no counterpart for. Names outside the table
//! are unknown, as an undefined method is in HBase's shell.

use std::io::{self, Write};

use Support::{Available, ClusterOnly, NotYet};

/// What this build does with a command name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    /// Implemented.
    Available,
    /// An HBase shell command regionkv intends to provide; not built yet.
    NotYet,
    /// An HBase cluster-administration command with no counterpart in an embedded engine.
    ClusterOnly,
}

/// A command group of HBase's shell.
#[derive(Debug)]
pub struct Group {
    /// The group name, as HBase's `help "GROUP"` takes it.
    pub name: &'static str,
    /// What the group is for.
    pub summary: &'static str,
    /// The commands of the group, sorted, with what this build does with each.
    pub commands: &'static [(&'static str, Support)],
}

/// HBase 2.x's command groups, in the order its `help` lists them.
pub const GROUPS: &[Group] = &[
    Group {
        name: "general",
        summary: "status, version, whoami, table_help",
        commands: &[
            ("processlist", ClusterOnly),
            ("status", NotYet),
            ("table_help", NotYet),
            ("version", Available),
            ("whoami", NotYet),
        ],
    },
    Group {
        name: "ddl",
        summary: "create, alter, describe, list, enable/disable, drop tables",
        commands: &[
            ("alter", NotYet),
            ("alter_async", NotYet),
            ("alter_status", NotYet),
            ("clone_table_schema", NotYet),
            ("create", NotYet),
            ("describe", NotYet),
            ("disable", NotYet),
            ("disable_all", NotYet),
            ("drop", NotYet),
            ("drop_all", NotYet),
            ("enable", NotYet),
            ("enable_all", NotYet),
            ("exists", NotYet),
            ("get_table", NotYet),
            ("is_disabled", NotYet),
            ("is_enabled", NotYet),
            ("list", NotYet),
            ("list_regions", NotYet),
            ("locate_region", NotYet),
            ("show_filters", NotYet),
        ],
    },
    Group {
        name: "namespace",
        summary: "create, alter, describe, list and drop namespaces",
        commands: &[
            ("alter_namespace", NotYet),
            ("create_namespace", NotYet),
            ("describe_namespace", NotYet),
            ("drop_namespace", NotYet),
            ("list_namespace", NotYet),
            ("list_namespace_tables", NotYet),
        ],
    },
    Group {
        name: "dml",
        summary: "put, get, scan, delete, deleteall, incr, append, count, truncate",
        commands: &[
            ("append", NotYet),
            ("count", NotYet),
            ("delete", NotYet),
            ("deleteall", NotYet),
            ("get", NotYet),
            ("get_counter", NotYet),
            ("get_splits", NotYet),
            ("incr", NotYet),
            ("put", NotYet),
            ("scan", NotYet),
            ("truncate", NotYet),
            ("truncate_preserve", NotYet),
        ],
    },
    Group {
        name: "tools",
        summary: "flush, compact, major_compact, split, merge_region; cluster surgery tools",
        commands: &[
            ("assign", ClusterOnly),
            ("balance_switch", ClusterOnly),
            ("balancer", ClusterOnly),
            ("balancer_enabled", ClusterOnly),
            ("catalogjanitor_enabled", ClusterOnly),
            ("catalogjanitor_run", ClusterOnly),
            ("catalogjanitor_switch", ClusterOnly),
            ("cleaner_chore_enabled", ClusterOnly),
            ("cleaner_chore_run", ClusterOnly),
            ("cleaner_chore_switch", ClusterOnly),
            ("close_region", ClusterOnly),
            ("compact", NotYet),
            ("compact_rs", ClusterOnly),
            ("compaction_state", NotYet),
            ("flush", NotYet),
            ("major_compact", NotYet),
            ("merge_region", NotYet),
            ("move", ClusterOnly),
            ("normalize", ClusterOnly),
            ("normalizer_enabled", ClusterOnly),
            ("normalizer_switch", ClusterOnly),
            ("split", NotYet),
            ("splitormerge_enabled", ClusterOnly),
            ("splitormerge_switch", ClusterOnly),
            ("trace", ClusterOnly),
            ("unassign", ClusterOnly),
            ("wal_roll", ClusterOnly),
            ("zk_dump", ClusterOnly),
        ],
    },
    Group {
        name: "replication",
        summary: "cluster replication peers",
        commands: &[
            ("add_peer", ClusterOnly),
            ("append_peer_tableCFs", ClusterOnly),
            ("disable_peer", ClusterOnly),
            ("disable_table_replication", ClusterOnly),
            ("enable_peer", ClusterOnly),
            ("enable_table_replication", ClusterOnly),
            ("get_peer_config", ClusterOnly),
            ("list_peer_configs", ClusterOnly),
            ("list_peers", ClusterOnly),
            ("list_replicated_tables", ClusterOnly),
            ("remove_peer", ClusterOnly),
            ("remove_peer_tableCFs", ClusterOnly),
            ("set_peer_bandwidth", ClusterOnly),
            ("set_peer_tableCFs", ClusterOnly),
            ("show_peer_tableCFs", ClusterOnly),
            ("update_peer_config", ClusterOnly),
        ],
    },
    Group {
        name: "snapshots",
        summary: "cluster snapshots",
        commands: &[
            ("clone_snapshot", ClusterOnly),
            ("delete_all_snapshot", ClusterOnly),
            ("delete_snapshot", ClusterOnly),
            ("delete_table_snapshots", ClusterOnly),
            ("list_snapshots", ClusterOnly),
            ("list_table_snapshots", ClusterOnly),
            ("restore_snapshot", ClusterOnly),
            ("snapshot", ClusterOnly),
        ],
    },
    Group {
        name: "configuration",
        summary: "online configuration of region servers",
        commands: &[
            ("update_all_config", ClusterOnly),
            ("update_config", ClusterOnly),
        ],
    },
    Group {
        name: "quotas",
        summary: "cluster quotas",
        commands: &[("list_quotas", ClusterOnly), ("set_quota", ClusterOnly)],
    },
    Group {
        name: "security",
        summary: "access control (grant, revoke)",
        commands: &[
            ("grant", ClusterOnly),
            ("list_security_capabilities", ClusterOnly),
            ("revoke", ClusterOnly),
            ("user_permission", ClusterOnly),
        ],
    },
    Group {
        name: "procedures",
        summary: "master procedures",
        commands: &[
            ("abort_procedure", ClusterOnly),
            ("list_procedures", ClusterOnly),
        ],
    },
    Group {
        name: "visibility labels",
        summary: "cell visibility labels",
        commands: &[
            ("add_labels", ClusterOnly),
            ("clear_auths", ClusterOnly),
            ("get_auths", ClusterOnly),
            ("list_labels", ClusterOnly),
            ("set_auths", ClusterOnly),
            ("set_visibility", ClusterOnly),
        ],
    },
    Group {
        name: "rsgroup",
        summary: "region server groups",
        commands: &[
            ("add_rsgroup", ClusterOnly),
            ("balance_rsgroup", ClusterOnly),
            ("get_rsgroup", ClusterOnly),
            ("get_server_rsgroup", ClusterOnly),
            ("get_table_rsgroup", ClusterOnly),
            ("list_rsgroups", ClusterOnly),
            ("move_servers_rsgroup", ClusterOnly),
            ("move_servers_tables_rsgroup", ClusterOnly),
            ("move_tables_rsgroup", ClusterOnly),
            ("remove_rsgroup", ClusterOnly),
        ],
    },
];

/// HBase's command aliases: (alias, command).
const ALIASES: &[(&str, &str)] = &[("desc", "describe"), ("hlog_roll", "wal_roll")];

/// The shell's own commands, which HBase's shell provides outside its command groups.
pub const BUILTINS: &[&str] = &["help", "exit", "quit"];

/// The HBase version whose semantics and shell regionkv follows.
pub const HBASE_SEMANTICS: &str = "2.x";

/// The command an alias stands for, or `name` itself.
pub fn canonical(name: &str) -> &str {
    ALIASES
        .iter()
        .find(|(alias, _)| *alias == name)
        .map_or(name, |(_, command)| command)
}

/// The group and support state of the command (or alias) `name`; `None` if HBase's shell has
/// no such command.
pub fn lookup(name: &str) -> Option<(&'static Group, Support)> {
    let name = canonical(name);
    GROUPS.iter().find_map(|group| {
        group
            .commands
            .iter()
            .find(|(command, _)| *command == name)
            .map(|(_, support)| (group, *support))
    })
}

/// The group named `name`.
pub fn group(name: &str) -> Option<&'static Group> {
    GROUPS.iter().find(|g| g.name == name)
}

/// What a group offers in this build, in a few words.
fn group_state(group: &Group) -> &'static str {
    let count = |s: Support| group.commands.iter().filter(|(_, x)| *x == s).count();
    let (available, not_yet) = (count(Available), count(NotYet));
    if available == group.commands.len() {
        "available"
    } else if available > 0 {
        "partly available"
    } else if not_yet > 0 {
        "not available yet"
    } else {
        "HBase cluster only"
    }
}

/// How `help "GROUP"` describes one command's state.
fn support_text(support: Support) -> &'static str {
    match support {
        Available => "available",
        NotYet => "not available yet",
        ClusterOnly => "HBase cluster only; not provided by regionkv",
    }
}

/// The `version` line.
pub fn version_line() -> String {
    format!(
        "regionkv {}, following Apache HBase {HBASE_SEMANTICS} semantics",
        env!("CARGO_PKG_VERSION")
    )
}

/// Writes the `help` overview: one line per command group.
pub fn write_help(out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "regionkv shell {}: the Apache HBase {HBASE_SEMANTICS} shell language on an embedded data directory.",
        env!("CARGO_PKG_VERSION")
    )?;
    writeln!(
        out,
        "Type 'help \"COMMAND_GROUP\"' (e.g. 'help \"dml\"') to see a group's commands, or 'help \"COMMAND\"'."
    )?;
    writeln!(
        out,
        "Shell commands: {} (Ctrl-D also leaves).",
        BUILTINS.join(", ")
    )?;
    writeln!(out)?;
    writeln!(out, "COMMAND GROUPS:")?;
    for group in GROUPS {
        writeln!(
            out,
            "  {:<19}{:<20}{}",
            group.name,
            group_state(group),
            group.summary
        )?;
    }
    writeln!(out)?;
    writeln!(out, "SHELL USAGE:")?;
    writeln!(
        out,
        "Quote all names, such as table and column names. Commas delimit command parameters.\n\
         Dictionaries of options are Ruby hashes: {{'key1' => 'value1', KEY2 => 2, ...}}; keys are\n\
         usually constants such as NAME, VERSIONS or TTL, which need no quotes. For binary keys or\n\
         values use double-quoted escapes, for example:\n\
         \n  regionkv> get 't1', \"key\\x03\\x3f\\xcd\"\n  regionkv> put 't1', \"test\\xef\\xff\", 'f1:', \"\\x01\\x33\\x40\"\n\
         \n\
         Single-quoted strings keep backslashes as they are, except \\\\ and \\'."
    )
}

/// Writes `help "NAME"` for a group or a command. Returns `false` if `name` is neither.
pub fn write_help_for(out: &mut dyn Write, name: &str) -> io::Result<bool> {
    if let Some(group) = group(name) {
        writeln!(out, "Group {}: {}", group.name, group.summary)?;
        for (command, support) in group.commands {
            writeln!(out, "  {command:<29}{}", support_text(*support))?;
        }
        return Ok(true);
    }
    if BUILTINS.contains(&name) {
        let text = match name {
            "help" => "help, help \"GROUP\", help \"COMMAND\": describe the shell's commands",
            _ => "exit, quit (optionally exit CODE): leave the shell",
        };
        writeln!(out, "{text}")?;
        return Ok(true);
    }
    match lookup(name) {
        Some((group, support)) => {
            let alias = match canonical(name) {
                command if command != name => format!(" (an alias of '{command}')"),
                _ => String::new(),
            };
            writeln!(
                out,
                "{name}{alias}: group {}, {}",
                group.name,
                support_text(support)
            )?;
            Ok(true)
        }
        None => Ok(false),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn every_command_is_in_one_group_and_groups_are_sorted() {
        let mut seen = BTreeSet::new();
        for group in GROUPS {
            let names: Vec<_> = group.commands.iter().map(|(n, _)| *n).collect();
            let mut sorted = names.clone();
            sorted.sort_unstable();
            assert_eq!(names, sorted, "group {}", group.name);
            for name in names {
                assert!(seen.insert(name), "{name} is listed twice");
                assert!(!BUILTINS.contains(&name));
            }
        }
        for (alias, command) in ALIASES {
            assert!(seen.contains(command) && !seen.contains(alias));
        }
    }

    #[test]
    fn the_commands_of_the_hbase_shell_reference_are_known() {
        let documented = [
            "create",
            "describe",
            "desc",
            "alter",
            "list",
            "put",
            "get",
            "scan",
            "delete",
            "deleteall",
            "incr",
            "get_counter",
            "append",
            "count",
            "flush",
            "compact",
            "major_compact",
            "split",
            "truncate",
            "truncate_preserve",
            "disable",
            "enable",
            "is_enabled",
            "is_disabled",
            "exists",
            "drop",
            "status",
            "list_regions",
            "get_splits",
        ];
        for name in documented {
            assert_eq!(lookup(name).map(|(_, s)| s), Some(NotYet), "{name}");
        }
        assert_eq!(
            lookup("version").map(|(g, s)| (g.name, s)),
            Some(("general", Available))
        );
        assert_eq!(lookup("grant").map(|(_, s)| s), Some(ClusterOnly));
        assert_eq!(lookup("hlog_roll").map(|(_, s)| s), Some(ClusterOnly));
        assert!(lookup("frobnicate").is_none());
        assert!(
            lookup("help").is_none(),
            "builtins are handled by the session"
        );
    }

    #[test]
    fn help_lists_every_group_on_one_line() {
        let mut out = Vec::new();
        write_help(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        for group in GROUPS {
            let lines: Vec<_> = text
                .lines()
                .filter(|l| l.starts_with(&format!("  {} ", group.name)))
                .collect();
            assert_eq!(lines.len(), 1, "{}: {text}", group.name);
        }
        assert!(text.contains("  general            partly available    status, version"));
        assert!(text.contains("  dml                not available yet   put, get, scan"));
        assert!(text.contains("  replication        HBase cluster only  "));
    }

    #[test]
    fn help_for_a_group_or_a_command() {
        let mut out = Vec::new();
        assert!(write_help_for(&mut out, "general").unwrap());
        assert!(write_help_for(&mut out, "desc").unwrap());
        assert!(write_help_for(&mut out, "exit").unwrap());
        assert!(!write_help_for(&mut out, "nope").unwrap());
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("  version                      available\n"),
            "{text}"
        );
        assert!(text.contains("desc (an alias of 'describe'): group ddl, not available yet"));
    }
}
