// EXPECT: this policy does not serve this type combination
#include <gemm/gemm.cuh>
void f(float* p) { gemm::gemm<float, gemm::preset::Persistent>(1, 1, 1, 1.f, p, 1, p, 1, 0.f, p, 1); }
