# split and merge_region: a table split at a key and at its split points; a region split by
# encoded name, by full name and by 'table,startKey,id', with and without a split key
# (binary keys in double quotes); merges of adjacent regions by encoded name and of a list of
# full names; scans and counts across the new boundaries; and the errors.
#
# Nine rows fill a 1 KiB block. A region's split point is the row of its largest file's
# mid-key: the index entry of block (count / 2), which HBase 2.x writes as the shortest row
# after the previous block's last row; a file of one block has none.
# Split daughters and merged regions read their parents' files through references until a
# compaction rewrites them, which starts at once in the background; a region with references
# cannot split or merge, so the script runs major_compact before each step that depends on it.
# exit: 1
clock 1700000000000
create 't', {NAME => 'f', BLOCKSIZE => 1024}
put 't', 'row01', 'f:q', 'v01 the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog'
put 't', 'row02', 'f:q', 'v02 the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog'
put 't', 'row03', 'f:q', 'v03 the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog'
put 't', 'row04', 'f:q', 'v04 the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog'
put 't', 'row05', 'f:q', 'v05 the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog'
put 't', 'row06', 'f:q', 'v06 the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog'
put 't', 'row07', 'f:q', 'v07 the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog'
put 't', 'row08', 'f:q', 'v08 the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog'
put 't', 'row09', 'f:q', 'v09 the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog'
put 't', 'row10', 'f:q', 'v10 the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog'
put 't', 'row11', 'f:q', 'v11 the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog'
put 't', 'row12', 'f:q', 'v12 the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog'
put 't', 'row13', 'f:q', 'v13 the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog'
put 't', 'row14', 'f:q', 'v14 the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog'
put 't', 'row15', 'f:q', 'v15 the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog'
put 't', 'row16', 'f:q', 'v16 the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog'
put 't', 'row17', 'f:q', 'v17 the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog'
put 't', 'row18', 'f:q', 'v18 the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog'
put 't', 'row19', 'f:q', 'v19 the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog'
put 't', 'row20', 'f:q', 'v20 the quick brown fox jumps over the lazy dog, the quick brown fox jumps over the lazy dog'
list_regions 't', {}, ['REGION_NAME', 'START_KEY', 'END_KEY']
# A table at a key.
split 't', 'row10'
get_splits 't'
list_regions 't', {}, ['REGION_NAME', 'START_KEY', 'END_KEY']
scan 't'
scan 't', {REVERSED => true}
scan 't', {STARTROW => 'row08', STOPROW => 'row12'}
scan 't', {STARTROW => 'row12', STOPROW => 'row08', REVERSED => true}
get 't', 'row09'
get 't', 'row10'
count 't'
major_compact 't'
# A region by encoded name at its split point: [row10, ) has two blocks (row10..row18 and
# row19..row20), so its mid-key is row19.
split 'aaea3c6dd315f9790a706de85e13ef1a'
get_splits 't'
# A table whose regions have no split point (each is at most one block, and the new ones
# may still hold references): HBase tries every region and reports the first refusal.
split 't'
get_splits 't'
major_compact 't'
# A region by encoded name, and by 'table,startKey,id', at a key.
split '478b62efc61d506e443ea1b49658692f', 'row05'
split 't,row10,1700000000002', "row12\x00"
get_splits 't'
major_compact 't'
# The start key as list_regions prints it names the region too.
split 't,row12\x00,1700000000004', 'row15'
get_splits 't'
list_regions 't', {}, ['REGION_NAME', 'START_KEY', 'END_KEY']
scan 't'
scan 't', {REVERSED => true}
get 't', 'row12'
get 't', 'row13'
count 't'
major_compact 't'
# Refused splits.
split 't,,1700000000003.478b60efc61d4d08443ea3b496586c95.'
split 't', 'row05'
split 'd7a2142335ad7d053c91f63587cc84c2', 'row11'
split 't', ''
# Merges: two adjacent regions by encoded name, three by full name in a list (force is
# accepted for adjacent regions).
merge_region '478b60efc61d4d08443ea3b496586c95', 'd7a2142335ad7d053c91f63587cc84c2'
get_splits 't'
merge_region ['t,row10,1700000000004.aaea3f6dd315fe920a706ae85e13ea01.', 't,row12\x00,1700000000005.431f67edeb15a5a36dc4b51e4eaa2b7e.', 't,row15,1700000000005.8df4da38f976d8be6daa949760c17455.'], true
get_splits 't'
list_regions 't', {}, ['REGION_NAME', 'START_KEY', 'END_KEY']
scan 't'
scan 't', {REVERSED => true}
count 't'
major_compact 't'
count 't'
# Refused merges.
merge_region '478b65efc61d5587443e9eb496586416', 'b1e3d0ab63849c6b94f17bb2ee67537c'
merge_region '478b65efc61d5587443e9eb496586416', 'b1e3d0ab63849c6b94f17bb2ee67537c', true
merge_region '478b65efc61d5587443e9eb496586416', '478b65efc61d5587443e9eb496586416'
merge_region '478b65efc61d5587443e9eb496586416', 'ffffffffffffffffffffffffffffffff'
# Other tables: in a namespace, disabled.
create_namespace 'ns'
create 'ns:t2', 'f'
put 'ns:t2', 'a', 'f:q', '1'
put 'ns:t2', 'c', 'f:q', '2'
split 'ns:t2', 'b'
get_splits 'ns:t2'
list_regions 'ns:t2', {}, ['REGION_NAME', 'START_KEY', 'END_KEY']
merge_region '478b65efc61d5587443e9eb496586416', '3fe6429d48d49c5da63d681cda81e22c'
major_compact 'ns:t2'
merge_region 'ns:t2,,1700000000009.3fe6429d48d49c5da63d681cda81e22c.', 'ns:t2,b,1700000000009.7bcf022389e2119719cc64e9340d48c4.'
get_splits 'ns:t2'
scan 'ns:t2'
create 't3', 'f'
list_regions 't3', {}, ['REGION_NAME']
disable 't3'
split 't3'
split '5eeb2ed0a3d4655250bf03115e4e8479'
split 't3,,1700000000011'
# Malformed calls and unknown names.
split
split 1
split 't', 5
split 't', 'a', 'b'
split 'nosuch'
split 'nosuch,row,1'
split 't,row99,1700000000001'
split 'ffffffffffffffffffffffffffffffff'
merge_region
merge_region '478b65efc61d5587443e9eb496586416'
merge_region ['478b65efc61d5587443e9eb496586416']
merge_region '478b65efc61d5587443e9eb496586416', true
merge_region '478b65efc61d5587443e9eb496586416', 1
merge_region '478b65efc61d5587443e9eb496586416', {'a' => 1}
get_splits 't'
count 't'
