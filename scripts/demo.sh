#!/usr/bin/env bash
# The README's main command: build and install the package, then run the demo on embedded defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
scripts/install-package.sh >/dev/null
node scripts/demo.mjs "$@"
