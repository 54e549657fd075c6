// GPU correctness of FP8 grouped GEMM (grouped.cuh with gemm::Scales; sm_90): every group's rows
// against an fp64 reference of the dequantized operands, with fp8_test's error model (check.cuh:
// Fp8ErrorModel); contiguous and masked forms, every scale mode in the grouped layouts (A's scales
// over all of A's rows, B's one weight's worth per group), e4m3 and e5m2, C in bf16 and float. Empty
// groups, groups of one row, ragged n and k (k ending inside a 128-deep scale block), alpha and beta
// (beta 0 over NaN), many groups; the call without scales as every scale 1; a D scale and amax over
// all groups. Nothing outside the groups' rows is written. Refused before any launch, C untouched: B
// stored k x n, scale buffers too small, null scales, promotion other than every 128 k, output scaling
// or FP8 C with beta != 0. Offsets out of range: clamped (scales read inside their buffers: run it
// under compute-sanitizer memcheck), reported by gemm::grouped_status.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>
#include <cuda_fp8.h>
#include "check.cuh"

namespace gemm_test {
namespace {

using gemm::Op;
using gemm::ScaleMode;
using gemm::Scales;
using gemm::Status;
using E4M3 = __nv_fp8_e4m3;
using E5M2 = __nv_fp8_e5m2;
using bf16 = __nv_bfloat16;

enum class Form { Contiguous, Masked };

bool fp8_grouped_runs_here() {
  if (is_sm90()) return true;
  WARN("SKIPPED: FP8 grouped GEMM runs on sm_90 only (grouped_test checks the refusal elsewhere)");
  return false;
}

// FP8 rows TMA can read: whole 16 bytes.
int row16(int len) { return (std::max(1, len) + 15) / 16 * 16; }

// Random FP8 values, never zero, exact in both formats: a sign, an exponent in [-3, 0], a mantissa.
template <class T>
T random_fp8() {
  constexpr int kMantissas = std::is_same_v<T, E4M3> ? 8 : 4;
  std::uniform_int_distribution<int> mantissa(0, kMantissas - 1), exponent(-3, 0), sign(0, 1);
  auto& g = rng();
  const float v = std::ldexp(1.0f + static_cast<float>(mantissa(g)) / kMantissas, exponent(g));
  return T(sign(g) ? -v : v);
}

// Scales 2^U(-4, 4), a different one for every row and block: one read from the wrong group, row or
// block moves the result far past the bound.
float random_scale() {
  std::uniform_real_distribution<double> u(-4.0, 4.0);
  return static_cast<float>(std::exp2(u(rng())));
}

struct Fp8GroupedCase {
  Form form = Form::Contiguous;
  std::vector<int> rows;  // offsets (groups + 1) or counts (groups)
  int max_rows = 0, n = 0, k = 0;
  double alpha = 1.0, beta = 0.0;
  bool scaled = true;  // false: the call without scales (every scale 1)
  ScaleMode mode = ScaleMode::Block;
  bool output = false;  // a D scale and amax (Scales::output), beta 0
  int promote_k = gemm::kScaleBlock;  // Scales::promote_every (0: never; tensor and row scales)
  bool relu_bias = false;  // a fused bias per expert (groups x n) and ReLU (gemm::GroupedEpilogue)
  int pad_c = 0;
  long long gap_c = 0;  // masked: elements between entries of C

  int groups() const {
    return form == Form::Contiguous ? std::max(0, static_cast<int>(rows.size()) - 1) : static_cast<int>(rows.size());
  }
  int lda() const { return row16(k); }
  int ldb() const { return row16(k) + 16; }
  int ldc() const { return std::max(1, n) + pad_c; }
  long long stride_a() const { return form == Form::Masked ? static_cast<long long>(max_rows) * lda() : 0; }
  long long stride_b() const { return static_cast<long long>(n) * ldb(); }
  long long stride_c() const { return form == Form::Masked ? static_cast<long long>(max_rows) * ldc() + gap_c : 0; }
  // Rows of A its scales cover: all of a contiguous A, every entry of a masked one.
  long long a_rows() const { return form == Form::Masked ? static_cast<long long>(groups()) * max_rows : max_rows; }
  long long k_blocks() const { return Scales::k_blocks(k); }
  long long scales_a() const { return Scales::needed_a(mode, static_cast<int>(a_rows()), k); }
  long long scales_b() const { return groups() * Scales::needed_b(mode, n, k); }

  std::string str() const {
    std::ostringstream s;
    s << (form == Form::Contiguous ? "contiguous" : "masked") << " groups=" << groups() << " max_rows=" << max_rows
      << " n=" << n << " k=" << k << " alpha=" << alpha << " beta=" << beta << " scales="
      << (scaled ? gemm::to_string(mode) : "none") << (output ? " +D scale, amax" : "")
      << (promote_k == 0 ? " never promoted" : "") << (relu_bias ? " +bias, ReLU" : "") << " rows=";
    for (size_t i = 0; i < rows.size() && i < 12; ++i) s << (i ? "," : "") << rows[i];
    if (rows.size() > 12) s << ",... (" << rows.size() << ")";
    return s.str();
  }
};

std::vector<int> offsets_of(const std::vector<int>& counts, int first) {
  std::vector<int> o(counts.size() + 1, first);
  for (size_t g = 0; g < counts.size(); ++g) o[g + 1] = o[g] + counts[g];
  return o;
}

Fp8GroupedCase contiguous(const std::vector<int>& counts, int before, int after, int n, int k, ScaleMode mode) {
  Fp8GroupedCase c;
  c.rows = offsets_of(counts, before);
  c.max_rows = c.rows.back() + after;
  c.n = n, c.k = k, c.mode = mode;
  return c;
}

Fp8GroupedCase masked(const std::vector<int>& counts, int max_rows, int n, int k, ScaleMode mode) {
  Fp8GroupedCase c;
  c.form = Form::Masked;
  c.rows = counts;
  c.max_rows = max_rows;
  c.n = n, c.k = k, c.mode = mode;
  c.gap_c = 3 * c.ldc() + 5;
  return c;
}

constexpr size_t kGuard = 256;

template <class T, class Out>
struct Problem {
  Fp8GroupedCase c;
  std::vector<T> a, b;
  std::vector<float> sa, sb;
  std::vector<Out> c0;
  DeviceBuffer<T> da, db;
  DeviceBuffer<float> dsa, dsb, dd, damax, dbias;
  std::vector<float> bias;  // the fused rows' bias: groups x n
  DeviceBuffer<Out> dc;
  DeviceBuffer<int> drows;
  float d_scale = 0.375f;
  bool check_outside = true;  // whether writes outside the groups' rows fail the check

  size_t c_span() const {
    if (c.form == Form::Contiguous) return static_cast<size_t>(c.max_rows) * c.ldc();
    return c.groups() == 0 ? 0 : static_cast<size_t>(c.groups() - 1) * c.stride_c() + static_cast<size_t>(c.max_rows) * c.ldc();
  }

  explicit Problem(const Fp8GroupedCase& gc)
      : c(gc),
        a(std::max<size_t>(static_cast<size_t>(gc.a_rows()) * gc.lda(), 1)),
        b(std::max<size_t>(static_cast<size_t>(gc.groups()) * gc.stride_b(), 1)),
        sa(std::max<long long>(gc.scales_a(), 1)),
        sb(std::max<long long>(gc.scales_b(), 1)),
        c0(2 * kGuard + c_span(), sentinel<Out>()),
        da(a.size()),
        db(b.size()),
        dsa(sa.size()),
        dsb(sb.size()),
        dd(1),
        damax(1),
        dbias(std::max<size_t>(static_cast<size_t>(gc.groups()) * gc.n, 1)),
        bias(dbias.count),
        dc(c0.size()),
        drows(std::max<size_t>(gc.rows.size(), 1)) {
    for (auto& x : a) x = random_fp8<T>();  // padding too: values a kernel must not read
    for (auto& x : b) x = random_fp8<T>();
    for (auto& s : sa) s = random_scale();
    for (auto& s : sb) s = random_scale();
    const int entries = c.form == Form::Contiguous ? 1 : c.groups();
    for (int g = 0; g < entries; ++g) fill_c(c0, at(g, 0), c.max_rows, c.n, c.ldc(), c.beta == 0);
    upload(da, a);
    upload(db, b);
    upload(dsa, sa);
    upload(dsb, sb);
    upload(dd, std::vector<float>{d_scale});
    upload(damax, std::vector<float>{-1.0f});
    for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(static_cast<int>(i % 11) - 5) * 0.25f;
    upload(dbias, bias);
    upload(dc, c0);
    if (!c.rows.empty()) upload(drows, c.rows);
  }

  // Element (row, 0) of group g's entry (contiguous: of C) in C's allocation.
  size_t at(int g, long long row) const {
    const size_t entry = c.form == Form::Masked ? static_cast<size_t>(g) * c.stride_c() : 0;
    return kGuard + entry + static_cast<size_t>(row) * c.ldc();
  }
  // Row r of group g as a row of A (the frame of A's scales).
  long long a_row(int g, int r) const { return c.form == Form::Masked ? static_cast<long long>(g) * c.max_rows + r : r; }

  Scales scales() const {
    Scales s;
    switch (c.mode) {
      case ScaleMode::Tensor: s = Scales::tensor(dsa.ptr, dsb.ptr); break;
      case ScaleMode::Rowwise: s = Scales::rowwise(dsa.ptr, c.scales_a(), dsb.ptr, c.scales_b()); break;
      default: s = Scales::block(dsa.ptr, c.scales_a(), dsb.ptr, c.scales_b()); break;
    }
    s.a_count = c.scales_a(), s.b_count = c.scales_b();
    s = s.promote_every(c.promote_k);
    return c.output ? s.output(dd.ptr, damax.ptr) : s;
  }

  Status call(Op op_b, const Scales& s) const {
    const float alpha = static_cast<float>(c.alpha), beta = static_cast<float>(c.beta);
    Out* C = dc.ptr + kGuard;
    if (c.form == Form::Contiguous)
      return gemm::gemm_grouped_contiguous<T>(op_b, c.groups(), c.max_rows, c.n, c.k, alpha, da.ptr, c.lda(), db.ptr,
                                              c.ldb(), c.stride_b(), beta, C, c.ldc(), drows.ptr, s);
    return gemm::gemm_grouped_masked<T>(op_b, c.groups(), c.max_rows, c.n, c.k, alpha, da.ptr, c.lda(), c.stride_a(),
                                        db.ptr, c.ldb(), c.stride_b(), beta, C, c.ldc(), c.stride_c(), drows.ptr, s);
  }
  Status call() const {
    if (c.relu_bias) {
      const float alpha = static_cast<float>(c.alpha), beta = static_cast<float>(c.beta);
      const gemm::GroupedEpilogue<gemm::act::ReLU> epi{dbias.ptr, gemm::BiasKind::PerColumn};
      Out* C = dc.ptr + kGuard;
      if (c.form == Form::Contiguous)
        return gemm::gemm_grouped_contiguous<T>(Op::T, c.groups(), c.max_rows, c.n, c.k, alpha, da.ptr, c.lda(),
                                                db.ptr, c.ldb(), c.stride_b(), beta, C, c.ldc(), drows.ptr, scales(),
                                                epi);
      return gemm::gemm_grouped_masked<T>(Op::T, c.groups(), c.max_rows, c.n, c.k, alpha, da.ptr, c.lda(),
                                          c.stride_a(), db.ptr, c.ldb(), c.stride_b(), beta, C, c.ldc(), c.stride_c(),
                                          drows.ptr, scales(), epi);
    }
    if (c.scaled) return call(Op::T, scales());
    const float alpha = static_cast<float>(c.alpha), beta = static_cast<float>(c.beta);
    Out* C = dc.ptr + kGuard;
    if (c.form == Form::Contiguous)
      return gemm::gemm_grouped_contiguous<T>(Op::T, c.groups(), c.max_rows, c.n, c.k, alpha, da.ptr, c.lda(), db.ptr,
                                              c.ldb(), c.stride_b(), beta, C, c.ldc(), drows.ptr);
    return gemm::gemm_grouped_masked<T>(Op::T, c.groups(), c.max_rows, c.n, c.k, alpha, da.ptr, c.lda(), c.stride_a(),
                                        db.ptr, c.ldb(), c.stride_b(), beta, C, c.ldc(), c.stride_c(), drows.ptr);
  }

  std::vector<Out> result() const {
    std::vector<Out> out(c0.size());
    CUDA_REQUIRE(cudaMemcpy(out.data(), dc.ptr, out.size() * sizeof(Out), cudaMemcpyDeviceToHost));
    return out;
  }
  float amax() const {
    float v = 0;
    CUDA_REQUIRE(cudaMemcpy(&v, damax.ptr, sizeof(float), cudaMemcpyDeviceToHost));
    return v;
  }

  // The scales of element (r, p) of group g's A and (p, j) of its B, in the grouped layouts.
  double scale_a(int g, int r, int p) const {
    if (!c.scaled) return 1.0;
    const long long row = a_row(g, r);
    switch (c.mode) {
      case ScaleMode::Tensor: return sa[0];
      case ScaleMode::Rowwise: return sa[row];
      default: {
        // Masked: entry g's scales are a call of max_rows rows, g ceil(k/128) max_rows floats in.
        const long long base = c.form == Form::Masked ? static_cast<long long>(g) * c.k_blocks() * c.max_rows : 0;
        const long long r_in = c.form == Form::Masked ? r : row;
        const long long ld = c.max_rows;
        return sa[base + (p / gemm::kScaleBlock) * ld + r_in];
      }
    }
  }
  double scale_b(int g, int p, int j) const {
    if (!c.scaled) return 1.0;
    const long long per = Scales::needed_b(c.mode, c.n, c.k);
    const float* s = sb.data() + g * per;
    switch (c.mode) {
      case ScaleMode::Tensor: return s[0];
      case ScaleMode::Rowwise: return s[j];
      default: return s[(j / gemm::kScaleBlock) * c.k_blocks() + p / gemm::kScaleBlock];
    }
  }
  // Group g's rows, [first, last) in its entry (contiguous: rows of C).
  std::pair<int, int> group_rows(int g) const {
    if (c.form == Form::Masked) return {0, c.rows[g]};
    return {c.rows[g], c.rows[g + 1]};
  }

  // Every element of the groups' rows against the fp64 reference of the dequantized operands (times
  // the D scale with output scaling); amax against the reference's largest magnitude; everything
  // else of C's allocation as uploaded.
  void check(const std::vector<Out>& out) const {
    const int n = c.n, k = c.k, groups = c.groups();
    const Fp8ErrorModel<Out> model{c.promote_k};
    const double d = c.output ? d_scale : 1.0;
    std::vector<char> may_write(out.size(), 0);
    long long wrong = 0, stray = 0, checked = 0;
    double err2 = 0, scale2 = 0, ref_amax = 0, amax_slack = 0;
    std::ostringstream first;
    std::vector<double> bt(static_cast<size_t>(n) * k), arow(k);
    for (int g = 0; g < groups; ++g) {
      const auto [lo, hi] = group_rows(g);
      if (lo >= hi) continue;
      const T* B = b.data() + static_cast<size_t>(g) * c.stride_b();
      for (int j = 0; j < n; ++j)
        for (int p = 0; p < k; ++p)
          bt[static_cast<size_t>(j) * k + p] =
              static_cast<double>(static_cast<float>(B[static_cast<size_t>(j) * c.ldb() + p])) * scale_b(g, p, j);
      for (int r = lo; r < hi; ++r) {
        const T* A = a.data() + static_cast<size_t>(a_row(g, r)) * c.lda();
        for (int p = 0; p < k; ++p) arow[p] = static_cast<double>(static_cast<float>(A[p])) * scale_a(g, r, p);
        std::fill_n(may_write.begin() + at(g, r), n, char(1));
        for (int j = 0; j < n; ++j) {
          const double* bj = bt.data() + static_cast<size_t>(j) * k;
          double dot = 0, mag = 0;
          for (int p = 0; p < k; ++p) {
            dot += arow[p] * bj[p];
            mag += std::fabs(arow[p] * bj[p]);
          }
          const size_t idx = at(g, r) + j;
          const double beta_c = c.beta != 0 ? std::fabs(c.beta * to_double(c0[idx])) : 0.0;
          double value = c.alpha * dot + (c.beta != 0 ? c.beta * to_double(c0[idx]) : 0.0);
          if (c.relu_bias) value = std::max(0.0, value + bias[static_cast<size_t>(g) * n + j]);
          const double want = d * value;
          const double bound = d * model.element(k, std::fabs(c.alpha) * mag, beta_c, value);
          ref_amax = std::max(ref_amax, std::fabs(value));
          amax_slack = std::max(amax_slack, model.element(k, std::fabs(c.alpha) * mag, beta_c, value));
          const double got = to_double(out[idx]), diff = std::fabs(got - want);
          err2 += diff * diff;
          scale2 += d * d * (std::fabs(c.alpha) * mag + beta_c) * (std::fabs(c.alpha) * mag + beta_c);
          ++checked;
          if (!(diff <= bound)) {  // NaN fails too
            if (wrong < 5)
              first << "  group " << g << " row " << r << " col " << j << ": " << got << ", expected " << want
                    << " (bound " << bound << ")\n";
            ++wrong;
          }
        }
      }
    }
    for (size_t i = 0; i < out.size() && check_outside; ++i)
      if (!may_write[i] && std::memcmp(&out[i], &c0[i], sizeof(Out)) != 0) {
        if (stray < 5) first << "  write outside every group's rows at element " << i << "\n";
        ++stray;
      }
    const double rel = scale2 > 0 ? std::sqrt(err2 / scale2) : std::sqrt(err2);
    INFO("checked elements: " << checked << ", wrong: " << wrong << ", stray writes: " << stray
                              << ", normwise error relative to the summed terms " << rel << " (bound "
                              << model.normwise(k) << ")\n"
                              << first.str());
    CHECK(wrong == 0);
    CHECK(stray == 0);
    CHECK(rel <= model.normwise(k));
    if (c.output) {
      const double got = amax();
      INFO("amax " << got << ", reference " << ref_amax << " (+- " << amax_slack << ")");
      CHECK(std::fabs(got - ref_amax) <= amax_slack);
    }
  }
};

template <class T, class Out>
void run_fp8_grouped(const Fp8GroupedCase& gc) {
  INFO((std::is_same_v<T, E4M3> ? "e4m3" : "e5m2") << " -> " << (std::is_same_v<Out, bf16> ? "bf16" : "float") << " "
                                                    << gc.str());
  Problem<T, Out> p(gc);
  REQUIRE(gemm::grouped_status() == Status::Success);
  const Status s = p.call();
  INFO("status: " << gemm::to_string(s));
  REQUIRE(s == Status::Success);
  CUDA_REQUIRE(cudaGetLastError());
  CUDA_REQUIRE(cudaDeviceSynchronize());
  p.check(p.result());
  CHECK(gemm::grouped_status() == Status::Success);
}

constexpr ScaleMode kModes[] = {ScaleMode::Tensor, ScaleMode::Rowwise, ScaleMode::Block};

}  // namespace
}  // namespace gemm_test

using gemm::Op;
using gemm::ScaleMode;
using gemm::Scales;
using gemm::Status;
using gemm_test::bf16;
using gemm_test::E4M3;
using gemm_test::E5M2;
using gemm_test::Fp8GroupedCase;

TEST_CASE("FP8 grouped contiguous GEMM: every scale mode, ragged groups, against the fp64 reference",
          "[gpu][grouped][fp8][contiguous]") {
  if (!gemm_test::fp8_grouped_runs_here()) return;
  for (ScaleMode mode : gemm_test::kModes) {
    // Empty groups, groups of one row, rows before the first group and after the last; n across 128,
    // k ending inside a scale block; C = NaN under beta = 0.
    Fp8GroupedCase c = gemm_test::contiguous({0, 1, 130, 0, 257, 1, 64, 0, 235}, 5, 7, 136, 200, mode);
    gemm_test::run_fp8_grouped<E4M3, bf16>(c);
    // alpha and beta, n and k past two blocks, float C.
    c = gemm_test::contiguous({77, 0, 300, 129}, 0, 0, 264, 328, mode);
    c.alpha = 0.5, c.beta = 0.75;
    gemm_test::run_fp8_grouped<E4M3, float>(c);
    // Many groups of a few rows to a few tiles, every 7th empty; padded C rows.
    std::mt19937 g(7);
    std::uniform_int_distribution<int> u(1, 200);
    std::vector<int> counts(64);
    for (int i = 0; i < 64; ++i) counts[i] = i % 7 == 6 ? 0 : u(g);
    c = gemm_test::contiguous(counts, 3, 0, 256, 512, mode);
    c.pad_c = 8;
    gemm_test::run_fp8_grouped<E4M3, bf16>(c);
    // Groups starting at every row modulo 4, the last one ending at A's last row; k of 8 scale blocks.
    c = gemm_test::contiguous({1, 130, 2, 255, 3, 0, 129, 63}, 1, 0, 264, 1000, mode);
    gemm_test::run_fp8_grouped<E4M3, bf16>(c);
  }
}

TEST_CASE("FP8 grouped masked GEMM: every scale mode, the first counts[g] rows of each entry",
          "[gpu][grouped][fp8][masked]") {
  if (!gemm_test::fp8_grouped_runs_here()) return;
  for (ScaleMode mode : gemm_test::kModes) {
    Fp8GroupedCase c = gemm_test::masked({0, 17, 64, 1, 40, 0, 63}, 64, 200, 384, mode);
    gemm_test::run_fp8_grouped<E4M3, bf16>(c);
    c = gemm_test::masked({130, 5, 0, 256}, 256, 392, 136, mode);
    c.alpha = -1.5, c.beta = 0.5;
    gemm_test::run_fp8_grouped<E4M3, float>(c);
    // Groups of a whole tile and more, k of 4 scale blocks.
    c = gemm_test::masked({0, 17, 128, 1, 131}, 132, 264, 512, mode);
    gemm_test::run_fp8_grouped<E4M3, bf16>(c);
  }
}

TEST_CASE("FP8 grouped GEMM: e5m2, the call without scales, a D scale and amax over every group",
          "[gpu][grouped][fp8][output]") {
  if (!gemm_test::fp8_grouped_runs_here()) return;
  Fp8GroupedCase c = gemm_test::contiguous({40, 0, 129, 3}, 2, 2, 136, 264, ScaleMode::Block);
  gemm_test::run_fp8_grouped<E5M2, bf16>(c);
  c.scaled = false;
  gemm_test::run_fp8_grouped<E4M3, bf16>(c);
  gemm_test::run_fp8_grouped<E5M2, float>(gemm_test::masked({9, 0, 33}, 48, 128, 144, ScaleMode::Tensor));
  for (ScaleMode mode : gemm_test::kModes) {
    c = gemm_test::contiguous({40, 0, 129, 3}, 2, 2, 136, 264, mode);
    c.output = true;
    gemm_test::run_fp8_grouped<E4M3, bf16>(c);
  }
}

TEST_CASE("FP8 grouped GEMM with scales and a fused epilogue (bias per expert, ReLU), D scale and amax; k = 0",
          "[gpu][grouped][fp8][epilogue]") {
  if (!gemm_test::fp8_grouped_runs_here()) return;
  for (const int k : {264, 0}) {
    Fp8GroupedCase c = gemm_test::contiguous({40, 0, 129, 3}, 2, 2, 136, k, ScaleMode::Block);
    c.output = c.relu_bias = true;
    gemm_test::run_fp8_grouped<E4M3, bf16>(c);
    c = gemm_test::masked({9, 0, 33}, 48, 264, k, ScaleMode::Tensor);
    c.output = c.relu_bias = true;
    gemm_test::run_fp8_grouped<E4M3, float>(c);
  }
}

TEST_CASE("FP8 grouped GEMM never promoted: tensor and row scales on 128x256 tiles (n >= 256) and 128x128",
          "[gpu][grouped][fp8][promotion]") {
  if (!gemm_test::fp8_grouped_runs_here()) return;
  for (ScaleMode mode : {ScaleMode::Tensor, ScaleMode::Rowwise}) {
    Fp8GroupedCase c = gemm_test::contiguous({0, 1, 130, 0, 257, 1, 64, 0, 235}, 5, 7, 264, 200, mode);
    c.promote_k = 0;
    gemm_test::run_fp8_grouped<E4M3, bf16>(c);
    c = gemm_test::masked({0, 17, 64, 1, 40}, 64, 392, 384, mode);
    c.promote_k = 0;
    c.alpha = 0.5, c.beta = 0.5;
    gemm_test::run_fp8_grouped<E4M3, float>(c);
    c = gemm_test::contiguous({77, 0, 300}, 0, 0, 136, 328, mode);  // n < 256: 128x128 tiles, promoted anyway
    c.promote_k = 0;
    gemm_test::run_fp8_grouped<E4M3, bf16>(c);
  }
}

TEST_CASE("FP8 grouped GEMM refuses what it cannot run before any launch, C untouched",
          "[gpu][grouped][fp8][validation]") {
  if (!gemm_test::fp8_grouped_runs_here()) return;
  Fp8GroupedCase c = gemm_test::contiguous({40, 0, 129, 3}, 0, 0, 136, 264, ScaleMode::Block);
  gemm_test::Problem<E4M3, bf16> p(c);
  const auto untouched = [&] {
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const auto out = p.result();
    CHECK(std::memcmp(out.data(), p.c0.data(), out.size() * sizeof(bf16)) == 0);
  };
  const Scales ok = p.scales();
  CHECK(p.call(Op::N, ok) == Status::UnsupportedLayout);  // B stored k x n (op_b is refused first)
  Scales s = ok;
  s.b_count -= 1;  // one weight's blocks short
  CHECK(p.call(Op::T, s) == Status::ScaleSizeMismatch);
  s = ok;
  s.a_count -= 1;
  CHECK(p.call(Op::T, s) == Status::ScaleSizeMismatch);
  s = ok;
  s.b = nullptr;
  CHECK(p.call(Op::T, s) == Status::NullPointerScale);
  Scales per_tensor = Scales::tensor(p.dsa.ptr, p.dsb.ptr);
  per_tensor.b_count = c.groups();  // one per weight
  CHECK(p.call(Op::T, per_tensor.promote_every(256)) == Status::UnsupportedPromotion);
  CHECK(p.call(Op::T, per_tensor.promote_every(512)) == Status::UnsupportedPromotion);
  CHECK(p.call(Op::T, ok.promote_every(0)) == Status::InvalidPromotion);  // block scales need 128
  Scales short_b = per_tensor;
  short_b.b_count = c.groups() - 1;
  CHECK(p.call(Op::T, short_b) == Status::ScaleSizeMismatch);
  CHECK(p.call(Op::T, Scales::rowwise(p.dsa.ptr, 1, p.dsb.ptr, 1 << 20)) == Status::ScaleSizeMismatch);
  p.c.beta = 1.0;
  CHECK(p.call(Op::T, ok.output(p.dd.ptr, p.damax.ptr)) == Status::InvalidOutputScaling);
  untouched();
  CHECK(p.call(Op::T, per_tensor) == Status::Success);  // (the same buffers, valid)
  // FP8 C is written only.
  gemm_test::Problem<E4M3, E4M3> q(c);
  q.c.beta = 0.5;
  CHECK(q.call(Op::T, q.scales()) == Status::InvalidOutputScaling);
}

TEST_CASE("FP8 grouped GEMM with offsets out of range: clamped, scales read inside their buffers, reported",
          "[gpu][grouped][fp8][range]") {
  if (!gemm_test::fp8_grouped_runs_here()) return;
  for (ScaleMode mode : gemm_test::kModes) {
    Fp8GroupedCase c = gemm_test::contiguous({}, 0, 0, 136, 200, mode);
    c.rows = {-7, 30, 90, 420};  // before row 0, and past total_rows
    c.max_rows = 300;
    INFO(c.str());
    gemm_test::Problem<E4M3, bf16> p(c);
    REQUIRE(gemm::grouped_status() == Status::Success);
    REQUIRE(p.call() == Status::Success);
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const auto out = p.result();
    // The guards around C stay as uploaded; the groups wholly in range (group 1: rows 30-89) are right.
    for (size_t i = 0; i < gemm_test::kGuard; ++i) {
      CHECK(std::memcmp(&out[i], &p.c0[i], sizeof(bf16)) == 0);
      CHECK(std::memcmp(&out[out.size() - 1 - i], &p.c0[out.size() - 1 - i], sizeof(bf16)) == 0);
    }
    Fp8GroupedCase only = c;
    only.rows = {30, 90};
    gemm_test::Problem<E4M3, bf16> one(only);
    one.a = p.a, one.b = p.b, one.sa = p.sa, one.sb = p.sb, one.c0 = p.c0;
    // (Group 1 of p is group 0 of `one` when B's and its scales are shifted by one weight.)
    one.b.assign(p.b.begin() + c.stride_b(), p.b.begin() + 2 * c.stride_b());
    const long long per = Scales::needed_b(mode, c.n, c.k);
    one.sb.assign(p.sb.begin() + per, p.sb.begin() + 2 * per);
    one.check_outside = false;  // (the clamped groups write rows 0-29 and 90-299)
    one.check(out);
    CHECK(gemm::grouped_status() == Status::InvalidGroupRows);
  }
}
