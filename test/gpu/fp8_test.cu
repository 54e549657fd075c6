// GPU correctness of FP8 (__nv_fp8_e4m3, __nv_fp8_e5m2; sm_90 only) with its scales (scales.cuh): every
// scale mode (per tensor, per row of op(A) and column of op(B), per 1 x 128 block of A and 128 x 128
// block of B) on Tuned and preset::Fp8, C in bf16, fp16 or float, against an fp64 reference of the
// dequantized operands, element by element. Ragged sizes (1, primes, across 64 and 128, k ending inside
// a scale block), decode-like rows against a 1024 x 4096 weight (Tuned splits k), a k of 128 blocks,
// every layout, padded and misaligned storage, alpha and beta, NaN under beta = 0, k = 0; results
// bitwise the same from call to call; the call without scales as the call with every scale 1; zero,
// infinite and NaN scales; invalid scales refused before any launch; other GPUs refused.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>
#include <cuda_fp8.h>
#include "check.cuh"

namespace {

using gemm::Op;
using gemm::ScaleMode;
using gemm::Scales;
using gemm::Status;
using gemm_test::Case;
using gemm_test::DeviceBuffer;
using gemm_test::Fp8ErrorModel;
using E4M3 = __nv_fp8_e4m3;
using E5M2 = __nv_fp8_e5m2;
using bf16 = __nv_bfloat16;
using Tuned = gemm::preset::Tuned;
using Fp8 = gemm::preset::Fp8;

constexpr ScaleMode kModes[] = {ScaleMode::Tensor, ScaleMode::Rowwise, ScaleMode::Block};
// op(A), op(B): the natural layout (A stored m x k, B stored n x k: what FP8 wgmma reads) first.
constexpr Op kLayouts[4][2] = {{Op::N, Op::T}, {Op::N, Op::N}, {Op::T, Op::N}, {Op::T, Op::T}};

bool fp8_runs_here() {
  if (gemm_test::is_sm90()) return true;
  WARN("SKIPPED: FP8 runs on sm_90 only (elsewhere the call returns UnsupportedArchitecture, which a test of its "
       "own checks)");
  return false;
}

template <class T>
const char* fp8_name() {
  return std::is_same_v<T, E4M3> ? "e4m3" : "e5m2";
}
template <class Out>
const char* out_name() {
  return std::is_same_v<Out, bf16> ? "bf16" : std::is_same_v<Out, __half> ? "fp16" : "float";
}

// Random FP8 values, never zero: a sign, an exponent in [-3, 0] and any mantissa (normal in both
// formats, so exact), spanning four binades. The reference reads back the stored values.
template <class T>
T random_fp8() {
  constexpr int kMantissas = std::is_same_v<T, E4M3> ? 8 : 4;  // 2^(mantissa bits)
  std::uniform_int_distribution<int> mantissa(0, kMantissas - 1), exponent(-3, 0), sign(0, 1);
  auto& g = gemm_test::rng();
  const float v = std::ldexp(1.0f + static_cast<float>(mantissa(g)) / kMantissas, exponent(g));
  return T(sign(g) ? -v : v);
}

// Scales 2^U(-4, 4): positive, over eight binades and not powers of two, a different one for every
// row and block, so that a scale read from another row or block, or applied twice, moves the result
// far past the bound.
float random_scale() {
  std::uniform_real_distribution<double> u(-4.0, 4.0);
  return static_cast<float>(std::exp2(u(gemm_test::rng())));
}

// What the scales hold: random; all 1 (any mode's layout: the buffers hold the most any mode reads);
// some zero (Tensor: A's); one A scale +Inf (Tensor: A's; Rowwise: the last row's; Block: row
// (m - 1) / 2's last, ragged, k block); one B scale NaN (Tensor: B's; Rowwise: column n / 3's;
// Block: the last n block's first k block).
enum class ScaleValues { Random, Ones, SomeZero, InfInA, NanInB };

const char* to_string(ScaleValues v) {
  switch (v) {
    case ScaleValues::Random: return "random scales";
    case ScaleValues::Ones: return "scales of 1";
    case ScaleValues::SomeZero: return "some scales 0";
    case ScaleValues::InfInA: return "an A scale +Inf";
    case ScaleValues::NanInB: return "a B scale NaN";
  }
  return "?";
}

// Whether TMA reads an FP8 operand as stored (A stored m x k, op N; B stored n x k, op T: the others
// are copied transposed first) from rows that are not 16-byte aligned (one byte an element).
bool tma_misaligned_a(const Case& c) {
  return c.k > 0 && c.op_a == Op::N && (c.offset_a % 16 != 0 || c.lda() % 16 != 0);
}
bool tma_misaligned_b(const Case& c) {
  return c.k > 0 && c.op_b == Op::T && (c.offset_b % 16 != 0 || c.ldb() % 16 != 0);
}

// The case with the operands TMA reads made 16-byte aligned (leading dimensions rounded up to a
// multiple of 16 elements, plus 16 more where the case padded by 4 or more; offsets 0 or 16), same
// m, n, k, C as it was.
Case tma_readable(Case c) {
  const auto pad_to_16 = [](int row_len, int pad) {
    return (16 - std::max(1, row_len) % 16) % 16 + (pad >= 4 ? 16 : 0);
  };
  if (c.op_a == Op::N) c.pad_a = pad_to_16(c.a_row_len(), c.pad_a), c.offset_a = c.offset_a ? 16 : 0;
  if (c.op_b == Op::T) c.pad_b = pad_to_16(c.b_row_len(), c.pad_b), c.offset_b = c.offset_b ? 16 : 0;
  return c;
}

// Tuned copies what TMA cannot read into aligned rows first; preset::Fp8, a stage of the ladder as
// Persistent is, may instead refuse such an operand (MisalignedA or MisalignedB, nothing launched).
template <class Policy>
inline constexpr bool kTakesAnyRows = std::is_same_v<Policy, Tuned>;

template <class Policy>
Case readable_by(const Case& c) {
  return kTakesAnyRows<Policy> ? c : tma_readable(c);
}

// One FP8 problem: operands, scales and C on the host and the device, its calls, and the check of a
// result against the fp64 reference.
template <class T, class Out>
struct Problem {
  Case c;
  ScaleMode mode;
  ScaleValues values;
  int promote_k = gemm::kScaleBlock;  // the calls' Scales::promote_every
  int scale_offset;  // floats before the scales: 1 (4-byte aligned only) where the case offsets anything
  std::vector<T> a, b;
  std::vector<float> sa, sb;
  std::vector<Out> c0;
  DeviceBuffer<T> da, db;
  DeviceBuffer<float> dsa, dsb;
  DeviceBuffer<Out> dc;
  std::vector<double> ref, mag;  // the reference and S, m x n (computed at the first check)

  static long long scale_count(const Case& c, ScaleMode mode, ScaleValues values, bool of_a) {
    const auto need = [&](ScaleMode md) {
      return of_a ? Scales::needed_a(md, c.m, c.k) : Scales::needed_b(md, c.n, c.k);
    };
    if (values != ScaleValues::Ones) return need(mode);
    long long most = 0;
    for (ScaleMode md : kModes) most = std::max(most, need(md));
    return most;
  }

  Problem(const Case& cs, ScaleMode md, ScaleValues v)
      : c(cs),
        mode(md),
        values(v),
        scale_offset(cs.offset_a || cs.offset_b || cs.offset_c ? 1 : 0),
        a(std::max<size_t>(cs.offset_a + static_cast<size_t>(cs.a_rows()) * cs.lda(), 1)),
        b(std::max<size_t>(cs.offset_b + static_cast<size_t>(cs.b_rows()) * cs.ldb(), 1)),
        sa(scale_offset + scale_count(cs, md, v, true)),
        sb(scale_offset + scale_count(cs, md, v, false)),
        c0(cs.offset_c + static_cast<size_t>(cs.m + 1) * cs.ldc(), gemm_test::sentinel<Out>()),
        da(a.size()),
        db(b.size()),
        dsa(sa.size()),
        dsb(sb.size()),
        dc(c0.size()) {
    for (auto& x : a) x = random_fp8<T>();  // padding too: garbage a kernel must not read
    for (auto& x : b) x = random_fp8<T>();
    set_scales();
    gemm_test::fill_c(c0, c.offset_c, c.m, c.n, c.ldc(), c.nan_in_c);
    gemm_test::upload(da, a);
    gemm_test::upload(db, b);
    gemm_test::upload(dsa, sa);
    gemm_test::upload(dsb, sb);
    gemm_test::upload(dc, c0);
  }

  void set_scales() {
    for (auto& s : sa) s = values == ScaleValues::Ones ? 1.0f : random_scale();
    for (auto& s : sb) s = values == ScaleValues::Ones ? 1.0f : random_scale();
    float* pa = sa.data() + scale_offset;
    float* pb = sb.data() + scale_offset;
    const long long na = static_cast<long long>(sa.size()) - scale_offset;
    const long long nb = static_cast<long long>(sb.size()) - scale_offset;
    const long long k_blocks = Scales::k_blocks(c.k), n_blocks = (c.n + gemm::kScaleBlock - 1) / gemm::kScaleBlock;
    switch (values) {
      case ScaleValues::SomeZero:
        if (mode == ScaleMode::Tensor) {
          pa[0] = 0.0f;  // C = beta * C
        } else {
          for (long long i = 0; i < na; ++i)
            if (i % 3 == 1) pa[i] = 0.0f;
          for (long long j = 0; j < nb; ++j)
            if (j % 4 == 2) pb[j] = 0.0f;
        }
        break;
      case ScaleValues::InfInA:
        REQUIRE(na > 0);
        pa[mode == ScaleMode::Tensor ? 0 : mode == ScaleMode::Rowwise ? c.m - 1 : (k_blocks - 1) * c.m + (c.m - 1) / 2] =
            std::numeric_limits<float>::infinity();
        break;
      case ScaleValues::NanInB:
        REQUIRE(nb > 0);
        pb[mode == ScaleMode::Tensor ? 0 : mode == ScaleMode::Rowwise ? c.n / 3 : (n_blocks - 1) * k_blocks] =
            std::numeric_limits<float>::quiet_NaN();
        break;
      default:
        break;
    }
  }

  // The scales of element (i, p) of op(A) and (p, j) of op(B), in the mode's layout (scales.cuh).
  double scale_a(int i, int p) const {
    const float* s = sa.data() + scale_offset;
    switch (mode) {
      case ScaleMode::Tensor: return s[0];
      case ScaleMode::Rowwise: return s[i];
      default: return s[static_cast<long long>(p / gemm::kScaleBlock) * c.m + i];
    }
  }
  double scale_b(int p, int j) const {
    const float* s = sb.data() + scale_offset;
    switch (mode) {
      case ScaleMode::Tensor: return s[0];
      case ScaleMode::Rowwise: return s[j];
      default: return s[static_cast<long long>(j / gemm::kScaleBlock) * Scales::k_blocks(c.k) + p / gemm::kScaleBlock];
    }
  }

  // The device scales in mode md's layout, with the counts the buffers hold (Ones: more than most
  // modes read, which is allowed).
  Scales scales_as(ScaleMode md) const {
    const float* pa = dsa.ptr + scale_offset;
    const float* pb = dsb.ptr + scale_offset;
    const long long na = static_cast<long long>(sa.size()) - scale_offset;
    const long long nb = static_cast<long long>(sb.size()) - scale_offset;
    switch (md) {
      case ScaleMode::Tensor: return Scales::tensor(pa, pb);
      case ScaleMode::Rowwise: return Scales::rowwise(pa, na, pb, nb);
      default: return Scales::block(pa, na, pb, nb);
    }
  }
  Scales scales() const { return scales_as(mode).promote_every(promote_k); }

  template <class Policy>
  Status call(const Scales& s, cudaStream_t stream = nullptr) const {
    return gemm::gemm<T, Policy>(c.op_a, c.op_b, c.m, c.n, c.k, static_cast<float>(c.alpha), da.ptr + c.offset_a,
                                 c.lda(), db.ptr + c.offset_b, c.ldb(), static_cast<float>(c.beta),
                                 dc.ptr + c.offset_c, c.ldc(), s, stream);
  }
  template <class Policy>
  Status call_without_scales(cudaStream_t stream = nullptr) const {
    return gemm::gemm<T, Policy>(c.op_a, c.op_b, c.m, c.n, c.k, static_cast<float>(c.alpha), da.ptr + c.offset_a,
                                 c.lda(), db.ptr + c.offset_b, c.ldb(), static_cast<float>(c.beta),
                                 dc.ptr + c.offset_c, c.ldc(), stream);
  }

  void reset_c() { gemm_test::upload(dc, c0); }

  // The whole of C's allocation (padding, offset and guard row included).
  std::vector<Out> result() const {
    std::vector<Out> out(c0.size());
    CUDA_REQUIRE(cudaMemcpy(out.data(), dc.ptr, out.size() * sizeof(Out), cudaMemcpyDeviceToHost));
    return out;
  }

  // want(i, j) = alpha * sum_p a_p b_p + beta * c(i, j) and S(i, j) = |alpha| sum_p |a_p b_p| in fp64,
  // a_p = scale_a(i, p) * A(i, p) and b_p = scale_b(p, j) * B(p, j) (each product of an FP8 value and
  // a float is exact in double); rows of op(A) and columns of op(B) copied contiguous along k, rows of
  // C shared out over the host's threads.
  void compute_reference() {
    const int m = c.m, n = c.n, k = c.k;
    std::vector<double> ad(static_cast<size_t>(m) * k), bd(static_cast<size_t>(n) * k);
    const T* A = a.data() + c.offset_a;
    const T* B = b.data() + c.offset_b;
    const long long lda = c.lda(), ldb = c.ldb();
    for (int i = 0; i < m; ++i)
      for (int p = 0; p < k; ++p)
        ad[static_cast<size_t>(i) * k + p] =
            static_cast<double>(static_cast<float>(c.op_a == Op::N ? A[i * lda + p] : A[p * lda + i])) * scale_a(i, p);
    for (int j = 0; j < n; ++j)
      for (int p = 0; p < k; ++p)
        bd[static_cast<size_t>(j) * k + p] =
            static_cast<double>(static_cast<float>(c.op_b == Op::N ? B[p * ldb + j] : B[j * ldb + p])) * scale_b(p, j);
    ref.assign(static_cast<size_t>(m) * n, 0.0);
    mag.assign(static_cast<size_t>(m) * n, 0.0);
    const Out* C0 = c0.data() + c.offset_c;
    const auto rows = [&](int begin, int end) {
      for (int i = begin; i < end; ++i) {
        const double* ai = ad.data() + static_cast<size_t>(i) * k;
        for (int j = 0; j < n; ++j) {
          const double* bj = bd.data() + static_cast<size_t>(j) * k;
          double dot[4] = {0, 0, 0, 0}, abs[4] = {0, 0, 0, 0};  // four chains: the loop is not latency-bound
          int p = 0;
          for (; p + 4 <= k; p += 4)
            for (int u = 0; u < 4; ++u) {
              const double x = ai[p + u] * bj[p + u];
              dot[u] += x;
              abs[u] += std::fabs(x);
            }
          for (; p < k; ++p) {
            const double x = ai[p] * bj[p];
            dot[0] += x;
            abs[0] += std::fabs(x);
          }
          const size_t at = static_cast<size_t>(i) * n + j;
          const double c_in = c.beta != 0 ? c.beta * gemm_test::to_double(C0[static_cast<size_t>(i) * c.ldc() + j]) : 0.0;
          ref[at] = c.alpha * ((dot[0] + dot[1]) + (dot[2] + dot[3])) + c_in;
          mag[at] = std::fabs(c.alpha) * ((abs[0] + abs[1]) + (abs[2] + abs[3]));
        }
      }
    };
    gemm::reference::parallel_rows(m, rows);
  }

  // Every element of C against the reference: within the bound where the reference is finite;
  // non-finite where it is not (which of NaN and +-Inf comes out depends on where a scale is applied:
  // to each product, as the reference does, or to a stage's or the whole sum, as the kernels do, so
  // only "not finite" is asked). Nothing outside C's m x n elements may change.
  void check(const std::vector<Out>& out) {
    if (ref.size() != static_cast<size_t>(c.m) * c.n) compute_reference();
    const Fp8ErrorModel<Out> model{promote_k};
    const int ldc = c.ldc();
    const Out* C0 = c0.data() + c.offset_c;
    long long wrong = 0, non_finite = 0;
    std::ostringstream first;
    double err2 = 0, scale2 = 0;
    for (int i = 0; i < c.m; ++i)
      for (int j = 0; j < c.n; ++j) {
        const size_t at = static_cast<size_t>(i) * c.n + j;
        const double got = gemm_test::to_double(out[c.offset_c + static_cast<size_t>(i) * ldc + j]);
        const double want = ref[at];
        if (!std::isfinite(want)) {
          ++non_finite;
          if (std::isfinite(got)) {
            if (wrong < 5) first << "  C(" << i << "," << j << ") = " << got << ", expected NaN or Inf\n";
            ++wrong;
          }
          continue;
        }
        const double beta_c =
            c.beta != 0 ? std::fabs(c.beta * gemm_test::to_double(C0[static_cast<size_t>(i) * ldc + j])) : 0.0;
        const double bound = model.element(c.k, mag[at], beta_c, want);
        const double diff = std::fabs(got - want);
        err2 += diff * diff;
        scale2 += (mag[at] + beta_c) * (mag[at] + beta_c);
        if (!(diff <= bound)) {  // NaN fails too
          if (wrong < 5)
            first << "  C(" << i << "," << j << ") = " << got << ", expected " << want << " (bound " << bound << ", S "
                  << mag[at] << ")\n";
          ++wrong;
        }
      }
    const long long stray = gemm_test::writes_outside_c(out, c0, c, first);
    // (Normwise against the size of the summed terms, as check.cuh: C itself can be tiny.)
    const double rel_to_terms = scale2 > 0 ? std::sqrt(err2 / scale2) : std::sqrt(err2);
    INFO("wrong elements: " << wrong << ", non-finite expected: " << non_finite << ", stray writes: " << stray
                            << ", normwise error relative to the summed terms " << rel_to_terms << " (bound "
                            << model.normwise(c.k) << ")\n"
                            << first.str());
    CHECK(wrong == 0);
    CHECK(stray == 0);
    CHECK(rel_to_terms <= model.normwise(c.k));
    if (values == ScaleValues::InfInA || values == ScaleValues::NanInB) {
      // The case reaches the non-finite scale, and (where it scales less than all of C) not all of C.
      CHECK(non_finite > 0);
      if (mode != ScaleMode::Tensor && c.m > 1 && c.n > gemm::kScaleBlock)
        CHECK(non_finite < static_cast<long long>(c.m) * c.n);
    } else {
      CHECK(non_finite == 0);
    }
  }
};

template <class Policy, class T, class Out>
void run_one(const Case& c, ScaleMode mode, ScaleValues values, bool may_refuse, int promote_k) {
  INFO(Policy::name() << "<" << fp8_name<T>() << ", C " << out_name<Out>() << "> " << gemm::to_string(mode)
                      << " scales, " << to_string(values) << ", promoted every " << promote_k << " k: " << c.str());
  Problem<T, Out> p(c, mode, values);
  p.promote_k = promote_k;
  const auto launches = gemm::kernel_launches();
  const Status s = p.template call<Policy>(p.scales());
  INFO("status: " << gemm::to_string(s));
  if (may_refuse && (s == Status::MisalignedA || s == Status::MisalignedB)) {
    // Refused: for the operand TMA would read from misaligned rows (A checked first), before any launch.
    CHECK((tma_misaligned_a(c) || tma_misaligned_b(c)));
    CHECK(s == (tma_misaligned_a(c) ? Status::MisalignedA : Status::MisalignedB));
    CHECK(gemm::kernel_launches() == launches);
    const std::vector<Out> out = p.result();
    CHECK(std::memcmp(out.data(), p.c0.data(), out.size() * sizeof(Out)) == 0);
    return;
  }
  REQUIRE(s == Status::Success);
  CUDA_REQUIRE(cudaGetLastError());
  CUDA_REQUIRE(cudaDeviceSynchronize());
  p.check(p.result());
}

// One case: as given on Tuned; on preset::Fp8 with the operands TMA reads aligned, and as given too
// where that differs (correct, or refused as run_one says).
template <class Policy, class T, class Out>
void run_case(const Case& c, ScaleMode mode, ScaleValues values = ScaleValues::Random,
              int promote_k = gemm::kScaleBlock) {
  if constexpr (kTakesAnyRows<Policy>) {
    run_one<Policy, T, Out>(c, mode, values, false, promote_k);
  } else {
    const Case aligned = tma_readable(c);
    run_one<Policy, T, Out>(aligned, mode, values, false, promote_k);
    if (aligned.str() != c.str()) run_one<Policy, T, Out>(c, mode, values, true, promote_k);
  }
}

// Ragged sizes (1, primes, across 64 and 128), k one past a scale block and ending inside one (130,
// 200, 259, 302, 383), whole tiles, padded and misaligned storage (odd leading dimensions: FP8 rows
// that are not 16-byte aligned; operands 1 and 3 bytes into their allocations, C 1 and 2 elements),
// alpha 1 and -0.5, beta 0 over NaN, 1 and 0.25, k = 0 (C = beta * C, over NaN too). (k <= 383: fp16
// C holds every result.)
std::vector<Case> small_cases() {
  if (gemm_test::quick())
    return {Case{7, 13, 29, -0.5, 1.0, 3, 1, 2},
            Case{96, 200, 200, 1.0, 0.0, 0, 0, 4, 0, 0, 0, true},
            Case{127, 129, 259, -0.5, 1.0, 1, 1, 1, 1, 3, 2},
            Case{33, 17, 0, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}};
  return {Case{1, 1, 1, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true},
          Case{7, 13, 29, -0.5, 1.0, 3, 1, 2},
          Case{65, 63, 9, 1.0, 0.25},
          Case{17, 31, 130, -0.5, 0.0, 0, 0, 1, 0, 0, 0, true},
          Case{96, 200, 200, 1.0, 0.0, 0, 0, 4, 0, 0, 0, true},
          Case{129, 255, 383, -0.5, 0.25},
          Case{128, 128, 128, 1.0, 1.0},
          Case{129, 131, 67, 1.0, 0.0, 1, 0, 0, 1, 0, 0, true},
          Case{127, 129, 259, -0.5, 1.0, 1, 1, 1, 1, 3, 2},
          Case{300, 301, 302, 1.0, 0.25, 2, 6, 1, 1, 3, 1},
          Case{33, 17, 0, 1.0, 0.25},
          Case{33, 17, 0, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}};
}

// Larger shapes, each in its own layout: k = 1000 (7 full blocks and a ragged one; odd leading
// dimensions in the second), decode-like m = 1 .. 64 against a 1024 x 4096 weight (Tuned's decode
// tiles, k split across blocks; with tensor and row scales turned around on 64x16 and 64x64 tiles),
// 17 to 40 tokens on the turned 64x32 and 64x64 tiles (a ragged k, a padded and offset C, A 3 bytes
// into its allocation and copied aligned first, a weight of a round and of half a round of 64-row
// tiles on 132 SMs), and a k of 128 blocks (16384) split across blocks. C no wider than 64 columns
// (a router: Tuned's 128x64 tiles, k split across blocks; ragged, a padded and offset C), and 65-128
// tokens on one row of 128x128 tiles (a weight of 100 of them; block scales with k from 7168).
std::vector<Case> large_cases() {
  const bool q = gemm_test::quick();
  const int decode_k = q ? 1024 : 4096;
  return {Case{300, 200, 1000, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T),
          Case{300, 200, 1000, -0.5, 0.25, 5, 3, 1}.with_ops(Op::T, Op::N),
          Case{1, 1024, decode_k, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T),
          Case{16, 1024, decode_k, -0.5, 1.0}.with_ops(Op::N, Op::T),
          Case{61, 1024, decode_k, 1.0, 0.25, 0, 16, 3}.with_ops(Op::N, Op::T),
          Case{29, 1000, 1000, -0.5, 0.25, 16, 0, 3, 0, 0, 1}.with_ops(Op::N, Op::T),
          Case{17, 8448, 256, 1.0, 0.0, 0, 0, 0, 3, 0, 0, true}.with_ops(Op::N, Op::T),
          Case{40, 4224, 640, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T),
          Case{64, 1024, decode_k, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::T, Op::T),
          Case{256, 256, q ? 2048 : 16384, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T),
          Case{1000, 8, 4096, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T),
          Case{333, 61, 1000, -0.5, 0.25, 0, 0, 5, 0, 0, 2}.with_ops(Op::N, Op::T),
          Case{100, 12800, 256, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T),
          Case{72, 256, 7168, 1.0, 0.5}.with_ops(Op::N, Op::T)};
}

// The small cases with the layouts taken in turn (each case one layout, every layout over the list).
template <class Policy, class T, class Out>
void run_small_in_turn(ScaleMode mode) {
  const std::vector<Case> cases = small_cases();
  for (size_t i = 0; i < cases.size(); ++i)
    run_case<Policy, T, Out>(cases[i].with_ops(kLayouts[i % 4][0], kLayouts[i % 4][1]), mode);
}

}  // namespace

TEMPLATE_TEST_CASE("FP8 e4m3, C bf16: every scale mode and layout on ragged, padded and misaligned input, decode and "
                   "long-k shapes",
                   "[gpu][fp8][e4m3]", Tuned, Fp8) {
  if (!fp8_runs_here()) return;
  for (ScaleMode mode : kModes) {
    for (const Case& c : small_cases())
      for (const auto& l : kLayouts) run_case<TestType, E4M3, bf16>(c.with_ops(l[0], l[1]), mode);
    for (const Case& c : large_cases()) run_case<TestType, E4M3, bf16>(c, mode);
  }
}

TEMPLATE_TEST_CASE("FP8 e4m3, C fp16 and float: every scale mode", "[gpu][fp8][e4m3]", Tuned, Fp8) {
  if (!fp8_runs_here()) return;
  const int decode_k = gemm_test::quick() ? 1024 : 4096;
  for (ScaleMode mode : kModes) {
    run_small_in_turn<TestType, E4M3, __half>(mode);
    run_small_in_turn<TestType, E4M3, float>(mode);
    run_case<TestType, E4M3, float>(Case{16, 1024, decode_k, 1.0, 0.5}.with_ops(Op::N, Op::T), mode);
    run_case<TestType, E4M3, float>(Case{300, 200, 1000, -0.5, 0.0, 0, 0, 1, 0, 0, 0, true}.with_ops(Op::T, Op::N), mode);
  }
}

// Tiles that make a round of the SMs and some: Tuned's 128x128 tiles split the last round's tiles
// along k (HopperSplitK's tail split; 1024 x 2176 is 136 tiles, 4 past a round of 132 SMs, and 53
// k blocks of 128 pay for 8 slices), the block scales of each slice read from its first k block.
TEST_CASE("FP8: the last round of tiles split along k, block scales", "[gpu][fp8][splitk]") {
  if (!fp8_runs_here()) return;
  using S = Tuned::HopperMedium::Shape<E4M3>;
  const int m = 1024, n = 2176, k = 52 * 128 + 72;  // (a ragged last k block)
  const int sms = gemm_test::device_sms();
  const gemm::HopperKSlices cut = Tuned::HopperMedium::KSplit::cut(
      gemm::detail::ceil_div(m, S::BM) * gemm::detail::ceil_div(n, S::BN), static_cast<int>(gemm::detail::ceil_div(k, S::BK)), sms);
  INFO("HopperMedium's cut on " << sms << " SMs: " << cut.whole << " whole tiles, then slices of " << cut.splits);
  if (sms == 132) CHECK((cut.whole == 132 && cut.splits == 8));
  run_case<Tuned, E4M3, bf16>(Case{m, n, k, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T), ScaleMode::Block);
}

// Partial sums spanning 2, 3 and 4 stages and all of k (Scales::promote_every 256, 384, 512, 0) with
// tensor and row scales: the small cases (k ending inside a partial sum, k = 0) with the layouts in
// turn, and the large ones (k split across blocks: slices that end inside a partial sum), each
// within the error model's bound for its promotion.
TEMPLATE_TEST_CASE("FP8: tensor and row scales promoted every 256, 384 and 512 k, and never", "[gpu][fp8][promotion]",
                   Tuned, Fp8) {
  if (!fp8_runs_here()) return;
  for (ScaleMode mode : {ScaleMode::Tensor, ScaleMode::Rowwise})
    for (int promote_k : {256, 384, 512, 0}) {
      const std::vector<Case> cases = small_cases();
      for (size_t i = 0; i < cases.size(); ++i)
        run_case<TestType, E4M3, bf16>(cases[(i + promote_k / 128) % cases.size()].with_ops(kLayouts[i % 4][0],
                                                                                        kLayouts[i % 4][1]),
                                       mode, ScaleValues::Random, promote_k);
      for (const Case& c : large_cases()) run_case<TestType, E4M3, float>(c, mode, ScaleValues::Random, promote_k);
    }
}

// Never promoted, on tiles too wide to promote: Tuned takes 128x256 tiles where they make a round of
// the SMs (1100 x 4200: 9 x 17 of them), as gemm::plan says; preset::Persistent (128x256 tiles) serves
// such calls and refuses any other FP8 call (UnsupportedPromotion, nothing launched, C untouched).
TEST_CASE("FP8 never promoted: 128x256 tiles in Tuned and preset::Persistent; promoted calls refused there",
          "[gpu][fp8][promotion]") {
  if (!fp8_runs_here()) return;
  using Persistent = gemm::preset::Persistent;
  const Case wide = Case{1100, 4200, 600, -0.5, 0.0, 0, 0, 3, 0, 0, 0, true}.with_ops(Op::N, Op::T);
  const int sms = gemm_test::device_sms();
  for (ScaleMode mode : {ScaleMode::Tensor, ScaleMode::Rowwise}) {
    Problem<E4M3, bf16> p(wide, mode, ScaleValues::Random);
    const Case& c = p.c;
    const gemm::Plan plan =
        gemm::plan<E4M3, Tuned>(c.op_a, c.op_b, c.m, c.n, c.k, static_cast<float>(c.alpha), p.da.ptr, c.lda(), p.db.ptr,
                                c.ldb(), static_cast<float>(c.beta), p.dc.ptr, c.ldc(), p.scales_as(mode).promote_every(0));
    INFO(gemm::to_string(mode) << " scales: " << plan.composition << " (" << plan.reason << ")");
    REQUIRE(plan.status == Status::Success);
    if (9 * 17 >= sms) CHECK(plan.composition.find("BlockTile<128,256>") != std::string::npos);
    run_case<Tuned, E4M3, bf16>(wide, mode, ScaleValues::Random, 0);
    run_case<Persistent, E4M3, bf16>(wide, mode, ScaleValues::Random, 0);
    run_case<Persistent, E4M3, float>(Case{300, 200, 1000, 1.0, 0.25}.with_ops(Op::N, Op::T), mode, ScaleValues::Random, 0);
    // Promoted (the default, and every 256 k) on Persistent: refused before any launch.
    const auto launches = gemm::kernel_launches();
    CHECK(p.template call<Persistent>(p.scales_as(mode)) == Status::UnsupportedPromotion);
    CHECK(p.template call<Persistent>(p.scales_as(mode).promote_every(256)) == Status::UnsupportedPromotion);
    CHECK(p.template call_without_scales<Persistent>() == Status::UnsupportedPromotion);
    CHECK(gemm::kernel_launches() == launches);
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const std::vector<bf16> out = p.result();
    CHECK(std::memcmp(out.data(), p.c0.data(), out.size() * sizeof(bf16)) == 0);
  }
}

TEMPLATE_TEST_CASE("FP8 e5m2: every scale mode, layouts in turn", "[gpu][fp8][e5m2]", Tuned, Fp8) {
  if (!fp8_runs_here()) return;
  for (ScaleMode mode : kModes) {
    run_small_in_turn<TestType, E5M2, bf16>(mode);
    run_case<TestType, E5M2, bf16>(Case{300, 200, 1000, 1.0, 0.25}.with_ops(Op::N, Op::T), mode);
    run_case<TestType, E5M2, bf16>(
        Case{16, 1024, gemm_test::quick() ? 1024 : 4096, -0.5, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T), mode);
    if constexpr (std::is_same_v<TestType, Tuned>) run_small_in_turn<TestType, E5M2, float>(mode);
  }
}

TEMPLATE_TEST_CASE("FP8: zero scales give beta * C where they apply; infinite and NaN scales give non-finite C there "
                   "and only there",
                   "[gpu][fp8][scales]", Tuned, Fp8) {
  if (!fp8_runs_here()) return;
  // Rowwise and Block: every third A scale and every fourth B scale 0 (rows, columns, blocks whose
  // products vanish); Tensor: A's scale 0, so C = beta * C (0 over NaN with beta = 0). +Inf in one A
  // scale: its row (all of C for Tensor); NaN in one B scale: its column or its n block's columns.
  // The reference applies each scale to each product in fp64, so it has NaN or Inf exactly where
  // the scale applies, and finite values elsewhere.
  const Case cases[] = {Case{7, 13, 29, -0.5, 1.0, 3, 1, 2}.with_ops(Op::N, Op::N),
                        Case{129, 255, 383, 1.0, 0.25}.with_ops(Op::N, Op::T),
                        Case{200, 300, 1000, -0.5, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::T, Op::N)};
  for (ScaleMode mode : kModes)
    for (ScaleValues values : {ScaleValues::SomeZero, ScaleValues::InfInA, ScaleValues::NanInB})
      for (const Case& c : cases) run_case<TestType, E4M3, bf16>(c, mode, values);
}

TEMPLATE_TEST_CASE("FP8: the call without scales is the call with every scale 1, bit for bit", "[gpu][fp8][scales]",
                   Tuned, Fp8) {
  if (!fp8_runs_here()) return;
  // A scale of exactly 1 multiplies exactly (a product of 1 * 1, an FMA by 1 into the promoted sum,
  // a multiply by 1 of the finished sum), so each mode's call with scales of 1 must give the bits of
  // the call without scales; both within the bound of the reference.
  const int decode_k = gemm_test::quick() ? 1024 : 4096;
  const Case cases[] = {Case{129, 255, 383, 1.0, 0.25}.with_ops(Op::N, Op::T),
                        Case{16, 1024, decode_k, -0.5, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T),
                        Case{300, 200, 1000, 1.0, 1.0}.with_ops(Op::T, Op::N),
                        Case{7, 13, 29, 1.0, 0.0, 3, 1, 2, 0, 0, 0, true}.with_ops(Op::T, Op::T)};
  for (const Case& given : cases) {
    const Case c = readable_by<TestType>(given);
    INFO(TestType::name() << "<e4m3, C bf16>: " << c.str());
    Problem<E4M3, bf16> p(c, ScaleMode::Tensor, ScaleValues::Ones);
    const Status plain_status = p.template call_without_scales<TestType>();
    INFO("without scales: " << gemm::to_string(plain_status));
    REQUIRE(plain_status == Status::Success);
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const std::vector<bf16> plain = p.result();
    p.check(plain);
    for (ScaleMode mode : kModes) {
      INFO(gemm::to_string(mode) << " scales of 1");
      p.reset_c();
      const Status s = p.template call<TestType>(p.scales_as(mode));
      INFO("status: " << gemm::to_string(s));
      REQUIRE(s == Status::Success);
      CUDA_REQUIRE(cudaDeviceSynchronize());
      const std::vector<bf16> scaled = p.result();
      p.check(scaled);
      CHECK(std::memcmp(plain.data(), scaled.data(), plain.size() * sizeof(bf16)) == 0);
    }
  }
}

TEMPLATE_TEST_CASE("FP8: results are bitwise the same from call to call, split k included", "[gpu][fp8][determinism]",
                   Tuned, Fp8) {
  if (!fp8_runs_here()) return;
  const bool q = gemm_test::quick();
  // Decode-like rows (Tuned splits k across blocks and sums the slices), a ragged k in a transposed
  // layout, a long k, and a C of 8 columns (Tuned's 128x64 tiles, k split).
  const Case cases[] = {Case{16, 1024, q ? 1024 : 4096, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T),
                        Case{64, 2048, q ? 1024 : 8192, -0.5, 0.25}.with_ops(Op::N, Op::T),
                        Case{300, 200, 1000, 1.0, 1.0, 0, 0, 3}.with_ops(Op::T, Op::N),
                        Case{256, 256, q ? 2048 : 16384, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T),
                        Case{1000, 8, 4096, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T)};
  cudaStream_t stream;
  CUDA_REQUIRE(cudaStreamCreate(&stream));
  for (ScaleMode mode : kModes)
    for (const Case& c : cases) {
      INFO(TestType::name() << "<e4m3, C bf16> " << gemm::to_string(mode) << " scales: " << c.str());
      Problem<E4M3, bf16> p(c, mode, ScaleValues::Random);
      REQUIRE(p.template call<TestType>(p.scales()) == Status::Success);
      CUDA_REQUIRE(cudaDeviceSynchronize());
      const std::vector<bf16> first = p.result();
      p.reset_c();  // C as it was (NaN under beta = 0)
      REQUIRE(p.template call<TestType>(p.scales(), stream) == Status::Success);
      CUDA_REQUIRE(cudaStreamSynchronize(stream));
      const std::vector<bf16> second = p.result();
      CHECK(std::memcmp(first.data(), second.data(), first.size() * sizeof(bf16)) == 0);
      // (Both runs wrote C: no element of it is the NaN it started as, where beta = 0.)
      long long nan_left = 0;
      for (int i = 0; i < c.m; ++i)
        for (int j = 0; j < c.n; ++j)
          nan_left += std::isnan(gemm_test::to_double(first[c.offset_c + static_cast<size_t>(i) * c.ldc() + j]));
      CHECK(nan_left == 0);
    }
  CUDA_REQUIRE(cudaStreamDestroy(stream));
}

TEMPLATE_TEST_CASE("FP8: invalid scales are refused before any launch, C untouched", "[gpu][fp8][scales][validation]",
                   Tuned, Fp8) {
  if (!fp8_runs_here()) return;
  using P = TestType;
  // 3 k blocks and 2 n blocks, the last of each ragged; rows of 304 bytes, which TMA reads (preset::Fp8
  // refuses other rows, after the scales).
  constexpr int m = 40, n = 200, k = 304;
  REQUIRE(Scales::needed_a(ScaleMode::Tensor, m, k) == 1);
  REQUIRE(Scales::needed_b(ScaleMode::Tensor, n, k) == 1);
  REQUIRE(Scales::needed_a(ScaleMode::Rowwise, m, k) == m);
  REQUIRE(Scales::needed_b(ScaleMode::Rowwise, n, k) == n);
  REQUIRE(Scales::needed_a(ScaleMode::Block, m, k) == 3 * m);
  REQUIRE(Scales::needed_b(ScaleMode::Block, n, k) == 2 * 3);
  std::vector<E4M3> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(n) * k);
  for (auto& x : a) x = random_fp8<E4M3>();
  for (auto& x : b) x = random_fp8<E4M3>();
  const std::vector<bf16> ones(static_cast<size_t>(m) * n, gemm::detail::convert<bf16>(1.0));
  const std::vector<float> scale_ones(std::max(3 * m, n) + 1, 1.0f);  // what any mode reads, and one more
  DeviceBuffer<E4M3> da(a.size()), db(b.size());
  DeviceBuffer<bf16> dc(ones.size());
  DeviceBuffer<float> sa(scale_ones.size()), sb(scale_ones.size());
  gemm_test::upload(da, a);
  gemm_test::upload(db, b);
  gemm_test::upload(dc, ones);
  gemm_test::upload(sa, scale_ones);
  gemm_test::upload(sb, scale_ones);
  const cudaStream_t stream = nullptr;
  const auto call = [&](const Scales& s) {
    return gemm::gemm<E4M3, P>(Op::N, Op::T, m, n, k, 1.0f, da.ptr, k, db.ptr, k, 0.5f, dc.ptr, n, s, stream);
  };
  const float* pa = sa.ptr;
  const float* pb = sb.ptr;
  const auto off_by_2_bytes = [](const float* p) {
    return reinterpret_cast<const float*>(reinterpret_cast<const char*>(p) + 2);
  };
  const auto launches = gemm::kernel_launches();
  // Null pointers.
  CHECK(call(Scales::tensor(nullptr, pb)) == Status::NullPointerScale);
  CHECK(call(Scales::tensor(pa, nullptr)) == Status::NullPointerScale);
  CHECK(call(Scales::rowwise(nullptr, m, pb, n)) == Status::NullPointerScale);
  CHECK(call(Scales::block(pa, 3 * m, nullptr, 6)) == Status::NullPointerScale);
  // Not aligned to float.
  CHECK(call(Scales::tensor(off_by_2_bytes(pa), pb)) == Status::MisalignedScale);
  CHECK(call(Scales::rowwise(pa, m, off_by_2_bytes(pb), n)) == Status::MisalignedScale);
  CHECK(call(Scales::block(off_by_2_bytes(pa), 3 * m, pb, 6)) == Status::MisalignedScale);
  // Fewer floats than the mode reads: one short, or the counts of floor(k / 128) and floor(n / 128)
  // blocks (the ragged last blocks forgotten), or another mode's count.
  CHECK(call(Scales{ScaleMode::Tensor, pa, 0, pb, 1}) == Status::ScaleSizeMismatch);
  CHECK(call(Scales{ScaleMode::Tensor, pa, 1, pb, 0}) == Status::ScaleSizeMismatch);
  CHECK(call(Scales::rowwise(pa, m - 1, pb, n)) == Status::ScaleSizeMismatch);
  CHECK(call(Scales::rowwise(pa, m, pb, n - 1)) == Status::ScaleSizeMismatch);
  CHECK(call(Scales::block(pa, 2 * m, pb, 6)) == Status::ScaleSizeMismatch);
  CHECK(call(Scales::block(pa, 3 * m - 1, pb, 6)) == Status::ScaleSizeMismatch);
  CHECK(call(Scales::block(pa, 3 * m, pb, 1 * 2)) == Status::ScaleSizeMismatch);
  CHECK(call(Scales::block(pa, 3 * m, pb, 2 * 2)) == Status::ScaleSizeMismatch);
  CHECK(call(Scales::block(pa, 3 * m, pb, 5)) == Status::ScaleSizeMismatch);
  CHECK(call(Scales::block(pa, m, pb, 6)) == Status::ScaleSizeMismatch);
  // A mode that is none of ScaleMode's.
  for (int bad : {3, -1, 255}) {
    Scales s = Scales::tensor(pa, pb);
    s.mode = static_cast<ScaleMode>(bad);
    INFO("mode " << bad);
    CHECK(call(s) == Status::InvalidScaleMode);
  }
  // Promotion: 0 or a positive multiple of 128; block scales 128 only.
  for (int bad : {-128, -1, 1, 64, 100, 129, 200}) {
    INFO("promote_every(" << bad << ")");
    CHECK(call(Scales::tensor(pa, pb).promote_every(bad)) == Status::InvalidPromotion);
    CHECK(call(Scales::rowwise(pa, m, pb, n).promote_every(bad)) == Status::InvalidPromotion);
  }
  for (int bad : {0, 256, 384}) {
    INFO("block scales, promote_every(" << bad << ")");
    CHECK(call(Scales::block(pa, 3 * m, pb, 6).promote_every(bad)) == Status::InvalidPromotion);
  }
  CHECK(gemm::kernel_launches() == launches);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  std::vector<bf16> after(ones.size());
  CUDA_REQUIRE(cudaMemcpy(after.data(), dc.ptr, after.size() * sizeof(bf16), cudaMemcpyDeviceToHost));
  CHECK(std::memcmp(after.data(), ones.data(), ones.size() * sizeof(bf16)) == 0);
  // The exact counts, and more than the mode reads, are accepted, and the call runs.
  CHECK(call(Scales::block(pa, 3 * m, pb, 6)) == Status::Success);
  CHECK(call(Scales::rowwise(pa, m + 1, pb, n + 1)) == Status::Success);
  CHECK(call(Scales{ScaleMode::Tensor, pa, 2, pb, 2}) == Status::Success);
  CHECK(call(Scales::tensor(pa, pb).promote_every(0)) == Status::Success);
  CHECK(call(Scales::rowwise(pa, m, pb, n).promote_every(384)) == Status::Success);
  CHECK(call(Scales::block(pa, 3 * m, pb, 6).promote_every(128)) == Status::Success);
  CHECK(gemm::kernel_launches() > launches);
  CUDA_REQUIRE(cudaGetLastError());
  CUDA_REQUIRE(cudaDeviceSynchronize());
}

TEMPLATE_TEST_CASE("FP8 on a GPU other than sm_90: UnsupportedArchitecture, nothing launched", "[gpu][fp8]", Tuned, Fp8) {
  if (gemm_test::is_sm90()) {
    SUCCEED("sm_90: FP8 runs here (the other FP8 tests check it)");
    return;
  }
  constexpr int m = 64, n = 64, k = 64;
  std::vector<E4M3> ab(static_cast<size_t>(m) * k);
  for (auto& x : ab) x = random_fp8<E4M3>();
  const std::vector<bf16> ones(static_cast<size_t>(m) * n, gemm::detail::convert<bf16>(1.0));
  DeviceBuffer<E4M3> a(ab.size()), b(ab.size());
  DeviceBuffer<bf16> c(ones.size());
  DeviceBuffer<float> scales(2);
  const std::vector<float> two_ones(2, 1.0f);
  gemm_test::upload(a, ab);
  gemm_test::upload(b, ab);
  gemm_test::upload(c, ones);
  gemm_test::upload(scales, two_ones);
  const cudaStream_t stream = nullptr;
  const auto launches = gemm::kernel_launches();
  CHECK(gemm::gemm<E4M3, TestType>(Op::N, Op::T, m, n, k, 1.0f, a.ptr, k, b.ptr, k, 0.0f, c.ptr, n,
                                   Scales::tensor(scales.ptr, scales.ptr + 1), stream) ==
        Status::UnsupportedArchitecture);
  CHECK(gemm::gemm<E4M3, TestType>(Op::N, Op::T, m, n, k, 1.0f, a.ptr, k, b.ptr, k, 0.0f, c.ptr, n, stream) ==
        Status::UnsupportedArchitecture);
  CHECK(gemm::kernel_launches() == launches);
  std::vector<bf16> after(ones.size());
  CUDA_REQUIRE(cudaMemcpy(after.data(), c.ptr, after.size() * sizeof(bf16), cudaMemcpyDeviceToHost));
  CHECK(std::memcmp(after.data(), ones.data(), ones.size() * sizeof(bf16)) == 0);
}

// A composition that turns the call around (Tuned's for a few tokens with tensor or row scales) would
// put block scales' 1 x 128 blocks along its tiles' narrow side: refused (UnsupportedScales), nothing
// launched, C and amax untouched; tensor and row scales give what Tuned gives.
TEST_CASE("FP8 on a turned-around composition: tensor and row scales as Tuned's; block scales refused",
          "[gpu][fp8][scales][validation]") {
  if (!fp8_runs_here()) return;
  using Turned = Tuned::HopperTurned;
  const Case c = Case{24, 500, 300, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T);
  for (ScaleMode mode : {ScaleMode::Tensor, ScaleMode::Rowwise}) {
    INFO(gemm::to_string(mode) << " scales");
    Problem<E4M3, bf16> p(c, mode, ScaleValues::Random);
    REQUIRE(p.call<Turned>(p.scales()) == Status::Success);
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const std::vector<bf16> turned = p.result();
    p.check(turned);
    p.reset_c();
    REQUIRE(p.call<Tuned>(p.scales()) == Status::Success);
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const std::vector<bf16> tuned = p.result();
    CHECK(std::memcmp(turned.data(), tuned.data(), tuned.size() * sizeof(bf16)) == 0);  // (Tuned's choice here)
  }
  Problem<E4M3, bf16> p(c, ScaleMode::Block, ScaleValues::Random);
  DeviceBuffer<float> amax(1);
  const float poison = 12345.0f;
  CUDA_REQUIRE(cudaMemcpy(amax.ptr, &poison, sizeof(float), cudaMemcpyHostToDevice));
  const auto launches = gemm::kernel_launches();
  CHECK(p.call<Turned>(p.scales().output(nullptr, amax.ptr)) == Status::UnsupportedScales);
  CHECK(gemm::plan<E4M3, Turned>(c.op_a, c.op_b, c.m, c.n, c.k, 1.0f, p.da.ptr, c.lda(), p.db.ptr, c.ldb(), 0.0f,
                                 p.dc.ptr, c.ldc(), p.scales())
            .status == Status::UnsupportedScales);
  CHECK(gemm::kernel_launches() == launches);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  float amax_after = 0;
  CUDA_REQUIRE(cudaMemcpy(&amax_after, amax.ptr, sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(amax_after == poison);
  const std::vector<bf16> untouched = p.result();
  CHECK(std::memcmp(untouched.data(), p.c0.data(), untouched.size() * sizeof(bf16)) == 0);
}

// The column-major entry point is the row-major core with A and B swapped, and the scales swap with
// them: gemm::blas::gemm of the transposed problem with the caller's A scales (rows of its C) and B
// scales (columns) writes, bit for bit, what the row-major call writes. Block scales would change
// shape in the swap: refused (UnsupportedScales), nothing launched.
TEST_CASE("FP8 through gemm::blas: tensor and row scales swap with the operands; block scales refused",
          "[gpu][fp8][blas]") {
  if (!fp8_runs_here()) return;
  // (k = 300: three k blocks, rows 16-byte ragged; Tuned copies them aligned.)
  const Case c = Case{200, 136, 300, -0.5, 0.25, 0, 4, 0}.with_ops(Op::N, Op::T);
  for (ScaleMode mode : {ScaleMode::Tensor, ScaleMode::Rowwise}) {
    INFO(gemm::to_string(mode) << " scales");
    Problem<E4M3, bf16> p(c, mode, ScaleValues::Random);
    REQUIRE(p.call<Tuned>(p.scales()) == Status::Success);
    const std::vector<bf16> row_major = p.result();
    p.check(row_major);
    p.reset_c();
    const Scales s = p.scales();
    const Scales swapped{s.mode, s.b, s.b_count, s.a, s.a_count};  // the caller's A is the row-major B
    // Column-major: C^T (n x m, ldc) = op(B^T) op(A^T), B stored n x k read as k x n column-major (N)...
    const Status st = gemm::blas::gemm<E4M3>(Op::T, Op::N, c.n, c.m, c.k, static_cast<float>(c.alpha),
                                             p.db.ptr + c.offset_b, c.ldb(), p.da.ptr + c.offset_a, c.lda(),
                                             static_cast<float>(c.beta), p.dc.ptr + c.offset_c, c.ldc(), swapped);
    REQUIRE(st == Status::Success);
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const std::vector<bf16> column_major = p.result();
    CHECK(std::memcmp(column_major.data(), row_major.data(), row_major.size() * sizeof(bf16)) == 0);
  }
  Problem<E4M3, bf16> p(c, ScaleMode::Block, ScaleValues::Random);
  const auto launches = gemm::kernel_launches();
  CHECK(gemm::blas::gemm<E4M3>(Op::T, Op::N, c.n, c.m, c.k, 1.0f, p.db.ptr, c.ldb(), p.da.ptr, c.lda(), 0.0f, p.dc.ptr,
                               c.ldc(), p.scales()) == Status::UnsupportedScales);
  CHECK(gemm::kernel_launches() == launches);
  const std::vector<bf16> untouched = p.result();
  CHECK(std::memcmp(untouched.data(), p.c0.data(), untouched.size() * sizeof(bf16)) == 0);
}

// A fused epilogue on a scaled FP8 call: D = relu(alpha * op(A_deq) op(B_deq) + beta * C + bias[col]),
// checked against the fp64 reference with bias and ReLU applied, within the same bound (the bias and
// the activation add one rounding at most, and ReLU never increases a difference).
TEMPLATE_TEST_CASE("FP8 with scales and a fused epilogue (bias per column, ReLU)", "[gpu][fp8][epilogue]", Tuned, Fp8) {
  if (!fp8_runs_here()) return;
  // (16 tokens: Tuned turns the call around with tensor and row scales.)
  for (ScaleMode mode : kModes)
    for (const Case& c : {Case{260, 264, 384, 1.0, 0.5, 0, 0, 8}.with_ops(Op::N, Op::T),
                          Case{16, 264, 384, 1.0, 0.5, 0, 0, 8}.with_ops(Op::N, Op::T)}) {
      INFO(gemm::to_string(mode) << " scales, " << c.str());
      Problem<E4M3, bf16> p(c, mode, ScaleValues::Random);
      std::vector<float> bias(c.n);
      std::mt19937 rng(7);
      std::uniform_real_distribution<float> u(-4.0f, 4.0f);
      for (auto& x : bias) x = u(rng);
      DeviceBuffer<float> dbias(bias.size());
      gemm_test::upload(dbias, bias);
      DeviceBuffer<bf16> dd(static_cast<size_t>(c.m) * c.n);
      const gemm::Epilogue<bf16, gemm::act::ReLU> epi{dd.ptr, c.n, dbias.ptr, gemm::BiasKind::PerColumn};
      const Status s = gemm::gemm<E4M3, TestType>(Op::N, Op::T, c.m, c.n, c.k, static_cast<float>(c.alpha), p.da.ptr,
                                                  c.lda(), p.db.ptr, c.ldb(), static_cast<float>(c.beta), p.dc.ptr,
                                                  c.ldc(), epi, p.scales());
      REQUIRE(s == Status::Success);
      CUDA_REQUIRE(cudaDeviceSynchronize());
      std::vector<bf16> d(static_cast<size_t>(c.m) * c.n);
      CUDA_REQUIRE(cudaMemcpy(d.data(), dd.ptr, d.size() * sizeof(bf16), cudaMemcpyDeviceToHost));
      p.compute_reference();
      const Fp8ErrorModel<bf16> model;
      long long wrong = 0;
      for (int i = 0; i < c.m; ++i)
        for (int j = 0; j < c.n; ++j) {
          const size_t at = static_cast<size_t>(i) * c.n + j;
          const double want = std::max(0.0, p.ref[at] + bias[j]);
          const double beta_c = std::fabs(c.beta * gemm_test::to_double(p.c0[static_cast<size_t>(i) * c.ldc() + j]));
          const double bound = model.element(c.k, p.mag[at], beta_c + std::fabs(bias[j]), want);
          if (!(std::fabs(gemm_test::to_double(d[at]) - want) <= bound)) ++wrong;
        }
      CHECK(wrong == 0);
      // C itself is only read.
      const std::vector<bf16> c_after = p.result();
      CHECK(std::memcmp(c_after.data(), p.c0.data(), c_after.size() * sizeof(bf16)) == 0);
    }
}

// FP8 batches (without scales): Tuned's strided batch of three entries writes, bit for bit, what three
// single calls of the composition it runs (128x128 tiles) write; a layout the batch cannot read as
// stored (A stored transposed) is refused with UnsupportedBatch, nothing launched.
TEST_CASE("FP8 strided batch: each entry as its own call, bit for bit", "[gpu][fp8][batched]") {
  if (!fp8_runs_here()) return;
  constexpr int batch = 3, m = 130, n = 200, k = 272;
  const long long sa = static_cast<long long>(m) * k, sb = static_cast<long long>(n) * k, sc = static_cast<long long>(m) * n;
  std::vector<E4M3> a(batch * sa), b(batch * sb);
  for (auto& x : a) x = random_fp8<E4M3>();
  for (auto& x : b) x = random_fp8<E4M3>();
  DeviceBuffer<E4M3> da(a.size()), db(b.size());
  DeviceBuffer<bf16> batched(batch * sc), single(batch * sc);
  gemm_test::upload(da, a);
  gemm_test::upload(db, b);
  REQUIRE(gemm::gemm_strided_batched<E4M3>(Op::N, Op::T, m, n, k, 1.0f, da.ptr, k, sa, db.ptr, k, sb, 0.0f, batched.ptr,
                                           n, sc, batch) == Status::Success);
  for (int e = 0; e < batch; ++e)
    REQUIRE(gemm::gemm<E4M3, Tuned::HopperMedium>(Op::N, Op::T, m, n, k, 1.0f, da.ptr + e * sa, k, db.ptr + e * sb, k,
                                                  0.0f, single.ptr + e * sc, n) == Status::Success);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  std::vector<bf16> x(batch * sc), y(batch * sc);
  CUDA_REQUIRE(cudaMemcpy(x.data(), batched.ptr, x.size() * sizeof(bf16), cudaMemcpyDeviceToHost));
  CUDA_REQUIRE(cudaMemcpy(y.data(), single.ptr, y.size() * sizeof(bf16), cudaMemcpyDeviceToHost));
  CHECK(std::memcmp(x.data(), y.data(), x.size() * sizeof(bf16)) == 0);
  const auto launches = gemm::kernel_launches();
  CHECK(gemm::gemm_strided_batched<E4M3>(Op::T, Op::T, m, n, k, 1.0f, da.ptr, m, sa, db.ptr, k, sb, 0.0f, batched.ptr,
                                         n, sc, batch) == Status::UnsupportedBatch);
  CHECK(gemm::kernel_launches() == launches);
}

// ---------------------------------------------------------------------------------------------
// The output's scaling: a D scale, amax, FP8 C (Scales::output).

namespace {

// What C's type keeps of a result: the unit roundoff, half the smallest subnormal, the largest finite.
template <class Out>
struct OutFormat {
  static double u() {
    if constexpr (std::is_same_v<Out, E4M3>) return 0x1p-4;
    else if constexpr (std::is_same_v<Out, E5M2>) return 0x1p-3;
    else return gemm_test::unit_roundoff<Out>();
  }
  static double tiny() {
    return std::is_same_v<Out, E4M3> ? 0x1p-10 : std::is_same_v<Out, E5M2> ? 0x1p-17 : std::numeric_limits<float>::min();
  }
  static double max() { return std::is_same_v<Out, E4M3> ? 448.0 : std::is_same_v<Out, E5M2> ? 57344.0 : 3.0e38; }
  static const char* name() { return std::is_same_v<Out, E4M3> ? "e4m3" : std::is_same_v<Out, E5M2> ? "e5m2" : out_name<Out>(); }
};

// sum_p a(i, p) b(j, p) and sum_p |a(i, p) b(j, p)| for A (m x k) and B (n x k) row-major, in fp64
// (a product of two FP8 values is exact).
std::pair<double, double> fp8_dot(const std::vector<E4M3>& a, const std::vector<E4M3>& b, int k, int i, int j) {
  double dot = 0, abs = 0;
  for (int p = 0; p < k; ++p) {
    const double x = static_cast<double>(static_cast<float>(a[static_cast<size_t>(i) * k + p])) *
                     static_cast<double>(static_cast<float>(b[static_cast<size_t>(j) * k + p]));
    dot += x, abs += std::fabs(x);
  }
  return {dot, abs};
}

template <class Out>
double out_value(Out x) {
  if constexpr (gemm::is_fp8<Out>) return static_cast<double>(static_cast<float>(x));
  else return gemm_test::to_double(x);
}

// One call A (m x k, row-major) times W (n x k) with random row and column scales (or tensor ones),
// C of type Out, D scale d chosen so that the largest results pass C's largest finite value (FP8 C:
// they must saturate), and amax; C must hold Out(d * result) within the error model and C's
// rounding, and amax the largest |result|. promote_k as Scales::promote_every.
template <class Out>
void check_output_scaling(int m, int n, int k, ScaleMode mode, int promote_k) {
  INFO("C " << OutFormat<Out>::name() << ", " << m << " x " << n << " x " << k << ", " << gemm::to_string(mode)
            << " scales, promoted every " << promote_k);
  const float alpha = -0.75f;
  std::vector<E4M3> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(n) * k);
  for (auto& x : a) x = random_fp8<E4M3>();
  for (auto& x : b) x = random_fp8<E4M3>();
  const bool rows = mode == ScaleMode::Rowwise;
  std::vector<float> sa(rows ? m : 1), sb(rows ? n : 1);
  for (auto& s : sa) s = random_scale();
  for (auto& s : sb) s = random_scale();
  std::vector<double> ref(static_cast<size_t>(m) * n), mag(ref.size());
  gemm::reference::parallel_rows(m, [&](int begin, int end) {
    for (int i = begin; i < end; ++i)
      for (int j = 0; j < n; ++j) {
        const auto [dot, abs] = fp8_dot(a, b, k, i, j);
        const double s = static_cast<double>(sa[rows ? i : 0]) * sb[rows ? j : 0];
        ref[static_cast<size_t>(i) * n + j] = alpha * dot * s;
        mag[static_cast<size_t>(i) * n + j] = std::fabs(alpha) * abs * s;
      }
  });
  double largest = 0;
  for (double x : ref) largest = std::max(largest, std::fabs(x));
  // Half the results' range fits C's: the largest quarter or so saturate in FP8 C.
  const float d = static_cast<float>(std::min(2.0 * OutFormat<Out>::max() / largest, 1.0e6));
  DeviceBuffer<E4M3> da(a.size()), db(b.size());
  DeviceBuffer<float> dsa(sa.size()), dsb(sb.size()), dd(1), damax(1);
  DeviceBuffer<Out> dc(static_cast<size_t>(m) * n);
  gemm_test::upload(da, a);
  gemm_test::upload(db, b);
  gemm_test::upload(dsa, sa);
  gemm_test::upload(dsb, sb);
  gemm_test::upload(dd, std::vector<float>{d});
  gemm_test::upload(damax, std::vector<float>{1.0e30f});  // the call resets it first
  CUDA_REQUIRE(cudaMemset(dc.ptr, 0x7f, dc.count * sizeof(Out)));
  const Scales base = rows ? Scales::rowwise(dsa.ptr, m, dsb.ptr, n) : Scales::tensor(dsa.ptr, dsb.ptr);
  const Scales scales = base.promote_every(promote_k).output(dd.ptr, damax.ptr);
  REQUIRE(gemm::gemm<E4M3, Tuned>(Op::N, Op::T, m, n, k, alpha, da.ptr, k, db.ptr, k, 0.0f, dc.ptr, n, scales) ==
          Status::Success);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  std::vector<Out> c(dc.count);
  float amax = 0;
  CUDA_REQUIRE(cudaMemcpy(c.data(), dc.ptr, c.size() * sizeof(Out), cudaMemcpyDeviceToHost));
  CUDA_REQUIRE(cudaMemcpy(&amax, damax.ptr, sizeof(float), cudaMemcpyDeviceToHost));

  const Fp8ErrorModel<float> model{promote_k};
  long long wrong = 0, saturated = 0;
  double worst_s = 0;
  std::ostringstream first;
  for (size_t at = 0; at < ref.size(); ++at) {
    const double want = d * ref[at], got = out_value(c[at]);
    const double err = d * model.product(k) * mag[at];  // the sum's error, scaled by d
    worst_s = std::max(worst_s, mag[at]);
    bool ok;
    if (std::fabs(want) - err > OutFormat<Out>::max()) {  // past the largest finite value: saturates
      ++saturated;
      ok = got == (want > 0 ? OutFormat<Out>::max() : -OutFormat<Out>::max());
    } else {
      ok = std::fabs(got - want) <= err + OutFormat<Out>::u() * (std::fabs(want) + err) + OutFormat<Out>::tiny();
    }
    if (!ok) {
      if (wrong < 5) first << "  C[" << at << "] = " << got << ", expected " << want << " (d " << d << ")\n";
      ++wrong;
    }
  }
  INFO("wrong " << wrong << ", saturated " << saturated << "\n" << first.str());
  CHECK(wrong == 0);
  if constexpr (gemm::is_fp8<Out>) CHECK(saturated > 0);  // (d makes some results pass the format's range)
  CHECK(std::fabs(amax - largest) <= model.product(k) * worst_s + 1e-6 * largest);
}

}  // namespace

TEST_CASE("FP8 output: a D scale and amax, C in e4m3, e5m2 and bf16, saturating; k = 0; refusals",
          "[gpu][fp8][output]") {
  if (!fp8_runs_here()) return;
  // Ragged tiles (promoted 128x128 and 128x64), decode's tiles with k split across blocks, and the
  // 128x256 tiles of a call that never promotes.
  for (ScaleMode mode : {ScaleMode::Tensor, ScaleMode::Rowwise}) {
    check_output_scaling<E4M3>(200, 300, 1000, mode, 128);
    check_output_scaling<E5M2>(200, 300, 1000, mode, 256);
    check_output_scaling<bf16>(200, 300, 1000, mode, 128);
    check_output_scaling<E4M3>(16, 1024, gemm_test::quick() ? 1024 : 4096, mode, 128);
  }
  check_output_scaling<E4M3>(1100, 4200, 600, ScaleMode::Tensor, 0);
  check_output_scaling<float>(1100, 4200, 600, ScaleMode::Rowwise, 0);

  constexpr int m = 40, n = 72, k = 256;
  std::vector<E4M3> a(static_cast<size_t>(m) * k, E4M3(1.0f)), b(static_cast<size_t>(n) * k, E4M3(0.5f));
  DeviceBuffer<E4M3> da(a.size()), db(b.size()), dc(static_cast<size_t>(m) * n);
  DeviceBuffer<bf16> dc16(static_cast<size_t>(m) * n);
  DeviceBuffer<float> ones(2), damax(2);
  gemm_test::upload(da, a);
  gemm_test::upload(db, b);
  gemm_test::upload(ones, std::vector<float>{1.0f, 1.0f});
  const Scales s = Scales::tensor(ones.ptr, ones.ptr);
  const std::vector<E4M3> poison(dc.count, E4M3(3.0f));
  gemm_test::upload(dc, poison);
  gemm_test::upload(damax, std::vector<float>{7.0f, 7.0f});
  const auto launches = gemm::kernel_launches();
  // beta != 0 with FP8 C (with and without scales), or with a D scale or amax: refused, nothing written.
  CHECK(gemm::gemm<E4M3>(Op::N, Op::T, m, n, k, 1.0f, da.ptr, k, db.ptr, k, 1.0f, dc.ptr, n) ==
        Status::InvalidOutputScaling);
  CHECK(gemm::gemm<E4M3>(Op::N, Op::T, m, n, k, 1.0f, da.ptr, k, db.ptr, k, 0.5f, dc.ptr, n, s) ==
        Status::InvalidOutputScaling);
  CHECK(gemm::gemm<E4M3>(Op::N, Op::T, m, n, k, 1.0f, da.ptr, k, db.ptr, k, 0.5f, dc16.ptr, n,
                         s.output(nullptr, damax.ptr)) == Status::InvalidOutputScaling);
  CHECK(gemm::gemm<E4M3>(Op::N, Op::T, m, n, k, 1.0f, da.ptr, k, db.ptr, k, 0.5f, dc16.ptr, n,
                         s.output(ones.ptr, nullptr)) == Status::InvalidOutputScaling);
  // D scale or amax not aligned to float.
  const auto off = [](float* p) { return reinterpret_cast<float*>(reinterpret_cast<char*>(p) + 2); };
  CHECK(gemm::gemm<E4M3>(Op::N, Op::T, m, n, k, 1.0f, da.ptr, k, db.ptr, k, 0.0f, dc.ptr, n,
                         s.output(off(ones.ptr), nullptr)) == Status::MisalignedScale);
  CHECK(gemm::gemm<E4M3>(Op::N, Op::T, m, n, k, 1.0f, da.ptr, k, db.ptr, k, 0.0f, dc.ptr, n,
                         s.output(nullptr, off(damax.ptr))) == Status::MisalignedScale);
  CHECK(gemm::kernel_launches() == launches);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  std::vector<E4M3> after(dc.count);
  std::vector<float> amax(2);
  CUDA_REQUIRE(cudaMemcpy(after.data(), dc.ptr, after.size(), cudaMemcpyDeviceToHost));
  CUDA_REQUIRE(cudaMemcpy(amax.data(), damax.ptr, 2 * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(std::memcmp(after.data(), poison.data(), after.size()) == 0);
  CHECK(amax[0] == 7.0f);
  // k = 0: C = 0 (beta = 0 over the poison), amax 0; the FP8 C call without scales stores the product as is.
  REQUIRE(gemm::gemm<E4M3>(Op::N, Op::T, m, n, 0, 1.0f, da.ptr, k, db.ptr, k, 0.0f, dc.ptr, n,
                           s.output(ones.ptr, damax.ptr)) == Status::Success);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  CUDA_REQUIRE(cudaMemcpy(after.data(), dc.ptr, after.size(), cudaMemcpyDeviceToHost));
  CUDA_REQUIRE(cudaMemcpy(amax.data(), damax.ptr, sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(amax[0] == 0.0f);
  long long nonzero = 0;
  for (E4M3 x : after) nonzero += static_cast<float>(x) != 0.0f;
  CHECK(nonzero == 0);
  REQUIRE(gemm::gemm<E4M3>(Op::N, Op::T, m, n, k, 1.0f, da.ptr, k, db.ptr, k, 0.0f, dc.ptr, n) == Status::Success);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  CUDA_REQUIRE(cudaMemcpy(after.data(), dc.ptr, after.size(), cudaMemcpyDeviceToHost));
  long long off_value = 0;  // 256 x 1 x 0.5 = 128, exact in e4m3
  for (E4M3 x : after) off_value += static_cast<float>(x) != 128.0f;
  CHECK(off_value == 0);
}

// FP8 C through a fused epilogue (bias per column, ReLU) with a D scale and amax: C =
// Out(d * relu(alpha * product + bias[j])), amax = the largest relu(...) (the epilogue before the D
// scale), over ragged tiles.
TEST_CASE("FP8 output through a fused epilogue: bias, ReLU, D scale, amax, e4m3 C; k = 0 (the bias alone)",
          "[gpu][fp8][output]") {
  if (!fp8_runs_here()) return;
  for (const int k : {1000, 0}) {
  INFO("k = " << k);
  constexpr int m = 200, n = 300;
  const float alpha = 0.5f;
  std::vector<E4M3> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(n) * k);
  for (auto& x : a) x = random_fp8<E4M3>();
  for (auto& x : b) x = random_fp8<E4M3>();
  std::vector<float> bias(n);
  for (int j = 0; j < n; ++j) bias[j] = static_cast<float>(j % 7) - 3.0f;
  std::vector<double> want(static_cast<size_t>(m) * n), mag(want.size());
  gemm::reference::parallel_rows(m, [&](int begin, int end) {
    for (int i = begin; i < end; ++i)
      for (int j = 0; j < n; ++j) {
        const auto [dot, abs] = fp8_dot(a, b, k, i, j);
        want[static_cast<size_t>(i) * n + j] = std::max(0.0, alpha * dot + bias[j]);
        mag[static_cast<size_t>(i) * n + j] = alpha * abs;
      }
  });
  double largest = 0;
  for (double x : want) largest = std::max(largest, x);
  const float d = static_cast<float>(300.0 / largest);  // the largest results land near e4m3's top
  DeviceBuffer<E4M3> da(a.size()), db(b.size()), dc(want.size());
  DeviceBuffer<float> dbias(n), ones(1), dd(1), damax(1);
  gemm_test::upload(da, a);
  gemm_test::upload(db, b);
  gemm_test::upload(dbias, bias);
  gemm_test::upload(ones, std::vector<float>{1.0f});
  gemm_test::upload(dd, std::vector<float>{d});
  gemm_test::upload(damax, std::vector<float>{-1.0f});
  const gemm::Epilogue<E4M3, gemm::act::ReLU, float> epi{dc.ptr, n, dbias.ptr, gemm::BiasKind::PerColumn};
  REQUIRE(gemm::gemm<E4M3>(Op::N, Op::T, m, n, k, alpha, da.ptr, std::max(k, 1), db.ptr, std::max(k, 1), 0.0f,
                           nullptr, n, epi, Scales::tensor(ones.ptr, ones.ptr).output(dd.ptr, damax.ptr)) ==
          Status::Success);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  std::vector<E4M3> c(want.size());
  float amax = 0;
  CUDA_REQUIRE(cudaMemcpy(c.data(), dc.ptr, c.size(), cudaMemcpyDeviceToHost));
  CUDA_REQUIRE(cudaMemcpy(&amax, damax.ptr, sizeof(float), cudaMemcpyDeviceToHost));
  const Fp8ErrorModel<float> model;
  long long wrong = 0, zeros = 0;
  double worst_s = 0;
  for (size_t at = 0; at < want.size(); ++at) {
    const double err = model.product(k) * mag[at] + 1e-6;
    const double got = static_cast<float>(c[at]), w = d * want[at];
    worst_s = std::max(worst_s, mag[at]);
    zeros += want[at] == 0.0;
    if (!(std::fabs(got - w) <= d * err + 0x1p-4 * (w + d * err) + 0x1p-10)) ++wrong;
  }
  INFO("wrong " << wrong << " of " << want.size() << ", zeros (ReLU) " << zeros << ", amax " << amax << " against "
                << largest);
  CHECK(wrong == 0);
  CHECK(zeros > 0);
  CHECK(std::fabs(amax - largest) <= model.product(k) * worst_s + 1e-6 * largest);
  }
}
