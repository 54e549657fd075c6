#!/usr/bin/env bash
# Where the build's time goes: builds every target in a fresh tree with nvcc's per-phase timing
# (--time) and prints a markdown table of seconds per CUDA file and phase (front end, cicc and ptxas
# per architecture, host compile), largest first, and the configure + build wall time.
#
#   scripts/compile-times.sh OUT.md                  # what CI builds: programs for 90a, sm_80 checked
#   GEMM_CUDA_ARCHS=90a GEMM_CHECK_ARCHS= scripts/compile-times.sh OUT.md
#   GEMM_JOBS=1 scripts/compile-times.sh OUT.md      # one compile at a time: per-file figures without
#                                                    # the other core's load (twice the wall time)
set -euo pipefail
# shellcheck source=scripts/_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"

out="${1:?usage: scripts/compile-times.sh OUT.md}"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
archs="${GEMM_CUDA_ARCHS:-90a}"
check_archs="${GEMM_CHECK_ARCHS-80}"
jobs="${GEMM_JOBS:-$(gemm_jobs)}"
build_dir="${GEMM_BUILD_DIR:-build-times}"

gemm_install_deps --ninja
gemm_find_nvcc
rm -rf "$build_dir"
csv="$PWD/$build_dir/nvcc-time.csv"
mkdir -p "$build_dir"
t0="$(gemm_now)"
gemm_configure "$build_dir" "$archs" -G Ninja -DGEMM_CHECK_ARCHITECTURES="$check_archs" \
  -DCMAKE_CUDA_FLAGS="--time $csv" >/dev/null
cmake --build "$build_dir" -j"$jobs"
t1="$(gemm_now)"

python3 scripts/nvcc-time-table.py "$csv" "$out" --root "$gemm_root" \
  --title "programs for $archs, gemm_arch_check for ${check_archs:-(none)}, $jobs jobs; configure + build $(gemm_elapsed "$t0" "$t1") s wall"
