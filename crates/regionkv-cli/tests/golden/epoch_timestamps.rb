# --epoch-ts prints timestamps as HBase before 2.4 did: epoch milliseconds.
# args: --epoch-ts
clock 1700000000000
create 't1', {NAME => 'f', VERSIONS => 2}
put 't1', 'r1', 'f:a', 'v'
put 't1', 'r1', 'f:a', 'w', 1700000000123
delete 't1', 'r1', 'f:a', 1700000000000
scan 't1', {RAW => true, VERSIONS => 5}
get 't1', 'r1'
