#pragma once
// A host reference GEMM in double precision, for tests and benchmarks (plain C++, no CUDA).
// C_out = alpha * A * B + beta * C_in, row-major, accumulated in double.
#include <algorithm>
#include <thread>
#include <vector>

namespace gemm::reference {

// threads = 0 uses every hardware thread; 1 runs single-threaded (the seed task's CPU baseline).
// C_in may be null when beta == 0 (it is then not read).
template <class T>
void gemm(int m, int n, int k, double alpha, const T* A, int lda, const T* B, int ldb, double beta, const T* C_in,
          int ldc, double* C_out, int ldc_out, int threads = 0) {
  auto rows = [&](int row_begin, int row_end) {
    std::vector<double> acc(static_cast<size_t>(n));
    for (int i = row_begin; i < row_end; ++i) {
      std::fill(acc.begin(), acc.end(), 0.0);
      const T* a_row = A + static_cast<long long>(i) * lda;
      for (int p = 0; p < k; ++p) {  // i-p-j order: streams rows of B, vectorises over j
        const double a = static_cast<double>(a_row[p]);
        const T* b_row = B + static_cast<long long>(p) * ldb;
        for (int j = 0; j < n; ++j) acc[j] += a * static_cast<double>(b_row[j]);
      }
      double* out = C_out + static_cast<long long>(i) * ldc_out;
      const T* c_in = C_in ? C_in + static_cast<long long>(i) * ldc : nullptr;
      for (int j = 0; j < n; ++j)
        out[j] = alpha * acc[j] + (beta != 0.0 ? beta * static_cast<double>(c_in[j]) : 0.0);
    }
  };
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::max(1, std::min(threads, m));
  if (threads == 1) {
    rows(0, m);
    return;
  }
  std::vector<std::thread> pool;
  const int per = (m + threads - 1) / threads;
  for (int t = 0; t < threads; ++t) {
    const int begin = t * per, end = std::min(m, begin + per);
    if (begin < end) pool.emplace_back(rows, begin, end);
  }
  for (auto& th : pool) th.join();
}

}  // namespace gemm::reference
