#pragma once
// The arguments of one GEMM call, as the kernels receive them.
namespace gemm {

// C (m x n) = alpha * A (m x k) * B (k x n) + beta * C, all row-major with leading dimensions.
template <class T>
struct GemmArgs {
  int m, n, k;
  T alpha;
  const T* A;
  int lda;
  const T* B;
  int ldb;
  T beta;
  T* C;
  int ldc;
};

}  // namespace gemm
