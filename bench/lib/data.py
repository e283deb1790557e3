"""The data the scenarios write: seeded names and sizes, random files synced
before they are timed, a fresh ext4 for a run."""
import hashlib
import os
import random
import string
import subprocess
import tempfile
import time

MiB = 1 << 20


def listing_specs(n, seed):
    """n (name, bytes) pairs: ASCII names of 1..60 characters (mixed case,
    so the case-folded sort key matters), unique case-insensitively, and
    0..2000 random bytes each; the same for the same seed."""
    rng = random.Random(seed)
    alphabet = string.ascii_letters + string.digits + "-_"
    exts = ("", ".txt", ".jpg", ".pdf", ".tar.gz", ".md", ".json", ".JPG")
    seen, out = set(), []
    while len(out) < n:
        name = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 52))) + rng.choice(exts)
        if name.casefold() in seen:
            continue
        seen.add(name.casefold())
        out.append((name, rng.randbytes(rng.randint(0, 2000))))
    return out


def write_random(path, size):
    """Fresh random bytes (so no round dedups against another): sha256 hex.
    Synced before it returns: the source stands for a client's file on
    another machine, and its write-back must not land in the timed upload
    (nubo's batch syncs are per file system and would wait for it)."""
    h = hashlib.sha256()
    with open(path, "wb") as f, open("/dev/urandom", "rb") as r:
        left = size
        while left:
            b = r.read(min(left, 1 << 24))
            h.update(b)
            f.write(b)
            left -= len(b)
        f.flush()
        os.fsync(f.fileno())
    return h.hexdigest()


def write_seeded(path, size, seed):
    """Like write_random, but the same bytes for the same seed (the peer suite's S4 input)."""
    rng = random.Random(seed)
    with open(path, "wb") as f:
        left = size
        while left:
            k = min(left, 16 * MiB)
            f.write(rng.randbytes(k))
            left -= k
        f.flush()
        os.fsync(f.fileno())


class FreshFs:
    """A new ext4 on a loop device with direct I/O (file creation on the VM's
    root file system swings by 30x from folder to folder; direct I/O keeps
    the image file's pages out of the page cache, so a sync on the loop
    device reaches the disk once, not through a second cache). `size` is an
    upper bound: the image is sparse. `mnt`: where to mount it (created if
    missing, left in place by close()); default a new temp folder."""

    def __init__(self, size, mnt=None):
        self.img = tempfile.mktemp(prefix="nubo-bench-", suffix=".img")
        self.own_mnt = mnt is None
        self.mnt = mnt or tempfile.mkdtemp(prefix="nubo-bench-mnt-")
        os.makedirs(self.mnt, exist_ok=True)
        subprocess.run(["truncate", "-s", str(size), self.img], check=True)
        try:
            self.dev = subprocess.run(["losetup", "--find", "--show", "--direct-io=on", self.img], check=True,
                                      capture_output=True, text=True).stdout.strip()
        except subprocess.CalledProcessError:
            os.unlink(self.img)
            raise
        try:
            subprocess.run(["mkfs.ext4", "-q", "-F", self.dev], check=True)
            subprocess.run(["mount", self.dev, self.mnt], check=True)
        except subprocess.CalledProcessError:
            subprocess.run(["losetup", "-d", self.dev])
            os.unlink(self.img)
            raise

    def close(self):
        for _ in range(40):  # a server's last process may still be exiting
            if subprocess.run(["umount", self.mnt], stderr=subprocess.DEVNULL).returncode == 0:
                break
            time.sleep(0.25)
        subprocess.run(["losetup", "-d", self.dev])
        if self.own_mnt:
            os.rmdir(self.mnt)
        os.unlink(self.img)


def sampled_blocks(path, size, n=16, block=65536):
    """{offset: bytes}: `n` blocks of `block` bytes spread over the file (S4's download gate)."""
    out = {}
    with open(path, "rb") as f:
        for k in range(n):
            off = (size // n) * k + (k * 4099) % (size // n - block)
            f.seek(off)
            out[off] = f.read(block)
    return out


class BlockCheck:
    """A response-body sink (lib.httpc's `sink=`) that compares the bytes streaming past with
    sampled_blocks(); `bad` lists the offsets of blocks that differ."""

    def __init__(self, samples):
        self.samples, self.pos, self.bad = samples, 0, []

    def __call__(self, mv):
        start, end = self.pos, self.pos + len(mv)
        for off, blk in self.samples.items():
            if off < end and off + len(blk) > start:
                a, b = max(off, start), min(off + len(blk), end)
                if mv[a - start:b - start] != blk[a - off:b - off]:
                    self.bad.append(off)
        self.pos = end
