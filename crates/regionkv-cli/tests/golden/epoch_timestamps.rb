# Timestamps print as HBase up to 2.3 printed them, epoch milliseconds: the default, which
# --epoch-ts asks for explicitly; of --iso-ts and --epoch-ts the last one given wins.
# args: --iso-ts --epoch-ts
clock 1700000000000
create 't1', {NAME => 'f', VERSIONS => 2}
put 't1', 'r1', 'f:a', 'v'
put 't1', 'r1', 'f:a', 'w', 1700000000123
delete 't1', 'r1', 'f:a', 1700000000000
scan 't1', {RAW => true, VERSIONS => 5}
get 't1', 'r1'
