// 3xTF32 against strict fp32 on the same data: its normwise error (against an fp64 reference) must
// be within 2x of the strict kernel's, on uniform inputs and on inputs spanning 2^-20 .. 2^20; and
// Inf and NaN in the inputs must reach the same elements of C as in strict fp32. Both paths: Tuned
// (the Hopper planes on sm_90) and the mma.sync composition sm_80-89 run (split in registers).
#include <cmath>
#include <limits>
#include <random>
#include "check.cuh"

namespace {

struct Run {
  std::vector<float> c;
};

template <class T, class Policy = gemm::DefaultPolicy>
std::vector<float> multiply(int m, int n, int k, const std::vector<float>& a, const std::vector<float>& b) {
  gemm_test::DeviceBuffer<float> da(a.size()), db(b.size()), dc(static_cast<size_t>(m) * n);
  CUDA_REQUIRE(cudaMemcpy(da.ptr, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
  CUDA_REQUIRE(cudaMemcpy(db.ptr, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
  const gemm::Status s = gemm::gemm<T, Policy>(m, n, k, 1.0f, da.ptr, k, db.ptr, n, 0.0f, dc.ptr, n);
  INFO(gemm::to_string(s));
  REQUIRE(s == gemm::Status::Success);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  std::vector<float> c(static_cast<size_t>(m) * n);
  CUDA_REQUIRE(cudaMemcpy(c.data(), dc.ptr, c.size() * 4, cudaMemcpyDeviceToHost));
  return c;
}

double normwise_error(const std::vector<float>& c, const std::vector<double>& ref) {
  double e2 = 0, r2 = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    const double d = c[i] - ref[i];
    e2 += d * d, r2 += ref[i] * ref[i];
  }
  return std::sqrt(e2 / r2);
}

template <class Policy>
void compare_with_strict(int k, bool wide) {
  const int m = 192, n = 160;
  std::vector<float> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(k) * n);
  std::uniform_real_distribution<double> u(-1, 1), e(-20, 20);
  auto draw = [&] {
    if (!wide) return static_cast<float>(u(gemm_test::rng()));
    const double mag = std::ldexp(1 + std::fabs(u(gemm_test::rng())), static_cast<int>(std::floor(e(gemm_test::rng()))));
    return static_cast<float>(u(gemm_test::rng()) < 0 ? -mag : mag);
  };
  for (auto& x : a) x = draw();
  for (auto& x : b) x = draw();
  std::vector<double> ref(static_cast<size_t>(m) * n);
  gemm::reference::gemm<float>(m, n, k, 1.0, a.data(), k, b.data(), n, 0.0, nullptr, n, ref.data(), n);
  const double strict = normwise_error(multiply<float>(m, n, k, a, b), ref);
  const double split = normwise_error(multiply<gemm::tf32x3, Policy>(m, n, k, a, b), ref);
  const double tf32 = normwise_error(multiply<gemm::tf32>(m, n, k, a, b), ref);
  INFO(Policy::name());
  INFO("k=" << k << (wide ? " exponents 2^-20..2^20" : " uniform") << ": normwise error strict fp32 " << strict
            << ", 3xTF32 " << split << ", TF32 " << tf32);
  CHECK(split <= 2 * strict);
  // And the test can tell the modes apart: on the same data TF32 alone is far less accurate.
  if (gemm_test::is_sm90()) CHECK(tf32 > 8 * split);
}

}  // namespace

TEST_CASE("3xTF32 is within 2x of strict fp32's error, on uniform and wide-exponent inputs", "[gpu][tf32x3][accuracy]") {
  for (int k : {64, 1024, 4096, 9000}) {  // (9000: three k slices)
    compare_with_strict<gemm::DefaultPolicy>(k, false);
    compare_with_strict<gemm::DefaultPolicy>(k, true);
    compare_with_strict<gemm::preset::Tuned::Mma3xTf32>(k, false);
    compare_with_strict<gemm::preset::Tuned::Mma3xTf32>(k, true);
  }
}

TEST_CASE("3xTF32 passes Inf and NaN through as strict fp32 does", "[gpu][tf32x3][accuracy]") {
  const int m = 40, n = 36, k = 70;
  std::vector<float> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(k) * n);
  gemm_test::fill_random(a);
  gemm_test::fill_random(b);
  a[3 * k + 5] = std::numeric_limits<float>::infinity();   // row 3 of C: Inf (or NaN where b's signs cancel it)
  a[7 * k + 9] = std::numeric_limits<float>::quiet_NaN();  // row 7: NaN
  b[11 * n + 20] = -std::numeric_limits<float>::infinity();  // column 20: -Inf * a terms
  const std::vector<float> strict = multiply<float>(m, n, k, a, b);
  const auto mismatches = [&](const std::vector<float>& split) {
    long long mismatched = 0;
    for (size_t i = 0; i < strict.size(); ++i) {
      const bool same = std::isnan(strict[i]) ? std::isnan(split[i])
                        : std::isinf(strict[i]) ? split[i] == strict[i]
                                                : std::isfinite(split[i]);
      mismatched += !same;
    }
    return mismatched;
  };
  CHECK(mismatches(multiply<gemm::tf32x3>(m, n, k, a, b)) == 0);
  CHECK(mismatches(multiply<gemm::tf32x3, gemm::preset::Tuned::Mma3xTf32>(m, n, k, a, b)) == 0);
}
