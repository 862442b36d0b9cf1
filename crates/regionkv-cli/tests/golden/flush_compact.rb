# flush, compact and major_compact of one column family of a table (flush 't', 'f1') and
# of one region, named by its encoded name, its full name or 'table,startKey,id', with or
# without a family, as HBase 2.4's shell takes them. status 'detailed' shows each region's
# storefile count; raw scans show what each step dropped: a flush drops the puts a delete
# marker masks and keeps the marker; a compaction that rewrites every file of a store drops
# the marker too (a major one, or a minor one whose selection is every file, which HBase's
# compactor runs under the major rules); none of them touches another family or region.
# exit: 1
clock 1700000000000
create 't', {NAME => 'f1', VERSIONS => 5}, {NAME => 'f2', VERSIONS => 5}, SPLITS => ['m']
list_regions 't', {}, ['REGION_NAME', 'START_KEY', 'END_KEY']
# In each family of both regions: a put masked by a DeleteColumn marker, and a newer put.
put 't', 'a', 'f1:q', 'old', 10
put 't', 'a', 'f2:q', 'old', 10
put 't', 'z', 'f1:q', 'old', 10
put 't', 'z', 'f2:q', 'old', 10
deleteall 't', 'a', 'f1:q', 11
deleteall 't', 'a', 'f2:q', 11
deleteall 't', 'z', 'f1:q', 11
deleteall 't', 'z', 'f2:q', 11
put 't', 'a', 'f1:q', 'new', 12
put 't', 'a', 'f2:q', 'new', 12
put 't', 'z', 'f1:q', 'new', 12
put 't', 'z', 'f2:q', 'new', 12
# One family of the table: a file in each region; f1's masked puts are gone, f2's are not.
flush 't', 'f1'
status 'detailed'
scan 't', {RAW => true, VERSIONS => 10}
# One family of one region, by encoded name: f2 of region m.
flush 'ce9998dc5f064a0b0eac428066acb428', 'f2'
status 'detailed'
scan 't', {RAW => true, VERSIONS => 10}
# A whole region by its full name: what is left in the first region's memstore, f2.
flush 't,,1700000000000.478b63efc61d5221443ea0b49658677c.'
status 'detailed'
scan 't', {RAW => true, VERSIONS => 10}
# Two more flushes of the table. The first leaves two files in every store; the second a
# third, and a store with hbase.hstore.compaction.min (3) files asks for a system compaction
# (HBase's flushRegion: "Compaction through user triggered flush"). Its selection is every
# file, so it runs under the major rules and the delete markers go.
put 't', 'a', 'f1:r', 'x'
put 't', 'a', 'f2:r', 'x'
put 't', 'z', 'f1:r', 'x'
put 't', 'z', 'f2:r', 'x'
flush 't'
put 't', 'a', 'f1:s', 'y'
put 't', 'a', 'f2:s', 'y'
put 't', 'z', 'f1:s', 'y'
put 't', 'z', 'f2:s', 'y'
flush 't'
status 'detailed'
scan 't', {RAW => true, VERSIONS => 10}
# A minor compaction of one family of one region, named 'table,startKey,id': f2 of region m
# has one file, fewer than hbase.hstore.compaction.min, so nothing is selected.
compact 't,m,1700000000001', 'f2'
status 'detailed'
# A major compaction of one family of the table: f1 of both regions, one file each (a major
# compaction rewrites a single file too).
major_compact 't', 'f1'
status 'detailed'
scan 't', {RAW => true, VERSIONS => 10}
# A major compaction of a whole region, by encoded name: both of the first region's stores.
major_compact '478b63efc61d5221443ea0b49658677c'
status 'detailed'
scan 't', {RAW => true, VERSIONS => 10}
# Minor compactions of stores with one file each select nothing (fewer files than
# hbase.hstore.compaction.min): a family of the table, a whole region, the whole table.
compact 't', 'f2'
compact 't,,1700000000000.478b63efc61d5221443ea0b49658677c.'
compact 't'
status 'detailed'
# Errors: unknown families (of a table and of a region), MOB and unknown compaction types,
# unknown regions and tables, too many arguments, a region of a disabled table.
flush 't', 'nofamily'
flush 'ce9998dc5f064a0b0eac428066acb428', 'nofamily'
compact 't', 'nofamily'
major_compact 't,,1700000000000.478b63efc61d5221443ea0b49658677c.', 'nofamily'
compact 't', 'f1', 'MOB'
major_compact 'ce9998dc5f064a0b0eac428066acb428', nil, 'MOB'
compact 't', nil, 'BOGUS'
flush '00000000000000000000000000000000'
compact 't,zz,1700000000001'
major_compact 't,,1700000000000.00000000000000000000000000000000.'
flush 'nope', 'f1'
compact 'nope'
flush 't', 'f1', 'extra'
flush 5
disable 't'
flush 'ce9998dc5f064a0b0eac428066acb428'
major_compact 't', 'f1'
flush 't', 'f1'
