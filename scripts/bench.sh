#!/usr/bin/env bash
# The README's bench command: release build, then side-by-side measurements in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --postgres # the storage bench starts its own PostgreSQL
scripts/build.sh
scripts/install-package.sh >/dev/null
node scripts/bench.mjs "$@"
