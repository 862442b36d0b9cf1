# Errors print HBase's ERROR block and the script goes on; the exit code is 1.
# exit: 1
clock 1700000000000
create 't1', 'f'
put 't1', 'r1'
put 't1', 'r1', 'nofamily:q', 'v'
put 'nope', 'r1', 'f:q', 'v'
put 't1', '', 'f:q', 'v'
put 't1', 'r1', 'f:q', 'v', -5
put 't1', 'r1', 'f:q', 'v', 'soon'
put 't1', 'r1', 'f:q', 'v', {VISIBILITY => 'SECRET'}
put 't1', 'r1', 'f:q', 'v', {TTL => 'soon'}
incr 't1', 'r1', 'f:c', 1, {TTL => [1000]}
get 't1', 'r1', {VERSIONS => 2}
get 't1', 'r1', {COLUMN => 5}
get 't1', 'r1', {COLUMN => 'f:q', VERSIONS => 0}
get 't1', 'r1', {FILTER => "NoSuchFilter()"}
get 't1', 'r1', {TIMERANGE => [5, 1]}
scan 't1', 'notahash'
scan 't1', {COLUMNS => 5}
scan 't1', {FILTER => "PrefixFilter('a'"}
scan 't1', {ALL_METRICS => true}
scan 't1', {REVERSED => 'yes'}
scan 'nope'
delete 't1', 'r1'
deleteall 't1'
deleteall 't1', {CACHE => 10}
disable 't1'
put 't1', 'r1', 'f:q', 'v'
get 't1', 'r1'
scan 't1'
count 't1'
enable 't1'
put 't1', 'r1', 'f:q', 'v'
get 't1', 'r1'
alter_namespace 'ns1', {METHOD => 'set', 'PROPERTY_NAME' => 'PROPERTY_VALUE'}
grant 'bob', 'RW'
frobnicate
put 't1', ]
version
get 't1', 'r1
version
