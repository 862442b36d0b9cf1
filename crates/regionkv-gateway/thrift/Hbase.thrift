// The wire interface of HBase 2.x's Thrift1 gateway ("Hbase" service), restated for
// regionkv from ../../../docs/gateway.md's method table. Field ids, names and types are the
// protocol: they must stay exactly those of HBase's Hbase.thrift so that clients generated
// from HBase's file (happybase, Go/Node/PHP clients) talk to regionkv unchanged. The
// generated Rust bindings are src/thrift1/generated.rs; regenerate them with
//
//   thrift --gen rs -out crates/regionkv-gateway/src/thrift1 crates/regionkv-gateway/thrift/Hbase.thrift
//   mv crates/regionkv-gateway/src/thrift1/hbase.rs crates/regionkv-gateway/src/thrift1/generated.rs
//
// (Debian bookworm's thrift-compiler 0.17.0).

typedef binary Text
typedef binary Bytes
typedef i32 ScannerID

// A cell value with the timestamp it was stored with.
struct TCell {
  1: Bytes value,
  2: i64 timestamp
}

// A column family's settings; `name` is "family:" on the wire.
struct ColumnDescriptor {
  1: Text name,
  2: i32 maxVersions = 3,
  3: string compression = "NONE",
  4: bool inMemory = 0,
  5: string bloomFilterType = "NONE",
  6: i32 bloomFilterVectorSize = 0,
  7: i32 bloomFilterNbHashes = 0,
  8: bool blockCacheEnabled = 0,
  9: i32 timeToLive = 0x7fffffff
}

struct TRegionInfo {
  1: Text startKey,
  2: Text endKey,
  3: i64 id,
  4: Text name,
  5: byte version,
  6: Text serverName,
  7: i32 port
}

// One put (isDelete false) or delete of a column or family.
struct Mutation {
  1: bool isDelete = 0,
  2: Text column,
  3: Text value,
  4: bool writeToWAL = 1
}

struct BatchMutation {
  1: Text row,
  2: list<Mutation> mutations
}

// The misspelt "ammount" is the protocol's field name.
struct TIncrement {
  1: Text table,
  2: Text row,
  3: Text column,
  4: i64 ammount
}

struct TColumn {
  1: Text columnName,
  2: TCell cell
}

struct TRowResult {
  1: Text row,
  2: optional map<Text, TCell> columns,
  3: optional list<TColumn> sortedColumns
}

struct TScan {
  1: optional Text startRow,
  2: optional Text stopRow,
  3: optional i64 timestamp,
  4: optional list<Text> columns,
  5: optional i32 caching,
  6: optional Text filterString,
  7: optional i32 batchSize,
  8: optional bool sortColumns,
  9: optional bool reversed,
  10: optional bool cacheBlocks
}

struct TAppend {
  1: Text table,
  2: Text row,
  3: list<Text> columns,
  4: list<Text> values
}

exception IOError {
  1: string message,
  2: bool canRetry
}

exception IllegalArgument {
  1: string message
}

exception AlreadyExists {
  1: string message
}

enum TThriftServerType {
  ONE = 1,
  TWO = 2
}

enum TPermissionScope {
  TABLE = 0,
  NAMESPACE = 1
}

struct TAccessControlEntity {
  1: required string username,
  2: required TPermissionScope scope,
  4: required string actions,
  5: optional Bytes tableName,
  6: optional string nsName
}

service Hbase {
  // Table administration.
  void enableTable(1: Bytes tableName) throws (1: IOError io)
  void disableTable(1: Bytes tableName) throws (1: IOError io)
  bool isTableEnabled(1: Bytes tableName) throws (1: IOError io)
  void compact(1: Bytes tableNameOrRegionName) throws (1: IOError io)
  void majorCompact(1: Bytes tableNameOrRegionName) throws (1: IOError io)
  list<Text> getTableNames() throws (1: IOError io)
  map<Text, bool> getTableNamesWithIsTableEnabled() throws (1: IOError io)
  map<Text, ColumnDescriptor> getColumnDescriptors(1: Text tableName) throws (1: IOError io)
  list<TRegionInfo> getTableRegions(1: Text tableName) throws (1: IOError io)
  void createTable(1: Text tableName, 2: list<ColumnDescriptor> columnFamilies)
    throws (1: IOError io, 2: IllegalArgument ia, 3: AlreadyExists exist)
  void deleteTable(1: Text tableName) throws (1: IOError io)

  // Reads.
  list<TCell> get(1: Text tableName, 2: Text row, 3: Text column, 4: map<Text, Text> attributes)
    throws (1: IOError io)
  list<TCell> getVer(1: Text tableName, 2: Text row, 3: Text column, 4: i32 numVersions,
    5: map<Text, Text> attributes) throws (1: IOError io)
  list<TCell> getVerTs(1: Text tableName, 2: Text row, 3: Text column, 4: i64 timestamp,
    5: i32 numVersions, 6: map<Text, Text> attributes) throws (1: IOError io)
  list<TRowResult> getRow(1: Text tableName, 2: Text row, 3: map<Text, Text> attributes)
    throws (1: IOError io)
  list<TRowResult> getRowWithColumns(1: Text tableName, 2: Text row, 3: list<Text> columns,
    4: map<Text, Text> attributes) throws (1: IOError io)
  list<TRowResult> getRowTs(1: Text tableName, 2: Text row, 3: i64 timestamp,
    4: map<Text, Text> attributes) throws (1: IOError io)
  list<TRowResult> getRowWithColumnsTs(1: Text tableName, 2: Text row, 3: list<Text> columns,
    4: i64 timestamp, 5: map<Text, Text> attributes) throws (1: IOError io)
  list<TRowResult> getRows(1: Text tableName, 2: list<Text> rows, 3: map<Text, Text> attributes)
    throws (1: IOError io)
  list<TRowResult> getRowsWithColumns(1: Text tableName, 2: list<Text> rows,
    3: list<Text> columns, 4: map<Text, Text> attributes) throws (1: IOError io)
  list<TRowResult> getRowsTs(1: Text tableName, 2: list<Text> rows, 3: i64 timestamp,
    4: map<Text, Text> attributes) throws (1: IOError io)
  list<TRowResult> getRowsWithColumnsTs(1: Text tableName, 2: list<Text> rows,
    3: list<Text> columns, 4: i64 timestamp, 5: map<Text, Text> attributes)
    throws (1: IOError io)

  // Writes.
  void mutateRow(1: Text tableName, 2: Text row, 3: list<Mutation> mutations,
    4: map<Text, Text> attributes) throws (1: IOError io, 2: IllegalArgument ia)
  void mutateRowTs(1: Text tableName, 2: Text row, 3: list<Mutation> mutations,
    4: i64 timestamp, 5: map<Text, Text> attributes)
    throws (1: IOError io, 2: IllegalArgument ia)
  void mutateRows(1: Text tableName, 2: list<BatchMutation> rowBatches,
    3: map<Text, Text> attributes) throws (1: IOError io, 2: IllegalArgument ia)
  void mutateRowsTs(1: Text tableName, 2: list<BatchMutation> rowBatches, 3: i64 timestamp,
    4: map<Text, Text> attributes) throws (1: IOError io, 2: IllegalArgument ia)
  i64 atomicIncrement(1: Text tableName, 2: Text row, 3: Text column, 4: i64 value)
    throws (1: IOError io, 2: IllegalArgument ia)
  void deleteAll(1: Text tableName, 2: Text row, 3: Text column, 4: map<Text, Text> attributes)
    throws (1: IOError io)
  void deleteAllTs(1: Text tableName, 2: Text row, 3: Text column, 4: i64 timestamp,
    5: map<Text, Text> attributes) throws (1: IOError io)
  void deleteAllRow(1: Text tableName, 2: Text row, 3: map<Text, Text> attributes)
    throws (1: IOError io)
  void increment(1: TIncrement increment) throws (1: IOError io)
  void incrementRows(1: list<TIncrement> increments) throws (1: IOError io)
  void deleteAllRowTs(1: Text tableName, 2: Text row, 3: i64 timestamp,
    4: map<Text, Text> attributes) throws (1: IOError io)

  // Scanners.
  ScannerID scannerOpenWithScan(1: Text tableName, 2: TScan scan, 3: map<Text, Text> attributes)
    throws (1: IOError io)
  ScannerID scannerOpen(1: Text tableName, 2: Text startRow, 3: list<Text> columns,
    4: map<Text, Text> attributes) throws (1: IOError io)
  ScannerID scannerOpenWithStop(1: Text tableName, 2: Text startRow, 3: Text stopRow,
    4: list<Text> columns, 5: map<Text, Text> attributes) throws (1: IOError io)
  ScannerID scannerOpenWithPrefix(1: Text tableName, 2: Text startAndPrefix,
    3: list<Text> columns, 4: map<Text, Text> attributes) throws (1: IOError io)
  ScannerID scannerOpenTs(1: Text tableName, 2: Text startRow, 3: list<Text> columns,
    4: i64 timestamp, 5: map<Text, Text> attributes) throws (1: IOError io)
  ScannerID scannerOpenWithStopTs(1: Text tableName, 2: Text startRow, 3: Text stopRow,
    4: list<Text> columns, 5: i64 timestamp, 6: map<Text, Text> attributes)
    throws (1: IOError io)
  list<TRowResult> scannerGet(1: ScannerID id) throws (1: IOError io, 2: IllegalArgument ia)
  list<TRowResult> scannerGetList(1: ScannerID id, 2: i32 nbRows)
    throws (1: IOError io, 2: IllegalArgument ia)
  void scannerClose(1: ScannerID id) throws (1: IOError io, 2: IllegalArgument ia)

  // Everything else.
  TRegionInfo getRegionInfo(1: Text row) throws (1: IOError io)
  list<TCell> append(1: TAppend append) throws (1: IOError io)
  bool checkAndPut(1: Text tableName, 2: Text row, 3: Text column, 5: Text value,
    6: Mutation mput, 7: map<Text, Text> attributes)
    throws (1: IOError io, 2: IllegalArgument ia)
  TThriftServerType getThriftServerType()
  string getClusterId()
  bool grant(1: required TAccessControlEntity info) throws (1: IOError io)
  bool revoke(1: required TAccessControlEntity info) throws (1: IOError io)
}
