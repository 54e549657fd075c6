// Behaviour that needs a device: statuses only a device can decide, BLAS edge semantics,
// index arithmetic past 2^31 elements, and the default policy.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>
#include "check.cuh"

namespace semantics_policies {

// A pipeline that claims an architecture no device has: the call must refuse, not launch.
struct FutureOnlyPipeline : gemm::SingleStage {
  static constexpr int kMinArch = 1000;
};
struct FuturePolicy : gemm::TiledPolicy<gemm::TileShape<32, 32, 8, 4, 4>, gemm::BlockThreadMap, gemm::ScalarLoader,
                                        gemm::SmemLayout<gemm::RowMajor<0>, gemm::RowMajor<0>>, FutureOnlyPipeline,
                                        gemm::OuterProduct, gemm::ScalarEpilogue>,
                      gemm::Named<FuturePolicy> {
  static const char* name() { return "FuturePolicy"; }
};

// 16 stages of (132 x 32 + 32 x 128) floats: 532 KB, more than any GPU gives one block.
struct HugeSmemPolicy
    : gemm::TiledPolicy<gemm::TileShape<128, 128, 32, 8, 8>, gemm::BlockThreadMap, gemm::VectorLoader<>,
                        gemm::SmemLayout<gemm::Transposed<4>, gemm::RowMajor<0>>, gemm::CpAsyncMultiStage<16>,
                        gemm::OuterProduct, gemm::VectorEpilogue>,
      gemm::Named<HugeSmemPolicy> {
  static const char* name() { return "HugeSmemPolicy"; }
};

}  // namespace semantics_policies

namespace {
using semantics_policies::FuturePolicy;
using semantics_policies::HugeSmemPolicy;
using gemm_test::read_back;

}  // namespace

TEST_CASE("refusals decided on the device launch nothing and write nothing", "[gpu][semantics]") {
  gemm_test::DeviceBuffer<float> a(64 * 64), b(64 * 64), c(64 * 64);
  std::vector<float> ones(64 * 64, 1.0f);
  CUDA_REQUIRE(cudaMemcpy(c.ptr, ones.data(), ones.size() * sizeof(float), cudaMemcpyHostToDevice));
  const auto launches = gemm::kernel_launches();
  CHECK(gemm::gemm<float, FuturePolicy>(64, 64, 64, 1.f, a.ptr, 64, b.ptr, 64, 0.f, c.ptr, 64) ==
        gemm::Status::UnsupportedArchitecture);
  CHECK(gemm::gemm<float, HugeSmemPolicy>(64, 64, 64, 1.f, a.ptr, 64, b.ptr, 64, 0.f, c.ptr, 64) ==
        gemm::Status::SharedMemoryTooLarge);
  CHECK(gemm::kernel_launches() == launches);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  CHECK(read_back(c.ptr, ones.size()) == ones);
}

TEST_CASE("gemm::plan on this device answers as the call does, and launches nothing", "[gpu][semantics][plan]") {
  gemm_test::DeviceBuffer<float> a(64 * 64), b(64 * 64), c(64 * 64);
  const auto launches = gemm::kernel_launches();
  const gemm::Plan future = gemm::plan<float, FuturePolicy>(64, 64, 64, 1.f, a.ptr, 64, b.ptr, 64, 0.f, c.ptr, 64);
  CHECK(future.status == gemm::Status::UnsupportedArchitecture);
  CHECK(gemm::plan<float, HugeSmemPolicy>(64, 64, 64, 1.f, a.ptr, 64, b.ptr, 64, 0.f, c.ptr, 64).status ==
        gemm::Status::SharedMemoryTooLarge);
  const gemm::Plan fp32 = gemm::plan<float>(64, 64, 64, 1.f, a.ptr, 64, b.ptr, 64, 0.f, c.ptr, 64);
  CHECK(fp32.status == gemm::Status::Success);
  CHECK(fp32.composition.rfind("TiledPolicy<", 0) == 0);
  CHECK(gemm::kernel_launches() == launches);

  // bf16: the Hopper kernel on an H100 or H200 when the binary holds sm_90a code (detail::image_of
  // says), mma.sync on other sm_80+ devices.
  gemm_test::DeviceBuffer<__nv_bfloat16> ha(64 * 64), hb(64 * 64), hc(64 * 64);
  const gemm::Plan bf16 = gemm::plan<__nv_bfloat16>(64, 64, 64, 1.f, ha.ptr, 64, hb.ptr, 64, 0.f, hc.ptr, 64);
  INFO(bf16.describe());
  CHECK(bf16.status == gemm::Status::Success);
  int major = 0;
  CUDA_REQUIRE(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  gemm::detail::DeviceInfo dev;
  REQUIRE(gemm::detail::query_device(dev) == gemm::Status::Success);
  gemm::detail::Image image;
  REQUIRE(gemm::detail::image_of(dev, image) == gemm::Status::Success);
  INFO("image: sm_" << image.arch << (image.wgmma ? "a" : ""));
  CHECK(image.arch >= 80);
  if (gemm_test::is_sm90() && image.wgmma)
    CHECK(bf16.composition.rfind("HopperPolicy<", 0) == 0);
  else if (major >= 8)
    CHECK(bf16.composition.rfind("MmaPolicy<", 0) == 0);
  CHECK(gemm::kernel_launches() == launches);
}

TEST_CASE("beta = 1 with k = 0 leaves C alone without launching; alpha = 0 scales C", "[gpu][semantics]") {
  std::vector<float> h(12 * 7);
  gemm_test::fill_random(h);
  gemm_test::DeviceBuffer<float> c(h.size());
  CUDA_REQUIRE(cudaMemcpy(c.ptr, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  const auto launches = gemm::kernel_launches();
  CHECK(gemm::gemm<float>(12, 7, 0, 3.f, nullptr, 1, nullptr, 7, 1.f, c.ptr, 7) == gemm::Status::Success);
  CHECK(gemm::kernel_launches() == launches);
  CHECK(gemm::gemm<float>(12, 7, 5, 0.f, nullptr, 5, nullptr, 7, -2.f, c.ptr, 7) == gemm::Status::Success);
  CHECK(gemm::kernel_launches() == launches + 1);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  const auto out = read_back(c.ptr, h.size());
  for (size_t i = 0; i < h.size(); ++i) CHECK(out[i] == -2.f * h[i]);
}

TEST_CASE("the default policy is the tuned preset and is correct", "[gpu][semantics]") {
  CHECK(std::string(gemm::DefaultPolicy::name()) == "Tuned");
  gemm_test::run_case<gemm::DefaultPolicy, float>(gemm_test::Case{300, 301, 302, 1.5, -0.5, 1, 2, 3});
}

namespace {

// Element offsets beyond 2^31: three rows with a leading dimension of 2^30 + 8 put row 2 at
// 2^31 + 16 elements. Only the rows used are filled and read back.
template <class Policy, class T>
void check_large_leading_dimensions() {
  INFO(Policy::name());
  const int m = 3, n = 5, k = 3;
  const long long ld = (1ll << 30) + 8;
  const size_t elems = static_cast<size_t>(2 * ld + 16);
  T *A = nullptr, *B = nullptr, *C = nullptr;
  if (cudaMalloc(&A, elems * sizeof(T)) != cudaSuccess || cudaMalloc(&B, elems * sizeof(T)) != cudaSuccess ||
      cudaMalloc(&C, elems * sizeof(T)) != cudaSuccess) {
    cudaFree(A), cudaFree(B), cudaFree(C);
    cudaGetLastError();
    WARN("SKIPPED large-leading-dimension check: could not allocate 3 x " << elems * sizeof(T) / (1 << 20) << " MiB");
    return;
  }
  std::vector<T> a(m * k), b(k * n), c(m * n, gemm_test::sentinel<T>());
  gemm_test::fill_random(a);
  gemm_test::fill_random(b);
  const int row_span = 8;  // n elements plus a few beyond, which must stay untouched
  std::vector<T> poison(row_span, gemm_test::sentinel<T>());
  for (int r = 0; r < 3; ++r) {
    CUDA_REQUIRE(cudaMemcpy(A + r * ld, a.data() + r * k, k * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_REQUIRE(cudaMemcpy(B + r * ld, b.data() + r * n, n * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_REQUIRE(cudaMemcpy(C + r * ld, poison.data(), row_span * sizeof(T), cudaMemcpyHostToDevice));
  }
  const gemm::Status s = gemm::gemm<T, Policy>(m, n, k, 1.0f, A, static_cast<int>(ld), B, static_cast<int>(ld), 0.0f,
                                               C, static_cast<int>(ld));
  INFO(gemm::to_string(s));
  CHECK(s == gemm::Status::Success);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  for (int r = 0; r < m; ++r) {
    std::vector<T> row(row_span);
    CUDA_REQUIRE(cudaMemcpy(row.data(), C + r * ld, row_span * sizeof(T), cudaMemcpyDeviceToHost));
    for (int j = 0; j < n; ++j) {
      double want = 0;
      for (int p = 0; p < k; ++p) want += gemm_test::to_double(a[r * k + p]) * gemm_test::to_double(b[p * n + j]);
      CHECK(std::fabs(gemm_test::to_double(row[j]) - want) <= 1e-5 + 4 * gemm_test::unit_roundoff<T>() * std::fabs(want));
    }
    for (int j = n; j < row_span; ++j) CHECK(std::memcmp(&row[j], &poison[j], sizeof(T)) == 0);
  }
  cudaFree(A), cudaFree(B), cudaFree(C);
}

template <class T, class... P>
void check_large_all(gemm::TypeList<P...>) {
  (check_large_leading_dimensions<P, T>(), ...);
}

}  // namespace

TEST_CASE("index arithmetic holds past 2^31 elements for every preset", "[gpu][semantics][large]") {
  check_large_all<float>(gemm::preset::AllServing<float>{});
  check_large_all<__nv_bfloat16>(gemm::preset::AllServing<__nv_bfloat16>{});
}
