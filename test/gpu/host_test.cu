// gemm::host (host.cuh): GEMM from host memory with overlapped copies. Every case builds A, B and
// C in host memory (pinned, pageable or mixed), C poisoned around its m x n elements, calls the
// host API and checks each element against an fp64 reference (check.cuh's error model), that A
// and B are unchanged, and that nothing outside C was written. Where the same kernels run on the
// same data and k is not split, the result must equal a gemm::gemm call on device copies bit for
// bit. Big shapes are tagged [slow] (leave them out under compute-sanitizer).
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>
#include <gemm/host.cuh>
#include "check.cuh"

namespace {

using gemm::Op;
using gemm::Status;
using gemm_test::Case;
namespace host = gemm::host;

enum class Mem { Pinned, Pageable };
const char* name(Mem m) { return m == Mem::Pinned ? "pinned" : "pageable"; }

// Host storage of n elements, pinned (cudaMallocHost) or pageable (new[]).
template <class T>
struct HostArray {
  T* ptr = nullptr;
  std::size_t n = 0;
  Mem mem;
  HostArray(std::size_t count, Mem m) : n(std::max<std::size_t>(count, 1)), mem(m) {
    if (m == Mem::Pinned) {
      void* p = nullptr;
      const cudaError_t err = cudaMallocHost(&p, n * sizeof(T));
      INFO("cudaMallocHost(" << n * sizeof(T) << ") -> " << cudaGetErrorString(err));
      REQUIRE(err == cudaSuccess);
      ptr = static_cast<T*>(p);
    } else {
      ptr = new T[n];
    }
  }
  ~HostArray() {
    if (mem == Mem::Pinned) cudaFreeHost(ptr);
    else delete[] ptr;
  }
  HostArray(const HostArray&) = delete;
  HostArray& operator=(const HostArray&) = delete;
  void assign(const std::vector<T>& v) { std::memcpy(ptr, v.data(), v.size() * sizeof(T)); }
  std::vector<T> vec() const { return std::vector<T>(ptr, ptr + n); }
};

// How to call: memory of each operand, options, synchronous or asynchronous.
struct Run {
  Mem a = Mem::Pinned, b = Mem::Pinned, c = Mem::Pinned;
  host::Options opt;
  bool async = false;
  bool default_stream = false;  // async on the legacy default stream
  std::string str() const {
    std::ostringstream s;
    s << "A " << name(a) << ", B " << name(b) << ", C " << name(c) << (async ? (default_stream ? ", async on stream 0" : ", async") : ", sync")
      << ", budget " << opt.device_budget << ", block_rows " << opt.block_rows << ", block_cols " << opt.block_cols
      << ", k_slices " << opt.k_slices << ", streams " << opt.streams << ", by_slice " << opt.by_slice
      << (opt.staging == host::Staging::Callbacks ? ", staging by callbacks" : "");
    return s.str();
  }
};

// The inputs of one case, in the row-major frame of gemm_test::Case.
template <class In, class Out>
struct Inputs {
  int lda, ldb, ldc;
  std::vector<In> a, b;
  std::vector<Out> c0;  // C with its offset, padding and a guard row, all poisoned outside m x n
  explicit Inputs(const Case& c) : lda(c.lda()), ldb(c.ldb()), ldc(c.ldc()) {
    a.resize(std::max<std::size_t>(c.offset_a + static_cast<std::size_t>(c.a_rows()) * lda, 1));
    b.resize(std::max<std::size_t>(c.offset_b + static_cast<std::size_t>(c.b_rows()) * ldb, 1));
    c0.assign(c.offset_c + static_cast<std::size_t>(c.m + 1) * ldc, gemm_test::sentinel<Out>());
    gemm_test::fill_random(a);
    gemm_test::fill_random(b);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int i = 0; i < c.m; ++i)
      for (int j = 0; j < c.n; ++j)
        c0[c.offset_c + static_cast<std::size_t>(i) * ldc + j] =
            gemm::detail::convert<Out>(c.nan_in_c ? std::numeric_limits<double>::quiet_NaN() : u(gemm_test::rng()));
  }
};

// Calls the host API the way the case says (row-major, op form, or column-major blas).
template <class T, class Policy, class Out>
Status call_host(const Case& c, const gemm::storage_t<T>* A, const gemm::storage_t<T>* B, Out* C, const Run& r,
                 cudaStream_t stream) {
  using S = gemm::scalar_t<T>;
  const S alpha = static_cast<S>(c.alpha), beta = static_cast<S>(c.beta);
  const int lda = c.lda(), ldb = c.ldb(), ldc = c.ldc();
  if (c.column_major) {
    return r.async ? host::blas::gemm_async<T, Policy>(c.op_b, c.op_a, c.n, c.m, c.k, alpha, B, ldb, A, lda, beta, C,
                                                       ldc, stream, r.opt)
                   : host::blas::gemm<T, Policy>(c.op_b, c.op_a, c.n, c.m, c.k, alpha, B, ldb, A, lda, beta, C, ldc,
                                                 r.opt);
  }
  if (c.op_a == Op::N && c.op_b == Op::N) {
    return r.async ? host::gemm_async<T, Policy>(c.m, c.n, c.k, alpha, A, lda, B, ldb, beta, C, ldc, stream, r.opt)
                   : host::gemm<T, Policy>(c.m, c.n, c.k, alpha, A, lda, B, ldb, beta, C, ldc, r.opt);
  }
  return r.async ? host::gemm_async<T, Policy>(c.op_a, c.op_b, c.m, c.n, c.k, alpha, A, lda, B, ldb, beta, C, ldc,
                                               stream, r.opt)
                 : host::gemm<T, Policy>(c.op_a, c.op_b, c.m, c.n, c.k, alpha, A, lda, B, ldb, beta, C, ldc, r.opt);
}

// Runs the case through the host API; returns C as it came back (offset, padding and guard included).
template <class T, class Policy, class Out>
std::vector<Out> run_host(const Case& c, const Inputs<gemm::storage_t<T>, Out>& in, const Run& r) {
  using In = gemm::storage_t<T>;
  HostArray<In> ha(in.a.size(), r.a), hb(in.b.size(), r.b);
  HostArray<Out> hc(in.c0.size(), r.c);
  ha.assign(in.a);
  hb.assign(in.b);
  hc.assign(in.c0);
  cudaStream_t stream = nullptr;
  if (r.async && !r.default_stream) CUDA_REQUIRE(cudaStreamCreate(&stream));
  const Status s = call_host<T, Policy, Out>(c, ha.ptr + c.offset_a, hb.ptr + c.offset_b, hc.ptr + c.offset_c, r, stream);
  INFO("status: " << gemm::to_string(s) << " (" << cudaGetErrorString(gemm::last_cuda_error()) << ")");
  if (r.async) {
    CUDA_REQUIRE(cudaStreamSynchronize(stream));
    if (stream) CUDA_REQUIRE(cudaStreamDestroy(stream));
  }
  REQUIRE(s == Status::Success);
  CUDA_REQUIRE(cudaGetLastError());
  CHECK(std::memcmp(ha.ptr, in.a.data(), in.a.size() * sizeof(In)) == 0);  // never written
  CHECK(std::memcmp(hb.ptr, in.b.data(), in.b.size() * sizeof(In)) == 0);
  return hc.vec();
}

// Each element of C against the fp64 reference, and nothing outside C written.
template <class T, class Out>
void check_result(const Case& c, const Inputs<gemm::storage_t<T>, Out>& in, const std::vector<Out>& out,
                  double extra_rounding = 0) {
  using In = gemm::storage_t<T>;
  const bool ta = c.op_a == Op::T, tb = c.op_b == Op::T;
  const In* A = in.a.data() + c.offset_a;
  const In* B = in.b.data() + c.offset_b;
  const Out* C0 = in.c0.data() + c.offset_c;
  const std::size_t mn = static_cast<std::size_t>(c.m) * c.n;
  std::vector<double> ref(mn), mag(mn), abs_a(in.a.size()), abs_b(in.b.size());
  for (std::size_t i = 0; i < in.a.size(); ++i) abs_a[i] = std::fabs(gemm_test::to_double(in.a[i]));
  for (std::size_t i = 0; i < in.b.size(); ++i) abs_b[i] = std::fabs(gemm_test::to_double(in.b[i]));
  gemm::reference::gemm<In, Out>(ta, tb, c.m, c.n, c.k, c.alpha, A, in.lda, B, in.ldb, c.beta,
                                 c.beta != 0 ? C0 : nullptr, in.ldc, ref.data(), c.n);
  gemm::reference::gemm<double, double>(ta, tb, c.m, c.n, c.k, std::fabs(c.alpha), abs_a.data() + c.offset_a, in.lda,
                                        abs_b.data() + c.offset_b, in.ldb, 0.0, nullptr, 1, mag.data(), c.n);
  const gemm_test::ErrorModel<T, Out> model;
  long long wrong = 0, stray = 0;
  std::ostringstream first;
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.n; ++j) {
      const std::size_t e = static_cast<std::size_t>(i) * c.n + j;
      const double got = gemm_test::to_double(out[c.offset_c + static_cast<std::size_t>(i) * in.ldc + j]);
      const double beta_c = c.beta != 0 ? std::fabs(c.beta * gemm_test::to_double(C0[static_cast<std::size_t>(i) * in.ldc + j])) : 0.0;
      const double bound = model.element(c.k, mag[e], beta_c, ref[e]) + extra_rounding * (mag[e] + beta_c);
      if (!(std::fabs(got - ref[e]) <= bound)) {
        if (wrong < 5) first << "  C(" << i << "," << j << ") = " << got << ", expected " << ref[e] << " (bound " << bound << ")\n";
        ++wrong;
      }
    }
  for (std::size_t idx = 0; idx < out.size(); ++idx) {
    const bool inside = idx >= static_cast<std::size_t>(c.offset_c) &&
                        idx < c.offset_c + static_cast<std::size_t>(c.m) * in.ldc &&
                        static_cast<int>((idx - c.offset_c) % in.ldc) < c.n;
    if (!inside && std::memcmp(&out[idx], &in.c0[idx], sizeof(Out)) != 0) {
      if (stray < 3) first << "  write outside C at element " << idx << "\n";
      ++stray;
    }
  }
  INFO("wrong elements: " << wrong << ", stray writes: " << stray << "\n" << first.str());
  CHECK(wrong == 0);
  CHECK(stray == 0);
}

template <class T, class Policy = gemm::DefaultPolicy, class Out = gemm::storage_t<T>>
void host_case(const Case& c, Run r = Run{}) {
  INFO((gemm::type_name<T, Out>()) << " " << Policy::name() << " " << c.str() << "; " << r.str());
  host::Report local;
  if (!r.opt.report) r.opt.report = &local;
  const Inputs<gemm::storage_t<T>, Out> in(c);
  const std::vector<Out> out = run_host<T, Policy, Out>(c, in, r);
  INFO("plan: " << r.opt.report->plan);
  // A k split with C of the accumulator's type rounds each slice's partial sum to C's type (16-bit
  // C accumulates in float and is rounded once).
  const int slices = r.opt.report->k_slices;
  const double extra = slices > 1 && !gemm::is_16bit<Out> ? 2.0 * slices * gemm_test::unit_roundoff<Out>() : 0.0;
  check_result<T, Out>(c, in, out, extra);
}

// The same case on device copies of the same data through gemm::gemm.
template <class T, class Policy, class Out>
std::vector<Out> run_device(const Case& c, const Inputs<gemm::storage_t<T>, Out>& in) {
  using In = gemm::storage_t<T>;
  using S = gemm::scalar_t<T>;
  gemm_test::DeviceBuffer<In> da(in.a.size()), db(in.b.size());
  gemm_test::DeviceBuffer<Out> dc(in.c0.size());
  CUDA_REQUIRE(cudaMemcpy(da.ptr, in.a.data(), in.a.size() * sizeof(In), cudaMemcpyHostToDevice));
  CUDA_REQUIRE(cudaMemcpy(db.ptr, in.b.data(), in.b.size() * sizeof(In), cudaMemcpyHostToDevice));
  CUDA_REQUIRE(cudaMemcpy(dc.ptr, in.c0.data(), in.c0.size() * sizeof(Out), cudaMemcpyHostToDevice));
  const Status s = gemm::gemm<T, Policy>(c.op_a, c.op_b, c.m, c.n, c.k, static_cast<S>(c.alpha), da.ptr + c.offset_a,
                                         in.lda, db.ptr + c.offset_b, in.ldb, static_cast<S>(c.beta),
                                         dc.ptr + c.offset_c, in.ldc);
  REQUIRE(s == Status::Success);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  std::vector<Out> out(in.c0.size());
  CUDA_REQUIRE(cudaMemcpy(out.data(), dc.ptr, out.size() * sizeof(Out), cudaMemcpyDeviceToHost));
  return out;
}

// Bit for bit the device call's result (same kernel, same k order: no k split).
template <class T, class Policy, class Out = gemm::storage_t<T>>
void bitwise_case(const Case& c, Run r, host::Report* report_out = nullptr) {
  r.opt.k_slices = 1;
  INFO((gemm::type_name<T, Out>()) << " " << Policy::name() << " " << c.str() << "; " << r.str());
  const Inputs<gemm::storage_t<T>, Out> in(c);
  host::Report report;
  r.opt.report = &report;
  const std::vector<Out> got = run_host<T, Policy, Out>(c, in, r);
  INFO("plan: " << report.plan);
  const std::vector<Out> want = run_device<T, Policy, Out>(c, in);
  long long differ = 0;
  for (std::size_t i = 0; i < want.size(); ++i) differ += std::memcmp(&got[i], &want[i], sizeof(Out)) != 0;
  CHECK(differ == 0);
  CHECK(report.k_slices == 1);
  if (report_out) *report_out = report;
}

bool hopper() {
  int dev = 0, major = 0, minor = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  return major == 9 && minor == 0;
}

// Ragged shapes, padded leading dimensions, offsets (misaligned host data), alpha and beta
// variants, NaN in C under beta = 0, k = 0 and alpha = 0.
std::vector<Case> host_cases() {
  return {Case{1, 1, 1},
          Case{7, 13, 29, 0.5, 1.0, 3, 1, 2},
          Case{65, 63, 9, -1.25, 0.0, 0, 0, 0, 0, 0, 0, true},
          Case{127, 129, 131, 2.0, -0.75, 6, 4, 4},
          Case{256, 256, 256, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true},
          Case{300, 517, 100, 1.0, 1.0, 4, 4, 4},
          Case{129, 131, 67, 1.0, 0.0, 1, 0, 0, 1, 0, 0, true},
          Case{523, 519, 301, 1.0, 0.5, 3, 0, 1, 0, 2, 1},
          Case{33, 17, 0, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true},
          Case{33, 17, 0, 1.0, -2.0},
          Case{20, 30, 40, 0.0, -1.0}};
}

}  // namespace

TEST_CASE("host flow, float: every layout and entry point, pinned and pageable", "[gpu][host_flow]") {
  const auto cases = host_cases();
  Run pinned, pageable, mixed;
  pageable.a = pageable.b = pageable.c = Mem::Pageable;
  mixed.a = Mem::Pageable;
  mixed.c = Mem::Pageable;
  for (const Case& c : cases) {
    host_case<float>(c, pinned);
    host_case<float>(c, pageable);
    host_case<float>(c.with_ops(Op::N, Op::T), mixed);
    host_case<float>(c.with_ops(Op::T, Op::N), pinned);
    host_case<float>(c.with_ops(Op::T, Op::T), pageable);
  }
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case cm = cases[i].with_ops(i % 2 ? Op::T : Op::N, i % 4 < 2 ? Op::N : Op::T, true);
    host_case<float>(cm, i % 3 ? pinned : pageable);
  }
}

TEST_CASE("host flow: blocks that do not divide the matrix, 2D tiles, k slices, every stream count", "[gpu][host_flow]") {
  const Case shapes[] = {Case{1000, 300, 77, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}, Case{517, 1031, 263, -0.5, 1.5, 1, 2, 3},
                         Case{96, 64, 1000, 2.0, -1.0, 4, 0, 4}};
  for (const Case& c : shapes)
    for (Mem mem : {Mem::Pinned, Mem::Pageable}) {
      Run r;
      r.a = r.b = r.c = mem;
      r.opt.block_rows = 37;  // many ragged row blocks
      r.opt.streams = 3;
      host_case<float>(c, r);
      r.opt.block_rows = 100;
      r.opt.block_cols = 129;  // 2D tiles, copied row by row
      r.opt.streams = 1;
      host_case<float>(c.with_ops(Op::T, Op::N), r);
      r.opt.block_cols = 0;
      r.opt.k_slices = 3;  // in core, k split
      r.opt.streams = 4;
      host_case<float>(c.with_ops(Op::N, Op::T), r);
      r.opt.staging = host::Staging::Callbacks;  // synchronous call, staging by host callbacks
      r.opt.staging_chunk = 4096;                // many chunks through the staging ring
      r.opt.staging_slots = 2;
      host_case<float>(c, r);
    }
}

TEST_CASE("host flow: double, bf16 (bf16 and float C) and tf32", "[gpu][host_flow]") {
  const Case cases[] = {Case{127, 129, 131, 2.0, -0.75, 6, 4, 4}, Case{300, 517, 100, 1.0, 1.0, 4, 4, 4},
                        Case{65, 63, 9, -1.25, 0.0, 0, 0, 0, 0, 0, 0, true}, Case{33, 17, 0, 1.0, -2.0},
                        Case{256, 192, 320, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}};
  Run pinned, pageable;
  pageable.a = pageable.b = pageable.c = Mem::Pageable;
  for (const Case& c : cases) {
    host_case<double>(c, pinned);
    host_case<double>(c.with_ops(Op::T, Op::T), pageable);
    host_case<__nv_bfloat16>(c, pinned);
    host_case<__nv_bfloat16>(c.with_ops(Op::N, Op::T), pageable);
    host_case<__nv_bfloat16, gemm::DefaultPolicy, float>(c, pageable);
    host_case<__nv_bfloat16, gemm::DefaultPolicy, float>(c.with_ops(Op::T, Op::N), pinned);
    host_case<gemm::tf32>(c, pinned);
    host_case<gemm::tf32>(c.with_ops(Op::T, Op::T, true), pageable);
  }
}

TEST_CASE("host flow out of core: tiny budgets stream many tiles, with and without k split", "[gpu][host_flow]") {
  // Budgets far below the operands (these are 0.1-0.4 MB): tiles of a few rows or columns, tens
  // to hundreds of multiplies; k_slices 0 lets the planner choose, 1 forbids a split, 4 forces one.
  enum Type { F32, F64, BF16, BF16_F32 };
  struct Ooc {
    Case c;
    std::size_t budget;
    int k_slices;
    Type type;
    Mem mem;
    bool async;
  };
  const Case nan_c{200, 150, 300, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true};
  const Case ragged{131, 257, 97, -0.5, 0.75, 1, 2, 3};
  const Case deep{64, 48, 1000, 2.0, 1.0};
  const Ooc list[] = {
      {nan_c, 256u << 10, 0, F32, Mem::Pinned, false},
      {nan_c, 64u << 10, 0, F32, Mem::Pageable, false},
      {nan_c, 64u << 10, 1, F32, Mem::Pinned, false},
      {nan_c, 24u << 10, 4, F32, Mem::Pageable, false},
      {nan_c, 24u << 10, 0, F32, Mem::Pinned, true},
      {ragged.with_ops(Op::T, Op::N), 256u << 10, 1, F32, Mem::Pageable, false},
      {ragged, 64u << 10, 4, F32, Mem::Pinned, false},
      {ragged.with_ops(Op::N, Op::T), 24u << 10, 1, F32, Mem::Pinned, false},
      {ragged.with_ops(Op::T, Op::T), 24u << 10, 0, F32, Mem::Pageable, true},
      {ragged.with_ops(Op::N, Op::T, true), 64u << 10, 0, F32, Mem::Pageable, false},
      {deep, 256u << 10, 0, F32, Mem::Pinned, false},
      {deep, 64u << 10, 1, F32, Mem::Pageable, false},
      {deep, 24u << 10, 0, F32, Mem::Pinned, false},
      {nan_c, 24u << 10, 4, BF16, Mem::Pinned, false},
      {ragged, 64u << 10, 0, BF16, Mem::Pageable, false},
      {deep, 64u << 10, 4, BF16, Mem::Pinned, true},
      {ragged.with_ops(Op::T, Op::N), 64u << 10, 4, BF16_F32, Mem::Pageable, false},
      {deep, 64u << 10, 1, BF16_F32, Mem::Pinned, false},  // (24 KB with no k split: no plan, InvalidOption)
      {ragged, 24u << 10, 0, F64, Mem::Pinned, true},
      {nan_c.with_ops(Op::T, Op::T), 64u << 10, 1, F64, Mem::Pageable, false},
  };
  for (const Ooc& o : list) {
    Run r;
    r.a = r.b = r.c = o.mem;
    r.async = o.async;
    r.opt.device_budget = o.budget;
    r.opt.k_slices = o.k_slices;
    host::Report report;
    r.opt.report = &report;
    switch (o.type) {
      case F32: host_case<float>(o.c, r); break;
      case F64: host_case<double>(o.c, r); break;
      case BF16: host_case<__nv_bfloat16>(o.c, r); break;
      case BF16_F32: host_case<__nv_bfloat16, gemm::DefaultPolicy, float>(o.c, r); break;
    }
    INFO(report.plan);
    CHECK(!report.in_core);
    CHECK(report.device_bytes <= o.budget);
    CHECK(report.steps > 1);
    if (o.k_slices > 0) CHECK(report.k_slices == o.k_slices);
  }
}

TEST_CASE("host flow: bit for bit the device call where the same kernels run and k is not split", "[gpu][host_flow]") {
  // Sizes and leading dimensions whose rows are whole 16-byte units, so that the device call on
  // the host layout runs the same (aligned) kernels as the tiles on the device buffers.
  const Case cases[] = {Case{1000, 264, 136, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}, Case{336, 520, 200, -0.5, 1.5, 8, 8, 8},
                        Case{200, 64, 1024, 2.0, -1.0}};
  using gemm::preset::WarpTiled;
  for (const Case& c : cases) {
    Run rows, tiles, ooc, pageable;
    rows.opt.block_rows = 96;
    tiles.opt.block_rows = 128;
    tiles.opt.block_cols = 128;
    ooc.opt.device_budget = 512u << 10;  // out of core, whole k
    pageable.a = pageable.b = pageable.c = Mem::Pageable;
    pageable.opt.block_rows = 64;
    for (const Run& r : {rows, tiles, ooc, pageable}) {
      bitwise_case<float, WarpTiled>(c, r);
      bitwise_case<double, WarpTiled>(c, r);
      bitwise_case<__nv_bfloat16, WarpTiled>(c, r);
      bitwise_case<__nv_bfloat16, WarpTiled, float>(c, r);
      bitwise_case<float, WarpTiled>(c.with_ops(Op::T, Op::T), r);
      bitwise_case<float, WarpTiled>(c.with_ops(Op::N, Op::T), r);
      if (hopper()) bitwise_case<gemm::tf32, gemm::preset::Wgmma, float>(c, r);
    }
  }
}

// Slice by slice runs the same multiplies as tile by tile, each tile's slices in the same order,
// so the results agree bit for bit; and both are right.
template <class T, class Out = gemm::storage_t<T>>
void slice_order_case(const Case& c, Run r) {
  using gemm::preset::WarpTiled;  // deterministic (no atomics), so that any difference is the flow's
  INFO((gemm::type_name<T, Out>()) << " " << c.str() << "; " << r.str());
  const Inputs<gemm::storage_t<T>, Out> in(c);
  host::Report by_tile, by_slice;
  r.opt.by_slice = 0;
  r.opt.report = &by_tile;
  const std::vector<Out> want = run_host<T, WarpTiled, Out>(c, in, r);
  r.opt.by_slice = 1;
  r.opt.report = &by_slice;
  const std::vector<Out> got = run_host<T, WarpTiled, Out>(c, in, r);
  INFO("tile by tile: " << by_tile.plan << "\nslice by slice: " << by_slice.plan);
  CHECK(by_slice.plan.find("slice by slice") != std::string::npos);
  CHECK(by_tile.plan.find("slice by slice") == std::string::npos);
  CHECK(by_slice.k_slices > 1);
  long long differ = 0;
  for (std::size_t i = 0; i < want.size(); ++i) differ += std::memcmp(&got[i], &want[i], sizeof(Out)) != 0;
  CHECK(differ == 0);
  host_case<T, gemm::DefaultPolicy, Out>(c, r);
}

TEST_CASE("host flow: slice by slice, bit for bit tile by tile with the same blocks", "[gpu][host_flow]") {
  const Case cases[] = {Case{517, 1031, 263, -0.5, 1.5, 1, 2, 3}, Case{1000, 300, 200, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true},
                        Case{96, 64, 700, 2.0, -1.0, 4, 0, 4}};
  for (const Case& c : cases) {
    Run pinned, pageable;
    pageable.a = pageable.b = pageable.c = Mem::Pageable;
    for (Run* r : {&pinned, &pageable}) {
      r->opt.block_rows = 131;
      r->opt.block_cols = 160;
      r->opt.k_slices = 3;
    }
    slice_order_case<float>(c, pinned);
    slice_order_case<float>(c.with_ops(Op::T, Op::N), pageable);
    slice_order_case<double>(c.with_ops(Op::N, Op::T), pinned);
    slice_order_case<__nv_bfloat16>(c, pinned);  // bf16 C: float accumulators, widened when beta != 0
    slice_order_case<__nv_bfloat16, float>(c.with_ops(Op::T, Op::T), pageable);
  }
  host::release_cache();  // the pinned staging the pageable calls keep (a leak check over this case sees none)
}

namespace {
// A snapshot of a host buffer taken by a host callback on the stream: what the stream's later work sees.
struct Snapshot {
  const float* src;
  std::size_t n;
  std::vector<float> copy;
};
void CUDART_CB take_snapshot(void* p) {
  auto* s = static_cast<Snapshot*>(p);
  s->copy.assign(s->src, s->src + s->n);
}
}  // namespace

TEST_CASE("host flow, asynchronous: ordered with the caller's stream, completion on the stream", "[gpu][host_flow]") {
  const int m = 300, n = 200, k = 150;
  for (Mem mem : {Mem::Pinned, Mem::Pageable}) {
    INFO(name(mem));
    HostArray<float> a(static_cast<std::size_t>(m) * k, mem), b(static_cast<std::size_t>(k) * n, mem),
        c(static_cast<std::size_t>(m) * n, mem);
    HostArray<float> a_src(static_cast<std::size_t>(m) * k, Mem::Pinned);
    std::vector<float> va(a.n), vb(b.n);
    gemm_test::fill_random(va);
    gemm_test::fill_random(vb);
    std::fill(a.ptr, a.ptr + a.n, 0.0f);
    b.assign(vb);
    a_src.assign(va);
    gemm_test::DeviceBuffer<float> dev_a(a.n);
    cudaStream_t stream = nullptr;
    CUDA_REQUIRE(cudaStreamCreate(&stream));
    if (mem == Mem::Pinned) {  // A's values arrive through the stream, just before the call
      CUDA_REQUIRE(cudaMemcpyAsync(dev_a.ptr, a_src.ptr, a.n * sizeof(float), cudaMemcpyHostToDevice, stream));
      CUDA_REQUIRE(cudaMemcpyAsync(a.ptr, dev_a.ptr, a.n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    } else {
      a.assign(va);
    }
    const Status s = host::gemm_async<float>(m, n, k, 1.0f, a.ptr, k, b.ptr, n, 0.0f, c.ptr, n, stream);
    REQUIRE(s == Status::Success);
    // Work enqueued after the call sees C in host memory; an event recorded after it signals completion.
    Snapshot snap{c.ptr, c.n, {}};
    cudaEvent_t done = nullptr;
    CUDA_REQUIRE(cudaEventCreate(&done));
    CUDA_REQUIRE(cudaEventRecord(done, stream));
    CUDA_REQUIRE(cudaLaunchHostFunc(stream, take_snapshot, &snap));
    CUDA_REQUIRE(cudaEventSynchronize(done));
    std::vector<double> ref(c.n);
    gemm::reference::gemm<float>(m, n, k, 1.0, va.data(), k, vb.data(), n, 0.0, nullptr, n, ref.data(), n);
    long long wrong = 0;
    for (std::size_t i = 0; i < c.n; ++i) wrong += !(std::fabs(c.ptr[i] - ref[i]) <= 1e-4 * (1 + std::fabs(ref[i])));
    CHECK(wrong == 0);
    CUDA_REQUIRE(cudaStreamSynchronize(stream));
    REQUIRE(snap.copy.size() == c.n);
    CHECK(std::memcmp(snap.copy.data(), c.ptr, c.n * sizeof(float)) == 0);
    CUDA_REQUIRE(cudaEventDestroy(done));
    CUDA_REQUIRE(cudaStreamDestroy(stream));
  }
  // The legacy default stream, pinned and pageable.
  Run r;
  r.async = true;
  r.default_stream = true;
  host_case<float>(Case{129, 131, 67, 1.0, 0.5, 1, 0, 0}, r);
  r.a = r.b = r.c = Mem::Pageable;
  host_case<float>(Case{129, 131, 67, 1.0, 0.5, 1, 0, 0}.with_ops(Op::T, Op::N), r);
}

TEST_CASE("host flow: concurrent calls from several threads", "[gpu][host_flow]") {
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  int device = 0;
  CUDA_REQUIRE(cudaGetDevice(&device));
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      cudaSetDevice(device);
      const int m = 200 + 13 * t, n = 150 + 7 * t, k = 120 + 3 * t;
      std::vector<float> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n), c(static_cast<std::size_t>(m) * n);
      for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 7 + t) % 11) - 5;
      for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>((i * 5 + t) % 7) - 3;
      std::vector<double> ref(c.size());
      gemm::reference::gemm<float>(m, n, k, 1.0, a.data(), k, b.data(), n, 0.0, nullptr, n, ref.data(), n, 1);
      for (int rep = 0; rep < 5; ++rep) {
        std::fill(c.begin(), c.end(), -1.0f);
        host::Options opt;
        opt.block_rows = 32 + 16 * t;
        if (host::gemm<float>(m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n, opt) != Status::Success) {
          ++failures;
          continue;
        }
        for (std::size_t i = 0; i < c.size(); ++i)
          if (c[i] != static_cast<float>(ref[i])) {  // small integers: exact
            ++failures;
            break;
          }
      }
    });
  for (auto& th : threads) th.join();
  CHECK(failures.load() == 0);
}

TEST_CASE("host flow: k = 0, alpha = 0, beta = 1 and empty C", "[gpu][host_flow]") {
  std::vector<float> c(6 * 5), c_before;
  gemm_test::fill_random(c);
  c_before = c;
  const auto launches = gemm::kernel_launches();
  // k == 0 and beta == 1: C unchanged, nothing launched, A and B may be null.
  CHECK(host::gemm<float>(6, 5, 0, 2.0f, nullptr, 1, nullptr, 5, 1.0f, c.data(), 5) == Status::Success);
  CHECK(gemm::kernel_launches() == launches);
  CHECK(c == c_before);
  // m == 0 or n == 0: a no-op, even with null pointers.
  CHECK(host::gemm<float>(0, 5, 3, 1.0f, nullptr, 3, nullptr, 5, 0.0f, nullptr, 5) == Status::Success);
  CHECK(host::gemm<float>(6, 0, 3, 1.0f, nullptr, 3, nullptr, 1, 0.0f, nullptr, 1) == Status::Success);
  // alpha == 0: C = beta * C, A and B not read (null).
  CHECK(host::gemm<float>(6, 5, 3, 0.0f, nullptr, 3, nullptr, 5, -2.0f, c.data(), 5) == Status::Success);
  for (std::size_t i = 0; i < c.size(); ++i) CHECK(c[i] == -2.0f * c_before[i]);
  // k == 0, beta == 0 over NaN: zeros.
  std::fill(c.begin(), c.end(), std::numeric_limits<float>::quiet_NaN());
  CHECK(host::gemm<float>(6, 5, 0, 1.0f, nullptr, 1, nullptr, 5, 0.0f, c.data(), 5) == Status::Success);
  for (float x : c) CHECK(x == 0.0f);
}

namespace host_flow_policies {
// A pipeline that claims an architecture no device has: the first multiply refuses.
struct FutureOnlyPipeline : gemm::SingleStage {
  static constexpr int kMinArch = 1000;
};
struct FuturePolicy : gemm::TiledPolicy<gemm::TileShape<32, 32, 8, 4, 4>, gemm::BlockThreadMap, gemm::ScalarLoader,
                                        gemm::SmemLayout<gemm::RowMajor<0>, gemm::RowMajor<0>>, FutureOnlyPipeline,
                                        gemm::OuterProduct, gemm::ScalarEpilogue>,
                      gemm::Named<FuturePolicy> {
  static const char* name() { return "FuturePolicy"; }
};
}  // namespace host_flow_policies

TEST_CASE("host flow: bad input returns a status, writes nothing and keeps nothing", "[gpu][host_flow]") {
  const int m = 40, n = 30, k = 20;
  HostArray<float> a(m * k, Mem::Pinned), b(k * n, Mem::Pinned), c(m * n, Mem::Pinned);
  std::vector<float> pa(m * k), pb(k * n), pc(m * n);
  gemm_test::fill_random(pa);
  gemm_test::fill_random(pb);
  gemm_test::fill_random(pc);
  a.assign(pa);
  b.assign(pb);
  c.assign(pc);
  std::vector<float> page_c = pc;  // pageable C
  gemm_test::DeviceBuffer<float> dev(m * k + k * n + m * n);
  float* managed = nullptr;
  CUDA_REQUIRE(cudaMallocManaged(&managed, m * n * sizeof(float)));
  std::memcpy(managed, pc.data(), m * n * sizeof(float));

  // Warm up (the caches fill at the first call, the runtime starts its callback thread), then measure.
  REQUIRE(host::gemm<float>(m, n, k, 1.f, a.ptr, k, b.ptr, n, 0.f, c.ptr, n) == Status::Success);
  REQUIRE(host::gemm<float>(m, n, k, 1.f, pa.data(), k, pb.data(), n, 0.f, page_c.data(), n) == Status::Success);
  REQUIRE(host::gemm_async<float>(m, n, k, 1.f, pa.data(), k, pb.data(), n, 0.f, page_c.data(), n, nullptr) ==
          Status::Success);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  c.assign(pc);
  page_c = pc;
  std::size_t free0 = 0, total = 0;
  CUDA_REQUIRE(cudaMemGetInfo(&free0, &total));
  const host::CacheStats before = host::cache_stats();
  const auto launches = gemm::kernel_launches();

  auto expect = [&](Status want, Status got, const char* what) {
    INFO(what << ": expected " << gemm::to_string(want) << ", got " << gemm::to_string(got));
    CHECK(got == want);
  };
  using host_flow_policies::FuturePolicy;
  float* dA = dev.ptr;
  float* dB = dev.ptr + m * k;
  float* dC = dev.ptr + m * k + k * n;
  expect(Status::InvalidSize, host::gemm<float>(-1, n, k, 1.f, a.ptr, k, b.ptr, n, 0.f, c.ptr, n), "m < 0");
  expect(Status::InvalidLeadingDimensionA, host::gemm<float>(m, n, k, 1.f, a.ptr, k - 1, b.ptr, n, 0.f, c.ptr, n), "lda");
  expect(Status::InvalidLeadingDimensionB, host::gemm<float>(m, n, k, 1.f, a.ptr, k, b.ptr, n - 1, 0.f, c.ptr, n), "ldb");
  expect(Status::InvalidLeadingDimensionC, host::gemm<float>(m, n, k, 1.f, a.ptr, k, b.ptr, n, 0.f, c.ptr, n - 1), "ldc");
  expect(Status::InvalidLeadingDimensionA,
         host::gemm<float>(Op::T, Op::N, m, n, k, 1.f, a.ptr, m - 1, b.ptr, n, 0.f, c.ptr, n), "lda, A transposed");
  expect(Status::NullPointerA, host::gemm<float>(m, n, k, 1.f, nullptr, k, b.ptr, n, 0.f, c.ptr, n), "null A");
  expect(Status::NullPointerB, host::gemm<float>(m, n, k, 1.f, a.ptr, k, nullptr, n, 0.f, c.ptr, n), "null B");
  expect(Status::NullPointerC, host::gemm<float>(m, n, k, 1.f, a.ptr, k, b.ptr, n, 0.f, nullptr, n), "null C");
  expect(Status::MisalignedA,
         host::gemm<float>(m, n, k, 1.f, reinterpret_cast<const float*>(reinterpret_cast<const char*>(a.ptr) + 1), k,
                           b.ptr, n, 0.f, c.ptr, n),
         "A not aligned to float");
  expect(Status::NotHostMemoryA, host::gemm<float>(m, n, k, 1.f, dA, k, b.ptr, n, 0.f, c.ptr, n), "device A");
  expect(Status::NotHostMemoryB, host::gemm<float>(m, n, k, 1.f, a.ptr, k, dB, n, 0.f, c.ptr, n), "device B");
  expect(Status::NotHostMemoryC, host::gemm<float>(m, n, k, 1.f, a.ptr, k, b.ptr, n, 0.f, dC, n), "device C");
  expect(Status::NotHostMemoryC, host::gemm<float>(m, n, k, 1.f, a.ptr, k, b.ptr, n, 0.f, managed, n), "managed C");
  expect(Status::NotHostMemoryA, host::gemm<float>(m, n, k, 1.f, managed, k, b.ptr, n, 0.f, c.ptr, n), "managed A");
  expect(Status::NotHostMemoryC, host::gemm<float>(m, n, 0, 1.f, nullptr, 1, nullptr, n, 2.f, dC, n), "device C, k = 0");
  // Column-major: statuses name the caller's A and B.
  expect(Status::NotHostMemoryA,
         host::blas::gemm<float>(Op::N, Op::N, n, m, k, 1.f, dA, n, c.ptr, k, 0.f, page_c.data(), n), "blas, device A");
  expect(Status::NotHostMemoryB,
         host::blas::gemm<float>(Op::N, Op::N, n, m, k, 1.f, a.ptr, n, dB, k, 0.f, c.ptr, n), "blas, device B");
  // Budgets and options.
  host::Options tiny;
  tiny.device_budget = 100;
  expect(Status::DeviceBudgetTooSmall, host::gemm<float>(m, n, k, 1.f, a.ptr, k, b.ptr, n, 0.f, c.ptr, n, tiny),
         "100-byte budget");
  expect(Status::DeviceBudgetTooSmall,
         host::gemm<float>(m, n, k, 1.f, pa.data(), k, pb.data(), n, 0.f, page_c.data(), n, tiny), "100 bytes, pageable");
  host::Options bad;
  bad.block_rows = -1;
  expect(Status::InvalidOption, host::gemm<float>(m, n, k, 1.f, a.ptr, k, b.ptr, n, 0.f, c.ptr, n, bad), "block_rows < 0");
  bad = {};
  bad.streams = 5;
  expect(Status::InvalidOption, host::gemm<float>(m, n, k, 1.f, a.ptr, k, b.ptr, n, 0.f, c.ptr, n, bad), "streams > 4");
  bad = {};
  bad.timeline = true;  // without a report
  expect(Status::InvalidOption, host::gemm<float>(m, n, k, 1.f, a.ptr, k, b.ptr, n, 0.f, c.ptr, n, bad), "timeline");
  host::Report rep;
  bad.report = &rep;
  expect(Status::InvalidOption, host::gemm_async<float>(m, n, k, 1.f, a.ptr, k, b.ptr, n, 0.f, c.ptr, n, nullptr, bad),
         "timeline, async");
  CHECK(gemm::kernel_launches() == launches);
  // A policy that refuses the device: refused at the first multiply, before anything comes back.
  expect(Status::UnsupportedArchitecture,
         host::gemm<float, FuturePolicy>(m, n, k, 1.f, a.ptr, k, b.ptr, n, 0.f, c.ptr, n), "policy, pinned");
  expect(Status::UnsupportedArchitecture,
         host::gemm<float, FuturePolicy>(m, n, k, 1.f, pa.data(), k, pb.data(), n, 0.f, page_c.data(), n),
         "policy, pageable");
  expect(Status::UnsupportedArchitecture,
         host::gemm_async<float, FuturePolicy>(m, n, k, 1.f, pa.data(), k, pb.data(), n, 0.f, page_c.data(), n, nullptr),
         "policy, async");
  CHECK(gemm::kernel_launches() == launches);

  CUDA_REQUIRE(cudaDeviceSynchronize());
  CHECK(std::memcmp(c.ptr, pc.data(), pc.size() * sizeof(float)) == 0);
  CHECK(page_c == pc);
  CHECK(std::memcmp(managed, pc.data(), pc.size() * sizeof(float)) == 0);
  CHECK(std::memcmp(a.ptr, pa.data(), pa.size() * sizeof(float)) == 0);
  const host::CacheStats after = host::cache_stats();
  CHECK(after.device_used == 0);
  CHECK(after.device_reserved == before.device_reserved);
  CHECK(after.pinned_bytes == before.pinned_bytes);
  CHECK(after.pinned_idle == before.pinned_idle);
  CHECK(after.pinned_allocations == before.pinned_allocations);
  std::size_t free1 = 0;
  CUDA_REQUIRE(cudaMemGetInfo(&free1, &total));
  CHECK(free1 == free0);
  CUDA_REQUIRE(cudaFree(managed));
}

TEST_CASE("host flow: 100 calls leave device memory and pinned allocations as they were", "[gpu][host_flow]") {
  const int m = 257, n = 190, k = 130;
  std::vector<float> a(m * k), b(k * n), c(m * n);
  gemm_test::fill_random(a);
  gemm_test::fill_random(b);
  HostArray<float> pa(a.size(), Mem::Pinned), pb(b.size(), Mem::Pinned), pc(c.size(), Mem::Pinned);
  pa.assign(a);
  pb.assign(b);
  host::Options ooc;
  ooc.device_budget = 96u << 10;
  cudaStream_t stream = nullptr;
  CUDA_REQUIRE(cudaStreamCreate(&stream));
  auto round = [&](int i) {
    Status s;
    switch (i % 4) {
      case 0: s = host::gemm<float>(m, n, k, 1.f, pa.ptr, k, pb.ptr, n, 0.f, pc.ptr, n); break;
      case 1: s = host::gemm<float>(m, n, k, 1.f, a.data(), k, b.data(), n, 0.5f, c.data(), n); break;
      case 2: s = host::gemm_async<float>(m, n, k, 1.f, a.data(), k, pb.ptr, n, 0.f, c.data(), n, stream); break;
      default: s = host::gemm<float>(m, n, k, 1.f, a.data(), k, b.data(), n, 0.f, pc.ptr, n, ooc); break;
    }
    if (i % 4 == 2) cudaStreamSynchronize(stream);
    return s;
  };
  for (int i = 0; i < 8; ++i) REQUIRE(round(i) == Status::Success);  // warm-up: caches, kernels loaded
  CUDA_REQUIRE(cudaDeviceSynchronize());
  std::size_t free0 = 0, total = 0;
  CUDA_REQUIRE(cudaMemGetInfo(&free0, &total));
  const host::CacheStats before = host::cache_stats();
  int failed = 0;
  for (int i = 0; i < 100; ++i) failed += round(i) != Status::Success;
  CHECK(failed == 0);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  std::size_t free1 = 0;
  CUDA_REQUIRE(cudaMemGetInfo(&free1, &total));
  const host::CacheStats after = host::cache_stats();
  INFO("device free before " << free0 << ", after " << free1 << "; reserved " << before.device_reserved << " -> "
                             << after.device_reserved << "; pinned " << before.pinned_bytes << " -> " << after.pinned_bytes);
  CHECK(free1 == free0);
  CHECK(after.device_used == 0);
  CHECK(after.device_reserved == before.device_reserved);
  CHECK(after.pinned_bytes == before.pinned_bytes);
  CHECK(after.pinned_allocations == before.pinned_allocations);
  CHECK(after.stream_sets == before.stream_sets);
  // release_cache() gives everything idle back.
  host::release_cache();
  const host::CacheStats released = host::cache_stats();
  CHECK(released.pinned_bytes == 0);
  CHECK(released.device_reserved == 0);
  CHECK(released.stream_sets == 0);
  std::size_t free2 = 0;
  CUDA_REQUIRE(cudaMemGetInfo(&free2, &total));
  CHECK(free2 >= free1);
  CUDA_REQUIRE(cudaStreamDestroy(stream));
  // And the next call works from empty caches.
  REQUIRE(round(0) == Status::Success);
}

TEST_CASE("host flow: repeated calls with pinned operands replay a CUDA graph", "[gpu][host_flow]") {
  using WarpTiled = gemm::preset::WarpTiled;  // one deterministic kernel: replays must match bit for bit
  const int m = 301, n = 517, k = 259;
  std::vector<float> a(m * k), b(k * n), c0(m * n), a2(m * k);
  gemm_test::fill_random(a);
  gemm_test::fill_random(b);
  gemm_test::fill_random(c0);
  gemm_test::fill_random(a2);
  host::release_cache();
  HostArray<float> pa(a.size(), Mem::Pinned), pb(b.size(), Mem::Pinned), pc(c0.size(), Mem::Pinned);
  pa.assign(a);
  pb.assign(b);
  // What each call must give: the same call, enqueued operation by operation.
  std::vector<float> want(c0.size());
  auto eager = [&](float beta, std::vector<float> c_in) {
    HostArray<float> ec(c_in.size(), Mem::Pinned);
    ec.assign(c_in);
    host::Options no_graph;
    no_graph.reuse_graphs = false;
    REQUIRE(host::gemm<float, WarpTiled>(m, n, k, 1.5f, pa.ptr, k, pb.ptr, n, beta, ec.ptr, n, no_graph) ==
            Status::Success);
    return ec.vec();
  };
  auto call = [&](float beta, bool& graph) {
    host::Report rep;
    host::Options opt;
    opt.report = &rep;
    const Status s = host::gemm<float, WarpTiled>(m, n, k, 1.5f, pa.ptr, k, pb.ptr, n, beta, pc.ptr, n, opt);
    graph = rep.graph;
    return s;
  };
  bool graph = true;
  // beta = 0: the first call runs as usual, the second is captured and replayed, the third replayed.
  want = eager(0.f, c0);
  for (int i = 0; i < 3; ++i) {
    pc.assign(c0);
    REQUIRE(call(0.f, graph) == Status::Success);
    CHECK(graph == (i > 0));
    CHECK(std::memcmp(pc.ptr, want.data(), want.size() * sizeof(float)) == 0);
  }
  const host::CacheStats st = host::cache_stats();
  CHECK(st.graphs >= 1);
  CHECK(st.graph_bytes > 0);
  // The graph reads A, B and C when it runs: new contents of A, and beta = 1 accumulating into C.
  pa.assign(a2);
  want = eager(0.f, c0);
  pc.assign(c0);
  REQUIRE(call(0.f, graph) == Status::Success);
  CHECK(graph);
  CHECK(std::memcmp(pc.ptr, want.data(), want.size() * sizeof(float)) == 0);
  std::vector<float> acc = c0;
  pc.assign(c0);
  for (int i = 0; i < 3; ++i) {
    acc = eager(1.f, acc);
    REQUIRE(call(1.f, graph) == Status::Success);
    CHECK(graph == (i > 0));  // other scalars: another graph
    CHECK(std::memcmp(pc.ptr, acc.data(), acc.size() * sizeof(float)) == 0);
  }
  // Asynchronous calls replay the same graph on the caller's stream.
  cudaStream_t stream = nullptr;
  CUDA_REQUIRE(cudaStreamCreate(&stream));
  want = eager(0.f, c0);
  for (int i = 0; i < 2; ++i) {
    pc.assign(c0);
    host::Report rep;
    host::Options opt;
    opt.report = &rep;
    REQUIRE(host::gemm_async<float, WarpTiled>(m, n, k, 1.5f, pa.ptr, k, pb.ptr, n, 0.f, pc.ptr, n, stream, opt) ==
            Status::Success);
    CUDA_REQUIRE(cudaStreamSynchronize(stream));
    CHECK(rep.graph);
    CHECK(std::memcmp(pc.ptr, want.data(), want.size() * sizeof(float)) == 0);
  }
  CUDA_REQUIRE(cudaStreamDestroy(stream));
  // Pageable C: never a graph (the copies go through staging on host threads).
  std::vector<float> page_c(c0);
  for (int i = 0; i < 3; ++i) {
    host::Report rep;
    host::Options opt;
    opt.report = &rep;
    page_c = c0;
    REQUIRE(host::gemm<float, WarpTiled>(m, n, k, 1.5f, pa.ptr, k, pb.ptr, n, 0.f, page_c.data(), n, opt) ==
            Status::Success);
    CHECK(!rep.graph);
    CHECK(std::memcmp(page_c.data(), want.data(), want.size() * sizeof(float)) == 0);
  }
  // release_cache() drops the graphs and their device memory.
  host::release_cache();
  const host::CacheStats released = host::cache_stats();
  CHECK(released.graphs == 0);
  CHECK(released.graph_bytes == 0);
  pc.assign(c0);
  REQUIRE(call(0.f, graph) == Status::Success);
  CHECK(!graph);
  CHECK(std::memcmp(pc.ptr, want.data(), want.size() * sizeof(float)) == 0);
}

TEST_CASE("host flow: the report and the timeline", "[gpu][host_flow]") {
  const int m = 512, n = 384, k = 256;
  std::vector<float> a(m * k), b(k * n), c(m * n);
  gemm_test::fill_random(a);
  gemm_test::fill_random(b);
  for (Mem mem : {Mem::Pinned, Mem::Pageable})
    for (host::Staging staging : {host::Staging::CallingThread, host::Staging::Callbacks}) {
      HostArray<float> pa(a.size(), mem), pb(b.size(), mem), pc(c.size(), mem);
      pa.assign(a);
      pb.assign(b);
      host::Report rep;
      host::Options opt;
      opt.report = &rep;
      opt.timeline = true;
      opt.block_rows = 128;
      opt.block_cols = n;
      opt.k_slices = 1;
      opt.staging = staging;
      REQUIRE(host::gemm<float>(m, n, k, 1.f, pa.ptr, k, pb.ptr, n, 0.f, pc.ptr, n, opt) == Status::Success);
      INFO(rep.plan);
      CHECK(rep.in_core);
      CHECK(rep.row_blocks == 4);
      CHECK(rep.pinned_a == (mem == Mem::Pinned));
      CHECK(rep.h2d_bytes == static_cast<double>(m * k + k * n) * 4);
      CHECK(rep.d2h_bytes == static_cast<double>(m * n) * 4);
      CHECK(rep.predicted_ms > 0);
      REQUIRE(!rep.timeline.empty());
      int gemms = 0;
      double last_end[16] = {};
      for (const host::Span& s : rep.timeline) {
        CHECK(s.end_ms >= s.start_ms);
        CHECK(s.start_ms >= 0);
        gemms += std::string(s.kind) == "gemm";
        REQUIRE(s.lane >= 0);
        REQUIRE(s.lane < 16);
        if (std::string(s.kind) != "stage in" && std::string(s.kind) != "stage out") {  // a stream runs in order
          CHECK(s.start_ms >= last_end[s.lane] - 1e-3);
          last_end[s.lane] = s.end_ms;
        }
      }
      CHECK(gemms == 4);
      std::vector<double> ref(c.size());
      gemm::reference::gemm<float>(m, n, k, 1.0, a.data(), k, b.data(), n, 0.0, nullptr, n, ref.data(), n);
      long long wrong = 0;
      for (std::size_t i = 0; i < c.size(); ++i) wrong += !(std::fabs(pc.ptr[i] - ref[i]) <= 1e-4 * (1 + std::fabs(ref[i])));
      CHECK(wrong == 0);
    }
  // Give back the pinned staging the pageable calls above left cached, so that a leak check over
  // [host_flow] (compute-sanitizer --leak-check full) sees what the library leaves behind, not
  // what it keeps on purpose between calls.
  host::release_cache();
}

TEST_CASE("host flow, large: 2048^3 fp32 and out-of-core bf16 against the device call", "[gpu][host_flow][slow]") {
  {
    const Case c{2048, 2048, 2048, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true};
    Run r;
    bitwise_case<float, gemm::preset::WarpTiled>(c, r);
    r.a = r.b = r.c = Mem::Pageable;
    bitwise_case<float, gemm::preset::WarpTiled>(c, r);
  }
  {
    const Case c{3000, 2500, 2048, 1.0, 0.5};
    Run r;
    r.opt.device_budget = 16u << 20;  // operands 12 + 10 + 15 MB
    host_case<__nv_bfloat16>(c, r);
    r.opt.k_slices = 1;
    r.a = r.b = r.c = Mem::Pageable;
    host_case<__nv_bfloat16, gemm::DefaultPolicy, float>(c, r);
  }
  {
    // 4096^3 bf16 in 64 MiB (96 MiB of operands): all of A stays, loaded row block by row block as
    // the first column pass reaches it, while B panels stream; each operand crosses once.
    const Case c{4096, 4096, 4096, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true};
    Run r;
    r.opt.device_budget = 64u << 20;
    host::Report report;
    bitwise_case<__nv_bfloat16, gemm::preset::WarpTiled>(c, r, &report);
    INFO(report.plan);
    CHECK(!report.in_core);
    CHECK(report.row_blocks > 1);
    CHECK(report.col_blocks > 1);
    CHECK(report.h2d_bytes == 2.0 * 4096 * 4096 * sizeof(__nv_bfloat16));
  }
  // As above: the pageable calls' staging block back, so that a leak check of the whole suite (this
  // case runs last) reports what the library leaves behind, not its cache.
  host::release_cache();
}
