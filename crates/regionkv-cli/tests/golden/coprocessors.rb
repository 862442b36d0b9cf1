# coprocessors: alter's 'coprocessor' specs (stored as typed, numbered coprocessor$N, listed
# by describe), HBase's refusals (pattern, duplicate class, a class regionkv does not
# ship), unset and remove; and regionkv's `aggregate` command over the
# AggregateImplementation endpoint, before and after it is loaded (status lists it among
# the server's coprocessors, by simple name), across two regions.
# exit: 1
clock 1700000000000
create 't1', 'f', SPLITS => ['m']
put 't1', 'a', 'f:n', "\x00\x00\x00\x00\x00\x00\x00\x05"
put 't1', 'c', 'f:n', "\x00\x00\x00\x00\x00\x00\x00\x07"
put 't1', 'p', 'f:n', "\x00\x00\x00\x00\x00\x00\x00\x0c"
put 't1', 'q', 'f:n', 'text'
aggregate 't1', 'sum', {COLUMNS => 'f:n'}
alter 't1', METHOD => 'table_att', 'coprocessor' => '|org.apache.hadoop.hbase.coprocessor.AggregateImplementation|1001|'
describe 't1'
status 'simple'
aggregate 't1', 'rowcount'
aggregate 't1', 'sum', {COLUMNS => 'f:n'}
aggregate 't1', 'min', {COLUMNS => 'f:n'}
aggregate 't1', 'max', {COLUMNS => 'f:n'}
aggregate 't1', 'avg', {COLUMNS => 'f:n'}
aggregate 't1', 'std', {COLUMNS => 'f:n'}
aggregate 't1', 'median', {COLUMNS => 'f:n'}
aggregate 't1', 'sum', {COLUMNS => 'f:n', STARTROW => 'b', STOPROW => 'p'}
aggregate 't1', 'sum', {COLUMNS => 'f:n', STARTROW => 'x', STOPROW => 'b'}
aggregate 't1', 'sum'
aggregate 't1', 'mode', {COLUMNS => 'f:n'}
alter 't1', 'coprocessor' => 'com.example.NoBars'
alter 't1', 'coprocessor' => '|org.apache.hadoop.hbase.coprocessor.AggregateImplementation||'
alter 't1', 'coprocessor' => 'hdfs:///x.jar|com.example.Observer|1001|k=v'
alter 't1', CONFIGURATION => {'hbase.table.sanity.checks' => 'false'}, 'coprocessor' => 'hdfs:///x.jar|com.example.Observer|1001|k=v'
describe 't1'
alter 't1', METHOD => 'table_att_unset', NAME => 'coprocessor$2'
alter 't1', METHOD => 'table_remove_coprocessor', CLASSNAME => 'org.apache.hadoop.hbase.coprocessor.AggregateImplementation'
describe 't1'
aggregate 't1', 'rowcount'
