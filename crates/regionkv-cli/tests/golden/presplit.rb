# Pre-split tables: SPLITS (with toBytesBinary escapes), SPLITS_FILE, NUMREGIONS with each
# split algorithm; get_splits, list_regions, and truncate / truncate_preserve.
# exit: 1
clock 1700000000000
create 't1', 'f', SPLITS => ['20', '10', '30']
get_splits 't1'
create 't2', 'f', SPLITS => ['\x00\x01', "a\xffz", 'm']
get_splits 't2'
create 't3', 'f', {NUMREGIONS => 4, SPLITALGO => 'HexStringSplit'}
get_splits 't3'
create 't4', 'f', {NUMREGIONS => 5, SPLITALGO => 'DecimalStringSplit'}
get_splits 't4'
create 't5', 'f', {NUMREGIONS => 3, SPLITALGO => 'UniformSplit'}
get_splits 't5'
create 't6', 'f', SPLITS_FILE => 'presplit.splits'
get_splits 't6'
describe 't6'
create 't7', 'f'
get_splits 't7'
put 't1', '05', 'f:q', 'a'
put 't1', '15', 'f:q', 'b'
put 't1', '25', 'f:q', 'c'
put 't1', '35', 'f:q', 'd'
list_regions 't1'
list_regions 't1', {}, ['start_key', 'END_KEY']
list_regions 't1', 'regionkv', ['SERVER_NAME', 'REQ']
list_regions 't1', {LOCALITY_THRESHOLD => 0.5}, ['START_KEY', 'LOCALITY']
flush 't1'
list_regions 't1', {LOCALITY_THRESHOLD => 0.5}, ['START_KEY', 'LOCALITY']
truncate_preserve 't1'
get_splits 't1'
scan 't1'
truncate 't1'
get_splits 't1'
disable 't3'
get_splits 't3'
list_regions 't3'
# Errors.
create 't8', 'f', SPLITS => ['a', 'a']
create 't8', 'f', {NUMREGIONS => 1, SPLITALGO => 'HexStringSplit'}
create 't8', 'f', {NUMREGIONS => 4, SPLITALGO => 'NoSuchSplit'}
create 't8', 'f', {NUMREGIONS => 4}
create 't8', 'f', {NUMREGIONS => 10001, SPLITALGO => 'HexStringSplit'}
create 't8', 'f', {NUMREGIONS => 2147483648000, SPLITALGO => 'UniformSplit'}
create 't8', 'f', SPLITS_FILE => 'no-such-file'
list_regions 't1', {}, ['NOPE']
get_splits 'nope'
