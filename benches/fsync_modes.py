#!/usr/bin/env python3
"""How fast this machine's disk commits a small append: `write(200 B)` + `fdatasync`, 3,000
times, on a file that grows (what a WAL does), on one preallocated with
fallocate(FALLOC_FL_KEEP_SIZE), on one extended with ftruncate (a sparse 64 MiB, what
fjall's journal and regionkv's reserved WAL tail do), on one extended with fallocate(0)
(64 MiB of allocated but unwritten blocks, what a reserve with real blocks would be), and
overwriting a pre-zeroed file. The synced-put benchmarks (fillsync) cannot beat these.
The modes run interleaved, ROUNDS times (default 2), and the median of each is printed last:
on a shared machine single runs vary by 2x. Usage: python3 benches/fsync_modes.py [DIR [ROUNDS]]"""
import ctypes, os, statistics, sys, time

N = 3000
DIR = sys.argv[1] if len(sys.argv) > 1 else "."
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 2
libc = ctypes.CDLL("libc.so.6", use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong, ctypes.c_longlong]


def run(mode):
    path = os.path.join(DIR, "fsync_modes.dat")
    if os.path.exists(path):
        os.unlink(path)
    in_place = mode in ("zeroed", "sparse", "fallocated")
    flags = os.O_CREAT | os.O_WRONLY | (0 if in_place else os.O_APPEND)
    fd = os.open(path, flags, 0o644)
    if mode == "keep_size":
        assert libc.fallocate(fd, 1, 0, 64 << 20) == 0, ctypes.get_errno()
    elif mode == "fallocated":
        assert libc.fallocate(fd, 0, 0, 64 << 20) == 0, ctypes.get_errno()
        os.lseek(fd, 0, os.SEEK_SET)
    elif mode == "sparse":
        os.ftruncate(fd, 64 << 20)
        os.lseek(fd, 0, os.SEEK_SET)
    elif mode == "zeroed":
        os.write(fd, b"\0" * (8 << 20))
        os.lseek(fd, 0, os.SEEK_SET)
    os.fsync(fd)
    buf = b"x" * 200
    start = time.time()
    for _ in range(N):
        os.write(fd, buf)
        os.fdatasync(fd)
    rate = N / (time.time() - start)
    os.close(fd)
    os.unlink(path)
    return rate


MODES = ["growing", "keep_size", "sparse", "fallocated", "zeroed"]
rates = {mode: [] for mode in MODES}
for _ in range(ROUNDS):
    for mode in MODES:
        rates[mode].append(run(mode))
        print(f"{mode:10s} {rates[mode][-1]:8.0f} syncs/s", flush=True)
print(f"median of {ROUNDS}:")
for mode in MODES:
    print(f"{mode:10s} {statistics.median(rates[mode]):8.0f} syncs/s")
