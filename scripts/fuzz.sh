#!/usr/bin/env bash
# Coverage-guided fuzzing of what a stranger's bytes reach (docs/internals/fuzzing.md), on stable Rust:
# libFuzzer through the `libfuzzer-sys` crate, coverage instrumentation through stable `-C` flags
# (as `cargo fuzz --sanitizer none` passes them). Usage: scripts/fuzz.sh [short|long|corpus] [target…]
#   short  (make test): each target 8 s or 200,000 executions from its committed corpus, then
#          the hostile inputs at 16 and 64 KiB
#   long   (make bench): at least 10 million executions in all, inputs up to 1 MiB, then the
#          hostile inputs at 256 KiB and 1 MiB and a 4 MiB single line
#   corpus (by hand): regenerate the seeds from tests/vectors and merge them, the committed corpus
#          and what earlier runs found into a minimal fuzz/corpus/<target>/ (commit the result)
# Any crash — a panic (a property failed), an abort, a timeout, running out of memory, or work
# beyond a target's linear bound — fails the run; the input is saved under fuzz/artifacts/<target>/
# and its path printed. Inputs in fuzz/regressions/<target>/ are run first, every time.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-short}
[ $# -gt 0 ] && shift
ALL=(profile json_decode tool_args credentials rest_body migration)
if [ $# -gt 0 ]; then TARGETS=("$@"); else TARGETS=("${ALL[@]}"); fi

# Executions per target in the long run (10.6 million in all), sized to each target's speed on
# a shared 2-core machine (docs/internals/fuzzing.md: from ~500/s for credentials to ~40,000/s for
# rest_body): about 30 minutes in all.
declare -A LONG_RUNS=(
  [profile]=500000 [json_decode]=700000 [tool_args]=400000
  [credentials]=250000 [rest_body]=5000000 [migration]=3750000
)
LONG_MIN_TOTAL=10000000

# The short run's verdicts never depend on time (work is counted; a hang guard of 60 s per
# input only); the long run also holds time to its bound (MEMCORE_FUZZ_TIME, fuzz/src/lib.rs).
case "$mode" in
  short) seconds=8 max_len=65536 hostile_small=16384 hostile_extra= timeout=60 timed=0 ;;
  long) seconds=1200 max_len=1048576 hostile_small=262144 hostile_extra=with-4mib timeout=10 timed=1
    export MEMCORE_FUZZ_TIME=1 ;;
  corpus) ;;
  *) echo "usage: scripts/fuzz.sh [short|long|corpus] [target…]" >&2; exit 2 ;;
esac

# libFuzzer is C++: libfuzzer-sys builds it with the system compiler (once; then cached).
if ! command -v c++ >/dev/null 2>&1; then
  echo "fuzz: installing Debian g++ (libFuzzer is built from C++)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq g++ >/dev/null
fi

host=$(rustc -vV | sed -n 's/^host: //p')
# --target keeps these flags off build scripts and proc macros (they cannot link libFuzzer).
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares"
build_start=$SECONDS
cargo build --release --locked --manifest-path fuzz/Cargo.toml --target "$host" --bins
echo "fuzz: built in $((SECONDS - build_start)) s"
bin=fuzz/target/$host/release
work=fuzz/target/work

if [ "$mode" = corpus ]; then
  rm -rf "$work/seeds" && node scripts/fuzz-seeds.mjs seeds "$work/seeds"
  for t in "${TARGETS[@]}"; do
    merged=$work/merged/$t
    rm -rf "$merged" && mkdir -p "$merged" "fuzz/corpus/$t" "$work/$t/found" "fuzz/artifacts/$t"
    "$bin/$t" -set_cover_merge=1 -use_counters=0 -max_len=8192 -timeout=10 \
      -artifact_prefix="fuzz/artifacts/$t/" "$merged" "fuzz/corpus/$t" "$work/seeds/$t" \
      "$work/$t/found" >"$work/$t-merge.log" 2>&1 ||
      { tail -20 "$work/$t-merge.log"; exit 1; }
    rm -rf "fuzz/corpus/$t" && mv "$merged" "fuzz/corpus/$t"
    echo "fuzz: corpus $t: $(ls "fuzz/corpus/$t" | wc -l) inputs, $(du -sk "fuzz/corpus/$t" | cut -f1) KiB"
  done
  exit 0
fi

failed=0
crash() { # target, what, input
  local saved=fuzz/artifacts/$1/$(basename "$3")
  mkdir -p "fuzz/artifacts/$1"
  [ -f "$saved" ] || cp "$3" "$saved"
  echo "fuzz: CRASH in $1 ($2); input saved at $saved" >&2
  echo "fuzz:   reproduce: $bin/$1 $saved" >&2
  failed=1
}

# One input in a process of its own: sets $work_line to "bytes allocations nanos len", or
# records a crash and returns 1.
run_one() { # target, file
  local log=$work/$1-one.log
  work_line=
  if MEMCORE_FUZZ_TRACE=1 "$bin/$1" -timeout=120 -rss_limit_mb=4096 -max_len=8388608 \
    -artifact_prefix="fuzz/artifacts/$1/" "$2" >"$log" 2>&1; then
    work_line=$(sed -n 's/^memcore-fuzz work: len=\([0-9]*\) bytes=\([0-9]*\) allocations=\([0-9]*\) nanos=\([0-9]*\)$/\2 \3 \4 \1/p' "$log" | tail -1)
  else
    grep -m1 -A2 'panicked at\|ERROR: libFuzzer' "$log" >&2 || tail -5 "$log" >&2
    crash "$1" "$(basename "$2")" "$2"
    return 1
  fi
}

echo "fuzz: $mode run of ${TARGETS[*]}"
total=0
summary=()
for t in "${TARGETS[@]}"; do
  mkdir -p "$work/$t/found" "$work/$t/report" "fuzz/artifacts/$t" "fuzz/corpus/$t"
  for file in fuzz/regressions/"$t"/*; do
    if [ -f "$file" ]; then run_one "$t" "$file" || true; fi
  done
  if [ "$mode" = long ]; then runs=${LONG_RUNS[$t]}; else runs=200000; fi
  log=$work/$t.log
  rm -f "$work/$t/report/"*
  start=$SECONDS
  status=0
  # New inputs go to the first directory (the work copy), never into the committed corpus.
  MEMCORE_FUZZ_REPORT=$work/$t/report "$bin/$t" "$work/$t/found" "fuzz/corpus/$t" \
    -runs="$runs" -max_total_time="$seconds" -max_len="$max_len" -timeout="$timeout" \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="fuzz/artifacts/$t/" \
    >"$log" 2>&1 || status=$?
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  executions=${executions:-0}
  total=$((total + executions))
  if [ "$status" -ne 0 ]; then
    grep -m1 -A3 'panicked at\|ERROR: libFuzzer' "$log" >&2 || tail -20 "$log" >&2
    input=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    crash "$t" "exit status $status, log $log" "${input:-$log}"
  fi
  slowest=$(cat "$work/$t/report/slowest.txt" 2>/dev/null || echo "none")
  peak=$(cat "$work/$t/report/peak.txt" 2>/dev/null || echo "no input of 4 KiB or more")
  summary+=("$t: $executions executions in $((SECONDS - start)) s (${rate:-?}/s); slowest input: $slowest; peak: $peak")
done

# The hostile inputs: each family at two sizes, the larger 4× the smaller. Linear work costs the
# same per byte at both; quadratic costs 4× more per byte at the larger size. Allocation counts
# are exact, so their bound is tight (2×); time is noisy (fastest of 2 runs; 3×, and only
# where the larger input takes 100 ms or more) and is judged in the long run only.
hostile=$work/hostile
rm -rf "$hostile" && node scripts/fuzz-seeds.mjs hostile "$hostile" "$hostile_small" $hostile_extra
for t in "${TARGETS[@]}"; do
  for small in "$hostile/$t"/*.small; do
    [ -f "$small" ] || continue
    family=$(basename "$small" .small)
    run_one "$t" "$small" || continue
    a=$work_line
    run_one "$t" "$hostile/$t/$family.large" || continue
    b=$work_line
    [ -n "$a" ] && [ -n "$b" ] || continue
    verdict=$(echo "$a $b" | awk -v f="$family" -v t="$timed" '{
      r_bytes = ($5 / $8) / ($1 / $4); r_allocs = (($6 + 1) / $8) / (($2 + 1) / $4); r_time = ($7 / $8) / ($3 / $4)
      bad = r_bytes > 2 || (r_allocs > 2 && $6 > 1000) || (t && r_time > 3 && $7 > 100000000)
      printf "%s %s: per byte at 4x size: bytes %.2fx, allocations %.2fx, time %.2fx (%.0f ns/byte at %d bytes)\n", \
        bad ? "SUPER-LINEAR" : "linear", f, r_bytes, r_allocs, r_time, $7 / $8, $8 }')
    echo "fuzz: hostile $t ${verdict}"
    if [[ $verdict == SUPER-LINEAR* ]]; then crash "$t" "super-linear: $family" "$hostile/$t/$family.large"; fi
  done
  # The small hostile cases and the 4 MiB line, once each.
  cases=0
  for one in "$hostile/$t"/*; do
    case $one in *.small | *.large) continue ;; esac
    [ -f "$one" ] || continue
    run_one "$t" "$one" || continue
    cases=$((cases + 1))
    if [ "$(basename "$one")" = line-4mib ]; then
      echo "fuzz: hostile $t 4 MiB line: $work_line (bytes allocations nanos len)"
    fi
  done
  echo "fuzz: hostile $t: $cases small hostile cases passed"
done

echo
echo "fuzz: $mode run summary"
for line in "${summary[@]}"; do echo "  $line"; done
echo "  total: $total executions"
if [ "$mode" = long ] && [ "$total" -lt "$LONG_MIN_TOTAL" ]; then
  echo "fuzz: the long run made $total executions, fewer than $LONG_MIN_TOTAL" >&2
  failed=1
fi
if [ "$failed" -ne 0 ]; then
  echo "fuzz: FAILED (inputs under fuzz/artifacts/)" >&2
  exit 1
fi
echo "fuzz: 0 crashes"
