# count with INTERVAL, CACHE, the legacy interval argument, filters and ranges.
# exit: 1
clock 1700000000000
create 't1', 'f', 'g'
put 't1', 'a1', 'f:q', '1'
put 't1', 'a2', 'g:q', '2'
put 't1', 'a3', 'f:q', '3'
put 't1', 'b1', 'f:q', '4'
put 't1', 'b2', 'f:q', '5'
put 't1', 'b3', 'f:q', '6'
put 't1', 'c1', 'f:q', '7'
count 't1'
count 't1', INTERVAL => 2, CACHE => 1000
count 't1', 3
count 't1', {FILTER => "PrefixFilter('b')", INTERVAL => 1}
count 't1', {STARTROW => 'a2', STOPROW => 'b2'}
count 't1', {COLUMNS => 'g'}
create 't2', 'f'
count 't2'
count 't1', INTERVAL => 0
count 't1', CACHE_BLOCKS => 'maybe'
count 'nope'
