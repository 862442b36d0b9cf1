# alter_namespace and namespace properties (issue 27, point 4): HBase's set / unset forms,
# create_namespace with properties, describe_namespace showing them in key order. regionkv
# stores the properties and acts on none of them, and says so for each one set.
# exit: 1
clock 1700000000000
create_namespace 'ns1', {'owner' => 'ops', 'hbase.namespace.quota.maxtables' => 5}
describe_namespace 'ns1'
alter_namespace 'ns1', {METHOD => 'set', 'hbase.namespace.quota.maxregions' => '20', 'team' => 'data'}
describe_namespace 'ns1'
alter_namespace 'ns1', {METHOD => 'unset', NAME => 'owner'}
# Unsetting a property that is not there changes nothing, as in HBase.
alter_namespace 'ns1', {METHOD => 'unset', NAME => 'nope'}
describe_namespace 'ns1'
# The reserved namespaces take properties too.
alter_namespace 'default', {METHOD => 'set', 'k' => 'v'}
describe_namespace 'default'
alter_namespace 'default', {METHOD => 'unset', NAME => 'k'}
describe_namespace 'default'
# Errors, with HBase's messages: no METHOD, an unknown one, not a Hash, an unknown
# namespace, a name that is not a String, the quota values HBase's master checks.
alter_namespace 'ns1', {'k' => 'v'}
alter_namespace 'ns1', {METHOD => 'add', 'k' => 'v'}
alter_namespace 'ns1', 'k'
alter_namespace 'nope', {METHOD => 'set', 'k' => 'v'}
alter_namespace 1, {METHOD => 'set', 'k' => 'v'}
alter_namespace 'ns1', {METHOD => 'unset'}
alter_namespace 'ns1', {METHOD => 'set', 'hbase.namespace.quota.maxtables' => '0'}
alter_namespace 'ns1', {METHOD => 'set', 'hbase.namespace.quota.maxregions' => 'many'}
create_namespace 'ns2', {'hbase.namespace.quota.maxregions' => -1}
list_namespace
# Nothing changed by the failed ones.
describe_namespace 'ns1'
# A dropped namespace takes its properties with it.
drop_namespace 'ns1'
create_namespace 'ns1'
describe_namespace 'ns1'
help 'alter_namespace'
