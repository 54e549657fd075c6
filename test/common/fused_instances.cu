// The fused calls that several GPU test files make, compiled here once (declared in
// gpu/epilogue_check.cuh with GEMM_FUSED_EXTERN): Tuned's bf16 kernels with a GELU epilogue and a
// float bias are each a Hopper kernel per composition, a minute of nvcc for every file that made them.
#include <gemm/instances.cuh>

GEMM_FUSED_INSTANTIATE(__nv_bfloat16, __nv_bfloat16, ::gemm::preset::Tuned, ::gemm::act::GeluTanh, float)
