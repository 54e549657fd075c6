#pragma once
// The GPU correctness harness: runs one policy on fresh random data and compares every element of
// C with an fp64 host reference, element by element, against a bound scaled by sum |alpha a b| + |beta c|.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>
#include <cuda_runtime.h>
#include <gemm/gemm.cuh>
#include <gemm/reference.hpp>
#include "../catch.hpp"

#define CUDA_REQUIRE(call)                                                                  \
  do {                                                                                      \
    const cudaError_t err_ = (call);                                                        \
    INFO(#call << " -> " << cudaGetErrorString(err_));                                      \
    REQUIRE(err_ == cudaSuccess);                                                           \
  } while (0)

namespace gemm_test {

// One call's shape and arguments. pad_*: extra elements per row beyond what the matrix needs;
// offset_*: elements between the allocation's start and the matrix (to misalign it).
struct Case {
  int m, n, k;
  double alpha = 1.0, beta = 0.0;
  int pad_a = 0, pad_b = 0, pad_c = 0;
  int offset_a = 0, offset_b = 0, offset_c = 0;
  bool nan_in_c = false;  // with beta == 0: C starts as NaN, which must not survive

  std::string str() const {
    std::ostringstream s;
    s << "m=" << m << " n=" << n << " k=" << k << " alpha=" << alpha << " beta=" << beta << " lda=k+" << pad_a
      << " ldb=n+" << pad_b << " ldc=n+" << pad_c << " offsets=" << offset_a << "," << offset_b << "," << offset_c
      << (nan_in_c ? " C=NaN" : "");
    return s.str();
  }
};

// A value no correct run writes: marks C's padding and the space before C, to catch stray writes.
template <class T>
T sentinel() {
  return static_cast<T>(-12345.678);
}

template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  size_t count = 0;
  explicit DeviceBuffer(size_t n) : count(n) {
    const cudaError_t err = cudaMalloc(&ptr, n * sizeof(T) + 16);
    INFO("cudaMalloc of " << n * sizeof(T) << " bytes -> " << cudaGetErrorString(err));
    REQUIRE(err == cudaSuccess);
  }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

inline std::mt19937_64& rng() {
  static std::mt19937_64 engine(std::random_device{}());
  return engine;
}

template <class T>
void fill_random(std::vector<T>& v) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (auto& x : v) x = static_cast<T>(u(rng()));
}

// Runs the case and checks every element of C, and that nothing outside C was written.
template <class Policy, class T>
void run_case(const Case& c) {
  INFO(Policy::name() << "<" << (sizeof(T) == 4 ? "float" : "double") << "> " << c.str());
  const int lda = std::max(1, c.k) + c.pad_a, ldb = std::max(1, c.n) + c.pad_b, ldc = std::max(1, c.n) + c.pad_c;
  const size_t a_elems = c.offset_a + static_cast<size_t>(c.m) * lda;
  const size_t b_elems = c.offset_b + static_cast<size_t>(c.k) * ldb;
  const size_t c_elems = c.offset_c + static_cast<size_t>(c.m) * ldc;

  std::vector<T> a(std::max<size_t>(a_elems, 1)), b(std::max<size_t>(b_elems, 1));
  std::vector<T> c0(std::max<size_t>(c_elems, 1), sentinel<T>());
  fill_random(a);
  fill_random(b);
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.n; ++j) {
      T& x = c0[c.offset_c + static_cast<size_t>(i) * ldc + j];
      x = c.nan_in_c ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(std::uniform_real_distribution<double>(-1, 1)(rng()));
    }

  DeviceBuffer<T> da(a.size()), db(b.size()), dc(c0.size());
  CUDA_REQUIRE(cudaMemcpy(da.ptr, a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice));
  CUDA_REQUIRE(cudaMemcpy(db.ptr, b.data(), b.size() * sizeof(T), cudaMemcpyHostToDevice));
  CUDA_REQUIRE(cudaMemcpy(dc.ptr, c0.data(), c0.size() * sizeof(T), cudaMemcpyHostToDevice));

  const gemm::Status status =
      gemm::gemm<T, Policy>(c.m, c.n, c.k, static_cast<T>(c.alpha), da.ptr + c.offset_a, lda, db.ptr + c.offset_b,
                            ldb, static_cast<T>(c.beta), dc.ptr + c.offset_c, ldc);
  INFO("status: " << gemm::to_string(status));
  REQUIRE(status == gemm::Status::Success);
  CUDA_REQUIRE(cudaGetLastError());
  CUDA_REQUIRE(cudaDeviceSynchronize());

  std::vector<T> out(c0.size());
  CUDA_REQUIRE(cudaMemcpy(out.data(), dc.ptr, out.size() * sizeof(T), cudaMemcpyDeviceToHost));

  // Reference in fp64, and the same product on |A|, |B| for the error bound.
  const T* A = a.data() + c.offset_a;
  const T* B = b.data() + c.offset_b;
  const T* C0 = c0.data() + c.offset_c;
  std::vector<double> ref(static_cast<size_t>(c.m) * c.n), mag(static_cast<size_t>(c.m) * c.n);
  std::vector<double> abs_a(static_cast<size_t>(c.m) * std::max(1, c.k)), abs_b(static_cast<size_t>(c.k) * std::max(1, c.n));
  for (int i = 0; i < c.m; ++i)
    for (int p = 0; p < c.k; ++p) abs_a[static_cast<size_t>(i) * c.k + p] = std::fabs(static_cast<double>(A[static_cast<size_t>(i) * lda + p]));
  for (int p = 0; p < c.k; ++p)
    for (int j = 0; j < c.n; ++j) abs_b[static_cast<size_t>(p) * c.n + j] = std::fabs(static_cast<double>(B[static_cast<size_t>(p) * ldb + j]));
  gemm::reference::gemm<T>(c.m, c.n, c.k, c.alpha, A, lda, B, ldb, c.beta, c.beta != 0 ? C0 : nullptr, ldc, ref.data(), c.n);
  gemm::reference::gemm<double>(c.m, c.n, c.k, std::fabs(c.alpha), abs_a.data(), std::max(1, c.k), abs_b.data(),
                                std::max(1, c.n), 0.0, nullptr, 1, mag.data(), c.n);

  // fp32/fp64 accumulation over k terms: |error| <= ~k * eps * sum |a b|; allow 2x that, plus
  // the rounding of beta * c and of the final result.
  const double eps = std::numeric_limits<T>::epsilon();
  const double gamma = (c.k + 4) * eps;
  long long wrong = 0;
  std::ostringstream first;
  double err2 = 0, ref2 = 0, scale2 = 0;
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.n; ++j) {
      const double got = static_cast<double>(out[c.offset_c + static_cast<size_t>(i) * ldc + j]);
      const double want = ref[static_cast<size_t>(i) * c.n + j];
      const double beta_c = c.beta != 0 ? std::fabs(c.beta * static_cast<double>(C0[static_cast<size_t>(i) * ldc + j])) : 0.0;
      const double bound = 2 * gamma * mag[static_cast<size_t>(i) * c.n + j] + 4 * eps * (beta_c + std::fabs(want)) +
                           std::numeric_limits<T>::min();
      const double diff = std::fabs(got - want);
      err2 += (got - want) * (got - want);
      ref2 += want * want;
      const double scale = mag[static_cast<size_t>(i) * c.n + j] + beta_c;
      scale2 += scale * scale;
      if (!(diff <= bound)) {  // NaN fails too
        if (wrong < 5) first << "  C(" << i << "," << j << ") = " << got << ", expected " << want << " (bound " << bound << ")\n";
        ++wrong;
      }
    }
  // Nothing outside C's m x n elements may change: the padding and the space before C.
  long long stray = 0;
  for (size_t idx = 0; idx < out.size(); ++idx) {
    const bool inside = idx >= static_cast<size_t>(c.offset_c) &&
                        static_cast<int>((idx - c.offset_c) % ldc) < c.n;
    if (!inside && std::memcmp(&out[idx], &c0[idx], sizeof(T)) != 0) {
      if (stray < 3) first << "  write outside C at element " << idx << "\n";
      ++stray;
    }
  }
  // Normwise, the error is measured against the size of the terms summed (sum |alpha a b| + |beta c|),
  // not against |C|: C itself can be tiny through cancellation (a 1 x 1 product of k = 2 random
  // terms, say), where any rounding is a large fraction of |C| and no kernel could do better.
  const double rel = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
  const double rel_to_terms = scale2 > 0 ? std::sqrt(err2 / scale2) : std::sqrt(err2);
  INFO("wrong elements: " << wrong << ", stray writes: " << stray << ", normwise error relative to C " << rel
                          << ", relative to the summed terms " << rel_to_terms << "\n"
                          << first.str());
  CHECK(wrong == 0);
  CHECK(stray == 0);
  CHECK(rel_to_terms <= 4 * gamma);
}

// The cases every preset must pass: ragged sizes (1, primes, non-multiples of every tile),
// padded leading dimensions, several alpha and beta, beta = 0 over NaN, k = 0, misaligned input.
inline std::vector<Case> standard_cases() {
  std::vector<Case> cases;
  const int shapes[][3] = {{1, 1, 1},    {1, 1, 2},      {3, 1, 1},      {1, 5, 7},       {2, 3, 4},
                           {7, 13, 29},  {17, 31, 1},    {31, 33, 17},   {64, 64, 64},    {65, 63, 9},
                           {127, 129, 131}, {128, 128, 8}, {256, 257, 255}, {97, 1000, 13},  {1000, 3, 517},
                           {131, 67, 1024}, {523, 519, 1009}};
  const double alphas[] = {1.0, 0.5, -1.25, 2.0};
  const double betas[] = {0.0, 1.0, -0.75, 0.0};
  int i = 0;
  for (const auto& s : shapes) {
    Case c{s[0], s[1], s[2]};
    c.alpha = alphas[i % 4];
    c.beta = betas[(i / 2) % 4];
    c.nan_in_c = c.beta == 0.0;
    c.pad_a = (i % 3) * 3;  // 0, 3, 6: lda = k + 3 breaks 16-byte rows
    c.pad_b = (i % 2) * 4;
    c.pad_c = (i % 5 == 4) ? 1 : (i % 5) * 4;
    cases.push_back(c);
    ++i;
  }
  // 16-byte-aligned layouts with sizes that are multiples of 4 (the vector path, full and ragged).
  cases.push_back(Case{256, 256, 256, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true});
  cases.push_back(Case{260, 132, 68, -1.5, 0.5, 4, 8, 4});
  cases.push_back(Case{300, 200, 100, 1.0, 1.0, 4, 4, 4});
  // Misaligned: A one element into its allocation, lda = k + 1, B and C shifted as well.
  cases.push_back(Case{129, 131, 67, 1.0, 0.0, 1, 0, 0, 1, 0, 0, true});
  cases.push_back(Case{128, 128, 128, 0.75, -1.0, 1, 1, 1, 1, 3, 2});
  cases.push_back(Case{64, 64, 64, 1.0, 2.0, 0, 0, 0, 0, 0, 1});
  // k = 0 and alpha = 0: C = beta * C, with beta = 0 over NaN too.
  cases.push_back(Case{33, 17, 0, 1.0, 2.5});
  cases.push_back(Case{33, 17, 0, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true});
  cases.push_back(Case{20, 30, 40, 0.0, -1.0});
  return cases;
}

// Rows of tiles (tiles_n columns of them) that overflow one wave of Policy's kernel on this GPU by
// about a quarter without filling a whole number of waves: the shapes on which StreamK shares out
// leftover tiles. A wave is SMs x resident blocks, counted as the library counts it.
struct WaveOverflow {
  int tiles_m;
  int wave;
};
template <class Policy, class T>
WaveOverflow rows_past_a_wave(int tiles_n) {
  using Cfg = typename Policy::template Config<T>;
  constexpr auto kKernel = &gemm::detail::tiled_gemm_kernel<T, Cfg, (Cfg::kLoadWidth > 1)>;
  gemm::detail::DeviceInfo dev;
  REQUIRE(gemm::detail::query_device(dev) == gemm::Status::Success);
  REQUIRE(gemm::detail::prepare_kernel<kKernel>(Cfg::kSmemBytes, dev) == gemm::Status::Success);
  int per_sm = 0;
  REQUIRE(gemm::detail::resident_blocks<kKernel>(Cfg::kThreads, Cfg::kSmemBytes, dev, per_sm) == gemm::Status::Success);
  const int wave = per_sm * dev.sms;
  REQUIRE(wave > 0);
  int tiles_m = (wave + wave / 4) / tiles_n + 1;
  while ((tiles_m * tiles_n) % wave == 0) ++tiles_m;
  return {tiles_m, wave};
}

template <class Policy, class T>
void check_preset() {
  for (const Case& c : standard_cases()) run_case<Policy, T>(c);
}

}  // namespace gemm_test

// Two test cases per preset: float and double.
#define GEMM_PRESET_GPU_TESTS(Preset)                                                         \
  TEST_CASE(#Preset "<float> matches the fp64 reference on ragged, padded and misaligned input", \
            "[gpu][" #Preset "][float]") {                                                    \
    gemm_test::check_preset<gemm::preset::Preset, float>();                                   \
  }                                                                                           \
  TEST_CASE(#Preset "<double> matches the fp64 reference on ragged, padded and misaligned input", \
            "[gpu][" #Preset "][double]") {                                                   \
    gemm_test::check_preset<gemm::preset::Preset, double>();                                  \
  }
