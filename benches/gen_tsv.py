#!/usr/bin/env python3
"""Writes the TSV input of the ImportTsv benchmark (docs/benchmarks.md, "ImportTsv").

    benches/gen_tsv.py ROWS [COLUMNS] > input.tsv

Each line is a row key (`row` and 10 digits, in a scattered order so that writes land all
over the key space as real loads do) and COLUMNS values (default 3) of 15 printable bytes,
separated by tabs. Deterministic: the same arguments always write the same bytes.
"""

import sys


def main() -> None:
    rows = int(sys.argv[1])
    columns = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    out = sys.stdout.buffer
    # A multiplicative permutation of 0..2^32 (odd multiplier): distinct keys, no order.
    lines = []
    for i in range(rows):
        key = (i * 2654435761) % (1 << 32)
        values = "\t".join(f"v{c}-{(i * 7919 + c) % 10**12:012d}" for c in range(columns))
        lines.append(f"row{key:010d}\t{values}\n")
        if len(lines) == 10000:
            out.write("".join(lines).encode())
            lines.clear()
    out.write("".join(lines).encode())


if __name__ == "__main__":
    main()
