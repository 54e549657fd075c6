#!/usr/bin/env bash
# Build gemm::distributed's GPU test and benchmark for sm_90a on a machine without a GPU, and pack
# the binaries into one folder to carry to the 2-GPU machine:
#
#   scripts/build-distributed.sh [BUILD_DIR] [PACK_DIR]     (defaults: build-nccl, BUILD_DIR/dist-run)
#
# builds gemm_distributed_tests, gemm_distributed_bench and gemm_host_tests in BUILD_DIR (configured
# as: cmake -S . -B BUILD_DIR -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a), runs the
# host tests, and copies the two GPU binaries and libbenchmark into PACK_DIR (both lie under an
# ignored build folder). Then, on the GPU machine: scripts/run-distributed.sh PACK_DIR OUT_DIR
set -euo pipefail
# shellcheck source=scripts/_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"

build_dir="${1:-build-nccl}"
pack_dir="${2:-$build_dir/dist-run}"

gemm_install_deps
gemm_find_nvcc

t0="$(gemm_now)"
gemm_configure "$build_dir" 90a
for t in gemm_distributed_tests gemm_distributed_bench; do
  gemm_has_target "$build_dir" "$t" ||
    gemm_die "target $t is not configured in $build_dir (NCCL not found? see the configure output; set NCCL_ROOT)"
done
cmake --build "$build_dir" -j"$(gemm_jobs)" --target gemm_distributed_tests gemm_distributed_bench gemm_host_tests
t1="$(gemm_now)"
"$build_dir/test/gemm_host_tests" "[distributed]"

mkdir -p "$pack_dir"
cp "$build_dir/test/gemm_distributed_tests" "$build_dir/benchmark/gemm_distributed_bench" "$pack_dir/"
cp -P "$build_dir"/benchmark/libbenchmark.so* "$pack_dir/" 2>/dev/null || true
echo
echo "built in $(gemm_elapsed "$t0" "$t1") s; packed into $pack_dir:"
ls -la "$pack_dir"
du -sh "$pack_dir"
echo "on the GPU machine: scripts/run-distributed.sh $pack_dir OUT_DIR"
