#!/usr/bin/env bash
# Build the npm package into pkg/: release wasm (the full core and the profile-only core) →
# wasm-bindgen (--target web; one glue for both) → wasm-opt -Oz (npm binaryen, never Debian's) →
# JS entry points, typings, package.json. Prints the .wasm sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

# Features the Rust wasm32 target enables by default, and simd128 (.cargo/config.toml); wasm-opt
# must know them to keep them. -O2 before -Oz: its inlining and simplification leave -Oz more to
# shrink (−3 KiB gzip against -Oz alone; -Oz twice, -O3 -Oz, -Os -Oz and --converge were measured
# and do not pay).
wasm_opt() {
  node node_modules/binaryen/bin/wasm-opt -O2 -Oz --strip-debug --strip-producers \
    --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue --enable-simd \
    "$1" -o "$2"
}
rm -rf target/bindgen target/bindgen-profile pkg
mkdir -p pkg/wasm
# The profile-only core first (no `entry-memory` feature: entry memory's exports left out, so the
# linker drops what only they reach), then the full one; cargo keeps both builds' artifacts.
# The binding crate (wasm/, sources in src/wasm/) builds the .wasm; the core is its dependency.
cargo build --release --target wasm32-unknown-unknown -p memcore-wasm --no-default-features
cp target/wasm32-unknown-unknown/release/memcore_wasm.wasm target/memcore-profile.wasm
# The profile-only core's wasm-bindgen and wasm-opt run beside the full core's build: the fat-LTO
# link and wasm-opt each use one core.
( wasm-bindgen --target web --out-dir target/bindgen-profile --out-name memcore target/memcore-profile.wasm
  wasm_opt target/bindgen-profile/memcore_bg.wasm pkg/wasm/memcore_profile_bg.wasm ) &
profile=$!
cargo build --release --target wasm32-unknown-unknown -p memcore-wasm
wasm-bindgen --target web --out-dir target/bindgen --out-name memcore \
  target/wasm32-unknown-unknown/release/memcore_wasm.wasm
wasm_opt target/bindgen/memcore_bg.wasm pkg/wasm/memcore_bg.wasm
wait "$profile"
# One glue drives both modules: the profile-only core's own glue must be the full glue with
# whole functions left out (every line of it, in order, is a line of the full glue).
node scripts/glue-subset.mjs target/bindgen-profile/memcore.js target/bindgen/memcore.js
cp target/bindgen/memcore.js pkg/wasm/memcore.js
# The tokenizer part: exact rank tables, loaded separately from the core wasm.
node scripts/tokens/build-tables.mjs pkg/tokenizer >/dev/null
node scripts/package.mjs
