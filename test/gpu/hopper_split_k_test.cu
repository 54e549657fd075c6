// Split-K on the Hopper kernel (HopperSplitK, sm90/split_k.cuh): Tuned's decode, 128x128 and 128x64
// compositions on shapes whose tiles fill few of the SMs, with 1, 2, 3 and many slices per tile
// (shapes found from this GPU's SM count), every layout, ragged and misaligned, alpha and beta, NaN
// under beta = 0; the tail split (whole rounds of tiles, then the last round's tiles in slices);
// results bitwise identical from call to call and through a CUDA graph; a fused epilogue applied
// once, to the complete sums.
#include <cstring>
#include "epilogue_check.cuh"

namespace {

using gemm::Op;
using gemm_test::Case;
using Tuned = gemm::preset::Tuned;
using bf16 = __nv_bfloat16;

using gemm_test::device_sms;

// Slices per tile the composition takes for a single m x n x k product on this GPU.
template <class P>
int slices_of(int m, int n, int k) {
  using S = typename P::template Shape<bf16>;
  const long long tiles = gemm::detail::ceil_div(m, S::BM) * gemm::detail::ceil_div(n, S::BN);
  return P::KSplit::slices(tiles, static_cast<int>(gemm::detail::ceil_div(k, S::BK)), device_sms());
}

// The first n (in whole tiles of BN, up to 64 of them) that gives `want` slices for m x n x k.
template <class P>
int n_for_slices(int m, int k, int want) {
  using S = typename P::template Shape<bf16>;
  for (int tiles_n = 1; tiles_n <= 64; ++tiles_n)
    if (slices_of<P>(m, tiles_n * S::BN, k) == want) return tiles_n * S::BN;
  return 0;
}

// The tail split the composition makes of a single m x n x k product on this GPU.
template <class P>
gemm::HopperKSlices cut_of(int m, int n, int k) {
  using S = typename P::template Shape<bf16>;
  const long long tiles = gemm::detail::ceil_div(m, S::BM) * gemm::detail::ceil_div(n, S::BN);
  return P::KSplit::cut(tiles, static_cast<int>(gemm::detail::ceil_div(k, S::BK)), device_sms());
}

// The first n (in whole tiles of BN, up to 256 of them) whose tiles make at least `rounds` whole
// rounds of the SMs and a last round split into `want` slices.
template <class P>
int n_for_tail(int m, int k, int rounds, int want) {
  using S = typename P::template Shape<bf16>;
  for (int tiles_n = 1; tiles_n <= 256; ++tiles_n) {
    const gemm::HopperKSlices cut = cut_of<P>(m, tiles_n * S::BN, k);
    if (cut.splits == want && cut.whole >= static_cast<long long>(rounds) * device_sms()) return tiles_n * S::BN;
  }
  return 0;
}

// The cases of one shape: as given; ragged and misaligned (copied for TMA); beta over NaN; every
// layout and the column-major entry point.
std::vector<Case> cases_of(int m, int n, int k) {
  std::vector<Case> out;
  const Case base{m, n, k, 1.5, 0.0, 0, 0, 0, 0, 0, 0, true};
  out.push_back(base);
  out.push_back(Case{m, n, k, -1.0, 0.5});
  out.push_back(Case{m > 3 ? m - 3 : m, n - 5, k - 7, 0.75, -1.25, 1, 3, 1, 1, 1, 0});  // odd rows: staged copies
  for (const Case& c : {base.with_ops(Op::N, Op::T), base.with_ops(Op::T, Op::N), base.with_ops(Op::T, Op::T),
                        Case{m, n, k, 1.0, 1.0}.with_ops(Op::N, Op::T, true)})
    out.push_back(c);
  return out;
}

}  // namespace

TEST_CASE("Hopper split-K: 1, 2, 3 and many slices per tile, every layout", "[gpu][hopper][splitk]") {
  if (!gemm_test::hopper_runs_here()) return;
  const bool q = gemm_test::quick();
  struct Want {
    int m, k, slices;
  };
  // HopperMedium (128x128 tiles, slices of at least 16 k blocks, at most 16, added by the fixup
  // kernel from 2 slices) and HopperDecode (64x128,
  // slices of at least 4; from a quarter to half the SMs, of at least 96: m = 100 over 192 or 224 k
  // blocks takes 2 slices first at 34 tiles): shapes found for each slice count.
  for (const Want& w : {Want{256, 4096, 2}, Want{256, 6144 - 40, 3}, Want{128, 16384, 8}}) {
    const int n = n_for_slices<Tuned::HopperMedium>(w.m, w.k, w.slices);
    INFO("HopperMedium, " << w.slices << " slices: m " << w.m << ", k " << w.k << ", n " << n);
    REQUIRE(n > 0);
    for (const Case& c : cases_of(w.m, n, w.k)) gemm_test::run_case<Tuned::HopperMedium, bf16>(c);
  }
  for (const Want& w : {Want{16, 640, 2}, Want{61, 896, 3}, Want{1, q ? 8192 : 32768, 16}, Want{100, q ? 12288 : 14336, 2}}) {
    const int n = n_for_slices<Tuned::HopperDecode>(w.m, w.k, w.slices);
    INFO("HopperDecode, " << w.slices << " slices: m " << w.m << ", k " << w.k << ", n " << n);
    REQUIRE(n > 0);
    for (const Case& c : cases_of(w.m, n, w.k)) gemm_test::run_case<Tuned::HopperDecode, bf16>(c);
  }
  // HopperSmall (128x64 tiles, for C narrower than a tile): split as decode's are.
  for (const Want& w : {Want{256, 640, 2}, Want{256, 896, 3}, Want{128, 8192, 16}}) {
    const int n = n_for_slices<Tuned::HopperSmall>(w.m, w.k, w.slices);
    INFO("HopperSmall, " << w.slices << " slices: m " << w.m << ", k " << w.k << ", n " << n);
    REQUIRE(n > 0);
    for (const Case& c : cases_of(w.m, n, w.k)) gemm_test::run_case<Tuned::HopperSmall, bf16>(c);
  }
  // Tuned on a C narrower than its tiles (n = 8), the 128x64 tiles in 4 slices.
  gemm_test::run_case<Tuned, bf16>(Case{4096, 8, 4096, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}.with_ops(Op::N, Op::T));
  // fp16 with float C, and TF32 (operands made K-major first), through Tuned's decode choice.
  gemm_test::run_case<Tuned, __half, float>(Case{16, 2048, 4096, 1.0, 0.5}.with_ops(Op::N, Op::T));
  gemm_test::run_case<Tuned, gemm::tf32>(Case{8, 1024, 4096, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true});
  gemm_test::run_case<Tuned, gemm::tf32>(Case{8, 1024, 4096, 1.0, 0.5}.with_ops(Op::T, Op::N));
  // k blocks that 16 slices do not share out evenly: 65 blocks of 64 (16 x 1024: 8 decode tiles, 16
  // slices asked) make 13 slices of 5; 16 would leave the last three with none.
  gemm_test::run_case<Tuned, bf16>(Case{16, 1024, 65 * 64, 1.0, 0.5}.with_ops(Op::N, Op::T));
  gemm_test::run_case<Tuned::HopperDecode, bf16>(Case{16, 1024, 65 * 64 - 8, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true});
}

TEST_CASE("Hopper split-K: whole rounds of tiles, then the last round's tiles in 2, 3 and 8 slices",
          "[gpu][hopper][splitk]") {
  if (!gemm_test::hopper_runs_here()) return;
  const bool q = gemm_test::quick();
  struct Want {
    int m, k, rounds, slices;
  };
  // HopperMedium's tail split (slices of at least 4 k blocks, at most 8; the last round at most half
  // full; k long enough to pay for the fixup: HopperSplitK::tail_round_blocks): shapes found for
  // each count from this GPU's SM count, one with two whole rounds first. (k: 54, 47 and 64 k blocks,
  // the first two ragged.)
  for (const Want& w : {Want{1024, 3400, 1, 2}, Want{1024, 3000, 1, 3}, Want{1024, 4096, 1, 8}, Want{2048, 4096, 2, 8}}) {
    const int n = n_for_tail<Tuned::HopperMedium>(w.m, w.k, w.rounds, w.slices);
    INFO("HopperMedium, " << w.rounds << "+ whole rounds, then " << w.slices << " slices: m " << w.m << ", k " << w.k
                          << ", n " << n);
    REQUIRE(n > 0);
    std::vector<Case> cases = cases_of(w.m, n, w.k);
    if (q) cases.resize(3);
    for (const Case& c : cases) gemm_test::run_case<Tuned::HopperMedium, bf16>(c);
  }
  // A k too short to pay for the fixup keeps the tiles whole (32 k blocks in 2 slices: 16 + 25 of
  // fixup against 32).
  CHECK(n_for_tail<Tuned::HopperMedium>(1024, 2048, 1, 2) == 0);
  // fp16 with float C, and a fused epilogue on the split tiles and the whole ones.
  const int n = n_for_tail<Tuned::HopperMedium>(1024, 4096, 1, 8);
  REQUIRE(n > 0);
  gemm_test::run_case<Tuned::HopperMedium, __half, float>(Case{1024, n, 4096, 1.0, 0.5}.with_ops(Op::N, Op::T));
  using namespace epilogue_test;
  run_fused<Tuned::HopperMedium, bf16, bf16, act::GeluTanh>({Case{1024, n, 4096, 1.0, 0.0}, BiasKind::PerColumn});
  // Bitwise the same from call to call and through a CUDA graph (whose replays find the tail's
  // counters at 0 again).
  gemm_test::check_bitwise_repeatable<Tuned::HopperMedium, bf16>(1024, n, 4096);
}

TEST_CASE("Hopper split-K: Tuned on decode and long-k shapes, with the plan's scratch", "[gpu][hopper][splitk]") {
  if (!gemm_test::hopper_runs_here()) return;
  const bool q = gemm_test::quick();
  // (Decode turns around up to hopper.turned_narrow_max_m tokens in every layout, with B stored
  // transposed up to hopper.turned_max_m: 64x16 tiles, 16 of them for 1024 weight rows; 24 tokens
  // with B row-major take the 64x128 tiles, 32 of them in 4 slices.)
  const Case shapes[] = {Case{24, 4096, q ? 1024 : 4096, 1.0, 0.0},
                         Case{16, 1024, q ? 2048 : 8192, 1.0, 0.5}.with_ops(Op::N, Op::T),
                         Case{64, 2048, 2048, 1.0, 1.0}.with_ops(Op::N, Op::T),
                         Case{384, 384, q ? 8192 : 65536, 1.0, 0.0}.with_ops(Op::T, Op::N)};
  for (const Case& c : shapes) {
    gemm_test::DeviceBuffer<bf16> probe(1);
    const gemm::Plan plan = gemm::plan<bf16>(c.op_a, c.op_b, c.m, c.n, c.k, 1.0f, probe.ptr, c.lda(), probe.ptr,
                                             c.ldb(), 0.0f, probe.ptr, c.ldc());
    INFO(c.str() << ": " << plan.describe() << ", scratch " << plan.workspace_bytes);
    CHECK(plan.composition.find("HopperSplitK") != std::string::npos);
    CHECK(plan.workspace_bytes > 0);  // the partial tiles
    gemm_test::run_case<Tuned, bf16>(c);
  }
}

TEST_CASE("Hopper split-K: bitwise the same from call to call, and through a CUDA graph", "[gpu][hopper][splitk]") {
  if (!gemm_test::hopper_runs_here()) return;
  const int m = 64, n = 2048, k = 4096;  // (A row-major, B stored transposed: from 33 tokens not turned)
  REQUIRE(slices_of<Tuned::HopperDecode>(m, n, k) > 1);
  gemm_test::check_bitwise_repeatable<Tuned, bf16>(m, n, k);
  // Up to half the SMs with long slices (132 SMs: 64 tiles, 2 slices of 112 k blocks).
  if (device_sms() == 132) CHECK(slices_of<Tuned::HopperDecode>(128, 4096, 14336) == 2);
  gemm_test::check_bitwise_repeatable<Tuned, bf16>(128, 4096, 14336);
}

TEST_CASE("Hopper split-K: a fused epilogue applies once, to the complete sums", "[gpu][hopper][splitk][epilogue]") {
  if (!gemm_test::hopper_runs_here()) return;
  using namespace epilogue_test;
  run_fused<Tuned, bf16, bf16, act::GeluTanh>({Case{16, 2048, 4096, 1.0, 0.5}, BiasKind::PerColumn});
  run_fused<Tuned, bf16, bf16, act::GeluTanh>({Case{48, 1024, 2048, 1.0, 0.0}, BiasKind::PerRow, true});
  run_fused<Tuned::HopperMedium, bf16, float, act::SiLU>({Case{256, 256, 8192, -1.0, 1.0}, BiasKind::PerColumn});
}

TEST_CASE("Hopper split-K: the separate fixup adds the slices as the last block does, bitwise",
          "[gpu][hopper][splitk]") {
  if (!gemm_test::hopper_runs_here()) return;
  // 128x128 tiles in 6 slices, the partial tiles added by split_k_fixup_kernel (Separate) or by each
  // tile's last block: every case of one shape through the first, then both on the same inputs.
  using Separate = gemm::HopperPolicy<gemm::BlockTile<128, 128>, 6, gemm::PersistentProducerConsumer<2>,
                                      gemm::SwizzledRaster<8>, gemm::TmaStoreEpilogue, gemm::PackMisalignedOperands,
                                      gemm::HopperFixedSplitK<6, true>>;
  using LastBlock = gemm::HopperPolicy<gemm::BlockTile<128, 128>, 6, gemm::PersistentProducerConsumer<2>,
                                       gemm::SwizzledRaster<8>, gemm::TmaStoreEpilogue, gemm::PackMisalignedOperands,
                                       gemm::HopperFixedSplitK<6, false>>;
  for (const Case& c : cases_of(200, 328, 3000)) gemm_test::run_case<Separate, bf16>(c);
  const int m = 300, n = 520, k = 6000;
  std::vector<bf16> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(n) * k);
  gemm_test::fill_random(a);
  gemm_test::fill_random(b);
  gemm_test::DeviceBuffer<bf16> da(a.size()), db(b.size()), c1(static_cast<size_t>(m) * n), c2(c1.count);
  gemm_test::upload(da, a);
  gemm_test::upload(db, b);
  CUDA_REQUIRE(cudaMemset(c1.ptr, 0xff, c1.count * sizeof(bf16)));
  CUDA_REQUIRE(cudaMemset(c2.ptr, 0xff, c2.count * sizeof(bf16)));
  REQUIRE(gemm::gemm<bf16, Separate>(Op::N, Op::T, m, n, k, 1.0f, da.ptr, k, db.ptr, k, 0.0f, c1.ptr, n) ==
          gemm::Status::Success);
  REQUIRE(gemm::gemm<bf16, LastBlock>(Op::N, Op::T, m, n, k, 1.0f, da.ptr, k, db.ptr, k, 0.0f, c2.ptr, n) ==
          gemm::Status::Success);
  std::vector<bf16> h1(c1.count), h2(c2.count);
  CUDA_REQUIRE(cudaMemcpy(h1.data(), c1.ptr, c1.count * sizeof(bf16), cudaMemcpyDeviceToHost));
  CUDA_REQUIRE(cudaMemcpy(h2.data(), c2.ptr, c2.count * sizeof(bf16), cudaMemcpyDeviceToHost));
  CHECK(std::memcmp(h1.data(), h2.data(), h1.size() * sizeof(bf16)) == 0);
  gemm_test::check_bitwise_repeatable<Separate, bf16>(m, n, k);
}
