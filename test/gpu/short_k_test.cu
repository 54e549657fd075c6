// The small calls' CUDA-core kernels, any alignment and layout. ShortKPolicy
// (kernel/short_k_kernel.cuh): a k of a few elements; FewRowsPolicy (kernel/few_rows_kernel.cuh): an
// m of a few rows, k in slices of a thread block cluster where the columns make few blocks;
// DotRowsPolicy (kernel/dot_rows_kernel.cuh): the same in fp32 against B stored transposed. The
// preset cases (ragged, padded and misaligned, alpha, beta, NaN C under beta = 0, k = 0, every
// layout and the column-major entry point) with k (m) cut to what each serves, for
// float, double, bf16 and fp16 (C in the input type or float; FewRowsPolicy 16-bit only); tiles of C
// cut by both edges; a longer k (larger m) refused before any launch; Tuned taking them on sm_90 for
// 16-bit rows TMA cannot read within the rules (hopper.short_k_*, hopper.few_rows_*), a fused
// epilogue included.
#include <algorithm>
#include "epilogue_check.cuh"

namespace {

using gemm::Op;
using gemm_test::Case;
using Tuned = gemm::preset::Tuned;
using bf16 = __nv_bfloat16;
using ShortK = gemm::ShortKPolicy<16, 32>;
using FewRows = Tuned::FewRows;
using DotRows = Tuned::DotRows;

// The preset cases with k cut to 16 (0 and 1 stay).
struct KAtMost16 {
  Case operator()(Case c) const {
    c.k = std::min(c.k, 16);
    return c;
  }
};

// The preset cases with m cut to 8 (0 and 1 stay).
struct MAtMost8 {
  Case operator()(Case c) const {
    c.m = std::min(c.m, 8);
    return c;
  }
};

// The preset cases with m cut to 16, B stored transposed (A either way) with its rows and offset
// 16-byte aligned (what DotRowsPolicy reads); A and C keep their padding and offsets.
struct DotRowsCase {
  Op op_a;
  Case operator()(Case c) const {
    c.m = std::min(c.m, 16);
    c = c.with_ops(op_a, Op::T);
    const Case aligned = gemm_test::rows_aligned_to(c, 4);
    c.pad_b = aligned.pad_b;
    c.offset_b = aligned.offset_b;
    return c;
  }
};

// A row-major bf16 call of a shape Policy does not serve: UnsupportedShape, nothing launched, C as it was.
template <class Policy>
void check_refused(int m, int n, int k) {
  gemm_test::DeviceBuffer<bf16> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(k) * n), c(static_cast<size_t>(m) * n);
  CUDA_REQUIRE(cudaMemset(c.ptr, 0, static_cast<size_t>(m) * n * sizeof(bf16)));
  const unsigned long long before = gemm::kernel_launches();
  CHECK(gemm::gemm<bf16, Policy>(m, n, k, 1.0f, a.ptr, k, b.ptr, n, 0.0f, c.ptr, n) == gemm::Status::UnsupportedShape);
  CHECK(gemm::kernel_launches() == before);
  std::vector<bf16> after(static_cast<size_t>(m) * n);
  CUDA_REQUIRE(cudaMemcpy(after.data(), c.ptr, after.size() * sizeof(bf16), cudaMemcpyDeviceToHost));
  CHECK(std::all_of(after.begin(), after.end(), [](bf16 x) { return __bfloat162float(x) == 0.0f; }));
}

}  // namespace

TEST_CASE("ShortKPolicy matches the fp64 reference: every layout, ragged, padded, misaligned", "[gpu][shortk]") {
  gemm_test::check_preset<ShortK, float>(KAtMost16{});
  gemm_test::check_preset<ShortK, double>(KAtMost16{});
  gemm_test::check_preset<ShortK, bf16>(KAtMost16{});
  gemm_test::check_preset<ShortK, __half, float>(KAtMost16{});
  // Many blocks, the last row and column tiles cut (1000 = 31 x 32 + 8 rows, 9355 = 36 x 256 + 139
  // columns), odd leading dimensions and offset pointers.
  gemm_test::run_case<ShortK, bf16>(Case{1000, 9355, 4, 1.5, -0.5, 3, 1, 1, 1, 1, 1}.with_ops(Op::N, Op::T));
  gemm_test::run_case<ShortK, __half>(Case{33, 9355, 16, -1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::T, Op::T));
}

TEST_CASE("ShortKPolicy refuses a k longer than it serves before any launch", "[gpu][shortk]") {
  check_refused<ShortK>(64, 64, 17);
}

TEST_CASE("Tuned runs short-k calls whose rows TMA cannot read on ShortKPolicy", "[gpu][shortk][tuned]") {
  if (!gemm_test::is_sm90()) {
    WARN("the rule is measured for sm_90 only: not run here");
    return;
  }
  const gemm::HopperRules& h = gemm::rules_for(90).hopper;
  gemm_test::DeviceBuffer<bf16> probe(1);
  const auto composition = [&](int m, int n, int k, int lda) {
    return gemm::plan<bf16>(Op::N, Op::N, m, n, k, 1.0f, probe.ptr, lda, probe.ptr, n, 0.0f, probe.ptr, n)
        .composition;
  };
  CHECK(composition(431, 9355, 4, 4).find("ShortKPolicy") != std::string::npos);  // A's rows 8 bytes apart
  CHECK(composition(431, 9355, h.short_k_max_k, h.short_k_max_k + 1).find("ShortKPolicy") != std::string::npos);
  CHECK(composition(431, 9355, h.short_k_max_k + 1, h.short_k_max_k + 1).find("ShortKPolicy") == std::string::npos);
  CHECK(composition(431, 9360, 8, 8).find("ShortKPolicy") == std::string::npos);  // rows TMA reads
  CHECK(composition(8192, 8192, 4, 4).find("ShortKPolicy") == std::string::npos);  // past short_k_max_c
  const bool q = gemm_test::quick();
  gemm_test::run_case<Tuned, bf16>(Case{431, q ? 1355 : 9355, 4, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T));
  gemm_test::run_case<Tuned, bf16>(Case{196, 4579, 14, -0.5, 1.0, 0, 0, 3}.with_ops(Op::T, Op::N));
  gemm_test::run_case<Tuned, __half, float>(Case{1000, 3000, 2, 2.0, 0.5, 1, 1, 1}.with_ops(Op::T, Op::T));
  // A fused bias + GELU sees each element once, with its row and column.
  using namespace epilogue_test;
  run_fused<Tuned, bf16, bf16, act::GeluTanh>({Case{431, 1355, 4, 1.0, 0.5}, BiasKind::PerColumn});
  run_fused<Tuned, bf16, float, RowColumnRamp>({Case{300, 700, 7, -1.0, 0.0, 1, 1}, BiasKind::PerRow});
}

TEST_CASE("FewRowsPolicy matches the fp64 reference: every layout, ragged, padded, misaligned", "[gpu][fewrows]") {
  gemm_test::check_preset<FewRows, bf16>(MAtMost8{});
  gemm_test::check_preset<FewRows, __half, float>(MAtMost8{});
  // Several k chunks of A (256 each) and warps' shares of k that differ by one; many blocks, the last
  // one's 64 columns cut (4282 = 66 x 64 + 58); odd leading dimensions and offset pointers; every
  // m from 1 to 8.
  for (int m = 1; m <= 8; ++m)
    gemm_test::run_case<FewRows, bf16>(Case{m, 4282, 700 + m, 1.5, -0.5, 3, 1, 1, 1, 1, 1});
  gemm_test::run_case<FewRows, bf16>(Case{3, 1753, 163, -1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::T, Op::N));
  // k in slices of a cluster (sm_90): 8 of 307 (the last 301) for 1 span, 4 of 258 (the last 257), 3
  // of 267 (the last 266) for 2 spans, 2 for 65 spans.
  gemm_test::run_case<FewRows, bf16>(Case{2, 51, 2450, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true});
  gemm_test::run_case<FewRows, bf16>(Case{3, 100, 1031, -0.5, 1.5, 1, 1, 1, 1, 1, 1});
  gemm_test::run_case<FewRows, __half, float>(Case{5, 70, 800, 1.0, 0.5}.with_ops(Op::T, Op::N));
  gemm_test::run_case<FewRows, bf16>(Case{7, 4097, 700, 1.0, 0.0});
  gemm_test::run_case<FewRows, __half>(Case{8, 65, 2450, 1.0, 1.0, 1, 0, 2}.with_ops(Op::N, Op::T));
  gemm_test::run_case<FewRows, bf16, float>(Case{1, 51, 2450, 2.0, 0.5, 0, 0, 0, 1, 1, 1}.with_ops(Op::T, Op::T));
}

TEST_CASE("FewRowsPolicy refuses more rows than it serves before any launch", "[gpu][fewrows]") {
  check_refused<FewRows>(9, 64, 64);
}

TEST_CASE("FewRowsPolicy: bitwise the same C from call to call", "[gpu][fewrows]") {
  gemm_test::check_bitwise_repeatable<FewRows, bf16>(5, 1000, 3001);
}

TEST_CASE("Tuned runs a few rows against a row-major B whose rows TMA cannot read on FewRowsPolicy",
          "[gpu][fewrows][tuned]") {
  if (!gemm_test::is_sm90()) {
    WARN("the rule is measured for sm_90 only: not run here");
    return;
  }
  const gemm::HopperRules& h = gemm::rules_for(90).hopper;
  gemm_test::DeviceBuffer<bf16> probe(1);
  const auto composition = [&](Op op_b, int m, int n, int k, int lda, int ldb) {
    return gemm::plan<bf16>(Op::N, op_b, m, n, k, 1.0f, probe.ptr, lda, probe.ptr, ldb, 0.0f, probe.ptr, n)
        .composition;
  };
  const auto few_rows = [&](Op op_b, int m, int n, int k, int lda, int ldb) {
    return composition(op_b, m, n, k, lda, ldb).find("FewRowsPolicy") != std::string::npos;
  };
  CHECK(few_rows(Op::N, 1, 51, 2450, 2450, 51));                       // B's rows 102 bytes apart
  CHECK(few_rows(Op::N, h.few_rows_max_m, 1753, 163, 163, 1753));       // and A's
  CHECK_FALSE(few_rows(Op::N, 1, 4096, 4095, 4095, 4096));              // A's alone
  CHECK_FALSE(few_rows(Op::N, h.few_rows_max_m + 1, 1753, 163, 163, 1753));
  CHECK_FALSE(few_rows(Op::N, 1, 4096, 4096, 4096, 4096));              // rows TMA reads
  CHECK_FALSE(few_rows(Op::T, 1, 4095, 4095, 4095, 4095));              // B stored transposed
  // The longest k it takes at 4 rows, and one more.
  const int k = static_cast<int>(h.few_rows_max_m2k / 16);
  CHECK(few_rows(Op::N, 4, 4097, k, k, 4097));
  CHECK_FALSE(few_rows(Op::N, 4, 4097, k + 1, k + 1, 4097));
  gemm_test::run_case<Tuned, bf16>(Case{1, 51, 2450, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true});
  gemm_test::run_case<Tuned, bf16>(Case{1, 4097, 8191, 1.0, 0.0});  // 65 spans in 2 k slices each
  gemm_test::run_case<Tuned, bf16>(Case{2, 51, 2450, -1.0, 0.5, 0, 0, 0, 1, 1, 1});  // 1 span in 8 slices
  gemm_test::run_case<Tuned, bf16>(Case{5, 4282, 108, -0.5, 1.0, 0, 0, 3, 1, 1, 1}.with_ops(Op::T, Op::N));
  gemm_test::run_case<Tuned, __half, float>(Case{4, 378, 163, 2.0, 0.5, 1, 1, 1});
  // A fused bias + GELU sees each element once, with its row and column.
  using namespace epilogue_test;
  run_fused<Tuned, bf16, bf16, act::GeluTanh>({Case{3, 1753, 163, 1.0, 0.5}, BiasKind::PerColumn});
  run_fused<Tuned, bf16, float, RowColumnRamp>({Case{7, 701, 800, -1.0, 0.0, 1, 1}, BiasKind::PerRow});
}

TEST_CASE("DotRowsPolicy matches the fp64 reference: A either way, B stored transposed, ragged, padded, k sliced",
          "[gpu][dotrows]") {
  for (const Case& c : gemm_test::standard_cases()) {
    gemm_test::run_case<DotRows, float>(DotRowsCase{Op::N}(c));
    gemm_test::run_case<DotRows, float>(DotRowsCase{Op::T}(c));
  }
  // 1-16 rows (each kernel of m rounded up to 1, 2, 4, 8, 16), k not a multiple of 4 or of a warp's
  // 128, columns past a block's 32; a few blocks of columns, so k in 2-8 slices of a cluster (on sm_90).
  for (int m : {1, 2, 3, 5, 8, 9, 16})
    gemm_test::run_case<DotRows, float>(DotRowsCase{Op::N}(Case{m, 4099, 1001 + 2 * m, 1.5, -0.5, 3, 0, 1, 1, 0, 1}));
  gemm_test::run_case<DotRows, float>(DotRowsCase{Op::N}(Case{16, 100, 8190, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}));
  gemm_test::run_case<DotRows, float>(DotRowsCase{Op::T}(Case{7, 33, 4097, -1.0, 1.0, 2, 0, 2, 1, 0, 1}));
  gemm_test::run_case<DotRows, float>(DotRowsCase{Op::N}(Case{4, 1, 20000, 0.5, 0.25}));
  // A block's k in many chunks of A, each copied (cp.async) while the one before is multiplied:
  // 16-byte copies (A's rows 16-byte aligned, k ending inside a vector), one float each (an odd lda
  // and a misaligned A; A stored k x m).
  gemm_test::run_case<DotRows, float>(DotRowsCase{Op::N}(Case{9, 300, 39999, 1.0, -1.0, 1}));
  gemm_test::run_case<DotRows, float>(DotRowsCase{Op::N}(Case{16, 300, 39997, 0.5, 0.0, 2, 0, 0, 1, 0, 0, true}));
  gemm_test::run_case<DotRows, float>(DotRowsCase{Op::T}(Case{6, 129, 20003, -1.5, 0.25, 3}));
}

TEST_CASE("DotRowsPolicy refuses what it does not read before any launch, C untouched", "[gpu][dotrows]") {
  const int m = 4, n = 64, k = 64;
  gemm_test::DeviceBuffer<float> a(static_cast<size_t>(17) * k), b(static_cast<size_t>(n) * k + 1),
      c(static_cast<size_t>(17) * n);
  CUDA_REQUIRE(cudaMemset(c.ptr, 0, static_cast<size_t>(17) * n * sizeof(float)));
  const unsigned long long before = gemm::kernel_launches();
  CHECK(gemm::gemm<float, DotRows>(Op::N, Op::T, 17, n, k, 1.0f, a.ptr, k, b.ptr, k, 0.0f, c.ptr, n) ==
        gemm::Status::UnsupportedShape);
  CHECK(gemm::gemm<float, DotRows>(Op::N, Op::N, m, n, k, 1.0f, a.ptr, k, b.ptr, n, 0.0f, c.ptr, n) ==
        gemm::Status::UnsupportedLayout);
  CHECK(gemm::gemm<float, DotRows>(Op::N, Op::T, m, n, k, 1.0f, a.ptr, k, b.ptr + 1, k, 0.0f, c.ptr, n) ==
        gemm::Status::MisalignedB);
  CHECK(gemm::gemm<float, DotRows>(Op::N, Op::T, m, n, k - 1, 1.0f, a.ptr, k, b.ptr, k - 1, 0.0f, c.ptr, n) ==
        gemm::Status::MisalignedB);
  CHECK(gemm::kernel_launches() == before);
  std::vector<float> after(static_cast<size_t>(17) * n);
  CUDA_REQUIRE(cudaMemcpy(after.data(), c.ptr, after.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(std::all_of(after.begin(), after.end(), [](float x) { return x == 0.0f; }));
}

TEST_CASE("DotRowsPolicy: bitwise the same C from call to call, k slices included", "[gpu][dotrows]") {
  gemm_test::check_bitwise_repeatable<DotRows, float>(5, 100, 8192);   // 4 blocks of columns: k in slices (sm_90)
  gemm_test::check_bitwise_repeatable<DotRows, float>(16, 9000, 2048);  // 282 blocks: k in 3 slices (sm_90)
  gemm_test::check_bitwise_repeatable<DotRows, float>(16, 9000, 1000);  // slices of 500 k: whole k
}

TEST_CASE("Tuned runs fp32 decode against a weight stored transposed on DotRowsPolicy", "[gpu][dotrows][tuned]") {
  const gemm::CudaCoreRules& r = gemm::rules_for(90).cuda_cores;
  gemm_test::DeviceBuffer<float> probe(4);
  const auto dot_rows = [&](Op op_b, int m, int n, int k, int ldb, int b_offset = 0) {
    return gemm::plan<float>(Op::N, op_b, m, n, k, 1.0f, probe.ptr, k, probe.ptr + b_offset, ldb, 0.0f, probe.ptr, n)
               .composition.find("DotRowsPolicy") != std::string::npos;
  };
  CHECK(dot_rows(Op::T, 16, 4096, 4096, 4096));
  CHECK(dot_rows(Op::T, 1, 4096, r.dot_rows_min_k, r.dot_rows_min_k));
  CHECK_FALSE(dot_rows(Op::T, r.dot_rows_max_m + 1, 4096, 4096, 4096));
  CHECK_FALSE(dot_rows(Op::T, 16, 4096, r.dot_rows_min_k - 4, r.dot_rows_min_k - 4));
  CHECK_FALSE(dot_rows(Op::T, 16, 4096, 4095, 4095));    // B's rows not 16-byte aligned
  CHECK_FALSE(dot_rows(Op::T, 16, 4096, 4096, 4096, 1));  // nor B
  CHECK_FALSE(dot_rows(Op::N, 16, 4096, 4096, 4096));    // B row-major
  gemm_test::run_case<Tuned, float>(Case{16, 4096, 4096, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T));
  gemm_test::run_case<Tuned, float>(Case{3, 1000, 1001, -0.5, 1.5, 2, 3, 1, 1, 0, 1}.with_ops(Op::N, Op::T));
}
