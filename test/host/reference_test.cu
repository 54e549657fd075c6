// The fp64 host reference that every GPU check trusts.
#include <cmath>
#include <random>
#include <vector>
#include <gemm/reference.hpp>
#include "../catch.hpp"

TEST_CASE("reference gemm computes alpha*A*B + beta*C on a hand-checked case", "[host][reference]") {
  // A = [1 2 3; 4 5 6] (2x3, lda 4), B = [7 8; 9 10; 11 12] (3x2, ldb 3), C = [1 1; 1 1] (ldc 2)
  const float A[] = {1, 2, 3, -99, 4, 5, 6, -99};
  const float B[] = {7, 8, -99, 9, 10, -99, 11, 12, -99};
  const float C[] = {1, 2, 3, 4};
  double out[2 * 3] = {0, 0, 123, 0, 0, 123};  // ldc_out 3: the third column must stay untouched
  gemm::reference::gemm<float>(2, 2, 3, 2.0, A, 4, B, 3, -1.0, C, 2, out, 3);
  // A*B = [58 64; 139 154]
  CHECK(out[0] == 2 * 58 - 1);
  CHECK(out[1] == 2 * 64 - 2);
  CHECK(out[3] == 2 * 139 - 3);
  CHECK(out[4] == 2 * 154 - 4);
  CHECK(out[2] == 123);
  CHECK(out[5] == 123);
}

TEST_CASE("reference gemm with beta = 0 does not read C", "[host][reference]") {
  const double A[] = {1, 2};
  const double B[] = {3, 4};
  double out[1] = {0};
  gemm::reference::gemm<double>(1, 1, 2, 1.0, A, 2, B, 1, 0.0, nullptr, 1, out, 1);
  CHECK(out[0] == 11);
}

TEST_CASE("reference gemm agrees with a long-double triple loop, threaded or not", "[host][reference]") {
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int m = 37, n = 23, k = 51, lda = k + 3, ldb = n + 1, ldc = n + 2;
  std::vector<double> A(m * lda), B(k * ldb), C(m * ldc);
  for (auto& x : A) x = u(rng);
  for (auto& x : B) x = u(rng);
  for (auto& x : C) x = u(rng);
  const double alpha = u(rng), beta = u(rng);
  std::vector<double> one(m * n), many(m * n);
  gemm::reference::gemm<double>(m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C.data(), ldc, one.data(), n, 1);
  gemm::reference::gemm<double>(m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C.data(), ldc, many.data(), n, 4);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      long double s = 0;
      for (int p = 0; p < k; ++p) s += static_cast<long double>(A[i * lda + p]) * B[p * ldb + j];
      const long double want = alpha * s + beta * static_cast<long double>(C[i * ldc + j]);
      CHECK(std::fabs(static_cast<double>(one[i * n + j] - want)) <= 1e-13);
      CHECK(one[i * n + j] == many[i * n + j]);
    }
}
