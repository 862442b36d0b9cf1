#!/usr/bin/env bash
# The lab's speed figures (docs/benchmarks.md, "Lab"): `simulate` of the built-in `events`
# workload (1M writes, 100k reads) for three designs, `compare` of the three, and a
# report page rendered in headless Chromium. Prints wall-clock seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p regionkv-cli --quiet
bin=target/release/regionkv
out=$(mktemp -d)
for d in ts-first salted user-first; do
  /usr/bin/time -f "simulate $d: %e s wall, %M KiB max RSS" \
    "$bin" lab simulate "benches/lab/$d.toml" --quiet --json "$out/$d.json" > "$out/$d.txt"
  grep -E '^workload|^regions' "$out/$d.txt"
done
/usr/bin/time -f "compare of three: %e s wall, %M KiB max RSS" \
  "$bin" lab compare benches/lab/ts-first.toml benches/lab/salted.toml benches/lab/user-first.toml \
  --quiet --html "$out/compare.html" > "$out/compare.txt"
/usr/bin/time -f "report (ts first): %e s wall" \
  "$bin" lab report benches/lab/ts-first.toml --quiet --html "$out/report.html" > /dev/null
ls -l "$out/report.html" "$out/compare.html" | awk '{print $5, $9}'
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$chromium" ]; then
  for i in 1 2 3; do
    /usr/bin/time -f "chromium render+screenshot of the report: %e s wall" \
      "$chromium" --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
      --window-size=1400,1000 --screenshot="$out/shot.png" "file://$out/report.html" 2>&1 \
      | grep -E 'wall' || true
  done
fi
echo "outputs in $out"
