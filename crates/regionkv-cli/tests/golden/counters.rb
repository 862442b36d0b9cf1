# incr, get_counter and append, and what they say about non-counters.
# exit: 1
clock 1700000000000
create 't1', 'f'
incr 't1', 'r1', 'f:c'
incr 't1', 'r1', 'f:c', 10
incr 't1', 'r1', 'f:c', -3
get_counter 't1', 'r1', 'f:c'
get 't1', 'r1'
get_counter 't1', 'r1', 'f:none'
incr 't1', 'r1', 'f', 2
get_counter 't1', 'r1', 'f'
append 't1', 'r1', 'f:s', 'abc'
append 't1', 'r1', 'f:s', "\x00def"
get 't1', 'r1', 'f:s'
put 't1', 'r2', 'f:x', 'not a long'
get_counter 't1', 'r2', 'f:x'
incr 't1', 'r2', 'f:x'
incr 't1', 'r2', 'f:y', 'ten'
incr 'nope', 'r', 'f:c'
