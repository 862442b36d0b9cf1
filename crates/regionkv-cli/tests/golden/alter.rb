# alter: add and modify families, delete them (both forms), table attributes and their
# unset, configuration, then describe; and alter's errors.
# exit: 1
clock 1700000000000
create 't1', 'f1', 'f2'
put 't1', 'r1', 'f1:a', 'kept'
alter 't1', NAME => 'f1', VERSIONS => 5
alter 't1', {NAME => 'f3', TTL => 3600}, {NAME => 'f1', BLOOMFILTER => 'NONE'}
alter 't1', 'delete' => 'f2'
alter 't1', NAME => 'f3', METHOD => 'delete'
alter 't1', MAX_FILESIZE => '134217728', DURABILITY => 'SKIP_WAL', CONFIGURATION => {'hbase.hstore.blockingStoreFiles' => '20'}
alter 't1', METHOD => 'table_att', READONLY => true, NOPE => 1
describe 't1'
alter 't1', METHOD => 'table_att_unset', NAME => 'READONLY'
alter 't1', METHOD => 'table_att_unset', NAME => ['MAX_FILESIZE', 'DURABILITY']
alter 't1', METHOD => 'table_conf_unset', NAME => 'hbase.hstore.blockingStoreFiles'
alter 't1', 'f4'
describe 't1'
get 't1', 'r1'
# A disabled table is altered too.
disable 't1'
alter 't1', NAME => 'f1', VERSIONS => 2
enable 't1'
describe 't1'
# Errors.
alter 'nope', NAME => 'f'
alter 't1'
alter 't1', METHOD => 'frob', NAME => 'x'
alter 't1', METHOD => 'delete'
alter 't1', METHOD => 'table_att_unset', NAME => 'MAX_FILESIZE'
alter 't1', NAME => 'f1', VERSIONS => 0
alter 't1', 'delete' => 'f1', 'x' => 1
