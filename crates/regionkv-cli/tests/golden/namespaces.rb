# Namespaces: create, list (with a regex), describe, their tables, drop.
# exit: 1
clock 1700000000000
create_namespace 'ns1'
create_namespace 'ns2'
list_namespace
list_namespace 'ns.*'
describe_namespace 'ns1'
create 'ns1:t1', 'f'
create 'ns1:t2', 'f'
create 't3', 'f'
list_namespace_tables 'ns1'
list_namespace_tables 'default'
list 'ns1:.*'
# A default-namespace table matches as 'default:NAME' too (HBase's master does so).
list 'default:.*'
list 'default:t3'
list 't.*'
# Errors: an existing namespace, a namespace with tables, unknown namespaces.
create_namespace 'ns1'
drop_namespace 'ns1'
drop_namespace 'nope'
list_namespace_tables 'nope'
describe_namespace 'nope'
create 'nope:t', 'f'
drop_namespace 'default'
# Emptied, it goes.
disable 'ns1:t1'
drop 'ns1:t1'
disable 'ns1:t2'
drop 'ns1:t2'
drop_namespace 'ns1'
list_namespace
