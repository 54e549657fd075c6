// The Hopper kernel on 128x96 tiles (Tuned::HopperNarrow): a tile whose rows of C are an odd number
// of 64-byte halves, stored through 64-byte chunks with the 64-byte swizzle (sm90::StoreChunkFor),
// and a B stored row-major read as two whole 64-column boxes of which wgmma uses 96 columns. Every
// layout (ragged, padded and misaligned, alpha and beta, NaN under beta = 0, k = 0), C of float
// (128-byte chunks of 32 floats), C that TMA cannot write (the chunks stored by the consumers), a fused
// epilogue, many tiles per block; Tuned taking it where the rule says, bitwise the same from call to
// call.
#include "epilogue_check.cuh"

namespace {

using gemm::Op;
using gemm_test::Case;
using Tuned = gemm::preset::Tuned;
using Narrow = Tuned::HopperNarrow;
using bf16 = __nv_bfloat16;

}  // namespace

TEST_CASE("128x96 Hopper tiles: every layout, ragged and misaligned, alpha, beta, NaN C", "[gpu][narrow]") {
  if (!gemm_test::hopper_runs_here()) return;
  gemm_test::check_preset<Narrow, bf16>();
  for (const Case& c : gemm_test::layout_cases()) {
    gemm_test::run_case<Narrow, __half, float>(c.with_ops(Op::N, Op::T));
    gemm_test::run_case<Narrow, __half>(c.with_ops(Op::T, Op::T));
  }
  const bool q = gemm_test::quick();
  // Many tiles a block (persistent: 2048 x 768 is 128 tiles, 3000 x 1000 264), the last tile column
  // 40 of 96 wide (n = 1000), rows of C that TMA cannot write (odd ldc: the consumers store the
  // chunks) and whose length ends inside 16 bytes (n = 769), NaN C under beta = 0.
  gemm_test::run_case<Narrow, bf16>(Case{2048, 768, q ? 256 : 3072, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T));
  gemm_test::run_case<Narrow, bf16>(Case{3000, 1000, 520, -0.5, 0.0, 8, 0, 1, 0, 0, 0, true}.with_ops(Op::N, Op::T));
  gemm_test::run_case<Narrow, bf16>(Case{1031, 769, 264, 1.5, 0.0, 0, 8, 0, 0, 0, 0, true}.with_ops(Op::T, Op::T));
  gemm_test::run_case<Narrow, bf16>(Case{700, 960, 1000, 0.75, -1.0, 0, 0, 4}.with_ops(Op::N, Op::N));
  gemm_test::run_case<Narrow, bf16, float>(Case{1000, 997, 136, 1.0, 0.0, 0, 0, 3, 0, 0, 1, true}.with_ops(Op::N, Op::T));
}

TEST_CASE("128x96 Hopper tiles: a fused epilogue", "[gpu][narrow][epilogue]") {
  if (!gemm_test::hopper_runs_here()) return;
  using namespace epilogue_test;
  for (const FusedCase& base : family_cases(1)) {
    FusedCase f = base;
    f.c = base.c.with_ops(Op::N, Op::T);
    run_fused<Narrow, bf16, bf16, RowColumnRamp, float, Entries::Every>(f);
  }
  run_fused<Narrow, bf16, bf16, RowColumnRamp, float, Entries::Every>(
      {Case{2048, 768 + 8, 1000, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T), BiasKind::PerColumn});
}

TEST_CASE("128x96 Hopper tiles: Tuned takes them where they balance the rounds", "[gpu][narrow]") {
  if (!gemm_test::hopper_runs_here()) return;
  const int sms = gemm_test::device_sms();
  gemm_test::DeviceBuffer<bf16> probe(1);
  const auto narrow = [&](Op op_a, Op op_b, int m, int n, int k) {
    return gemm_test::tuned_composition<bf16>(probe.ptr, op_a, op_b, m, n, k).find("BlockTile<128,96>") !=
           std::string::npos;
  };
  // 16 x 8 = 128 tiles of 128x96 fill a round of 132 SMs (H100, H200 SXM); 96 of 128x128 fill 73%.
  // On other SM counts the rule may choose otherwise: the calls are checked either way.
  if (sms == 132) {
    CHECK(narrow(Op::N, Op::T, 2048, 768, 3072));
    CHECK(narrow(Op::T, Op::T, 2048, 768, 3072));
  }
  CHECK_FALSE(narrow(Op::N, Op::N, 2048, 768, 3072));  // (B row-major: never)
  const bool q = gemm_test::quick();
  gemm_test::run_case<Tuned, bf16>(Case{2048, 768, q ? 512 : 3072, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T));
  gemm_test::run_case<Tuned, __half>(Case{2048, 768, 1000, -1.0, 0.5, 8, 8, 8}.with_ops(Op::T, Op::T));
  gemm_test::run_case<Tuned, bf16, float>(Case{2048, 768, 776, 0.5, 0.0}.with_ops(Op::N, Op::T));
  gemm_test::check_bitwise_repeatable<Tuned, bf16>(2048, 768, q ? 512 : 3072);
}
