// EXPECT: TF32 runs on tensor cores, so gemm::tf32 needs a tensor-core preset
#include <gemm/gemm.cuh>
void f(float* p) { gemm::gemm<gemm::tf32, gemm::preset::WarpTiled>(1, 1, 1, 1.f, p, 1, p, 1, 0.f, p, 1); }
