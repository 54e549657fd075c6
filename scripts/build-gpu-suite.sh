#!/usr/bin/env bash
# Build the GPU test suite for sm_90a on a machine without a GPU, into
# build-gpu/ (or $1).  Copy that tree to the GPU machine and run
# scripts/run-gpu-suite.sh there.
set -euo pipefail
# shellcheck source=scripts/_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"

build_dir="${1:-build-gpu}"

gemm_install_deps
gemm_find_nvcc

t0="$(gemm_now)"
gemm_configure "$build_dir" 90a
targets=()
for t in gemm_gpu_tests gemm_host_tests presets_vs_cublas gemm_bench; do
  if gemm_has_target "$build_dir" "$t"; then
    targets+=("$t")
  else
    gemm_log "target $t not configured; skipping it"
  fi
done
[ ${#targets[@]} -gt 0 ] || gemm_die "none of the GPU targets is configured in $build_dir"
cmake --build "$build_dir" -j"$(gemm_jobs)" --target "${targets[@]}"
t1="$(gemm_now)"

echo
echo "built ${targets[*]} in $build_dir for sm_90a in $(gemm_elapsed "$t0" "$t1") s"
echo "on the GPU machine: scripts/run-gpu-suite.sh $build_dir"
