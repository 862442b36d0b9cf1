#!/usr/bin/env python3
"""How fast this machine's disk commits a small append: `write(200 B)` + `fdatasync`, 3,000
times, on a file that grows (what a WAL does), on one preallocated with
fallocate(FALLOC_FL_KEEP_SIZE), on one extended with ftruncate (a sparse 64 MiB, what
fjall's journal does), and overwriting a pre-zeroed file. The synced-put benchmarks
(fillsync) cannot beat these. Usage: python3 benches/fsync_modes.py [DIR]"""
import ctypes, os, sys, time

N = 3000
DIR = sys.argv[1] if len(sys.argv) > 1 else "."
libc = ctypes.CDLL("libc.so.6", use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong, ctypes.c_longlong]


def run(mode):
    path = os.path.join(DIR, "fsync_modes.dat")
    if os.path.exists(path):
        os.unlink(path)
    flags = os.O_CREAT | os.O_WRONLY | (0 if mode in ("zeroed", "sparse") else os.O_APPEND)
    fd = os.open(path, flags, 0o644)
    if mode == "keep_size":
        assert libc.fallocate(fd, 1, 0, 64 << 20) == 0, ctypes.get_errno()
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


for mode in ["growing", "keep_size", "sparse", "zeroed"] * 2:
    print(f"{mode:10s} {run(mode):8.0f} syncs/s")
