"""Crash consistency of the storage engine: a process ingesting and releasing
files is killed with SIGKILL at a random instant after its first
acknowledged commit of the trial (so every kill lands mid-work, however slow
the machine); after each kill, fsck must be clean and every file whose
commit was acknowledged must read back byte-identical (ARCHITECTURE.md
§4.1). NUBO_CRASH_TRIALS raises the count for soak runs (bench/README.md)."""
import os
import random
import re
import subprocess
import tempfile
import time
import unittest

import pg_cluster
from harness import NUBO_BIN, tool_env

TRIALS = int(os.environ.get("NUBO_CRASH_TRIALS", "50"))
SEED = 7
MAX_SIZE = 700000
# Files above 2 MiB have their chunks written by a thread of their own
# (content/pipelined_batch.h), with background commits every 64 MiB.
BIG_TRIALS = max(1, TRIALS // 4)
BIG_MAX_SIZE = 80 << 20
FIRST_COMMIT_TIMEOUT = 60  # seconds; generous for sanitizer builds


def nubo(data, database, *args, timeout=120):
    return subprocess.run([NUBO_BIN, "--data", data, *args], capture_output=True, text=True,
                          timeout=timeout, env=tool_env(database))


class CrashTest(unittest.TestCase):
    def test_kill_9_during_ingest_and_release(self):
        self.run_trials(TRIALS, MAX_SIZE)

    def test_kill_9_during_big_ingests(self):
        self.run_trials(BIG_TRIALS, BIG_MAX_SIZE)

    def run_trials(self, trials, max_size):
        rng = random.Random(int(os.environ.get("NUBO_CRASH_SEED", "1234")))
        with tempfile.TemporaryDirectory(prefix="nubo-crash-") as tmp:
            data = os.path.join(tmp, "data")
            # With NUBO_TEST_POSTGRES=1 the metadata is in a fresh PostgreSQL
            # database (which outlives each kill, as a database server does).
            database = pg_cluster.fresh_database() if pg_cluster.wanted() else None
            env = tool_env(database)
            total_committed = 0
            killed_mid_work = 0
            inline_seen = 0  # tiny files kept in their chunk rows (storage.inline_max)
            for trial in range(trials):
                out_path = os.path.join(tmp, "churn.out")
                err_path = os.path.join(tmp, "churn.err")
                with open(out_path, "w") as out, open(err_path, "w") as err:
                    p = subprocess.Popen([NUBO_BIN, "--data", data, "debug", "churn", "--seed", str(SEED),
                                          "--max-size", str(max_size), "--keep", "6"],
                                         stdout=out, stderr=err, env=env)
                    try:
                        self.wait_first_commit(p, out_path, err_path, trial)
                        time.sleep(rng.uniform(0, 0.2))
                    finally:
                        p.kill()
                        p.wait()
                with open(err_path) as f:
                    err = f.read()
                # -9: churn never stops on its own, so it was still working when
                # killed, after at least one commit of this trial.
                self.assertEqual(p.returncode, -9, "trial %d: churn stopped on its own: %s" % (trial, err))
                killed_mid_work += 1
                committed, released, releasing = set(), set(), set()
                with open(out_path) as f:
                    for line in f:
                        word, _, i = line.strip().partition(" ")
                        if word == "committed":
                            committed.add(i)
                        elif word == "released":
                            released.add(i)
                        elif word == "releasing":
                            releasing.add(i)
                self.assertTrue(committed, "trial %d: no commit before the kill" % trial)
                total_committed += len(committed)

                fsck = nubo(data, database, "fsck")
                self.assertEqual(fsck.returncode, 0, "trial %d: fsck\n%s%s" % (trial, fsck.stdout, fsck.stderr))
                inline = re.search(r"\((\d+) inline\)", fsck.stdout)
                self.assertIsNotNone(inline, fsck.stdout)
                inline_seen = max(inline_seen, int(inline.group(1)))
                verify = nubo(data, database, "debug", "verify", "--seed", str(SEED), "--max-size", str(max_size))
                self.assertEqual(verify.returncode, 0, "trial %d:\n%s%s" % (trial, verify.stdout, verify.stderr))
                pinned = {l.split()[1][1:] for l in verify.stdout.splitlines() if l.startswith("ok ")}
                # Every acknowledged commit is there unless its release began.
                self.assertLessEqual(committed - releasing, pinned, "trial %d" % trial)
                for i in released:
                    self.assertNotIn(i, pinned, "trial %d: released file %s is still pinned" % (trial, i))
                if trial % 10 == 9:
                    gc = nubo(data, database, "gc", "--grace", "0s")
                    self.assertEqual(gc.returncode, 0, gc.stderr)
                    fsck = nubo(data, database, "fsck")
                    self.assertEqual(fsck.returncode, 0, "after gc: %s" % fsck.stdout)
                    self.assertIn("0 unreferenced files", fsck.stdout)
            # The trials reached the engine asked for (no SQLite file beside
            # a PostgreSQL installation).
            self.assertEqual(os.path.exists(os.path.join(data, "nubo.db")), database is None)
            print("%d trials, %d killed mid-work, %d acknowledged commits"
                  % (trials, killed_mid_work, total_committed))
            self.assertEqual(killed_mid_work, trials)  # every kill landed mid-work
            # The kills reached the inline commit too, not only chunk files.
            self.assertGreater(inline_seen, 0)

    def wait_first_commit(self, p, out_path, err_path, trial):
        """Returns once churn has acknowledged a commit (a complete
        "committed" line); fails if it exits or takes too long."""
        deadline = time.monotonic() + FIRST_COMMIT_TIMEOUT
        while True:
            with open(out_path) as f:
                if any(l.endswith("\n") and l.startswith("committed ") for l in f):
                    return
            if p.poll() is not None:
                with open(err_path) as f:
                    self.fail("trial %d: churn exited (status %d) before its first commit: %s"
                              % (trial, p.returncode, f.read()))
            if time.monotonic() > deadline:
                self.fail("trial %d: churn made no commit within %d s" % (trial, FIRST_COMMIT_TIMEOUT))
            time.sleep(0.01)


if __name__ == "__main__":
    unittest.main()
