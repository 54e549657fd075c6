#!/usr/bin/env bash
# Run gemm::distributed's GPU checks and benchmark on a machine with two or more GPUs (no CMake,
# compiler or Catch2 needed there):
#   tests     gemm_distributed_tests: every algorithm, type and layout against the single-GPU
#             result; 100 calls back to back; one thread per rank; invalid calls
#   memcheck  compute-sanitizer --tool memcheck over the small cases (tag [memcheck])
#   bench     gemm_distributed_bench: bf16 and fp32 8192^3 on 1 and 2 GPUs, the targets' summary
# and a PASS/FAIL table. Logs go to OUT_DIR: env.txt, tests.log, memcheck.log, bench.txt,
# bench.json, summary.txt. Exits non-zero if a step failed.
#
#   scripts/run-distributed.sh BUILD_DIR OUT_DIR [tests] [memcheck] [bench]   (default: all three)
#
# BUILD_DIR: a build tree (test/gemm_distributed_tests, benchmark/gemm_distributed_bench) or a folder
# holding the binaries themselves (scripts/build-distributed.sh packs one, with libbenchmark).
# NCCL: the binaries load libnccl.so.2. When the dynamic loader knows none (ldconfig -p), the script
# takes python3's nvidia.nccl package (its lib/ directory; NCCL_LIB_DIR overrides) and puts it on
# LD_LIBRARY_PATH; it prints which libnccl the binaries load. NCCL_NVLS_ENABLE is set to 0.
# Time limits: GEMM_DIST_TESTS_TIMEOUT (default 600 s), GEMM_DIST_MEMCHECK_TIMEOUT (900 s),
# GEMM_DIST_BENCH_TIMEOUT (900 s); extra benchmark flags: GEMM_DIST_BENCH_ARGS.
set -uo pipefail

if [ $# -lt 2 ]; then
  sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
build_dir="$1"
out_dir="$2"
shift 2
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(tests memcheck bench)
for s in "${steps[@]}"; do
  case "$s" in tests | memcheck | bench) ;; *) echo "error: unknown step '$s' (tests, memcheck, bench)" >&2; exit 2 ;; esac
done
mkdir -p "$out_dir" || exit 2
out_dir="$(cd "$out_dir" && pwd)"

find_binary() {  # find_binary NAME SUBDIR
  local c
  for c in "$build_dir/$2/$1" "$build_dir/$1"; do
    if [ -x "$c" ]; then
      echo "$c"
      return 0
    fi
  done
  return 1
}
tests_bin="$(find_binary gemm_distributed_tests test || true)"
bench_bin="$(find_binary gemm_distributed_bench benchmark || true)"

# NVLink multicast must stay off.
if [ "${NCCL_NVLS_ENABLE:-}" != "0" ]; then
  echo "setting NCCL_NVLS_ENABLE=0 (was '${NCCL_NVLS_ENABLE:-unset}')"
  export NCCL_NVLS_ENABLE=0
fi

# libnccl.so.2: the system's if the loader knows one, else python3's nvidia.nccl.
nccl_note=""
if ldconfig -p 2>/dev/null | grep -q 'libnccl\.so\.2'; then
  nccl_note="libnccl.so.2 from the loader's cache (ldconfig -p)"
else
  lib_dir="${NCCL_LIB_DIR:-}"
  if [ -z "$lib_dir" ] && command -v python3 >/dev/null 2>&1; then
    pkg="$(python3 -c 'import nvidia.nccl as m; print(m.__path__[0])' 2>/dev/null || true)"
    [ -n "$pkg" ] && lib_dir="$pkg/lib"
  fi
  if [ -n "$lib_dir" ] && [ -e "$lib_dir/libnccl.so.2" ]; then
    export LD_LIBRARY_PATH="$lib_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    nccl_note="libnccl.so.2 from $lib_dir (LD_LIBRARY_PATH)"
  else
    nccl_note="no libnccl.so.2 in the loader's cache nor in python3's nvidia.nccl (set NCCL_LIB_DIR)"
  fi
fi
echo "NCCL: $nccl_note"

{
  date -u
  echo "build dir: $build_dir"
  echo "NCCL: $nccl_note"
  echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
  env | grep -E '^NCCL_' | sort
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1 || true
  nvidia-smi topo -m 2>&1 || true
  for b in "$tests_bin" "$bench_bin"; do
    [ -n "$b" ] || continue
    echo "--- ldd $b"
    ldd "$b" 2>&1 | grep -E 'nccl|benchmark|not found' || true
  done
} >"$out_dir/env.txt" 2>&1
for b in "$tests_bin" "$bench_bin"; do
  [ -n "$b" ] || continue
  echo "$(basename "$b") loads: $(ldd "$b" 2>/dev/null | grep -E 'libnccl' | sed 's/^[[:space:]]*//')"
  if ldd "$b" 2>/dev/null | grep -q 'not found'; then
    echo "error: $(basename "$b") misses libraries:" >&2
    ldd "$b" | grep 'not found' >&2
  fi
done

names=() results=() times=()
failed=0
add_result() {  # add_result STEP RESULT SECONDS
  names+=("$1")
  results+=("$2")
  times+=("$3")
  case "$2" in PASS* | SKIPPED*) ;; *) failed=1 ;; esac
}
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
verdict() {  # verdict RC: PASS, SKIPPED (77), TIMEOUT (124), FAIL (exit N)
  case "$1" in
    0) echo PASS ;;
    77) echo "SKIPPED (fewer than 2 GPUs)" ;;
    124) echo "FAIL (timeout)" ;;
    *) echo "FAIL (exit $1)" ;;
  esac
}

# shellcheck source=scripts/_sanitizer.sh
source "$(dirname "${BASH_SOURCE[0]}")/_sanitizer.sh"
sanitizer="$(gemm_find_sanitizer)"

for step in "${steps[@]}"; do
  echo
  case "$step" in
    tests)
      if [ -z "$tests_bin" ]; then
        echo "error: gemm_distributed_tests not found in $build_dir or $build_dir/test" >&2
        add_result tests "FAIL (no binary)" 0.0
        continue
      fi
      echo "=== tests: $tests_bin"
      t0="$(now)"
      GEMM_DIST_TEST_TIMEOUT_S="${GEMM_DIST_TESTS_TIMEOUT:-600}" \
        timeout $((${GEMM_DIST_TESTS_TIMEOUT:-600} + 60)) "$tests_bin" --durations yes 2>&1 | tee "$out_dir/tests.log"
      rc=${PIPESTATUS[0]}
      add_result tests "$(verdict "$rc")" "$(elapsed "$t0" "$(now)")"
      ;;
    memcheck)
      if [ -z "$tests_bin" ] || [ -z "$sanitizer" ]; then
        echo "error: memcheck needs gemm_distributed_tests and compute-sanitizer (PATH, \$CUDA_HOME/bin, /usr/local/cuda/bin)" >&2
        add_result memcheck "FAIL (no binary or sanitizer)" 0.0
        continue
      fi
      help="$("$sanitizer" --help 2>&1 || true)"
      opts=(--tool memcheck --error-exitcode 1)
      # NCCL probes driver entry points that may be missing: not this program's errors.
      grep -q -- '--report-api-errors' <<<"$help" && opts+=(--report-api-errors no)
      grep -q -- '--target-processes' <<<"$help" && opts+=(--target-processes all)
      timeout_s="${GEMM_DIST_MEMCHECK_TIMEOUT:-900}"
      echo "=== memcheck: $sanitizer ${opts[*]} $tests_bin [memcheck]"
      t0="$(now)"
      GEMM_DIST_TEST_TIMEOUT_S="$timeout_s" timeout $((timeout_s + 60)) \
        "$sanitizer" "${opts[@]}" "$tests_bin" "[memcheck]" 2>&1 | tee "$out_dir/memcheck.log"
      rc=${PIPESTATUS[0]}
      result="$(verdict "$rc")"
      if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ "$rc" -ne 124 ] &&
        grep -q -- '--kernel-name-exclude' <<<"$help"; then
        # Tell errors in NCCL's own kernels from errors in gemm's.
        echo "=== memcheck again without NCCL's kernels (--kernel-name-exclude kns=nccl)"
        GEMM_DIST_TEST_TIMEOUT_S="$timeout_s" timeout $((timeout_s + 60)) \
          "$sanitizer" "${opts[@]}" --kernel-name-exclude kns=nccl "$tests_bin" "[memcheck]" 2>&1 |
          tee "$out_dir/memcheck-without-nccl.log"
        rc2=${PIPESTATUS[0]}
        [ "$rc2" -eq 0 ] && result="FAIL (only in NCCL's kernels: memcheck.log; gemm's kernels clean)"
      fi
      add_result memcheck "$result" "$(elapsed "$t0" "$(now)")"
      ;;
    bench)
      if [ -z "$bench_bin" ]; then
        echo "error: gemm_distributed_bench not found in $build_dir or $build_dir/benchmark" >&2
        add_result bench "FAIL (no binary)" 0.0
        continue
      fi
      extra=()
      if [ -n "${GEMM_DIST_BENCH_ARGS:-}" ]; then
        set -f
        eval "extra=(${GEMM_DIST_BENCH_ARGS})"
        set +f
      fi
      # NCCL's set-up lines (channels per communicator: the CTA limit; NVLS off) into nccl-bench.*.log.
      nccl_debug=()
      [ -n "${NCCL_DEBUG:-}" ] ||
        nccl_debug=(NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT "NCCL_DEBUG_FILE=$out_dir/nccl-bench.%h.%p.log")
      echo "=== bench: $bench_bin ${extra[*]}"
      t0="$(now)"
      env "${nccl_debug[@]}" timeout "${GEMM_DIST_BENCH_TIMEOUT:-900}" "$bench_bin" \
        --benchmark_out="$out_dir/bench.json" --benchmark_out_format=json "${extra[@]}" 2>&1 | tee "$out_dir/bench.txt"
      rc=${PIPESTATUS[0]}
      add_result bench "$(verdict "$rc")" "$(elapsed "$t0" "$(now)")"
      ;;
  esac
done

{
  echo
  echo "=== gemm::distributed on $(hostname) ($nccl_note)"
  printf '%-10s %-68s %8s\n' step result seconds
  for i in "${!names[@]}"; do
    printf '%-10s %-68s %8s\n' "${names[$i]}" "${results[$i]}" "${times[$i]}"
  done
  if [ -f "$out_dir/bench.txt" ]; then
    sed -n '/=== targets/,$p' "$out_dir/bench.txt"
  fi
} | tee "$out_dir/summary.txt"
exit "$failed"
