# help 'create' and help 'alter': the usage examples, then every table and column family
# attribute regionkv accepts with its type, default and range (from the parser's tables).
help 'create'
help 'alter'
