#!/usr/bin/env bash
# Run the GPU test suite on a machine with a GPU (no CMake or Catch2 needed):
#   1. build-gpu/test/gemm_gpu_tests                (stop here if it fails), and its
#      [captured_first] cases each alone (a graph capture as its process's first call)
#   2. compute-sanitizer --tool memcheck --leak-check full
#   3. compute-sanitizer --tool racecheck --racecheck-report all
#   4. compute-sanitizer --tool synccheck
# then print a PASS/FAIL summary with timings; exits non-zero if a step failed.
#
#   scripts/run-gpu-suite.sh [build-dir]            # default: build-gpu
#   GEMM_SANITIZER_ARGS='"[gemm]~[slow]~[overlap]"' scripts/run-gpu-suite.sh
#   GEMM_SANITIZERS="memcheck synccheck" GEMM_SKIP_TESTS=1 scripts/run-gpu-suite.sh   # some tools only
#
#   GEMM_SUITE_JOBS=8 GEMM_SUITE_TIMEOUT=500 scripts/run-gpu-suite.sh          # by test file, 8 at a time
#
# GEMM_SUITE_JOBS=N (N > 1): each step runs the binary once per test file (test/gpu/*_test.cu,
# selected by Catch2's file tags), N processes at a time, a log per file and step in
# GEMM_SUITE_LOGS (default BUILD_DIR/suite-logs); the files that read the device's free memory or
# time launches (host, workspace, dependent_launch) run alone after the others. The suite has grown
# past one sitting under racecheck; on a machine of many cores the files' host references and the
# sanitizers' instrumentation run side by side. GEMM_SUITE_TIMEOUT=S stops each process after S
# seconds (exit 124: the file shows as failed, its log ends where it was stopped).
#
# GEMM_SANITIZER_ARGS: the arguments for the test binary under the sanitizers (default "~[overlap]")
# (e.g. a Catch2 test filter); shell quoting is honoured, globbing is not.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${1:-}"
if [ -z "$build_dir" ]; then
  build_dir="$root/build-gpu"
fi
bin="$build_dir/test/gemm_gpu_tests"
[ -x "$bin" ] || { echo "error: $bin not found; build it with scripts/build-gpu-suite.sh" >&2; exit 2; }

# Default under the sanitizers: every test but [overlap], which checks that a dependent kernel
# starts before the kernel it waits for ends; the sanitizers run kernels one at a time.
extra=("~[overlap]")
if [ -n "${GEMM_SANITIZER_ARGS:-}" ]; then
  set -f
  eval "extra=(${GEMM_SANITIZER_ARGS})"
  set +f
fi

# shellcheck source=scripts/_sanitizer.sh
source "$(dirname "${BASH_SOURCE[0]}")/_sanitizer.sh"
sanitizer="$(gemm_find_sanitizer)"

names=() results=() times=()
failed=0

jobs="${GEMM_SUITE_JOBS:-1}"
logs="${GEMM_SUITE_LOGS:-$build_dir/suite-logs}"
timeout_s="${GEMM_SUITE_TIMEOUT:-}"
alone_files=" dependent_launch_test host_test workspace_test "

# by_file STEP FILTER_COUNT FILTER... PREFIX...: the binary once per test file, $jobs at a time
# (PREFIX: the sanitizer's command line, or nothing); prints each file that failed. (Called through
# run_step, which shellcheck does not follow.)
# shellcheck disable=SC2317
by_file() {
  local step="$1" nfilter="$2"
  shift 2
  local filter=("${@:1:$nfilter}")
  shift "$nfilter"
  local together=() alone=() f
  for f in "$root"/test/gpu/*_test.cu; do
    f="$(basename "$f" .cu)"
    if [[ "$alone_files" == *" $f "* ]]; then alone+=("$f"); else together+=("$f"); fi
  done
  mkdir -p "$logs"
  rm -f "$logs/${step}_"*.rc
  local limit=()
  [ -n "$timeout_s" ] && limit=(timeout -s INT "$timeout_s")
  # One FILE: its log, and its exit status in FILE's .rc file.
  run_one() {
    local name="$1"
    shift
    ( "${limit[@]}" "$@" "$bin" -# "[#$name]" "${filter[@]}" -d yes > "$logs/${step}_$name.log" 2>&1
      echo $? > "$logs/${step}_$name.rc" )
  }
  for f in "${together[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
    run_one "$f" "$@" &
  done
  wait
  for f in "${alone[@]}"; do run_one "$f" "$@"; done
  local rc=0 code
  for f in "${together[@]}" "${alone[@]}"; do
    code="exit $(cat "$logs/${step}_$f.rc" 2>/dev/null || echo missing)"
    # (Catch2 exits 0 when no test case matches: a file the binary was not built with.)
    grep -q "^No test cases matched" "$logs/${step}_$f.log" 2>/dev/null && code="no test case of it in the binary"
    if [ "$code" != "exit 0" ]; then
      echo "$step: $f failed ($code; $logs/${step}_$f.log)"
      rc=1
    fi
  done
  return "$rc"
}

# run_step NAME COMMAND...
run_step() {
  local name="$1"; shift
  echo
  echo "=== $name: $*"
  local t0 t1 rc
  t0="$(date +%s.%N)"
  "$@"
  rc=$?
  t1="$(date +%s.%N)"
  names+=("$name")
  times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')")
  if [ "$rc" -eq 0 ]; then
    results+=(PASS)
  else
    if [ "$rc" -eq 77 ]; then
      echo "$name: exit code 77 (the test binary found no usable CUDA device)"
    fi
    results+=("FAIL (exit $rc)")
    failed=1
  fi
  return "$rc"
}

summary() {
  echo
  echo "=== GPU suite summary ($bin)"
  printf '%-15s %-20s %8s\n' step result seconds
  local i
  for i in "${!names[@]}"; do
    printf '%-15s %-20s %8s\n' "${names[$i]}" "${results[$i]}" "${times[$i]}"
  done
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true

# The plain pass: the binary once, or once per test file.
plain=("$bin")
[ "$jobs" -gt 1 ] && plain=(by_file tests 0)
if [ -n "${GEMM_SKIP_TESTS:-}" ]; then
  echo "GEMM_SKIP_TESTS set: not running the plain test pass"
elif ! run_step tests "${plain[@]}"; then
  echo "gemm_gpu_tests failed; not running the sanitizers" >&2
  summary
  exit 1
else
  # Cases alone, so that each capture is its process's first call (ctest: gpu_tests.captured_first,
  # gpu_tests.grouped_captured_first).
  run_step captured_first "$bin" "[captured_first][workspace]"
  run_step grouped_first "$bin" "[captured_first][grouped]"
fi

if [ -z "$sanitizer" ]; then
  echo "error: compute-sanitizer not found (PATH, \$CUDA_HOME/bin, /usr/local/cuda/bin)" >&2
  for step in memcheck racecheck synccheck; do
    names+=("$step"); results+=("FAIL (no sanitizer)"); times+=("0.0")
  done
  failed=1
else
  # Under the sanitizers the layout cases and the largest shapes are trimmed (GEMM_TEST_QUICK=1,
  # see test/gpu/check.cuh): every kernel and path still runs, on fewer shapes.
  tools="${GEMM_SANITIZERS:-memcheck racecheck synccheck}"
  for tool in $tools; do
    opts=(--tool "$tool" --error-exitcode 1)
    [ "$tool" = memcheck ] && opts+=(--leak-check full)
    [ "$tool" = racecheck ] && opts+=(--racecheck-report all)
    if [ "$jobs" -gt 1 ]; then
      run_step "$tool" by_file "$tool" "${#extra[@]}" "${extra[@]}" env GEMM_TEST_QUICK=1 "$sanitizer" "${opts[@]}"
    else
      run_step "$tool" env GEMM_TEST_QUICK=1 "$sanitizer" "${opts[@]}" "$bin" "${extra[@]}"
    fi
  done
fi

summary
exit "$failed"
