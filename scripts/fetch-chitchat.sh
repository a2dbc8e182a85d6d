#!/usr/bin/env bash
# Fetch the Chit-Chat Challenge dataset (BYU PCC lab; MIT) for the learning benchmark
# (bench/learning/chitchat.mjs), idempotently: PyPI's wheel chitchat-dataset 0.9.0 (a wheel is a
# zip) into target/chitchat/, then its dataset.json and LICENSE beside it. pip checks the wheel
# against its pinned sha256, and the extracted JSON is checked against its own pin. Exits at once
# when target/chitchat/dataset.json is already there and matches.
# Usage: scripts/fetch-chitchat.sh
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=0.9.0
DIR=target/chitchat
WHEEL="$DIR/chitchat_dataset-$VERSION-py3-none-any.whl"
WHEEL_SHA256=7bf89f36645e2d5ec87d53370c8e851b5a688479c7beb7079cb4c87fc5acea3e
DATASET_SHA256=d2a5d0bf6acf354fef51f3af39cbece2220d3b8f6086b658c3d335105798312a

sha() { sha256sum "$1" 2>/dev/null | cut -d' ' -f1; }

if [ "$(sha "$DIR/dataset.json")" = "$DATASET_SHA256" ]; then
  exit 0
fi

mkdir -p "$DIR"
if [ "$(sha "$WHEEL")" != "$WHEEL_SHA256" ]; then
  echo "fetch-chitchat: downloading chitchat-dataset $VERSION from PyPI (8 MB, once)"
  rm -f "$WHEEL"
  requirements="$DIR/requirements.txt"
  printf 'chitchat-dataset==%s --hash=sha256:%s\n' "$VERSION" "$WHEEL_SHA256" > "$requirements"
  python3 -m pip download --no-deps --only-binary=:all: --require-hashes --quiet \
    --disable-pip-version-check -r "$requirements" -d "$DIR"
  rm -f "$requirements"
fi

# One member of the wheel to a file (python's zipfile: unzip is not on every machine).
unzip_one() { # wheel, member, destination
  python3 -c 'import sys, zipfile, shutil
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst)' "$1" "$2" "$3"
}
unzip_one "$WHEEL" chitchat_dataset/dataset.json "$DIR/dataset.json.part"
unzip_one "$WHEEL" "chitchat_dataset-$VERSION.dist-info/LICENSE" "$DIR/LICENSE"
got=$(sha "$DIR/dataset.json.part")
if [ "$got" != "$DATASET_SHA256" ]; then
  rm -f "$DIR/dataset.json.part"
  echo "fetch-chitchat: dataset.json has sha256 $got, expected $DATASET_SHA256" >&2
  exit 1
fi
mv "$DIR/dataset.json.part" "$DIR/dataset.json"
echo "fetch-chitchat: $DIR/dataset.json"
