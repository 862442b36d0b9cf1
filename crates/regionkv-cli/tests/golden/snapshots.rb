# exit: 1
# The snapshot commands: HBase's output tables, questions (scripts give no answer, so the
# delete commands that ask do nothing) and error texts.
clock 1700000000000
create 't1', 'f', SPLITS => ['m']
put 't1', 'a', 'f:q', 'v1'
put 't1', 'x', 'f:q', 'v2'
snapshot 't1', 'snap1'
put 't1', 'a', 'f:q', 'v3'
snapshot 't1', 'snap2', {SKIP_FLUSH => true, TTL => 3600}
list_snapshots
list_snapshots 'snap1'
list_table_snapshots 't.*'
list_table_snapshots 't1', 'nope.*'
snapshot 't1', 'snap1'
snapshot 't1', '-bad'
snapshot 'nope', 'snap3'
clone_snapshot 'snap1', 't2'
scan 't2'
get_splits 't2'
clone_snapshot 'snap1', 't1'
clone_snapshot 'missing', 't3'
clone_snapshot 'snap1', 'nons:t3'
restore_snapshot 'snap1'
disable 't1'
restore_snapshot 'snap1'
enable 't1'
scan 't1'
delete_all_snapshot 'snap.*'
delete_table_snapshots 't1', 'snap2'
delete_table_snapshots 'zz.*'
delete_snapshot 'snap2'
delete_snapshot 'snap2'
list_snapshots
