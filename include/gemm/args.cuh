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
//
// Batched calls (kBatch != Batch::None) compute `batch` such products with the same sizes, ops and
// scalars; entry(b) is product b as a single call. Batching is a template parameter so that a call
// without a batch compiles exactly the kernels it did before.
enum class Batch {
  None,      // one product
  Strided,   // entry b: A + b * stride_a, B + b * stride_b, C + b * stride_c (elements, 64-bit)
  Pointers,  // entry b: A_array[b], B_array[b], C_array[b] (device arrays of device pointers)
};

template <class In, class Out = In, Batch kBatch = Batch::None>
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
  // The batch (kBatch != None only; A, B and C above are unused with Batch::Pointers).
  int batch = 1;
  long long stride_a = 0, stride_b = 0, stride_c = 0;
  const In* const* A_array = nullptr;
  const In* const* B_array = nullptr;
  Out* const* C_array = nullptr;

  static constexpr Batch kBatching = kBatch;

  // Product b of the batch as a call of its own (the only place that knows where an entry lives).
  __host__ __device__ GemmArgs entry(long long b) const {
    GemmArgs e = *this;
    if constexpr (kBatch == Batch::Strided) {
      e.A = A + b * stride_a;
      e.B = B + b * stride_b;
      e.C = C + b * stride_c;
    } else if constexpr (kBatch == Batch::Pointers) {
      e.A = A_array[b];
      e.B = B_array[b];
      e.C = C_array[b];
    }
    (void)b;
    return e;
  }

  // Element (i, p) of op(A) and (p, j) of op(B), as offsets from A and B.
  __host__ __device__ long long a_offset(int i, int p) const {
    return op_a == Op::N ? static_cast<long long>(i) * lda + p : static_cast<long long>(p) * lda + i;
  }
  __host__ __device__ long long b_offset(int p, int j) const {
    return op_b == Op::N ? static_cast<long long>(p) * ldb + j : static_cast<long long>(j) * ldb + p;
  }
};

}  // namespace gemm
