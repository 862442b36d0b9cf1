# put / get / scan with their options.
clock 1700000000000
create 't1', {NAME => 'f', VERSIONS => 5}, 'g'
put 't1', 'r1', 'f:a', 'v1', 1000
put 't1', 'r1', 'f:a', 'v2', 2000
put 't1', 'r1', 'f:a', 'v3', 3000
put 't1', 'r1', 'f:b', 42
put 't1', 'r1', 'g:c', 'gc'
put 't1', 'r1', 'g', 'empty qualifier'
put 't1', 'r2', 'f:a', 'r2a'
put 't1', 'r3', 'f:a', 'r3a'
put 't1', 'row10', 'f:a', 'x'
get 't1', 'r1'
get 't1', 'r1', 'f:a'
get 't1', 'r1', 'f:a', 'g'
get 't1', 'r1', ['f:b', 'g:c']
get 't1', 'r1', {COLUMN => 'f:a', VERSIONS => 3}
get 't1', 'r1', {COLUMNS => ['f:a'], VERSIONS => 5, TIMERANGE => [1500, 3000]}
get 't1', 'r1', {COLUMN => 'f:a', TIMESTAMP => 2000}
get 't1', 'r1', {TIMESTAMP => 1000}
get 't1', 'r1', {FILTER => "ValueFilter(=, 'binary:gc')"}
get 't1', 'r1', {COLUMN => 'f', MAXLENGTH => 24}
get 't1', 'nope'
scan 't1'
scan 't1', {STARTROW => 'r2'}
scan 't1', {STARTROW => 'r1', STOPROW => 'r3'}
scan 't1', {ROWPREFIXFILTER => 'row'}
scan 't1', {COLUMNS => ['g:c', 'f:b']}
scan 't1', {COLUMNS => 'g'}
scan 't1', {LIMIT => 2}
scan 't1', {REVERSED => true}
scan 't1', {REVERSED => true, STARTROW => 'r2', LIMIT => 1}
scan 't1', {VERSIONS => 2, COLUMNS => 'f:a'}
scan 't1', {TIMERANGE => [1000, 2500], VERSIONS => 5}
scan 't1', {TIMESTAMP => 3000}
scan 't1', {FILTER => "PrefixFilter('r') AND QualifierFilter(=, 'binary:a')", CACHE => 100}
scan 't1', {FILTER => "KeyOnlyFilter()", LIMIT => 1}
scan 't1', {BATCH => 2, STOPROW => 'r2'}
scan 't1', {CACHE_BLOCKS => false, CONSISTENCY => 'STRONG', UNKNOWN_OPTION => 1, LIMIT => 1}
