#pragma once
// The arguments of one GEMM call, as the kernels receive them.
#include "types.cuh"

namespace gemm {

// C (m x n, row-major) = alpha * op(A) (m x k) * op(B) (k x n) + beta * C.
// In: what A and B hold (float, double, __nv_bfloat16, __half); Out: what C holds.
// op_a == Op::N: A is stored m x k row-major (element (i, p) at A[i * lda + p]);
// op_a == Op::T: A is stored k x m row-major (element (i, p) at A[p * lda + i]). B likewise
// (N: k x n, element (p, j) at B[p * ldb + j]; T: n x k, at B[j * ldb + p]).
// Column-major calls (gemm::blas::gemm) reach the kernels as this row-major form of C^T.
template <class In, class Out = In>
struct GemmArgs {
  using Element = In;
  using Output = Out;
  using Scalar = std::conditional_t<std::is_same_v<In, double>, double, float>;
  int m, n, k;
  Scalar alpha;
  const In* A;
  int lda;
  const In* B;
  int ldb;
  Scalar beta;
  Out* C;
  int ldc;
  Op op_a = Op::N;
  Op op_b = Op::N;

  // Element (i, p) of op(A) and (p, j) of op(B), as offsets from A and B.
  __host__ __device__ long long a_offset(int i, int p) const {
    return op_a == Op::N ? static_cast<long long>(i) * lda + p : static_cast<long long>(p) * lda + i;
  }
  __host__ __device__ long long b_offset(int p, int j) const {
    return op_b == Op::N ? static_cast<long long>(p) * ldb + j : static_cast<long long>(j) * ldb + p;
  }
};

}  // namespace gemm
