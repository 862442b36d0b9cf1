"""The gateway benchmark's client side (run by benches/gateway.sh).

happybase 1.3.0 over loopback, one connection: batch puts (batch_size 1,000), a full scan
(batch_size 1,000), single gets; then the same through REST with Python's urllib (CellSet
puts of 1,000 rows, a scanner of 1,000 rows per GET, single-row GETs). For each phase: rows
per second seen by the client, and the server's CPU per row (user + system time of the
server process from /proc/PID/stat, before and after the phase).

Usage: gateway_bench.py THRIFT_PORT REST_PORT SERVER_PID ROWS VALUE_SIZE
Prints one JSON list of phases.
"""

import base64
import json
import os
import sys
import time
import urllib.request

import happybase

THRIFT_PORT, REST_PORT, PID, ROWS, VALUE_SIZE = (int(a) for a in sys.argv[1:6])
TICK = os.sysconf("SC_CLK_TCK")
BATCH = 1000


def server_cpu():
    with open("/proc/%d/stat" % PID) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def key(i):
    return b"%016d" % i


PHASES = []


def phase(label, rows, fn):
    c0, w0 = server_cpu(), time.perf_counter()
    done = fn()
    wall, cpu = time.perf_counter() - w0, server_cpu() - c0
    assert done == rows, "%s: %d of %d rows" % (label, done, rows)
    PHASES.append({"phase": label, "rows": rows, "wall_s": wall, "rows_per_s": rows / wall,
                   "server_cpu_s": cpu, "server_cpu_us_per_row": cpu * 1e6 / rows})
    print("%-24s %9.0f rows/s  server %.2f us/row" % (label, rows / wall, cpu * 1e6 / rows), file=sys.stderr)


value = b"v" * VALUE_SIZE

# --- happybase (Thrift1, buffered binary, one connection)
conn = happybase.Connection("127.0.0.1", THRIFT_PORT)
if b"bench" in conn.tables():
    conn.delete_table("bench", disable=True)
conn.create_table("bench", {"cf": dict(max_versions=1)})
t = conn.table("bench")


def hb_put():
    with t.batch(batch_size=BATCH) as b:
        for i in range(ROWS):
            b.put(key(i), {b"cf:a": value})
    return ROWS


def hb_scan():
    return sum(1 for _ in t.scan(batch_size=BATCH))


def hb_get():
    return sum(1 for i in range(ROWS) if t.row(key(i)))


phase("happybase batch put", ROWS, hb_put)
phase("happybase scan", ROWS, hb_scan)
phase("happybase get", ROWS, hb_get)
conn.close()

# --- REST (plain HTTP/1.1 with keep-alive through http.client, JSON)
import http.client  # noqa: E402

http = http.client.HTTPConnection("127.0.0.1", REST_PORT)


def request(method, path, body=None, headers=None):
    http.request(method, path, body=body, headers=headers or {})
    r = http.getresponse()
    data = r.read()
    return r.status, r.getheaders(), data


status, _, _ = request("PUT", "/rest_bench/schema", json.dumps({"name": "rest_bench", "ColumnSchema": [{"name": "cf"}]}),
                       {"Content-Type": "application/json", "Accept": "application/json"})
assert status in (200, 201), status
b64 = lambda b: base64.b64encode(b).decode()  # noqa: E731
col = b64(b"cf:a")
val = b64(value)


def rest_put():
    for start in range(0, ROWS, BATCH):
        rows = [{"key": b64(key(i)), "Cell": [{"column": col, "$": val}]}
                for i in range(start, min(start + BATCH, ROWS))]
        status, _, body = request("PUT", "/rest_bench/fakerow", json.dumps({"Row": rows}),
                                  {"Content-Type": "application/json"})
        assert status == 200, (status, body)
    return ROWS


def rest_scan():
    status, headers, body = request("PUT", "/rest_bench/scanner", json.dumps({"batch": BATCH}),
                                    {"Content-Type": "application/json"})
    assert status == 201, (status, body)
    location = dict((k.lower(), v) for k, v in headers)["location"]
    path = "/" + location.split("/", 3)[3]
    n = 0
    while True:
        status, _, body = request("GET", path, headers={"Accept": "application/json"})
        if status == 204:
            break
        assert status == 200, (status, body)
        n += len(json.loads(body)["Row"])
    request("DELETE", path)
    return n


def rest_get():
    n = 0
    for i in range(ROWS):
        status, _, body = request("GET", "/rest_bench/" + key(i).decode(), headers={"Accept": "application/json"})
        if status == 200:
            n += 1
    return n


phase("REST batch put", ROWS, rest_put)
phase("REST scan", ROWS, rest_scan)
phase("REST get", ROWS, rest_get)
print(json.dumps(PHASES, indent=1))
