#pragma once
// gemm_distributed_tests' harness: one process drives every GPU through a LocalGroup (main.cu makes
// it once). A case makes random whole matrices on the host, an fp64 reference, and the single-GPU
// result (gemm::gemm on device 0, same op variant); then, for each algorithm, cuts every rank's
// shards out of the whole matrices (stored_block, with padded rows if the case asks), runs
// gemm::distributed::gemm and checks every element of every rank's C against the reference (the
// error bound of test/gpu/check.cuh) and against the single-GPU result (twice that bound), and
// that the padding of each C shard and a guard row after it were not written.
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>
#include <cuda_runtime.h>
#include <gemm/distributed/gemm.cuh>
#include "../gpu/check.cuh"

namespace dist_test {

namespace gd = gemm::distributed;
using gemm::Op;

// The group of every GPU of the process (main.cu).
gd::LocalGroup& group();

// What the run is doing, for the watchdog's message if it hangs.
void set_activity(const std::string& what);

struct Case {
  int m, n, k;
  double alpha = 1.0, beta = 0.0;
  bool nan_in_c = false;  // with beta == 0: C starts as NaN, which must not survive
  int pad = 0;            // extra elements in every stored row of every shard

  std::string str() const {
    std::ostringstream s;
    s << "m=" << m << " n=" << n << " k=" << k << " alpha=" << alpha << " beta=" << beta
      << (nan_in_c ? " C=NaN" : "") << " pad=" << pad;
    return s.str();
  }
};

// The shapes every type runs on: smaller than the number of ranks, odd, padded (misaligned rows:
// the all-gather packs its block), 16-byte rows (bf16: the Hopper kernel on every shard), k = 0,
// alpha = 0, an empty C.
inline std::vector<Case> standard_cases() {
  return {
      {1, 1, 1},
      {3, 2, 5},
      {37, 53, 71},
      {37, 53, 71, 0.75, -0.5},
      {37, 53, 71, 1.0, 0.0, true},
      {129, 67, 250, 1.0, 0.5, false, 3},
      {64, 96, 128},
      {256, 384, 192, 1.0, 1.0},
      {17, 19, 0, 1.0, 0.5},
      {23, 29, 31, 0.0, 2.0},
      {0, 5, 3},
      {4, 0, 6, 1.0, 1.0},
      {300, 257, 511, 1.0, 0.0, false, 1},
  };
}

// Small cases for compute-sanitizer (tag [memcheck]).
inline std::vector<Case> memcheck_cases() { return {{37, 53, 71, 0.75, -0.5, false, 1}, {128, 256, 64}}; }

template <class E>
struct DeviceArray {
  int device = 0;
  E* ptr = nullptr;
  size_t count = 0;
  DeviceArray(int dev, size_t n) : device(dev), count(n) {
    cudaSetDevice(dev);
    const cudaError_t err = cudaMalloc(&ptr, std::max<size_t>(n, 1) * sizeof(E));
    INFO("cudaMalloc of " << n * sizeof(E) << " bytes on device " << dev << ": " << cudaGetErrorString(err));
    REQUIRE(err == cudaSuccess);
  }
  ~DeviceArray() {
    cudaSetDevice(device);
    cudaFree(ptr);
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  void upload(const std::vector<E>& v) {
    cudaSetDevice(device);
    CUDA_REQUIRE(cudaMemcpy(ptr, v.data(), std::min(v.size(), count) * sizeof(E), cudaMemcpyHostToDevice));
  }
  std::vector<E> download() const {
    std::vector<E> v(count);
    cudaSetDevice(device);
    CUDA_REQUIRE(cudaMemcpy(v.data(), ptr, count * sizeof(E), cudaMemcpyDeviceToHost));
    return v;
  }
};

template <class E>
bool same_bits(const E& a, const E& b) {
  return std::memcmp(&a, &b, sizeof(E)) == 0;
}

// rows x cols of `whole` (row-major, ld whole_ld) starting at (row, col), rows ld apart, `extra_rows`
// more rows, and everything outside the block set to `fill`.
template <class E>
std::vector<E> cut(const std::vector<E>& whole, int whole_ld, const gd::Block& b, int ld, int extra_rows, E fill) {
  std::vector<E> out(static_cast<size_t>(b.rows + extra_rows) * ld, fill);
  for (int i = 0; i < b.rows; ++i)
    for (int j = 0; j < b.cols; ++j)
      out[static_cast<size_t>(i) * ld + j] = whole[static_cast<size_t>(b.row + i) * whole_ld + b.col + j];
  return out;
}

// A case's whole matrices, its fp64 reference and its single-GPU result.
template <class T, class Out>
struct Data {
  using In = gemm::storage_t<T>;
  using S = gemm::scalar_t<T>;
  Case c;
  Op op_a, op_b;
  int a_rows, a_cols, b_rows, b_cols;  // as stored
  std::vector<In> a, b;
  std::vector<Out> c0;  // m x n
  std::vector<double> ref, mag;
  std::vector<Out> single;

  Data(const Case& cs, Op oa, Op ob) : c(cs), op_a(oa), op_b(ob) {
    a_rows = op_a == Op::N ? c.m : c.k;
    a_cols = op_a == Op::N ? c.k : c.m;
    b_rows = op_b == Op::N ? c.k : c.n;
    b_cols = op_b == Op::N ? c.n : c.k;
    a.resize(static_cast<size_t>(a_rows) * a_cols);
    b.resize(static_cast<size_t>(b_rows) * b_cols);
    c0.resize(static_cast<size_t>(c.m) * c.n);
    gemm_test::fill_random(a);
    gemm_test::fill_random(b);
    std::uniform_real_distribution<double> u(-1, 1);
    for (auto& x : c0)
      x = gemm::detail::convert<Out>(c.nan_in_c ? std::numeric_limits<double>::quiet_NaN() : u(gemm_test::rng()));

    const size_t mn = static_cast<size_t>(c.m) * c.n;
    ref.assign(mn, 0.0);
    mag.assign(mn, 0.0);
    std::vector<double> abs_a(a.size()), abs_b(b.size());
    for (size_t i = 0; i < a.size(); ++i) abs_a[i] = std::fabs(gemm_test::to_double(a[i]));
    for (size_t i = 0; i < b.size(); ++i) abs_b[i] = std::fabs(gemm_test::to_double(b[i]));
    const bool ta = op_a == Op::T, tb = op_b == Op::T;
    if (mn > 0) {
      gemm::reference::gemm<In, Out>(ta, tb, c.m, c.n, c.k, c.alpha, a.data(), std::max(1, a_cols), b.data(),
                                     std::max(1, b_cols), c.beta, c.beta != 0 ? c0.data() : nullptr, c.n, ref.data(),
                                     c.n);
      gemm::reference::gemm<double, double>(ta, tb, c.m, c.n, c.k, std::fabs(c.alpha), abs_a.data(), std::max(1, a_cols),
                                            abs_b.data(), std::max(1, b_cols), 0.0, nullptr, 1, mag.data(), c.n);
    }
    single_gpu();
  }

  void single_gpu() {
    single = c0;
    if (c.m == 0 || c.n == 0) return;
    const int dev = group().device(0);
    DeviceArray<In> da(dev, a.size()), db(dev, b.size());
    DeviceArray<Out> dc(dev, c0.size());
    da.upload(a);
    db.upload(b);
    dc.upload(c0);
    cudaSetDevice(dev);
    const gemm::Status s = gemm::gemm<T>(op_a, op_b, c.m, c.n, c.k, static_cast<S>(c.alpha), da.ptr, std::max(1, a_cols),
                                         db.ptr, std::max(1, b_cols), static_cast<S>(c.beta), dc.ptr, c.n);
    INFO("single-GPU gemm::gemm: " << gemm::to_string(s));
    REQUIRE(s == gemm::Status::Success);
    CUDA_REQUIRE(cudaDeviceSynchronize());
    single = dc.download();
  }

  std::string str() const {
    std::ostringstream s;
    s << gemm::type_name<T, Out>() << " op(A)=" << gemm::to_string(op_a) << " op(B)=" << gemm::to_string(op_b) << " "
      << c.str();
    return s.str();
  }
};

// One algorithm's shards of a case on every rank of `g`.
template <class T, class Out>
struct Shards {
  using In = gemm::storage_t<T>;
  gd::Algorithm alg;
  int p;
  std::vector<std::unique_ptr<DeviceArray<In>>> a, b;
  std::vector<std::unique_ptr<DeviceArray<Out>>> c;
  std::vector<gd::Block> c_block;
  std::vector<int> ldc;
  std::vector<gd::Shard<const In>> A, B;
  std::vector<gd::Shard<Out>> C;

  Shards(const Data<T, Out>& d, gd::Algorithm algorithm, gd::LocalGroup& g) : alg(algorithm), p(g.size()) {
    const Case& cs = d.c;
    for (int r = 0; r < p; ++r) {
      const int dev = g.device(r);
      const gd::Block ba = gd::stored_block(alg, gd::Operand::A, d.op_a, cs.m, cs.n, cs.k, p, r);
      const gd::Block bb = gd::stored_block(alg, gd::Operand::B, d.op_b, cs.m, cs.n, cs.k, p, r);
      const gd::Block bc = gd::stored_block(alg, gd::Operand::C, Op::N, cs.m, cs.n, cs.k, p, r);
      const int lda = std::max(1, ba.cols) + cs.pad, ldb = std::max(1, bb.cols) + cs.pad;
      ldc.push_back(std::max(1, bc.cols) + cs.pad);
      c_block.push_back(bc);
      const In fill_in = gemm_test::sentinel<In>();
      a.push_back(std::make_unique<DeviceArray<In>>(dev, static_cast<size_t>(ba.rows) * lda));
      b.push_back(std::make_unique<DeviceArray<In>>(dev, static_cast<size_t>(bb.rows) * ldb));
      c.push_back(std::make_unique<DeviceArray<Out>>(dev, static_cast<size_t>(bc.rows + 1) * ldc.back()));
      a.back()->upload(cut(d.a, std::max(1, d.a_cols), ba, lda, 0, fill_in));
      b.back()->upload(cut(d.b, std::max(1, d.b_cols), bb, ldb, 0, fill_in));
      // Empty shards are passed as null pointers: nothing may read or write them.
      A.emplace_back(ba.rows * ba.cols > 0 ? a.back()->ptr : nullptr, ba.rows, ba.cols, lda);
      B.emplace_back(bb.rows * bb.cols > 0 ? b.back()->ptr : nullptr, bb.rows, bb.cols, ldb);
      C.emplace_back(bc.rows * bc.cols > 0 ? c.back()->ptr : nullptr, bc.rows, bc.cols, ldc.back());
    }
    reset_c(d);
  }

  // Every C shard back to the case's C, its padding and guard row to the sentinel.
  void reset_c(const Data<T, Out>& d) {
    for (int r = 0; r < p; ++r)
      c[r]->upload(cut(d.c0, std::max(1, d.c.n), c_block[r], ldc[r], 1, gemm_test::sentinel<Out>()));
  }
};

// Checks every rank's C against the reference and the single-GPU result, and that nothing outside
// the C blocks was written.
template <class T, class Out>
void check_result(const Data<T, Out>& d, const Shards<T, Out>& s, const std::string& what) {
  const gemm_test::ErrorModel<T, Out> model;
  const int n = d.c.n;
  size_t bad = 0, stray = 0;
  std::string first;
  for (int r = 0; r < s.p; ++r) {
    const std::vector<Out> got = s.c[r]->download();
    const gd::Block b = s.c_block[r];
    const int ld = s.ldc[r];
    for (int i = 0; i < b.rows + 1; ++i) {
      for (int j = 0; j < ld; ++j) {
        const Out x = got[static_cast<size_t>(i) * ld + j];
        if (i == b.rows || j >= n) {  // guard row, padding
          if (!same_bits(x, gemm_test::sentinel<Out>())) {
            if (stray++ == 0 && first.empty()) {
              std::ostringstream m;
              m << "rank " << r << " wrote outside its C block at (" << i << ", " << j << ")";
              first = m.str();
            }
          }
          continue;
        }
        const size_t at = static_cast<size_t>(b.row + i) * n + j;
        const double v = gemm_test::to_double(x), want = d.ref[at];
        const double beta_c = d.c.beta != 0 ? std::fabs(d.c.beta * gemm_test::to_double(d.c0[at])) : 0.0;
        const double bound = model.element(d.c.k, d.mag[at], beta_c, want);
        const double single = gemm_test::to_double(d.single[at]);
        const bool ok = std::isfinite(v) && std::fabs(v - want) <= bound && std::fabs(v - single) <= 2 * bound;
        if (!ok && bad++ == 0 && first.empty()) {
          std::ostringstream m;
          m << "rank " << r << " C(" << b.row + i << ", " << j << ") = " << v << ", reference " << want
            << ", single GPU " << single << ", bound " << bound;
          first = m.str();
        }
      }
    }
  }
  INFO(what << "\n" << first);
  CHECK(bad == 0);
  CHECK(stray == 0);
}

// Runs one algorithm on a case's data over group g and checks the result.
template <class T, class Out>
void run_and_check(gd::LocalGroup& g, const Data<T, Out>& d, gd::Algorithm alg) {
  using S = gemm::scalar_t<T>;
  const std::string what = std::string(gd::to_string(alg)) + " on " + std::to_string(g.size()) + " GPUs, " + d.str();
  set_activity(what);
  Shards<T, Out> s(d, alg, g);
  const gemm::Status st = gd::gemm<T>(g, alg, d.op_a, d.op_b, d.c.m, d.c.n, d.c.k, static_cast<S>(d.c.alpha), s.A,
                                      s.B, static_cast<S>(d.c.beta), s.C);
  INFO(what << ": " << gemm::to_string(st) << " (rank " << g.failed_rank() << ")");
  REQUIRE(st == gemm::Status::Success);
  REQUIRE(g.synchronize() == gemm::Status::Success);
  for (int r = 0; r < g.size(); ++r) {
    cudaSetDevice(g.device(r));
    CUDA_REQUIRE(cudaGetLastError());
  }
  check_result(d, s, what);
}

// Every algorithm on every case of `cases`, in the layouts given (default: all four).
template <class T, class Out>
void check_cases(gd::LocalGroup& g, const std::vector<Case>& cases,
                 const std::vector<std::pair<Op, Op>>& layouts = {{Op::N, Op::N}, {Op::N, Op::T}, {Op::T, Op::N},
                                                                  {Op::T, Op::T}}) {
  for (const Case& c : cases)
    for (const auto& [op_a, op_b] : layouts) {
      const Data<T, Out> d(c, op_a, op_b);
      for (gd::Algorithm alg : gd::kAlgorithms) run_and_check(g, d, alg);
    }
}

}  // namespace dist_test
