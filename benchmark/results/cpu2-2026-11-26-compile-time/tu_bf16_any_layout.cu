#include <gemm/gemm.cuh>
gemm::Status call(gemm::Op oa, gemm::Op ob, int m, int n, int k, const __nv_bfloat16* A, int lda, const __nv_bfloat16* B, int ldb, __nv_bfloat16* C, int ldc) {
  return gemm::gemm<__nv_bfloat16>(oa, ob, m, n, k, 1.f, A, lda, B, ldb, 0.f, C, ldc);
}
