#!/usr/bin/env bash
# Build gemm's test programs and run its test suite (host tests, GPU tests when a device is
# present, compile-fail and compile-ok tests, find_package consumer tests). The benchmarks, tools
# and examples are not built here (scripts/bench.sh builds the benchmark; CI builds everything).
#
#   scripts/test.sh                      # sm_90a
#   GEMM_CUDA_ARCHS="90a;80" scripts/test.sh
#
# Installs missing cmake/g++/Catch2/Google Benchmark with apt-get; needs the
# CUDA toolkit (nvcc on PATH or in /usr/local/cuda/bin).
set -euo pipefail
# shellcheck source=scripts/_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"

archs="${GEMM_CUDA_ARCHS:-90a}"
build_dir="${GEMM_BUILD_DIR:-build}"

start="$(gemm_now)"
gemm_install_deps
gemm_find_nvcc

t0="$(gemm_now)"
gemm_configure "$build_dir" "$archs"
targets=()
for t in gemm_host_tests gemm_gpu_tests gemm_distributed_tests; do
  gemm_has_target "$build_dir" "$t" && targets+=("$t")
done
cmake --build "$build_dir" -j"$(gemm_jobs)" --target "${targets[@]}"
t1="$(gemm_now)"

status=0
ctest --test-dir "$build_dir" --output-on-failure -j"$(gemm_jobs)" || status=$?

echo
echo "configure + build: $(gemm_elapsed "$t0" "$t1") s (CUDA architectures: $archs); in all, set-up and tests" \
  "included: $(gemm_elapsed "$start" "$(gemm_now)") s"
exit "$status"
