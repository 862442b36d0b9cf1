# Issue 27, point 4: alter_async, alter_status, locate_region, compaction_state,
# clone_table_schema, and disable_all / enable_all / drop_all. A script has no terminal to
# answer their y/n question: the tables are listed, the question asked, nothing is done.
# exit: 1
clock 1700000000000
create 't1', 'f', SPLITS => ['m']
create 't2', 'f'
alter_async 't1', NAME => 'f', VERSIONS => 3
describe 't1'
alter_status 't1'
locate_region 't1', 'a'
locate_region 't1', 'z'
compaction_state 't1'
clone_table_schema 't1', 't3'
get_splits 't3'
clone_table_schema 't1', 't4', false
get_splits 't4'
disable_all 't.*'
disable_all 'nothing.*'
enable_all 't[12]'
drop_all 't.*'
list
# Errors.
alter_status 'nope'
locate_region 'nope', 'a'
compaction_state 't1', 'BOGUS'
clone_table_schema 'nope', 't5'
clone_table_schema 't1', 't2'
