#!/usr/bin/env python3
"""Exercises HBase's REST gateway ("Stargate") API against a running server, in JSON and XML,
and checks every answer against HBase 2.x's rules (RowResource, ScannerResource,
TableScanResource, SchemaResource, MultiRowResource, NamespacesInstanceResource ...).

Standard library only. Usage:

    python3 rest_client.py http://127.0.0.1:8080

Expects a server over a fresh, empty data directory. Prints one line per check and exits
non-zero with a message at the first failure.
"""

import base64
import json
import sys
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET

BASE = ""
CHECKS = 0


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, what):
    global CHECKS
    if not cond:
        fail(what)
    CHECKS += 1
    print("ok   " + what)


def b64(s):
    if isinstance(s, str):
        s = s.encode()
    return base64.b64encode(s).decode()


def unb64(s):
    return base64.b64decode(s)


def request(method, path, body=None, ctype=None, accept=None, headers=None):
    """Returns (status, headers, body bytes); HTTP errors are answers, not exceptions."""
    data = body
    if isinstance(body, (dict, list)):
        data = json.dumps(body).encode()
        ctype = ctype or "application/json"
    elif isinstance(body, str):
        data = body.encode()
    req = urllib.request.Request(BASE + path, data=data, method=method)
    if ctype:
        req.add_header("Content-Type", ctype)
    if accept:
        req.add_header("Accept", accept)
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def get_json(path):
    status, _, body = request("GET", path, accept="application/json")
    return status, (json.loads(body) if status == 200 and body else None)


def get_xml(path):
    status, _, body = request("GET", path, accept="text/xml")
    return status, (ET.fromstring(body) if status == 200 and body else None)


def cellset(rows):
    """rows: [(key, [(column, timestamp or None, value)])] -> CellSet JSON."""
    out = []
    for key, cells in rows:
        cs = []
        for col, ts, val in cells:
            c = {"column": b64(col), "$": b64(val)}
            if ts is not None:
                c["timestamp"] = ts
            cs.append(c)
        out.append({"key": b64(key), "Cell": cs})
    return {"Row": out}


def cellset_xml(rows):
    root = ET.Element("CellSet")
    for key, cells in rows:
        r = ET.SubElement(root, "Row", key=b64(key))
        for col, ts, val in cells:
            attrs = {"column": b64(col)}
            if ts is not None:
                attrs["timestamp"] = str(ts)
            c = ET.SubElement(r, "Cell", attrs)
            c.text = b64(val)
    return ET.tostring(root)


def json_cells(doc):
    """[(row, column, timestamp, value)] of a JSON CellSet, as text."""
    out = []
    for row in doc.get("Row", []):
        key = unb64(row["key"]).decode()
        for c in row.get("Cell", []):
            out.append((key, unb64(c["column"]).decode(), c["timestamp"], unb64(c["$"]).decode()))
    return out


def xml_cells(root):
    out = []
    for row in root.findall("Row"):
        key = unb64(row.get("key")).decode()
        for c in row.findall("Cell"):
            out.append((key, unb64(c.get("column")).decode(), int(c.get("timestamp")),
                        unb64(c.text or "").decode()))
    return out


def values(doc):
    return [c[3] for c in json_cells(doc)]


def main():
    global BASE
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    BASE = sys.argv[1].rstrip("/")

    # --- version, cluster, status -------------------------------------------------------
    s, v = get_json("/version")
    check(s == 200 and v.get("REST") == "0.0.3", "GET /version (JSON) names REST 0.0.3")
    s, x = get_xml("/version")
    check(s == 200 and x.tag == "Version" and x.get("REST") == "0.0.3", "GET /version (XML)")
    s, v = get_json("/version/cluster")
    check(s == 200 and isinstance(v.get("Version"), str), "GET /version/cluster (JSON)")
    s, x = get_xml("/version/cluster")
    check(s == 200 and x.tag == "ClusterVersion" and x.get("Version"), "GET /version/cluster (XML)")
    s, v = get_json("/status/cluster")
    check(s == 200 and "LiveNodes" in v and "DeadNodes" in v and "regions" in v,
          "GET /status/cluster (JSON)")
    s, x = get_xml("/status/cluster")
    check(s == 200 and x.tag == "ClusterStatus" and x.find("LiveNodes") is not None,
          "GET /status/cluster (XML)")

    # --- namespaces ---------------------------------------------------------------------
    s, v = get_json("/namespaces")
    check(s == 200 and "default" in v["Namespace"] and "hbase" in v["Namespace"],
          "GET /namespaces lists default and hbase")
    s, _, _ = request("POST", "/namespaces/pyns")
    check(s == 201, "POST /namespaces/pyns creates it (201)")
    s, _, _ = request("POST", "/namespaces/pyns")
    check(s == 403, "POST of an existing namespace is 403")
    s, _, _ = request("PUT", "/namespaces/pyns")
    check(s == 200, "PUT /namespaces/pyns alters it (200)")
    s, _, _ = request("PUT", "/namespaces/pynope")
    check(s == 403, "PUT of a missing namespace is 403")
    s, x = get_xml("/namespaces")
    check(s == 200 and "pyns" in [n.text for n in x.findall("Namespace")], "GET /namespaces (XML)")
    s, v = get_json("/namespaces/pyns")
    check(s == 200 and v == {}, "GET /namespaces/pyns: no properties")

    # --- schema -------------------------------------------------------------------------
    t = "pyrest"
    request("DELETE", "/%s/schema" % t)
    schema = {"name": t, "ColumnSchema": [{"name": "cf", "VERSIONS": "3"}, {"name": "cg"}]}
    s, h, _ = request("PUT", "/%s/schema" % t, schema)
    check(s == 201, "PUT /%s/schema creates the table (201 Created)" % t)
    s, v = get_json("/")
    check(s == 200 and {"name": t} in v["table"], "GET / lists the table (JSON)")
    s, x = get_xml("/")
    check(s == 200 and x.tag == "TableList" and t in [e.get("name") for e in x.findall("table")],
          "GET / lists the table (XML)")
    s, v = get_json("/%s/schema" % t)
    fams = {c["name"]: c for c in v["ColumnSchema"]} if v else {}
    check(s == 200 and v["name"] == t and fams["cf"]["VERSIONS"] == "3" and fams["cg"]["VERSIONS"] == "1",
          "GET /%s/schema (JSON): VERSIONS 3 and the default 1" % t)
    s, x = get_xml("/%s/schema" % t)
    check(s == 200 and x.tag == "TableSchema" and x.get("name") == t
          and sorted(c.get("name") for c in x.findall("ColumnSchema")) == ["cf", "cg"],
          "GET /%s/schema (XML)" % t)
    xml_schema = '<TableSchema name="%s"><ColumnSchema name="ch" VERSIONS="2"/></TableSchema>' % t
    s, _, _ = request("POST", "/%s/schema" % t, xml_schema, ctype="text/xml")
    check(s == 200, "POST /%s/schema (XML) adds a family (200)" % t)
    s, v = get_json("/%s/schema" % t)
    check(s == 200 and "ch" in [c["name"] for c in v["ColumnSchema"]], "the added family is listed")
    s, _, _ = request("GET", "/%s/exists" % t)
    check(s == 200, "GET /%s/exists is 200" % t)
    s, _, _ = request("GET", "/pynotable/exists")
    check(s == 404, "GET /pynotable/exists is 404")
    s, v = get_json("/%s/regions" % t)
    check(s == 200 and v["name"] == t and len(v["Region"]) == 1
          and v["Region"][0]["startKey"] == "" and v["Region"][0]["endKey"] == "",
          "GET /%s/regions (JSON): one region over all keys" % t)
    s, x = get_xml("/%s/regions" % t)
    check(s == 200 and x.tag == "TableInfo" and len(x.findall("Region")) == 1, "GET /%s/regions (XML)" % t)
    s, v = get_json("/pynotable/schema")
    check(s == 404, "GET of a missing table's schema is 404")

    # --- writes and reads ---------------------------------------------------------------
    rows = [("r1", [("cf:a", 10, "a10"), ("cf:b", 10, "b10"), ("cg:x", 10, "x10")]),
            ("r2", [("cf:a", 20, "r2a")])]
    s, _, _ = request("PUT", "/%s/fakerow" % t, cellset(rows))
    check(s == 200, "PUT a JSON CellSet through a fake row (200)")
    s, _, _ = request("POST", "/%s/fakerow" % t,
                      cellset_xml([("r1", [("cf:a", 20, "a20"), ("cf:a", 30, "a30")])]), ctype="text/xml")
    check(s == 200, "POST an XML CellSet (200)")
    s, v = get_json("/%s/r1" % t)
    check(s == 200 and json_cells(v) == [("r1", "cf:a", 30, "a30"), ("r1", "cf:b", 10, "b10"),
                                         ("r1", "cg:x", 10, "x10")],
          "GET a row: newest version of each column, families in order")
    s, x = get_xml("/%s/r1" % t)
    check(s == 200 and x.tag == "CellSet" and xml_cells(x) == json_cells(v), "GET a row (XML) = JSON")
    s, v = get_json("/%s/r1/cf:a?v=3" % t)
    check(s == 200 and values(v) == ["a30", "a20", "a10"], "?v=3 returns three versions, newest first")
    s, v = get_json("/%s/r1/cf:a,cg?v=2" % t)
    check(s == 200 and values(v) == ["a30", "a20", "x10"], "a column list with a family")
    s, v = get_json("/%s/r1/cf:a/30?v=3" % t)
    check(s == 200 and values(v) == ["a20", "a10"], "/ts reads [0, ts): the timestamp itself is excluded")
    s, v = get_json("/%s/r1/cf:a/15,31?v=3" % t)
    check(s == 200 and values(v) == ["a30", "a20"], "/start,end reads [start, end)")
    s, v = get_json("/%s/r1,r3/cf:a" % t)
    check(s == 200 and values(v) == ["a30", "r2a"], "a row range start,end")
    s, v = get_json("/%s/r*/cf:a" % t)
    check(s == 200 and [c[0] for c in json_cells(v)] == ["r1", "r2"], "a row prefix with a column")
    s, _, body = request("GET", "/%s/r2/cf:a" % t, accept="application/octet-stream")
    check(s == 200 and body == b"r2a", "GET one cell as application/octet-stream")
    s, _, _ = request("GET", "/%s/r2" % t, accept="application/octet-stream")
    check(s == 400, "octet-stream without exactly one column is 400")
    for path in ("/%s/nope" % t, "/%s/r1/cf:zz" % t, "/%s/r1/nofamily" % t, "/pynotable/r1"):
        s, _, body = request("GET", path, accept="application/json")
        check(s == 404 and body.startswith(b"Not found"), "GET %s is 404 Not found" % path)
    s, _, _ = request("GET", "/%s/r1/cf:a/notanumber" % t, accept="application/json")
    check(s == 400, "a timestamp that is not a number is 400")

    # raw values
    s, _, _ = request("PUT", "/%s/r3/cf:raw" % t, b"\x00\x01bin", ctype="application/octet-stream",
                      headers={"X-Timestamp": "5"})
    check(s == 200, "PUT a raw value with X-Timestamp")
    s, h, body = request("GET", "/%s/r3/cf:raw" % t, accept="application/octet-stream")
    check(s == 200 and body == b"\x00\x01bin" and h.get("X-Timestamp") == "5", "the raw value reads back")
    s, _, _ = request("POST", "/%s/ignored" % t, b"hv", ctype="application/octet-stream",
                      headers={"X-Row": "r4", "X-Column": "cf:h"})
    check(s == 200, "POST a raw value with X-Row and X-Column")
    s, v = get_json("/%s/r4" % t)
    check(s == 200 and json_cells(v)[0][:2] == ("r4", "cf:h") and values(v) == ["hv"], "X-Row/X-Column applied")

    # check=put / delete / append / increment
    s, _, _ = request("PUT", "/%s/r4?check=put" % t, cellset([("r4", [("cf:h", None, "new"), ("cf:h", None, "hv")])]))
    check(s == 200, "check=put with the right expected value (200)")
    s, _, _ = request("PUT", "/%s/r4?check=put" % t, cellset([("r4", [("cf:h", None, "x"), ("cf:h", None, "hv")])]))
    check(s == 304, "check=put with a stale expected value (304)")
    s, v = get_json("/%s/r4/cf:h" % t)
    check(values(v) == ["new"], "only the successful check-and-put wrote")
    s, _, _ = request("POST", "/%s/r5?check=append" % t, cellset([("r5", [("cf:s", None, "ab")])]))
    s2, _, _ = request("POST", "/%s/r5?check=append" % t, cellset([("r5", [("cf:s", None, "cd")])]))
    s3, v = get_json("/%s/r5/cf:s" % t)
    check(s == 200 and s2 == 200 and values(v) == ["abcd"], "check=append appends")
    request("POST", "/%s/r5?check=increment" % t, cellset([("r5", [("cf:n", None, "5")])]))
    s, _, _ = request("POST", "/%s/r5?check=increment" % t, cellset([("r5", [("cf:n", None, "37")])]))
    s2, _, body = request("GET", "/%s/r5/cf:n" % t, accept="application/octet-stream")
    check(s == 200 and body == (42).to_bytes(8, "big", signed=True), "check=increment adds 64-bit counters")
    s, _, _ = request("PUT", "/%s/r4?check=delete" % t, cellset([("r4", [("cf:h", None, "new")])]))
    check(s == 200, "check=delete with the right value (200)")
    s, _, _ = request("GET", "/%s/r4" % t, accept="application/json")
    check(s == 404, "check=delete removed the column")
    s, _, _ = request("PUT", "/%s/r4?check=delete" % t, cellset([("r4", [("cf:h", None, "new")])]))
    check(s == 304, "check=delete with a wrong value (304)")
    s, _, _ = request("PUT", "/%s/r4?check=bogus" % t, cellset([("r4", [("cf:h", None, "v")])]))
    check(s == 400, "an unknown check value is 400")

    # deletes
    request("PUT", "/%s/x" % t, cellset([("d", [("cf:a", 1, "1"), ("cf:a", 2, "2"), ("cf:a", 3, "3"),
                                                ("cf:b", 1, "b"), ("cg:c", 1, "c")])]))
    s, _, _ = request("DELETE", "/%s/d/cf:a/2" % t)
    s2, v = get_json("/%s/d/cf:a?v=3" % t)
    check(s == 200 and values(v) == ["3"], "DELETE a column at ts removes every version <= ts")
    s, _, _ = request("DELETE", "/%s/d/cf" % t)
    s2, v = get_json("/%s/d" % t)
    check(s == 200 and values(v) == ["c"], "DELETE a family")
    s, _, _ = request("DELETE", "/%s/d" % t)
    s2, _ = get_json("/%s/d" % t)
    check(s == 200 and s2 == 404, "DELETE a row")

    # --- multiget -----------------------------------------------------------------------
    s, v = get_json("/%s/multiget?row=r1&row=nope&row=r2" % t)
    check(s == 200 and [c[0] for c in json_cells(v)] == ["r1", "r1", "r1", "r2"],
          "multiget skips missing rows")
    s, x = get_xml("/%s/multiget?row=r1&v=2" % t)
    check(s == 200 and [c[3] for c in xml_cells(x)] == ["a30", "a20", "b10", "x10"], "multiget ?v=2 (XML)")
    s, _ = get_json("/%s/multiget?row=zz" % t)
    check(s == 404, "multiget of no existing row is 404")

    # --- stateless scans ----------------------------------------------------------------
    s, v = get_json("/%s/r*" % t)
    check(s == 200 and sorted(set(c[0] for c in json_cells(v))) == ["r1", "r2", "r3", "r5"],
          "GET /table/prefix* scans the prefix")
    s, v = get_json("/%s/*?limit=2" % t)
    check(s == 200 and len(v["Row"]) == 2, "?limit= caps rows")
    s, v = get_json("/%s/*?startrow=r2&endrow=r4&column=cf:a" % t)
    check(s == 200 and json_cells(v) == [("r2", "cf:a", 20, "r2a")], "startrow/endrow/column")
    s, v = get_json("/%s/*?endrow=r2&maxversions=2&column=cf:a" % t)
    check(s == 200 and values(v) == ["a30", "a20"], "maxversions")
    # A prefix scan adds a PrefixFilter: max versions still holds for an explicit column.
    s, v = get_json("/%s/r1*?maxversions=2&column=cf:a" % t)
    check(s == 200 and values(v) == ["a30", "a20"], "maxversions with a column and a filter (prefix)")
    s, v = get_json("/%s/*?starttime=15&endtime=25" % t)
    check(s == 200 and values(v) == ["a20", "r2a"], "starttime/endtime")
    s, v = get_json("/%s/*?filter=%s" % (t, urllib.request.quote("ValueFilter(=,'binary:r2a')")))
    check(s == 200 and values(v) == ["r2a"], "a filter-language filter")
    s, x = get_xml("/%s/zz*" % t)
    check(s == 200 and x.tag == "CellSet" and len(x) == 0, "an empty scan is an empty CellSet (XML)")

    # --- scanners -----------------------------------------------------------------------
    s, h, _ = request("PUT", "/%s/scanner" % t, {"batch": 2, "column": [b64("cf:a"), b64("cf:b")]})
    loc = h.get("Location") or ""
    check(s == 201 and "/%s/scanner/" % t in loc, "PUT /table/scanner: 201 Created + Location")
    path = loc[loc.index("/%s/scanner/" % t):]
    # A scanner's maxVersions defaults to Integer.MAX_VALUE (ScannerModel): every version
    # the family keeps.
    s, v = get_json(path)
    check(s == 200 and values(v) == ["a30", "a20"], "a scanner GET returns at most batch cells")
    s, v = get_json(path)
    check(s == 200 and values(v) == ["a10", "b10"], "the next GET continues")
    s, v = get_json(path)
    check(s == 200 and values(v) == ["r2a"], "and the next one")
    s, _ = get_json(path)
    check(s == 204, "an exhausted scanner answers 204")
    s, _, _ = request("DELETE", path)
    check(s == 200, "DELETE the scanner")
    s, _ = get_json(path)
    check(s == 404, "a deleted scanner is 404")
    xml_scanner = '<Scanner batch="100" startRow="%s" endRow="%s"/>' % (b64("r1"), b64("r3"))
    s, h, _ = request("POST", "/%s/scanner" % t, xml_scanner, ctype="text/xml")
    loc = h.get("Location") or ""
    path = loc[loc.index("/%s/scanner/" % t):] if s == 201 else ""
    s2, x = get_xml(path + "?n=1")
    check(s == 201 and s2 == 200 and [r.get("key") for r in x.findall("Row")] == [b64("r1")],
          "an XML scanner; ?n=1 returns one row")
    s, x = get_xml(path)
    check(s == 200 and [unb64(r.get("key")).decode() for r in x.findall("Row")] == ["r2"],
          "the range stops before endRow")
    request("DELETE", path)
    flt = json.dumps({"type": "SingleColumnValueFilter", "op": "EQUAL", "family": b64("cf"),
                      "qualifier": b64("a"), "comparator": {"type": "BinaryComparator", "value": b64("r2a")},
                      "ifMissing": True})
    s, h, _ = request("PUT", "/%s/scanner" % t, {"filter": flt})
    loc = h.get("Location") or ""
    s2, v = get_json(loc[loc.index("/%s/scanner/" % t):]) if s == 201 else (s, None)
    check(s == 201 and s2 == 200 and [c[0] for c in json_cells(v)] == ["r2"],
          "a scanner with a JSON SingleColumnValueFilter")
    flt = json.dumps({"type": "FilterList", "op": "MUST_PASS_ONE", "filters": [
        {"type": "PrefixFilter", "value": b64("r3")}, {"type": "PrefixFilter", "value": b64("r5")}]})
    s, h, _ = request("PUT", "/%s/scanner" % t, {"filter": flt})
    loc = h.get("Location") or ""
    s2, v = get_json(loc[loc.index("/%s/scanner/" % t):]) if s == 201 else (s, None)
    check(s == 201 and sorted(set(c[0] for c in json_cells(v))) == ["r3", "r5"], "a FilterList of PrefixFilters")
    s, h, _ = request("PUT", "/%s/scanner" % t, {"filter": json.dumps({"type": "RandomRowFilter", "chance": 1.0})})
    loc = h.get("Location") or ""
    s2, v = get_json(loc[loc.index("/%s/scanner/" % t):]) if s == 201 else (s, None)
    check(s == 201 and s2 == 200 and len(json_cells(v)) > 0, "a RandomRowFilter of chance 1.0 keeps every row")
    s, _, body = request("PUT", "/%s/scanner" % t, {"filter": json.dumps({"type": "NoSuchFilter"})})
    check(s == 400, "an unknown filter type is 400")
    s, _ = get_json("/%s/scanner/123456789" % t)
    check(s == 404, "an unknown scanner is 404")
    s, _, _ = request("PUT", "/pynotable/scanner", {})
    check(s == 404, "a scanner on a missing table is 404")

    # --- cleanup ------------------------------------------------------------------------
    s, _, _ = request("PUT", "/pyns:t/schema", {"name": "pyns:t", "ColumnSchema": [{"name": "cf"}]})
    s2, v = get_json("/namespaces/pyns/tables")
    check(s == 201 and s2 == 200 and v == {"table": [{"name": "t"}]}, "GET /namespaces/pyns/tables")
    request("DELETE", "/pyns:t/schema")
    s, _, _ = request("DELETE", "/namespaces/pyns")
    check(s == 200, "DELETE /namespaces/pyns")
    s, _, _ = request("DELETE", "/%s/schema" % t)
    check(s == 200, "DELETE /%s/schema drops the table" % t)
    s, _, _ = request("DELETE", "/%s/schema" % t)
    check(s == 404, "dropping it again is 404")
    print("PASS: all %d checks passed" % CHECKS)


if __name__ == "__main__":
    main()
