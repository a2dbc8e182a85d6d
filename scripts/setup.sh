#!/usr/bin/env bash
# Install what the build and the tests need, idempotently. Usage: scripts/setup.sh [--browser]
#   always: the wasm32 target, the pinned wasm-bindgen-cli, the npm dev dependencies
#   always: Debian's postgresql server (the SQL adapter tests start a throwaway one)
#   --browser: Debian's chromium (for the browser smoke test)
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' Cargo.toml)

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  echo "setup: adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  echo "setup: installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (a few minutes, once)"
  # Without --locked: the registry mirror lacks a crate version the CLI's lockfile names.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

# npm dependencies: reinstall only when package-lock.json changed since the last install.
stamp=node_modules/.memcore-lock-hash
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi

if [ "${1:-}" = "--browser" ] && ! command -v chromium >/dev/null 2>&1; then
  echo "setup: installing Debian chromium"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
fi

# The SQL adapter tests initdb and start their own PostgreSQL server (tests/support/postgres.mjs).
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  echo "setup: installing Debian postgresql"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql >/dev/null
fi
