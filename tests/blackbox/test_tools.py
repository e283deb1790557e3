"""Every external tool the test suite needs is on PATH. A missing tool fails
the test command, never skips a test silently: litmus, rclone and cadaver
drive test_dav.py, curl comes with them (`bash scripts/deps.sh test`), and
Debian's Chromium runs the web UI's end-to-end tests (`bash scripts/deps.sh
web`; web/README.md)."""
import shutil
import unittest

TEST = "`bash scripts/deps.sh test`"
WEB = "`bash scripts/deps.sh web`"
TOOLS = [
    ("litmus", TEST),
    ("rclone", TEST),
    ("cadaver", TEST),
    ("curl", TEST),
    # Debian's package installs /usr/bin/chromium; looked up on PATH so a
    # restricted PATH shows this check failing.
    ("chromium", WEB),
]


class ToolsTest(unittest.TestCase):
    def test_tools_on_path(self):
        for name, install in TOOLS:
            with self.subTest(tool=name):
                self.assertIsNotNone(shutil.which(name),
                                     "%s is not installed (not on PATH); %s installs it" % (name, install))


if __name__ == "__main__":
    unittest.main()
