#pragma once
// The GPU correctness harness: runs one policy on fresh random data and compares every element of
// C with an fp64 host reference, element by element, against a bound scaled by sum |alpha a b| + |beta c|.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
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

// The suite's costly host work is compiled once, at -O3, in ../common/host_work.cu (the test files'
// own host code is built at -O0): the fp64 reference for every (input, C) type, here, and the
// random inputs and C, below. Elsewhere these are explicit instantiation declarations.
#ifdef GEMM_TEST_HOST_WORK
#define GEMM_TEST_HOST_WORK_EXTERN
#else
#define GEMM_TEST_HOST_WORK_EXTERN extern
#endif
#define GEMM_TEST_HOST_WORK_REFERENCE(In, Out)                                                                  \
  GEMM_TEST_HOST_WORK_EXTERN template void gemm::reference::gemm<In, Out>(                                      \
      bool, bool, int, int, int, double, const In*, int, const In*, int, double, const Out*, int, double*, int, int);
GEMM_TEST_HOST_WORK_REFERENCE(float, float)
GEMM_TEST_HOST_WORK_REFERENCE(double, double)
GEMM_TEST_HOST_WORK_REFERENCE(__nv_bfloat16, __nv_bfloat16)
GEMM_TEST_HOST_WORK_REFERENCE(__nv_bfloat16, float)
GEMM_TEST_HOST_WORK_REFERENCE(__half, __half)
GEMM_TEST_HOST_WORK_REFERENCE(__half, float)
#undef GEMM_TEST_HOST_WORK_REFERENCE

namespace gemm_test {

using gemm::Op;

// One call's shape and arguments, in the row-major frame: C (m x n) = alpha * op(A) * op(B) + beta * C.
// pad_*: extra elements per stored row beyond what the matrix needs; offset_*: elements between the
// allocation's start and the matrix (to misalign it). column_major: make the same call through
// gemm::blas::gemm, as the column-major product C^T = op(B)^T op(A)^T (n x m, A and B swapped).
struct Case {
  int m, n, k;
  double alpha = 1.0, beta = 0.0;
  int pad_a = 0, pad_b = 0, pad_c = 0;
  int offset_a = 0, offset_b = 0, offset_c = 0;
  bool nan_in_c = false;  // with beta == 0: C starts as NaN, which must not survive
  Op op_a = Op::N, op_b = Op::N;
  bool column_major = false;

  // Stored rows and row lengths of A and B (a transposed operand stores k along its rows).
  int a_rows() const { return op_a == Op::N ? m : k; }
  int a_row_len() const { return op_a == Op::N ? k : m; }
  int b_rows() const { return op_b == Op::N ? k : n; }
  int b_row_len() const { return op_b == Op::N ? n : k; }
  int lda() const { return std::max(1, a_row_len()) + pad_a; }
  int ldb() const { return std::max(1, b_row_len()) + pad_b; }
  int ldc() const { return std::max(1, n) + pad_c; }

  Case with_ops(Op a, Op b, bool col = false) const {
    Case c = *this;
    c.op_a = a, c.op_b = b, c.column_major = col;
    return c;
  }

  std::string str() const {
    std::ostringstream s;
    s << "m=" << m << " n=" << n << " k=" << k << " op(A)=" << gemm::to_string(op_a) << " op(B)=" << gemm::to_string(op_b)
      << (column_major ? " via blas::gemm" : "") << " alpha=" << alpha << " beta=" << beta << " lda=" << lda()
      << " ldb=" << ldb() << " ldc=" << ldc() << " offsets=" << offset_a << "," << offset_b << "," << offset_c
      << (nan_in_c ? " C=NaN" : "");
    return s.str();
  }
};

// A value no correct run writes: marks C's padding and the space before C, to catch stray writes.
template <class T>
T sentinel() {
  return gemm::detail::convert<T>(-12345.678);
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

// Copies a host vector into the start of a device buffer.
template <class T>
void upload(DeviceBuffer<T>& d, const std::vector<T>& h) {
  CUDA_REQUIRE(cudaMemcpy(d.ptr, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
}

// The first n elements at d, copied to the host.
template <class T>
std::vector<T> read_back(const T* d, size_t n) {
  std::vector<T> h(n);
  CUDA_REQUIRE(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// Whether the current device is an sm_90 GPU (where the Hopper kernels run).
inline bool is_sm90() {
  int dev = 0, major = 0, minor = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  return major == 9 && minor == 0;
}

// Whether the Hopper kernels run here (an sm_90 GPU); elsewhere says so, and the test case returns.
inline bool hopper_runs_here() {
  if (is_sm90()) return true;
  WARN("the Hopper kernels need sm_90 (TMA, wgmma): not run here");
  return false;
}

// This device's SM count (Tuned's rules count tiles in rounds of it).
inline int device_sms() {
  int dev = 0, sms = 0;
  CUDA_REQUIRE(cudaGetDevice(&dev));
  CUDA_REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return sms;
}

// Tuned's composition on this device for an m x n x k call of T with these layouts and tight rows
// (p: any aligned device pointer; gemm::plan reads no data).
template <class T>
std::string tuned_composition(const gemm::storage_t<T>* p, gemm::Op op_a, gemm::Op op_b, int m, int n, int k) {
  using gemm::Op;
  return gemm::plan<T>(op_a, op_b, m, n, k, 1.0f, p, op_a == Op::N ? k : m, p, op_b == Op::N ? n : k, 0.0f,
                       const_cast<gemm::storage_t<T>*>(p), n)
      .composition;
}

inline std::mt19937_64& rng() {
  static std::mt19937_64 engine(std::random_device{}());
  return engine;
}

// Uniform in (-1, 1), rounded to T: the reference reads these same rounded values.
template <class T>
void fill_random(std::vector<T>& v) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (auto& x : v) x = gemm::detail::convert<T>(u(rng()));
}

// C's m x n elements at c[offset + i * ldc + j]: uniform in (-1, 1), or NaN (for beta == 0 cases).
template <class Out>
void fill_c(std::vector<Out>& c, size_t offset, int m, int n, int ldc, bool nan) {
  std::uniform_real_distribution<double> u(-1, 1);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      c[offset + static_cast<size_t>(i) * ldc + j] =
          gemm::detail::convert<Out>(nan ? std::numeric_limits<double>::quiet_NaN() : u(rng()));
}

// Random inputs and C for the element types: compiled with the reference (see above).
#define GEMM_TEST_HOST_WORK_FILL(T)                                         \
  GEMM_TEST_HOST_WORK_EXTERN template void fill_random<T>(std::vector<T>&); \
  GEMM_TEST_HOST_WORK_EXTERN template void fill_c<T>(std::vector<T>&, size_t, int, int, int, bool);
GEMM_TEST_HOST_WORK_FILL(float)
GEMM_TEST_HOST_WORK_FILL(double)
GEMM_TEST_HOST_WORK_FILL(__nv_bfloat16)
GEMM_TEST_HOST_WORK_FILL(__half)
#undef GEMM_TEST_HOST_WORK_FILL

template <class T>
double to_double(T x) {
  return gemm::detail::convert<double>(x);
}

// Unit roundoff of a storage type (half its machine epsilon): 2^-24 float, 2^-53 double, 2^-9 bf16, 2^-11 fp16.
template <class T>
double unit_roundoff() {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return std::ldexp(1.0, -9);
  else if constexpr (std::is_same_v<T, __half>) return std::ldexp(1.0, -11);
  else return std::numeric_limits<T>::epsilon() / 2;
}

// The error bound. With u the accumulator's unit roundoff, an fp32/fp64 sum of k products has
// |error| <= gamma_k * sum|alpha a b| with gamma_k ~ k u (we allow 2 (k + 4) u: tensor cores add in
// blocks, with a little more rounding than a serial FMA chain). TF32 rounds each input to a 10-bit
// mantissa first (2^-11 each, truncation 2^-10): products gain 2 * 2^-10 relative error. Writing C
// rounds once more, to C's type (u_out |result|), and beta * c costs a few u.
template <class T, class Out>
struct ErrorModel {
  using Acc = gemm::scalar_t<T>;
  double u_acc = unit_roundoff<Acc>();
  double u_out = unit_roundoff<Out>();
  // 3xTF32 (x = hi + lo to 2^-22 relative, a_lo b_lo dropped): products gain ~3 * 2^-22, and the three
  // passes each round C to fp32 once more (covered by 4 u_acc per pass here).
  double u_in = std::is_same_v<T, gemm::tf32>     ? 2 * std::ldexp(1.0, -10)
                : std::is_same_v<T, gemm::tf32x3> ? 4 * std::ldexp(1.0, -22) + 12 * std::ldexp(1.0, -24)
                                                  : 0.0;
  double product(int k) const { return 2 * (k + 4) * u_acc + u_in; }  // relative to sum |alpha a b|
  // Results below C's normal range round to its subnormal spacing (fp16: 2^-24, about 6e-8), not to
  // a relative u_out; seen on random data: a 1-term fp16 product of -4.3e-6.
  double tiny_out = std::is_same_v<Out, __half> ? std::ldexp(1.0, -24) : std::numeric_limits<float>::min();
  double element(int k, double mag, double beta_c, double want) const {
    return product(k) * mag + 8 * u_acc * (beta_c + std::fabs(want)) + 2 * u_out * (std::fabs(want) + beta_c) +
           tiny_out;
  }
  double normwise(int k) const { return 2 * product(k) + 4 * u_out; }
};

// The error bound of one element of C against the fp64 product of the dequantized operands.
//
// The FP8 products are exact (at most 4 x 4 significant bits), but Hopper's FP8 wgmma does not add
// them in fp32: its accumulator keeps about 13 mantissa bits, truncating (measured by others; the
// reason for promotion). The library promotes every 128 k: each stage of 128 k (at most four chained
// 32-deep wgmmas) sums from zero in the tensor cores, and its sum is added to an fp32 accumulator with
// ordinary adds (times its scales in ScaleMode::Block; Tensor and Rowwise scales multiply the fp32
// sum once). With S = sum_p |alpha a_p b_p| over the dequantized a_p = scale_a a, b_p = scale_b b:
//   tensor cores:  each of a stage's s = ceil(min(k, 128) / 32) wgmmas truncates a partial sum of at
//                  most S_stage to 13 bits (2^-13 relative), and aligning its 32 products to the largest
//                  may lose as much again: 2 s 2^-13 S_stage per stage, 2 s 2^-13 S over the stages
//                  (2^-10 S once k >= 128);
//   fp32:          ceil(k / 128) promoted adds, the scales' products and alpha: 2 (ceil(k / 128) + 4) u S
//                  with u = 2^-24 (the gamma_n bound of a sum of ceil(k / 128) terms, doubled as
//                  check.cuh does), and beta * c: 8 u (|beta c| + |C|), as check.cuh;
//   C's type:      one rounding, 2 u_out (|C| + |beta c|) with u_out = 2^-9 (bf16), 2^-11 (fp16),
//                  2^-24 (float), plus fp16's subnormal spacing 2^-24 (bf16 and float: FLT_MIN).
// Plain fp32 accumulation (k 2^-23 S) would stay below the tensor cores' term for every k <= 1024
// and reach it only at k = 8192: the bound is set by the 13-bit stages, not by k. A scale from the
// wrong row or block, a k block dropped or added twice, or a transposed operand read as stored
// moves an element by a large fraction of S: far past 2^-10 S.
// With Scales::promote_every(P) a partial sum spans P values of k (all of k with P = 0): s =
// ceil(min(k, P) / 32) wgmmas per partial sum, and ceil(k / P) promoted adds (never more than the
// k blocks counted above).
template <class Out>
struct Fp8ErrorModel {
  int promote_k = gemm::kScaleBlock;
  double u_acc = std::ldexp(1.0, -24);
  double u_tc = std::ldexp(1.0, -13);
  double u_out = unit_roundoff<Out>();
  double tiny_out = std::is_same_v<Out, __half> ? std::ldexp(1.0, -24) : std::numeric_limits<float>::min();
  double product(int k) const {  // relative to S
    const int steps = (std::min(k, promote_k == 0 ? k : promote_k) + 31) / 32;
    return 2 * steps * u_tc + 2 * (static_cast<double>(gemm::Scales::k_blocks(k)) + 4) * u_acc;
  }
  double element(int k, double mag, double beta_c, double want) const {
    return product(k) * mag + 8 * u_acc * (beta_c + std::fabs(want)) + 2 * u_out * (std::fabs(want) + beta_c) +
           tiny_out;
  }
  double normwise(int k) const { return 2 * product(k) + 4 * u_out; }
};

template <class T>
const char* type_label() {
  return gemm::type_name<T, gemm::storage_t<T>>();
}

// How many elements of C's allocation outside its m x n elements (its padding, the space before C,
// the guard row after it) differ from what the allocation held before the call; the first few are
// named in `first`.
template <class Out>
long long writes_outside_c(const std::vector<Out>& out, const std::vector<Out>& before, const Case& c,
                           std::ostringstream& first) {
  const int ldc = c.ldc();
  long long stray = 0;
  for (size_t idx = 0; idx < out.size(); ++idx) {
    const bool inside = idx >= static_cast<size_t>(c.offset_c) && idx < c.offset_c + static_cast<size_t>(c.m) * ldc &&
                        static_cast<int>((idx - c.offset_c) % ldc) < c.n;
    if (!inside && std::memcmp(&out[idx], &before[idx], sizeof(Out)) != 0) {
      if (stray < 3) first << "  write outside C at element " << idx << "\n";
      ++stray;
    }
  }
  return stray;
}

// One case's data: its inputs (random, rounded to T) and poisoned C on the host and the device,
// then check(): every element of C against an fp64 host reference from the same inputs, within the
// error model's bound, and nothing outside C written. Between the two, the caller runs the product
// on dA, dB, dC (one call of its own, or one problem of a grouped call).
template <class T, class Out = gemm::storage_t<T>>
struct CaseData {
  using In = gemm::storage_t<T>;
  using S = gemm::scalar_t<T>;
  Case c;
  int lda, ldb, ldc;
  std::vector<In> a, b;
  std::vector<Out> c0;
  DeviceBuffer<In> da, db;
  DeviceBuffer<Out> dc;
  const In* dA;
  const In* dB;
  Out* dC;
  S alpha, beta;

  explicit CaseData(const Case& c_)
      : c(c_),
        lda(c_.lda()),
        ldb(c_.ldb()),
        ldc(c_.ldc()),
        a(std::max<size_t>(c_.offset_a + static_cast<size_t>(c_.a_rows()) * lda, 1)),
        b(std::max<size_t>(c_.offset_b + static_cast<size_t>(c_.b_rows()) * ldb, 1)),
        // C, and a guard row after it: both it and C's padding must come back untouched.
        c0(std::max<size_t>(c_.offset_c + static_cast<size_t>(c_.m + 1) * ldc, 1), sentinel<Out>()),
        da(a.size()),
        db(b.size()),
        dc(c0.size()),
        alpha(static_cast<S>(c_.alpha)),
        beta(static_cast<S>(c_.beta)) {
    fill_random(a);
    fill_random(b);
    fill_c(c0, c.offset_c, c.m, c.n, ldc, c.nan_in_c);
    upload(da, a);
    upload(db, b);
    upload(dc, c0);
    dA = da.ptr + c.offset_a;
    dB = db.ptr + c.offset_b;
    dC = dc.ptr + c.offset_c;
  }

  void check() const {
    std::vector<Out> out(c0.size());
    CUDA_REQUIRE(cudaMemcpy(out.data(), dc.ptr, out.size() * sizeof(Out), cudaMemcpyDeviceToHost));

    // Reference in fp64 from the same inputs, and the same product on |A|, |B| for the error bound.
    const bool ta = c.op_a == Op::T, tb = c.op_b == Op::T;
    const In* A = a.data() + c.offset_a;
    const In* B = b.data() + c.offset_b;
    const Out* C0 = c0.data() + c.offset_c;
    std::vector<double> ref(static_cast<size_t>(c.m) * c.n), mag(static_cast<size_t>(c.m) * c.n);
    std::vector<double> abs_a(a.size()), abs_b(b.size());
    for (size_t i = 0; i < a.size(); ++i) abs_a[i] = std::fabs(to_double(a[i]));
    for (size_t i = 0; i < b.size(); ++i) abs_b[i] = std::fabs(to_double(b[i]));
    gemm::reference::gemm<In, Out>(ta, tb, c.m, c.n, c.k, c.alpha, A, lda, B, ldb, c.beta, c.beta != 0 ? C0 : nullptr,
                                   ldc, ref.data(), c.n);
    gemm::reference::gemm<double, double>(ta, tb, c.m, c.n, c.k, std::fabs(c.alpha), abs_a.data() + c.offset_a, lda,
                                          abs_b.data() + c.offset_b, ldb, 0.0, nullptr, 1, mag.data(), c.n);

    const ErrorModel<T, Out> model;
    long long wrong = 0;
    std::ostringstream first;
    double err2 = 0, ref2 = 0, scale2 = 0;
    for (int i = 0; i < c.m; ++i)
      for (int j = 0; j < c.n; ++j) {
        const double got = to_double(out[c.offset_c + static_cast<size_t>(i) * ldc + j]);
        const double want = ref[static_cast<size_t>(i) * c.n + j];
        const double beta_c = c.beta != 0 ? std::fabs(c.beta * to_double(C0[static_cast<size_t>(i) * ldc + j])) : 0.0;
        const double bound = model.element(c.k, mag[static_cast<size_t>(i) * c.n + j], beta_c, want);
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
    // Nothing outside C's m x n elements may change: the padding, the space before C, the guard row.
    const long long stray = writes_outside_c(out, c0, c, first);
    // Normwise, the error is measured against the size of the terms summed (sum |alpha a b| + |beta c|),
    // not against |C|: C itself can be tiny through cancellation (a 1 x 1 product of k = 2 random
    // terms, say), where any rounding is a large fraction of |C| and no kernel could do better.
    const double rel = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
    const double rel_to_terms = scale2 > 0 ? std::sqrt(err2 / scale2) : std::sqrt(err2);
    INFO("wrong elements: " << wrong << ", stray writes: " << stray << ", normwise error relative to C " << rel
                            << ", relative to the summed terms " << rel_to_terms << " (bound " << model.normwise(c.k)
                            << ")\n" << first.str());
    CHECK(wrong == 0);
    CHECK(stray == 0);
    CHECK(rel_to_terms <= model.normwise(c.k));
  }
};

// The case's call through Policy on d's inputs, into C (d.dC, or another copy of it).
template <class Policy, class T, class Out>
gemm::Status call_case(const CaseData<T, Out>& d, Out* C) {
  const Case& c = d.c;
  if (c.column_major)
    return gemm::blas::gemm<T, Policy>(c.op_b, c.op_a, c.n, c.m, c.k, d.alpha, d.dB, d.ldb, d.dA, d.lda, d.beta, C,
                                       d.ldc);
  if (c.op_a == Op::N && c.op_b == Op::N)
    return gemm::gemm<T, Policy>(c.m, c.n, c.k, d.alpha, d.dA, d.lda, d.dB, d.ldb, d.beta, C, d.ldc);
  return gemm::gemm<T, Policy>(c.op_a, c.op_b, c.m, c.n, c.k, d.alpha, d.dA, d.lda, d.dB, d.ldb, d.beta, C, d.ldc);
}

// Runs the case with math type T and C of type Out, and checks every element of C against an fp64
// host reference from the same inputs, and that nothing outside C was written.
template <class Policy, class T, class Out = gemm::storage_t<T>>
void run_case(const Case& c) {
  const char* type = gemm::type_name<T, Out>();
  INFO(Policy::name() << "<" << type << "> " << c.str());
  const CaseData<T, Out> d(c);
  const gemm::Status status = call_case<Policy>(d, d.dC);
  REQUIRE(status == gemm::Status::Success);
  CUDA_REQUIRE(cudaGetLastError());
  CUDA_REQUIRE(cudaDeviceSynchronize());
  d.check();
}

// The case through Policy1 and through Policy2 on the same random A, B and C: true if C (with its
// padding and the guard row after it) comes back bitwise the same. For compositions that compute the
// same sums in the same order (deterministic kernels, one reading copies the other does without).
template <class Policy1, class Policy2, class T, class Out = gemm::storage_t<T>>
bool same_bits(const Case& c) {
  const char* type = gemm::type_name<T, Out>();
  INFO(Policy1::name() << " against " << Policy2::name() << " <" << type << "> " << c.str());
  const CaseData<T, Out> d(c);
  DeviceBuffer<Out> dc2(d.c0.size());
  upload(dc2, d.c0);
  REQUIRE(call_case<Policy1>(d, d.dC) == gemm::Status::Success);
  REQUIRE(call_case<Policy2>(d, dc2.ptr + c.offset_c) == gemm::Status::Success);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  std::vector<Out> c1(d.c0.size()), c2(d.c0.size());
  CUDA_REQUIRE(cudaMemcpy(c1.data(), d.dc.ptr, c1.size() * sizeof(Out), cudaMemcpyDeviceToHost));
  CUDA_REQUIRE(cudaMemcpy(c2.data(), dc2.ptr, c2.size() * sizeof(Out), cudaMemcpyDeviceToHost));
  return std::memcmp(c1.data(), c2.data(), c1.size() * sizeof(Out)) == 0;
}

// The cases every preset must pass: ragged sizes (1, primes, non-multiples of every tile),
// padded leading dimensions, several alpha and beta, beta = 0 over NaN, k = 0, misaligned input.
inline bool quick();

inline std::vector<Case> standard_cases() {
  std::vector<Case> cases;
  if (quick()) {  // under the sanitizers: each kind of edge once
    return {Case{1, 1, 1},
            Case{7, 13, 29, 0.5, 1.0, 3, 1, 2},
            Case{65, 63, 9, -1.25, 0.0, 0, 0, 0, 0, 0, 0, true},
            Case{127, 129, 131, 2.0, -0.75, 6, 4, 4},
            Case{260, 132, 68, -1.5, 0.5, 4, 8, 4},
            Case{129, 131, 67, 1.0, 0.0, 1, 0, 0, 1, 0, 0, true},
            Case{128, 128, 128, 0.75, -1.0, 1, 1, 1, 1, 3, 2},
            Case{33, 17, 0, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true},
            Case{20, 30, 40, 0.0, -1.0}};
  }
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

// A shorter list for each transposed layout and for the column-major entry point: ragged sizes,
// whole tiles, vector-aligned and misaligned storage, NaN under beta = 0, k = 0. Each layout's
// kernels are other instantiations of the same parts, so these cover what differs: the loaders'
// transposed paths and the edges.
// GEMM_TEST_QUICK=1 (set by scripts/run-gpu-suite.sh under compute-sanitizer, which slows kernels
// 10-100x, racecheck most): the standard cases keep each kind of edge once, the layout cases one
// ragged, one vector-aligned, one misaligned and one k = 0 case, and tests use smaller large shapes.
// The full lists run without it.
inline bool quick() {
  static const bool q = [] {
    const char* v = std::getenv("GEMM_TEST_QUICK");
    return v && *v && std::string(v) != "0";
  }();
  return q;
}

inline std::vector<Case> layout_cases() {
  if (quick())
    return {Case{65, 63, 9, -1.25, 0.0, 0, 0, 0, 0, 0, 0, true}, Case{260, 132, 68, -1.5, 0.5, 4, 8, 4},
            Case{129, 131, 67, 1.0, 0.0, 1, 0, 0, 1, 0, 0, true}, Case{33, 17, 0, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}};
  return {Case{1, 1, 1},
          Case{7, 13, 29, 0.5, 1.0, 3, 1, 2},
          Case{65, 63, 9, -1.25, 0.0, 0, 0, 0, 0, 0, 0, true},
          Case{127, 129, 131, 2.0, -0.75, 6, 4, 4},
          Case{256, 256, 256, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true},
          Case{260, 132, 68, -1.5, 0.5, 4, 8, 4},
          Case{300, 517, 100, 1.0, 1.0, 4, 4, 4},
          Case{129, 131, 67, 1.0, 0.0, 1, 0, 0, 1, 0, 0, true},
          Case{128, 128, 128, 0.75, -1.0, 1, 1, 1, 1, 3, 2},
          Case{523, 519, 1009, 1.0, 0.5, 3, 0, 1},
          Case{33, 17, 0, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}};
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
  using Args = gemm::GemmArgs<T>;
  using Cfg = typename Policy::template Config<T>;
  constexpr auto kKernel = Policy::template kKernel<Args, (Cfg::kLoadWidth > 1), gemm::detail::Ops<Op::N, Op::N>>;
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

// Leaves a case as it is: the default rewrite of check_preset.
struct AsIs {
  Case operator()(const Case& c) const { return c; }
};

// Rounds A's and B's leading dimensions up to a multiple of `elems` elements (plus `elems` more where
// the case padded by 4 or more) and their offsets to 0 or `elems`, same m, n, k: for presets that
// refuse rows their copies cannot read (16 bytes: elems = 16 / sizeof(element)). C keeps its
// padding and offsets.
inline Case rows_aligned_to(Case c, int elems) {
  const auto pad = [elems](int row_len, int pad) {
    return (elems - std::max(1, row_len) % elems) % elems + (pad >= 4 ? elems : 0);
  };
  c.pad_a = pad(c.a_row_len(), c.pad_a);
  c.pad_b = pad(c.b_row_len(), c.pad_b);
  c.offset_a = c.offset_a ? elems : 0;
  c.offset_b = c.offset_b ? elems : 0;
  return c;
}

// The standard cases in the row-major layout, and the layout cases for NT, TN, TT and through the
// column-major entry point (all four of its transposes). rewrite(case) adapts each case to what the
// preset accepts (alignment, say), keeping m, n and k.
template <class Policy, class T, class Out = gemm::storage_t<T>, class Rewrite = AsIs>
void check_preset(Rewrite rewrite = {}) {
  for (const Case& c : standard_cases()) run_case<Policy, T, Out>(rewrite(c));
  for (const Case& c : layout_cases()) {
    run_case<Policy, T, Out>(rewrite(c.with_ops(Op::N, Op::T)));
    run_case<Policy, T, Out>(rewrite(c.with_ops(Op::T, Op::N)));
    run_case<Policy, T, Out>(rewrite(c.with_ops(Op::T, Op::T)));
  }
  const std::vector<Case> cm = layout_cases();
  for (size_t i = 0; i < cm.size(); ++i)
    run_case<Policy, T, Out>(rewrite(cm[i].with_ops(i % 2 ? Op::T : Op::N, i % 4 < 2 ? Op::N : Op::T, true)));
}

// Policy's product of a random m x k A (row-major) and n x k B (stored transposed), a call that uses
// scratch (split-K's partial sums and counters): bitwise the same C from call to call and through a
// CUDA graph replayed three times (each replay must find its counters reset).
template <class Policy, class T>
void check_bitwise_repeatable(int m, int n, int k) {
  using Out = gemm::storage_t<T>;
  std::vector<Out> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(n) * k);
  fill_random(a);
  fill_random(b);
  DeviceBuffer<Out> da(a.size()), db(b.size());
  upload(da, a);
  upload(db, b);
  const size_t elems = static_cast<size_t>(m) * n;
  const auto call = [&](Out* c, cudaStream_t s) {
    return gemm::gemm<T, Policy>(Op::N, Op::T, m, n, k, 1.0f, da.ptr, k, db.ptr, k, 0.0f, c, n, s);
  };
  DeviceBuffer<Out> c1(elems), c2(elems), c3(elems);
  const size_t bytes = elems * sizeof(Out);
  REQUIRE(call(c1.ptr, cudaStream_t{}) == gemm::Status::Success);
  CUDA_REQUIRE(cudaMemset(c2.ptr, 0xff, bytes));
  REQUIRE(call(c2.ptr, cudaStream_t{}) == gemm::Status::Success);
  cudaStream_t stream;
  CUDA_REQUIRE(cudaStreamCreate(&stream));
  cudaGraph_t graph;
  CUDA_REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const gemm::Status captured = call(c3.ptr, stream);
  CUDA_REQUIRE(cudaStreamEndCapture(stream, &graph));
  REQUIRE(captured == gemm::Status::Success);
  cudaGraphExec_t exec;
  CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
  std::vector<Out> h1(elems), h2(elems), h3(elems);
  CUDA_REQUIRE(cudaMemcpy(h1.data(), c1.ptr, bytes, cudaMemcpyDeviceToHost));
  CUDA_REQUIRE(cudaMemcpy(h2.data(), c2.ptr, bytes, cudaMemcpyDeviceToHost));
  CHECK(std::memcmp(h1.data(), h2.data(), bytes) == 0);
  for (int replay = 0; replay < 3; ++replay) {
    CUDA_REQUIRE(cudaMemsetAsync(c3.ptr, 0xff, bytes, stream));
    CUDA_REQUIRE(cudaGraphLaunch(exec, stream));
    CUDA_REQUIRE(cudaStreamSynchronize(stream));
    CUDA_REQUIRE(cudaMemcpy(h3.data(), c3.ptr, bytes, cudaMemcpyDeviceToHost));
    INFO("graph replay " << replay);
    CHECK(std::memcmp(h1.data(), h3.data(), bytes) == 0);
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

}  // namespace gemm_test

// Two test cases per preset: float and double, every layout.
#define GEMM_PRESET_GPU_TESTS(Preset)                                                         \
  TEST_CASE(#Preset "<float> matches the fp64 reference on ragged, padded and misaligned input, every layout", \
            "[gpu][" #Preset "][float]") {                                                    \
    gemm_test::check_preset<gemm::preset::Preset, float>();                                   \
  }                                                                                           \
  TEST_CASE(#Preset "<double> matches the fp64 reference on ragged, padded and misaligned input, every layout", \
            "[gpu][" #Preset "][double]") {                                                   \
    gemm_test::check_preset<gemm::preset::Preset, double>();                                  \
  }
