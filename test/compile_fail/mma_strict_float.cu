// EXPECT: this policy does not serve this type combination.*never strict float
#include <gemm/gemm.cuh>
// Strict fp32 asked of a TF32-only preset: it must not silently become TF32.
void f(float* p) { gemm::gemm<float, gemm::preset::MmaSync>(1, 1, 1, 1.f, p, 1, p, 1, 0.f, p, 1); }
