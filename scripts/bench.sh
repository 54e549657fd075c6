#!/usr/bin/env bash
# Build and run the gemm benchmarks (short default sweep).
#
#   scripts/bench.sh                     # short sweep
#   scripts/bench.sh --full              # full sweep (passes --gemm_full)
#   scripts/bench.sh --benchmark_filter=Coalesced   # other args go to the binary
#
# GEMM_CUDA_ARCHS (default 90a) selects the architectures to compile for.
# Falls back to examples/presets_vs_cublas if the benchmark binary is not built
# (e.g. Google Benchmark unavailable).
set -euo pipefail
# shellcheck source=scripts/_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"

archs="${GEMM_CUDA_ARCHS:-90a}"
build_dir="${GEMM_BUILD_DIR:-build}"

args=()
for a in "$@"; do
  if [ "$a" = "--full" ]; then args+=(--gemm_full); else args+=("$a"); fi
done

gemm_install_deps --no-catch2  # the benchmarks need no test framework
gemm_find_nvcc

gemm_configure "$build_dir" "$archs" -DGEMM_BUILD_TESTS=OFF
targets=()
for t in gemm_bench presets_vs_cublas; do
  gemm_has_target "$build_dir" "$t" && targets+=("$t")
done
[ ${#targets[@]} -gt 0 ] || gemm_die "neither gemm_bench nor presets_vs_cublas is configured in $build_dir"
cmake --build "$build_dir" -j"$(gemm_jobs)" --target "${targets[@]}"

if [ -x "$build_dir/benchmark/gemm_bench" ]; then
  exec "$build_dir/benchmark/gemm_bench" "${args[@]}"
elif [ -x "$build_dir/examples/presets_vs_cublas" ]; then
  gemm_log "benchmark/gemm_bench not built; running examples/presets_vs_cublas instead"
  exec "$build_dir/examples/presets_vs_cublas"
else
  gemm_die "no benchmark binary was built"
fi
