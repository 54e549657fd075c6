// The decode kernel (DecodePolicy, mma/decode_kernel.cuh): a few tokens against a K-major weight, on
// mma.sync with the weight's rows on its 16-row side. Tokens as A's rows (B stored transposed), as
// B's rows (stored transposed) or columns (row-major, any alignment; run on a transposed copy of B,
// bitwise the same as B stored transposed): every count of one and two
// token tiles, ragged weight rows (not a multiple of 16) and k (not a multiple of a warp step, or of
// a 16-byte piece, with padded rows), rows aligned to 16 bytes or to 8 only (pieces in two halves),
// alpha and beta, NaN under beta = 0, fp16 and float C, the column-major entry point, a fused
// epilogue; k shared across blocks (narrow B) bitwise the same from call to call and through a CUDA
// graph; calls it does not serve refused before any launch; Tuned taking it for decode.
#include <cstring>
#include "epilogue_check.cuh"

namespace {

using gemm::Op;
using gemm::Status;
using gemm_test::Case;
using Tuned = gemm::preset::Tuned;
using bf16 = __nv_bfloat16;
// Tuned's composition, and the same with two token tiles (m up to 16).
using Decode = Tuned::Decode;
using Decode16 = gemm::DecodePolicy<gemm::mma::DecodeTile<1, 1, 16, 4>, 2, 16>;

bool on_sm80() {
  int dev = 0, major = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  return major >= 8;
}

// A Case with B stored transposed (n x k) and A row-major, rows padded to a multiple of 8 elements.
Case nt(int m, int n, int k, double alpha = 1.0, double beta = 0.0, bool nan_c = false, int pad_c = 0) {
  const int pad = (8 - k % 8) % 8;
  return Case{m, n, k, alpha, beta, pad, pad, pad_c, 0, 0, 0, nan_c}.with_ops(Op::N, Op::T);
}
// A Case with A and B row-major, A's rows padded to a multiple of 8 elements, B's by pad_b (any).
Case nn(int m, int n, int k, double alpha = 1.0, double beta = 0.0, bool nan_c = false, int pad_b = 0) {
  return Case{m, n, k, alpha, beta, (8 - k % 8) % 8, pad_b, 0, 0, 0, 0, nan_c};
}

}  // namespace

TEST_CASE("decode kernel: every m of its token tiles, ragged n and k, alpha, beta, NaN C", "[gpu][decode]") {
  if (!on_sm80()) {
    WARN("the decode kernel needs sm_80+ (mma.sync): not run here");
    return;
  }
  const bool q = gemm_test::quick();
  for (int m : {1, 2, 3, 5, 8}) {
    gemm_test::run_case<Decode, bf16>(nt(m, 1000, 1000, 1.5, 0.0, true));
    gemm_test::run_case<Decode, bf16>(nt(m, 17, 1004, -1.0, 0.5, false, 3));  // k: 31 steps and half a piece
    gemm_test::run_case<Decode, bf16>(nt(m, 4101, q ? 512 : 4096, 0.75, -1.25));
  }
  for (int m : {9, 13, 16}) {
    gemm_test::run_case<Decode16, bf16>(nt(m, 1000, 1000, 1.5, 0.0, true));
    gemm_test::run_case<Decode16, bf16>(nt(m, 333, 24, 1.0, 1.0));
    gemm_test::run_case<Decode16, __half, float>(nt(m, 2049, 2056, 1.0, 0.5));
  }
  // One row of B, one k piece; k of 8 (a quarter of a warp step); n of 1.
  gemm_test::run_case<Decode, bf16>(nt(1, 1, 8));
  gemm_test::run_case<Decode, bf16>(nt(4, 16, 8, 2.0, 0.0, true));
  gemm_test::run_case<Decode, __half>(nt(7, 4096 + 16, 1536, 1.0, 0.25));
  gemm_test::run_case<Decode, bf16, float>(nt(8, 3000, 520, -0.5, 1.0));
  // The column-major entry point (C^T = B^T A^T reaches the row-major core as A row-major, B transposed).
  gemm_test::run_case<Decode, bf16>(nt(6, 1001, 2048, 1.0, 0.5).with_ops(Op::N, Op::T, true));
}

TEST_CASE("decode kernel: the tokens in B, as rows (stored transposed) or columns (row-major)", "[gpu][decode]") {
  if (!on_sm80()) {
    WARN("the decode kernel needs sm_80+ (mma.sync): not run here");
    return;
  }
  for (int n : {1, 3, 8}) {
    gemm_test::run_case<Decode, bf16>(nt(1000, n, 1000, 1.5, 0.0, true));      // rows of B
    gemm_test::run_case<Decode, bf16>(nn(1000, n, 1000, -1.0, 0.5, false, 1));  // columns, ldb = n + 1
    gemm_test::run_case<Decode, bf16>(nn(4101, n, 1004, 0.75, -1.25));
  }
  gemm_test::run_case<Decode16, bf16>(nn(2049, 13, 2056, 1.0, 0.0, true, 3));
  gemm_test::run_case<Decode16, __half, float>(nt(333, 16, 24, 1.0, 1.0));
  gemm_test::run_case<Decode, __half>(nn(17, 2, 8, 2.0, 0.0));
  gemm_test::run_case<Decode, bf16, float>(nn(3000, 7, 520, -0.5, 1.0, false, 5).with_ops(Op::N, Op::N, true));
  gemm_test::run_case<Decode, bf16>(nt(2000, 4, 4096, 1.0, 0.5).with_ops(Op::N, Op::T, true));
  gemm_test::run_case<Decode, bf16>(nn(48, 5, 16384, 1.0, 0.0));  // 3 blocks of weight rows: k sliced
  gemm_test::run_case<Decode, bf16>(nn(7705, 4, 6960, 1.0, 0.0));
  gemm_test::run_case<Decode, bf16>(nn(gemm_test::quick() ? 2048 : 8192, 3, 8192, 1.0, 0.0));
  // Tuned takes it where the tokens are B's rows, too.
  gemm_test::run_case<Tuned, bf16>(nt(4096, 4, 4096, 1.0, 0.0, true));
  gemm_test::run_case<Tuned, bf16>(nt(3001, 8, 1000, 1.0, 0.5).with_ops(Op::N, Op::T, true));
}

TEST_CASE("decode kernel: the tokens as B's columns give C bitwise as B stored transposed does", "[gpu][decode]") {
  if (!on_sm80()) {
    WARN("the decode kernel needs sm_80+ (mma.sync): not run here");
    return;
  }
  // B's columns run on a transposed copy of B, as the same B stored transposed runs on itself: the
  // same kernel on the same values, so the same bits. B row-major with ldb = n + 3 and one element
  // into its allocation (no alignment at all); A's rows 16- and 8-byte aligned (k = 4096, 4100);
  // k sliced across blocks (48 weight rows); a k of 8.
  struct Shape {
    int m, n, k;
  };
  for (const Shape& sh : {Shape{2053, 3, 4096}, Shape{777, 8, 4100}, Shape{48, 5, 16384}, Shape{1000, 1, 8}}) {
    INFO(sh.m << " x " << sh.n << " x " << sh.k);
    const int m = sh.m, n = sh.n, k = sh.k, ldb = n + 3;
    std::vector<bf16> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(k) * ldb + 1), bt(static_cast<size_t>(n) * k);
    gemm_test::fill_random(a);
    gemm_test::fill_random(b);
    for (int kk = 0; kk < k; ++kk)
      for (int j = 0; j < n; ++j) bt[static_cast<size_t>(j) * k + kk] = b[1 + static_cast<size_t>(kk) * ldb + j];
    gemm_test::DeviceBuffer<bf16> da(a.size()), db(b.size()), dbt(bt.size()), c1(static_cast<size_t>(m) * n),
        c2(c1.count);
    gemm_test::upload(da, a);
    gemm_test::upload(db, b);
    gemm_test::upload(dbt, bt);
    CUDA_REQUIRE(cudaMemset(c1.ptr, 0xff, c1.count * sizeof(bf16)));  // NaN under beta = 0
    CUDA_REQUIRE(cudaMemset(c2.ptr, 0xff, c2.count * sizeof(bf16)));
    REQUIRE(gemm::gemm<bf16, Decode>(Op::N, Op::N, m, n, k, 1.25f, da.ptr, k, db.ptr + 1, ldb, 0.0f, c1.ptr, n) ==
            Status::Success);
    REQUIRE(gemm::gemm<bf16, Decode>(Op::N, Op::T, m, n, k, 1.25f, da.ptr, k, dbt.ptr, k, 0.0f, c2.ptr, n) ==
            Status::Success);
    const std::vector<bf16> h1 = gemm_test::read_back(c1.ptr, c1.count), h2 = gemm_test::read_back(c2.ptr, c2.count);
    CHECK(std::memcmp(h1.data(), h2.data(), h1.size() * sizeof(bf16)) == 0);
    gemm_test::run_case<Decode, bf16>(Case{m, n, k, 1.25, 0.0, (8 - k % 8) % 8, 3, 0, 0, 1, 0, true});
  }
}

TEST_CASE("decode kernel: k shared across blocks, bitwise the same from call to call and in a graph",
          "[gpu][decode][splitk]") {
  if (!on_sm80()) {
    WARN("the decode kernel needs sm_80+ (mma.sync): not run here");
    return;
  }
  // 32 rows of B: two blocks of 16 warps each, far fewer than 16 warps per SM, so k is sliced.
  const int m = 5, n = 32, k = 16384;
  gemm_test::DeviceBuffer<bf16> probe(1);
  const gemm::Plan plan = gemm::plan<bf16, Decode>(Op::N, Op::T, m, n, k, 1.0f, probe.ptr, k, probe.ptr, k, 0.0f,
                                                   probe.ptr, n);
  INFO(plan.describe());
  REQUIRE(plan.workspace_bytes > 0);  // the slices' partial sums and the counters
  gemm_test::run_case<Decode, bf16>(nt(m, n, k, 1.0, 0.0, true));
  gemm_test::run_case<Decode16, bf16>(nt(11, 40, 8192 + 8, -1.0, 0.5));

  gemm_test::check_bitwise_repeatable<Decode, bf16>(m, n, k);
}

TEST_CASE("decode kernel: a fused epilogue; Tuned takes the kernel for a few tokens", "[gpu][decode][epilogue]") {
  if (!on_sm80()) {
    WARN("the decode kernel needs sm_80+ (mma.sync): not run here");
    return;
  }
  using namespace epilogue_test;
  run_fused<Decode, bf16, bf16, act::GeluTanh, float, Entries::Every>({nt(4, 2048 + 8, 4096, 1.0, 0.5),
                                                                       BiasKind::PerColumn});
  run_fused<Decode, bf16, float, act::SiLU, float, Entries::Every>({nt(8, 1000, 1000, 1.0, 0.0), BiasKind::PerRow, true});
  run_fused<Decode, bf16, bf16, act::ReLU, float, Entries::Every>({nt(3, 40, 16384, -1.0, 1.0),
                                                                  BiasKind::PerColumn});  // k sliced
  // Tuned: m up to decode.max_m with A row-major and B transposed; not m beyond it, not another layout.
  // (A weight of 28672 rows: on Hopper a weight whose 64-row tiles take more than a quarter round of
  // the SMs and at most one turns around instead, hopper_turned_test.cu.)
  gemm_test::DeviceBuffer<bf16> probe(1);
  const auto composition = [&](int m, Op op_b) {
    return gemm_test::tuned_composition<bf16>(probe.ptr, Op::N, op_b, m, 28672, 4096);
  };
  const int max_m = gemm::rules_for(90).decode.max_m;
  CHECK(composition(1, Op::T).find("DecodePolicy") != std::string::npos);
  CHECK(composition(max_m, Op::T).find("DecodePolicy") != std::string::npos);
  CHECK(composition(max_m + 1, Op::T).find("DecodePolicy") == std::string::npos);
  CHECK(composition(4, Op::N).find("DecodePolicy") == std::string::npos);  // 4 x 28672 x 4096, B row-major
  for (int m : {1, 4, max_m}) {
    gemm_test::run_case<Tuned, bf16>(nt(m, 9000, 4096, 1.0, 0.0, true));  // 141 tiles of 64 rows
    gemm_test::run_case<Tuned, __half, float>(nt(m, 1000, 2048, 0.5, 1.0).with_ops(Op::N, Op::T, true));
  }
}

// Rows of 8-byte but not 16-byte multiples (k an odd multiple of 4, or pointers 8 bytes off): each
// 16-byte piece loads in two halves; a last partial step of 4 to 28 k, k in slices too.
TEST_CASE("decode kernel: rows aligned to 8 bytes, on every side", "[gpu][decode]") {
  if (!on_sm80()) {
    WARN("the decode kernel needs sm_80+ (mma.sync): not run here");
    return;
  }
  for (int m : {1, 5, 8}) {
    gemm_test::run_case<Decode, bf16>(Case{m, 1000, 1004, 1.5, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T));
    gemm_test::run_case<Decode, bf16>(Case{m, 333, 36, -1.0, 0.5, 8, 4}.with_ops(Op::N, Op::T));  // padded rows
    gemm_test::run_case<Decode, __half, float>(Case{m, 2049, 4092, 1.0, 0.5, 0, 0, 0, 4, 4}.with_ops(Op::N, Op::T));
    gemm_test::run_case<Decode16, bf16>(Case{m + 8, 517, 300, 0.5, -1.0}.with_ops(Op::N, Op::T));
    // 300 rows of the weight: k in 7 slices of 90 steps (the last 86), its last step 4 k long.
    gemm_test::run_case<Decode, bf16>(Case{m, 300, 20004, 1.0, -0.5}.with_ops(Op::N, Op::T));
    gemm_test::run_case<Decode, __half, float>(Case{m, 300, 1020, 0.5, 1.0}.with_ops(Op::N, Op::T));  // a last step of 28 k
  }
  for (int n : {1, 3, 8}) {
    gemm_test::run_case<Decode, bf16>(Case{2053, n, 1004, 1.0, 0.25}.with_ops(Op::N, Op::T));          // B's rows
    gemm_test::run_case<Decode, bf16>(Case{2053, n, 1004, 1.0, 0.0, 0, 3, 0, 0, 0, 0, true});          // B's columns
    gemm_test::run_case<Decode, __half>(Case{777, n, 6956, 0.75, 1.0, 4, 1, 0, 4});                     // A 8 bytes off
  }
  // Tuned takes it for such rows too (16-byte rows: one load per piece, these: two).
  const auto plan = [](int m, int n, int k, Op op_b) {
    const gemm::Plan p = gemm::plan<bf16>(Op::N, op_b, m, n, k, 1.0f, reinterpret_cast<const bf16*>(256), k,
                                          reinterpret_cast<const bf16*>(256), op_b == Op::T ? k : n, 0.0f,
                                          reinterpret_cast<bf16*>(256), n);
    return p.composition;
  };
  CHECK(plan(4, 4096, 4100, Op::T).find("DecodePolicy<") != std::string::npos);
  CHECK(plan(7705, 4, 6956, Op::N).find("DecodePolicy<") != std::string::npos);
  gemm_test::run_case<Tuned, bf16>(Case{7705, 4, 6956, 1.0, 0.0});
}

TEST_CASE("decode kernel: calls it does not serve are refused before any launch", "[gpu][decode]") {
  if (!on_sm80()) {
    WARN("the decode kernel needs sm_80+ (mma.sync): not run here");
    return;
  }
  const int n = 256, k = 256;
  gemm_test::DeviceBuffer<bf16> a(32 * (k + 8) + 8), b(n * (k + 8) + 8), c(32 * n);
  CUDA_REQUIRE(cudaMemset(c.ptr, 0, 32 * n * sizeof(bf16)));
  const auto run = [&](Op op_a, Op op_b, int m, const bf16* pa, int lda, const bf16* pb, int ldb) {
    const unsigned long long before = gemm::kernel_launches();
    const Status s = gemm::gemm<bf16, Decode>(op_a, op_b, m, n, k, 1.0f, pa, lda, pb, ldb, 0.0f, c.ptr, n);
    CHECK(gemm::kernel_launches() == before);
    return s;
  };
  CHECK(run(Op::N, Op::T, 9, a.ptr, k, b.ptr, k) == Status::UnsupportedShape);        // 9 tokens, 256 of n
  CHECK(run(Op::N, Op::N, 4, a.ptr, k, b.ptr, n) == Status::UnsupportedShape);        // B row-major, n of 256
  CHECK(run(Op::T, Op::T, 4, a.ptr, 8, b.ptr, k) == Status::UnsupportedShape);        // A stored transposed
  CHECK(run(Op::N, Op::T, 4, a.ptr, k + 1, b.ptr, k) == Status::MisalignedA);         // rows of 514 bytes
  CHECK(run(Op::N, Op::T, 4, a.ptr, k, b.ptr + 2, k) == Status::MisalignedB);         // 4 bytes off
  CHECK(run(Op::N, Op::T, 4, a.ptr, k, b.ptr, k + 2) == Status::MisalignedB);         // rows of 516 bytes
  std::vector<bf16> host(32 * n);
  CUDA_REQUIRE(cudaMemcpy(host.data(), c.ptr, host.size() * sizeof(bf16), cudaMemcpyDeviceToHost));
  for (const bf16& x : host) REQUIRE(gemm::detail::convert<float>(x) == 0.0f);  // nothing written
}
