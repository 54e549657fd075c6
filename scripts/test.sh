#!/usr/bin/env bash
# Build gemm's test programs and run its test suite: host tests, compile-fail and compile-ok tests,
# the generated-header and documentation checks, find_package consumer tests, and the GPU tests
# where there is a GPU to run them. The benchmarks, tools and examples are not built here
# (scripts/bench.sh builds the benchmark; CI builds everything).
#
#   scripts/test.sh                      # sm_90a
#   GEMM_CUDA_ARCHS="90a;80" scripts/test.sh
#   GEMM_BUILD_GPU_TESTS=1 scripts/test.sh   # build the GPU tests even without a GPU (they then
#                                            # report "skipped"); scripts/build-gpu-suite.sh builds
#                                            # them for another machine
#
# Without a GPU (nvidia-smi finds none) the GPU test programs, which could only report "skipped",
# are not built, and the script says so; CI builds and compiles everything.
#
# Installs missing cmake/g++/Catch2/Google Benchmark/Ninja with apt-get; needs the CUDA toolkit
# (nvcc on PATH or in /usr/local/cuda/bin).
set -euo pipefail
# shellcheck source=scripts/_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"

archs="${GEMM_CUDA_ARCHS:-90a}"
build_dir="${GEMM_BUILD_DIR:-build}"

start="$(gemm_now)"
gemm_install_deps --ninja
gemm_find_nvcc

gpu_tests="${GEMM_BUILD_GPU_TESTS:-}"
if [ -z "$gpu_tests" ]; then
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then gpu_tests=1; else gpu_tests=0; fi
fi

t0="$(gemm_now)"
generator=()
[ -f "$build_dir/CMakeCache.txt" ] || generator=(-G Ninja)  # (an existing build keeps its generator)
gemm_configure "$build_dir" "$archs" "${generator[@]}"
targets=(gemm_host_tests)
[ "$gpu_tests" = 1 ] && targets+=(gemm_gpu_tests gemm_distributed_tests)
present=()
for t in "${targets[@]}"; do
  gemm_has_target "$build_dir" "$t" && present+=("$t")
done
cmake --build "$build_dir" -j"$(gemm_jobs)" --target "${present[@]}"
t1="$(gemm_now)"

status=0
skip=()
if [ "$gpu_tests" != 1 ]; then
  skip=(-E '^(gpu_tests|distributed_tests)$')
  echo
  echo "[gemm] no GPU here (nvidia-smi finds none): the GPU tests are not built or run" \
       "(GEMM_BUILD_GPU_TESTS=1 builds them anyway; CI compiles them)"
fi
ctest --test-dir "$build_dir" --output-on-failure -j"$(gemm_jobs)" "${skip[@]}" || status=$?

echo
echo "configure + build: $(gemm_elapsed "$t0" "$t1") s (CUDA architectures: $archs; GPU tests" \
  "$([ "$gpu_tests" = 1 ] && echo built || echo 'not built: no GPU')); in all, set-up and tests included:" \
  "$(gemm_elapsed "$start" "$(gemm_now)") s"
exit "$status"
