#!/usr/bin/env bash
# Runs a named benchmark scenario (or "all") against the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
exec /usr/bin/python3 bench/bench.py "${1:-all}" "${@:2}"
