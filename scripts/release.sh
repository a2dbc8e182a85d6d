#!/usr/bin/env bash
# `make release`: the package exactly as npm would publish it, for people to install before (or
# instead of) a registry. Writes to target/dist/:
#   memcore-<version>.tgz          the packed package (npm pack of the build)
#   memcore-<version>.tgz.sha256   its SHA-256, in `sha256sum -c` format
#   memcore-<version>.md           the CHANGELOG.md entry of the version
# and checks the tarball with `npm publish --dry-run` (nothing is published; the registry is a
# closed local port so no network is touched). Fails before building when the version in
# Cargo.toml is not a semantic version or has no dated changelog entry. `--no-build` packs the
# pkg/ already built (the tests use it after `make test`'s own build).
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
node scripts/release-notes.mjs "$version" > /dev/null
if [ "${1:-}" = "--no-build" ]; then
  [ -f pkg/package.json ] || { echo "release: no pkg/ to pack: run make build (or make release without --no-build)" >&2; exit 1; }
else
  scripts/build.sh
fi
mkdir -p target/dist
rm -f "target/dist/memcore-$version".*
tarball=$(cd pkg && npm pack --silent --pack-destination ../target/dist | tail -1)
node scripts/release-notes.mjs "$version" > "target/dist/memcore-$version.md"
(cd target/dist && sha256sum "$tarball" > "$tarball.sha256")
# The publish check: npm's own view of the package (no auto-corrections allowed).
check=$(cd pkg && npm publish --dry-run --registry http://127.0.0.1:9/ 2>&1)
if grep -q "auto-corrected" <<<"$check"; then
  echo "release: npm would change package.json when publishing:" >&2
  grep "publish" <<<"$check" >&2
  exit 1
fi
echo "release $version:"
echo "  target/dist/$tarball ($(stat -c %s "target/dist/$tarball") bytes)"
echo "  sha256 $(cut -d' ' -f1 "target/dist/$tarball.sha256")"
echo "  target/dist/memcore-$version.md"
echo "install: npm install ./target/dist/$tarball   (check first: cd target/dist && sha256sum -c $tarball.sha256)"
