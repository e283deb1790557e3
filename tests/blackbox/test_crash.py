"""Crash consistency of the storage engine: a process ingesting and releasing
files is killed with SIGKILL at random instants; after each kill, fsck must
be clean and every file whose commit was acknowledged must read back
byte-identical (ARCHITECTURE.md §4.1). NUBO_CRASH_TRIALS raises the count
for soak runs (bench/README.md)."""
import os
import random
import subprocess
import tempfile
import time
import unittest

from harness import NUBO_BIN

TRIALS = int(os.environ.get("NUBO_CRASH_TRIALS", "50"))
SEED = 7
MAX_SIZE = 700000


def nubo(data, *args, timeout=120):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUBO_")}
    return subprocess.run([NUBO_BIN, "--data", data, *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


class CrashTest(unittest.TestCase):
    def test_kill_9_during_ingest_and_release(self):
        rng = random.Random(int(os.environ.get("NUBO_CRASH_SEED", "1234")))
        with tempfile.TemporaryDirectory(prefix="nubo-crash-") as tmp:
            data = os.path.join(tmp, "data")
            env = {k: v for k, v in os.environ.items() if not k.startswith("NUBO_")}
            total_committed = 0
            for trial in range(TRIALS):
                out_path = os.path.join(tmp, "churn.out")
                with open(out_path, "w") as out:
                    p = subprocess.Popen([NUBO_BIN, "--data", data, "debug", "churn", "--seed", str(SEED),
                                          "--max-size", str(MAX_SIZE), "--keep", "6"],
                                         stdout=out, stderr=subprocess.PIPE, env=env)
                    time.sleep(rng.uniform(0.02, 0.35))
                    p.kill()
                    _, err = p.communicate()
                self.assertEqual(p.returncode, -9, "churn stopped on its own: %s" % err.decode())
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
                total_committed += len(committed)

                fsck = nubo(data, "fsck")
                self.assertEqual(fsck.returncode, 0, "trial %d: fsck\n%s%s" % (trial, fsck.stdout, fsck.stderr))
                verify = nubo(data, "debug", "verify", "--seed", str(SEED), "--max-size", str(MAX_SIZE))
                self.assertEqual(verify.returncode, 0, "trial %d:\n%s%s" % (trial, verify.stdout, verify.stderr))
                pinned = {l.split()[1][1:] for l in verify.stdout.splitlines() if l.startswith("ok ")}
                # Every acknowledged commit is there unless its release began.
                self.assertLessEqual(committed - releasing, pinned, "trial %d" % trial)
                for i in released:
                    self.assertNotIn(i, pinned, "trial %d: released file %s is still pinned" % (trial, i))
                if trial % 10 == 9:
                    gc = nubo(data, "gc", "--grace", "0s")
                    self.assertEqual(gc.returncode, 0, gc.stderr)
                    fsck = nubo(data, "fsck")
                    self.assertEqual(fsck.returncode, 0, "after gc: %s" % fsck.stdout)
                    self.assertIn("0 unreferenced files", fsck.stdout)
            print("%d trials, %d acknowledged commits" % (TRIALS, total_committed))
            self.assertGreater(total_committed, TRIALS)  # the kills did land mid-work


if __name__ == "__main__":
    unittest.main()
