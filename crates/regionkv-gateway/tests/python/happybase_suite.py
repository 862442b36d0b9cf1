"""happybase 1.3.0 against regionkv's Thrift1 gateway.

Usage: happybase_suite.py HOST PORT TRANSPORT PROTOCOL COMPAT

Every expected value below is what HBase 2.x's Thrift1 server returns for the same calls
(ThriftHBaseServiceHandler's rules: `*Ts` reads exclude the timestamp itself, deletes of a
column remove every version up to the timestamp, empty rows are left out, scanner results
come in row order, ...), written from those rules, not from what regionkv printed. Each check
prints one line; the first failure exits non-zero with what was expected and what came back.
"""

import sys
import threading
import time

import happybase
from thriftpy2.thrift import TApplicationException

HOST, PORT, TRANSPORT, PROTOCOL, COMPAT = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
PREFIX = "hb_%s_%s_%s" % (TRANSPORT, PROTOCOL, COMPAT.replace(".", ""))
CHECKS = [0]


def connect(**kw):
    return happybase.Connection(
        HOST, PORT, transport=TRANSPORT, protocol=PROTOCOL, compat=COMPAT,
        table_prefix=PREFIX, **kw)


def check(what, got, want):
    CHECKS[0] += 1
    if got != want:
        print("FAIL %s [%s/%s/%s]\n  expected: %r\n  got:      %r"
              % (what, TRANSPORT, PROTOCOL, COMPAT, want, got))
        sys.exit(1)
    print("ok   %s" % what)


def raises(what, exc_type, fn, *args, **kw):
    CHECKS[0] += 1
    try:
        fn(*args, **kw)
    except exc_type as e:
        print("ok   %s (%s)" % (what, type(e).__name__))
        return e
    except Exception as e:  # noqa: BLE001 - report the wrong kind
        print("FAIL %s: expected %s, got %s: %s" % (what, exc_type.__name__, type(e).__name__, e))
        sys.exit(1)
    print("FAIL %s: expected %s, nothing was raised" % (what, exc_type.__name__))
    sys.exit(1)


def fresh(conn, name, families):
    if name.encode() in conn.tables():
        conn.delete_table(name, disable=True)
    conn.create_table(name, families)
    return conn.table(name)


def test_tables(conn):
    t = fresh(conn, "admin", {"cf": dict(max_versions=5, compression="NONE", bloom_filter_type="ROW",
                                         time_to_live=86400, in_memory=True),
                              "cg": dict()})
    check("tables lists the new table", b"admin" in conn.tables(), True)
    fams = t.families()
    check("families: names", sorted(fams), [b"cf", b"cg"])
    check("families: cf settings",
          (fams[b"cf"]["max_versions"], fams[b"cf"]["bloom_filter_type"], fams[b"cf"]["time_to_live"],
           fams[b"cf"]["in_memory"], fams[b"cf"]["name"]),
          (5, b"ROW", 86400, True, b"cf:"))
    # Thrift's ColumnDescriptor defaults (maxVersions 3, TTL forever) apply to a bare family.
    check("families: cg takes the IDL defaults",
          (fams[b"cg"]["max_versions"], fams[b"cg"]["time_to_live"]), (3, 2147483647))
    raises("create of an existing table", Exception, conn.create_table, "admin", {"cf": dict()})
    check("is_table_enabled", conn.is_table_enabled("admin"), True)
    conn.disable_table("admin")
    check("disabled", conn.is_table_enabled("admin"), False)
    raises("read of a disabled table", Exception, t.row, b"r")
    conn.enable_table("admin")
    check("enabled again", conn.is_table_enabled("admin"), True)
    regions = t.regions()
    check("one region from '' to ''", [(r["start_key"], r["end_key"], r["version"]) for r in regions],
          [(b"", b"", 1)])
    check("region name", regions[0]["name"].startswith(PREFIX.encode() + b"_admin,,"), True)
    conn.compact_table("admin")
    conn.compact_table("admin", major=True)
    raises("delete of an enabled table", Exception, conn.delete_table, "admin")
    conn.delete_table("admin", disable=True)
    check("table gone", b"admin" in conn.tables(), False)
    raises("delete of a missing table", Exception, conn.delete_table, "admin")
    raises("families of a missing table", Exception, conn.table("nope").families)
    check("regions of a missing table: empty (HBase swallows TableNotFound)", conn.table("nope").regions(), [])


def test_puts_and_gets(conn):
    t = fresh(conn, "data", {"cf": dict(max_versions=5), "cg": dict(max_versions=1)})
    t.put(b"r1", {b"cf:a": b"a1", b"cf:b": b"b1", b"cg:x": b"x1"})
    check("row", t.row(b"r1"), {b"cf:a": b"a1", b"cf:b": b"b1", b"cg:x": b"x1"})
    check("row with columns (family and column)", t.row(b"r1", columns=[b"cf:a", b"cg"]),
          {b"cf:a": b"a1", b"cg:x": b"x1"})
    check("missing row is empty", t.row(b"nope"), {})
    raises("unknown family", Exception, t.put, b"r1", {b"zz:a": b"v"})
    # Versions and timestamps.
    for ts in (10, 20, 30):
        t.put(b"v", {b"cf:c": ("at%d" % ts).encode()}, timestamp=ts)
    check("cells newest first", t.cells(b"v", b"cf:c"), [b"at30", b"at20", b"at10"])
    check("cells versions=2", t.cells(b"v", b"cf:c", versions=2), [b"at30", b"at20"])
    check("cells with timestamps", t.cells(b"v", b"cf:c", include_timestamp=True),
          [(b"at30", 30), (b"at20", 20), (b"at10", 10)])
    # getVerTs: timestamps below the given one (exclusive upper bound).
    check("cells timestamp=30 excludes 30", t.cells(b"v", b"cf:c", timestamp=30), [b"at20", b"at10"])
    check("row timestamp=21 sees 20", t.row(b"v", timestamp=21, include_timestamp=True),
          {b"cf:c": (b"at20", 20)})
    check("row timestamp=10 sees nothing", t.row(b"v", timestamp=10), {})
    check("rows timestamp=11", t.rows([b"v", b"r1"], timestamp=11), [(b"v", {b"cf:c": b"at10"})])
    # rows: missing rows left out, order as asked.
    t.put(b"r2", {b"cf:a": b"a2"})
    check("rows skips missing ones", t.rows([b"r2", b"nope", b"r1"], columns=[b"cf:a"]),
          [(b"r2", {b"cf:a": b"a2"}), (b"r1", {b"cf:a": b"a1"})])
    # Empty qualifier ("cf:") and binary data.
    t.put(b"\x00bin\xff", {b"cf:": b"empty-qualifier", b"cf:\x01\x02": b"\x00\xff"})
    check("binary row, empty qualifier", t.row(b"\x00bin\xff"),
          {b"cf:": b"empty-qualifier", b"cf:\x01\x02": b"\x00\xff"})
    check("'cf:' names the empty qualifier only", t.row(b"\x00bin\xff", columns=[b"cf:"]),
          {b"cf:": b"empty-qualifier"})
    # wal=False still writes.
    t.put(b"nowal", {b"cf:a": b"v"}, wal=False)
    check("put without WAL", t.row(b"nowal"), {b"cf:a": b"v"})
    # A large value.
    big = b"x" * 200000
    t.put(b"big", {b"cf:a": big})
    check("200 kB value", t.row(b"big")[b"cf:a"] == big, True)


def test_batches(conn):
    t = fresh(conn, "batch", {"cf": dict(max_versions=3)})
    with t.batch(batch_size=7) as b:
        for i in range(100):
            b.put(("row%03d" % i).encode(), {b"cf:n": str(i).encode()})
    check("batch wrote 100 rows", len(list(t.scan())), 100)
    b = t.batch(timestamp=1000)
    b.put(b"ts", {b"cf:a": b"old"})
    b.send()
    check("batch timestamp", t.row(b"ts", include_timestamp=True), {b"cf:a": (b"old", 1000)})
    # Puts of a batch go before its deletes (mutateRowsTs), so a row put and deleted in one
    # batch at the same timestamp ends up deleted.
    b = t.batch(timestamp=2000)
    b.put(b"pd", {b"cf:a": b"v"})
    b.delete(b"pd", columns=[b"cf:a"])
    b.send()
    check("put then delete in one batch", t.row(b"pd"), {})
    try:
        with t.batch(transaction=True) as b:
            b.put(b"tx", {b"cf:a": b"v"})
            raise ValueError("abort")
    except ValueError:
        pass
    check("aborted transaction sent nothing", t.row(b"tx"), {})
    b = t.batch()
    b.put(b"fam", {b"cf": b"no qualifier"})
    raises("batch put of a bare family: IllegalArgument", Exception, b.send)


def test_scans(conn):
    t = fresh(conn, "scan", {"cf": dict(max_versions=3), "cg": dict()})
    for i in range(50):
        t.put(("k%02d" % i).encode(), {b"cf:a": str(i).encode(), b"cg:b": b"g"})
    t.put(b"other", {b"cf:a": b"o"})
    keys = [k for k, _ in t.scan()]
    check("scan in row order", keys, sorted(keys))
    check("scan count", len(keys), 51)
    check("row_start/row_stop", [k for k, _ in t.scan(row_start=b"k10", row_stop=b"k13")],
          [b"k10", b"k11", b"k12"])
    check("row_prefix", len(list(t.scan(row_prefix=b"k4"))), 10)
    check("columns", list(t.scan(row_start=b"k00", row_stop=b"k01", columns=[b"cg"])),
          [(b"k00", {b"cg:b": b"g"})])
    check("limit", len(list(t.scan(limit=7))), 7)
    check("batch_size smaller than the result", len(list(t.scan(batch_size=3))), 51)
    ts = int(time.time() * 1000) + 60000
    check("timestamp upper bound (exclusive) sees everything older",
          len(list(t.scan(timestamp=ts))), 51)
    check("timestamp 1 sees nothing", list(t.scan(timestamp=1)), [])
    if COMPAT >= "0.96":
        check("sorted_columns", list(t.scan(row_start=b"k00", row_stop=b"k01", sorted_columns=True)),
              [(b"k00", {b"cf:a": b"0", b"cg:b": b"g"})])
        rows = list(t.scan(row_start=b"k01", row_stop=b"k02", scan_batching=1))
        check("scan_batching=1 splits a row into one cell each",
              rows, [(b"k01", {b"cf:a": b"1"}), (b"k01", {b"cg:b": b"g"})])
    if COMPAT >= "0.98":
        check("reverse scan", [k for k, _ in t.scan(row_start=b"k03", row_stop=b"k00", reverse=True)],
              [b"k03", b"k02", b"k01"])
        check("reverse prefix", [k for k, _ in t.scan(row_prefix=b"k1", reverse=True)][:3],
              [b"k19", b"k18", b"k17"])
    if COMPAT != "0.90":
        check("filter: PrefixFilter", [k for k, _ in t.scan(filter=b"PrefixFilter('k2')")][:2],
              [b"k20", b"k21"])
        check("filter: SingleColumnValueFilter",
              [k for k, _ in t.scan(filter=b"SingleColumnValueFilter('cf', 'a', =, 'binary:7')")],
              [b"k07"])
        check("filter: KeyOnlyFilter AND FirstKeyOnlyFilter",
              list(t.scan(row_stop=b"k01", filter=b"KeyOnlyFilter() AND FirstKeyOnlyFilter()")),
              [(b"k00", {b"cf:a": b""})])
        check("filter: ValueFilter substring",
              [k for k, _ in t.scan(filter=b"ValueFilter(=, 'substring:o')")], [b"other"])
        check("filter: ColumnPrefixFilter", list(t.scan(row_stop=b"k01", filter=b"ColumnPrefixFilter('b')")),
              [(b"k00", {b"cg:b": b"g"})])
        check("filter: PageFilter", len(list(t.scan(filter=b"PageFilter(5)"))), 5)
        raises("malformed filter", TApplicationException, lambda: list(t.scan(filter=b"NoSuchFilter(")))
    else:
        raises("filter needs compat >= 0.92", NotImplementedError, lambda: list(t.scan(filter=b"KeyOnlyFilter()")))
    # An empty row inside the range is skipped (HBase leaves empty results out).
    t.delete(b"k05")
    check("deleted row left out", b"k05" in [k for k, _ in t.scan(row_stop=b"k10")], False)
    # Scanner ids are shared by all connections; an unknown id is IllegalArgument.
    raises("unknown scanner id", Exception, conn.client.scannerGetList, 987654, 1)


def test_counters(conn):
    t = fresh(conn, "ctr", {"cf": dict()})
    check("counter_get of a missing counter is 0", t.counter_get(b"c", b"cf:n"), 0)
    check("counter_inc", t.counter_inc(b"c", b"cf:n"), 1)
    check("counter_inc by 10", t.counter_inc(b"c", b"cf:n", 10), 11)
    check("counter_dec", t.counter_dec(b"c", b"cf:n", 3), 8)
    t.counter_set(b"c", b"cf:m", 42)
    check("counter_set", t.counter_get(b"c", b"cf:m"), 42)
    check("counter stored as an 8-byte big-endian long", t.row(b"c", columns=[b"cf:m"]),
          {b"cf:m": b"\x00\x00\x00\x00\x00\x00\x00\x2a"})
    t.put(b"bad", {b"cf:n": b"abc"})
    raises("increment of a non-counter", Exception, t.counter_inc, b"bad", b"cf:n")

    # Many threads incrementing through a pool: no lost update.
    pool = happybase.ConnectionPool(size=8, host=HOST, port=PORT, transport=TRANSPORT,
                                    protocol=PROTOCOL, compat=COMPAT, table_prefix=PREFIX)

    def work():
        for _ in range(50):
            with pool.connection() as c:
                c.table("ctr").counter_inc(b"pool", b"cf:n")

    threads = [threading.Thread(target=work) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    check("8 pooled connections x 50 increments", t.counter_get(b"pool", b"cf:n"), 400)


def test_deletes(conn):
    t = fresh(conn, "del", {"cf": dict(max_versions=5), "cg": dict(max_versions=5)})

    def load():
        for ts in (10, 20, 30):
            t.put(b"r", {b"cf:a": b"a%d" % ts, b"cf:b": b"b%d" % ts, b"cg:c": b"c%d" % ts}, timestamp=ts)

    load()
    t.delete(b"r", columns=[b"cf:a"])
    check("delete a column: every version", t.cells(b"r", b"cf:a"), [])
    check("other columns stay", t.cells(b"r", b"cf:b"), [b"b30", b"b20", b"b10"])
    t.delete(b"r", columns=[b"cf:b"], timestamp=20)
    check("delete a column at ts 20: versions <= 20 go", t.cells(b"r", b"cf:b"), [b"b30"])
    t.delete(b"r", columns=[b"cg"])
    check("delete a family", t.row(b"r", columns=[b"cg"]), {})
    t.delete(b"r")
    check("delete the row", t.row(b"r"), {})
    t2 = fresh(conn, "del2", {"cf": dict(max_versions=5)})
    for ts in (10, 20, 30):
        t2.put(b"r", {b"cf:a": b"a%d" % ts}, timestamp=ts)
    t2.delete(b"r", timestamp=20)
    check("delete the row at ts 20 keeps newer cells", t2.cells(b"r", b"cf:a", include_timestamp=True),
          [(b"a30", 30)])
    # A delete marker hides later puts with older timestamps, as in HBase.
    t2.put(b"r", {b"cf:a": b"late-old"}, timestamp=15)
    check("a put older than a delete marker stays hidden", t2.cells(b"r", b"cf:a"), [b"a30"])


def test_pool_and_connections():
    pool = happybase.ConnectionPool(size=10, host=HOST, port=PORT, transport=TRANSPORT,
                                    protocol=PROTOCOL, compat=COMPAT, table_prefix=PREFIX)
    with pool.connection() as c:
        fresh(c, "pool", {"cf": dict()})
    errors = []

    def worker(n):
        try:
            for i in range(30):
                with pool.connection() as c:
                    tab = c.table("pool")
                    key = ("w%02d-%03d" % (n, i)).encode()
                    tab.put(key, {b"cf:v": key})
                    if tab.row(key) != {b"cf:v": key}:
                        errors.append(key)
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(20)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    check("20 threads through a pool of 10: no error", errors, [])
    with pool.connection() as c:
        check("600 rows written by the pool", len(list(c.table("pool").scan())), 600)
    # Scanner ids are global: open on one connection, read and close on another.
    a, b = connect(), connect()
    sid = a.client.scannerOpenWithStop(("%s_pool" % PREFIX).encode(), b"w00-000", b"w00-002", [], {})
    got = b.client.scannerGetList(sid, 10)
    check("scanner opened on one connection read on another", [r.row for r in got], [b"w00-000", b"w00-001"])
    b.client.scannerClose(sid)
    raises("closed scanner is gone", Exception, a.client.scannerClose, sid)
    a.close()
    b.close()


def main():
    conn = connect()
    t0 = time.time()
    test_tables(conn)
    test_puts_and_gets(conn)
    test_batches(conn)
    test_scans(conn)
    test_counters(conn)
    test_deletes(conn)
    test_pool_and_connections()
    conn.close()
    print("PASS %d checks [%s/%s/compat %s] in %.1f s" % (CHECKS[0], TRANSPORT, PROTOCOL, COMPAT, time.time() - t0))


if __name__ == "__main__":
    main()
