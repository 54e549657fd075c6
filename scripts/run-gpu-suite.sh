#!/usr/bin/env bash
# Run the GPU test suite on a machine with a GPU (no CMake or Catch2 needed):
#   1. build-gpu/test/gemm_gpu_tests                (stop here if it fails)
#   2. compute-sanitizer --tool memcheck --leak-check full
#   3. compute-sanitizer --tool racecheck --racecheck-report all
#   4. compute-sanitizer --tool synccheck
# then print a PASS/FAIL summary with timings; exits non-zero if a step failed.
#
#   scripts/run-gpu-suite.sh [build-dir]            # default: build-gpu
#   GEMM_SANITIZER_ARGS='"[gemm]~[slow]"' scripts/run-gpu-suite.sh
#   GEMM_SANITIZERS="memcheck synccheck" GEMM_SKIP_TESTS=1 scripts/run-gpu-suite.sh   # some tools only
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
  printf '%-12s %-20s %8s\n' step result seconds
  local i
  for i in "${!names[@]}"; do
    printf '%-12s %-20s %8s\n' "${names[$i]}" "${results[$i]}" "${times[$i]}"
  done
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true

if [ -n "${GEMM_SKIP_TESTS:-}" ]; then
  echo "GEMM_SKIP_TESTS set: not running the plain test pass"
elif ! run_step tests "$bin"; then
  echo "gemm_gpu_tests failed; not running the sanitizers" >&2
  summary
  exit 1
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
    case "$tool" in
      racecheck) run_step racecheck env GEMM_TEST_QUICK=1 "$sanitizer" --tool racecheck --racecheck-report all \
                   --error-exitcode 1 "$bin" "${extra[@]}" ;;
      memcheck) run_step memcheck env GEMM_TEST_QUICK=1 "$sanitizer" --tool memcheck --leak-check full \
                  --error-exitcode 1 "$bin" "${extra[@]}" ;;
      *) run_step "$tool" env GEMM_TEST_QUICK=1 "$sanitizer" --tool "$tool" --error-exitcode 1 "$bin" "${extra[@]}" ;;
    esac
  done
fi

summary
exit "$failed"
