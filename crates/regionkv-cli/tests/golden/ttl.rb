# TTL expiry driven by the frozen clock: a family TTL (seconds), MIN_VERSIONS keeping
# versions past their TTL, and a major compaction dropping what expired; then cell TTLs
# (put/incr/append ..., {TTL => milliseconds}, HBase's Mutation#setTTL).
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
# Cell TTLs: expired once timestamp + TTL < now; an expired newer version uncovers the
# older one (VERSIONS => 1, not yet flushed); a cell TTL never outlives the family TTL.
clock 1700000200000
create 't2', {NAME => 'f'}, {NAME => 'g', TTL => 10}
put 't2', 'r1', 'f:q', 'forever', 1700000100000
put 't2', 'r1', 'f:q', 'five seconds', {TTL => 5000}
put 't2', 'r1', 'g:q', 'an hour, capped at 10 s', {TTL => 3600000}
put 't2', 'r2', 'f:q', 'explicit ts', 1700000199000, {TTL => 2000}
incr 't2', 'r3', 'f:n', 7, {TTL => 3000}
append 't2', 'r4', 'f:s', 'abc', {TTL => 4000}
scan 't2'
clock 1700000201000
scan 't2'
clock 1700000201001
scan 't2'
clock 1700000205001
scan 't2'
get_counter 't2', 'r3', 'f:n'
incr 't2', 'r3', 'f:n', 1
clock 1700000210001
scan 't2'
flush 't2'
major_compact 't2'
scan 't2', {RAW => true, VERSIONS => 5}
