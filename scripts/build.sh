#!/usr/bin/env bash
# Build the npm package into pkg/: release wasm → wasm-bindgen (--target web) → wasm-opt -Oz (npm
# binaryen, never Debian's) → JS entry points, typings, package.json. Prints the .wasm size.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

cargo build --release --target wasm32-unknown-unknown --lib
rm -rf target/bindgen pkg
wasm-bindgen --target web --out-dir target/bindgen --out-name memcore \
  target/wasm32-unknown-unknown/release/memcore.wasm
mkdir -p pkg/wasm
# Features the Rust wasm32 target enables by default, and simd128 (.cargo/config.toml); wasm-opt
# must know them to keep them. -O2 before -Oz: its inlining and simplification leave -Oz more to
# shrink (−3 KiB gzip against -Oz alone; -Oz twice, -O3 -Oz, -Os -Oz and --converge were measured
# and do not pay).
node node_modules/binaryen/bin/wasm-opt -O2 -Oz --strip-debug --strip-producers \
  --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-reference-types --enable-multivalue --enable-simd \
  target/bindgen/memcore_bg.wasm -o pkg/wasm/memcore_bg.wasm
cp target/bindgen/memcore.js pkg/wasm/memcore.js
# The tokenizer part: exact rank tables, loaded separately from the core wasm.
node scripts/tokens/build-tables.mjs pkg/tokenizer >/dev/null
node scripts/package.mjs
