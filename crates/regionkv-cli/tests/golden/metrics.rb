# Region request metrics as HBase 2.x's region servers count them (HRegion and
# RegionScannerImpl): a read request per result a scanner returns (a row, or a BATCH piece
# of one), a filtered read request per row it meets and drops, a write request per
# mutation. list_regions REQ is reads + writes; status 'simple' and 'detailed' print
# HBase's ServerLoad and RegionLoad lines.
clock 1700000000000
create 't', 'f', SPLITS => ['m']
put 't', 'a', 'f:q', '1'
put 't', 'b', 'f:q', '2'
put 't', 'c', 'f:q', '1'
put 't', 'x', 'f:q', '1'
put 't', 'y', 'f:q', '2'
# Five puts: five writes, three in the first region, two in the second.
list_regions 't', {}, ['START_KEY', 'REQ']
# A scan of five rows is five reads (not one per region).
scan 't'
list_regions 't', {}, ['START_KEY', 'REQ']
# A LIMIT stops reading: two rows, two reads, all in the first region.
scan 't', {LIMIT => 2}
# BATCH => 1 over rows of two cells: each piece is a result, and a read.
put 't', 'a', 'f:r', 'extra'
scan 't', {STARTROW => 'a', STOPROW => 'b', BATCH => 1}
status 'simple'
# SingleColumnValueFilter drops 'b' and 'y' at the end of their rows: 3 reads, 2 filtered.
scan 't', {FILTER => "SingleColumnValueFilter('f', 'q', =, 'binary:1')"}
# RowFilter drops the other rows by key: 1 read, 4 filtered.
scan 't', {FILTER => "RowFilter(=, 'binary:a')"}
status 'simple'
# A get that finds nothing counts nothing; a deleted row met by a read is a filtered read.
get 't', 'nope'
deleteall 't', 'c'
get 't', 'c'
scan 't', {STARTROW => 'b', STOPROW => 'm'}
status 'simple'
# An increment reads the counter (a read once it exists) and is one write.
incr 't', 'n', 'f:hits', 1
incr 't', 'n', 'f:hits', 1
list_regions 't', {}, ['START_KEY', 'REQ']
status 'detailed'
