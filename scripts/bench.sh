#!/usr/bin/env bash
# The README's bench command: release build, then side-by-side measurements in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --postgres --model # the storage benches start their own PostgreSQL; the recall bench runs the real model
scripts/fetch-chitchat.sh # the learning bench ingests real conversations (chitchat-dataset, MIT)
scripts/build.sh
scripts/install-package.sh >/dev/null
node scripts/bench.mjs "$@"
# The long fuzzing run (docs/internals/fuzzing.md): at least 10 million executions, 0 crashes.
scripts/fuzz.sh long
