#!/usr/bin/env bash
# The gateway benchmark (docs/benchmarks.md, "Gateways"): happybase and a plain HTTP client
# against `regionkv serve` on loopback, and `regionkv bench embedded` doing the same work
# through the Table API, with the server's CPU per row for each.
#
# Usage: benches/gateway.sh [ROWS [VALUE_SIZE]]     (defaults: 100000 rows, 100-byte values)
set -euo pipefail
cd "$(dirname "$0")/.."
rows="${1:-100000}"
value_size="${2:-100}"
cargo build --release -q -p regionkv-cli -p regionkv-gateway --example thrift_load
python="$(bash crates/regionkv-gateway/tests/python/setup-venv.sh "$PWD/target/python-venv")"
work="$(mktemp -d)"
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT

target/release/regionkv serve --data "$work/gateway" --thrift 0 --rest 0 > "$work/listen" &
server=$!
for _ in $(seq 100); do [[ $(wc -l < "$work/listen") -ge 2 ]] && break; sleep 0.1; done
thrift_port=$(sed -n 's/^thrift listening on .*:\([0-9]*\)$/\1/p' "$work/listen")
rest_port=$(sed -n 's/^rest listening on .*:\([0-9]*\)$/\1/p' "$work/listen")

echo "== gateways ($rows rows, $value_size-byte values, one client connection)"
"$python" benches/gateway_bench.py "$thrift_port" "$rest_port" "$server" "$rows" "$value_size" > "$work/gateway.json"
echo "== the same Thrift calls from a Rust client (the server kept busy)"
target/release/examples/thrift_load "127.0.0.1:$thrift_port" "$server" "$rows" "$value_size" > "$work/rust.json"
kill -TERM "$server"; wait "$server" || true
echo "== embedded Table API (the same work)"
target/release/regionkv bench embedded --rows "$rows" --value-size "$value_size" --data "$work/embedded" > "$work/embedded.json"
python3 - "$work/gateway.json" "$work/embedded.json" "$work/rust.json" <<'PY'
import json, sys
gw = json.load(open(sys.argv[1])) + json.load(open(sys.argv[3])); emb = {p["phase"]: p for p in json.load(open(sys.argv[2]))}
base = {"batch put": emb["batch_put"], "scan": emb["scan"], "get": emb["get"]}
print("| phase | client rows/s | server CPU us/row | embedded CPU us/row | server / embedded |")
print("|---|---|---|---|---|")
for p in gw:
    kind = " ".join(p["phase"].split(" ")[-2:]) if p["phase"].endswith("batch put") else p["phase"].split(" ")[-1]
    e = base[kind]["cpu_us_per_row"]
    ratio = p["server_cpu_us_per_row"] / e if e > 0 else float("inf")
    print("| %s | %.0f | %.2f | %.2f | %.1fx |" % (p["phase"], p["rows_per_s"], p["server_cpu_us_per_row"], e, ratio))
for k, v in base.items():
    print("embedded %-9s %9.0f rows/s  %.2f us/row" % (k, v["rows_per_s"], v["cpu_us_per_row"]))
PY
