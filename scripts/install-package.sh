#!/usr/bin/env bash
# Pack pkg/ as npm would publish it and install the tarball into the dev workspace, so tests,
# the demo and the bench import `memcore` by its package name exactly as a user would.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p target/pack
rm -f target/pack/memcore-*.tgz
tarball=$(cd pkg && npm pack --silent --pack-destination ../target/pack | tail -1)
npm install --no-save --no-audit --no-fund --ignore-scripts --loglevel=error "./target/pack/$tarball" >/dev/null
echo "installed memcore from target/pack/$tarball"
