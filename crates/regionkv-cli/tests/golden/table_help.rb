# table_help and help 'table_help': HBase's Table help text (hbase/table.rb), with the
# paragraph on a table reference's methods naming regionkv's.
# exit: 1
clock 1700000000000
table_help
help 'table_help'
table_help 'x'
t = create 't', 'cf'
t.put 'r', 'cf:q', 'v'
t.scan
