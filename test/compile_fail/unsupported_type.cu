// EXPECT: T must be float, gemm::tf32
#include <gemm/gemm.cuh>
void f(int* p) { gemm::gemm<int, gemm::preset::Naive>(1, 1, 1, 1, p, 1, p, 1, 0, p, 1); }
