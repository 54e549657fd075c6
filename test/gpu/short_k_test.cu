// ShortKPolicy (kernel/short_k_kernel.cuh): a k of a few elements on CUDA cores, any alignment and
// layout. The preset cases (ragged, padded and misaligned, alpha, beta, NaN C under beta = 0, k = 0,
// every layout and the column-major entry point) with k cut to what it serves, for float, double,
// bf16 and fp16 (C in the input type or float); tiles of C cut by both edges; a longer k refused
// before any launch; Tuned taking it on sm_90 for 16-bit rows TMA cannot read up to
// hopper.short_k_max_k and short_k_max_c, a fused epilogue included.
#include <algorithm>
#include "epilogue_check.cuh"

namespace {

using gemm::Op;
using gemm_test::Case;
using Tuned = gemm::preset::Tuned;
using bf16 = __nv_bfloat16;
using ShortK = gemm::ShortKPolicy<16, 32>;

// The preset cases with k cut to 16 (0 and 1 stay).
struct KAtMost16 {
  Case operator()(Case c) const {
    c.k = std::min(c.k, 16);
    return c;
  }
};

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
  gemm_test::DeviceBuffer<bf16> a(64 * 17), b(17 * 64), c(64 * 64);
  CUDA_REQUIRE(cudaMemset(c.ptr, 0, 64 * 64 * sizeof(bf16)));
  const unsigned long long before = gemm::kernel_launches();
  CHECK(gemm::gemm<bf16, ShortK>(64, 64, 17, 1.0f, a.ptr, 17, b.ptr, 64, 0.0f, c.ptr, 64) ==
        gemm::Status::UnsupportedShape);
  CHECK(gemm::kernel_launches() == before);
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
