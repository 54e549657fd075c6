// GPU correctness of grouped GEMM (grouped.cuh: gemm::gemm_grouped_contiguous and
// gemm::gemm_grouped_masked, sm_90): every element of every group's rows against an fp64 host
// reference, with check.cuh's error model (fp32 accumulation over k, one rounding to C's type); bf16
// and fp16, C in the input type and in float, B stored n x k (op T) and k x n (op N), n on both sides
// of 256 (the 128x256 and the 128x128 tiles). Empty groups, groups of one row, one group, hundreds and
// thousands of groups, ragged n and k, padded rows and entries, one weight for every group (stride_b
// 0), alpha and beta (beta 0 over NaN, 1, 0.5; alpha 0), k = 0 (C = beta * C over the groups' rows).
// Nothing else is written: not the rows of C outside every group (contiguous: before offsets[0] and
// after offsets[groups]; masked: past counts[g], and between entries), not the padding, not the guards
// around C's allocation. Refused before any launch, C untouched: A or B that TMA cannot read
// (MisalignedA/B), invalid host arguments. Offsets and counts out of range on the device (negative,
// decreasing, past total_rows or max_rows): the call runs, nothing outside the buffers is written,
// the groups in range are still right, and gemm::grouped_status reports InvalidGroupRows once. A call
// captured in a CUDA graph and replayed after new offsets and counts were copied in.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>
#include "check.cuh"

namespace gemm_test {
namespace {

using gemm::Status;
using bf16 = __nv_bfloat16;
using fp16 = __half;

enum class Form { Contiguous, Masked };

bool grouped_runs_here() {
  if (is_sm90()) return true;
  WARN("SKIPPED: grouped GEMM runs on sm_90 only (elsewhere the call returns UnsupportedArchitecture, which a "
       "test of its own checks)");
  return false;
}

// A row length rounded up to whole 16 bytes (8 elements of a 16-bit type): rows TMA can read.
int row16(int len) { return (std::max(1, len) + 7) / 8 * 8; }

// One grouped call: its form, the rows on the device, sizes, scalars and storage.
struct GroupedCase {
  Form form = Form::Contiguous;
  std::vector<int> rows;  // offsets (contiguous: groups + 1) or counts (masked: groups), as copied to the device
  int max_rows = 0;       // total_rows (contiguous) or the rows of each entry (masked)
  int n = 0, k = 0;
  double alpha = 1.0, beta = 0.0;
  bool nan_in_c = false;  // C starts as NaN (with beta = 0 none may survive in the groups' rows)
  Op op_b = Op::T;
  int pad_a = 0, pad_b = 0, pad_c = 0;        // elements past a stored row (A and B: multiples of 8)
  long long gap_a = 0, gap_b = 0, gap_c = 0;  // elements between entries (A and C: masked; A and B: multiples of 8)
  bool shared_b = false;                      // stride_b = 0: one weight for every group
  int offset_c = 0;                           // C this many elements into its allocation (1: no TMA stores)
  bool null_operands = false;                 // A and B passed as null (k = 0 or alpha = 0: neither is read)

  int groups() const {
    return form == Form::Contiguous ? std::max(0, static_cast<int>(rows.size()) - 1) : static_cast<int>(rows.size());
  }
  int b_rows() const { return op_b == Op::T ? n : k; }
  int lda() const { return row16(k) + pad_a; }
  int ldb() const { return row16(op_b == Op::T ? k : n) + pad_b; }
  int ldc() const { return std::max(1, n) + pad_c; }
  long long stride_a() const { return form == Form::Masked ? static_cast<long long>(max_rows) * lda() + gap_a : 0; }
  long long stride_b() const { return shared_b ? 0 : static_cast<long long>(b_rows()) * ldb() + gap_b; }
  long long stride_c() const { return form == Form::Masked ? static_cast<long long>(max_rows) * ldc() + gap_c : 0; }

  GroupedCase with(Op b) const {
    GroupedCase c = *this;
    c.op_b = b;
    return c;
  }

  std::string str() const {
    std::ostringstream s;
    s << (form == Form::Contiguous ? "contiguous" : "masked") << " groups=" << groups()
      << (form == Form::Contiguous ? " total_rows=" : " max_rows=") << max_rows << " n=" << n << " k=" << k
      << " op(B)=" << gemm::to_string(op_b) << " alpha=" << alpha << " beta=" << beta << (nan_in_c ? " C=NaN" : "")
      << " lda=" << lda() << " ldb=" << ldb() << " ldc=" << ldc() << " strides=" << stride_a() << "," << stride_b()
      << "," << stride_c() << " C+" << offset_c << (null_operands ? " A=B=null" : "")
      << (form == Form::Contiguous ? " offsets=" : " counts=");
    for (size_t i = 0; i < rows.size() && i < 16; ++i) s << (i ? "," : "") << rows[i];
    if (rows.size() > 16) s << ",... (" << rows.size() << " in all)";
    return s.str();
  }
};

// Seeded uneven row counts in [1, most], every `empty_every`-th group empty (0: none).
std::vector<int> random_counts(int groups, int most, unsigned seed, int empty_every = 0) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> u(1, std::max(1, most));
  std::vector<int> c(groups);
  for (int i = 0; i < groups; ++i) c[i] = empty_every > 0 && i % empty_every == empty_every - 1 ? 0 : u(g);
  return c;
}

// The offsets of groups of these counts, the first group at row `first`.
std::vector<int> offsets_of(const std::vector<int>& counts, int first) {
  std::vector<int> o(counts.size() + 1, first);
  for (size_t g = 0; g < counts.size(); ++g) o[g + 1] = o[g] + counts[g];
  return o;
}

int sum(const std::vector<int>& v) {
  int s = 0;
  for (int x : v) s += x;
  return s;
}

// A contiguous case: `before` rows of C ahead of the first group, `after` behind the last.
GroupedCase contiguous(const std::vector<int>& counts, int before, int after, int n, int k, double alpha = 1.0,
                       double beta = 0.0) {
  GroupedCase c;
  c.form = Form::Contiguous;
  c.rows = offsets_of(counts, before);
  c.max_rows = before + sum(counts) + after;
  c.n = n, c.k = k, c.alpha = alpha, c.beta = beta;
  c.nan_in_c = beta == 0.0;
  return c;
}

GroupedCase masked(const std::vector<int>& counts, int max_rows, int n, int k, double alpha = 1.0, double beta = 0.0) {
  GroupedCase c;
  c.form = Form::Masked;
  c.rows = counts;
  c.max_rows = max_rows;
  c.n = n, c.k = k, c.alpha = alpha, c.beta = beta;
  c.nan_in_c = beta == 0.0;
  return c;
}

// Sentinel elements before and after C in its allocation: no call may change them.
constexpr size_t kGuard = 512;

// One grouped problem on the host and the device: operands, C (as uploaded, with its guards), the
// rows; its call, and the check of a result against the fp64 reference.
template <class T, class Out>
struct Problem {
  using In = gemm::storage_t<T>;
  GroupedCase c;
  std::vector<In> a, b;
  std::vector<Out> c0;  // C's allocation as uploaded: guards, padding and gaps hold the sentinel
  DeviceBuffer<In> da, db;
  DeviceBuffer<Out> dc;
  DeviceBuffer<int> drows;
  gemm::BiasKind bias_kind = gemm::BiasKind::None;  // a fused call's bias (set_bias)
  std::vector<float> bias;
  std::unique_ptr<DeviceBuffer<float>> dbias;

  static size_t a_elems(const GroupedCase& c) {
    if (c.form == Form::Contiguous) return static_cast<size_t>(c.max_rows) * c.lda();
    return c.groups() == 0 ? 0
                           : static_cast<size_t>(c.groups() - 1) * c.stride_a() +
                                 static_cast<size_t>(c.max_rows) * c.lda();
  }
  static size_t b_elems(const GroupedCase& c) {
    return c.groups() == 0 ? 0
                           : static_cast<size_t>(c.groups() - 1) * c.stride_b() +
                                 static_cast<size_t>(c.b_rows()) * c.ldb();
  }
  static size_t c_elems(const GroupedCase& c) {
    size_t span = static_cast<size_t>(c.max_rows) * c.ldc();
    if (c.form == Form::Masked) span = c.groups() == 0 ? 0 : static_cast<size_t>(c.groups() - 1) * c.stride_c() + span;
    return kGuard + c.offset_c + span + kGuard;
  }

  explicit Problem(const GroupedCase& gc)
      : c(gc),
        a(std::max<size_t>(a_elems(gc), 1)),
        b(std::max<size_t>(b_elems(gc), 1)),
        c0(c_elems(gc), sentinel<Out>()),
        da(a.size()),
        db(b.size()),
        dc(c0.size()),
        drows(std::max<size_t>(gc.rows.size(), 1)) {
    fill_random(a);  // padding and rows outside the groups too: values a kernel must not mix in
    fill_random(b);
    const int entries = c.form == Form::Contiguous ? 1 : c.groups();
    for (int g = 0; g < entries; ++g) fill_c(c0, at(g, 0), c.max_rows, c.n, c.ldc(), c.nan_in_c);
    upload(da, a);
    upload(db, b);
    upload(dc, c0);
    if (!c.rows.empty()) upload(drows, c.rows);
  }

  // Element (row, 0) of group g's entry (contiguous: of C) in C's allocation, and in A.
  size_t at(int g, long long row) const {
    const size_t entry = c.form == Form::Masked ? static_cast<size_t>(g) * c.stride_c() : 0;
    return kGuard + c.offset_c + entry + static_cast<size_t>(row) * c.ldc();
  }
  size_t a_at(int g, long long row) const {
    const size_t entry = c.form == Form::Masked ? static_cast<size_t>(g) * c.stride_a() : 0;
    return entry + static_cast<size_t>(row) * c.lda();
  }
  Out* C() const { return dc.ptr + kGuard + c.offset_c; }

  Status call(cudaStream_t stream = nullptr) const {
    using S = gemm::scalar_t<T>;
    const S alpha = static_cast<S>(c.alpha), beta = static_cast<S>(c.beta);
    const In* A = c.null_operands ? nullptr : da.ptr;
    const In* B = c.null_operands ? nullptr : db.ptr;
    if (c.form == Form::Contiguous)
      return gemm::gemm_grouped_contiguous<T>(c.op_b, c.groups(), c.max_rows, c.n, c.k, alpha, A, c.lda(), B, c.ldb(),
                                              c.stride_b(), beta, C(), c.ldc(), drows.ptr, stream);
    return gemm::gemm_grouped_masked<T>(c.op_b, c.groups(), c.max_rows, c.n, c.k, alpha, A, c.lda(), c.stride_a(), B,
                                        c.ldb(), c.stride_b(), beta, C(), c.ldc(), c.stride_c(), drows.ptr, stream);
  }

  // New offsets or counts (as many as before), copied to the device.
  void set_rows(const std::vector<int>& rows) {
    REQUIRE(rows.size() == c.rows.size());
    c.rows = rows;
    upload(drows, rows);
  }
  void reset_c() { upload(dc, c0); }

  // A fused call's bias, random in [-2, 2]: per column one vector of n per group, per row one value
  // per row of C (masked: every entry's max_rows).
  void set_bias(gemm::BiasKind kind) {
    bias_kind = kind;
    const int entries = c.form == Form::Masked ? c.groups() : 1;
    const size_t count = kind == gemm::BiasKind::PerColumn ? static_cast<size_t>(c.groups()) * c.n
                                                           : static_cast<size_t>(entries) * c.max_rows;
    bias.resize(std::max<size_t>(count, 1));
    std::uniform_real_distribution<double> u(-2, 2);
    for (auto& x : bias) x = static_cast<float>(u(rng()));
    dbias = std::make_unique<DeviceBuffer<float>>(bias.size());
    upload(*dbias, bias);
  }
  double bias_at(int g, int r, int j) const {
    if (bias_kind == gemm::BiasKind::PerColumn) return bias[static_cast<size_t>(g) * c.n + j];
    if (bias_kind == gemm::BiasKind::PerRow)
      return bias[(c.form == Form::Masked ? static_cast<size_t>(g) * c.max_rows : 0) + r];
    return 0.0;
  }

  template <class Act>
  Status call_fused(Act act, cudaStream_t stream = nullptr) const {
    using S = gemm::scalar_t<T>;
    const S alpha = static_cast<S>(c.alpha), beta = static_cast<S>(c.beta);
    const gemm::GroupedEpilogue<Act> epi{bias_kind == gemm::BiasKind::None ? nullptr : dbias->ptr, bias_kind, act};
    if (c.form == Form::Contiguous)
      return gemm::gemm_grouped_contiguous<T>(c.op_b, c.groups(), c.max_rows, c.n, c.k, alpha, da.ptr, c.lda(), db.ptr,
                                              c.ldb(), c.stride_b(), beta, C(), c.ldc(), drows.ptr, epi, stream);
    return gemm::gemm_grouped_masked<T>(c.op_b, c.groups(), c.max_rows, c.n, c.k, alpha, da.ptr, c.lda(), c.stride_a(),
                                        db.ptr, c.ldb(), c.stride_b(), beta, C(), c.ldc(), c.stride_c(), drows.ptr, epi,
                                        stream);
  }

  std::vector<Out> result() const {
    std::vector<Out> out(c0.size());
    CUDA_REQUIRE(cudaMemcpy(out.data(), dc.ptr, out.size() * sizeof(Out), cudaMemcpyDeviceToHost));
    return out;
  }

  // A and B as uploaded (a call only reads them).
  void check_operands_unchanged() const {
    std::vector<In> a1(a.size()), b1(b.size());
    CUDA_REQUIRE(cudaMemcpy(a1.data(), da.ptr, a1.size() * sizeof(In), cudaMemcpyDeviceToHost));
    CUDA_REQUIRE(cudaMemcpy(b1.data(), db.ptr, b1.size() * sizeof(In), cudaMemcpyDeviceToHost));
    CHECK(std::memcmp(a1.data(), a.data(), a.size() * sizeof(In)) == 0);
    CHECK(std::memcmp(b1.data(), b.data(), b.size() * sizeof(In)) == 0);
  }

  // Whether group g's rows are in range: 0 <= offsets[g] <= offsets[g + 1] <= total_rows, or
  // 0 <= counts[g] <= max_rows.
  bool in_range(int g) const {
    if (c.form == Form::Masked) return c.rows[g] >= 0 && c.rows[g] <= c.max_rows;
    return c.rows[g] >= 0 && c.rows[g] <= c.rows[g + 1] && c.rows[g + 1] <= c.max_rows;
  }
  // The rows group g may write, [first, last): its own where they are in range; else whatever lies
  // between its two offsets (or below its count) clamped into the buffer, however the kernels clamp.
  std::pair<int, int> reach(int g) const {
    const auto clamp = [&](long long v) {
      return static_cast<int>(std::min<long long>(std::max<long long>(v, 0), c.max_rows));
    };
    if (c.form == Form::Masked) return {0, clamp(c.rows[g])};
    const long long b = c.rows[g], e = c.rows[g + 1];
    return {clamp(std::min(b, e)), clamp(std::max(b, e))};
  }
  // Groups in range whose rows no other group may write: their values are checked (all groups,
  // when every group is in range).
  bool checked(int g) const {
    if (!in_range(g)) return false;
    if (c.form == Form::Masked) return true;
    const auto [lo, hi] = reach(g);
    if (lo >= hi) return true;
    for (int h = 0; h < c.groups(); ++h) {
      if (h == g) continue;
      const auto [l2, h2] = reach(h);
      if (l2 < h2 && l2 < hi && lo < h2) return false;
    }
    return true;
  }

  // Every element of the checked groups' rows against the fp64 reference (error model of
  // check.cuh); every element no group may write (rows outside the groups, padding, gaps between
  // entries, the guards) as uploaded.
  // act: a fused call's activation (after the bias), or null.
  template <class Act = gemm::act::Identity>
  void check(const std::vector<Out>& out, const Act* act = nullptr) const {
    const int groups = c.groups(), n = c.n, k = c.k;
    std::vector<char> may_write(out.size(), 0);
    std::vector<std::pair<int, int>> work;  // (group, row) of the checked rows
    for (int g = 0; g < groups; ++g) {
      const auto [lo, hi] = reach(g);
      for (int r = lo; r < hi; ++r) std::fill_n(may_write.begin() + at(g, r), n, char(1));
      if (checked(g))
        for (int r = lo; r < hi; ++r) work.emplace_back(g, r);
    }
    // op(B) of each group whose rows are checked, as n rows of k doubles.
    std::vector<std::vector<double>> bt(c.shared_b ? std::min(groups, 1) : groups);
    for (const auto& [g, r] : work) {
      std::vector<double>& t = bt[c.shared_b ? 0 : g];
      if (!t.empty()) continue;
      t.resize(static_cast<size_t>(n) * k);
      const In* B = b.data() + (c.shared_b ? 0 : static_cast<size_t>(g) * c.stride_b());
      const long long ldb = c.ldb();
      for (int j = 0; j < n; ++j)
        for (int p = 0; p < k; ++p)
          t[static_cast<size_t>(j) * k + p] = to_double(c.op_b == Op::T ? B[j * ldb + p] : B[p * ldb + j]);
    }
    // want = alpha * sum_p a b + beta * c and S = |alpha| sum_p |a b|, rows shared out over the threads.
    std::vector<double> ref(work.size() * n), mag(work.size() * n);
    const auto rows = [&](size_t begin, size_t end) {
      std::vector<double> arow(k);
      for (size_t w = begin; w < end; ++w) {
        const auto [g, r] = work[w];
        const In* A = a.data() + a_at(g, r);
        for (int p = 0; p < k; ++p) arow[p] = to_double(A[p]);
        const double* bg = bt[c.shared_b ? 0 : g].data();
        for (int j = 0; j < n; ++j) {
          const double* bj = bg + static_cast<size_t>(j) * k;
          double dot = 0, abs = 0;
          for (int p = 0; p < k; ++p) {
            const double x = arow[p] * bj[p];
            dot += x;
            abs += std::fabs(x);
          }
          const double c_in = c.beta != 0 ? c.beta * to_double(c0[at(g, r) + j]) : 0.0;
          ref[w * n + j] = c.alpha * dot + c_in;
          mag[w * n + j] = std::fabs(c.alpha) * abs;
        }
      }
    };
    // (At least 8 rows a thread: a few rows are not worth a thread's start.)
    const int most = static_cast<int>(std::min<size_t>(work.size() / 8 + 1, std::max(1u, std::thread::hardware_concurrency())));
    gemm::reference::parallel_rows(static_cast<long long>(work.size()), rows, most);

    const ErrorModel<T, Out> model;
    long long wrong = 0, stray = 0;
    double err2 = 0, scale2 = 0;
    std::ostringstream first;
    for (size_t w = 0; w < work.size(); ++w) {
      const auto [g, r] = work[w];
      for (int j = 0; j < n; ++j) {
        const size_t idx = at(g, r) + j;
        const double beta_c = c.beta != 0 ? std::fabs(c.beta * to_double(c0[idx])) : 0.0;
        double want = ref[w * n + j], bound = model.element(k, mag[w * n + j], beta_c, want);
        double terms = mag[w * n + j] + beta_c;  // (the size of what is summed, for the normwise error)
        if (act != nullptr) {  // epilogue_check.cuh's bound: the activation's slope, its own roundings
          const double b_v = bias_at(g, r, j), pre = want + b_v;
          terms += std::fabs(b_v);
          want = gemm::detail::activate(*act, pre, r, j);
          bound = 1.2 * model.element(k, mag[w * n + j], beta_c + std::fabs(b_v), pre) +
                  16 * model.u_acc * (std::fabs(pre) + std::fabs(want)) + 2 * model.u_out * std::fabs(want) +
                  model.tiny_out;
        }
        const double got = to_double(out[idx]);
        const double diff = std::fabs(got - want);
        err2 += diff * diff;
        scale2 += terms * terms;
        if (!(diff <= bound)) {  // NaN fails too
          if (wrong < 5)
            first << "  group " << g << " row " << r << " col " << j << ": " << got << ", expected " << want
                  << " (bound " << bound << ")\n";
          ++wrong;
        }
      }
    }
    for (size_t i = 0; i < out.size(); ++i)
      if (!may_write[i] && std::memcmp(&out[i], &c0[i], sizeof(Out)) != 0) {
        if (stray < 5) {
          first << "  write outside every group's rows at element " << i;
          if (i < kGuard + c.offset_c) first << " (before C)";
          else if (i >= out.size() - kGuard) first << " (after C)";
          else {
            const size_t e = i - kGuard - c.offset_c;
            if (c.form == Form::Masked)
              first << " (entry " << e / c.stride_c() << ", row " << e % c.stride_c() / c.ldc() << ", col "
                    << e % c.stride_c() % c.ldc() << ")";
            else
              first << " (row " << e / c.ldc() << ", col " << e % c.ldc() << ")";
          }
          first << "\n";
        }
        ++stray;
      }
    const double rel_to_terms = scale2 > 0 ? std::sqrt(err2 / scale2) : std::sqrt(err2);
    INFO("checked rows: " << work.size() << ", wrong elements: " << wrong << ", stray writes: " << stray
                          << ", normwise error relative to the summed terms " << rel_to_terms << " (bound "
                          << model.normwise(k) << ")\n"
                          << first.str());
    CHECK(wrong == 0);
    CHECK(stray == 0);
    CHECK(rel_to_terms <= model.normwise(k));
  }
};

// Calls the case (no flag left over from an earlier call) and checks its result.
template <class T, class Out>
void call_and_check(Problem<T, Out>& p) {
  REQUIRE(gemm::grouped_status() == Status::Success);
  const Status s = p.call();
  INFO("status: " << gemm::to_string(s));
  REQUIRE(s == Status::Success);
  CUDA_REQUIRE(cudaGetLastError());
  CUDA_REQUIRE(cudaDeviceSynchronize());
  p.check(p.result());
}

// Runs a case whose rows are all in range and checks the result; the call raises no flag.
template <class T, class Out>
void run_grouped(const GroupedCase& gc) {
  const char* type = gemm::type_name<T, Out>();
  INFO(type << " " << gc.str());
  Problem<T, Out> p(gc);
  call_and_check(p);
  CHECK(gemm::grouped_status() == Status::Success);
}

// bf16 and fp16, C in the input type and in float, B stored both ways (under the sanitizers: two of
// the four type pairs, B stored n x k).
void run_every_type(const GroupedCase& gc) {
  for (Op ob : {Op::T, Op::N}) {
    const GroupedCase c = gc.with(ob);
    run_grouped<bf16, bf16>(c);
    run_grouped<fp16, float>(c);
    if (quick()) return;
    run_grouped<bf16, float>(c);
    run_grouped<fp16, fp16>(c);
  }
}

// Runs a case whose rows are out of range on the device: the call succeeds, writes nothing outside
// the rows the groups may reach (clamped) and nothing outside C, reads A and B only; the groups in
// range whose rows no other group reaches are right; grouped_status reports it once.
template <class T, class Out>
void run_out_of_range(const GroupedCase& gc) {
  const char* type = gemm::type_name<T, Out>();
  INFO(type << " " << gc.str());
  Problem<T, Out> p(gc);
  call_and_check(p);
  p.check_operands_unchanged();
  CHECK(gemm::grouped_status() == Status::InvalidGroupRows);
  CHECK(gemm::grouped_status() == Status::Success);  // reported once, then cleared
}

// Offsets and counts out of range: negative, decreasing, past total_rows or max_rows, the int
// extremes; with groups in range beside them.
std::vector<GroupedCase> out_of_range_cases(int k, double beta) {
  std::vector<GroupedCase> cases;
  const auto add_contiguous = [&](std::vector<int> offsets, int total, int n) {
    GroupedCase c = contiguous({}, 0, 0, n, k, 1.0, beta);
    c.rows = std::move(offsets);
    c.max_rows = total;
    cases.push_back(c);
  };
  add_contiguous({-7, 30, 90, 300}, 300, 136);              // the first group starts before row 0
  add_contiguous({0, 60, 40, 120, 300}, 300, 264);          // decreasing: group 1 ends before it starts
  add_contiguous({0, 50, 120, 420}, 300, 136);              // the last group ends past total_rows
  add_contiguous({10, 350, 400, 500}, 300, 264);            // groups wholly past total_rows; rows 0-9 in none
  add_contiguous({INT_MIN, 20, 20, INT_MAX}, 300, 136);     // the int extremes
  add_contiguous({5, 100, -50, 200, 290}, 300, 264);        // a negative offset inside; rows 290-299 in none
  GroupedCase m = masked({-3, 45, 40, INT_MAX, INT_MIN, 17}, 40, 136, k, 1.0, beta);
  m.gap_c = 2 * m.ldc() + 3;  // rows between the entries, which a count past max_rows would reach
  cases.push_back(m);
  GroupedCase m2 = masked({0, 1000, -1, 64}, 64, 264, k, 1.0, beta);
  cases.push_back(m2);
  return cases;
}

}  // namespace
}  // namespace gemm_test

using gemm::Op;
using gemm::Status;
using gemm_test::bf16;
using gemm_test::DeviceBuffer;
using gemm_test::GroupedCase;
using gemm_test::fp16;
using gemm_test::Problem;

TEST_CASE("Grouped contiguous GEMM: every group's rows against the fp64 reference, nothing else written",
          "[gpu][grouped][contiguous]") {
  if (!gemm_test::grouped_runs_here()) return;
  using gemm_test::contiguous;
  using gemm_test::random_counts;
  std::vector<GroupedCase> cases;
  // Empty groups, groups of one row, ragged group sizes starting anywhere; rows of C before the first
  // group and after the last; n < 256 (128x128 tiles), C = NaN under beta = 0.
  cases.push_back(contiguous({0, 1, 130, 0, 257, 1, 64, 0, 235}, 5, 7, 136, 200));
  // n >= 256 (128x256 tiles), ragged n and k, padded rows, C one element into its allocation (the
  // consumers store it, not TMA), odd ldc, alpha and beta.
  GroupedCase padded = contiguous({129, 0, 384, 1, 77}, 0, 3, 300, 72, -1.25, 0.5);
  padded.pad_a = 8, padded.pad_b = 16, padded.pad_c = 3, padded.offset_c = 1, padded.gap_b = 8;
  cases.push_back(padded);
  cases.push_back(contiguous({333}, 0, 0, 264, 520, 0.5, 1.0));  // a single group, beta = 1
  // Hundreds of small groups (every fifth empty), and more groups than the tile counter's threads.
  cases.push_back(contiguous(random_counts(300, 9, 7, 5), 2, 4, 72, 40));
  cases.push_back(contiguous(random_counts(2000, 3, 11, 3), 0, 1, 24, 16, 1.0, 0.5));
  // One weight for every group (stride_b = 0), n at the 256 boundary.
  GroupedCase shared = contiguous({40, 0, 200, 17}, 1, 0, 256, 128);
  shared.shared_b = true;
  cases.push_back(shared);
  cases.push_back(contiguous({300, 5}, 0, 2, 136, 1032, 1.0, 0.5));  // a long ragged k
  cases.push_back(contiguous({0, 0, 0}, 10, 54, 136, 64));           // every group empty: nothing written
  cases.push_back(contiguous({100, 0, 50}, 3, 7, 264, 64, 0.0, 0.5));   // alpha = 0: C = beta * C
  cases.push_back(contiguous({100, 0, 50}, 3, 7, 136, 64, 0.0, 0.0));   // alpha = 0, beta = 0 over NaN: zeros
  for (const GroupedCase& c : cases) gemm_test::run_every_type(c);
}

// The blocks claim their tiles from a counter as they finish the ones before (sm90/scheduler.cuh), so
// which block computes a tile changes from call to call; each tile's sums do not.
TEST_CASE("Grouped GEMM: the same bits on every call, whichever blocks claim the tiles", "[gpu][grouped][repeat]") {
  if (!gemm_test::grouped_runs_here()) return;
  // Groups of 1 to 300 rows (every ninth empty): tiles of very different cost, several per block.
  const GroupedCase c = gemm_test::contiguous(gemm_test::random_counts(gemm_test::quick() ? 40 : 120, 300, 17, 9), 3,
                                              5, 520, 264);
  const auto repeat = [&](auto tag) {
    using Out = decltype(tag);
    const char* type = gemm::type_name<bf16, Out>();
    INFO(type << " " << c.str());
    Problem<bf16, Out> p(c);
    gemm_test::call_and_check(p);
    const std::vector<Out> first = p.result();
    for (int i = 0; i < 4; ++i) {
      p.reset_c();
      REQUIRE(p.call() == Status::Success);
      CUDA_REQUIRE(cudaDeviceSynchronize());
      const std::vector<Out> again = p.result();
      CHECK(std::memcmp(again.data(), first.data(), first.size() * sizeof(Out)) == 0);
    }
  };
  repeat(bf16{});
  repeat(float{});
}

TEST_CASE("Grouped masked GEMM: the first counts[g] rows of every entry against the fp64 reference, nothing else "
          "written",
          "[gpu][grouped][masked]") {
  if (!gemm_test::grouped_runs_here()) return;
  using gemm_test::masked;
  using gemm_test::random_counts;
  std::vector<GroupedCase> cases;
  // Full, empty, one-row and ragged entries; gaps between the entries of A and C.
  GroupedCase gaps = masked({150, 0, 1, 77, 129, 3}, 150, 136, 200);
  gaps.gap_a = 16, gaps.gap_c = 5;
  cases.push_back(gaps);
  // Decode: 40 experts of up to 32 tokens (every fourth empty), n >= 256 ragged, alpha and beta.
  GroupedCase decode = masked(random_counts(40, 32, 3, 4), 32, 300, 72, -1.25, 0.5);
  decode.pad_c = 3;
  cases.push_back(decode);
  cases.push_back(masked(random_counts(50, 1, 5, 2), 1, 264, 136, 1.0, 1.0));  // entries of one row, beta = 1
  GroupedCase many = masked(random_counts(300, 8, 13, 6), 8, 72, 40);          // hundreds of entries
  many.offset_c = 1;
  cases.push_back(many);
  cases.push_back(masked({200}, 200, 264, 520, 0.5, 0.5));  // a single full entry
  // Slots of 64 rows of which at most 32 are used, one weight for every entry.
  GroupedCase slots = masked(random_counts(20, 32, 9, 5), 64, 136, 128);
  slots.shared_b = true;
  cases.push_back(slots);
  cases.push_back(masked({10, 0, 64}, 64, 136, 64, 0.0, 0.5));  // alpha = 0: C = beta * C
  for (const GroupedCase& c : cases) gemm_test::run_every_type(c);
}

namespace gemm_test {
namespace {
// A fused call: C = act(alpha A_g op(B_g) + beta C + bias) over the groups' rows, nothing else written.
template <class T, class Out, class Act>
void run_fused_grouped(const GroupedCase& gc, gemm::BiasKind kind, Act act) {
  const char* type = gemm::type_name<T, Out>();
  INFO(type << " " << gc.str() << " bias kind " << static_cast<int>(kind));
  Problem<T, Out> p(gc);
  p.set_bias(kind);
  REQUIRE(gemm::grouped_status() == Status::Success);
  const Status s = p.call_fused(act);
  INFO("status: " << gemm::to_string(s));
  REQUIRE(s == Status::Success);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  p.check(p.result(), &act);
  CHECK(gemm::grouped_status() == Status::Success);
}
}  // namespace
}  // namespace gemm_test

TEST_CASE("Grouped GEMM with a fused epilogue: a bias per expert or per row, an activation, in place",
          "[gpu][grouped][epilogue]") {
  if (!gemm_test::grouped_runs_here()) return;
  using gemm::BiasKind;
  using gemm_test::contiguous;
  using gemm_test::masked;
  namespace act = gemm::act;
  for (double beta : {0.0, 0.5}) {
    // 128x128 tiles (n < 256) and 128x256 ones; empty groups, a group of one row; k = 0 (the bias and
    // activation of beta C alone).
    GroupedCase c = contiguous({0, 1, 130, 0, 257, 64}, 5, 7, 136, 200, 1.0, beta);
    gemm_test::run_fused_grouped<bf16, bf16>(c, BiasKind::PerColumn, act::GeluTanh{});
    gemm_test::run_fused_grouped<bf16, bf16>(c, BiasKind::PerRow, act::GeluTanh{});
    c = contiguous({40, 0, 300, 129}, 0, 3, 264, 328, 0.5, beta);
    gemm_test::run_fused_grouped<bf16, bf16>(c, BiasKind::PerColumn, act::GeluTanh{});
    gemm_test::run_fused_grouped<fp16, float>(c.with(Op::N), BiasKind::PerRow, act::ReLU{});
    GroupedCase m = masked({0, 17, 64, 1, 40}, 64, 200, 384, 1.0, beta);
    m.gap_c = 3 * m.ldc() + 5;
    gemm_test::run_fused_grouped<bf16, bf16>(m, BiasKind::PerColumn, act::GeluTanh{});
    gemm_test::run_fused_grouped<bf16, bf16>(m, BiasKind::PerRow, act::GeluTanh{});
    gemm_test::run_fused_grouped<fp16, float>(m, BiasKind::None, act::ReLU{});
    GroupedCase z = contiguous({0, 17, 3, 0, 40}, 4, 9, 136, 0, 1.0, beta);
    gemm_test::run_fused_grouped<bf16, bf16>(z, BiasKind::PerColumn, act::GeluTanh{});
    z = masked({20, 0, 5}, 20, 264, 0, 1.0, beta);
    gemm_test::run_fused_grouped<bf16, bf16>(z, BiasKind::PerRow, act::GeluTanh{});
  }
  // A bias kind without a bias, or one not aligned to its type: refused, C untouched.
  GroupedCase c = contiguous({10, 20}, 0, 0, 136, 64);
  Problem<bf16, bf16> p(c);
  p.bias_kind = BiasKind::PerColumn;  // (no buffer: the call passes null)
  p.dbias.reset();
  const gemm::GroupedEpilogue<act::ReLU> null_bias{nullptr, BiasKind::PerColumn};
  CHECK(gemm::gemm_grouped_contiguous<bf16>(Op::T, c.groups(), c.max_rows, c.n, c.k, 1.0f, p.da.ptr, c.lda(), p.db.ptr,
                                            c.ldb(), c.stride_b(), 0.0f, p.C(), c.ldc(), p.drows.ptr, null_bias) ==
        Status::NullPointerBias);
  DeviceBuffer<float> b(c.n + 1);
  const gemm::GroupedEpilogue<act::ReLU> odd_bias{reinterpret_cast<const float*>(reinterpret_cast<const char*>(b.ptr) + 2),
                                                  BiasKind::PerColumn};
  CHECK(gemm::gemm_grouped_contiguous<bf16>(Op::T, c.groups(), c.max_rows, c.n, c.k, 1.0f, p.da.ptr, c.lda(), p.db.ptr,
                                            c.ldb(), c.stride_b(), 0.0f, p.C(), c.ldc(), p.drows.ptr, odd_bias) ==
        Status::MisalignedBias);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  const auto out = p.result();
  CHECK(std::memcmp(out.data(), p.c0.data(), out.size() * sizeof(bf16)) == 0);
}

TEST_CASE("Grouped GEMM with k = 0: C = beta * C over the groups' rows only; A and B not read",
          "[gpu][grouped][k0]") {
  if (!gemm_test::grouped_runs_here()) return;
  using gemm_test::contiguous;
  using gemm_test::masked;
  for (double beta : {0.5, 0.0, 1.0}) {
    GroupedCase c = contiguous({0, 17, 3, 0, 40}, 4, 9, 136, 0, 1.0, beta);
    gemm_test::run_grouped<bf16, bf16>(c);
    gemm_test::run_grouped<fp16, float>(c.with(Op::N));
    GroupedCase m = masked({20, 0, 5}, 20, 264, 0, 1.0, beta);
    m.gap_c = 7;
    gemm_test::run_grouped<bf16, float>(m);
    gemm_test::run_grouped<fp16, fp16>(m);
    c.null_operands = m.null_operands = true;
    gemm_test::run_grouped<bf16, bf16>(c);
    gemm_test::run_grouped<bf16, bf16>(m);
  }
}

TEST_CASE("Grouped GEMM refuses A and B that TMA cannot read: MisalignedA/B, nothing launched, C untouched",
          "[gpu][grouped][validation]") {
  // (The host checks come before the device's architecture: this runs on any GPU.)
  const int groups = 4, rows = 96, n = 136, k = 72;
  const long long sa = static_cast<long long>(rows) * k, sb = static_cast<long long>(n) * k;
  const long long sc = static_cast<long long>(rows) * n;
  DeviceBuffer<bf16> a(groups * (sa + 64)), b(groups * (sb + 64)), c(groups * sc);
  DeviceBuffer<int> offsets(groups + 1);
  gemm_test::upload(offsets, std::vector<int>{0, 10, 40, 40, 96});
  const std::vector<bf16> ones(c.count, gemm::detail::convert<bf16>(1.0));
  gemm_test::upload(c, ones);
  const auto cont = [&](Op ob, const bf16* A, int lda, const bf16* B, int ldb, long long stride_b) {
    return gemm::gemm_grouped_contiguous<bf16>(ob, groups, rows, n, k, 1.0f, A, lda, B, ldb, stride_b, 0.0f, c.ptr, n,
                                               offsets.ptr);
  };
  const auto mask = [&](const bf16* A, long long stride_a, const bf16* B, int ldb, long long stride_b) {
    return gemm::gemm_grouped_masked<bf16>(Op::T, groups, rows, n, k, 1.0f, A, k, stride_a, B, ldb, stride_b, 0.0f,
                                           c.ptr, n, sc, offsets.ptr);
  };
  const auto launches = gemm::kernel_launches();
  CHECK(cont(Op::T, a.ptr + 1, k, b.ptr, k, sb) == Status::MisalignedA);      // A 2 bytes into its allocation
  CHECK(cont(Op::T, a.ptr, k + 1, b.ptr, k, sb) == Status::MisalignedA);      // rows of 146 bytes
  CHECK(cont(Op::T, a.ptr, k + 4, b.ptr, k, sb) == Status::MisalignedA);      // rows of 152 bytes
  CHECK(cont(Op::T, a.ptr, k, b.ptr + 1, k, sb) == Status::MisalignedB);
  CHECK(cont(Op::T, a.ptr, k, b.ptr, k + 4, (k + 4) * n) == Status::MisalignedB);
  CHECK(cont(Op::T, a.ptr, k, b.ptr, k, sb + 4) == Status::MisalignedB);      // weights 8 bytes off 16
  CHECK(cont(Op::N, a.ptr, k, b.ptr, n + 4, (n + 4) * k) == Status::MisalignedB);  // B stored k x n, rows of 280 bytes
  CHECK(cont(Op::T, a.ptr + 1, k, b.ptr + 1, k, sb) == Status::MisalignedA);  // both: A is checked first
  CHECK(mask(a.ptr, sa + 4, b.ptr, k, sb) == Status::MisalignedA);            // entries of A 8 bytes off 16
  CHECK(mask(a.ptr + 2, sa, b.ptr, k, sb) == Status::MisalignedA);
  CHECK(mask(a.ptr, sa, b.ptr + 3, k, sb) == Status::MisalignedB);
  CHECK(mask(a.ptr, sa, b.ptr, k, sb + 2) == Status::MisalignedB);
  CHECK(gemm::kernel_launches() == launches);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  std::vector<bf16> after(c.count);
  CUDA_REQUIRE(cudaMemcpy(after.data(), c.ptr, after.size() * sizeof(bf16), cudaMemcpyDeviceToHost));
  CHECK(std::memcmp(after.data(), ones.data(), ones.size() * sizeof(bf16)) == 0);
}

TEST_CASE("Grouped GEMM: invalid host arguments give their status before any launch, C untouched",
          "[gpu][grouped][validation]") {
  const int groups = 3, rows = 64, n = 32, k = 64;
  const long long sa = static_cast<long long>(rows) * k, sb = static_cast<long long>(n) * k;
  const long long sc = static_cast<long long>(rows) * n;
  DeviceBuffer<bf16> a(groups * sa), b(groups * sb), c(groups * sc);
  DeviceBuffer<float> cf(groups * sc + 4);
  DeviceBuffer<int> rows_d(groups + 1);
  gemm_test::upload(rows_d, std::vector<int>{0, 10, 20, 64});
  const std::vector<bf16> ones(c.count, gemm::detail::convert<bf16>(1.0));
  gemm_test::upload(c, ones);
  const int* R = rows_d.ptr;
  const auto cont = [&](int g, int total, int nn, int kk, const bf16* A, int lda, const bf16* B, int ldb,
                        long long stride_b, bf16* C, int ldc, const int* offs, Op ob = Op::T) {
    return gemm::gemm_grouped_contiguous<bf16>(ob, g, total, nn, kk, 1.0f, A, lda, B, ldb, stride_b, 0.0f, C, ldc,
                                               offs);
  };
  const auto mask = [&](int g, int max_rows, const bf16* A, long long stride_a, const bf16* B, long long stride_b,
                        bf16* C, long long stride_c, const int* counts) {
    return gemm::gemm_grouped_masked<bf16>(Op::T, g, max_rows, n, k, 1.0f, A, k, stride_a, B, k, stride_b, 0.0f, C,
                                           n, stride_c, counts);
  };
  const auto launches = gemm::kernel_launches();
  // Sizes.
  CHECK(cont(-1, rows, n, k, a.ptr, k, b.ptr, k, sb, c.ptr, n, R) == Status::InvalidBatchCount);
  CHECK(cont(groups, -1, n, k, a.ptr, k, b.ptr, k, sb, c.ptr, n, R) == Status::InvalidSize);
  CHECK(cont(groups, rows, -1, k, a.ptr, k, b.ptr, k, sb, c.ptr, n, R) == Status::InvalidSize);
  CHECK(cont(groups, rows, n, -1, a.ptr, k, b.ptr, k, sb, c.ptr, n, R) == Status::InvalidSize);
  CHECK(mask(-2, rows, a.ptr, sa, b.ptr, sb, c.ptr, sc, R) == Status::InvalidBatchCount);
  CHECK(mask(groups, -1, a.ptr, sa, b.ptr, sb, c.ptr, sc, R) == Status::InvalidSize);
  // Leading dimensions: A's rows hold k, B's k (stored n x k) or n (stored k x n), C's n.
  CHECK(cont(groups, rows, n, k, a.ptr, k - 8, b.ptr, k, sb, c.ptr, n, R) == Status::InvalidLeadingDimensionA);
  CHECK(cont(groups, rows, n, k, a.ptr, k, b.ptr, k - 8, sb, c.ptr, n, R) == Status::InvalidLeadingDimensionB);
  CHECK(cont(groups, rows, n, k, a.ptr, k, b.ptr, n - 8, sb, c.ptr, n, R, Op::N) == Status::InvalidLeadingDimensionB);
  CHECK(cont(groups, rows, n, k, a.ptr, k, b.ptr, k, sb, c.ptr, n - 1, R) == Status::InvalidLeadingDimensionC);
  // Strides: negative, or entries that overlap (weights closer than one weight).
  CHECK(cont(groups, rows, n, k, a.ptr, k, b.ptr, k, -8, c.ptr, n, R) == Status::InvalidStrideB);
  CHECK(cont(groups, rows, n, k, a.ptr, k, b.ptr, k, sb - 8, c.ptr, n, R) == Status::InvalidStrideB);
  CHECK(mask(groups, rows, a.ptr, sa - 8, b.ptr, sb, c.ptr, sc, R) == Status::InvalidStrideA);
  CHECK(mask(groups, rows, a.ptr, -8, b.ptr, sb, c.ptr, sc, R) == Status::InvalidStrideA);
  CHECK(mask(groups, rows, a.ptr, sa, b.ptr, -8, c.ptr, sc, R) == Status::InvalidStrideB);
  CHECK(mask(groups, rows, a.ptr, sa, b.ptr, sb, c.ptr, sc - 1, R) == Status::InvalidStrideC);
  CHECK(mask(groups, rows, a.ptr, sa, b.ptr, sb, c.ptr, 0, R) == Status::InvalidStrideC);
  // Null pointers: the offsets or counts, C, A, B.
  CHECK(cont(groups, rows, n, k, a.ptr, k, b.ptr, k, sb, c.ptr, n, nullptr) == Status::NullPointerGroupRows);
  CHECK(mask(groups, rows, a.ptr, sa, b.ptr, sb, c.ptr, sc, nullptr) == Status::NullPointerGroupRows);
  CHECK(cont(groups, rows, n, k, a.ptr, k, b.ptr, k, sb, nullptr, n, R) == Status::NullPointerC);
  CHECK(cont(groups, rows, n, k, nullptr, k, b.ptr, k, sb, c.ptr, n, R) == Status::NullPointerA);
  CHECK(cont(groups, rows, n, k, a.ptr, k, nullptr, k, sb, c.ptr, n, R) == Status::NullPointerB);
  CHECK(mask(groups, rows, nullptr, sa, b.ptr, sb, c.ptr, sc, R) == Status::NullPointerA);
  CHECK(mask(groups, rows, a.ptr, sa, nullptr, sb, c.ptr, sc, R) == Status::NullPointerB);
  // A float C that is not aligned to float.
  float* cf_odd = reinterpret_cast<float*>(reinterpret_cast<char*>(cf.ptr) + 2);
  CHECK(gemm::gemm_grouped_contiguous<bf16>(Op::T, groups, rows, n, k, 1.0f, a.ptr, k, b.ptr, k, sb, 0.0f, cf_odd, n,
                                            R) == Status::MisalignedC);
  CHECK(gemm::kernel_launches() == launches);
  // Nothing to do: no groups (the offsets are then not needed), no rows, n = 0.
  CHECK(cont(0, rows, n, k, a.ptr, k, b.ptr, k, sb, c.ptr, n, nullptr) == Status::Success);
  CHECK(cont(groups, 0, n, k, a.ptr, k, b.ptr, k, sb, c.ptr, n, R) == Status::Success);
  CHECK(cont(groups, rows, 0, k, a.ptr, k, b.ptr, k, sb, c.ptr, 1, R) == Status::Success);
  CHECK(mask(0, rows, a.ptr, sa, b.ptr, sb, c.ptr, sc, nullptr) == Status::Success);
  CHECK(mask(groups, 0, a.ptr, sa, b.ptr, sb, c.ptr, sc, R) == Status::Success);
  CHECK(gemm::kernel_launches() == launches);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  std::vector<bf16> after(c.count);
  CUDA_REQUIRE(cudaMemcpy(after.data(), c.ptr, after.size() * sizeof(bf16), cudaMemcpyDeviceToHost));
  CHECK(std::memcmp(after.data(), ones.data(), ones.size() * sizeof(bf16)) == 0);
}

TEST_CASE("Grouped GEMM on a GPU other than sm_90: UnsupportedArchitecture, nothing launched", "[gpu][grouped]") {
  if (gemm_test::is_sm90()) {
    SUCCEED("sm_90: grouped GEMM runs here (the other grouped tests check it)");
    return;
  }
  const int groups = 2, rows = 64, n = 64, k = 64;
  DeviceBuffer<bf16> a(rows * k), b(groups * n * k), c(groups * rows * n);
  DeviceBuffer<int> r(groups + 1);
  gemm_test::upload(r, std::vector<int>{0, 30, 64});
  const auto launches = gemm::kernel_launches();
  CHECK(gemm::gemm_grouped_contiguous<bf16>(Op::T, groups, rows, n, k, 1.0f, a.ptr, k, b.ptr, k, n * k, 0.0f, c.ptr,
                                            n, r.ptr) == Status::UnsupportedArchitecture);
  CHECK(gemm::gemm_grouped_masked<bf16>(Op::T, groups, 32, n, k, 1.0f, a.ptr, k, 32 * k, b.ptr, k, n * k, 0.0f, c.ptr,
                                        n, 32 * n, r.ptr) == Status::UnsupportedArchitecture);
  CHECK(gemm::kernel_launches() == launches);
}

TEST_CASE("Grouped GEMM with offsets and counts out of range on the device: clamped into the buffers, groups in "
          "range right, reported once",
          "[gpu][grouped][rows]") {
  if (!gemm_test::grouped_runs_here()) return;
  for (const GroupedCase& c : gemm_test::out_of_range_cases(72, 0.0)) {
    gemm_test::run_out_of_range<bf16, bf16>(c);
    gemm_test::run_out_of_range<fp16, float>(c.with(Op::N));
  }
  for (const GroupedCase& c : gemm_test::out_of_range_cases(136, 0.5)) gemm_test::run_out_of_range<bf16, float>(c);
}

TEST_CASE("Grouped GEMM with k = 0 or alpha = 0 and offsets or counts out of range: clamped, reported once",
          "[gpu][grouped][rows][k0]") {
  if (!gemm_test::grouped_runs_here()) return;
  // The call only scales C (no product) but still reads the offsets and counts on the device.
  for (const GroupedCase& c : gemm_test::out_of_range_cases(0, 0.5)) gemm_test::run_out_of_range<bf16, bf16>(c);
  for (GroupedCase c : gemm_test::out_of_range_cases(64, 0.0)) {
    c.alpha = 0.0;
    gemm_test::run_out_of_range<fp16, float>(c);
  }
}

namespace {

// Captures one call in a CUDA graph (after a first call outside it, unless `captured_first`),
// replays it, then copies other rows to the device (cudaMemcpy) and replays it again: each replay's
// C against the reference of the rows it found. Last, rows out of range: the replay is clamped and
// reported once.
void graph_replays(GroupedCase gc, const std::vector<int>& second, const std::vector<int>& bad,
                   bool captured_first = false) {
  INFO(gc.str());
  Problem<bf16, bf16> p(gc);
  cudaStream_t stream;
  CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  if (!captured_first) {
    REQUIRE(p.call(stream) == Status::Success);
    CUDA_REQUIRE(cudaStreamSynchronize(stream));
    p.check(p.result());
    REQUIRE(gemm::grouped_status(stream) == Status::Success);
    p.reset_c();
    CUDA_REQUIRE(cudaDeviceSynchronize());
  }

  cudaGraph_t graph;
  CUDA_REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  const Status captured = p.call(stream);
  CUDA_REQUIRE(cudaStreamEndCapture(stream, &graph));
  INFO("status when captured: " << gemm::to_string(captured));
  REQUIRE(captured == Status::Success);
  cudaGraphExec_t exec;
  CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
  {
    const std::vector<bf16> untouched = p.result();  // capturing ran nothing
    CHECK(std::memcmp(untouched.data(), p.c0.data(), untouched.size() * sizeof(bf16)) == 0);
  }
  CUDA_REQUIRE(cudaGraphLaunch(exec, stream));
  CUDA_REQUIRE(cudaStreamSynchronize(stream));
  {
    INFO("first replay");
    p.check(p.result());
  }
  const std::pair<std::vector<int>, Status> replays[] = {{second, Status::Success}, {bad, Status::InvalidGroupRows}};
  for (const auto& [rows, report] : replays) {
    p.set_rows(rows);
    p.reset_c();
    CUDA_REQUIRE(cudaDeviceSynchronize());  // the copies land before the replay on the other stream
    CUDA_REQUIRE(cudaGraphLaunch(exec, stream));
    CUDA_REQUIRE(cudaStreamSynchronize(stream));
    INFO("replay with " << p.c.str());
    p.check(p.result());
    CHECK(gemm::grouped_status(stream) == report);
    CHECK(gemm::grouped_status(stream) == Status::Success);
  }
  CUDA_REQUIRE(cudaGraphExecDestroy(exec));
  CUDA_REQUIRE(cudaGraphDestroy(graph));
  CUDA_REQUIRE(cudaStreamDestroy(stream));
}

}  // namespace

TEST_CASE("A grouped call captured in a CUDA graph and replayed with new offsets and counts", "[gpu][grouped][graph]") {
  if (!gemm_test::grouped_runs_here()) return;
  // Contiguous: the groups move, grow, shrink and empty between replays (rows outside them untouched).
  GroupedCase c = gemm_test::contiguous({97, 0, 150, 1, 139}, 3, 10, 264, 136);
  graph_replays(c, {20, 20, 200, 201, 380, 399}, {0, 150, 120, 300, 390, 500});
  c.n = 136;
  c.beta = 0.5;
  c.nan_in_c = false;
  graph_replays(c, {0, 129, 129, 256, 300, 400}, {-20, 100, 200, 300, 350, 360});
  // Masked: other counts in the same slots.
  GroupedCase m = gemm_test::masked({64, 0, 1, 33}, 64, 264, 136);
  m.gap_c = 9;
  graph_replays(m, {5, 64, 0, 60}, {70, -1, 64, 3});
}

// Captured before any grouped call of the process: run alone (ctest's gpu_tests.grouped_captured_first),
// the capture makes the process's first grouped call, which allocates the error flag and takes the
// units table's scratch before the library's scratch pool exists. Only graph launches follow (no
// uncaptured call), so the case means the same whichever other case of its process runs first.
TEST_CASE("A grouped call captured as its process's first grouped call replays and reports bad rows",
          "[gpu][grouped][graph][captured_first]") {
  if (!gemm_test::grouped_runs_here()) return;
  GroupedCase c = gemm_test::contiguous({97, 0, 150, 1, 139}, 3, 10, 264, 136);
  graph_replays(c, {20, 20, 200, 201, 380, 399}, {0, 150, 120, 300, 390, 500}, true);
}

// Grouped GEMM from a host list of problems (grouped_list.cuh): any sizes, layouts and leading
// dimensions in one list, row-major (gemm::gemm_grouped) or column-major (gemm::blas::gemm_grouped,
// whose problems are the cases' column-major form), each problem's C against the fp64 reference
// and nothing outside it written; through a CUDA graph; a list with one bad problem refused whole.
namespace gemm_test {
namespace {

// The list's cases: ragged (1, primes), every layout, padded and misaligned storage (staged copies on
// Hopper), alpha and beta (beta 0 over NaN, alpha 0, k = 0), an empty C (m = 0), and a call a few
// rounds of tiles large.
std::vector<Case> list_cases() {
  return {Case{1, 1, 1},
          Case{7, 13, 29, 0.5, 1.0, 3, 1, 2}.with_ops(Op::N, Op::T),
          Case{127, 129, 131, 2.0, -0.75, 6, 4, 4}.with_ops(Op::T, Op::N),
          Case{300, 200, 100, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::T, Op::T),
          Case{129, 131, 67, 1.0, 0.0, 1, 0, 0, 1, 0, 0, true},
          Case{33, 17, 0, 1.0, 2.5},
          Case{20, 30, 40, 0.0, -1.0}.with_ops(Op::N, Op::T),
          Case{0, 50, 10},
          Case{1000, 3, 517, -1.25, 0.5}.with_ops(Op::N, Op::T),
          Case{1024, 1536, 1024, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T)};
}

template <class T, class Out>
using CaseList = std::vector<std::unique_ptr<CaseData<T, Out>>>;

template <class T, class Out>
CaseList<T, Out> case_list(const std::vector<Case>& cases) {
  CaseList<T, Out> out;
  for (const Case& c : cases) out.push_back(std::make_unique<CaseData<T, Out>>(c));
  return out;
}

template <class T, class Out>
std::vector<gemm::GroupedProblem<T, Out>> row_major_problems(const CaseList<T, Out>& list) {
  std::vector<gemm::GroupedProblem<T, Out>> p;
  for (const auto& d : list)
    p.push_back({d->c.op_a, d->c.op_b, d->c.m, d->c.n, d->c.k, d->alpha, d->dA, d->lda, d->dB, d->ldb, d->beta, d->dC,
                 d->ldc});
  return p;
}

// The same products column-major: C^T (n x m) = op(B)^T op(A)^T with the same storage.
template <class T, class Out>
std::vector<gemm::blas::GroupedProblem<T, Out>> column_major_problems(const CaseList<T, Out>& list) {
  std::vector<gemm::blas::GroupedProblem<T, Out>> p;
  for (const auto& d : list)
    p.push_back({d->c.op_b, d->c.op_a, d->c.n, d->c.m, d->c.k, d->alpha, d->dB, d->ldb, d->dA, d->lda, d->beta, d->dC,
                 d->ldc});
  return p;
}

template <class T, class Out>
void check_list(const CaseList<T, Out>& list) {
  for (const auto& d : list) {
    INFO("problem " << d->c.str());
    d->check();
  }
}

template <class T, class Out>
void run_list(bool column_major) {
  const char* type = gemm::type_name<T, Out>();
  INFO(type << (column_major ? ", gemm::blas::gemm_grouped" : ", gemm::gemm_grouped"));
  const CaseList<T, Out> list = case_list<T, Out>(list_cases());
  int failed = 7;
  const Status s = column_major ? gemm::blas::gemm_grouped(column_major_problems(list).data(), int(list.size()), 0, &failed)
                                : gemm::gemm_grouped(row_major_problems(list).data(), int(list.size()), 0, &failed);
  INFO("status " << gemm::to_string(s));
  REQUIRE(s == Status::Success);
  CHECK(failed == -1);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  check_list(list);
}

}  // namespace
}  // namespace gemm_test

TEST_CASE("Grouped GEMM from a host list: every problem against the fp64 reference, row- and column-major",
          "[gpu][grouped][list]") {
  using namespace gemm_test;
  for (bool column_major : {false, true}) {
    run_list<bf16, bf16>(column_major);
    run_list<fp16, float>(column_major);
  }
  run_list<float, float>(false);  // (any type gemm::gemm takes: strict fp32 on CUDA cores)
}

TEST_CASE("Grouped GEMM from a host list captured in a CUDA graph and replayed", "[gpu][grouped][list][graph]") {
  using namespace gemm_test;
  const CaseList<bf16, bf16> list = case_list<bf16, bf16>(list_cases());
  const auto problems = row_major_problems(list);
  cudaStream_t stream;
  CUDA_REQUIRE(cudaStreamCreate(&stream));
  cudaGraph_t graph;
  CUDA_REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const Status captured = gemm::gemm_grouped(problems.data(), int(problems.size()), stream);
  CUDA_REQUIRE(cudaStreamEndCapture(stream, &graph));
  REQUIRE(captured == Status::Success);
  cudaGraphExec_t exec;
  CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 2; ++replay) {
    // C as it was before the call (poison and beta's terms), then the replay.
    for (const auto& d : list) gemm_test::upload(d->dc, d->c0);
    CUDA_REQUIRE(cudaDeviceSynchronize());
    CUDA_REQUIRE(cudaGraphLaunch(exec, stream));
    CUDA_REQUIRE(cudaStreamSynchronize(stream));
    INFO("replay " << replay);
    check_list(list);
  }
  CUDA_REQUIRE(cudaGraphExecDestroy(exec));
  CUDA_REQUIRE(cudaGraphDestroy(graph));
  CUDA_REQUIRE(cudaStreamDestroy(stream));
}

TEST_CASE("Grouped GEMM from a host list: one bad problem refuses the list before any launch, C untouched",
          "[gpu][grouped][list][validation]") {
  using namespace gemm_test;
  const CaseList<bf16, bf16> list = case_list<bf16, bf16>({Case{64, 64, 64}, Case{32, 48, 16}, Case{16, 16, 16}});
  const auto launches = gemm::kernel_launches();
  int failed = -7;
  // Row-major: problem 2's lda shorter than its rows of A; problem 1's C null; a negative count and
  // a null list.
  auto rows = row_major_problems(list);
  rows[2].lda = 8;
  CHECK(gemm::gemm_grouped(rows.data(), 3, 0, &failed) == Status::InvalidLeadingDimensionA);
  CHECK(failed == 2);
  rows = row_major_problems(list);
  rows[1].C = nullptr;
  CHECK(gemm::gemm_grouped(rows.data(), 3, 0, &failed) == Status::NullPointerC);
  CHECK(failed == 1);
  CHECK(gemm::gemm_grouped(rows.data(), -1, 0, &failed) == Status::InvalidBatchCount);
  CHECK(failed == -1);
  CHECK(gemm::gemm_grouped(static_cast<const gemm::GroupedProblem<bf16>*>(nullptr), 2) == Status::InvalidBatchCount);
  CHECK(gemm::gemm_grouped(static_cast<const gemm::GroupedProblem<bf16>*>(nullptr), 0) == Status::Success);
  // Column-major: the statuses name the caller's A and B (problem 0's B null, problem 2's ldb short).
  auto cols = column_major_problems(list);
  cols[0].B = nullptr;
  CHECK(gemm::blas::gemm_grouped(cols.data(), 3, 0, &failed) == Status::NullPointerB);
  CHECK(failed == 0);
  cols = column_major_problems(list);
  cols[2].ldb = 4;
  CHECK(gemm::blas::gemm_grouped(cols.data(), 3, 0, &failed) == Status::InvalidLeadingDimensionB);
  CHECK(failed == 2);
  CHECK(gemm::kernel_launches() == launches);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  for (const auto& d : list) {
    std::vector<bf16> after(d->c0.size());
    CUDA_REQUIRE(cudaMemcpy(after.data(), d->dc.ptr, after.size() * sizeof(bf16), cudaMemcpyDeviceToHost));
    CHECK(std::memcmp(after.data(), d->c0.data(), after.size() * sizeof(bf16)) == 0);
  }
}
