# The HBase Reference Guide's KEEP_DELETED_CELLS transcripts (section "Keeping Deleted
# Cells", [[cf.keep.deleted]] in src/main/asciidoc/_chapters/schema_design.adoc of
# apache/hbase): first without KEEP_DELETED_CELLS, then with it, each through a flush and a
# major compaction, with a raw scan after each step.
#
# The guide's transcripts come from an older shell whose `delete` wrote a DeleteColumn
# marker (Delete.deleteColumns: every version up to the timestamp), the type=DeleteColumn
# they print at timestamp 11. In HBase 2.x's shell, which this one follows (hbase/table.rb
# `_delete_internal`), `delete` writes a one-version Delete marker (Delete.addColumn), which
# masks nothing here, and `deleteall` writes the DeleteColumn; so the guide's `delete 'test',
# 'r1', 'e:c1', 11` is `deleteall` below. Every other command is the guide's, verbatim.
#
# Without KEEP_DELETED_CELLS: four cells, then three (the flush drops the put at 10 that the
# marker masks), then two (the major compaction drops the marker). With it: all four cells
# after every step.
clock 1700000000000
create 'test', {NAME=>'e', VERSIONS=>2147483647}
put 'test', 'r1', 'e:c1', 'value', 10
put 'test', 'r1', 'e:c1', 'value', 12
put 'test', 'r1', 'e:c1', 'value', 14
deleteall 'test', 'r1', 'e:c1',  11
scan 'test', {RAW=>true, VERSIONS=>1000}
flush 'test'
scan 'test', {RAW=>true, VERSIONS=>1000}
major_compact 'test'
scan 'test', {RAW=>true, VERSIONS=>1000}
disable 'test'
drop 'test'
create 'test', {NAME=>'e', VERSIONS=>2147483647, KEEP_DELETED_CELLS => true}
put 'test', 'r1', 'e:c1', 'value', 10
put 'test', 'r1', 'e:c1', 'value', 12
put 'test', 'r1', 'e:c1', 'value', 14
deleteall 'test', 'r1', 'e:c1',  11
scan 'test', {RAW=>true, VERSIONS=>1000}
flush 'test'
scan 'test', {RAW=>true, VERSIONS=>1000}
major_compact 'test'
scan 'test', {RAW=>true, VERSIONS=>1000}
