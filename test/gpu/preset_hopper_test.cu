// GPU correctness of the Hopper presets (TMA + wgmma): Wgmma, WarpSpecialized, WideTile and Persistent, for
// bf16 and fp16 inputs with C in the input type or float, and TF32, every layout, both entry points.
#include "check.cuh"

namespace {
using gemm_test::Case;
using gemm_test::Op;

// TMA reads A and B only from 16-byte-aligned rows: each case made so (leading dimensions rounded
// up to a multiple of 8 elements, offsets of 0 or 8 elements), same m, n, k. C keeps its odd
// padding and offsets: the epilogue stores through registers and takes any C.
Case tma_aligned(Case c) {
  const auto pad_to_8 = [](int row_len, int pad) { return (8 - std::max(1, row_len) % 8) % 8 + (pad >= 4 ? 8 : 0); };
  c.pad_a = pad_to_8(c.a_row_len(), c.pad_a);
  c.pad_b = pad_to_8(c.b_row_len(), c.pad_b);
  c.offset_a = c.offset_a ? 8 : 0;
  c.offset_b = c.offset_b ? 8 : 0;
  return c;
}

template <class Policy, class T, class Out>
void check_hopper() {
  for (const Case& c : gemm_test::standard_cases()) gemm_test::run_case<Policy, T, Out>(tma_aligned(c));
  const std::vector<Case> lc = gemm_test::layout_cases();
  for (const Case& c : lc) {
    gemm_test::run_case<Policy, T, Out>(tma_aligned(c.with_ops(Op::N, Op::T)));
    gemm_test::run_case<Policy, T, Out>(tma_aligned(c.with_ops(Op::T, Op::N)));
    gemm_test::run_case<Policy, T, Out>(tma_aligned(c.with_ops(Op::T, Op::T)));
  }
  for (size_t i = 0; i < lc.size(); ++i)
    gemm_test::run_case<Policy, T, Out>(
        tma_aligned(lc[i].with_ops(i % 2 ? Op::T : Op::N, i % 4 < 2 ? Op::N : Op::T, true)));
  // More tiles than SMs (a persistent block walks several, the last wave is partial), a k range of
  // many stages with a ragged end, and C rows of odd length (single-element stores).
  // (Under the sanitizers: 144 tiles of 128x256 with one k step each, still more than one wave.)
  gemm_test::run_case<Policy, T, Out>(tma_aligned(gemm_test::quick()
                                                      ? Case{1530, 3070, 40, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}
                                                      : Case{1500, 2900, 300, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}));
  if (!gemm_test::quick()) {
    gemm_test::run_case<Policy, T, Out>(
        tma_aligned(Case{1531, 2821, 1000, 0.5, -1.0, 3, 1, 1, 0, 0, 1}.with_ops(Op::T, Op::T)));
    gemm_test::run_case<Policy, T, Out>(tma_aligned(Case{2053, 1037, 77, -1.0, 1.0, 0, 0, 3}.with_ops(Op::T, Op::N)));
  }
  // beta = 0 with C's rows a multiple of 16 bytes: the TMA-store epilogue, clipped at ragged edges.
  for (Case c : {Case{1500, 2900, 300, 1.0, 0.0, 0, 0, 4, 0, 0, 0, true}, Case{1, 1, 1, 2.0, 0.0, 0, 0, 7},
                 Case{129, 65, 40, -0.5, 0.0, 0, 0, 7, 0, 0, 8, true}, Case{300, 520, 1000, 1.0, 0.0, 0, 0, 0},
                 Case{64, 72, 64, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}})
    for (Op a : {Op::N, Op::T}) gemm_test::run_case<Policy, T, Out>(tma_aligned(c.with_ops(a, Op::N)));
}

template <class Policy>
void check_hopper_types() {
  check_hopper<Policy, __nv_bfloat16, __nv_bfloat16>();
  check_hopper<Policy, __nv_bfloat16, float>();
  check_hopper<Policy, __half, __half>();
  check_hopper<Policy, __half, float>();
  check_hopper<Policy, gemm::tf32, float>();
  check_hopper<Policy, gemm::tf32x3, float>();
}

}  // namespace

#define GEMM_HOPPER_TEST(Preset)                                                                          \
  TEST_CASE(#Preset "<bf16, fp16, tf32> matches the fp64 reference on ragged and padded input, every layout", \
            "[gpu][" #Preset "][bf16][fp16][tf32]") {                                                           \
    if (!gemm_test::is_sm90()) {                                                                                \
      WARN("SKIPPED: " #Preset " needs an sm_90 GPU");                                                    \
      return;                                                                                             \
    }                                                                                                     \
    check_hopper_types<gemm::preset::Preset>();                                                           \
  }

GEMM_HOPPER_TEST(Wgmma)
GEMM_HOPPER_TEST(WarpSpecialized)
GEMM_HOPPER_TEST(WideTile)
GEMM_HOPPER_TEST(Persistent)

// Tuned's ping-pong composition (which Tuned runs for fused calls) without an epilogue: the same
// cases, its two consumers taking turns over whole tiles (TF32 too, whose transposed copies it reads).
TEST_CASE("Tuned's ping-pong composition matches the fp64 reference, every layout", "[gpu][hopper][Tuned][bf16][fp16][tf32]") {
  if (!gemm_test::is_sm90()) {
    WARN("SKIPPED: needs an sm_90 GPU");
    return;
  }
  using P = gemm::preset::Tuned::HopperPingPong;
  check_hopper<P, __nv_bfloat16, __nv_bfloat16>();
  check_hopper<P, __half, float>();
  check_hopper<P, gemm::tf32, float>();
}

TEST_CASE("Hopper presets refuse A or B that TMA cannot read, launching nothing", "[gpu][hopper]") {
  gemm_test::DeviceBuffer<__nv_bfloat16> a(64 * 72), b(64 * 72), c(64 * 72);
  const auto launches = gemm::kernel_launches();
  using P = gemm::preset::Persistent;
  // lda = 65 elements = 130 bytes per row; B one element into its allocation; ldb = 68 (136 bytes).
  CHECK(gemm::gemm<__nv_bfloat16, P>(64, 64, 64, 1.f, a.ptr, 65, b.ptr, 64, 0.f, c.ptr, 64) == gemm::Status::MisalignedA);
  CHECK(gemm::gemm<__nv_bfloat16, P>(64, 64, 64, 1.f, a.ptr, 64, b.ptr + 1, 64, 0.f, c.ptr, 64) ==
        gemm::Status::MisalignedB);
  CHECK(gemm::gemm<__nv_bfloat16, P>(gemm::Op::N, gemm::Op::T, 64, 64, 64, 1.f, a.ptr, 64, b.ptr, 68, 0.f, c.ptr, 64) ==
        gemm::Status::MisalignedB);
  // Column-major: the caller's A is the kernel's B, and the status names the caller's operand.
  CHECK(gemm::blas::gemm<__nv_bfloat16, P>(gemm::Op::N, gemm::Op::N, 64, 64, 64, 1.f, a.ptr + 1, 64, b.ptr, 64, 0.f,
                                           c.ptr, 64) == gemm::Status::MisalignedA);
  CHECK(gemm::kernel_launches() == launches);
}

TEST_CASE("Tuned<bf16, fp16> is correct on the Hopper path and the mma.sync paths",
          "[gpu][Tuned][bf16][fp16]") {
  // On an H100, cases with A and B as TMA reads them take the Hopper kernel, other 4-byte-aligned rows
  // mma.sync filled by cp.async (MmaSync's compositions), the rest (odd leading dimensions) mma.sync
  // filled by element loads (Tuned::MmaMisaligned). On sm_80-89 every case takes one of the mma.sync
  // paths; before sm_80, WarpTiled.
  gemm_test::check_preset<gemm::preset::Tuned, __nv_bfloat16>();
  gemm_test::check_preset<gemm::preset::Tuned, __nv_bfloat16, float>();
  gemm_test::check_preset<gemm::preset::Tuned, __half>();
  gemm_test::check_preset<gemm::preset::Tuned, __half, float>();
  gemm_test::run_case<gemm::preset::Tuned, __nv_bfloat16>(Case{1500, 2904, 304, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true});
  // A short k where 128x256 tiles fill a round of an H100's or H200's SMs: Tuned's plain call on the
  // ping-pong schedule (HopperRules::pingpong_max_k), every layout, beta 0 over NaN and beta != 0, a
  // ragged k and an odd C.
  gemm::detail::DeviceInfo dev;
  if (gemm_test::is_sm90() && gemm::detail::query_device(dev) == gemm::Status::Success && dev.sms >= 128) {
    const auto bf = static_cast<const __nv_bfloat16*>(nullptr);
    const gemm::Plan p = gemm::plan<__nv_bfloat16>(Op::N, Op::T, 2048, 4096, 520, 1.f, bf + 8, 520, bf + 8, 520, 0.f,
                                                   const_cast<__nv_bfloat16*>(bf + 8), 4096);
    CHECK(p.composition.find("PersistentPingPong") != std::string::npos);
    for (const Case& c : {Case{2048, 4096, 520, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T),
                          Case{2048, 4096, 1000, -0.5, 2.0}.with_ops(Op::T, Op::N),
                          Case{2040, 4096, 64, 1.0, 0.0, 0, 0, 3}.with_ops(Op::T, Op::T)})
      gemm_test::run_case<gemm::preset::Tuned, __nv_bfloat16>(c);
    gemm_test::run_case<gemm::preset::Tuned, __half, float>(Case{2048, 4096, 768, 1.0, 0.5});
  }
}

TEST_CASE("TF32 on Hopper reads transposed operands through a transposed copy", "[gpu][hopper][tf32]") {
  if (!gemm_test::is_sm90()) {
    WARN("SKIPPED: needs an sm_90 GPU");
    return;
  }
  // Operands that TMA reads must be aligned; one it never reads (A stored k x m, B stored k x n:
  // both are copied transposed first) may be anything.
  using P = gemm::preset::Persistent;
  gemm_test::run_case<P, gemm::tf32>(Case{300, 200, 129, 1.0, 0.5, 3, 1, 4, 1, 1, 0}.with_ops(Op::T, Op::N));
  gemm_test::run_case<P, gemm::tf32>(Case{1, 77, 5, -1.0, 0.0, 1, 3, 0, 0, 3, 0, true}.with_ops(Op::T, Op::N));
  gemm_test::run_case<gemm::preset::Tuned, gemm::tf32>(Case{1000, 1000, 1000, 1.0, 0.0, 2, 1, 0, 0, 0, 0, true}.with_ops(Op::T, Op::N));
}

// Tuned's Hopper compositions take any alignment: what TMA cannot read is copied with aligned rows
// first. The standard cases as they are (odd leading dimensions, operands one element into their
// allocations), every layout, and the unaligned benchmark shapes' kind: one odd leading dimension at a time,
// rows aligned to 8 bytes only.
TEST_CASE("Tuned's Hopper compositions pack operands that TMA cannot read", "[gpu][hopper][Tuned][bf16][fp16][tf32]") {
  if (!gemm_test::is_sm90()) {
    WARN("SKIPPED: needs an sm_90 GPU");
    return;
  }
  using H = gemm::preset::Tuned::Hopper;
  using S = gemm::preset::Tuned::HopperSmall;
  gemm_test::check_preset<S, __nv_bfloat16>();
  gemm_test::check_preset<S, __half, float>();
  gemm_test::check_preset<S, gemm::tf32>();
  gemm_test::check_preset<S, gemm::tf32x3>();
  const Case odd[] = {
      Case{515, 517, 509, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true},  // every leading dimension odd
      Case{512, 512, 509, 0.5, 1.0},                          // A's rows odd (lda = k)
      Case{512, 509, 512, -1.0, 0.0, 0, 0, 0, 0, 0, 0, true}, // B's and C's rows odd
      Case{512, 512, 516, 1.0, -0.5},                         // rows 8-byte aligned only
      Case{300, 301, 302, 1.0, 0.25, 2, 6, 1, 1, 3, 1},       // offset pointers
  };
  // C of 2^22 elements and more with rows TMA cannot write: read (beta != 0), it is computed in an
  // aligned copy and copied back; not read, the consumers store it in row order.
  if (!gemm_test::quick()) {
    gemm_test::run_case<H, __nv_bfloat16>(Case{2048, 2049, 64, 1.0, 0.5, 0, 0, 0, 0, 0, 1});
    gemm_test::run_case<H, __nv_bfloat16>(Case{2048, 2049, 64, 1.0, 0.0, 0, 0, 0, 0, 0, 1, true});
  }
  for (const Case& c : odd)
    for (Op a : {Op::N, Op::T})
      for (Op b : {Op::N, Op::T}) {
        gemm_test::run_case<H, __nv_bfloat16>(c.with_ops(a, b));
        gemm_test::run_case<H, __half, float>(c.with_ops(a, b));
        gemm_test::run_case<H, gemm::tf32>(c.with_ops(a, b));
      }
  // Rows TMA reads, but slowly (not on 64-byte multiples), of an operand stored MN-major beside a C
  // at least 4096 long on its other side are copied too: B stored k x n with n = 40 (rows of 80
  // bytes), A stored k x m with m = 40. The plan shows the copy (its scratch), the case its result.
  gemm_test::DeviceBuffer<__nv_bfloat16> any(64);
  const auto scratch = [&](Op oa, Op ob, int m, int n, int k, int lda, int ldb) {
    return gemm::plan<__nv_bfloat16>(oa, ob, m, n, k, 1.f, any.ptr, lda, any.ptr, ldb, 0.f, any.ptr, n).workspace_bytes;
  };
  CHECK(scratch(Op::N, Op::N, 4096, 40, 72, 72, 40) == 72 * 64 * 2);  // B: 72 rows of 64
  CHECK(scratch(Op::T, Op::T, 40, 4096, 72, 40, 72) == 72 * 64 * 2);  // A: 72 rows of 64
  CHECK(scratch(Op::N, Op::N, 4096, 64, 72, 72, 64) == 0);            // rows of 128 bytes: read as stored
  gemm_test::run_case<gemm::preset::Tuned, __nv_bfloat16>(Case{4096, 40, 72, 1.0, 0.5});
  gemm_test::run_case<gemm::preset::Tuned, __nv_bfloat16>(Case{40, 4096, 72, -1.0, 0.0}.with_ops(Op::T, Op::T));
}

// One of Tuned's Hopper compositions on its own, over ragged and misaligned input in every layout,
// C stored by TMA, by the consumers in row order (rows TMA cannot write, beta = 0) or from registers.
std::vector<Case> tuned_composition_cases() {
  return {
      Case{515, 517, 509, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true},   // every leading dimension odd
      Case{1029, 1031, 131, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}, // ragged on both sides
      Case{600, 509, 512, -1.0, 0.0, 0, 0, 1, 0, 0, 1, true},  // C one element into its allocation
      Case{512, 512, 516, 1.0, -0.5},                          // rows 8-byte aligned only, C read
      Case{300, 301, 302, 1.0, 0.25, 2, 6, 1, 1, 3, 1},        // offset pointers
  };
}

template <class P>
void check_tuned_composition() {
  gemm_test::check_preset<P, __nv_bfloat16>();
  gemm_test::check_preset<P, __half, float>();
  gemm_test::check_preset<P, gemm::tf32>();
  for (const Case& c : tuned_composition_cases())
    for (Op a : {Op::N, Op::T})
      for (Op b : {Op::N, Op::T}) {
        gemm_test::run_case<P, __nv_bfloat16>(c.with_ops(a, b));
        gemm_test::run_case<P, gemm::tf32>(c.with_ops(a, b));
      }
}

// Tuned's 256x128 tiles (for a ragged n: two m64 wgmmas per warpgroup and k step) and 128x192 tiles
// (for shapes whose wider or narrower tiles leave a round of the SMs part empty: wgmma's n = 192,
// three 64-column chunks of a bf16 C per tile, an odd count, which turns the epilogue's two buffers
// from tile to tile).
TEMPLATE_TEST_CASE("Tuned's 256x128 and 128x192 Hopper compositions are correct on ragged and misaligned input, "
                   "every layout",
                   "[gpu][hopper][Tuned][bf16][fp16][tf32]", gemm::preset::Tuned::HopperTall,
                   gemm::preset::Tuned::HopperBalanced) {
  if (!gemm_test::is_sm90()) {
    WARN("SKIPPED: needs an sm_90 GPU");
    return;
  }
  check_tuned_composition<TestType>();
}

// Tuned's 192x128 tiles: three math warpgroups of 64 x 128 (152 registers each after setmaxnreg), one
// named barrier each for their epilogues; several tiles per block (4000 x 3000: 504 tiles), and the
// call Tuned gives them (3072 x 1024 x 4096: one round of 128 tiles).
TEST_CASE("Tuned's 192x128 Hopper composition (three math warpgroups) is correct on ragged and misaligned input, "
          "every layout",
          "[gpu][hopper][Tuned][bf16][fp16][tf32]") {
  if (!gemm_test::is_sm90()) {
    WARN("SKIPPED: needs an sm_90 GPU");
    return;
  }
  using P = gemm::preset::Tuned::HopperBalancedTall;
  check_tuned_composition<P>();
  gemm_test::run_case<P, __nv_bfloat16>(Case{4000, 3000, 200, 0.5, 1.0}.with_ops(Op::T, Op::N));
  gemm_test::run_case<P, __half>(Case{4001, 2999, 199, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true});
  gemm_test::run_case<gemm::preset::Tuned, __nv_bfloat16>(Case{3072, 1024, 4096, 1.0, 0.0}.with_ops(Op::T, Op::N));
  gemm_test::run_case<gemm::preset::Tuned, __half, float>(Case{3072, 1024, 2048, -1.0, 0.5}.with_ops(Op::T, Op::T));
}

// TF32 with A read through registers (WgmmaRegisterA): Tuned's RegisterA<P> reads an A stored k x m as
// it is (B stored k x n still copied transposed), TurnedRegisterA<P> turns the call around (a
// row-major B is the turned call's A stored k x m, nothing copied), on each width Tuned gives them:
// 128x256, 128x192, 128x128 and 128x64 (the last two with their k split). Every layout (a row-major A
// goes through its descriptor), ragged and misaligned input, several tiles per block, k slices, C
// through TMA, in row order and from registers; and C bitwise the same as the width's composition
// that reads transposed copies instead.
template <class P>
void check_register_a_width() {
  using Tuned = gemm::preset::Tuned;
  using R = Tuned::RegisterA<P>;
  using RT = Tuned::TurnedRegisterA<P>;
  std::vector<Case> cases = tuned_composition_cases();
  cases.push_back(Case{65, 63, 7, 2.0, 0.0, 0, 0, 0, 0, 0, 0, true});  // one k step, part of one tile
  cases.push_back(Case{300, 200, 4100, 1.0, 0.5});                     // few tiles, a long k (split)
  for (const Case& c : cases)
    for (Op a : {Op::N, Op::T})
      for (Op b : {Op::N, Op::T}) {
        gemm_test::run_case<R, gemm::tf32>(c.with_ops(a, b));
        gemm_test::run_case<RT, gemm::tf32>(c.with_ops(a, b));
      }
  for (Op a : {Op::N, Op::T})
    for (Op b : {Op::N, Op::T}) {
      // (C bitwise as the width reads it from transposed copies: the same TF32 bits, the same sums.)
      CHECK(gemm_test::same_bits<P, R, gemm::tf32>(Case{1000, 777, 333, 1.0, 0.0}.with_ops(a, b)));
      CHECK(gemm_test::same_bits<P, RT, gemm::tf32>(Case{1000, 777, 333, 1.0, 0.5}.with_ops(a, b)));
      // k split in slices (128x128, 128x64)
      CHECK(gemm_test::same_bits<P, R, gemm::tf32>(Case{384, 256, 8200, 1.0, 0.0}.with_ops(a, b)));
    }
}

TEST_CASE("Tuned's TF32 compositions reading A through registers are correct on ragged and misaligned input, "
          "every layout, and bitwise equal to the transposed copies' results",
          "[gpu][hopper][Tuned][tf32][registers]") {
  if (!gemm_test::is_sm90()) {
    WARN("SKIPPED: needs an sm_90 GPU");
    return;
  }
  using Tuned = gemm::preset::Tuned;
  gemm_test::check_preset<Tuned::HopperRegisterA, gemm::tf32>();
  gemm_test::check_preset<Tuned::HopperTurnedRegisterA, gemm::tf32>();
  check_register_a_width<Tuned::Hopper>();
  check_register_a_width<Tuned::HopperBalanced>();
  check_register_a_width<Tuned::HopperMedium>();
  check_register_a_width<Tuned::HopperSmall>();
  // Several tiles per block (2048 x 4000: 256 tiles of 128x256), and calls Tuned gives them: 2048^2 x
  // 160 on 128x256 tiles, 768 x 768 x 8192 on 128x128 tiles in k slices, 768 x 3072 on 128x192.
  gemm_test::run_case<Tuned::HopperRegisterA, gemm::tf32>(Case{4000, 2048, 200, 0.5, 1.0}.with_ops(Op::T, Op::T));
  gemm_test::run_case<Tuned::HopperTurnedRegisterA, gemm::tf32>(Case{2048, 4001, 199, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true});
  const Case tuned_calls[] = {Case{2048, 2048, 160, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}, Case{768, 768, 8192, -1.0, 0.5},
                              Case{768, 3072, 256, 1.0, 0.0}};
  for (const Case& c : tuned_calls)
    for (Op a : {Op::N, Op::T}) gemm_test::run_case<Tuned, gemm::tf32>(c.with_ops(a, a));
}

// 128x256 tiles over 4000 rows: the last row of tiles holds 32 rows of C, so its second math warpgroup
// has nothing to multiply and only passes the stages on (skip_mainloop), while with beta != 0 the
// first one's epilogue reads C, long enough for the ring to run ahead; several tiles per block. The
// skipping warpgroup's warps once drifted apart there and hung the kernel in 2 of 3 runs (bf16 and
// TF32 alike); run a few times.
TEST_CASE("128x256 tiles whose last row leaves a math warpgroup nothing to multiply: beta != 0 and several tiles "
          "per block", "[gpu][hopper][Tuned][bf16][tf32][skip]") {
  if (!gemm_test::is_sm90()) {
    WARN("SKIPPED: needs an sm_90 GPU");
    return;
  }
  using Tuned = gemm::preset::Tuned;
  for (int run = 0; run < 4; ++run) {
    gemm_test::run_case<Tuned::Hopper, __nv_bfloat16>(Case{4000, 2048, 200, 0.5, 1.0}.with_ops(Op::T, Op::T));
    gemm_test::run_case<Tuned::Hopper, gemm::tf32>(Case{4000, 2048, 192, 0.5, 1.0}.with_ops(Op::T, Op::T));
    gemm_test::run_case<Tuned::HopperRegisterA, gemm::tf32>(Case{4000, 2048, 200, -1.0, 0.5}.with_ops(Op::T, Op::T));
  }
}
