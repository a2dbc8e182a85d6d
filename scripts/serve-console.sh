#!/usr/bin/env bash
# `make serve`: build and install the package, make sure the embedded database has an admin key
# (printed once, when it is created), then run `memcore serve` on it — the console is at
# http://127.0.0.1:8787/console/. Extra arguments go to `memcore serve` (e.g. --port 0).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
scripts/install-package.sh >/dev/null
memcore="node node_modules/memcore/bin/memcore.js"
if ! $memcore keys list --json 2>/dev/null | grep -q '"admin"'; then
  echo "An administrator's API key for the console (shown once; memcore keys create --admin makes another):"
  $memcore keys create --admin
fi
echo "Open http://127.0.0.1:8787/console/ and sign in with the key. Ctrl-C stops the server."
exec $memcore serve "$@"
