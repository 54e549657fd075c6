// preset::Tuned on the warp-level tensor cores: its mma.sync compositions called directly, and proof
// that Tuned dispatches to them (and to DMMA for double) on sm_80 and newer: the same call through
// Tuned and through the composition it should pick gives the same bits (both are deterministic).
#include <cstring>
#include <vector>
#include "check.cuh"

namespace {
using gemm_test::Case;
using gemm_test::Op;
using Tuned = gemm::preset::Tuned;

gemm::detail::DeviceInfo device() {
  gemm::detail::DeviceInfo dev;
  REQUIRE(gemm::detail::query_device(dev) == gemm::Status::Success);
  return dev;
}

// C through Policy1 and through Policy2, row-major, the same random A, B and C; true if bitwise equal.
template <class T, class Out, class Policy1, class Policy2>
bool same_bits(int m, int n, int k, int lda, int ldb, float beta) {
  return gemm_test::same_bits<Policy1, Policy2, T, Out>(Case{m, n, k, 1.0, beta, lda - k, ldb - n});
}
}  // namespace

TEST_CASE("Tuned's small-C mma.sync composition is correct on its own, every type and layout",
          "[gpu][Tuned][bf16][fp16][tf32]") {
  using S = Tuned::MmaSmall;
  const auto rows_16 = [](const Case& c) { return gemm_test::rows_aligned_to(c, 8); };
  const auto rows_4_bytes = [](const Case& c) { return gemm_test::rows_aligned_to(c, 2); };
  gemm_test::check_preset<S, __nv_bfloat16>(rows_16);
  gemm_test::check_preset<S, __nv_bfloat16, float>(rows_4_bytes);
  gemm_test::check_preset<S, __half>(rows_4_bytes);
  gemm_test::check_preset<S, __half, float>(rows_16);
  gemm_test::check_preset<S, gemm::tf32>();
  gemm_test::run_case<S, __nv_bfloat16>(rows_4_bytes(Case{1500, 2900, 300, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}));
  gemm_test::run_case<S, gemm::tf32>(Case{1531, 821, 1000, 0.5, -1.0, 3, 1, 1, 0, 0, 1}.with_ops(Op::T, Op::T));
}

// Rows cp.async cannot read (odd leading dimensions, pointers 2 bytes off): element loads through
// registers. The standard cases as they are (misaligned ones included), and large odd shapes.
TEST_CASE("Tuned's register-staged mma.sync composition is correct on any alignment, every layout",
          "[gpu][Tuned][bf16][fp16][tf32]") {
  using S = Tuned::MmaMisaligned;
  gemm_test::check_preset<S, __nv_bfloat16>();
  gemm_test::check_preset<S, __nv_bfloat16, float>();
  gemm_test::check_preset<S, __half>();
  gemm_test::check_preset<S, __half, float>();
  gemm_test::check_preset<S, gemm::tf32>();
  gemm_test::run_case<S, __nv_bfloat16>(Case{1023, 1025, 1021, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true});
  gemm_test::run_case<S, __half, float>(Case{1531, 821, 1000, 0.5, -1.0, 3, 1, 1, 1, 3, 1}.with_ops(Op::T, Op::T));
  gemm_test::run_case<S, __nv_bfloat16>(Case{2053, 1037, 77, -1.0, 1.0, 1, 0, 3, 1, 0, 0}.with_ops(Op::T, Op::N));
}

// Single 16-bit products on sm_90 whose rows TMA cannot read, of a short k: 64x64 tiles loaded
// through registers alone (compiled into sm_90a code only).
TEST_CASE("Tuned's unstaged mma.sync composition is correct on any alignment, every layout",
          "[gpu][Tuned][bf16][fp16]") {
  if (!gemm_test::is_sm90()) {
    WARN("SKIPPED: compiled into sm_90a code only");
    return;
  }
  using S = Tuned::MmaUnstaged;
  gemm_test::check_preset<S, __nv_bfloat16>();
  gemm_test::check_preset<S, __nv_bfloat16, float>();
  gemm_test::check_preset<S, __half>();
  gemm_test::check_preset<S, __half, float>();
  gemm_test::run_case<S, __nv_bfloat16>(Case{306, 7638, 53, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true});
  gemm_test::run_case<S, __half, float>(Case{1023, 1025, 61, 0.5, -1.0, 3, 1, 1, 1, 3, 1}.with_ops(Op::T, Op::T));
  gemm_test::run_case<S, __nv_bfloat16>(Case{2053, 1037, 191, -1.0, 1.0, 1, 0, 3, 1, 0, 0}.with_ops(Op::T, Op::N));
}

// 3xTF32 on mma.sync (what sm_80-89 run): the split in registers, two levels of fp32 adds, and k
// beyond 4096 in slices added to C (k = 9000: three slices, the fused epilogue and beta only where
// they belong).
TEST_CASE("Tuned's 3xTF32 mma.sync compositions are correct on their own, every layout, k in slices",
          "[gpu][Tuned][tf32x3]") {
  using L = Tuned::Mma3xTf32;
  using S = Tuned::Mma3xTf32Small;
  gemm_test::check_preset<L, gemm::tf32x3>();
  gemm_test::check_preset<S, gemm::tf32x3>();
  gemm_test::run_case<L, gemm::tf32x3>(Case{1500, 1290, 300, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true});
  gemm_test::run_case<L, gemm::tf32x3>(Case{531, 421, 9000, 0.5, -1.0, 3, 1, 1, 1, 0, 1}.with_ops(Op::T, Op::T));
  gemm_test::run_case<S, gemm::tf32x3>(Case{257, 130, 9000, -1.0, 0.0, 0, 2, 3, 0, 1, 0, true}.with_ops(Op::N, Op::T));
  gemm_test::run_case<S, gemm::tf32x3>(Case{100, 300, 4097, 1.5, 0.25, 8, 8, 2}.with_ops(Op::T, Op::N));
}

TEST_CASE("Tuned's small-C DMMA composition is correct on its own, every layout", "[gpu][Tuned][double]") {
  using S = Tuned::DoubleMmaSmall;
  gemm_test::check_preset<S, double>();
  gemm_test::run_case<S, double>(Case{1500, 2900, 300, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true});
  gemm_test::run_case<S, double>(Case{1531, 821, 1000, 0.5, -1.0, 3, 1, 1, 1, 0, 1}.with_ops(Op::T, Op::T));
  gemm_test::run_case<S, double>(Case{1024, 1024, 1024, 1.0, 0.5}.with_ops(Op::T, Op::N));
}

TEST_CASE("Tuned runs mma.sync for bf16 and tf32 (wgmma on sm_90), and DMMA for double, on sm_80+",
          "[gpu][Tuned][bf16][tf32][double]") {
  const auto dev = device();
  if (dev.arch < 80) {
    WARN("SKIPPED: the tensor-core dispatch needs sm_80 or newer");
    return;
  }
  if (dev.arch == 90) {
    // On Hopper, bf16, fp16 and tf32 take the wgmma kernels at any alignment (rows TMA cannot read are
    // copied first); 128x64 tiles for these small shapes.
    CHECK(same_bits<__nv_bfloat16, __nv_bfloat16, Tuned, Tuned::HopperSmall>(1000, 777, 301, 301, 777, 0.5f));
    CHECK(same_bits<gemm::tf32, float, Tuned, Tuned::HopperSmall>(300, 200, 65, 65, 201, 0.0f));
    // ... except small single 16-bit products with such rows (k <= unstaged_max_k, 2 m n k <=
    // unstaged_max_flops): mma.sync in place; up to short_k_max_k, CUDA cores (ShortK).
    const int short_k = gemm::rules_for(90).hopper.unstaged_max_k;
    const int few_k = gemm::rules_for(90).hopper.short_k_max_k;
    CHECK(same_bits<__nv_bfloat16, __nv_bfloat16, Tuned, Tuned::MmaUnstaged>(500, 777, short_k - 1, short_k - 1,
                                                                            777, 0.5f));
    CHECK(same_bits<__half, float, Tuned, Tuned::MmaUnstaged>(129, 333, few_k + 13, few_k + 13, 335, 0.0f));
    CHECK(same_bits<__half, float, Tuned, Tuned::ShortK>(129, 333, 13, 13, 335, 0.0f));
    CHECK(same_bits<__nv_bfloat16, __nv_bfloat16, Tuned, Tuned::HopperSmall>(1000, 777, short_k + 1, short_k + 1,
                                                                            777, 0.5f));
  } else {
    // bf16 rows TMA cannot read (lda = k + 2: 4-byte rows) but mma.sync can: the large composition when
    // there is a 128x256 tile per SM, the small one below. (On sm_80-89 aligned rows take it too.)
    const int big_m = 128 * ((dev.sms + 3) / 4 + 1), big_n = 256 * 4 + 32;
    CHECK(same_bits<__nv_bfloat16, __nv_bfloat16, Tuned, gemm::preset::MmaSync>(big_m, big_n, 130, 132, big_n, 0.5f));
    CHECK(same_bits<__nv_bfloat16, float, Tuned, Tuned::MmaSmall>(300, 200, 66, 68, 200, 0.0f));
    // Odd leading dimensions: element loads through registers, still on tensor cores.
    CHECK(same_bits<__nv_bfloat16, __nv_bfloat16, Tuned, Tuned::MmaMisaligned>(1000, 777, 301, 301, 777, 0.5f));
    CHECK(same_bits<__half, float, Tuned, Tuned::MmaMisaligned>(129, 333, 65, 67, 335, 0.0f));
    // tf32 (any rows): the same.
    CHECK(same_bits<gemm::tf32, float, Tuned, gemm::preset::MmaSync>(big_m, big_n, 97, 97, big_n + 1, 1.0f));
    CHECK(same_bits<gemm::tf32, float, Tuned, Tuned::MmaSmall>(300, 200, 65, 65, 201, 0.0f));
    // 3xTF32: the split in registers, 128x128 tiles with one per SM, 64x128 below.
    const int x3_m = 128 * ((dev.sms + 7) / 8), x3_n = 128 * 8 + 32;
    CHECK(same_bits<gemm::tf32x3, float, Tuned, Tuned::Mma3xTf32>(x3_m, x3_n, 97, 97, x3_n + 1, 1.0f));
    CHECK(same_bits<gemm::tf32x3, float, Tuned, Tuned::Mma3xTf32Small>(300, 200, 65, 65, 201, 0.0f));
  }
  // double: the FP64 tensor cores wherever their shared memory fits (sm_80, sm_90): Dmma's 128x128
  // tiles with at least one per SM (13 x 11 = 143 tiles here), 128x64 tiles below that.
  if (dev.smem_optin >= gemm::preset::Dmma::smem_bytes<double>() && dev.sms <= 143) {
    CHECK(same_bits<double, double, Tuned, gemm::preset::Dmma>(1664, 1408, 77, 77, 1408, 0.5f));
    CHECK(same_bits<double, double, Tuned, gemm::preset::Dmma>(1630, 1400, 260, 261, 1401, 0.0f));
  } else {
    WARN("Dmma's 128x128 tiles do not fit this GPU's shared memory (or it has more than 143 SMs): not checked");
  }
  if (dev.smem_optin >= Tuned::DoubleMmaSmall::smem_bytes<double>()) {
    CHECK(same_bits<double, double, Tuned, Tuned::DoubleMmaSmall>(500, 300, 77, 77, 300, 0.5f));
    CHECK(same_bits<double, double, Tuned, Tuned::DoubleMmaSmall>(1030, 1100, 33, 35, 1101, 0.0f));
  }
}
