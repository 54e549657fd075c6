// gemm::plan for devices described by hand (no GPU, no CUDA call): what the default policy picks per
// architecture, type, layout, shape and alignment, and the statuses it answers for invalid calls.
#include <string>
#include <cuda_bf16.h>
#include <gemm/gemm.cuh>
#include "../catch.hpp"

namespace {
using gemm::Op;
using gemm::Status;
using bf16 = __nv_bfloat16;

const gemm::Target kH100{90, 132, 227 * 1024};
const gemm::Target kA100{80, 108, 163 * 1024};
const gemm::Target kL40{89, 142, 99 * 1024};
const gemm::Target kT4{75, 40, 64 * 1024};

// Never read: plan only looks at the pointers' values (null, alignment).
alignas(256) unsigned char storage[1024];
template <class T>
T* ptr(int offset_bytes = 0) {
  return reinterpret_cast<T*>(storage + offset_bytes);
}

template <class T, class Policy = gemm::DefaultPolicy, class Out = gemm::storage_t<T>>
gemm::Plan plan_nn(const gemm::Target& t, int m, int n, int k, Op op_a = Op::N, Op op_b = Op::N, int lda = 0,
                   int ldb = 0, int a_offset = 0) {
  using In = gemm::storage_t<T>;
  if (lda == 0) lda = op_a == Op::N ? k : m;
  if (ldb == 0) ldb = op_b == Op::N ? n : k;
  return gemm::plan<T, Policy>(t, op_a, op_b, m, n, k, 1, ptr<In>(a_offset), lda, ptr<In>(), ldb, 0, ptr<Out>(), n);
}

bool has(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }
}  // namespace

TEST_CASE("the default plan for bf16 follows the architecture, the tile count and the alignment", "[host][plan]") {
  const gemm::Plan big = plan_nn<bf16>(kH100, 4096, 4096, 4096);
  CHECK(big.status == Status::Success);
  CHECK(big.preset == "Tuned");
  CHECK(has(big.composition, "HopperPolicy"));
  CHECK(has(big.composition, "BlockTile<128,256>"));
  CHECK(has(big.reason, "128x256"));
  CHECK(has(big.describe(), "Tuned: "));

  CHECK(has(plan_nn<bf16>(kH100, 2048, 2048, 2048).composition, "BlockTile<128,256>"));  // 16 x 8 = 128 tiles
  // 128x128 tiles where they take fewer rounds of the SMs, each counted as half a round: 2560 x 4096
  // is 3 rounds of 128x256 tiles or 5 half rounds (and 4 rounds of 128x192 ones, 5.83 > 5).
  CHECK(has(plan_nn<bf16>(kH100, 2560, 4096, 2560).composition, "BlockTile<128,128>"));
  CHECK(has(plan_nn<bf16>(kH100, 2560, 4096, 2560).reason, "half a round"));
  // 1536^3: 72 wide tiles, 144 of 128x128 (two rounds), 96 of 128x192 (one).
  CHECK(has(plan_nn<bf16>(kH100, 1536, 1536, 1536).composition, "BlockTile<128,192>"));
  CHECK(has(plan_nn<bf16>(kH100, 1024, 1024, 1024).composition, "BlockTile<128,64>"));
  // A short k where 128x256 tiles fill a round (pingpong_max_k): the ping-pong schedule, one
  // consumer's epilogue under the other's mainloop; fp16 too, not tf32, not batches, not from k =
  // 1025 nor below 16, and not where 128x192 tiles balance better (1536 x 1536 x 768).
  CHECK(has(plan_nn<bf16>(kH100, 4096, 4096, 768).composition, "PersistentPingPong"));
  CHECK(has(plan_nn<bf16>(kH100, 4096, 4096, 768).reason, "pingpong_max_k"));
  CHECK(has(plan_nn<bf16>(kH100, 8192, 8192, 1024, Op::N, Op::T).composition, "PersistentPingPong"));
  CHECK(has(plan_nn<__half>(kH100, 2048, 6144, 512, Op::T, Op::N).composition, "PersistentPingPong"));
  CHECK(has(plan_nn<bf16>(kH100, 4096, 4096, 1025).composition, "BlockTile<128,256>"));
  CHECK(has(plan_nn<bf16>(kH100, 4096, 4096, 8).composition, "BlockTile<128,256>"));  // (below pingpong_min_k)
  CHECK(has(plan_nn<bf16>(kH100, 4096, 4096, 16).composition, "PersistentPingPong"));
  CHECK(!has(plan_nn<gemm::tf32, gemm::DefaultPolicy, float>(kH100, 4096, 4096, 768).composition, "PingPong"));
  CHECK(has(plan_nn<bf16>(kH100, 1536, 1536, 768).composition, "BlockTile<128,192>"));
  // And before the widths that balance the rounds, where its 128x128 tiles make a round of the SMs
  // and cost the least at hopper.speed_pingpong (1.08): 576 x 7168 x 512 TN is 280 of them (3
  // rounds: 2.78) against 190 of 128x192 (2 of 1.5 times the work: 2.91); 512 x 7168 x 576, 224 (2
  // rounds: 1.85) against 2 rounds of 128x128 on the cooperative kernel. Not where 128x192 tiles take
  // fewer rounds (768 x 3072 x 1024 TN: 144 tiles, 2 rounds, against one of 128x192), at 3000 x 5000
  // x 512 (8 rounds: 7.41, against 5 of 128x192: 7.28), with fewer tiles than SMs (2048 x 768 x 768:
  // 96), or with a fused epilogue (its own rules).
  CHECK(has(plan_nn<bf16>(kH100, 576, 7168, 512, Op::T, Op::N).composition, "PersistentPingPong"));
  CHECK(has(plan_nn<bf16>(kH100, 576, 7168, 512, Op::T, Op::N).reason, "speed_pingpong"));
  CHECK(has(plan_nn<bf16>(kH100, 512, 7168, 576).composition, "PersistentPingPong"));
  CHECK(has(plan_nn<bf16>(kH100, 768, 3072, 1024, Op::T, Op::N).composition, "BlockTile<128,192>"));
  CHECK(has(plan_nn<bf16>(kH100, 3000, 5000, 512).composition, "BlockTile<128,192>"));
  CHECK(!has(plan_nn<bf16>(kH100, 2048, 768, 768).composition, "PingPong"));
  CHECK(gemm::rules_for(90).hopper.speed_pingpong == 1.08);
  // 136 tiles of 128x64 would be two rounds of 132 SMs: 72 tiles of 128x128 instead.
  CHECK(has(plan_nn<bf16>(kH100, 1023, 1025, 1021).composition, "BlockTile<128,128>"));
  // Rows TMA cannot read are copied first: still the Hopper kernel. With beta == 0 an odd C is stored
  // through shared memory in row order, not copied.
  const gemm::Plan odd = plan_nn<bf16>(kH100, 4095, 4097, 4093);
  CHECK(has(odd.composition, "HopperPolicy"));
  CHECK(has(odd.composition, "PackMisalignedOperands"));
  // A and B are copied with rows padded to 64 bytes: 4095 x 4096 + 4093 x 4128 bf16.
  CHECK(odd.workspace_bytes >= (4095ull * 4096 + 4093ull * 4128) * 2);
  CHECK(odd.workspace_bytes < (4095ull * 4096 + 4093ull * 4128) * 2 + 2 * 256);
  // beta != 0: C is read, so it is computed in an aligned copy too (4095 x 4128 more).
  const gemm::Plan odd_beta = gemm::plan<bf16>(kH100, Op::N, Op::N, 4095, 4097, 4093, 1, ptr<bf16>(), 4093, ptr<bf16>(),
                                               4097, 1, ptr<bf16>(), 4097);
  CHECK(odd_beta.workspace_bytes >= (4095ull * 4096 + 4093ull * 4128 + 4095ull * 4128) * 2);
  CHECK(odd_beta.workspace_bytes < (4095ull * 4096 + 4093ull * 4128 + 4095ull * 4128) * 2 + 3 * 256);
  // A ragged n: 16 x 33 tiles of 256x128 are four rounds of 132 SMs, 32 x 17 of 128x256 five.
  CHECK(has(odd.composition, "BlockTile<256,128>"));
  CHECK(has(odd.reason, "256x128"));
  CHECK(has(plan_nn<bf16>(kH100, 4096, 4097, 4096).composition, "BlockTile<256,128>"));
  CHECK(has(plan_nn<bf16>(kH100, 4096, 4096, 4100).composition, "BlockTile<128,256>"));  // ragged k only
  // TMA reads B's rows of 8080 bytes (n = 4040), but slowly (not on 64-byte multiples): B (stored
  // k x n, MN-major) is copied with rows of 4064 (8128 bytes), for C at least 4096 rows tall; A stored m x k
  // (K-major, read fast) is not copied; nor is B with rows on 64-byte multiples, or for a short C.
  CHECK(plan_nn<bf16>(kH100, 4096, 4040, 4096).workspace_bytes == 4096ull * 4064 * 2);
  CHECK(plan_nn<bf16>(kH100, 4096, 4096, 4040).workspace_bytes == 0);
  CHECK(plan_nn<bf16>(kH100, 4096, 4000, 4096).workspace_bytes == 0);
  CHECK(plan_nn<bf16>(kH100, 3000, 4040, 4096).workspace_bytes == 0);
  CHECK(plan_nn<bf16>(kH100, 4040, 4096, 4096, Op::T, Op::N, 4040).workspace_bytes == 4096ull * 4064 * 2);  // A k x m
  CHECK(has(plan_nn<bf16>(kH100, 4096, 4096, 4093).composition, "BlockTile<128,256>"));  // 512 tiles either way
  CHECK(has(plan_nn<gemm::tf32x3, gemm::DefaultPolicy, float>(kH100, 4096, 4097, 4096).composition,
            "BlockTile<128,256>"));
  CHECK(big.workspace_bytes == 0);

  // sm_80: mma.sync with the 144 KB tile; sm_89 gives a block 99 KB, so the small tile.
  CHECK(has(plan_nn<bf16>(kA100, 4096, 4096, 4096).composition, "MmaTile<128,256,128>"));
  const gemm::Plan l40 = plan_nn<bf16>(kL40, 4096, 4096, 4096);
  CHECK(has(l40.composition, "MmaTile<64,128,64>"));
  CHECK(has(l40.reason, "144 KB"));
  // A pointer 2 bytes off a 4-byte boundary: cp.async cannot copy it, element loads through registers
  // (the composition that decides per block, AlignedOr, falls back to them).
  CHECK(has(plan_nn<bf16>(kA100, 1000, 1000, 1000, Op::N, Op::N, 0, 0, 2).composition, "RegisterDoubleBuffer"));
  CHECK(has(plan_nn<bf16>(kT4, 512, 512, 512).composition, "WarpTiled<"));
}

TEST_CASE("the default plan for float, tf32, tf32x3 and double", "[host][plan]") {
  CHECK(has(plan_nn<float>(kH100, 4096, 4096, 4096).composition, "TileShape<128,256,16,4,4>"));
  CHECK(has(plan_nn<float>(kH100, 4096, 4096, 4096).composition, "StreamK"));
  CHECK(has(plan_nn<float>(kH100, 4096, 4096, 4096, Op::N, Op::T).reason, "B stored transposed"));
  CHECK(has(plan_nn<float>(kH100, 8, 4096, 4096).reason, "m <= skinny_max_m"));
  // A few tokens against a weight stored transposed with 16-byte-aligned rows: dot products along k.
  CHECK(has(plan_nn<float>(kH100, 16, 4096, 4096, Op::N, Op::T).composition, "DotRowsPolicy"));
  CHECK(has(plan_nn<float>(kH100, 16, 4096, 4096, Op::N, Op::T).reason, "dot_rows_max_m"));
  CHECK(has(plan_nn<float>(kA100, 1, 4096, 1000, Op::T, Op::T).composition, "DotRowsPolicy"));
  CHECK(!has(plan_nn<float>(kH100, 17, 4096, 4096, Op::N, Op::T).composition, "DotRowsPolicy"));
  CHECK(!has(plan_nn<float>(kH100, 16, 4096, 996, Op::N, Op::T).composition, "DotRowsPolicy"));
  CHECK(!has(plan_nn<float>(kH100, 16, 4096, 4096, Op::N, Op::T, 0, 4097).composition, "DotRowsPolicy"));
  CHECK(has(plan_nn<float>(kH100, 512, 512, 512).composition, "TileShape<64,64,32,1,4>"));
  CHECK(has(plan_nn<float>(kH100, 512, 512, 512).composition, "SplitKToFill<4,32,256,2>"));  // 64 small tiles: split k
  CHECK(has(plan_nn<float>(kH100, 768, 768, 768).composition, "SplitKToFill"));  // 144: about one per SM
  CHECK(!has(plan_nn<float>(kH100, 1024, 1024, 1024).composition, "SplitK"));  // 256 small tiles
  // A 128-row block of 1024^3 (gemm::host's pieces): 32 small tiles for 132 SMs, so k is split.
  CHECK(has(plan_nn<float>(kH100, 128, 1024, 1024).composition, "SplitKToFill"));
  CHECK(has(plan_nn<float>(kH100, 128, 1024, 1024).reason, "k slices to fill a round"));
  CHECK(!has(plan_nn<float>(kH100, 128, 1024, 128).composition, "SplitK"));  // short k
  // C narrower than the large tile: split k over small tiles, not large ones.
  CHECK(has(plan_nn<float>(kH100, 4096, 128, 4096).composition, "TileShape<64,64,32,1,4>"));
  CHECK(has(plan_nn<float>(kH100, 1024, 1024, 4096).composition, "TileShape<128,256,16,4,4>"));  // 16 large tiles
  CHECK(has(plan_nn<float>(kH100, 1024, 1024, 4096).reason, "k slices that fill whole rounds"));  // x 4 slices
  // Rounds of the SMs: 1536^3 is 576 small tiles (5 rounds, the last of 48) or 2304 slices (18 rounds
  // of a quarter the work); 1056^3 289 (3 rounds, the last of 25) or 1156 (9).
  CHECK(has(plan_nn<float>(kH100, 1536, 1536, 1536).composition, "SplitKToFill"));
  CHECK(has(plan_nn<float>(kH100, 1056, 1056, 1056).composition, "SplitKToFill"));
  CHECK(has(plan_nn<float>(kH100, 1056, 1056, 1056).reason, "balance the SMs"));
  // 1024 x 2048 x 4096: 64 large tiles in 2 slices take 1 round, 512 small ones 4.
  CHECK(has(plan_nn<float>(kH100, 1024, 2048, 4096).composition, "TileShape<128,256,16,4,4>"));
  CHECK(has(plan_nn<float>(kH100, 1024, 2048, 4096).composition, "SplitKToFill<2,8,256,1>"));
  // The shapes the fused split-K test (epilogue_tuned_test.cu) relies on.
  CHECK(has(plan_nn<float>(kH100, 1024, 1024, 2048).composition, "TileShape<128,256,16,4,4>"));
  CHECK(has(plan_nn<float>(kH100, 1024, 1024, 2048).composition, "SplitKToFill<2,8,256,1>"));
  CHECK(has(plan_nn<float>(kH100, 512, 512, 4096).composition, "TileShape<64,64,32,1,4>"));
  CHECK(has(plan_nn<float>(kH100, 512, 512, 4096).composition, "SplitKToFill<4,32,256,2>"));
  // The large tile's slices at its one block per SM: the count that fills whole rounds best
  // (3072 x 768 x 3152, a weight gradient: 72 tiles in 7 slices, 504 blocks in 4 rounds; 1280 x
  // 1280 x 5120: 50 in 5, 2 rounds; 32 tiles: 4, one round; 64 tiles: 2, one round).
  using LargeSlices = gemm::preset::Tuned::LargeKSlices;
  CHECK(LargeSlices::slices(72, 3152, 132) == 7);
  CHECK(LargeSlices::slices(50, 5120, 132) == 5);
  CHECK(LargeSlices::slices(32, 4096, 132) == 4);
  CHECK(LargeSlices::slices(64, 4096, 132) == 2);
  CHECK(has(plan_nn<float>(kH100, 3072, 768, 3152, Op::T, Op::N).composition, "SplitKToFill<2,8,256,1>"));
  // Large tiles within one round (96 to 131 of them on 132 SMs): split where the slices' rounds are
  // fewer than their count (2048 x 1536 x 4096: 96 tiles, 4 slices in 3 rounds), else whole with
  // stream-K (4096 x 1024 x 12288: 128 tiles, 2 slices would take 2 rounds).
  CHECK(has(plan_nn<float>(kH100, 2048, 1536, 4096, Op::T, Op::N).composition, "SplitKToFill<2,8,256,1>"));
  CHECK(has(plan_nn<float>(kH100, 4096, 1024, 12288, Op::T, Op::N).composition, "StreamK"));
  CHECK(has(plan_nn<float>(kH100, 2048, 1536, 1024).composition, "StreamK"));  // k < large_split_min_k
  // Few small tiles and a long k: the slice count that spreads the blocks most evenly (384 x 384 x
  // 65536, a weight gradient: 36 tiles in 11 slices, 3 blocks per SM; 78 SMs: 13, 6 per SM), at
  // least 4 (272 tiles), at most 32 (one tile), each at least 256 long where that leaves more than
  // 4 (8 tiles, k = 1536: 6), no fewer than two blocks per SM where k allows (16 tiles: 16).
  using Slices = gemm::preset::Tuned::SmallKSlices;
  CHECK(Slices::slices(36, 65536, 132) == 11);
  CHECK(Slices::slices(36, 65536, 78) == 13);
  CHECK(Slices::slices(272, 1021, 132) == 4);
  CHECK(Slices::slices(1, 1 << 20, 132) == 32);
  CHECK(Slices::slices(8, 1536, 132) == 6);
  CHECK(Slices::slices(16, 16384, 132) == 16);
  CHECK(Slices::cost(16, 16, 16384, 132) < Slices::cost(8, 16, 16384, 132));  // 1 block per SM costs as 2
  CHECK(has(plan_nn<float>(kH100, 384, 384, 65536, Op::T, Op::N).composition, "SplitKToFill"));
  // B stored transposed splits k on the same model (its 64x64 tiles pad B's rows).
  CHECK(has(plan_nn<float>(kH100, 512, 576, 7168, Op::N, Op::T).composition, "RowMajor<1>>"));
  CHECK(has(plan_nn<float>(kH100, 512, 576, 7168, Op::N, Op::T).composition, "SplitKToFill"));
  CHECK(!has(plan_nn<float>(kH100, 1024, 1024, 1024, Op::N, Op::T).composition, "SplitK"));  // 256 small tiles

  CHECK(has(plan_nn<gemm::tf32, gemm::DefaultPolicy, float>(kH100, 4096, 4096, 4096).composition, "HopperPolicy"));
  CHECK(has(plan_nn<gemm::tf32, gemm::DefaultPolicy, float>(kA100, 4096, 4096, 4096).composition, "MmaSyncMath"));
  // TF32 with a few rows against a row-major B: strict fp32 on CUDA cores (no transposed copy of B);
  // B stored transposed keeps the tensor cores (turned around), as do more rows and sm_80's mma.sync.
  CHECK(has(plan_nn<gemm::tf32, gemm::DefaultPolicy, float>(kH100, 8, 4096, 4096, Op::T, Op::N).composition,
            "TileShape<16,512"));
  CHECK(has(plan_nn<gemm::tf32, gemm::DefaultPolicy, float>(kH100, 16, 4096, 4096).reason, "strict fp32"));
  CHECK(plan_nn<gemm::tf32, gemm::DefaultPolicy, float>(kH100, 16, 4096, 4096).workspace_bytes == 0);
  CHECK(has(plan_nn<gemm::tf32, gemm::DefaultPolicy, float>(kH100, 8, 4096, 4096, Op::N, Op::T).composition,
            "HopperPolicy"));
  CHECK(has(plan_nn<gemm::tf32, gemm::DefaultPolicy, float>(kH100, 17, 4096, 4096).composition, "HopperPolicy"));
  CHECK(has(plan_nn<gemm::tf32, gemm::DefaultPolicy, float>(kH100, 16, 4096, 512).composition, "HopperPolicy"));
  CHECK(has(plan_nn<gemm::tf32, gemm::DefaultPolicy, float>(kA100, 16, 4096, 4096).composition, "MmaSyncMath"));
  // 3xTF32 on sm_80: mma.sync with the split in registers (no scratch); 64x128 tiles below a wave.
  const gemm::Plan a100_x3 = plan_nn<gemm::tf32x3, gemm::DefaultPolicy, float>(kA100, 4096, 4096, 4096);
  CHECK(has(a100_x3.composition, "MmaTile<128,128,128>"));
  CHECK(has(a100_x3.composition, "MmaSyncMath"));
  CHECK(has(a100_x3.reason, "split in registers"));
  CHECK(a100_x3.workspace_bytes == 0);
  CHECK(has(plan_nn<gemm::tf32x3, gemm::DefaultPolicy, float>(kA100, 1000, 1000, 1000).composition,
            "MmaTile<64,128,128>"));
  // Before sm_80: strict fp32, which is at least as accurate.
  CHECK(has(plan_nn<gemm::tf32x3, gemm::DefaultPolicy, float>(kT4, 1024, 1024, 1024).reason, "fp32"));
  // 3xTF32 on sm_90: three planes (hi, lo, hi without Inf/NaN) of A and of B, k padded to 4 floats.
  CHECK(plan_nn<gemm::tf32x3, gemm::DefaultPolicy, float>(kH100, 4096, 4096, 4096).workspace_bytes ==
        3ull * 2 * 4096 * 4096 * 4);

  CHECK(has(plan_nn<double>(kH100, 4096, 4096, 4096).composition, "DmmaMath"));
  CHECK(has(plan_nn<double>(kH100, 4096, 4096, 4096).composition, "MmaTile<128,128,128>"));
  CHECK(has(plan_nn<double>(kH100, 1024, 1024, 1024).composition, "MmaTile<128,64,128>"));
  CHECK(has(plan_nn<double>(kT4, 1024, 1024, 1024).reason, "CUDA cores"));
}

TEST_CASE("plan answers what the call would: refusals, empty calls, no product term", "[host][plan]") {
  const gemm::Plan bad_lda = plan_nn<bf16>(kH100, 64, 64, 64, Op::N, Op::N, 63);
  CHECK(bad_lda.status == Status::InvalidLeadingDimensionA);
  CHECK(has(bad_lda.describe(), "refused"));
  CHECK(plan_nn<bf16>(kH100, -1, 64, 64).status == Status::InvalidSize);
  CHECK(gemm::plan<bf16>(kH100, Op::N, Op::N, 64, 64, 64, 1.f, nullptr, 64, ptr<bf16>(), 64, 0.f, ptr<bf16>(), 64)
            .status == Status::NullPointerA);

  const gemm::Plan empty = plan_nn<bf16>(kH100, 0, 64, 64);
  CHECK(empty.status == Status::Success);
  CHECK(empty.composition == "nothing");
  CHECK(plan_nn<bf16>(kH100, 64, 64, 0, Op::N, Op::N, 1).composition == "scale_c_kernel");
  CHECK(gemm::plan<bf16>(kH100, Op::N, Op::N, 64, 64, 0, 1.f, ptr<bf16>(), 1, ptr<bf16>(), 64, 1.f, ptr<bf16>(), 64)
            .composition == "nothing");

  // A named preset runs as named, or not at all: MmaSync's 144 KB do not fit sm_89; Hopper needs sm_90.
  CHECK(plan_nn<bf16, gemm::preset::MmaSync>(kA100, 256, 256, 256).status == Status::Success);
  CHECK(plan_nn<bf16, gemm::preset::MmaSync>(kL40, 256, 256, 256).status == Status::SharedMemoryTooLarge);
  CHECK(plan_nn<bf16, gemm::preset::Persistent>(kA100, 256, 256, 256).status == Status::UnsupportedArchitecture);
  const gemm::Plan named = plan_nn<bf16, gemm::preset::Persistent>(kH100, 256, 256, 256);
  CHECK(named.preset == "Persistent");
  CHECK(named.composition == "Persistent<" + gemm::preset::Persistent::parts() + ">");
  // The Hopper presets read A with TMA: a misaligned A is refused up front, as the call would.
  CHECK(plan_nn<bf16, gemm::preset::Persistent>(kH100, 256, 256, 255).status == Status::MisalignedA);
}

TEST_CASE("the default plan of a fused call: ping-pong on Hopper where 128x256 tiles make few waves", "[host][plan][epilogue]") {
  const gemm::Epilogue<bf16, gemm::act::GeluTanh, bf16> gelu{ptr<bf16>(), 4096, ptr<bf16>(), gemm::BiasKind::PerColumn};
  const gemm::Plan fused = gemm::plan<bf16>(kH100, Op::N, Op::N, 4096, 4096, 4096, 1, ptr<bf16>(), 4096, ptr<bf16>(),
                                            4096, 0, nullptr, 4096, gelu);
  CHECK(fused.status == Status::Success);
  CHECK(has(fused.composition, "PersistentPingPong"));
  CHECK(has(fused.composition, "BlockTile<128,128>"));
  CHECK(has(fused.reason, "fused epilogue"));
  // The same call without its epilogue keeps the cooperative 128x256 kernel.
  CHECK(has(plan_nn<bf16>(kH100, 4096, 4096, 4096).composition, "PersistentProducerConsumer"));
  // Many waves of 128x256 tiles: the cooperative kernel, as without the epilogue (6144^3: 9 rounds,
  // 18 half rounds of 128x128), unless 128x128 tiles balance clearly better (5120^3: 7 against 13).
  const auto fused_nn = [&](int s) {
    const gemm::Epilogue<bf16, gemm::act::GeluTanh, bf16> e{ptr<bf16>(), s, ptr<bf16>(), gemm::BiasKind::PerColumn};
    return gemm::plan<bf16>(kH100, Op::N, Op::N, s, s, s, 1, ptr<bf16>(), s, ptr<bf16>(), s, 0, nullptr, s, e);
  };
  for (int s : {6144, 8192}) {
    INFO(s);
    CHECK(fused_nn(s).composition == plan_nn<bf16>(kH100, s, s, s).composition);
  }
  for (int s : {3072, 5120}) {
    INFO(s);
    CHECK(has(fused_nn(s).composition, "PersistentPingPong"));
  }
  // Many waves but a k of at most fused_pingpong_max_k (16-bit): ping-pong, whose epilogues run under
  // the other consumer's mainloop (a linear layer, B stored transposed: 16384 x 32768 x 512 is 124
  // rounds of 128x256 tiles; 8192^2 x 4096 16). From k = 4097 the cooperative kernel again.
  const auto fused_nt = [&](int m, int n, int k) {
    const gemm::Epilogue<bf16, gemm::act::GeluTanh, bf16> e{ptr<bf16>(), n, ptr<bf16>(), gemm::BiasKind::PerColumn};
    return gemm::plan<bf16>(kH100, Op::N, Op::T, m, n, k, 1, ptr<bf16>(), k, ptr<bf16>(), k, 0, nullptr, n, e);
  };
  CHECK(has(fused_nt(16384, 32768, 512).composition, "PersistentPingPong"));
  CHECK(has(fused_nt(16384, 32768, 512).reason, "fused_pingpong_max_k"));
  CHECK(has(fused_nt(8192, 8192, 4096).composition, "PersistentPingPong"));
  CHECK(has(fused_nt(8192, 8192, 4097).composition, "PersistentProducerConsumer"));
  CHECK(has(fused_nt(8192, 8192, 4097).composition, "BlockTile<128,256>"));
  // (Not the plain call's choice: without the epilogue, k = 2048 keeps 128x256 tiles.)
  CHECK(has(plan_nn<bf16>(kH100, 8192, 8192, 2048, Op::N, Op::T).composition, "BlockTile<128,256>"));
  // Below a wave of 128x256 tiles, a fused call plans as a plain one.
  const gemm::Plan small = gemm::plan<bf16>(kH100, Op::N, Op::N, 1024, 1024, 1024, 1, ptr<bf16>(), 1024, ptr<bf16>(),
                                            1024, 0, nullptr, 1024, gelu);
  CHECK(small.composition == plan_nn<bf16>(kH100, 1024, 1024, 1024).composition);
  // On an A100 no ping-pong (no wgmma): the same mma.sync composition as without the epilogue.
  const gemm::Plan a100 = gemm::plan<bf16>(kA100, Op::N, Op::N, 4096, 4096, 4096, 1, ptr<bf16>(), 4096, ptr<bf16>(),
                                           4096, 0, nullptr, 4096, gelu);
  CHECK(a100.composition == plan_nn<bf16>(kA100, 4096, 4096, 4096).composition);
  // The epilogue's own checks, as in the call (a null C under beta = 0 stands for D, so a short ldd
  // is then C's: InvalidLeadingDimensionC, as gemm::gemm answers).
  const gemm::Epilogue<bf16, gemm::act::GeluTanh, bf16> short_ldd{ptr<bf16>(), 100, ptr<bf16>(),
                                                                   gemm::BiasKind::PerColumn};
  CHECK(gemm::plan<bf16>(kH100, Op::N, Op::N, 4096, 4096, 4096, 1, ptr<bf16>(), 4096, ptr<bf16>(), 4096, 0,
                         ptr<bf16>(), 4096, short_ldd)
            .status == Status::InvalidLeadingDimensionD);
  CHECK(gemm::plan<bf16>(kH100, Op::N, Op::N, 4096, 4096, 4096, 1, ptr<bf16>(), 4096, ptr<bf16>(), 4096, 0, nullptr,
                         4096, short_ldd)
            .status == Status::InvalidLeadingDimensionC);
  const gemm::Epilogue<bf16, gemm::act::GeluTanh, bf16> no_bias{ptr<bf16>(), 4096, nullptr, gemm::BiasKind::PerRow};
  CHECK(gemm::plan<bf16>(kH100, Op::N, Op::N, 4096, 4096, 4096, 1, ptr<bf16>(), 4096, ptr<bf16>(), 4096, 0, nullptr,
                         4096, no_bias)
            .status == Status::NullPointerBias);
}

TEST_CASE("the default plan for batches: Hopper where TMA can read the entries, mma.sync for small ones",
          "[host][plan][batched]") {
  // Pointer arrays are never read by plan: these name nothing on a device.
  const bf16* const* a = ptr<const bf16*>();
  bf16* const* c = ptr<bf16*>();
  const auto pointers = [&](const gemm::Target& t, int size, int batch, int ld) {
    return gemm::plan_batched<bf16>(t, Op::N, Op::N, size, size, size, 1, a, ld, a, ld, 0, c, ld, batch);
  };
  const gemm::Plan big = pointers(kH100, 512, 64, 512);
  CHECK(big.status == Status::Success);
  CHECK(has(big.composition, "HopperPolicy"));
  CHECK(has(big.composition, "BlockTile<128,256>"));
  CHECK(has(big.reason, "address map"));
  CHECK(big.workspace_bytes == 0);  // no staging: every entry is read in place
  CHECK(has(pointers(kH100, 256, 4, 256).composition, "BlockTile<128,128>"));  // 4 entries: 8 wide tiles
  CHECK(has(pointers(kH100, 64, 4096, 64).composition, "MmaPolicy"));           // entries below a 128x128 tile
  CHECK(has(pointers(kA100, 512, 64, 512).composition, "MmaPolicy"));
  // Rows TMA cannot read (ld x 2 bytes not a multiple of 16): mma.sync.
  CHECK(has(pointers(kH100, 512, 64, 516).composition, "MmaPolicy"));
  // HopperPolicy named for a batch it cannot read: the status the call returns.
  CHECK(gemm::plan_batched<bf16, gemm::preset::Tuned::Hopper>(kH100, Op::N, Op::N, 512, 512, 512, 1, a, 516, a, 516, 0, c,
                                                        512, 64)
            .status == Status::UnsupportedBatch);
  // Strided: the same decision, on 3-D maps.
  const gemm::Plan strided = gemm::plan_strided_batched<bf16>(kH100, Op::N, Op::N, 512, 512, 512, 1, ptr<bf16>(), 512,
                                                              512 * 512, ptr<bf16>(), 512, 512 * 512, 0, ptr<bf16>(),
                                                              512, 512 * 512, 64);
  CHECK(strided.status == Status::Success);
  CHECK(has(strided.composition, "HopperPolicy"));
  CHECK(gemm::plan_strided_batched<bf16>(kH100, Op::N, Op::N, 8, 8, 8, 1, ptr<bf16>(), 8, 64, ptr<bf16>(), 8, 64, 0,
                                         ptr<bf16>(), 8, 32, 2)
            .status == Status::InvalidStrideC);  // C entries 32 apart overlap (64 elements each)
}

TEST_CASE("the default plan copies misaligned fp32 rows where the copies pay", "[host][plan]") {
  // Every row odd: A (lda 1021), B and C (1025). 272 small tiles, more than a round of the SMs.
  const gemm::Plan odd = plan_nn<float>(kH100, 1023, 1025, 1021);
  INFO(odd.describe());
  CHECK(odd.status == Status::Success);
  CHECK(has(odd.composition, "PackedRows<"));
  CHECK(has(odd.composition, "TileShape<64,64,32,1,4>"));
  CHECK(has(odd.composition, "SplitKToFill"));  // on the copies, the aligned rules: slices balance 272 tiles
  // Copies with 64-byte rows: A 1023 x 1024, B 1021 x 1040, C 1023 x 1040 floats, each 256-byte rounded.
  const auto rounded = [](std::size_t bytes) { return (bytes + 255) / 256 * 256; };
  CHECK(odd.workspace_bytes == rounded(1023 * 1024 * 4) + rounded(1021 * 1040 * 4) + rounded(1023 * 1040 * 4));
  // Only A misaligned: only A is copied.
  CHECK(plan_nn<float>(kH100, 1024, 1024, 1021).workspace_bytes == rounded(1024 * 1024 * 4));
  // A stored transposed: copies where they let k be split; B stored transposed: none (both are copied
  // element by element into the tiles anyway).
  CHECK(has(plan_nn<float>(kH100, 1023, 1025, 1021, Op::T, Op::N).composition, "PackedRows<"));
  CHECK(has(plan_nn<float>(kH100, 1023, 1025, 1021, Op::T, Op::N).composition, "SplitKToFill"));
  CHECK(!has(plan_nn<float>(kH100, 1535, 1537, 1533, Op::T, Op::N).composition, "PackedRows"));  // whole tiles
  CHECK(!has(plan_nn<float>(kH100, 1023, 1025, 1021, Op::N, Op::T).composition, "PackedRows"));
  CHECK(!has(plan_nn<float>(kH100, 1023, 1025, 1021, Op::T, Op::T).composition, "PackedRows"));
  CHECK(has(plan_nn<float>(kH100, 1023, 1025, 4093).composition, "PackedRows<"));
  CHECK(has(plan_nn<float>(kH100, 1023, 1025, 4093).composition, "TileShape<64,64,32,1,4>"));
  // Where they do not: within one round of the SMs (703 x 705: 132 small tiles), a short k, large C
  // (LargeMisaligned), and aligned rows (nothing to copy).
  CHECK(!has(plan_nn<float>(kH100, 703, 705, 701).composition, "PackedRows"));
  // On the caller's rows, k is split only while the tiles fill at most half the SMs (42 of 132 here,
  // 72 at 511 x 513).
  CHECK(has(plan_nn<float>(kH100, 383, 385, 381).composition, "SplitKToFill"));
  CHECK(!has(plan_nn<float>(kH100, 383, 385, 381).composition, "PackedRows"));
  CHECK(!has(plan_nn<float>(kH100, 511, 513, 509).composition, "SplitK"));
  CHECK(plan_nn<float>(kH100, 703, 705, 701).workspace_bytes == 0);
  CHECK(!has(plan_nn<float>(kH100, 1023, 1025, 255).composition, "PackedRows"));
  CHECK(!has(plan_nn<float>(kH100, 2047, 2049, 2045).composition, "PackedRows"));
  CHECK(has(plan_nn<float>(kH100, 2047, 2049, 2045).composition, "TileShape<256,128,8,4,4>"));
  CHECK(!has(plan_nn<float>(kH100, 1024, 1024, 1024).composition, "PackedRows"));
  CHECK(has(plan_nn<float>(kH100, 1535, 1537, 1533).composition, "PackedRows<"));
  // Nor for a batch (the copies are made for one matrix).
  const gemm::Plan batch = gemm::plan_strided_batched<float>(kH100, Op::N, Op::N, 1023, 1025, 1021, 1, ptr<float>(), 1021,
                                                             1023LL * 1021, ptr<float>(), 1025, 1021LL * 1025, 0,
                                                             ptr<float>(), 1025, 1023LL * 1025, 2);
  CHECK(batch.status == Status::Success);
  CHECK(!has(batch.composition, "PackedRows"));
}

// Split-K on the Hopper kernel: as many slices as fit in one round of this GPU's SMs, where the tiles
// fill at most half of them (decode's 64-row tiles: a quarter), each slice at least 16 k blocks long
// (decode's: 4).
TEST_CASE("the default plan splits k on Hopper for decode and long k, by rounds of the SMs", "[host][plan]") {
  const gemm::Target kH100Pcie{90, 114, 227 * 1024};
  const gemm::Target kH20{90, 78, 227 * 1024};
  // Decode, 24 x 4096 x 4096 with B row-major (past turned_narrow_max_m, so not turned around): 32
  // tiles of 64x128 (a quarter of 132 SMs), 64 k blocks: 4 slices (128 blocks; 5 would take two
  // rounds); each slice's partial tile is 64 x 128 floats, and a counter per tile (256 bytes). On 114
  // or 78 SMs the 32 tiles are more than a quarter: whole tiles.
  const gemm::Plan d = plan_nn<bf16>(kH100, 24, 4096, 4096);
  CHECK(has(d.composition, "BlockTile<64,128>"));
  CHECK(has(d.composition, "HopperSplitK<16,4,4,0,96>"));
  CHECK(has(d.reason, "decode"));
  CHECK(d.workspace_bytes == 32ull * 4 * 64 * 128 * 4 + 256);
  CHECK(plan_nn<bf16>(kH100Pcie, 24, 4096, 4096).workspace_bytes == 0);
  // 128 tokens against LLaMA-3 8B's down projection (4096 x 14336, stored transposed): 64 tiles, half
  // the SMs, 224 k blocks: 2 slices of 112 (at least 96 each); 8192 x 8192 (128 k blocks) stays whole.
  CHECK(plan_nn<bf16>(kH100, 128, 4096, 14336, Op::N, Op::T).workspace_bytes == 64ull * 2 * 64 * 128 * 4 + 256);
  CHECK(plan_nn<bf16>(kH100, 128, 8192, 8192, Op::N, Op::T).workspace_bytes == 0);
  CHECK(plan_nn<bf16>(kH20, 24, 4096, 4096).workspace_bytes == 0);
  CHECK(plan_nn<bf16>(kH20, 24, 2048, 4096).workspace_bytes == 16ull * 4 * 64 * 128 * 4 + 256);
  // m <= 128 takes the 64-row tiles, 129 the 128-row ones; 48 tiles (16 x 6144 x 4096) split nothing.
  CHECK(has(plan_nn<bf16>(kH100, 128, 6144, 4096, Op::N, Op::T).composition, "BlockTile<64,128>"));
  CHECK(!has(plan_nn<bf16>(kH100, 129, 4096, 4096).composition, "BlockTile<64,128>"));
  CHECK(plan_nn<bf16>(kH100, 16, 6144, 4096).workspace_bytes == 0);
  CHECK(plan_nn<bf16>(kH100, 64, 57344, 8192, Op::N, Op::T).workspace_bytes == 0);
  // With B stored transposed, up to hopper.turned_max_m tokens, the call turned around: 16 x 4096 x
  // 4096 is 64 tiles of 64x16 (more than a quarter of 132 SMs: whole); 16 x 1024 x 8192 16 tiles in
  // 8 slices of 16 k blocks (4 on the H20's 78 SMs), each slice's partial tile 64 x 16 floats.
  const gemm::Plan t = plan_nn<bf16>(kH100, 16, 4096, 4096, Op::N, Op::T);
  CHECK(has(t.composition, "BlockTile<64,16>"));
  CHECK(has(t.composition, "TurnedRegisterEpilogue"));
  CHECK(has(t.reason, "turned around"));
  CHECK(t.workspace_bytes == 0);
  CHECK(plan_nn<bf16>(kH100, 16, 1024, 8192, Op::N, Op::T).workspace_bytes == 16ull * 8 * 64 * 16 * 4 + 256);
  CHECK(plan_nn<bf16>(kH20, 16, 1024, 8192, Op::N, Op::T).workspace_bytes == 16ull * 4 * 64 * 16 * 4 + 256);
  // A weight gradient over many tokens, 384 x 384 x 65536 (dY^T X): 9 tiles of 128x128 in 14 slices
  // on 132 SMs (126 blocks), 8 on the H20's 78; the partial tiles added by the separate fixup.
  const gemm::Plan w = plan_nn<bf16>(kH100, 384, 384, 65536, Op::T, Op::N);
  CHECK(has(w.composition, "BlockTile<128,128>"));
  CHECK(has(w.composition, "HopperSplitK<16,2,16,4,0,2>"));
  CHECK(has(w.reason, "k split"));
  CHECK(w.workspace_bytes == 9ull * 14 * 128 * 128 * 4 + 256);
  CHECK(plan_nn<bf16>(kH20, 384, 384, 65536, Op::T, Op::N).workspace_bytes == 9ull * 8 * 128 * 128 * 4 + 256);
  // 768 x 768 x 65536: 36 tiles of 128x128, 3 slices (108 blocks; 4 would take a second round); on
  // the H20's 78 SMs, 2.
  CHECK(plan_nn<bf16>(kH100, 768, 768, 65536, Op::T, Op::N).workspace_bytes == 36ull * 3 * 128 * 128 * 4 + 256);
  CHECK(plan_nn<bf16>(kH20, 768, 768, 65536, Op::T, Op::N).workspace_bytes == 36ull * 2 * 128 * 128 * 4 + 256);
  // Whole tiles where the tiles fill more than half the SMs (2304 x 768 x 8192: 108 tiles of 128x128,
  // 4096^3) or k is short (1024^3; 768 x 768 x 2048: 32 k blocks, 72 whole 128x64 tiles).
  CHECK(plan_nn<bf16>(kH100, 768, 768, 2048, Op::T, Op::N).workspace_bytes == 0);
  // 768 x 768 x 4096 would split in 3 (64 k blocks), but 72 whole 128x64 tiles cost less: 64 / 3 x
  // 1.5 + 36 = 68 against 64 (split_medium_cost, split_overhead_blocks); at k = 8192, 3 slices:
  // 100 against 128.
  CHECK(has(plan_nn<bf16>(kH100, 768, 768, 4096, Op::T, Op::N).composition, "BlockTile<128,64>"));
  CHECK(has(plan_nn<bf16>(kH100, 768, 768, 8192, Op::T, Op::N).composition, "HopperSplitK<16,2,16,4,0,2>"));
  // Slices of at least 16 k blocks: 512 x 576 x 7168 NT is 20 tiles in 6 slices of 19 (120 blocks);
  // as many as one round of the SMs holds: 5 on the H100 PCIe's 114, 3 on the H20's 78.
  CHECK(plan_nn<bf16>(kH100, 512, 576, 7168, Op::N, Op::T).workspace_bytes == 20ull * 6 * 128 * 128 * 4 + 256);
  CHECK(plan_nn<bf16>(kH100Pcie, 512, 576, 7168, Op::N, Op::T).workspace_bytes == 20ull * 5 * 128 * 128 * 4 + 256);
  CHECK(plan_nn<bf16>(kH20, 512, 576, 7168, Op::N, Op::T).workspace_bytes == 20ull * 3 * 128 * 128 * 4 + 256);
  // Where the 128x64 tiles split themselves (at most a quarter of the SMs), the 128x128 slices are
  // weighed against those: 192 x 512 x 6144 NT is 16 tiles of 128x64 in 8 slices of 12 k blocks
  // (96 / 8 + 36 = 48) against 8 of 128x128 in 6 slices (16 x 1.5 + 36 = 60).
  const gemm::Plan few = plan_nn<bf16>(kH100, 192, 512, 6144, Op::N, Op::T);
  CHECK(has(few.composition, "BlockTile<128,64>"));
  CHECK(few.workspace_bytes == 16ull * 8 * 128 * 64 * 4 + 256);
  // On the H20's 78 SMs, 4 slices of 24 (60 against 60: the 128x64 tiles' own slices keep it).
  const gemm::Plan few_h20 = plan_nn<bf16>(kH20, 192, 512, 6144, Op::N, Op::T);
  CHECK(has(few_h20.composition, "BlockTile<128,64>"));
  CHECK(few_h20.workspace_bytes == 16ull * 4 * 128 * 64 * 4 + 256);
  // 384 x 768 x 5120 TN: 36 tiles of 128x64 (whole: 80) against 18 of 128x128 in 5 slices
  // (16 x 1.5 + 36 = 60).
  CHECK(plan_nn<bf16>(kH100, 384, 768, 5120, Op::T, Op::N).workspace_bytes == 18ull * 5 * 128 * 128 * 4 + 256);
  // C narrower than a tile (4096 x 12 x 8192 with B row-major: bound by reading A): 32 tiles of
  // 128x64, split as decode's are (a quarter of the SMs: 4 slices). (Up to decode.max_m columns the
  // decode kernel takes it.)
  const gemm::Plan narrow = plan_nn<bf16>(kH100, 4096, 12, 8192);
  CHECK(has(narrow.composition, "BlockTile<128,64>"));
  CHECK(has(narrow.composition, "HopperSplitK<16,4,4>"));
  CHECK(narrow.workspace_bytes >= 32ull * 4 * 128 * 64 * 4 + 256);  // (and the staging copy of B's 16-byte rows)
  CHECK(plan_nn<bf16>(kH100, 1024, 1024, 1024).workspace_bytes == 0);
  CHECK(plan_nn<bf16>(kH100, 4096, 4096, 4096).workspace_bytes == 0);
  CHECK(plan_nn<bf16>(kH100, 2304, 768, 8192, Op::T, Op::N).workspace_bytes == 0);
  // The rule itself: one tile of 512 k blocks takes the most slices; half a round's worth of tiles
  // still splits, more do not; slices stay in one round and at least 16 k blocks long.
  CHECK(gemm::HopperSplitK<16>::slices(1, 512, 132) == 16);
  CHECK(gemm::HopperSplitK<16>::slices(33, 64, 132) == 4);
  CHECK(gemm::HopperSplitK<16>::slices(34, 2048, 132) == 3);
  CHECK(gemm::HopperSplitK<16>::slices(66, 2048, 132) == 2);
  CHECK(gemm::HopperSplitK<16>::slices(67, 2048, 132) == 1);
  CHECK(gemm::HopperSplitK<16>::slices(10, 31, 132) == 1);
  CHECK(gemm::HopperSplitK<16>::slices(10, 32, 132) == 2);
  // Decode's: a quarter of the SMs, slices of 4 k blocks.
  CHECK(gemm::HopperSplitK<16, 4, 4>::slices(33, 64, 132) == 4);
  CHECK(gemm::HopperSplitK<16, 4, 4>::slices(34, 64, 132) == 1);
  CHECK(gemm::HopperSplitK<16, 4, 4>::slices(10, 10, 132) == 2);
  // No split where a slice and its fixup (4 k blocks) take as long as the whole k: 8 k blocks in 2.
  CHECK(gemm::HopperSplitK<16, 4, 4>::slices(10, 8, 132) == 1);
  // With HalfMinBlocks (Tuned's decode tiles): up to half the SMs where every slice keeps 96 k blocks.
  using Decode = gemm::HopperSplitK<16, 4, 4, 0, 96>;
  CHECK(Decode::slices(33, 64, 132) == 4);
  CHECK(Decode::slices(64, 224, 132) == 2);
  CHECK(Decode::slices(64, 191, 132) == 1);
  CHECK(Decode::slices(66, 1024, 132) == 2);
  CHECK(Decode::slices(67, 1024, 132) == 1);
  CHECK(Decode::slices(40, 300, 132) == 3);
  CHECK(gemm::HopperSplitK<8, 2, 32>::slices(1, 1024, 132) == 8);
  // From SeparateFrom slices (4 by default) a kernel of their own adds the partial tiles (a block per
  // chunk of accumulators); below, each tile's last block. The tail split's from 4 whatever it is.
  CHECK(!gemm::HopperSplitK<16>::separate(3, false));
  CHECK(gemm::HopperSplitK<16>::separate(4, false));
  CHECK(gemm::HopperSplitK<16, 2, 16, 4, 0, 2>::separate(2, false));
  CHECK(!gemm::HopperSplitK<16, 2, 16, 4, 0, 2>::separate(3, true));
  CHECK(gemm::HopperSplitK<16, 2, 16, 4, 0, 2>::separate(4, true));
  CHECK(gemm::HopperFixedSplitK<8, true>::separate(8, false));
  CHECK(!gemm::HopperFixedSplitK<8>::separate(8, false));
}

// The tail split: whole rounds of 128x128 tiles, then the tiles of a last round at most half full
// in k slices that fill it, where k pays for the fixup and that costs less than every tile width whole.
TEST_CASE("the default plan splits the last round of the SMs along k on Hopper", "[host][plan]") {
  using Cut = gemm::HopperSplitK<8, 2, 32, 4>;
  const auto same = [](gemm::HopperKSlices a, int splits, long long whole) {
    return a.splits == splits && a.whole == whole;
  };
  // 192 tiles on 132 SMs: one round, then 60 tiles in 2 slices (120 blocks; the round costs 32 k blocks
  // and 22 of fixup by each tile's last block, against 64); 200 tiles leave 68, more than half a round:
  // whole tiles. 136 tiles: 4 left, 8 slices at most (8 + 18 of the separate fixup against 64).
  CHECK(same(Cut::cut(192, 64, 132), 2, 132));
  CHECK(same(Cut::cut(200, 64, 132), 1, 0));
  CHECK(same(Cut::cut(136, 64, 132), 8, 132));
  CHECK(same(Cut::cut(192, 32, 132), 1, 0));   // 16 + 22 against 32: the fixup costs more than it saves
  CHECK(same(Cut::cut(288, 12, 132), 1, 0));   // (3 slices of 4 k blocks: 4 + 23 against 12)
  CHECK(same(Cut::cut(264, 64, 132), 1, 0));   // whole rounds only
  CHECK(same(Cut::cut(100, 64, 132), 1, 0));   // less than a round (and more than half): whole tiles
  CHECK(same(Cut::cut(9, 1024, 132), 8, 0));   // few tiles: the split of every tile, as slices()
  CHECK(same(gemm::HopperSplitK<8, 2, 32>::cut(192, 64, 132), 1, 0));  // (no tail split asked)
  // Tuned's 128x128 tiles split up to 16 slices where all their tiles do, the last round's at most 8
  // (tail_round_blocks' fit): 4 tiles past a round in 8 slices of 7 k blocks (25 against 53).
  using Medium = gemm::preset::Tuned::HopperMedium::KSplit;
  CHECK(same(Medium::cut(136, 53, 132), 8, 132));
  CHECK(same(Medium::cut(9, 1024, 132), 14, 0));
  CHECK(Cut::tail_round_blocks(64, 2) == 32 + 2 * Cut::kTailSliceBlocks + Cut::kTailLastBlockBlocks);
  CHECK(Cut::tail_round_blocks(64, 8) == 8 + 8 * Cut::kTailSliceBlocks + Cut::kTailFixedBlocks);
  // Tuned: a weight gradient, 576 x 7168 x 8192 (dY^T X) is 190 tiles of 128x192 (two rounds of 1.5
  // times the work) or two rounds and 16 tiles of 128x128, the 16 in 8 slices: 128x128 tiles with the
  // scratch of 128 partial tiles and 16 counters.
  const gemm::Plan p = plan_nn<bf16>(kH100, 576, 7168, 8192, Op::T, Op::N);
  CHECK(has(p.composition, "BlockTile<128,128>"));
  CHECK(has(p.reason, "tail split"));
  CHECK(p.workspace_bytes == 16ull * 8 * 128 * 128 * 4 + 256);
  // 3072 x 768 x 8192 TN (GPT-2's fc weight gradient): 144 tiles of 128x128, the 12 past a round in
  // 8 slices (16 + 18 k blocks of 128: 1.27 rounds), against 96 of 128x192 (1.46); 1536^3 the same
  // tiles of 24 k blocks (3 + 18 of 24: 1.88 rounds), so 128x192.
  CHECK(has(plan_nn<bf16>(kH100, 3072, 768, 8192, Op::T, Op::N).reason, "tail split"));
  CHECK(has(plan_nn<bf16>(kH100, 1536, 1536, 1536).composition, "BlockTile<128,192>"));
  // On an H100 PCIe (114 SMs) the 280 tiles make 2 rounds and 52 tiles, in 2 slices.
  const gemm::Target kH100Pcie{90, 114, 227 * 1024};
  CHECK(plan_nn<bf16>(kH100Pcie, 576, 7168, 8192, Op::T, Op::N).workspace_bytes == 52ull * 2 * 128 * 128 * 4 + 256);
  // A short k keeps whole tiles (2048 x 2304 x 768: ping-pong 128x128 with B row-major, 128x96 with
  // B stored transposed), and large squares their wide tiles (8192^3: 31 rounds of 128x128 and 4
  // tiles would split, but 128x256 tiles take 8 rounds of twice the work).
  CHECK(has(plan_nn<bf16>(kH100, 2048, 2304, 768).composition, "PersistentPingPong"));
  CHECK(has(plan_nn<bf16>(kH100, 2048, 2304, 768, Op::N, Op::T).composition, "BlockTile<128,96>"));
  CHECK(has(plan_nn<bf16>(kH100, 8192, 8192, 8192).composition, "BlockTile<128,256>"));
  CHECK(plan_nn<bf16>(kH100, 8192, 8192, 8192).workspace_bytes == 0);
}

// 128x96 tiles: 16-bit, B stored transposed, where they fill a round and cost the least
// (rounds x work / speed, hopper.speed_narrow).
// 192x128 tiles (three math warpgroups) where the rows fill the rounds that 128x192 tiles' columns do
// not: 3072 x 1024 is 128 tiles of 192x128 (one round of 1.5 the work, over 0.91: 1.65) against 144
// of 128x192 (two rounds: 2.91), 96 of 128x256 (one of 2, over 1.06: 1.89) and 192 of 128x128 (two
// rounds, 1.89 with the second split in k).
TEST_CASE("the default plan takes 192x128 tiles where their rows balance the rounds of the SMs", "[host][plan]") {
  for (const Op op_a : {Op::N, Op::T})
    for (const Op op_b : {Op::N, Op::T}) {
      const gemm::Plan p = plan_nn<bf16>(kH100, 3072, 1024, 4096, op_a, op_b);
      CHECK(p.composition == "HopperPolicy<" + gemm::preset::Tuned::HopperBalancedTall::parts() + ">");
      CHECK(has(p.composition, "BlockTile<192,128>, TmaStages<4>, PersistentProducerConsumer<3>"));
      CHECK(has(p.reason, "speed_balanced_tall"));
      CHECK(p.workspace_bytes == 0);
    }
  CHECK(has(plan_nn<__half, gemm::DefaultPolicy, __half>(kH100, 3072, 1024, 2048, Op::T).composition,
            "BlockTile<192,128>"));
  CHECK(has(plan_nn<__half, gemm::DefaultPolicy, float>(kH100, 3072, 1024, 2048, Op::T).composition,
            "BlockTile<192,128>"));
  // Not where another width balances as well or better (3072 x 768: 96 tiles of 128x192 and of
  // 192x128, the first faster; from k = 3200 or so the 128x128 tail split), not for tf32, nor with a
  // fused epilogue.
  CHECK(has(plan_nn<bf16>(kH100, 3072, 768, 2048, Op::T).composition, "BlockTile<128,192>"));
  CHECK(!has(plan_nn<gemm::tf32, gemm::DefaultPolicy, float>(kH100, 3072, 1024, 4096).composition,
             "BlockTile<192,128>"));
  const gemm::Epilogue<bf16, gemm::act::GeluTanh, bf16> gelu{ptr<bf16>(), 1024, ptr<bf16>(), gemm::BiasKind::PerColumn};
  const gemm::Plan fused = gemm::plan<bf16>(kH100, Op::N, Op::N, 3072, 1024, 4096, 1, ptr<bf16>(), 4096, ptr<bf16>(),
                                            1024, 0, nullptr, 1024, gelu);
  CHECK(fused.status == Status::Success);
  CHECK(!has(fused.composition, "BlockTile<192,128>"));
  // On an H100 PCIe (114 SMs) 128 tiles take two rounds: not there.
  const gemm::Target kH100Pcie{90, 114, 227 * 1024};
  CHECK(!has(plan_nn<bf16>(kH100Pcie, 3072, 1024, 4096).composition, "BlockTile<192,128>"));
  CHECK(has(gemm::preset::Tuned::parts(), "BlockTile<192,128>"));
  CHECK(has(gemm::rules_for(90).describe(), "192x128 0.91"));
}

TEST_CASE("the default plan takes 128x96 tiles where they balance the rounds of the SMs", "[host][plan]") {
  // 2048 x 768: 128 tiles of 128x96 (one round of 0.75 the work, over 0.87: 0.86) against 96 of
  // 128x128 (one round: 1) and 64 of 128x192 (1.46).
  const gemm::Plan narrow = plan_nn<bf16>(kH100, 2048, 768, 3072, Op::N, Op::T);
  CHECK(has(narrow.composition, "BlockTile<128,96>"));
  CHECK(has(narrow.reason, "speed_narrow"));
  CHECK(narrow.workspace_bytes == 0);
  CHECK(has(plan_nn<__half>(kH100, 2048, 768, 3072, Op::T, Op::T).composition, "BlockTile<128,96>"));
  // 8192 x 576 x 7168: 3 rounds of 128x96 (2.59) against 3 of 128x128, 2 of 128x192 (2.91).
  CHECK(has(plan_nn<bf16>(kH100, 8192, 576, 7168, Op::N, Op::T).composition, "BlockTile<128,96>"));
  // Not with B row-major (the tile would load 128 columns to use 96), not for tf32 or a batch.
  CHECK(!has(plan_nn<bf16>(kH100, 2048, 768, 3072).composition, "BlockTile<128,96>"));
  CHECK(!has(plan_nn<bf16>(kH100, 2048, 768, 3072, Op::T, Op::N).composition, "BlockTile<128,96>"));
  CHECK(!has(plan_nn<gemm::tf32, gemm::DefaultPolicy, float>(kH100, 2048, 768, 3072, Op::N, Op::T).composition,
             "BlockTile<128,96>"));
  const gemm::Epilogue<bf16, gemm::act::GeluTanh, bf16> gelu{ptr<bf16>(), 768, ptr<bf16>(), gemm::BiasKind::PerColumn};
  const gemm::Plan fused = gemm::plan<bf16>(kH100, Op::N, Op::T, 2048, 768, 3072, 1, ptr<bf16>(), 3072, ptr<bf16>(),
                                            3072, 0, nullptr, 768, gelu);
  // With a fused epilogue as without (its epilogue under the cooperative schedule, whole rounds).
  CHECK(fused.status == Status::Success);
  CHECK(has(fused.composition, "BlockTile<128,96>"));
  // Within a round: 640 x 2048 x 4992 NT is 80 tiles of 128x128 (0.61 of a round) and 110 of
  // 128x96, one round each, of 0.75 the work: 128x96, with a fused epilogue too. Not where 128x64
  // tiles make one round too (1792 x 576: 126 of them), nor with B row-major.
  CHECK(has(plan_nn<bf16>(kH100, 640, 2048, 4992, Op::N, Op::T).composition, "BlockTile<128,96>"));
  CHECK(has(plan_nn<bf16>(kH100, 640, 2048, 4992, Op::T, Op::T).reason, "narrow_few_above"));
  CHECK(has(plan_nn<bf16>(kH100, 1792, 576, 4992, Op::N, Op::T).composition, "BlockTile<128,64>"));
  CHECK(!has(plan_nn<bf16>(kH100, 640, 2048, 4992).composition, "BlockTile<128,96>"));
  const gemm::Epilogue<bf16, gemm::act::GeluTanh, bf16> gelu_few{ptr<bf16>(), 2048, ptr<bf16>(),
                                                                 gemm::BiasKind::PerColumn};
  const gemm::Plan fused_few = gemm::plan<bf16>(kH100, Op::N, Op::T, 640, 2048, 4992, 1, ptr<bf16>(), 4992,
                                                ptr<bf16>(), 4992, 0, nullptr, 2048, gelu_few);
  CHECK(fused_few.status == Status::Success);
  CHECK(has(fused_few.composition, "BlockTile<128,96>"));
  // Fewer tiles than a round (512 x 576 x 7168: 24) split k on 128x128 tiles instead; large squares
  // keep their wide tiles.
  CHECK(has(plan_nn<bf16>(kH100, 512, 576, 7168, Op::N, Op::T).composition, "BlockTile<128,128>"));
  CHECK(has(plan_nn<bf16>(kH100, 8192, 8192, 8192, Op::N, Op::T).composition, "BlockTile<128,256>"));
  // On an H100 PCIe (114 SMs) the 128 narrow tiles take two rounds: 128x128 (96 tiles, one round).
  const gemm::Target kH100Pcie{90, 114, 227 * 1024};
  CHECK(has(plan_nn<bf16>(kH100Pcie, 2048, 768, 3072, Op::N, Op::T).composition, "BlockTile<128,128>"));
  // Tuned's parts and the rules' description name the tile and its speed.
  CHECK(has(gemm::preset::Tuned::parts(), "BlockTile<128,96>"));
  CHECK(has(gemm::rules_for(90).describe(), "128x96 0.87"));
}

// FP8: decode on the 64x128 tiles, split as for bf16 (16 x 4096 x 4096: 32 tiles, a quarter of 132
// SMs, 4 slices; 64 x 8192 x 8192: 64 tiles, whole); 128x128 tiles for large promoted calls; a call
// that never promotes takes 128x256 tiles where they make a round of the SMs; block scales copied
// aligned where the kernel could not copy them into its stages.
TEST_CASE("the default plan for FP8: decode tiles split by rounds of the SMs; unpromoted calls take 128x256 tiles; "
          "block scales' aligned copies",
          "[host][plan]") {
  using E4M3 = __nv_fp8_e4m3;
  const gemm::Target kH100Pcie{90, 114, 227 * 1024};
  const float* scale = ptr<float>();
  const auto plan_fp8 = [&](const gemm::Target& t, int m, int n, int k, const gemm::Scales& s) {
    return gemm::plan<E4M3, gemm::preset::Tuned>(Op::N, Op::T, m, n, k, 1.0f, ptr<E4M3>(), k, ptr<E4M3>(), k, 0.0f,
                                                 ptr<bf16>(), n, s, &t);
  };
  const gemm::Scales tensor = gemm::Scales::tensor(scale, scale);
  const auto block = [&](int a_offset) {
    return gemm::Scales::block(ptr<float>(a_offset), 1LL << 30, ptr<float>(), 1LL << 30);
  };
  // (Block scales: tensor and row scales turn decode around, below.)
  const gemm::Plan d = plan_fp8(kH100, 16, 4096, 4096, block(0));
  REQUIRE(d.status == Status::Success);
  CHECK(has(d.composition, "BlockTile<64,128>"));
  CHECK(has(d.composition, "HopperSplitK<16,4,4,0,96>"));
  CHECK(d.workspace_bytes == 32ull * 4 * 64 * 128 * 4 + 256);
  CHECK(plan_fp8(kH100, 64, 8192, 8192, block(0)).workspace_bytes == 0);
  CHECK(plan_fp8(kH100Pcie, 16, 4096, 4096, block(0)).workspace_bytes == 0);
  // Promoted: 128x128 tiles; never promoted: 128x256 where they make a round (4096^2: 512 tiles),
  // else the promoted tiles (1024 x 2048: 32 of 128x256).
  CHECK(has(plan_fp8(kH100, 4096, 4096, 4096, tensor).composition, "BlockTile<128,128>"));
  const gemm::Plan never = plan_fp8(kH100, 4096, 4096, 4096, tensor.promote_every(0));
  CHECK(has(never.composition, "BlockTile<128,256>"));
  CHECK(has(never.reason, "never promoted"));
  CHECK(has(plan_fp8(kH100, 1024, 2048, 4096, tensor.promote_every(0)).composition, "BlockTile<128,128>"));
  // Block scales travel in the stages of the promoted 128-row tiles, copied 16 bytes at a time: where
  // m or ceil(k / 128) is not a multiple of 4, or a pointer is not 16-byte aligned, the call first makes
  // an aligned copy of them (A's: ceil(k / 128) rows of m floats at a pitch of 16; B's: ceil(n / 128)
  // rows of ceil(k / 128)).
  CHECK(has(plan_fp8(kH100, 4096, 4096, 4096, block(0)).composition, "BlockTile<128,128>"));
  CHECK(plan_fp8(kH100, 4096, 4096, 4096, block(0)).workspace_bytes == 0);
  CHECK(plan_fp8(kH100, 4001, 4096, 4096, block(0)).workspace_bytes == 32ull * 4016 * 4);
  CHECK(plan_fp8(kH100, 4096, 4096, 1152, block(0)).workspace_bytes == 32ull * 16 * 4);
  CHECK(plan_fp8(kH100, 4096, 4096, 4096, block(4)).workspace_bytes == 32ull * 4096 * 4);
  CHECK(plan_fp8(kH100, 4096, 4096, 4096, tensor).workspace_bytes == 0);
  // The scales are checked as the call checks them.
  CHECK(plan_fp8(kH100, 64, 8192, 8192, tensor.promote_every(100)).status == Status::InvalidPromotion);
  CHECK(plan_fp8(kH100, 64, 8192, 8192, gemm::Scales::tensor(nullptr, scale)).status == Status::NullPointerScale);
}

// FP8 past one 64-row tile, up to decode_max_m tokens: one row of 128x128 tiles where they reach
// fp8_two_row_medium_tiles rounds of the SMs (3/4: 99 tiles on 132 SMs, 86 on 114), or with block
// scales where k reaches fp8_two_row_block_min_k within fp8_two_row_block_tiles rounds or
// fp8_two_row_block_long_k at any count; else two rows of the decode kernel's 64x128 tiles.
// C no wider than 64 columns (a router): 128x64 tiles in every scale mode, whatever m.
TEST_CASE("the default plan for FP8: two rows of tokens, and C no wider than a 128x64 tile", "[host][plan][fp8]") {
  using E4M3 = __nv_fp8_e4m3;
  const gemm::HopperRules& h = gemm::rules_for(90).hopper;
  const gemm::Target kH100Pcie{90, 114, 227 * 1024};
  const float* scale = ptr<float>();
  const gemm::Scales tensor = gemm::Scales::tensor(scale, scale);
  const gemm::Scales rows = gemm::Scales::rowwise(scale, 1LL << 30, scale, 1LL << 30);
  const gemm::Scales block = gemm::Scales::block(scale, 1LL << 30, scale, 1LL << 30);
  const auto tile = [&](const gemm::Target& t, int m, int n, int k, const gemm::Scales& s) -> std::string {
    const gemm::Plan p = gemm::plan<E4M3, gemm::preset::Tuned>(Op::N, Op::T, m, n, k, 1.0f, ptr<E4M3>(), k, ptr<E4M3>(),
                                                               k, 0.0f, ptr<bf16>(), n, s, &t);
    REQUIRE(p.status == Status::Success);
    for (const char* shape : {"BlockTile<64,128>", "BlockTile<128,128>", "BlockTile<128,64>"})
      if (has(p.composition, shape)) return shape;
    return p.composition;
  };
  for (const gemm::Scales& s : {tensor, rows, block}) {
    for (const int m : {h.turned_wide_max_m + 1, 100, h.decode_max_m}) {
      CHECK(tile(kH100, m, 99 * 128, 4096, s) == "BlockTile<128,128>");
      CHECK(tile(kH100, m, 98 * 128, 4096, s) == "BlockTile<64,128>");
      CHECK(tile(kH100Pcie, m, 86 * 128, 4096, s) == "BlockTile<128,128>");
      CHECK(tile(kH100Pcie, m, 85 * 128, 4096, s) == "BlockTile<64,128>");
    }
    CHECK(tile(kH100, 64, 224 * 128, 4096, s) == "BlockTile<64,128>");  // one row of decode tiles
    CHECK(tile(kH100, h.decode_max_m + 1, 224 * 128, 4096, s) == "BlockTile<128,128>");
    // Narrow C.
    for (const int m : {h.decode_max_m + 1, 512, 4096, 16384}) {
      CHECK(tile(kH100, m, 8, 4096, s) == "BlockTile<128,64>");
      CHECK(tile(kH100, m, 64, 7168, s) == "BlockTile<128,64>");
    }
    CHECK(tile(kH100, 4096, 65, 7168, s) == "BlockTile<128,128>");
  }
  // FP8's 128x64 tiles stay whole below 32 k blocks (k < 4096), where 16-bit ones split: 4096 x 8 has
  // 32 tiles, a quarter of 132 SMs, so 4 slices from k = 4096.
  const auto workspace = [&](int m, int n, int k) {
    return gemm::plan<E4M3, gemm::preset::Tuned>(Op::N, Op::T, m, n, k, 1.0f, ptr<E4M3>(), k, ptr<E4M3>(), k, 0.0f,
                                                 ptr<bf16>(), n, tensor, &kH100)
        .workspace_bytes;
  };
  CHECK(workspace(4096, 8, 2048) == 0);
  CHECK(workspace(4096, 8, 31 * 128) == 0);
  CHECK(workspace(4096, 8, 4096) == 32ull * 4 * 128 * 64 * 4 + 256);
  using SmallFp8Split = gemm::preset::Tuned::HopperSmallFp8::KSplit;
  CHECK(SmallFp8Split::slices(32, 31, 132) == 1);
  CHECK(SmallFp8Split::slices(32, 32, 132) == 4);
  CHECK(gemm::HopperSplitK<16, 4, 4>::slices(32, 16, 132) == 4);  // (the 16-bit tiles' split, for contrast)
  // Block scales: k from fp8_two_row_block_min_k takes the 128x128 tiles within fp8_two_row_block_tiles
  // rounds (a quarter: 33 tiles on 132 SMs, 28 on 114), at any count from fp8_two_row_block_long_k.
  CHECK(tile(kH100, 72, 2048, h.fp8_two_row_block_min_k, block) == "BlockTile<128,128>");
  CHECK(tile(kH100, 72, 33 * 128, h.fp8_two_row_block_min_k, block) == "BlockTile<128,128>");
  CHECK(tile(kH100, 72, 34 * 128, h.fp8_two_row_block_min_k, block) == "BlockTile<64,128>");
  CHECK(tile(kH100Pcie, 72, 29 * 128, h.fp8_two_row_block_min_k, block) == "BlockTile<64,128>");
  CHECK(tile(kH100, 72, 2048, h.fp8_two_row_block_min_k - 128, block) == "BlockTile<64,128>");
  CHECK(tile(kH100, 72, 66 * 128, h.fp8_two_row_block_long_k, block) == "BlockTile<128,128>");
  CHECK(tile(kH100, 72, 66 * 128, h.fp8_two_row_block_long_k - 128, block) == "BlockTile<64,128>");
  CHECK(tile(kH100, 72, 2048, h.fp8_two_row_block_min_k, tensor) == "BlockTile<64,128>");
  CHECK(tile(kH100, 72, 66 * 128, h.fp8_two_row_block_long_k, tensor) == "BlockTile<64,128>");
  CHECK(has(gemm::plan<E4M3, gemm::preset::Tuned>(Op::N, Op::T, 4096, 8, 4096, 1.0f, ptr<E4M3>(), 4096, ptr<E4M3>(),
                                                  4096, 0.0f, ptr<bf16>(), 8, tensor, &kH100)
                .reason,
            "C no wider than a 128x64 tile"));
}

// FP8 decode with tensor or row scales (or none), A row-major and B stored n x k: turned around on 64x16
// tiles up to turned_narrow_max_m tokens, on 64x32 up to turned_max_m where the weight's 64-row tiles
// take at most fp8_turned_tiles rounds (one), on 64x64 from turned_wide_min_m to turned_wide_max_m
// within fp8_turned_wide_tiles (half); block scales, other layouts and other counts keep the 64x128
// decode tile.
TEST_CASE("the default plan turns FP8 decode around with tensor and row scales", "[host][plan][fp8]") {
  using E4M3 = __nv_fp8_e4m3;
  const gemm::HopperRules& h = gemm::rules_for(90).hopper;
  const gemm::Target kH100Pcie{90, 114, 227 * 1024};
  const gemm::Target kH20{90, 78, 227 * 1024};
  const float* scale = ptr<float>();
  const gemm::Scales tensor = gemm::Scales::tensor(scale, scale);
  const gemm::Scales rows = gemm::Scales::rowwise(scale, 1LL << 30, scale, 1LL << 30);
  const gemm::Scales block = gemm::Scales::block(scale, 1LL << 30, scale, 1LL << 30);
  const auto plan_fp8 = [&](const gemm::Target& t, int m, int n, const gemm::Scales& s, Op op_a = Op::N,
                            Op op_b = Op::T) {
    const int k = 4096;
    return gemm::plan<E4M3, gemm::preset::Tuned>(op_a, op_b, m, n, k, 1.0f, ptr<E4M3>(), op_a == Op::N ? k : m,
                                                 ptr<E4M3>(), op_b == Op::T ? k : n, 0.0f, ptr<bf16>(), n, s, &t);
  };
  const auto tile = [&](const gemm::Target& t, int m, int n, const gemm::Scales& s, Op op_a = Op::N, Op op_b = Op::T) {
    const gemm::Plan p = plan_fp8(t, m, n, s, op_a, op_b);
    REQUIRE(p.status == Status::Success);
    const bool turned = has(p.composition, "TurnedRegisterEpilogue");
    for (const int bn : {16, 32, 64, 128})
      if (has(p.composition, ("BlockTile<64," + std::to_string(bn) + ">").c_str())) return turned ? bn : -bn;
    return 0;
  };
  for (const gemm::Scales& s : {tensor, rows}) {
    for (const int m : {1, 7, h.turned_narrow_max_m}) {
      CHECK(tile(kH100, m, 4096, s) == 16);
      CHECK(tile(kH100, m, 28672, s) == 16);  // 448 tiles: at any count
      CHECK(tile(kH20, m, 28672, s) == 16);
    }
    for (const int m : {h.turned_narrow_max_m + 1, h.turned_max_m}) {
      CHECK(tile(kH100, m, 132 * 64, s) == 32);  // one round
      CHECK(tile(kH100, m, 132 * 64 + 1, s) == -128);
      CHECK(tile(kH100Pcie, m, 8192, s) == -128);  // 128 tiles on 114 SMs
      CHECK(tile(kH20, m, 78 * 64, s) == 32);
    }
    for (const int m : {h.turned_wide_min_m, 48, h.turned_wide_max_m}) {
      CHECK(tile(kH100, m, 66 * 64, s) == 64);  // half a round
      CHECK(tile(kH100, m, 66 * 64 + 1, s) == -128);
      CHECK(tile(kH20, m, 39 * 64, s) == 64);
      CHECK(tile(kH20, m, 39 * 64 + 1, s) == -128);
    }
    CHECK(tile(kH100, h.turned_max_m + 1, 2048, s) == -128);  // between the two bands
    CHECK(tile(kH100, h.turned_wide_max_m + 1, 2048, s) == -128);
    CHECK(tile(kH100, 16, 4096, s, Op::T, Op::T) == -128);  // A stored transposed: copied, the decode tile
  }
  CHECK(tile(kH100, 16, 4096, block) == -128);  // block scales' 1 x 128 blocks along the tokens
  CHECK(tile(kH100, 64, 2048, block) == -128);
  CHECK(has(plan_fp8(kH100, 32, 4096, tensor).reason, "fp8_turned_tiles"));
  CHECK(has(plan_fp8(kH100, 48, 4096, rows).reason, "fp8_turned_wide_tiles"));
  // A turned composition named by the caller refuses block scales before anything runs.
  const auto plan_with = [&](auto policy, const gemm::Scales& s) {
    return gemm::plan<E4M3, decltype(policy)>(Op::N, Op::T, 16, 4096, 4096, 1.0f, ptr<E4M3>(), 4096, ptr<E4M3>(),
                                              4096, 0.0f, ptr<bf16>(), 4096, s, &kH100);
  };
  CHECK(plan_with(gemm::preset::Tuned::HopperTurnedNarrow{}, block).status == Status::UnsupportedScales);
  CHECK(plan_with(gemm::preset::Tuned::HopperTurnedNarrow{}, tensor).status == Status::Success);
  CHECK(plan_with(gemm::preset::Tuned::HopperDecode{}, block).status == Status::Success);
  // Without scales (every scale 1) as with tensor scales.
  CHECK(has(gemm::plan<E4M3, gemm::preset::Tuned>(kH100, Op::N, Op::T, 16, 4096, 4096, 1.0f, ptr<E4M3>(), 4096,
                                                  ptr<E4M3>(), 4096, 0.0f, ptr<bf16>(), 4096)
                .composition,
            "BlockTile<64,16>"));
}

// Tuned's thresholds are data (rules.cuh): counts of tiles in rounds of the device's SMs, so other
// GPUs get them scaled. 2048^3 bf16 is 128 tiles of 128x256: a round less 4 SMs on 132 SMs (the
// wide tiles), but short of the scaled threshold on 142 (L40S-sized: 138) only where it applies (sm_90).
TEST_CASE("the default plan's thresholds scale with the SM count", "[host][plan][rules]") {
  const gemm::Target kH100Pcie{90, 114, 227 * 1024};
  const gemm::Target kH20{90, 78, 227 * 1024};
  const gemm::Target kWide{90, 142, 227 * 1024};  // a hypothetical sm_90 with 142 SMs
  CHECK(gemm::rules_for(90).arch == 90);
  CHECK(gemm::rules_for(80).arch == 90);  // unmeasured architectures take the measured table
  CHECK(gemm::HopperRules{}.wide_tiles.reached(128, 132));
  CHECK(!gemm::HopperRules{}.wide_tiles.reached(127, 132));
  CHECK(gemm::HopperRules{}.wide_tiles.reached(111, 114));   // 128/132 x 114 = 110.5
  CHECK(!gemm::HopperRules{}.wide_tiles.reached(110, 114));
  // 2048^3: 128 wide tiles. One round on 132 SMs (128x256); short of a round on 142 (128x128). On
  // 114 they take two rounds, 128x192 ones (176) two of 1.5 times a 128x128 tile's work (2.91),
  // 128x128 tiles two rounds and 28 tiles, those in 4 slices (8 + 14 of 32 k blocks: 2.69).
  CHECK(has(plan_nn<bf16>(kH100, 2048, 2048, 2048).composition, "BlockTile<128,256>"));
  CHECK(has(plan_nn<bf16>(kWide, 2048, 2048, 1024).composition, "BlockTile<128,128>"));
  CHECK(has(plan_nn<bf16>(kH100Pcie, 2048, 2048, 2048).reason, "tail split"));
  // 1120 x 3584 x 1472 NT: 126 tiles of 128x256, short of wide_tiles rounds, but one round of twice
  // the work (1.89) against two of 128x128 (252 tiles: 2), 128x192 (171: 2.91) and 128x96 (342:
  // 2.59): 128x256, with a fused epilogue too.
  CHECK(has(plan_nn<bf16>(kH100, 1120, 3584, 1472, Op::N, Op::T).composition, "BlockTile<128,256>"));
  CHECK(has(plan_nn<bf16>(kH100, 1120, 3584, 1472, Op::N, Op::T).reason, "cost less than every other width"));
  const gemm::Epilogue<bf16, gemm::act::GeluTanh, bf16> gelu_wide{ptr<bf16>(), 3584, ptr<bf16>(), gemm::BiasKind::PerColumn};
  CHECK(has(gemm::plan<bf16>(kH100, Op::N, Op::T, 1120, 3584, 1472, 1, ptr<bf16>(), 1472, ptr<bf16>(), 1472, 0, nullptr,
                             3584, gelu_wide).composition,
            "BlockTile<128,256>"));
  // 2048 x 4096: 256 wide tiles, two rounds on 132 SMs (128x256), three on 114, where 512 tiles of
  // 128x128 take five half-size ones (medium_vs_wide_rounds, k >= 2048: 128x128), and 352 of 128x192
  // four (5.83 against 5). With k = 1536, too short for the medium rule (and too long for the
  // ping-pong one), 114 SMs keep the wide tiles.
  CHECK(has(plan_nn<bf16>(kH100, 2048, 4096, 2048).composition, "BlockTile<128,256>"));
  CHECK(has(plan_nn<bf16>(kH100Pcie, 2048, 4096, 2048).composition, "BlockTile<128,128>"));
  CHECK(has(plan_nn<bf16>(kH100Pcie, 2048, 4096, 1536).composition, "BlockTile<128,256>"));
  // 1536 x 2560 x 1536: 120 wide tiles, more than a round of the H20's 78 SMs, fewer than the H100's.
  CHECK(has(plan_nn<bf16>(kH20, 1536, 2560, 1536).composition, "BlockTile<128,256>"));
  CHECK(has(plan_nn<bf16>(kH100, 1536, 2560, 1024).composition, "BlockTile<128,128>"));
  // 128x192 tiles where they balance the rounds (rounds x work / speed): 3072^3 is 384 of them, three
  // rounds (4.37), against 288 of 128x256 (three rounds of twice the work, 5.66) and 576 of 128x128
  // (five, 5); 768 x 3072 x 2048 is 96 (one round, 1.46) against two rounds of 128x128 (2), or one
  // and 12 tiles in 8 slices (4 + 18 of 32 k blocks: 1.69; at k = 8192 1.27, which takes it). Not
  // 4096^3 (704: six rounds, 8.74, against four of 128x256, 7.55).
  CHECK(has(plan_nn<bf16>(kH100, 3072, 3072, 3072).composition, "BlockTile<128,192>"));
  CHECK(has(plan_nn<bf16>(kH100, 3072, 3072, 3072).reason, "balance"));
  CHECK(has(plan_nn<bf16>(kH100, 768, 3072, 2048, Op::T, Op::N).composition, "BlockTile<128,192>"));
  CHECK(has(plan_nn<bf16>(kH100, 768, 3072, 8192, Op::T, Op::N).reason, "tail split"));
  CHECK(!has(plan_nn<bf16>(kH100, 4096, 4096, 4096).composition, "BlockTile<128,192>"));
  // fp32: the large tiles from 96/132 rounds: 96 tiles on 132 SMs, 57 on 78.
  CHECK(has(plan_nn<float>(kH100, 1536, 2048, 2048).reason, "fill large_tiles"));     // 96 tiles
  CHECK(has(plan_nn<float>(kH100, 1408, 2048, 2048).reason, "fewer 128x256 tiles"));  // 88
  CHECK(has(plan_nn<float>(kH20, 1024, 2048, 2048).reason, "fill large_tiles"));      // 64
  CHECK(has(plan_nn<float>(kH20, 1024, 1792, 2048).reason, "fewer 128x256 tiles"));   // 56
  // The plan names the table it used.
  const gemm::Plan p = plan_nn<bf16>(kH100, 4096, 4096, 4096);
  CHECK(has(p.rules, "sm_90"));
  CHECK(has(p.rules, "128/132"));
}

// From decode.max_m + 1 (TF32: 1) to hopper.turned_max_m tokens against a weight stored transposed, on sm_90:
// the Hopper kernel turned around (64x16 tiles up to turned_narrow_max_m tokens, 64x32 beyond); 16-bit
// calls of the other layouts up to turned_narrow_max_m tokens (A transposed where the weight's 64-row
// tiles fill turned_copied_tiles rounds); elsewhere, and beyond those m, what ran before.
TEST_CASE("the default plan turns decode calls around on Hopper", "[host][plan]") {
  const gemm::HopperRules& h = gemm::rules_for(90).hopper;
  const int first = gemm::rules_for(90).decode.max_m + 1;
  const auto composition = [](const gemm::Target& t, int m, Op op_a, Op op_b) {
    return plan_nn<bf16>(t, m, 6144, 4096, op_a, op_b).composition;
  };
  CHECK(has(composition(kH100, first, Op::N, Op::T), "BlockTile<64,16>, TmaStages<12>"));
  CHECK(has(composition(kH100, h.turned_narrow_max_m, Op::N, Op::T), "BlockTile<64,16>"));
  CHECK(has(composition(kH100, h.turned_narrow_max_m + 1, Op::N, Op::T), "BlockTile<64,32>, TmaStages<12>"));
  CHECK(has(composition(kH100, h.turned_max_m, Op::N, Op::T), "BlockTile<64,32>"));
  CHECK(has(composition(kH100, h.turned_max_m, Op::N, Op::T), "TurnedRegisterEpilogue"));
  CHECK(has(composition(kH100, h.turned_max_m + 1, Op::N, Op::T), "BlockTile<64,128>"));
  // The other layouts: 64x16 tiles from one token to turned_narrow_max_m, then what ran before.
  for (const auto ops : {std::pair{Op::N, Op::N}, std::pair{Op::T, Op::N}, std::pair{Op::T, Op::T}}) {
    CHECK(has(composition(kH100, 1, ops.first, ops.second), "BlockTile<64,16>"));
    CHECK(has(composition(kH100, h.turned_narrow_max_m, ops.first, ops.second), "TurnedRegisterEpilogue"));
    CHECK(!has(composition(kH100, h.turned_narrow_max_m + 1, ops.first, ops.second), "Turned"));
  }
  // A transposed: the tokens' copy pays from turned_copied_tiles rounds of 64-row weight tiles (a
  // quarter round: 33 on 132 SMs, 20 on 78); B row-major alone needs no copy.
  const gemm::Target kH20{90, 78, 227 * 1024};
  const auto turned = [](const gemm::Target& t, int n, Op op_a, Op op_b) {
    return has(plan_nn<bf16>(t, 8, n, 8192, op_a, op_b).composition, "TurnedRegisterEpilogue");
  };
  CHECK(turned(kH100, 33 * 64, Op::T, Op::N));
  CHECK(!turned(kH100, 32 * 64, Op::T, Op::N));
  CHECK(!turned(kH100, 1024, Op::T, Op::T));
  CHECK(turned(kH20, 1280, Op::T, Op::T));
  CHECK(turned(kH100, 1024, Op::N, Op::N));
  CHECK(!has(plan_nn<gemm::tf32>(kH100, 8, 6144, 4096, Op::T, Op::N).composition, "Turned"));  // TF32: NT only
  CHECK(!has(composition(kA100, 16, Op::N, Op::T), "Turned"));  // no wgmma
  CHECK(!has(plan_nn<float>(kH100, 16, 6144, 4096, Op::N, Op::T).composition, "Turned"));
  // TF32 (no decode kernel) from one token.
  CHECK(has(plan_nn<gemm::tf32>(kH100, 1, 6144, 4096, Op::N, Op::T).composition, "BlockTile<64,16>"));
  CHECK(has(plan_nn<gemm::tf32>(kH100, 1, 6144, 4096, Op::N, Op::T).composition, "TurnedRegisterEpilogue"));
  CHECK(has(plan_nn<gemm::tf32>(kH100, h.turned_max_m, 6144, 4096, Op::N, Op::T).composition, "BlockTile<64,32>"));
  CHECK(!has(plan_nn<gemm::tf32>(kH100, h.turned_max_m + 1, 6144, 4096, Op::N, Op::T).composition, "Turned"));
  CHECK(!has(plan_nn<gemm::tf32x3>(kH100, 16, 6144, 4096, Op::N, Op::T).composition, "Turned"));
  CHECK(has(plan_nn<__half, gemm::DefaultPolicy, float>(kH100, 20, 6144, 4096, Op::N, Op::T).composition,
            "TurnedRegisterEpilogue"));
  // A weight whose rows the decode kernel cannot read (not 8-byte multiples) turns from one token.
  CHECK(has(plan_nn<bf16>(kH100, 4, 4096, 4098, Op::N, Op::T).composition, "TurnedRegisterEpilogue"));
}

// 16-bit, B stored transposed, turned_wide_min_m to turned_wide_max_m tokens: turned around on 64x64
// tiles while the weight's 64-row tiles take at most turned_wide_tiles rounds (one: 132 tiles on an
// H100, 78 on an H20); the 64x128 tile outside that.
TEST_CASE("the default plan turns 40 to 64 tokens around on 64x64 tiles within a round", "[host][plan]") {
  const gemm::HopperRules& h = gemm::rules_for(90).hopper;
  const gemm::Target kH20{90, 78, 227 * 1024};
  const auto wide = [](const gemm::Target& t, int m, int n, Op op_a = Op::N, Op op_b = Op::T) {
    const std::string c = plan_nn<bf16>(t, m, n, 4096, op_a, op_b).composition;
    return has(c, "BlockTile<64,64>") && has(c, "TurnedRegisterEpilogue");
  };
  for (const int m : {h.turned_wide_min_m, 48, h.turned_wide_max_m}) {
    CHECK(wide(kH100, m, 6144));      // 96 tiles
    CHECK(wide(kH100, m, 132 * 64));  // one round
    CHECK(!wide(kH100, m, 132 * 64 + 1));
    CHECK(wide(kH20, m, 78 * 64));
    CHECK(!wide(kH20, m, 78 * 64 + 1));
    CHECK(!wide(kH100, m, 6144, Op::N, Op::N));  // B row-major: not measured, the 64x128 tile
    CHECK(!wide(kH100, m, 6144, Op::T, Op::T));
  }
  CHECK(!wide(kH100, h.turned_wide_min_m - 1, 6144));
  CHECK(has(plan_nn<bf16>(kH100, h.turned_wide_min_m - 1, 6144, 4096, Op::N, Op::T).composition, "BlockTile<64,128>"));
  CHECK(!wide(kH100, h.turned_wide_max_m + 1, 6144));
  CHECK(has(plan_nn<bf16>(kH100, h.turned_wide_max_m + 1, 132 * 64 + 1, 4096, Op::N, Op::T).composition,
            "BlockTile<64,128>"));
  CHECK(!wide(kA100, 48, 6144));  // no wgmma
  CHECK(has(plan_nn<__half, gemm::DefaultPolicy, float>(kH100, 48, 6144, 4096, Op::N, Op::T).composition,
            "BlockTile<64,64>"));
  CHECK(!has(plan_nn<gemm::tf32>(kH100, 48, 6144, 4096, Op::N, Op::T).composition, "Turned"));  // 16-bit only
  CHECK(has(plan_nn<bf16>(kH100, 48, 6144, 4096, Op::N, Op::T).reason, "turned_wide_tiles"));
}

// 16-bit, B stored transposed, up to decode.max_m tokens: turned around on 64x16 tiles over the decode
// kernel where the weight's 64-row tiles take more than turned_few_above (a quarter: 33 tiles on an
// H100, 19.5 on an H20) and at most turned_few_within rounds (one), with rows TMA can read.
TEST_CASE("the default plan turns a few tokens around over the decode kernel within a round", "[host][plan]") {
  const int max_m = gemm::rules_for(90).decode.max_m;
  const gemm::Target kH20{90, 78, 227 * 1024};
  const auto turned = [](const gemm::Target& t, int m, int n, int k = 4096) {
    const std::string c = plan_nn<bf16>(t, m, n, k, Op::N, Op::T).composition;
    return has(c, "BlockTile<64,16>") && has(c, "TurnedRegisterEpilogue");
  };
  const auto decode = [](const gemm::Target& t, int m, int n, int k = 4096) {
    return has(plan_nn<bf16>(t, m, n, k, Op::N, Op::T).composition, "DecodePolicy<");
  };
  for (const int m : {1, 4, max_m}) {
    CHECK(turned(kH100, m, 6144));           // 96 tiles
    CHECK(turned(kH100, m, 33 * 64 + 1));    // 34: more than a quarter of 132
    CHECK(decode(kH100, m, 33 * 64));        // 33: a quarter
    CHECK(turned(kH100, m, 132 * 64));       // one round
    CHECK(decode(kH100, m, 132 * 64 + 1));
    CHECK(turned(kH20, m, 20 * 64));         // 20 tiles: more than 78 / 4
    CHECK(decode(kH20, m, 19 * 64));
    CHECK(turned(kH20, m, 78 * 64));
    CHECK(decode(kH20, m, 78 * 64 + 1));
    CHECK(decode(kA100, m, 6144));           // no wgmma
    CHECK(decode(kH100, m, 6144, 4100));     // rows of 8200 bytes: TMA would copy them first
  }
  CHECK(has(plan_nn<__half, gemm::DefaultPolicy, float>(kH100, 2, 6144, 4096, Op::N, Op::T).composition,
            "TurnedRegisterEpilogue"));
  CHECK(has(plan_nn<bf16>(kH100, 4, 6144, 4096, Op::N, Op::T).reason, "turned_few_within"));
  CHECK(has(gemm::rules_for(90).describe(), "over the decode kernel's tokens above 1/4 within 1/1 rounds"));
}

TEST_CASE("the default plan runs short-k 16-bit calls with rows TMA cannot read on mma.sync", "[host][plan]") {
  const int max_k = gemm::rules_for(90).hopper.unstaged_max_k;
  const int short_max_k = gemm::rules_for(90).hopper.short_k_max_k;
  // Odd k (A's rows) or odd n (B's rows): one mma.sync launch instead of aligned copies, up to max_k
  // (up to short_k_max_k CUDA cores take it: the next test case).
  for (const int k : {short_max_k + 1, max_k - 1}) {
    const gemm::Plan p = plan_nn<bf16>(kH100, 15514, 16, k);
    CHECK(has(p.composition, "MmaPolicy<"));
    CHECK(has(p.reason, "unstaged_max_k"));
    CHECK(p.workspace_bytes == 0);
  }
  CHECK(has(plan_nn<bf16>(kH100, 306, 7639, 53).composition, "MmaPolicy<"));                 // B's rows
  // On 64x64 tiles loaded through registers alone (no block's rows are cp.async's), sm_90a code only.
  const std::string unstaged = plan_nn<bf16>(kH100, 306, 7638, 53).composition;
  CHECK(unstaged == "MmaPolicy<" + gemm::preset::Tuned::MmaUnstaged::parts() + ">");
  CHECK(has(unstaged, "MmaTile<64,64,64>, WarpTile<32,32>, RegisterDoubleBuffer"));
  CHECK(has(unstaged, "WithWgmma"));
  CHECK(has(plan_nn<__half>(kH100, 431, 9355, 23, Op::N, Op::T).composition, "MmaPolicy<"));  // either layout
  CHECK(has(plan_nn<bf16>(kH100, 256, 256, 64, Op::N, Op::N, 0, 0, 2).composition, "MmaPolicy<"));  // A's pointer
  // Past max_k or unstaged_max_flops, aligned rows: the Hopper kernel as before.
  CHECK(has(plan_nn<bf16>(kH100, 3847, 9418, max_k + 1).composition, "HopperPolicy<"));
  CHECK(has(plan_nn<bf16>(kH100, 4095, 4097, max_k - 1).composition, "HopperPolicy<"));
  CHECK(has(plan_nn<bf16>(kH100, 1023, 1025, 161).composition, "HopperPolicy<"));  // 2^28.3 flops
  CHECK(has(plan_nn<bf16>(kH100, 1023, 1025, 127).composition, "MmaPolicy<"));     // 2^28.0
  CHECK(has(plan_nn<bf16>(kH100, 15514, 16, 16).composition, "HopperPolicy<"));
  // Elsewhere the choices without wgmma are unchanged (4-byte-aligned rows: the cp.async tiles).
  CHECK(!has(plan_nn<bf16>(kA100, 15514, 16, 14).composition, "AlignedOr"));
}

TEST_CASE("the default plan runs 16-bit calls of a few k with rows TMA cannot read on CUDA cores", "[host][plan]") {
  const gemm::HopperRules& h = gemm::rules_for(90).hopper;
  // Up to short_k_max_k and short_k_max_c elements of C, either operand's rows: ShortKPolicy, one
  // launch, no scratch.
  for (const int k : {1, 4, h.short_k_max_k}) {
    const gemm::Plan p = plan_nn<bf16>(kH100, 431, 9355, k, Op::N, Op::T, k + 1);
    CHECK(has(p.composition, "ShortKPolicy<"));
    CHECK(has(p.reason, "short_k_max_k"));
    CHECK(p.workspace_bytes == 0);
  }
  CHECK(has(plan_nn<__half, gemm::DefaultPolicy, float>(kH100, 1000, 3001, 8).composition, "ShortKPolicy<"));  // B's rows
  CHECK(has(plan_nn<bf16>(kH100, 4096, 8192, 4).composition, "ShortKPolicy<"));  // 2^25 elements of C
  // Not past them, not with rows TMA reads, not without wgmma (where it was not measured).
  CHECK(!has(plan_nn<bf16>(kH100, 431, 9355, h.short_k_max_k + 1).composition, "ShortKPolicy<"));
  CHECK(!has(plan_nn<bf16>(kH100, 4097, 8192, 4).composition, "ShortKPolicy<"));
  CHECK(!has(plan_nn<bf16>(kH100, 431, 9360, 8).composition, "ShortKPolicy<"));
  CHECK(!has(plan_nn<bf16>(kA100, 431, 9355, 4).composition, "ShortKPolicy<"));
  CHECK(!has(plan_nn<float>(kH100, 431, 9355, 4).composition, "ShortKPolicy<"));
}

TEST_CASE("the default plan runs a few rows against a row-major B whose rows TMA cannot read on CUDA cores",
          "[host][plan]") {
  const gemm::HopperRules& h = gemm::rules_for(90).hopper;
  // Up to few_rows_max_m rows and m^2 k <= few_rows_max_m2k: FewRowsPolicy, one launch, no scratch.
  for (const int m : {1, 2}) {
    const gemm::Plan p = plan_nn<bf16>(kH100, m, 51, 2450);
    CHECK(has(p.composition, "FewRowsPolicy<"));
    CHECK(has(p.reason, "few_rows_max_m2k"));
    CHECK(p.workspace_bytes == 0);
  }
  CHECK(has(plan_nn<bf16>(kH100, h.few_rows_max_m, 4282, 108).composition, "FewRowsPolicy<"));
  CHECK(has(plan_nn<__half, gemm::DefaultPolicy, float>(kH100, 4, 378, 163).composition, "FewRowsPolicy<"));
  CHECK(has(plan_nn<bf16>(kH100, 5, 4282, 108, Op::T).composition, "FewRowsPolicy<"));  // A transposed
  CHECK(has(plan_nn<bf16>(kH100, 1, 16383, 4095).composition, "FewRowsPolicy<"));  // 128 MB of B
  const int k = static_cast<int>(h.few_rows_max_m2k / 16);  // the longest k at 4 rows
  CHECK(has(plan_nn<bf16>(kH100, 4, 4097, k).composition, "FewRowsPolicy<"));
  // Not past them, not with rows TMA reads, not with B stored transposed, not without wgmma (where it
  // was not measured), not for strict fp32.
  CHECK(!has(plan_nn<bf16>(kH100, 4, 4097, k + 1).composition, "FewRowsPolicy<"));
  CHECK(!has(plan_nn<bf16>(kH100, h.few_rows_max_m + 1, 4282, 108).composition, "FewRowsPolicy<"));
  CHECK(!has(plan_nn<bf16>(kH100, 1, 4096, 4096).composition, "FewRowsPolicy<"));
  CHECK(!has(plan_nn<bf16>(kH100, 1, 4096, 4095).composition, "FewRowsPolicy<"));  // A's rows alone
  CHECK(!has(plan_nn<bf16>(kH100, 1, 4095, 4095, Op::N, Op::T).composition, "FewRowsPolicy<"));
  CHECK(!has(plan_nn<bf16>(kA100, 1, 51, 2450).composition, "FewRowsPolicy<"));
  CHECK(!has(plan_nn<float>(kH100, 1, 51, 2450).composition, "FewRowsPolicy<"));
}

TEST_CASE("the default plan takes the decode kernel for a few tokens against a transposed weight", "[host][plan]") {
  const gemm::Target kH20{90, 78, 227 * 1024};
  const int max_m = gemm::rules_for(90).decode.max_m;
  // m <= decode.max_m, A row-major, B stored transposed, 16-byte rows: on every sm_80+ GPU (on Hopper
  // outside the weights turned around over it: 28672 rows are 448 tiles of 64, past a round).
  for (const gemm::Target& t : {kH100, kA100, kL40, kH20}) {
    const gemm::Plan p = plan_nn<bf16>(t, 4, 28672, 4096, Op::N, Op::T);
    CHECK(has(p.composition, "DecodePolicy<"));
    CHECK(has(p.reason, "decode"));
    CHECK(p.workspace_bytes == 0);  // 1792 blocks of 4 warps: no k slices
    CHECK(has(plan_nn<bf16>(t, max_m, 28672, 4096, Op::N, Op::T).composition, "DecodePolicy<"));
    CHECK(!has(plan_nn<bf16>(t, max_m + 1, 28672, 4096, Op::N, Op::T).composition, "DecodePolicy<"));
  }
  CHECK(has(plan_nn<bf16>(kA100, 4, 4096, 4096, Op::N, Op::T).composition, "DecodePolicy<"));
  CHECK(has(plan_nn<__half, gemm::DefaultPolicy, float>(kH100, 1, 28672, 4096, Op::N, Op::T).composition,
            "DecodePolicy<"));
  CHECK(!has(plan_nn<bf16>(kT4, 4, 4096, 4096, Op::N, Op::T).composition, "DecodePolicy<"));  // no mma.sync
  CHECK(!has(plan_nn<bf16>(kH100, 4, 4096, 4096).composition, "DecodePolicy<"));               // B row-major
  CHECK(!has(plan_nn<bf16>(kH100, 4, 4096, 4096, Op::T, Op::T).composition, "DecodePolicy<"));  // A transposed
  CHECK(has(plan_nn<bf16>(kH100, 4, 4096, 4100, Op::N, Op::T).composition, "DecodePolicy<"));   // rows of 8200 bytes
  CHECK(!has(plan_nn<bf16>(kH100, 4, 4096, 4098, Op::N, Op::T).composition, "DecodePolicy<"));  // rows of 8196 bytes
  CHECK(!has(plan_nn<float>(kH100, 4, 4096, 4096, Op::N, Op::T).composition, "DecodePolicy<"));
  // The tokens in B's rows (n <= decode.max_m, B stored transposed) against a row-major A, and in B's
  // columns (B row-major) at any size, read from a transposed copy of B: its n rows of k padded to
  // 64 bytes are the scratch (4096 x 3 x 4096: no k slices).
  CHECK(has(plan_nn<bf16>(kH100, 4096, 8, 4096, Op::N, Op::T).composition, "DecodePolicy<"));
  CHECK(has(plan_nn<bf16>(kA100, 7705, 4, 6960, Op::N, Op::T).composition, "DecodePolicy<"));
  CHECK(has(plan_nn<bf16>(kH100, 4096, 3, 4096).composition, "DecodePolicy<"));  // 24 KB of B
  CHECK(plan_nn<bf16>(kH100, 4096, 3, 4096).workspace_bytes == 3ull * 4096 * 2);
  CHECK(plan_nn<bf16>(kH100, 4096, 3, 4100).workspace_bytes == (3ull * 4128 * 2 + 255) / 256 * 256);  // (k padded to 4128)
  CHECK(plan_nn<bf16>(kH100, 4096, 3, 4096, Op::N, Op::T).workspace_bytes == 0);
  CHECK(has(plan_nn<bf16>(kH100, 28672, 8, 4096).reason, "columns"));
  CHECK(has(plan_nn<bf16>(kH100, 16384, 8, 16384).composition, "DecodePolicy<"));  // 256 KB of B
  CHECK(has(plan_nn<bf16>(kH100, 7705, 4, 6956).composition, "DecodePolicy<"));     // A's rows of 13912 bytes
  CHECK(has(plan_nn<bf16>(kH100, 8561, 4, 10692).composition, "DecodePolicy<"));    // 86 KB of B, A's rows 8 mod 16
  CHECK(has(plan_nn<bf16>(kH100, 8560, 4, 10696).composition, "DecodePolicy<"));    // 86 KB of B, A's rows aligned
  CHECK(!has(plan_nn<bf16>(kH100, 4096, 3, 4098).composition, "DecodePolicy<"));    // A's rows of 8196 bytes
  CHECK(!has(plan_nn<bf16>(kH100, 4096, 3, 4096, Op::T, Op::N).composition, "DecodePolicy<"));  // A transposed
  CHECK(!has(plan_nn<bf16>(kH100, 4096, max_m + 1, 4096, Op::N, Op::T).composition, "DecodePolicy<"));
  CHECK(has(plan_nn<bf16>(kH100, 4096, 8, 4100, Op::N, Op::T).composition, "DecodePolicy<"));   // rows of 8200 bytes
  CHECK(!has(plan_nn<bf16>(kH100, 4096, 8, 4102, Op::N, Op::T).composition, "DecodePolicy<"));  // rows of 8204 bytes
  // Warps along k until 16 per SM, then k slices: 8 x 512 x 8192 is 32 blocks of 16 rows, 16 warps
  // each (512 warps, below half of 16 x 132): ceil(2112 / 512) = 5 slices wanted, at most 256 steps /
  // (16 warps x 4) = 4: partial sums of 32 blocks x 4 slices x 16 rows x 8 tokens, and 32 counters.
  CHECK(plan_nn<bf16>(kH100, 8, 512, 8192, Op::N, Op::T).workspace_bytes == 32ull * 4 * 16 * 8 * 4 + 32 * 4);
  using L = gemm::preset::Tuned::Decode;
  const gemm::detail::DeviceInfo h100{0, 90, 227 * 1024, 132};
  gemm::GemmArgs<bf16, bf16> args{4, 4096, 4096, 1.0f, ptr<bf16>(), 4096, ptr<bf16>(), 4096, 0.0f, ptr<bf16>(), 4096,
                                  Op::N, Op::T};
  CHECK(L::layout_for(args, h100).warps_k == 16);  // 256 blocks: 4096 warps
  args.n = 28672;                                   // 1792 blocks of 4 warps already exceed 2112
  CHECK(L::layout_for(args, h100).warps_k == 4);
  CHECK(L::layout_for(args, h100).slices == 1);
}

TEST_CASE("fp32 decode's k slices: the count whose rounds of resident clusters cost least", "[host][plan][dotrows]") {
  using gemm::detail::dot_rows_slices;
  // Resident clusters of 1-8 blocks of the 16-row kernel (two blocks an SM) on 132 SMs, and of the
  // 1-row kernel (three), as cudaOccupancyMaxActiveClusters read them on an H200.
  const int two[8] = {264, 132, 79, 62, 47, 39, 32, 30};
  const int three[8] = {396, 198, 124, 92, 69, 62, 47, 45};
  CHECK(dot_rows_slices(128, 14336, 8, two) == 2);  // 4096 columns: 256 blocks, one round (3: a round and a half)
  CHECK(dot_rows_slices(256, 8192, 8, two) == 1);   // 8192 columns: a round already
  CHECK(dot_rows_slices(344, 4096, 8, two) == 2);   // 11008 columns: 3 rounds of half the k beat 2 whole
  CHECK(dot_rows_slices(64, 8192, 8, two) == 3);    // 62 clusters of 4 hold 248 of 256 blocks
  CHECK(dot_rows_slices(32, 4096, 8, two) == 6);    // 30 clusters of 8 hold 240 of 256 blocks
  CHECK(dot_rows_slices(32, 4096, 4, two) == 4);    // at most `most`
  CHECK(dot_rows_slices(32, 4096, 8, {264, 132, 79, 62, 47, 0, 0, 0}) == 4);  // a cluster of 6 does not fit
  CHECK(dot_rows_slices(128, 4096, 8, three) == 2);  // 8 slices cost the same: the smaller count
  CHECK(dot_rows_slices(5000, 14336, 1, two) == 1);
}

// TF32 with an operand stored the way TF32 descriptors cannot read: on the widths whose math
// warpgroups own 64 rows (128x256, 128x192, 128x128, 128x64), A stored k x m read through registers
// (no copy of A; B stored k x n still copied), both row-major turned around (nothing copied) where the
// turned call has no more tiles. Not where A is row-major and B transposed, not for 16-bit types,
// 3xTF32, fused calls or batches.
TEST_CASE("the default plan reads a TF32 A stored k x m through registers", "[host][plan]") {
  using P = gemm::DefaultPolicy;
  using gemm::tf32;
  using Tuned = gemm::preset::Tuned;
  const auto name = [](auto policy) { return "HopperPolicy<" + decltype(policy)::parts() + ">"; };
  const gemm::Plan nn = plan_nn<tf32, P, float>(kH100, 4096, 4096, 4096);
  CHECK(nn.composition == name(Tuned::HopperTurnedRegisterA{}));
  CHECK(has(nn.composition, "WgmmaRegisterA"));
  CHECK(has(nn.composition, "TurnedRegisterEpilogue"));
  CHECK(has(nn.reason, "turned around"));
  CHECK(nn.workspace_bytes == 0);
  const gemm::Plan tt = plan_nn<tf32, P, float>(kH100, 4096, 4096, 4096, Op::T, Op::T);
  CHECK(tt.composition == name(Tuned::HopperRegisterA{}));
  CHECK(has(tt.reason, "A read through registers"));
  CHECK(tt.workspace_bytes == 0);
  const gemm::Plan tn = plan_nn<tf32, P, float>(kH100, 4096, 4096, 4096, Op::T, Op::N);
  CHECK(tn.composition == name(Tuned::HopperRegisterA{}));
  CHECK(tn.workspace_bytes == 4096ull * 4096 * 4);  // B copied transposed, A not
  const gemm::Plan nt = plan_nn<tf32, P, float>(kH100, 4096, 4096, 4096, Op::N, Op::T);
  CHECK(has(nt.composition, "WgmmaSS"));
  CHECK(nt.workspace_bytes == 0);
  // The other widths: 128x128 split in k (768 x 768 x 8192: 36 tiles; 768 x 3072 x 2048, 144 tiles,
  // the 12 past a round in 8 slices), 128x192 (768 x 3072 x 1024: 96 tiles either way round), 128x64
  // (1024^3: 128 either way).
  CHECK(plan_nn<tf32, P, float>(kH100, 768, 768, 8192).composition == name(Tuned::TurnedRegisterA<Tuned::HopperMedium>{}));
  CHECK(plan_nn<tf32, P, float>(kH100, 384, 384, 65536, Op::T, Op::N).composition ==
        name(Tuned::RegisterA<Tuned::HopperMedium>{}));
  CHECK(plan_nn<tf32, P, float>(kH100, 768, 3072, 1024).composition == name(Tuned::TurnedRegisterA<Tuned::HopperBalanced>{}));
  CHECK(plan_nn<tf32, P, float>(kH100, 3072, 768, 1024, Op::T, Op::N).composition ==
        name(Tuned::RegisterA<Tuned::HopperBalanced>{}));
  CHECK(plan_nn<tf32, P, float>(kH100, 768, 3072, 2048).composition == name(Tuned::TurnedRegisterA<Tuned::HopperMedium>{}));
  CHECK(plan_nn<tf32, P, float>(kH100, 3072, 768, 3152, Op::T, Op::N).composition ==
        name(Tuned::RegisterA<Tuned::HopperMedium>{}));
  CHECK(plan_nn<tf32, P, float>(kH100, 1024, 1024, 1024).composition == name(Tuned::TurnedRegisterA<Tuned::HopperSmall>{}));
  CHECK(plan_nn<tf32, P, float>(kH100, 1000, 1000, 300, Op::T, Op::T).composition ==
        name(Tuned::RegisterA<Tuned::HopperSmall>{}));
  // Turned, 4100 x 4096 would be 32 x 17 = 544 tiles of 128x256 against 33 x 16 = 528, and 4096 x 8
  // 64 tiles of 128x64 against 32 (which split in k): the widths Tuned chose, B read from a copy.
  CHECK(!has(plan_nn<tf32, P, float>(kH100, 4100, 4096, 4096).composition, "WgmmaRegisterA"));
  CHECK(!has(plan_nn<tf32, P, float>(kH100, 4096, 8, 4096).composition, "WgmmaRegisterA"));
  CHECK(!has(plan_nn<bf16>(kH100, 4096, 4096, 4096, Op::T, Op::T).composition, "WgmmaRegisterA"));
  CHECK(!has(plan_nn<gemm::tf32x3, P, float>(kH100, 4096, 4096, 4096, Op::T, Op::T).composition, "WgmmaRegisterA"));
  const gemm::Epilogue<float, gemm::act::ReLU, float> relu{ptr<float>(), 4096, ptr<float>(), gemm::BiasKind::PerColumn};
  const gemm::Plan fused = gemm::plan<tf32>(kH100, Op::T, Op::T, 4096, 4096, 4096, 1, ptr<float>(), 4096, ptr<float>(),
                                            4096, 0, ptr<float>(), 4096, relu);
  CHECK(fused.status == Status::Success);
  CHECK(!has(fused.composition, "WgmmaRegisterA"));
  CHECK(has(gemm::preset::Tuned::parts(), "WgmmaRegisterA"));
}
