# flush, compact, major_compact and status, with what they change in list_regions (the
# family and region forms of flush and compactions are in flush_compact.rb).
# exit: 1
clock 1700000000000
create 't1', 'f', SPLITS => ['m']
create 't2', 'f'
put 't1', 'a', 'f:q', '1'
put 't1', 'z', 'f:q', '2'
get 't1', 'a'
status
status 'summary'
status 'simple'
status 'detailed'
list_regions 't1', {}, ['REGION_NAME', 'SIZE', 'REQ', 'LOCALITY']
flush 't1'
flush 't1', 'f'
put 't1', 'a', 'f:q', '3'
flush 't1'
compact 't1'
major_compact 't1'
list_regions 't1', {}, ['START_KEY', 'SIZE', 'LOCALITY']
scan 't1'
disable 't2'
status 'simple'
# Errors.
flush 't1', 'nofamily'
major_compact 't1', nil, 'MOB'
flush 't2'
flush 'nope'
status 'replication'
