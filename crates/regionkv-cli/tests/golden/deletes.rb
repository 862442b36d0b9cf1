# delete (one version, HBase 2.x's Delete.addColumn), deleteall (all versions, families,
# whole rows, row prefixes), and a raw scan showing every kind of delete marker; a major
# compaction then drops the markers.
clock 1700000000000
create 't1', {NAME => 'f', VERSIONS => 5}, {NAME => 'g', VERSIONS => 5}
put 't1', 'r1', 'f:a', 'a1', 1000
put 't1', 'r1', 'f:a', 'a2', 2000
put 't1', 'r1', 'f:a', 'a3', 3000
put 't1', 'r1', 'f:b', 'b1', 1000
put 't1', 'r1', 'f:b', 'b2', 2000
put 't1', 'r1', 'g:c', 'c1', 1000
put 't1', 'r1', 'g:c', 'c2', 2000
put 't1', 'r2', 'f:a', 'x', 1000
put 't1', 'r2', 'g:a', 'y', 1000
put 't1', 'p1', 'f:a', 'p', 1000
put 't1', 'p2', 'f:a', 'p', 1000
put 't1', 'q1', 'f:a', 'q', 1000
# delete without a timestamp removes the newest version only.
delete 't1', 'r1', 'f:a'
get 't1', 'r1', {COLUMN => 'f:a', VERSIONS => 5}
# delete with a timestamp removes exactly that version.
delete 't1', 'r1', 'f:a', 1000
get 't1', 'r1', {COLUMN => 'f:a', VERSIONS => 5}
# deleteall of a column with a timestamp removes every version up to it.
deleteall 't1', 'r1', 'f:b', 2000
# delete of a family removes the versions at exactly the timestamp.
delete 't1', 'r1', 'g', 2000
get 't1', 'r1', {VERSIONS => 5, TIMERANGE => [0, 9999]}
# deleteall of a family and of a whole row.
deleteall 't1', 'r2', 'g'
scan 't1', {STARTROW => 'r2', STOPROW => 'r3'}
deleteall 't1', 'r2'
scan 't1', {RAW => true, VERSIONS => 10}
deleteall 't1', {ROWPREFIXFILTER => 'p'}
scan 't1'
flush 't1'
major_compact 't1'
scan 't1', {RAW => true, VERSIONS => 10}
# Deletes mask later puts with older timestamps until a major compaction.
deleteall 't1', 'q1', 'f:a', 5000
put 't1', 'q1', 'f:a', 'late', 4000
get 't1', 'q1'
flush 't1'
major_compact 't1'
put 't1', 'q1', 'f:a', 'later', 4000
get 't1', 'q1'
