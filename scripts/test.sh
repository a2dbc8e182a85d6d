#!/usr/bin/env bash
# The README's test command: every test, from a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
# The Rust toolchain's parts first; the rest (npm packages, Chromium, PostgreSQL, the embedding
# model: mostly downloads on a fresh machine, ~2 min) runs beside the lints, which need none of it.
scripts/setup.sh --rust
mkdir -p target
setup_log=target/test-setup.log
scripts/setup.sh --browser --model > "$setup_log" 2>&1 &
setup=$!
trap 'kill $setup 2>/dev/null || true' EXIT

# Property tests use a fixed seed here so CI is deterministic; run `cargo test` alone to explore
# new random cases.
export PROPTEST_RNG_SEED=20261129

# Each step prints the seconds since the run began, so a slow step shows in CI's log.
step() { printf '\n=== [%ss] %s\n' "$SECONDS" "$*"; }

step "rustfmt and clippy"
cargo fmt --all -- --check
# The core and its tokenizer (the workspace member tokens/, sources in src/profile/tokens/).
cargo clippy --all-targets -p memcore -p memcore-tokens -- -D warnings
# The core and the binding (the workspace member wasm/, sources in src/wasm/) for wasm32.
cargo clippy --target wasm32-unknown-unknown --workspace --lib -- -D warnings
# The profile-only core (scripts/build.sh builds it too): no dead code once entry memory's
# exports are left out.
cargo clippy --target wasm32-unknown-unknown --workspace --lib --no-default-features -- -D warnings
# The fuzz crate (its own workspace); without libFuzzer's C++, which clippy does not need.
cargo fmt --manifest-path fuzz/Cargo.toml --all -- --check
cargo clippy --manifest-path fuzz/Cargo.toml --no-default-features --all-targets -- -D warnings

step "the rest of the setup, started above"
setup_rc=0
wait "$setup" || setup_rc=$?
cat "$setup_log"
[ "$setup_rc" -eq 0 ] || { echo "scripts/setup.sh failed (exit $setup_rc)" >&2; exit "$setup_rc"; }

step "core compiled to wasm, run in Node: wasm-bindgen-test"
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test --target wasm32-unknown-unknown -p memcore-wasm --test wasm

step "build and install the npm package"
scripts/build.sh
scripts/install-package.sh

step "the typings, compiled against the installed package: tsc --strict"
npx --no-install tsc -p tests/types/tsconfig.json
npx --no-install tsc -p tests/types/tsconfig.node10.json
# The framework subpaths against the frameworks' own typings (their .d.ts files need skipLibCheck).
npx --no-install tsc -p tests/types/tsconfig.frameworks.json

# The native core's tests and the fuzzing round need nothing the package does: they run beside
# the Node suites, which mostly wait on servers (one test of `cargo test` alone runs for ~100 s on
# one core). Their output is printed when they end; a failure fails the run.
native_log=target/test-native.log
step "started in the background: cargo test, then scripts/fuzz.sh short (output in $native_log)"
# In its own process group (setsid), so a failed run stops it and every process it started.
setsid -w bash -c "set -e
  printf '=== native core: cargo test -p memcore -p memcore-tokens\n'
  cargo test -p memcore -p memcore-tokens
  printf '\n=== coverage-guided fuzzing, short: scripts/fuzz.sh short\n'
  scripts/fuzz.sh short" > "$native_log" 2>&1 &
native=$!
trap 'kill -- -$native 2>/dev/null || true' EXIT

step "the package in Node: node --test"
# Two files at a time: most wait on a server (PostgreSQL, workerd, the model's loopback server),
# and every file starts its own (ephemeral ports, temp dirs). 422 s → 270 s on 2 cores.
node --test --test-concurrency=2 tests/js/*.test.mjs

step "the native core and the fuzzing round, started above"
native_rc=0
wait "$native" || native_rc=$?
trap - EXIT
cat "$native_log"
[ "$native_rc" -eq 0 ] || { echo "cargo test or scripts/fuzz.sh short failed (exit $native_rc)" >&2; exit "$native_rc"; }

step "smoke tests: headless Chromium and workerd"
# Two files at a time (each starts its own Chromium or workerd on ephemeral ports).
node --test --test-concurrency=2 tests/smoke/*.test.mjs

step "packaging matrix: the packed tarball built and run with the toolchains users have"
# Each file installs its pinned toolchains (npm ci, stamped), then builds and runs every recipe;
# the files run side by side.
node --test --test-concurrency=2 tests/packaging/*.test.mjs
