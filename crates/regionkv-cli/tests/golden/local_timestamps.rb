# --iso-ts prints timestamps as HBase 2.4+ does: LocalDateTime in the JVM's local time zone,
# here TZ=<+0530>-5:30.
# args: --iso-ts
# tz: <+0530>-5:30
clock 1700000000000
create 't1', 'f'
put 't1', 'r1', 'f:a', 'v'
put 't1', 'r1', 'f:b', 'v', 1700000000001
put 't1', 'r1', 'f:c', 'v', 0
scan 't1'
