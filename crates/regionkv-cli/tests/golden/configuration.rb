# CONFIGURATION keys (issue 27, point 4): a key regionkv does not act on is kept in the
# descriptor (describe round-trips it, as HBase users paste real schemas) and reported
# with a line naming it; a key it acts on with a bad value is an error.
# exit: 1
clock 1700000000000
create 't1', {NAME => 'f', CONFIGURATION => {'hbase.hstore.compaction.min' => '5', 'hbase.hstore.blockingStoreFiles' => 20}}, CONFIGURATION => {'hbase.hregion.max.filesize.jitter' => '0.1', 'hbase.hstore.compaction.max' => '12'}
describe 't1'
# Keys regionkv acts on are not reported; a nil value removes a key.
alter 't1', CONFIGURATION => {'hbase.increasing.policy.initial.size' => '1048576', 'hbase.hstore.compaction.max' => nil}
alter 't1', {NAME => 'f', CONFIGURATION => {'hbase.hstore.compaction.min' => nil, 'hbase.hstore.compaction.ratio' => '1.5'}}
alter 't1', METHOD => 'table_conf_unset', NAME => 'hbase.hregion.max.filesize.jitter'
describe 't1'
# A bad value of a key regionkv acts on is an error, and nothing changes.
alter 't1', CONFIGURATION => {'hbase.hregion.split.overallfiles' => 'maybe'}
alter 't1', CONFIGURATION => {'hbase.hregion.max.filesize.jitter' => '-1'}
alter 't1', CONFIGURATION => {'hbase.busy.policy.minAge' => '10 minutes'}
create 't2', 'f', CONFIGURATION => {'hbase.increasing.policy.initial.size' => 'big'}
exists 't2'
# METADATA is free-form: kept, not reported. The prefix split policies read their
# parameter from it.
create 't3', 'f', SPLIT_POLICY => 'KeyPrefixRegionSplitPolicy', METADATA => {'KeyPrefixRegionSplitPolicy.prefix_length' => '2', 'note' => 'x'}
describe 't3'
create 't4', 'f', SPLIT_POLICY => 'KeyPrefixRegionSplitPolicy'
