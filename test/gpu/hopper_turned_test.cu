// The Hopper kernel turned around (TurnedRegisterEpilogue, detail/turned.cuh): C^T = op(B)^T op(A)^T
// computed with B's rows on the tile's M side, each result stored at its place in C. Every layout
// and the column-major entry point (ragged, padded and misaligned, alpha and beta, NaN under
// beta = 0, k = 0), C of float, TF32; a fused epilogue whose functor sees the caller's (row, column);
// misaligned operands named in the caller's frame; Tuned's composition on decode shapes (tokens
// against a weight stored transposed), k split across blocks and bitwise the same from call to call;
// Tuned taking it up to hopper.turned_max_m tokens (16-bit past the decode kernel, TF32 from one) and
// not beyond; 16-bit calls of the other layouts up to hopper.turned_narrow_max_m tokens (A transposed
// where the weight's 64-row tiles fill hopper.turned_copied_tiles rounds); 64x64 tiles from
// hopper.turned_wide_min_m to turned_wide_max_m tokens within a round of the SMs; 64x16 tiles over
// the decode kernel's 1 to decode.max_m tokens where the weight's tiles take more than a quarter round
// and at most one (hopper.turned_few_above, turned_few_within).
#include "epilogue_check.cuh"

namespace {

using gemm::Op;
using gemm_test::Case;
using Tuned = gemm::preset::Tuned;
using bf16 = __nv_bfloat16;
// A small turned composition (4 stages, whole tiles) for every layout; Tuned's own for decode.
using Turned = gemm::HopperPolicy<gemm::BlockTile<64, 32>, 4, gemm::PersistentProducerConsumer<1>,
                                  gemm::SwizzledRaster<8>, gemm::TurnedRegisterEpilogue, gemm::PackMisalignedOperands>;

// A Case with A row-major and B stored transposed (n x k), rows padded to a multiple of 8 elements.
Case nt(int m, int n, int k, double alpha = 1.0, double beta = 0.0, bool nan_c = false, int pad_c = 0) {
  const int pad = (8 - k % 8) % 8;
  return Case{m, n, k, alpha, beta, pad, pad, pad_c, 0, 0, 0, nan_c}.with_ops(Op::N, Op::T);
}

// Tuned's composition here for an m x n x 4096 bf16 call of these layouts.
std::string composition_of(const bf16* p, Op op_a, Op op_b, int m, int n) {
  return gemm_test::tuned_composition<bf16>(p, op_a, op_b, m, n, 4096);
}

}  // namespace

TEST_CASE("turned-around Hopper kernel: every layout, ragged and misaligned, alpha, beta, NaN C", "[gpu][turned]") {
  if (!gemm_test::hopper_runs_here()) return;
  // (PackMisalignedOperands: the standard cases' misaligned A and B are copied aligned first.)
  gemm_test::check_preset<Turned, bf16>();
  for (const Case& c : gemm_test::layout_cases()) {
    gemm_test::run_case<Turned, __half, float>(c.with_ops(Op::N, Op::T));
    gemm_test::run_case<Turned, gemm::tf32, float>(c.with_ops(Op::N, Op::T));
  }
  // Many tiles a block (persistent), C rows of odd length: every store a single element.
  gemm_test::run_case<Turned, bf16>(Case{45, 4099, 1000, 0.5, 1.0, 8, 0, 1}.with_ops(Op::N, Op::T));
  gemm_test::run_case<Turned, bf16>(Case{300, 1031, 520, -1.0, 0.0, 0, 0, 3, 0, 0, 1, true});
}

TEST_CASE("turned-around Hopper kernel: a fused epilogue sees the caller's row and column", "[gpu][turned][epilogue]") {
  if (!gemm_test::hopper_runs_here()) return;
  using namespace epilogue_test;
  for (const FusedCase& base : family_cases(1)) {
    for (int i = 0; i < 4; ++i) {
      FusedCase f = base;
      f.c = base.c.with_ops(i % 2 ? Op::T : Op::N, i / 2 ? Op::T : Op::N, i == 3);
      run_fused<Turned, bf16, bf16, RowColumnRamp, float, Entries::Every>(f);
    }
  }
  run_fused<Turned, bf16, bf16, RowColumnRamp, float, Entries::Every>({nt(16, 2048 + 8, 4096, 1.0, 0.5),
                                                                       BiasKind::PerColumn});
  run_fused<Turned, bf16, bf16, RowColumnRamp, float, Entries::Every>({nt(27, 1000, 1000, 1.0, 0.0, true),
                                                                       BiasKind::PerRow, true});
}

TEST_CASE("turned-around Hopper kernel: operands TMA cannot read are named as the caller's", "[gpu][turned]") {
  // An A whose rows are not 16-byte multiples is the kernel's B, and is still refused as A.
  using Aligned = gemm::HopperPolicy<gemm::BlockTile<64, 32>, 4, gemm::PersistentProducerConsumer<1>,
                                     gemm::SwizzledRaster<8>, gemm::TurnedRegisterEpilogue>;
  gemm_test::DeviceBuffer<bf16> buf(1 << 16);
  const auto args = [&](int lda, int ldb) {
    return gemm::GemmArgs<bf16, bf16>{16, 64, 72, 1.0f, buf.ptr, lda, buf.ptr, ldb, 0.0f, buf.ptr, 64, Op::N, Op::T};
  };
  CHECK(Aligned::check_alignment<bf16>(args(72, 72)) == gemm::Status::Success);
  CHECK(Aligned::check_alignment<bf16>(args(73, 72)) == gemm::Status::MisalignedA);
  CHECK(Aligned::check_alignment<bf16>(args(72, 73)) == gemm::Status::MisalignedB);
}

TEST_CASE("turned-around Hopper kernel: Tuned's decode composition, k split, bitwise repeatable", "[gpu][turned][splitk]") {
  if (!gemm_test::hopper_runs_here()) return;
  const int max_m = gemm::rules_for(90).hopper.turned_max_m;
  const int decode_max_m = gemm::rules_for(90).decode.max_m;
  // Tuned takes it from the decode kernel's last token count to turned_max_m, B stored transposed.
  gemm_test::DeviceBuffer<bf16> probe(1);
  const auto composition = [&](int m, Op op_b) { return composition_of(probe.ptr, Op::N, op_b, m, 4096); };
  CHECK(composition(decode_max_m + 1, Op::T).find("TurnedRegisterEpilogue") != std::string::npos);
  CHECK(composition(max_m, Op::T).find("TurnedRegisterEpilogue") != std::string::npos);
  CHECK(composition(max_m + 1, Op::T).find("TurnedRegisterEpilogue") == std::string::npos);
  CHECK(composition(16, Op::N).find("TurnedRegisterEpilogue") != std::string::npos);  // B row-major: to 16
  CHECK(composition(17, Op::N).find("TurnedRegisterEpilogue") == std::string::npos);
  // Tuned on decode shapes: whole tiles (6144 weight rows: 96 tiles), and few tiles with k split
  // (1024 rows: 16 tiles, 8 slices added by the fixup kernel); ragged tokens, weight rows and k.
  const bool q = gemm_test::quick();
  for (int m : {decode_max_m + 1, 16, 17, max_m}) {
    gemm_test::run_case<Tuned, bf16>(nt(m, q ? 1000 : 6144, q ? 512 : 4096, 1.0, 0.0, true));
    gemm_test::run_case<Tuned, bf16>(nt(m, 1024, q ? 2048 : 8192, -0.5, 1.0, false, 3));
    gemm_test::run_case<Tuned, bf16>(nt(m, 1001, 1000 + 8, 1.5, -0.75));
  }
  gemm_test::run_case<Tuned, __half>(nt(12, 2049, 2056, 1.0, 0.5));
  gemm_test::run_case<Tuned, bf16, float>(nt(24, 3000, 520, -0.5, 1.0, false, 1));
  gemm_test::run_case<Tuned, __half, float>(nt(32, 333, 24, 1.0, 0.0, true));
  // TF32 from one token (no decode kernel before it).
  for (int m : {1, 7, 16, max_m}) {
    gemm_test::run_case<Tuned, gemm::tf32, float>(nt(m, q ? 1000 : 6144, q ? 512 : 4096, 1.0, 0.0, true));
    gemm_test::run_case<Tuned, gemm::tf32, float>(nt(m, 1024, q ? 2048 : 8192, -0.5, 1.0, false, 3));
  }
  // The column-major entry point: C^T = B^T A^T reaches the row-major core as A row-major, B transposed.
  gemm_test::run_case<Tuned, bf16>(nt(20, 1001, 2048, 1.0, 0.5).with_ops(Op::N, Op::T, true));
  gemm_test::check_bitwise_repeatable<Tuned, bf16>(16, 1024, 8192);
}

TEST_CASE("turned-around Hopper kernel: Tuned on few-output calls of the other layouts", "[gpu][turned][splitk]") {
  if (!gemm_test::hopper_runs_here()) return;
  const gemm::HopperRules& h = gemm::rules_for(90).hopper;
  const bool q = gemm_test::quick();
  const int sms = gemm_test::device_sms();
  gemm_test::DeviceBuffer<bf16> probe(1);
  const auto turned = [&](Op op_a, Op op_b, int m, int n) {
    return composition_of(probe.ptr, op_a, op_b, m, n).find("TurnedRegisterEpilogue") != std::string::npos;
  };
  // Weight gradients with few outputs (a router's experts, a LoRA's rank) and decode with the weight
  // stored k x n: 1 to turned_narrow_max_m rows of C, ragged n and k, padded rows, alpha, beta, NaN C
  // under beta = 0; n = 2200 is 35 tiles of 64 rows (A transposed turns from a quarter of the SMs),
  // 1000 16 (A transposed: not turned); k 8200 splits the 16 tiles' k.
  const std::pair<Op, Op> layouts[] = {{Op::N, Op::N}, {Op::T, Op::N}, {Op::T, Op::T}};
  for (const auto& [op_a, op_b] : layouts) {
    for (int m : {1, 7, h.turned_narrow_max_m}) {
      INFO("op_a " << (op_a == Op::T ? "T" : "N") << ", op_b " << (op_b == Op::T ? "T" : "N") << ", m " << m);
      CHECK(turned(op_a, op_b, m, 2200) == (op_a == Op::N || h.turned_copied_tiles.reached(35, sms)));
      CHECK(turned(op_a, op_b, m, 1000) == (op_a == Op::N || h.turned_copied_tiles.reached(16, sms)));
      CHECK(!turned(op_a, op_b, h.turned_narrow_max_m + 1, 2200));
      gemm_test::run_case<Tuned, bf16>(Case{m, 2200, q ? 520 : 4100, 1.0, 0.0, 8, 8, 3, 0, 0, 0, true}.with_ops(op_a, op_b));
      gemm_test::run_case<Tuned, bf16>(Case{m, 1000, q ? 2056 : 8200, -0.5, 1.0}.with_ops(op_a, op_b));
      gemm_test::run_case<Tuned, __half, float>(Case{m, 2200, 77, 1.5, -0.75, 0, 1}.with_ops(op_a, op_b));
    }
    gemm_test::run_case<Tuned, bf16>(Case{h.turned_narrow_max_m + 1, 2200, 1000, 1.0, 0.5}.with_ops(op_a, op_b));
  }
  gemm_test::check_bitwise_repeatable<Tuned, bf16>(16, 1024, 8192);  // (row-major: turned, k split)
}

TEST_CASE("turned-around Hopper kernel: Tuned's 64x64 tiles at 40 to 64 tokens", "[gpu][turned][splitk]") {
  if (!gemm_test::hopper_runs_here()) return;
  const gemm::HopperRules& h = gemm::rules_for(90).hopper;
  const bool q = gemm_test::quick();
  const int sms = gemm_test::device_sms();
  gemm_test::DeviceBuffer<bf16> probe(1);
  const auto wide = [&](int m, int n) {
    const std::string c = composition_of(probe.ptr, Op::N, Op::T, m, n);
    return c.find("BlockTile<64,64>") != std::string::npos && c.find("TurnedRegisterEpilogue") != std::string::npos;
  };
  CHECK(wide(h.turned_wide_min_m, 6144));
  CHECK(wide(h.turned_wide_max_m, 64 * sms));
  CHECK(!wide(h.turned_wide_max_m, 64 * sms + 1));
  CHECK(!wide(h.turned_wide_min_m - 1, 6144));
  CHECK(!wide(h.turned_wide_max_m + 1, 6144));
  // Ragged tokens, weight rows (a last tile of 1 to 63 rows) and k, padded rows, alpha, beta, NaN C
  // under beta = 0, misaligned A (copied aligned first); 1024 rows: 16 tiles, k split across blocks.
  for (int m : {h.turned_wide_min_m, 47, h.turned_wide_max_m}) {
    INFO("m " << m);
    gemm_test::run_case<Tuned, bf16>(nt(m, q ? 1000 : 6144, q ? 512 : 4096, 1.0, 0.0, true));
    gemm_test::run_case<Tuned, bf16>(nt(m, 1024, q ? 2048 : 8192, -0.5, 1.0, false, 3));
    gemm_test::run_case<Tuned, bf16>(nt(m, 1001, 1000 + 8, 1.5, -0.75));
    gemm_test::run_case<Tuned, bf16>(Case{m, 2049, 1000, 1.0, 0.0, 1, 8, 0, 3, 0, 0, true}.with_ops(Op::N, Op::T));
    gemm_test::run_case<Tuned, __half, float>(nt(m, 3000, 520, -0.5, 1.0, false, 1));
  }
  gemm_test::run_case<Tuned, bf16>(nt(56, 4095, 0, 1.0, 0.5));  // k = 0: C = beta C
  // The column-major entry point reaches the row-major core as A row-major, B transposed.
  gemm_test::run_case<Tuned, bf16>(nt(48, 1001, 2048, 1.0, 0.5).with_ops(Op::N, Op::T, true));
  gemm_test::check_bitwise_repeatable<Tuned, bf16>(48, 1024, 8192);  // (k split)
  gemm_test::check_bitwise_repeatable<Tuned, bf16>(64, 6144, 4096);
}

TEST_CASE("turned-around Hopper kernel: Tuned's 64x16 tiles over the decode kernel at 1 to 8 tokens",
          "[gpu][turned][decode]") {
  if (!gemm_test::hopper_runs_here()) return;
  const int max_m = gemm::rules_for(90).decode.max_m;
  const bool q = gemm_test::quick();
  const int sms = gemm_test::device_sms();
  gemm_test::DeviceBuffer<bf16> probe(1);
  const auto turned = [&](int m, int n) {
    const std::string c = composition_of(probe.ptr, Op::N, Op::T, m, n);
    return c.find("BlockTile<64,16>") != std::string::npos && c.find("TurnedRegisterEpilogue") != std::string::npos;
  };
  const auto decode = [&](int m, int n) {
    return composition_of(probe.ptr, Op::N, Op::T, m, n).find("DecodePolicy") != std::string::npos;
  };
  // The rule's edges on this device: more than a quarter of a round of 64-row tiles, at most one.
  const int quarter = sms / 4;  // tiles within a quarter round: 4 x tiles <= sms
  CHECK(decode(1, 64 * quarter));
  CHECK(turned(1, 64 * quarter + 64));
  CHECK(turned(max_m, 64 * sms));
  CHECK(decode(max_m, 64 * sms + 1));
  // Ragged tokens, weight rows (a last tile of 1 to 63 rows) and k, padded rows, alpha, beta, NaN C
  // under beta = 0; A's rows 8 bytes off 16 (the decode kernel: TMA would copy A first), and A of any
  // alignment (the turned tiles on an aligned copy: the decode kernel reads 8-byte pieces).
  for (int m : {1, 3, max_m}) {
    INFO("m " << m);
    CHECK(turned(m, 6144));
    gemm_test::run_case<Tuned, bf16>(nt(m, 6144, q ? 1024 : 4096, 1.0, 0.0, true));
    gemm_test::run_case<Tuned, bf16>(nt(m, 64 * quarter + 65, 1000 + 8, 1.5, -0.75, false, 3));
    gemm_test::run_case<Tuned, bf16>(nt(m, 64 * sms - 7, q ? 520 : 2056, -0.5, 1.0));
    gemm_test::run_case<Tuned, bf16>(Case{m, 4001, 1000, 1.0, 0.0, 4, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T));
    gemm_test::run_case<Tuned, bf16>(Case{m, 4001, 1000, 1.0, 0.0, 1, 8, 0, 3, 0, 0, true}.with_ops(Op::N, Op::T));
    gemm_test::run_case<Tuned, __half, float>(nt(m, 3000, 520, -0.5, 1.0, false, 1));
  }
  {
    const std::string c = gemm_test::tuned_composition<bf16>(probe.ptr, Op::N, Op::T, 4, 4001, 1000 + 4);
    CHECK(c.find("DecodePolicy") != std::string::npos);  // (rows of 2008 bytes)
  }
  gemm_test::run_case<Tuned, bf16>(nt(5, 4095, 0, 1.0, 0.5));  // k = 0: C = beta C
  // The column-major entry point reaches the row-major core as A row-major, B transposed.
  gemm_test::run_case<Tuned, bf16>(nt(2, 5001, 2048, 1.0, 0.5).with_ops(Op::N, Op::T, true));
  gemm_test::check_bitwise_repeatable<Tuned, bf16>(4, 6144, 4096);
}
