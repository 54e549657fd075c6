#pragma once
// gemm: a header-only CUDA GEMM library whose presets are the classic optimisation stages.
//
//   gemm::Status s = gemm::gemm<float, gemm::preset::MultiStage>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
//
// computes C = alpha * A * B + beta * C for row-major device matrices A (m x k), B (k x n) and
// C (m x n). It never throws: it validates everything it can before touching the device, launches
// nothing when the call is invalid, and returns a Status that says what was wrong.
#include <type_traits>
#include <cuda_runtime.h>
#include "args.cuh"
#include "detail/launch.cuh"
#include "kernel/scale_kernel.cuh"
#include "policy.cuh"
#include "presets.cuh"
#include "status.cuh"

namespace gemm {

// The policy gemm::gemm<T>() uses when none is named.
using DefaultPolicy = preset::Tuned;

template <class T, class Policy = DefaultPolicy>
Status gemm(int m, int n, int k, T alpha, const T* A, int lda, const T* B, int ldb, T beta, T* C, int ldc,
            cudaStream_t stream = 0) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "gemm::gemm supports float and double element types.");
  const GemmArgs<T> args{m, n, k, alpha, A, lda, B, ldb, beta, C, ldc};

  // 1. Arguments, with no CUDA call.
  if (Status s = detail::validate_sizes(args); s != Status::Success) return s;
  if (m == 0 || n == 0) return Status::Success;  // BLAS: an empty C is a successful no-op
  if (Status s = detail::validate_pointers(args); s != Status::Success) return s;
  if (Status s = Policy::check_alignment(args); s != Status::Success) return s;

  // 2. The device.
  detail::DeviceInfo dev;
  if (Status s = detail::query_device(dev); s != Status::Success) return s;

  // 3. No product term: C = beta * C (and nothing at all when beta == 1).
  if (!detail::reads_ab(args)) return detail::scale_c(args, dev, stream);
  return Policy::template launch<T>(args, dev, stream);
}

}  // namespace gemm
