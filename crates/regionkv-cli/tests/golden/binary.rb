# Binary rows, qualifiers and values print escaped like Bytes.toStringBinary; column
# converters and FORMATTER change how values print.
clock 1700000000000
create 't1', 'f'
put 't1', "\x00\x01row", "f:q\xff", "\x7f\x80 \\ tab\tend"
put 't1', "\xffz", 'f:int', "\x00\x00\x00\x2a"
put 't1', "\xffz", 'f:long', "\x00\x00\x00\x00\x00\x00\x01\x00"
put 't1', 'utf8', 'f:text', 'héllo'
put 't1', 'single', 'f:q', 'a\x41b'
scan 't1'
get 't1', "\x00\x01row"
get 't1', "\xffz", {COLUMN => ['f:int:toInt', 'f:long:toLong']}
scan 't1', {COLUMNS => ['f:int:toInt', 'f:long:c(org.apache.hadoop.hbase.util.Bytes).toLong'], STARTROW => "\xff"}
scan 't1', {FORMATTER => 'toString', STARTROW => 'u', STOPROW => 'v'}
scan 't1', {STARTROW => "\x00\x01", STOPROW => "\x00\x02"}
