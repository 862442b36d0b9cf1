#!/usr/bin/env bash
# The comparison suite: regionkv against RocksDB and fjall, one process per engine, same
# keys, values, cache, memtable size and durability (see docs/benchmarks.md).
#
#   benches/compare.sh                       # the full suite (1M keys), suite profile
#   benches/compare.sh --profile defaults    # each engine as a user creates it (regionkv:
#                                            # HBase's 64 KiB blocks, 128 MiB memstores)
#   benches/compare.sh --num 10000000 --benchmarks fillrandom,readrandom
#   benches/compare.sh --threads 1,2,4,8     # and again with 2, 4 and 8 client threads
#   benches/compare.sh --json > run.json
#
# Arguments go to `regionkv bench compare` (`--help` lists them). The peers are compiled in
# with the `peers` feature: the rocksdb crate builds RocksDB's C++ from source, which needs
# clang and libclang (bindgen) and takes 10-30 minutes on 2 cores the first time. This
# script installs Debian's clang and libclang-dev when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1 || ! command -v clang >/dev/null; then
    echo "compare.sh: installing clang and libclang-dev (needed to build RocksDB)" >&2
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq clang libclang-dev >&2
fi

cargo build --release --locked -p regionkv-cli --features peers >&2
exec target/release/regionkv bench compare "$@"
