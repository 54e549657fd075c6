// EXPECT: C must hold the input type, or float for __nv_bfloat16 and __half inputs
#include <gemm/host.cuh>
void f(double* a, float* c) { gemm::host::gemm<double>(1, 1, 1, 1.0, a, 1, a, 1, 0.0, c, 1); }
