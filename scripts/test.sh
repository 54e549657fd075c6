#!/usr/bin/env bash
# Build gemm and run its test suite (host tests, GPU tests when a device is
# present, compile-fail tests, find_package consumer tests).
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

gemm_install_deps
gemm_find_nvcc

t0="$(gemm_now)"
gemm_configure "$build_dir" "$archs"
cmake --build "$build_dir" -j"$(gemm_jobs)"
t1="$(gemm_now)"

status=0
ctest --test-dir "$build_dir" --output-on-failure -j"$(gemm_jobs)" || status=$?

echo
echo "configure + build: $(gemm_elapsed "$t0" "$t1") s (CUDA architectures: $archs)"
exit "$status"
