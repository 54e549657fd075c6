#!/usr/bin/env bash
# check_extern.sh OUT_DIR COMPILE...: GEMM_EXTERN and GEMM_FUSED_EXTERN (include/gemm/instances.cuh)
# keep a file's calls from compiling kernels. extern_call.cu is compiled by COMPILE (nvcc and its
# flags, the include directory among them) with and without them; with them the object must hold no
# kernel (no __device_stub__ symbol) and leave each detail::run instance undefined (4: single
# row-major, single with ops, strided, pointers) and the fused one (detail::run_fused); without
# them, kernels appear.
set -euo pipefail
out="$1"
shift
src="$(dirname "$0")/extern_call.cu"
mkdir -p "$out"
"$@" -DGEMM_TEST_EXTERN -c "$src" -o "$out/extern_call.o"
"$@" -c "$src" -o "$out/implicit_call.o"
stubs_extern=$(nm "$out/extern_call.o" | grep -c '__device_stub__' || true)
undefined_runs=$(nm -C "$out/extern_call.o" | grep -c ' U gemm::Status gemm::detail::run<' || true)
undefined_fused=$(nm -C "$out/extern_call.o" | grep -c ' U gemm::Status gemm::detail::run_fused<' || true)
stubs_implicit=$(nm "$out/implicit_call.o" | grep -c '__device_stub__' || true)
echo "with the extern declarations: $stubs_extern kernel stubs, $undefined_runs undefined detail::run" \
     "instances, $undefined_fused undefined detail::run_fused; without: $stubs_implicit kernel stubs"
if [ "$stubs_extern" -eq 0 ] && [ "$undefined_runs" -eq 4 ] && [ "$undefined_fused" -eq 1 ] &&
   [ "$stubs_implicit" -gt 0 ]; then
  echo "PASS"
else
  echo "FAIL: expected 0 stubs, 4 undefined run and 1 run_fused instances with the declarations, and some" \
       "stubs without them"
  exit 1
fi
