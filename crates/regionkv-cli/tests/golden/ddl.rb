# Table DDL: create in its forms, describe/desc, list, exists, is_enabled/is_disabled,
# enable/disable, drop, and their errors.
# exit: 1
clock 1700000000000
create 't1', 'f1', 'f2'
t = create 't2', {NAME => 'cf', VERSIONS => 3, MIN_VERSIONS => 1, TTL => 86400, KEEP_DELETED_CELLS => true, BLOOMFILTER => 'rowcol', IN_MEMORY => true, COMPRESSION => 'lz4', BLOCKSIZE => 8192, BLOCKCACHE => false, DATA_BLOCK_ENCODING => 'PREFIX', REPLICATION_SCOPE => 1, CONFIGURATION => {'hbase.hstore.compaction.min' => '5', 'hbase.hstore.blockingStoreFiles' => 20}}, {NAME => 'other'}
create 't3', {NAME => 'f'}, MAX_FILESIZE => 1073741824, MEMSTORE_FLUSHSIZE => '67108864', DURABILITY => 'ASYNC_WAL', READONLY => false, COMPACTION_ENABLED => false, SPLIT_ENABLED => 'false', SPLIT_POLICY => 'org.apache.hadoop.hbase.regionserver.ConstantSizeRegionSplitPolicy', CONFIGURATION => {'hbase.hregion.majorcompaction' => '0'}
create 't4', 'f', 'f', {NAME => 'g', BOGUS => 1, IS_MOB => false}, {OWNER_X => 'me'}
describe 't1'
desc 't2'
describe 't3'
describe 't4'
list
list 't[12]'
exists 't1'
exists 'nope'
is_enabled 't1'
is_disabled 't1'
disable 't1'
disable 't1'
is_enabled 't1'
is_disabled 't1'
describe 't1'
enable 't1'
enable 't1'
is_enabled 't1'
# Errors.
create 't1', 'f'
create 't5'
create 't5', {NAME => 'f', IS_MOB => true}
create 't5', 'f', DURABILITY => 'async_wal'
create 't5', {VERSIONS => 1}
create 't5', {NAME => 'f', VERSIONS => 2147483648}
create 't5', {NAME => 'f', MIN_VERSIONS => '2147483648'}
create 't5', {NAME => 'f', BLOCKSIZE => -2147483649}
create 't5', 'f', {NUMREGIONS => 3}
create 'bad name', 'f'
describe 'nope'
drop 't1'
drop 'nope'
disable 'nope'
is_enabled 'nope'
list
disable 't1'
drop 't1'
exists 't1'
