"""How fast this machine writes 200 MB to a new file, round after round, with no server and no socket.

Each round writes a new file (4 MiB writes) and renames it over the previous one, which is then unlinked, so
from the third round on the kernel can reuse the pages the last unlink freed. Rounds that get fresh memory
instead (pages the host took back through free page reporting) are many times slower: bench/README.md,
"Files API", third look. `over` renames onto the existing file (what an atomic replace does; ext4 starts the
new file's writeback inside rename), `two` moves the old file away first (no file at the path for a moment).
Usage: python3 bench/page-reuse.py [over|two] [dir]
"""
import os
import sys
import tempfile
import time

mode = sys.argv[1] if len(sys.argv) > 1 else 'over'
d = tempfile.mkdtemp(dir=sys.argv[2] if len(sys.argv) > 2 else None)
buf = os.urandom(4 << 20)
target = os.path.join(d, 'target.bin')
for r in range(4):
    t0 = time.perf_counter()
    tmp = os.path.join(d, f'tmp{r}')
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    for _ in range(50):
        os.write(fd, buf)
    os.close(fd)
    t1 = time.perf_counter()
    keep = tmp + '.keep'
    try:
        if mode == 'over':
            os.link(target, keep)
        else:
            os.rename(target, keep)
    except FileNotFoundError:
        keep = None
    os.rename(tmp, target)
    t2 = time.perf_counter()
    if keep:
        os.unlink(keep)
    t3 = time.perf_counter()
    print(f'{mode} round {r}: write {1000 * (t1 - t0):.0f} ms, rename {1000 * (t2 - t1):.0f} ms, unlink {1000 * (t3 - t2):.0f} ms')
os.unlink(target)
os.rmdir(d)
