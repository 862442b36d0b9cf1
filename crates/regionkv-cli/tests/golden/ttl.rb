# TTL expiry driven by the frozen clock: a family TTL (seconds), MIN_VERSIONS keeping
# versions past their TTL, and a major compaction dropping what expired.
clock 1700000000000
create 't1', {NAME => 'f', TTL => 60}, {NAME => 'm', TTL => 60, VERSIONS => 3, MIN_VERSIONS => 1}
put 't1', 'r1', 'f:a', 'short-lived'
put 't1', 'r1', 'f:b', 'older', 1699999970000
put 't1', 'r1', 'm:a', 'old', 1699999990000
put 't1', 'r1', 'm:a', 'new'
scan 't1', {VERSIONS => 3}
clock 1700000011000
scan 't1', {RAW => true, VERSIONS => 3}
scan 't1', {VERSIONS => 3}
clock 1700000059999
scan 't1', {VERSIONS => 3}
clock 1700000060001
scan 't1', {VERSIONS => 3}
count 't1'
clock 1700000120000
put 't1', 'r2', 'f:a', 'fresh'
scan 't1', {VERSIONS => 3}
flush 't1'
major_compact 't1'
scan 't1', {RAW => true, VERSIONS => 3}
