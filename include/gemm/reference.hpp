#pragma once
// A host reference GEMM in double precision, for tests and benchmarks (plain C++, no CUDA).
// C_out = alpha * op(A) * op(B) + beta * C_in, row-major C, accumulated in double from the inputs
// as stored (any type that converts to double: float, double, __nv_bfloat16, __half).
// a_transposed: A is stored k x m (op T), else m x k; b_transposed: B is stored n x k, else k x n.
#include <algorithm>
#include <thread>
#include <vector>

namespace gemm::reference {

template <class T>
struct Identity {
  using type = T;
};

// Calls rows(begin, end) over [0, count) split into contiguous ranges, one per thread: threads = 0
// uses every hardware thread, 1 runs on the caller's thread.
template <class Rows>
void parallel_rows(long long count, Rows&& rows, int threads = 0) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = static_cast<int>(std::max(1LL, std::min<long long>(threads, count)));
  if (threads == 1) {
    rows(0LL, count);
    return;
  }
  std::vector<std::thread> pool;
  const long long per = (count + threads - 1) / threads;
  for (int t = 0; t < threads; ++t) {
    const long long begin = t * per, end = std::min(count, begin + per);
    if (begin < end) pool.emplace_back([&rows, begin, end] { rows(begin, end); });
  }
  for (auto& th : pool) th.join();
}

// threads = 0 uses every hardware thread; 1 runs single-threaded (a CPU baseline).
// C_in (of type TC, which is never deduced) may be null when beta == 0 (it is then not read).
template <class TA, class TC = TA>
void gemm(bool a_transposed, bool b_transposed, int m, int n, int k, double alpha, const TA* A, int lda, const TA* B,
          int ldb, double beta, const typename Identity<TC>::type* C_in, int ldc, double* C_out, int ldc_out,
          int threads = 0) {
  auto rows = [&](long long row_begin, long long row_end) {
    std::vector<double> acc(static_cast<size_t>(n)), a_row(static_cast<size_t>(k));
    for (int i = static_cast<int>(row_begin); i < row_end; ++i) {
      for (int p = 0; p < k; ++p)
        a_row[p] = static_cast<double>(a_transposed ? A[static_cast<long long>(p) * lda + i]
                                                    : A[static_cast<long long>(i) * lda + p]);
      if (b_transposed) {  // B's rows are columns of op(B): dot products
        for (int j = 0; j < n; ++j) {
          const TA* b_row = B + static_cast<long long>(j) * ldb;
          double s = 0;
          for (int p = 0; p < k; ++p) s += a_row[p] * static_cast<double>(b_row[p]);
          acc[j] = s;
        }
      } else {  // i-p-j order: streams rows of B, vectorises over j
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int p = 0; p < k; ++p) {
          const double a = a_row[p];
          const TA* b_row = B + static_cast<long long>(p) * ldb;
          for (int j = 0; j < n; ++j) acc[j] += a * static_cast<double>(b_row[j]);
        }
      }
      double* out = C_out + static_cast<long long>(i) * ldc_out;
      const TC* c_in = C_in ? C_in + static_cast<long long>(i) * ldc : nullptr;
      for (int j = 0; j < n; ++j)
        out[j] = alpha * acc[j] + (beta != 0.0 ? beta * static_cast<double>(c_in[j]) : 0.0);
    }
  };
  parallel_rows(m, rows, threads);
}

// Row-major A and B.
template <class TA, class TC = TA>
void gemm(int m, int n, int k, double alpha, const TA* A, int lda, const TA* B, int ldb, double beta,
          const typename Identity<TC>::type* C_in, int ldc, double* C_out, int ldc_out, int threads = 0) {
  gemm<TA, TC>(false, false, m, n, k, alpha, A, lda, B, ldb, beta, C_in, ldc, C_out, ldc_out, threads);
}

}  // namespace gemm::reference
