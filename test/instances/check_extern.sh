#!/usr/bin/env bash
# check_extern.sh OUT_DIR COMPILE...: GEMM_EXTERN (include/gemm/instances.cuh) keeps a file's
# calls from compiling kernels. extern_call.cu is compiled by COMPILE (nvcc and its flags, the
# include directory among them) with and without it; with it
# the object must hold no kernel (no __device_stub__ symbol) and leave each detail::run instance
# undefined (4: single row-major, single with ops, strided, pointers); without it, kernels appear.
set -euo pipefail
out="$1"
shift
src="$(dirname "$0")/extern_call.cu"
mkdir -p "$out"
"$@" -DGEMM_TEST_EXTERN -c "$src" -o "$out/extern_call.o"
"$@" -c "$src" -o "$out/implicit_call.o"
stubs_extern=$(nm "$out/extern_call.o" | grep -c '__device_stub__' || true)
undefined_runs=$(nm -C "$out/extern_call.o" | grep -c ' U gemm::Status gemm::detail::run<' || true)
stubs_implicit=$(nm "$out/implicit_call.o" | grep -c '__device_stub__' || true)
echo "with GEMM_EXTERN: $stubs_extern kernel stubs, $undefined_runs undefined detail::run instances;" \
     "without: $stubs_implicit kernel stubs"
if [ "$stubs_extern" -eq 0 ] && [ "$undefined_runs" -eq 4 ] && [ "$stubs_implicit" -gt 0 ]; then
  echo "PASS"
else
  echo "FAIL: expected 0 stubs and 4 undefined instances with GEMM_EXTERN, and some stubs without it"
  exit 1
fi
