#!/usr/bin/env bash
# Install what the build and the tests need, idempotently. Usage: scripts/setup.sh [--browser] [--postgres]
#   always: the wasm32 target, the pinned wasm-bindgen-cli, the npm dev dependencies
#   --browser: Debian's chromium (the browser smoke tests) and, as for --postgres, Debian's
#              postgresql server (the SQL tests start a throwaway one) — what `make test` needs
#   --postgres: Debian's postgresql server only (`make bench`)
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

browser=false
postgres=false
for arg in "$@"; do
  case "$arg" in
    --browser) browser=true; postgres=true ;;
    --postgres) postgres=true ;;
    *) echo "setup: unknown option $arg" >&2; exit 2 ;;
  esac
done

if $browser && ! command -v chromium >/dev/null 2>&1; then
  echo "setup: installing Debian chromium"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
fi

# The SQL adapter tests initdb and start their own PostgreSQL server (tests/support/postgres.mjs).
if $postgres && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  echo "setup: installing Debian postgresql"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql >/dev/null
fi
