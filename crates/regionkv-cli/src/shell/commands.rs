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
            ("status", Available),
            ("table_help", Available),
            ("version", Available),
            ("whoami", Available),
        ],
    },
    Group {
        name: "ddl",
        summary: "create, alter, describe, list, enable/disable, drop tables",
        commands: &[
            ("alter", Available),
            ("alter_async", Available),
            ("alter_status", Available),
            ("clone_table_schema", Available),
            ("create", Available),
            ("describe", Available),
            ("disable", Available),
            ("disable_all", Available),
            ("drop", Available),
            ("drop_all", Available),
            ("enable", Available),
            ("enable_all", Available),
            ("exists", Available),
            ("get_table", Available),
            ("is_disabled", Available),
            ("is_enabled", Available),
            ("list", Available),
            ("list_regions", Available),
            ("locate_region", Available),
            ("show_filters", Available),
        ],
    },
    Group {
        name: "namespace",
        summary: "create, alter, describe, list and drop namespaces",
        commands: &[
            ("alter_namespace", Available),
            ("create_namespace", Available),
            ("describe_namespace", Available),
            ("drop_namespace", Available),
            ("list_namespace", Available),
            ("list_namespace_tables", Available),
        ],
    },
    Group {
        name: "dml",
        summary: "put, get, scan, delete, deleteall, incr, append, count, truncate",
        commands: &[
            ("append", Available),
            ("count", Available),
            ("delete", Available),
            ("deleteall", Available),
            ("get", Available),
            ("get_counter", Available),
            ("get_splits", Available),
            ("incr", Available),
            ("put", Available),
            ("scan", Available),
            ("truncate", Available),
            ("truncate_preserve", Available),
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
            ("compact", Available),
            ("compact_rs", ClusterOnly),
            ("compaction_state", Available),
            ("flush", Available),
            ("major_compact", Available),
            ("merge_region", Available),
            ("move", ClusterOnly),
            ("normalize", ClusterOnly),
            ("normalizer_enabled", ClusterOnly),
            ("normalizer_switch", ClusterOnly),
            ("split", Available),
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
        summary: "take, list, clone, restore and delete table snapshots",
        commands: &[
            ("clone_snapshot", Available),
            ("delete_all_snapshot", Available),
            ("delete_snapshot", Available),
            ("delete_table_snapshots", Available),
            ("list_snapshots", Available),
            ("list_table_snapshots", Available),
            ("restore_snapshot", Available),
            ("snapshot", Available),
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
    // regionkv's own group (not HBase's): the schema-design lab on a live table.
    Group {
        name: "lab",
        summary: "regionkv's schema-design lab on a live table (docs/lab.md)",
        commands: &[("lab_report", Available)],
    },
    // regionkv's own group (not HBase's): coprocessor endpoints, which HBase's shell does
    // not call (its users call them from Java).
    Group {
        name: "coprocessor",
        summary: "regionkv's call of the AggregateImplementation endpoint (docs/coprocessors.md)",
        commands: &[("aggregate", Available)],
    },
];

/// HBase's command aliases: (alias, command).
const ALIASES: &[(&str, &str)] = &[("desc", "describe"), ("hlog_roll", "wal_roll")];

/// The shell's own commands, which HBase's shell provides outside its command groups.
pub const BUILTINS: &[&str] = &["help", "exit", "quit", "clock", "refresh"];

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

/// Examples of an implemented command's forms, one per line (from HBase's help texts).
pub fn usage(name: &str) -> Option<&'static str> {
    Some(match name {
        "status" => "status\nstatus 'simple'\nstatus 'summary'\nstatus 'detailed'",
        "version" => "version",
        "whoami" => "whoami",
        "alter_async" => "alter_async 't1', NAME => 'f1', VERSIONS => 5",
        "alter_status" => "alter_status 't1'",
        "locate_region" => "locate_region 't1', 'key0'",
        "compaction_state" => "compaction_state 't1'",
        "clone_table_schema" => {
            "clone_table_schema 't1', 't2'\nclone_table_schema 't1', 't2', false"
        }
        "disable_all" => "disable_all 't.*'\ndisable_all 'ns:t.*'",
        "enable_all" => "enable_all 't.*'\nenable_all 'ns:t.*'",
        "drop_all" => "drop_all 't.*'\ndrop_all 'ns:t.*'",
        "snapshot" => {
            "snapshot 'sourceTable', 'snapshotName'\n\
             snapshot 'namespace:sourceTable', 'snapshotName', {SKIP_FLUSH => true}\n\
             snapshot 'sourceTable', 'snapshotName', {TTL => 86400}"
        }
        "list_snapshots" => "list_snapshots\nlist_snapshots 'abc.*'",
        "list_table_snapshots" => {
            "list_table_snapshots 'tableName'\nlist_table_snapshots 'tableName.*', 'snapshotName.*'"
        }
        "clone_snapshot" => {
            "clone_snapshot 'snapshotName', 'tableName'\n\
             clone_snapshot 'snapshotName', 'namespace:tableName', {RESTORE_ACL=>true}"
        }
        "restore_snapshot" => "restore_snapshot 'snapshotName'",
        "delete_snapshot" => "delete_snapshot 'snapshotName'",
        "delete_all_snapshot" => "delete_all_snapshot 's.*'",
        "delete_table_snapshots" => {
            "delete_table_snapshots 'tableName'\ndelete_table_snapshots 'tableName.*', 'snapshotName.*'"
        }
        "create_namespace" => {
            "create_namespace 'ns1'\ncreate_namespace 'ns1', {'PROPERTY_NAME' => 'PROPERTY_VALUE'}"
        }
        "alter_namespace" => {
            "alter_namespace 'ns1', {METHOD => 'set', 'PROPERTY_NAME' => 'PROPERTY_VALUE'}\n\
             alter_namespace 'ns1', {METHOD => 'unset', NAME => 'PROPERTY_NAME'}"
        }
        "table_help" => "table_help",
        "drop_namespace" => "drop_namespace 'ns1'",
        "describe_namespace" => "describe_namespace 'ns1'",
        "list_namespace" => "list_namespace\nlist_namespace 'abc.*'",
        "list_namespace_tables" => "list_namespace_tables 'ns1'",
        "get_table" => {
            "t1 = get_table 't1'\n\
             t1.put 'r1', 'f1:c1', 'v1'\n\
             t1.get 'r1'\n\
             t1.scan\n\
             t1.count"
        }
        "create" => {
            "create 'ns1:t1', {NAME => 'f1', VERSIONS => 5}\n\
             create 't1', 'f1', 'f2', 'f3'\n\
             create 't1', {NAME => 'f1', TTL => 86400, BLOOMFILTER => 'ROWCOL'}, {NAME => 'f2'}\n\
             create 't1', 'f1', SPLITS => ['10', '20', '30', '40']\n\
             create 't1', 'f1', SPLITS_FILE => 'splits.txt'\n\
             create 't1', 'f1', {NUMREGIONS => 15, SPLITALGO => 'HexStringSplit'}\n\
             create 't1', 'f1', MAX_FILESIZE => 134217728, DURABILITY => 'ASYNC_WAL'"
        }
        "alter" => {
            "alter 't1', NAME => 'f1', VERSIONS => 5\n\
             alter 't1', 'delete' => 'f1'\n\
             alter 't1', NAME => 'f1', METHOD => 'delete'\n\
             alter 't1', MAX_FILESIZE => '134217728'\n\
             alter 't1', CONFIGURATION => {'hbase.hstore.blockingStoreFiles' => '20'}\n\
             alter 't1', METHOD => 'table_att_unset', NAME => 'MAX_FILESIZE'"
        }
        "describe" => "describe 't1'\ndesc 'ns1:t1'",
        "list" => "list\nlist 'abc.*'\nlist 'ns:abc.*'",
        "exists" => "exists 't1'",
        "is_enabled" => "is_enabled 't1'",
        "is_disabled" => "is_disabled 't1'",
        "enable" => "enable 't1'",
        "disable" => "disable 't1'",
        "drop" => "drop 't1'",
        "list_regions" => {
            "list_regions 't1'\n\
             list_regions 't1', {LOCALITY_THRESHOLD => 0.8}\n\
             list_regions 't1', {}, ['START_KEY', 'END_KEY', 'SIZE', 'REQ']"
        }
        "put" => {
            "put 't1', 'r1', 'c1', 'value'\nput 't1', 'r1', 'c1', 'value', ts1\nput 't1', 'r1', 'c1', 'value', {TTL => 60000}"
        }
        "get" => {
            "get 't1', 'r1'\n\
             get 't1', 'r1', 'c1', 'c2'\n\
             get 't1', 'r1', {COLUMN => ['c1', 'c2'], VERSIONS => 4}\n\
             get 't1', 'r1', {COLUMN => 'c1', TIMERANGE => [ts1, ts2], VERSIONS => 4}\n\
             get 't1', 'r1', {COLUMN => 'c1', TIMESTAMP => ts1}\n\
             get 't1', 'r1', {FILTER => \"ValueFilter(=, 'binary:abc')\"}\n\
             get 't1', 'r1', {COLUMN => ['cf:qualifier1:toInt']}"
        }
        "scan" => {
            "scan 't1'\n\
             scan 't1', {COLUMNS => ['c1', 'c2'], LIMIT => 10, STARTROW => 'xyz'}\n\
             scan 't1', {ROWPREFIXFILTER => 'row2', REVERSED => true}\n\
             scan 't1', {RAW => true, VERSIONS => 10}\n\
             scan 't1', {TIMERANGE => [1303668804000, 1303668904000]}\n\
             scan 't1', {FILTER => \"(PrefixFilter ('row2') AND (QualifierFilter (>=, 'binary:xyz')))\"}"
        }
        "delete" => "delete 't1', 'r1', 'c1'\ndelete 't1', 'r1', 'c1', ts1",
        "deleteall" => {
            "deleteall 't1', 'r1'\n\
             deleteall 't1', 'r1', 'c1'\n\
             deleteall 't1', 'r1', 'c1', ts1\n\
             deleteall 't1', {ROWPREFIXFILTER => 'prefix'}"
        }
        "incr" => "incr 't1', 'r1', 'c1'\nincr 't1', 'r1', 'c1', 10",
        "get_counter" => "get_counter 't1', 'r1', 'c1'",
        "append" => "append 't1', 'r1', 'c1', 'value'",
        "count" => "count 't1'\ncount 't1', INTERVAL => 100000\ncount 't1', CACHE => 1000",
        "get_splits" => "get_splits 't1'",
        "lab_report" => "lab_report 't1', '/tmp/t1.html'",
        "aggregate" => {
            "aggregate 't1', 'rowcount'\n\
             aggregate 't1', 'sum', {COLUMNS => 'f:q'}\n\
             aggregate 't1', 'avg', {COLUMNS => 'f:q', STARTROW => 'a', STOPROW => 'm'}\n\
             aggregate 't1', 'median', {COLUMNS => ['f:value', 'f:weight']}\n\
             (methods: rowcount, sum, min, max, avg, std, median; the table must load\n\
             org.apache.hadoop.hbase.coprocessor.AggregateImplementation)"
        }
        "truncate" => "truncate 't1'",
        "truncate_preserve" => "truncate_preserve 't1'",
        "flush" => {
            "flush 'TABLENAME'\n\
             flush 'TABLENAME', 'FAMILYNAME'\n\
             flush 'REGIONNAME' # format: 'tableName,startKey,id' (or with its .ENCODED. suffix)\n\
             flush 'ENCODED_REGIONNAME'\n\
             flush 'REGIONNAME', 'FAMILYNAME'"
        }
        "compact" => {
            "compact 't1'\n\
             compact 't1', 'c1'\n\
             compact 'r1' # a full, 'tableName,startKey,id' or encoded region name\n\
             compact 'r1', 'c1'"
        }
        "major_compact" => {
            "major_compact 't1'\n\
             major_compact 't1', 'c1'\n\
             major_compact 'r1' # a full, 'tableName,startKey,id' or encoded region name\n\
             major_compact 'r1', 'c1'"
        }
        "split" => {
            "split 'tableName'\n\
             split 'namespace:tableName'\n\
             split 'regionName' # format: 'tableName,startKey,id' (or with its .ENCODED. suffix)\n\
             split 'ENCODED_REGIONNAME'\n\
             split 'tableName', 'splitKey'\n\
             split 'regionName', 'splitKey'\n\
             split 'ENCODED_REGIONNAME', 'splitKey'"
        }
        "merge_region" => {
            "merge_region 'ENCODED_REGIONNAME', 'ENCODED_REGIONNAME'\n\
             merge_region 'FULL_REGIONNAME', 'FULL_REGIONNAME', 'FULL_REGIONNAME', ...\n\
             merge_region 'ENCODED_REGIONNAME', 'ENCODED_REGIONNAME', true\n\
             merge_region ['ENCODED_REGIONNAME', 'ENCODED_REGIONNAME', ...]\n\
             merge_region ['FULL_REGIONNAME', 'FULL_REGIONNAME', ...], true"
        }
        _ => return None,
    })
}

/// HBase's `Hbase::Table.help` (hbase-shell/src/main/ruby/hbase/table.rb), which `table_help`
/// and `help 'table_help'` print; the paragraph on the methods names regionkv's, as its
/// shell has no JRuby object methods to complete.
pub const TABLE_HELP: &str = "\
Help for table-reference commands.

You can either create a table via 'create' and then manipulate the table via commands like 'put', 'get', etc.
See the standard help information for how to use each of these commands.

However, as of 0.96, you can also get a reference to a table, on which you can invoke commands.
For instance, you can get create a table and keep around a reference to it via:

   hbase> t = create 't', 'cf'

Or, if you have already created the table, you can get a reference to it:

   hbase> t = get_table 't'

You can do things like call 'put' on the table:

  hbase> t.put 'r', 'cf:q', 'v'

which puts a row 'r' with column family 'cf', qualifier 'q' and value 'v' into table t.

To read the data out, you can scan the table:

  hbase> t.scan

which will read all the rows in table 't'.

Essentially, any command that takes a table name can also be done via table reference.
Other commands include things like: get, delete, deleteall,
get_all_columns, get_counter, count, incr. In regionkv a table reference has
put, get, scan, count, delete, deleteall, incr, get_counter, append, get_splits,
get_all_columns, describe, enable, disable, flush, drop, name and help.

For more information on how to use each of these commands, you can also just type:

   hbase> t.help 'scan'

which will output more information on how to use that command.

You can also do general admin actions directly on a table; things like enable, disable,
flush and drop just by typing:

   hbase> t.enable
   hbase> t.flush
   hbase> t.disable
   hbase> t.drop

Note that after dropping a table, your reference to it becomes useless and further usage
is undefined (and not recommended).
";

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
            "clock" => {
                "clock MILLIS: freeze the engine clock at MILLIS (ms since the epoch), so that\n\
                 timestamps and TTL expiry are deterministic; clock: follow the system clock\n\
                 again (a regionkv extension; HBase has no such command)"
            }
            "refresh" => {
                "refresh: catch a read-only shell (--read-only) up with the process writing the\n\
                 directory: the flushed files and the WAL as of now (a regionkv extension;\n\
                 HBase has no such command). In a shell that holds the directory it does nothing"
            }
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
            if canonical(name) == "table_help" {
                writeln!(out)?;
                write!(out, "{TABLE_HELP}")?;
                return Ok(true);
            }
            if let Some(text) = usage(canonical(name)) {
                writeln!(out)?;
                for line in text.lines() {
                    writeln!(out, "  regionkv> {line}")?;
                }
            }
            if matches!(canonical(name), "create" | "alter" | "alter_async") {
                writeln!(out)?;
                super::ddl::write_attribute_help(out)?;
            }
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
            assert_eq!(lookup(name).map(|(_, s)| s), Some(Available), "{name}");
            assert!(usage(canonical(name)).is_some(), "{name}");
        }
        assert_eq!(lookup("merge_region").map(|(_, s)| s), Some(Available));
        assert!(usage("merge_region").is_some());
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
        assert!(text.contains("  dml                available           put, get, scan"));
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
        assert!(text.contains("desc (an alias of 'describe'): group ddl, available"));
        assert!(text.contains("  regionkv> describe 't1'\n"), "{text}");
    }
}
