#pragma once
// preset::Tuned, the default policy: per call, the fastest composition measured for the type,
// architecture, shape and alignment. And preset::All, every preset in ladder order.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include "mma/decode_policy.cuh"
#include "mma/policy.cuh"
#include "packed_rows.cuh"
#include "policy.cuh"
#include "presets.cuh"
#include "sm90/policy.cuh"
#include "parts/targets.cuh"
#include "rules.cuh"
#include "type_list.cuh"

namespace gemm::preset {

// Beyond the tutorials: the fastest compositions measured on the H100 (sm_90), picked per call by
// type, architecture, shape and alignment. See docs/design/ for how each was chosen; on sm_80
// the same choices apply but are unmeasured. gemm::gemm<T>() with no policy named uses this preset.
//   float:       CUDA-core compositions from tools/autotune.cu (strict fp32);
//   tf32:        on sm_90 the Hopper kernel (TF32 wgmma: an A stored k x m read through registers, A
//                and B row-major turned around, other operands made K-major first), except a few
//                rows of C against a row-major B (strict fp32 on CUDA cores, B read once); on sm_80-89
//                mma.sync with tf32 (MmaSync's composition; any alignment); before sm_80, strict fp32
//                on CUDA cores (WarpTiled: within TF32's error);
//   tf32x3:      on sm_90 three passes of the TF32 Hopper kernel over split operands; on sm_80-89
//                mma.sync with the split in registers (128x128 tiles of 32x64 warp tiles, k slices of
//                4096); before sm_80, strict fp32 on CUDA cores (WarpTiled: at least as accurate);
//   double:      on sm_80+, the FP64 tensor cores (Dmma's composition, or 128x64 tiles for small C;
//                any alignment); before, a CUDA-core composition;
//   bf16, fp16:  on sm_90 the persistent warp-specialised wgmma kernel (Persistent's composition,
//                with narrower tiles for small C; A, B or C rows that TMA cannot use are first copied
//                with aligned rows); on sm_80-89 (or a binary without sm_90a code), mma.sync: filled
//                by cp.async where A and B rows are 4-byte aligned (even leading dimensions), else by
//                element loads through registers; before sm_80, WarpTiled on CUDA cores.
// (The mma.sync and DMMA choices are not measured yet.)
struct Tuned : Named<Tuned> {
  // Large C, 16-byte aligned: 8 warps of 64x64 (128 accumulators per thread), one block per SM,
  // a 3-stage cp.async pipeline 16 deep in k, and stream-K for the tiles of a last partial wave.
  // Row-major block order measured 1-2% faster than the swizzled one at 8192^3 (50 MB of L2 holds
  // what a wave shares either way). Aligned input only.
  using Large = TiledPolicy<TileShape<128, 256, 16, 4, 4>, WarpThreadMap<64, 64, 4, 2>,
                            VectorLoader<Misaligned::Reject>, SmemLayout<Transposed<4>, RowMajor<0>>,
                            CpAsyncMultiStage<3>, OuterProduct, VectorEpilogue, RowMajorRaster, StreamK>;
  // Large C, misaligned: every copy is one element, so the tile is 8 deep in k and the fragment
  // pipeline hides the copies' issue under the FMAs. 256 x 128 tiles also waste less of a ragged
  // n (4095 x 4097 is 16 x 33 tiles, 4 whole waves of 132).
  using LargeMisaligned = TiledPolicy<TileShape<256, 128, 8, 4, 4>, WarpThreadMap<64, 64, 4, 2>, ScalarLoader,
                                      SmemLayout<Transposed<4>, RowMajor<0>>, CpAsyncFragmentPipeline<3>,
                                      OuterProduct, ScalarEpilogue, SwizzledRaster<8>, StreamK>;
  // B stored transposed (op T: n x k, k contiguous). cp.async cannot transpose, so B is copied
  // element by element, neighbouring threads on neighbouring k; with Large's B tile (BK = 16 rows of
  // 256 floats) a warp's copies would all hit one bank (measured: NT at 61% of cuBLAS). Eight k per
  // row and rows padded to 132 floats put a warp's 4 rows x 8 k in 32 different banks, and the math
  // still reads B in 16-byte pieces. A stored transposed (TT) fills its tile with 16-byte copies.
  using LargeTransposedB = TiledPolicy<TileShape<256, 128, 8, 4, 4>, WarpThreadMap<64, 64, 4, 2>, VectorLoader<>,
                                       SmemLayout<Transposed<4>, RowMajor<4>>, CpAsyncFragmentPipeline<3>,
                                       OuterProduct, VectorEpilogue, SwizzledRaster<8>, StreamK>;
  // A batch of entries up to 512 x 512: half the large tile, so twice the waves and a fuller last one
  // (H100, 64 x 512^3: 96% of cuBLAS's strided-batched SGEMM against 92% with 128x256 tiles).
  using BatchMedium = TiledPolicy<TileShape<128, 128, 16, 4, 4>, WarpThreadMap<64, 64, 4, 2>,
                                  VectorLoader<Misaligned::Reject>, SmemLayout<Transposed<4>, RowMajor<0>>,
                                  CpAsyncMultiStage<3>, OuterProduct, VectorEpilogue, SwizzledRaster<8>>;
  // Too few large tiles but a long k (128 x 8192 x 8192, say): the large tile in k slices, the count
  // that fills whole rounds of the SMs best at its one block per SM (SplitKToFill, 2 to 8; H200,
  // fp32 against cuBLAS SGEMM: 3072 x 768 x 3152 TN 0.91 in the 7 it takes, 0.75 in 4; 1280 x 1280
  // x 5120 0.96 in 5, 0.78 in 4; results in benchmark/results/h200-2026-11-29-fp32-k-slices/).
  using LargeKSlices = SplitKToFill<2, 8, 256, 1>;
  using LargeSplitK = TiledPolicy<TileShape<128, 256, 16, 4, 4>, WarpThreadMap<64, 64, 4, 2>,
                                  VectorLoader<Misaligned::Reject>, SmemLayout<Transposed<4>, RowMajor<0>>,
                                  CpAsyncMultiStage<3>, OuterProduct, VectorEpilogue, SwizzledRaster<8>, LargeKSlices>;
  // Smaller C: 64x64 tiles, so that 1024 x 1024 still gives 256 blocks for 132 SMs. A stays
  // k-contiguous in shared memory, so 16-byte cp.async copies fill the pipeline; 32 deep in k, with
  // the fragment pipeline overlapping the barrier.
  template <int BPad, class KSplit = NoSplitK>
  using SmallWithBPad = TiledPolicy<TileShape<64, 64, 32, 1, 4>, WarpThreadMap<32, 32, 8, 1>, VectorLoader<>,
                                    SmemLayout<RowMajor<4>, RowMajor<BPad>>, CpAsyncFragmentPipeline<3>,
                                    OuterProductAlongK, VectorEpilogue, SwizzledRaster<8>, KSplit>;
  using Small = SmallWithBPad<0>;
  // Small C with a long k and few 64x64 tiles (a weight gradient over many tokens, a 128-row block
  // of a larger multiply as gemm::host runs them): each tile's k loop alone is the time, so the
  // tiles' k is cut in the slice count that spreads the blocks most evenly over the SMs
  // (SplitKToFill's cost; 4 to 32, each at least 256 long). Its weights were fitted to fixed counts
  // on an H200 (fp32 against cuBLAS SGEMM, 15 shapes of 1 to 272 tiles: a geometric mean of 0.79 at
  // its picks against 0.80 at each shape's best count and 0.59 at 4; 768 x 768 x 8192 TN 0.68 in 4
  // slices, 0.79 in 10; results in benchmark/results/h200-2026-11-29-fp32-k-slices/).
  using SmallKSlices = SplitKToFill<4, 32, 256, 2>;
  using SmallSplitK = SmallWithBPad<0, SmallKSlices>;
  // B stored transposed: a warp copies 32 k of one B row; rows of 65 floats put them in 32 banks.
  using SmallTransposedB = SmallWithBPad<1>;
  using SmallTransposedBSplitK = SmallWithBPad<1, SmallKSlices>;
  // m <= 16 with a long k: memory-bound (B is read once), so the tile is 16 x 512 with each thread
  // owning all 16 rows of 4 columns (every B value loaded from shared memory feeds 16 FMAs), 16 k
  // slices give 128 blocks, a 4-stage cp.async pipeline keeps B in flight, and the slices add into
  // C with 16-byte vector reductions. Aligned input only (misaligned skinny calls take the small-C path).
  using Skinny = TiledPolicy<TileShape<16, 512, 16, 16, 4>, BlockThreadMap, VectorLoader<Misaligned::Reject>,
                             SmemLayout<Transposed<4>, RowMajor<0>>, CpAsyncMultiStage<4>, OuterProduct,
                             VectorEpilogue, RowMajorRaster, SplitK<16>>;
  // bf16 and fp16 on Hopper: the persistent warp-specialised kernel with TMA stores. 128x256 tiles
  // where they give at least a wave of 128 tiles (1.01-1.03x cuBLAS from 2048^3 up on an H200);
  // below that, narrower tiles keep the SMs busy (1024^3: 128x64 tiles 1.25x cuBLAS, 128x256 0.72x).
  // Operands TMA cannot read (odd leading dimensions, offset pointers) are first copied with aligned
  // rows: one pass over the operand instead of the CUDA-core path (or cuBLAS's Ampere-class kernel at
  // a fifth of its speed).
  template <int BN, int Stages, class KSplit = NoSplitK>
  using HopperTile = HopperPolicy<BlockTile<128, BN>, Stages, PersistentProducerConsumer<2>, SwizzledRaster<8>,
                                  TmaStoreEpilogue, PackMisalignedOperands, KSplit>;
  using Hopper = HopperTile<256, 4>;
  // The same work per block turned on its side, for a ragged n: 4096 x 4097 is 32 x 17 tiles of
  // 128x256 (544: a fifth round for 16 SMs, whose 17th column holds one column of C) but 16 x 33 of
  // 256x128 (528: four whole rounds of 132).
  using HopperTall = HopperPolicy<BlockTile<256, 128>, 4, PersistentProducerConsumer<2>, SwizzledRaster<8>,
                                  TmaStoreEpilogue, PackMisalignedOperands>;
  // The narrower tiles. Where 128x128 ones fill at most half the SMs and k is long (a weight gradient
  // over many tokens: 768 x 768 x 65536 is 36 tiles), each tile's k is split across blocks, as many
  // slices as fit in one round of the SMs, at most 16, each at least 16 k blocks, their partial tiles
  // added by the fixup kernel (HopperSplitK's SeparateFrom 2). H200, bf16, against the 32 k blocks
  // and last-block fixup before: 384 x 384 x 8192 TN 1.28 of cuBLAS in 8 slices against 1.05 in 4,
  // 384 x 384 x 16384 0.99 (14) against 0.91 (8), 512 x 512 x 8192 NT 1.08 (8) against 1.03 (4), 256 x
  // 1024 x 4096 NN 1.40 (4) against 0.92 (2), 512 x 576 x 7168 NT 1.01 (6) against 0.82 (3); 576 x 576
  // x 6144 NT 1.20 (5) against 1.12 (3, but 1.28 in 3 separate), 640 x 640 x 8192 NN 1.06 (5) against
  // 1.08 (4). Whether slices pay at all against 128x64 tiles is Tuned's rule (split_medium_cost). The
  // 128x64 tiles serve short k, and C narrower than a tile (512 x 8 x 4096: bound by reading A),
  // where they split as decode's tiles do: below a quarter of the SMs, slices of 4 k blocks and up
  // (H200: 15.7 us in 16 slices, 20.5 whole).
  // Where they make whole rounds of the SMs and a last round at most half full, that round's tiles
  // are cut in k slices that fill it (slices of at least 4 k blocks), where k is long enough to pay
  // for the fixup: 576 x 7168 x 8192 is two rounds of 132 and 16 tiles, the 16 in 8 slices.
  using HopperMedium = HopperTile<128, 6, HopperSplitK<16, 2, 16, 4, 0, 2>>;
  // Three quarters of the wide tile, where the rounds of the SMs that 128x256 or 128x128 tiles take
  // leave much of the last one empty: 768 x 3072 is 72 tiles of 128x256 (one round, 55% full), 144
  // of 128x128 (two rounds, the second 9% full), 96 of 128x192 (one round of 1.5 times the work of
  // a 128x128 tile: 1.5 against 2). Four stages, as the wide tile (five do not fit beside the
  // epilogue buffers).
  using HopperBalanced = HopperTile<192, 4>;
  // The same work per block on its side, for rows that fill the rounds: 192x128, three math
  // warpgroups of 64 x 128 (512 threads, 152 registers each after setmaxnreg). 3072 x 1024 is 128
  // tiles of 192x128 (one round, 97% full) against 144 of 128x192 (two rounds, the second 9% full)
  // and 192 of 128x128 (1.45 rounds, the second cut in k slices): H200, bf16, k = 4096, Tuned before
  // and after in the same runs, TN 43.7 us -> 35.8 (cuBLAS 36.1-38.5), NN 45.6 -> 39.6, NT 42.3 ->
  // 37.0. 16-bit single products without a fused epilogue.
  using HopperBalancedTall = HopperPolicy<BlockTile<192, 128>, 4, PersistentProducerConsumer<3>, SwizzledRaster<8>,
                                          TmaStoreEpilogue, PackMisalignedOperands>;
  // A quarter narrower than 128x128, where its tiles fill the rounds of the SMs better than any other
  // width (hopper.speed_narrow has the measurement): 2048 x 768 x 3072 NT is 128 tiles (one round,
  // 97% full) against 96 of 128x128; 8192 x 576 x 7168 NT 3 rounds of 0.75 the work against 3 of
  // 128x128 and 2 of 128x192. H200 against cuBLAS, L2 flushed: 0.92 against 0.83 for Tuned's choice
  // before it (128x128), 0.84 against 0.66 (128x128, its last round split in k). Compiled for B
  // stored transposed only (the tiles read its 96 rows; row-major B would load 128 columns to use
  // 96: 0.43 of cuBLAS at 57344 x 8192 x 8192 TN against 0.81 for 128x128). Six stages of 28 KB
  // beside the epilogue's buffers, whose chunks are 64 bytes wide (96 bf16 columns:
  // sm90::StoreChunkFor).
  using HopperNarrow = HopperTile<96, 6>;
  using HopperSmall = HopperTile<64, 8, HopperSplitK<16, 4, 4>>;
  // FP8's 128x64 tiles: the same, but whole below 32 k blocks (k < 4096: a 128-deep FP8 k block is
  // twice a 16-bit one's depth, and these calls last a few microseconds, of which the split's second
  // kernel takes two or three). H200, e4m3 -> bf16, C of 8, 16 and 64 columns, m 512-4096, k
  // 1024-14336 (55 calls in every scale mode, beside cuBLASLt, the split at every k in the same run):
  // at k < 4096 1.09x its speed (k = 1024 1.04x, 2048 1.28x, 3072 1.07x, the slowest call 0.78x);
  // ours / cuBLASLt over all 55, tensor 1.05 against 1.01, row 1.71 against 1.61, block 1.42 against
  // 1.40. Whole from 4096 on: 0.3-0.8x. (The partial tiles added by each tile's last block instead of
  // the second kernel: 0.83x with tensor scales.)
  using HopperSmallFp8 = HopperTile<64, 8, HopperSplitK<16, 4, 4, 0, 0, 4, 32>>;
  // TF32 with an operand stored the way TF32 descriptors cannot read (A stored k x m, B k x n): on
  // the widths whose math warpgroups own 64 rows (128x256, 128x192, 128x128, 128x64; kRegisterAWidth),
  // the width Tuned chose with A read through registers (WgmmaRegisterA) instead of copied transposed
  // first: A stored k x m as the caller has it (TT; TN with B still copied), both row-major (NN)
  // turned around (C^T = B^T A^T: B stored k x n is the turned call's A stored k x m, A stored m x k
  // its B stored transposed), nothing copied, where the turned call has no more tiles
  // (registers_for_tf32). Plain single products (no fused instance compiles these kernels). H200,
  // against cuBLAS in the same runs, before -> after: 4096^3 NN 0.91 -> 1.00, TT 0.94 -> 1.03, TN 1.41
  // -> 1.55; 512 x 8192 x 8192 NN (two rounds of 128x256 tiles, B 256 MB) 0.59 -> 1.07; 128x128 tiles:
  // 384 x 384 x 65536 TN 0.53 -> 0.74, 768 x 768 x 8192 NN 1.17 -> 1.63; 128x192: 768 x 3072 x 2048 NN
  // 1.13 -> 1.60, 3072 x 768 x 3152 TN 1.19 -> 1.63; 128x64: 1000 x 1000 x 300 TT 1.20 -> 1.62.
  template <class P, class Epilogue = typename P::Epilogue>
  using RegisterA = HopperPolicy<typename P::Tile, P::kStages, typename P::Schedule, typename P::Raster, Epilogue,
                                 typename P::Operands, typename P::KSplit, WgmmaRegisterA>;
  template <class P>
  using TurnedRegisterA = RegisterA<P, TurnedRegisterEpilogue>;
  using HopperRegisterA = RegisterA<Hopper>;
  using HopperTurnedRegisterA = TurnedRegisterA<Hopper>;
  template <class P>
  static constexpr bool kRegisterAWidth = std::is_same_v<P, Hopper> || std::is_same_v<P, HopperBalanced> ||
                                          std::is_same_v<P, HopperMedium> || std::is_same_v<P, HopperSmall>;
  // m <= 128 (decode: a few tokens against a weight): memory-bound on B, so the tile is 64 rows (one
  // math warpgroup, half the wgmma work of a 128-row tile on rows that do not exist), 8 stages deep
  // to keep B in flight, and k split across blocks where the tiles fill at most a quarter of the SMs
  // (16 x 4096 x 4096: 32 tiles of 64x128, 4 slices of 1024), in slices as short as 4 k blocks.
  // H100, NT, against cuBLAS: 16 x 6144 x 4096 24.3 us / 23.2, 128 x 6144 x 4096 23.6 / 23.5 (128x64
  // tiles: 39.5), 64 x 8192 x 8192 51.1 / 51.3.
  // bf16 and fp16, up to decode.max_m tokens against a K-major weight, rows of 8-byte multiples, on any
  // sm_80+ GPU: m tokens against B stored transposed (n x k), or n tokens (B's rows, B stored
  // transposed, or B's columns, B row-major and small) against a row-major A. mma.sync with the
  // weight's rows on mma's 16-row side and the tokens on its 8 columns, each thread loading 16-byte
  // pieces of the weight straight into its fragments
  // (mma/decode_kernel.cuh). Bound by reading B once: up to 16 warps
  // per block along k, as many as bring the call to 16 warps per SM, two rounds of 4 pieces in
  // flight per warp. H200, m = 1, 4, 8 over 22 weight shapes, against cuBLAS: geometric mean 1.17,
  // worst 0.82 (5120 x 5120); the 64x128 wgmma tile below: 0.87, worst 0.63.
  using Decode = DecodePolicy<mma::DecodeTile<1, 1, 16, 4>, 1, 16>;
  template <class KSplit>
  using HopperDecodeTile = HopperPolicy<BlockTile<64, 128>, 8, PersistentProducerConsumer<1>, SwizzledRaster<8>,
                                        TmaStoreEpilogue, PackMisalignedOperands, KSplit>;
  // From a quarter to half the SMs, k is split too where every slice keeps at least 96 k blocks
  // (128 x 4096 x 14336 NT: 64 tiles in 2 slices of 112, 0.96 of cuBLAS against 0.87 whole;
  // HopperSplitK's HalfMinBlocks has the measurements).
  using HopperDecode = HopperDecodeTile<HopperSplitK<16, 4, 4, 0, 96>>;
  // From decode.max_m + 1 (16-bit; tf32 from 1) to hopper.turned_max_m tokens against a weight
  // stored transposed (A row-major, B n x k): the call turned around (TurnedRegisterEpilogue: C^T =
  // B A^T), 64 of the weight's rows on the tile's M side and the tokens on its 16 columns (32 from
  // hopper.turned_narrow_max_m + 1 tokens), so that at 16 tokens a 6144-row weight makes 96 tiles
  // instead of 48 of 64x128 with 48 of their 64 rows empty; 12 stages keep the weight in flight; k
  // split as decode's tiles. cuBLAS turns such calls around too (16 x 6144 x 4096 on an H200:
  // nvjet_sm90_tst_64x16, 96 blocks, DRAM at 58-65% of peak, against 48-50% for the 64x128 tile).
  // H200, bf16, 15 weights from 768 x 2304 to 8192 x 57344, against cuBLAS: 9-16 tokens a geometric
  // mean of 1.22-1.23 (64x16, 12 stages) against 0.98-1.01 for the 64x128 tile; 24-32 tokens 1.21-1.22
  // (64x32) against 1.02-1.04; 64x16 tiles there 1.06-1.07, 64x32 at 9-16 tokens 1.17-1.19. At 40-64
  // tokens neither turned tile leads on the whole (64x64: 1.07-1.11, worst 0.80; the 64x128 tile
  // 1.02-1.04, worst 0.83); at 1-8 the decode kernel leads or matches (1.11-1.23 against
  // 1.12-1.18). TF32 (the same harness): 64x16 1.04 at 1 token and
  // 1.27-1.29 at 4-16 against 0.86-1.11 for the 64x128 tile, 64x32 1.28-1.29 at 24-32 against 1.15.
  //
  // From hopper.turned_wide_min_m to turned_wide_max_m tokens (16-bit, B stored transposed), 64x64
  // turned tiles where the weight's 64-row tiles take at most one round of the SMs (rules.cuh has
  // the measurement): at 64 tokens a 6144-row weight makes 96 of them against 48 of 64x128.
  template <int BN>
  using HopperTurnedTile = HopperPolicy<BlockTile<64, BN>, 12, PersistentProducerConsumer<1>, SwizzledRaster<8>,
                                        TurnedRegisterEpilogue, PackMisalignedOperands, HopperSplitK<16, 4, 4>>;
  using HopperTurnedNarrow = HopperTurnedTile<16>;
  using HopperTurned = HopperTurnedTile<32>;
  using HopperTurnedWide = HopperTurnedTile<64>;
  // A fused epilogue on Hopper (bias, activation), where 128x256 tiles make one to four waves (or
  // balance worse than 128x128 ones; hopper() has the rule): the consumers take turns, each owning
  // whole 128x128 tiles, so that one's epilogue math runs under the other's mainloop (bias + GELU
  // bf16 4096^3: 217.9 us against 224.4 with 128x256 tiles, and the same call without epilogue
  // 203.3 / 207.6; H100, 2026-11-25).
  using HopperPingPong = HopperPolicy<BlockTile<128, 128>, 6, PersistentPingPong, SwizzledRaster<8>, TmaStoreEpilogue,
                                      PackMisalignedOperands>;
  // bf16, fp16, tf32 on sm_80+ where wgmma cannot run: mma.sync. 128x256 tiles (MmaSync's
  // composition) where they make at least one tile per SM; below that 64x128 tiles of 4 warps of
  // 32x64 (1024^2 is 128 such tiles, against 32 of 128x256).
  using Mma = MmaPolicy<MmaTile<128, 256, 128>, WarpTile<64, 64>, CpAsyncFragmentPipeline<3>, MmaSyncMath,
                        SwizzledRaster<8>>;
  using MmaSmall = MmaPolicy<MmaTile<64, 128, 64>, WarpTile<32, 64>, CpAsyncFragmentPipeline<4>, MmaSyncMath,
                             SwizzledRaster<8>>;
  // 3xTF32 on sm_80+ where wgmma cannot run: mma.sync with the split in registers (MmaSyncMath), two
  // sets of accumulators, so 32x64 warp tiles; 32 floats deep in k (the partial sums of a stage
  // cover 32 k). On the H100 the 16-deep tile measured 10% faster but its chains of adds twice as
  // long (k = 4096: 2.8x cuBLAS SGEMM's error against 1.6x).
  using Mma3xTf32 = MmaPolicy<MmaTile<128, 128, 128>, WarpTile<32, 64>, CpAsyncFragmentPipeline<3>, MmaSyncMath,
                              SwizzledRaster<8>>;
  using Mma3xTf32Small = MmaPolicy<MmaTile<64, 128, 128>, WarpTile<32, 64>, CpAsyncFragmentPipeline<3>, MmaSyncMath,
                                   SwizzledRaster<8>>;
  // bf16 and fp16 rows cp.async cannot read (odd leading dimensions, pointers 2 bytes off) or that the
  // host cannot see (pointer arrays): the small tile, still on tensor cores, decided per block:
  // MmaSmall's cp.async pipeline where the block's rows are 16-byte aligned (a pointer-array entry),
  // else element-by-element loads through registers into two shared stages.
  using MmaMisaligned = MmaPolicy<MmaTile<64, 128, 64>, WarpTile<32, 64>,
                                  AlignedOr<CpAsyncFragmentPipeline<4>, RegisterDoubleBuffer>, MmaSyncMath,
                                  SwizzledRaster<8>>;
  // Single 16-bit products on sm_90 with rows TMA cannot read and a short k (hopper.unstaged_max_k):
  // such rows are no block's to copy with cp.async either, so element loads through registers alone,
  // on 64x64 tiles of four 32x32 warps: twice the blocks of MmaMisaligned's 64x128 at 120-124
  // registers a thread instead of 166-200, four blocks an SM instead of two. H200, bf16, Tuned before
  // and after in the same runs: 306 x 7638 x 53 13.4 us -> 10.9 (cuBLAS 9.3-11.8), 1023 x 1025 x 61
  // 10.5 -> 8.2, 1023 x 1025 x 127 TT 13.1 -> 9.9, 428 x 1958 x 83 NT 7.3 -> 5.9, 4 x 378 x 163 NT
  // 8.7 -> 5.3; 1000 x 777 x 191 9.8 -> 10.5 (within the runs' spread). Compiled into sm_90a code
  // only, where it runs.
  using MmaUnstaged = MmaPolicy<MmaTile<64, 64, 64>, WarpTile<32, 32>, RegisterDoubleBuffer, MmaSyncMath,
                                SwizzledRaster<8>, Misaligned::ScalarPath, WithWgmma>;
  // bf16 and fp16 with a k of a few elements and rows TMA cannot read (k = 4 puts A's rows 8 bytes
  // apart): bound by writing C, which CUDA cores do in one launch with element loads; 32 rows of C
  // by 256 columns per block.
  using ShortK = ShortKPolicy<16, 32>;
  // bf16 and fp16 with a few rows of C against a row-major B whose rows TMA cannot read (1 x 51 x
  // 2450): bound by reading B once, which CUDA cores do in one launch, 64 columns per block, 32 warps
  // along k with 4 rows of B in flight each, k in up to 8 slices of a cluster where the columns make
  // few blocks, instead of two aligned copies, the wgmma tiles and their k split's fixup.
  using FewRows = FewRowsPolicy<8, 32, 4, 8>;
  // Strict fp32, a few tokens against a weight stored transposed: dot products along B's rows,
  // 8 warps of 4 columns a block, 2 steps of 128 k in flight per lane (4 warps, or 4 steps, were
  // slower on an H200: design/fp32-cuda-cores.md; the rule's figures at rules.cuh's dot_rows_max_m).
  using DotRows = DotRowsPolicy<16, 8, 2, 8>;
  // double on sm_80+: the FP64 tensor cores (Dmma's composition: 128x128 tiles) where they make at
  // least one tile per SM, else 128x64 tiles of 8 warps of 32x32 (1024^2: 128 tiles instead of 64;
  // 4 warps of 64x32 spilled registers on the copies' addresses). Dmma's 4
  // stages take 128 KB of shared memory, more than sm_86 and sm_89 give a block: those take the small
  // tile (96 KB; every sm_80+ GPU gives a block at least 99 KB). Before sm_80, CUDA cores (Double).
  using DoubleMma = MmaPolicy<MmaTile<128, 128, 128>, WarpTile<64, 32>, CpAsyncFragmentPipeline<4>, DmmaMath,
                              SwizzledRaster<8>>;
  using DoubleMmaSmall = MmaPolicy<MmaTile<128, 64, 128>, WarpTile<32, 32>, CpAsyncFragmentPipeline<4>, DmmaMath,
                                   SwizzledRaster<8>>;
  // double before sm_80: 64 accumulators of 8 bytes already fill the register file at 128x128 tiles.
  using Double = TiledPolicy<TileShape<128, 128, 8, 4, 4>, WarpThreadMap<32, 64, 2, 2>, VectorLoader<>,
                             SmemLayout<Transposed<4>, RowMajor<0>>, RegisterDoubleBuffer, OuterProduct,
                             VectorEpilogue, SwizzledRaster<8>>;

  static constexpr int kMinArch = 0;
  static const char* name() { return "Tuned"; }
  template <class T, class Out>
  static constexpr bool kServes = is_supported_output<T, Out>;
  static std::string parts() {
    return "float: large aligned C {" + Large::parts() + "}; large misaligned C {" + LargeMisaligned::parts() +
           "}; batches of entries up to 512x512, aligned {" + BatchMedium::parts() +
           "}; fewer large tiles, by rounds of the SMs: k >= 2048 {" + LargeSplitK::parts() + "}, whole small tiles {" +
           Small::parts() + "}, k >= 256 where the slices cost less {" + SmallSplitK::parts() +
           "}, each of those on aligned copies where rows are not 16-byte aligned, the small tiles take more than a "
           "round, k >= 512 and B is not stored transposed (A stored transposed: split k only) {PackedRows<...>}; "
           "B stored transposed, large C {" + LargeTransposedB::parts() + "}; B stored transposed, small C {" +
           SmallTransposedB::parts() + "}, k >= 256 where the slices cost less {" + SmallTransposedBSplitK::parts() +
           "}; single products, B stored transposed with 16-byte-aligned rows, m <= "
           "dot_rows_max_m, k >= dot_rows_min_k {" + DotRows::parts() + "}; m <= 16, k >= 1024, aligned {" + Skinny::parts() +
           "}; before sm_80 {WarpTiled}; double: sm_80+, at least one such tile per SM {" + DoubleMma::parts() +
           "}, fewer {" + DoubleMmaSmall::parts() + "}, before sm_80 {" + Double::parts() +
           "}; tf32 on sm_80-89: as bf16's mma.sync choices; tf32x3 on sm_80-89: at least one tile per SM {" +
           Mma3xTf32::parts() + "}, fewer {" + Mma3xTf32Small::parts() + "}; bf16, fp16, tf32 and tf32x3 on sm_90 {" +
           Hopper::parts() + "} (tf32 plain single products on it and on 128x192, 128x128 and 128x64 below: "
           "with A stored k x m the same width with A through registers, e.g. {" + HopperRegisterA::parts() +
           "}, with A and B row-major the same turned around where that makes no more tiles, e.g. {" +
           HopperTurnedRegisterA::parts() + "}), the same turned (not tf32x3) where it takes fewer rounds of the SMs {" +
           HopperTall::parts() + "}, where 128x192 tiles balance the rounds better {" + HopperBalanced::parts() +
           "}, 16-bit plain single products where 192x128 tiles balance them better still {" +
           HopperBalancedTall::parts() +
           "}, 16-bit single products (plain or fused) with B stored transposed where 128x96 tiles fill "
           "medium_tiles rounds and balance them better than every other width {" + HopperNarrow::parts() +
           "}, 128x128 tiles with their last round split along k where that costs less than every width whole "
           "(tail_gain); fewer 128x256 tiles than wide_tiles rounds: 128x128 tiles where they fill medium_tiles "
           "rounds, or where k splits into slices of them {" + HopperMedium::parts() + "}, else 128x64 tiles, k split "
           "where they fill at most a quarter of the SMs {" +
           HopperSmall::parts() + "}, single products with m <= 128 (not tf32x3) {" + HopperDecode::parts() +
           "}, 16-bit (past the decode kernel, or over it where the weight's 64-row tiles take more than "
           "turned_few_above and at most turned_few_within rounds) and tf32 single products with A row-major, B "
           "stored transposed, turned around (16-bit: any layout up to turned_narrow_max_m, A transposed from "
           "turned_copied_tiles rounds): m <= hopper.turned_narrow_max_m {" + HopperTurnedNarrow::parts() +
           "}, m <= hopper.turned_max_m {" + HopperTurned::parts() +
           "}, 16-bit, m from turned_wide_min_m to turned_wide_max_m, the weight's 64-row tiles within "
           "turned_wide_tiles rounds {" + HopperTurnedWide::parts() +
           "}, with a fused epilogue where 128x256 tiles make 1 to 4 waves, 128x128 tiles balance better "
           "or (16-bit) k <= fused_pingpong_max_k (not tf32x3), and 16-bit single products without one with k "
           "in [pingpong_min_k, pingpong_max_k] where 128x256 tiles fill wide_tiles rounds, or 128x128 tiles "
           "make a round and cost the least at speed_pingpong {" +
           HopperPingPong::parts() + "}; else sm_80+ with 4-byte-aligned A, B rows: at least one tile per SM {" +
           Mma::parts() + "}, fewer {" + MmaSmall::parts() +
           "}; on sm_90 single 16-bit products with rows TMA cannot read, k <= short_k_max_k and m n <= "
           "short_k_max_c {" + ShortK::parts() +
           "}; on sm_90 single 16-bit products with m <= few_rows_max_m, m^2 k <= few_rows_max_m2k and a row-major "
           "B whose rows TMA cannot read {" + FewRows::parts() +
           "}; on sm_90 small single 16-bit products with rows TMA cannot read (k <= unstaged_max_k, 2 m n k <= "
           "unstaged_max_flops) {" + MmaUnstaged::parts() + "}; sm_80+, other rows {" +
           MmaMisaligned::parts() +
           "}; 16-bit on sm_80+ (Hopper included), A row-major and B transposed with rows of 8-byte multiples, at most "
           "decode.max_m tokens (m, or else n), or n <= decode.max_m columns of a row-major B (copied transposed "
           "first) {" +
           Decode::parts() +
           "}; before sm_80 {WarpTiled}; fp8 on sm_90 only, promoted accumulators (the tiles above whose math "
           "warpgroups own 64 x 128 or less): tensor or row scales, A row-major and B transposed, turned around on "
           "the tiles above up to turned_narrow_max_m tokens, to turned_max_m within fp8_turned_tiles rounds and from "
           "turned_wide_min_m to turned_wide_max_m within fp8_turned_wide_tiles rounds; m <= decode_max_m {" +
           HopperDecode::parts() + "} (past one 64-row tile 128x128 from fp8_two_row_medium_tiles rounds, or block "
           "scales from k fp8_two_row_block_min_k within fp8_two_row_block_tiles rounds and from "
           "fp8_two_row_block_long_k); n <= 64 128x64 (below); 128x128 tiles where "
           "they fill medium_tiles rounds or split k {" + HopperMedium::parts() + "}, else 128x64 {" +
           HopperSmallFp8::parts() + "}; the thresholds named in the reasons are gemm::rules_for(arch)'s";
  }
  template <class T>
  static int smem_bytes() {
    if constexpr (sizeof(T) == 8)
      return std::max({Double::smem_bytes<T>(), DoubleMma::smem_bytes<T>(), DoubleMmaSmall::smem_bytes<T>()});
    else if constexpr (sizeof(T) == 1)
      return std::max({HopperMedium::smem_bytes<T>(), HopperSmallFp8::smem_bytes<T>(), HopperDecode::smem_bytes<T>(),
                       HopperTurnedNarrow::smem_bytes<T>(), HopperTurned::smem_bytes<T>(),
                       HopperTurnedWide::smem_bytes<T>()});
    else if constexpr (sizeof(T) == 2)
      return std::max({Hopper::smem_bytes<T>(), HopperBalanced::smem_bytes<T>(), HopperBalancedTall::smem_bytes<T>(),
                       HopperNarrow::smem_bytes<T>(),
                       HopperMedium::smem_bytes<T>(),
                       HopperSmall::smem_bytes<T>(), HopperPingPong::smem_bytes<T>(), HopperDecode::smem_bytes<T>(),
                       HopperTurnedNarrow::smem_bytes<T>(), HopperTurned::smem_bytes<T>(),
                       HopperTurnedWide::smem_bytes<T>(),
                       Mma::smem_bytes<T>(), MmaSmall::smem_bytes<T>(), MmaMisaligned::smem_bytes<T>(),
                       MmaUnstaged::smem_bytes<T>(),
                       WarpTiled::smem_bytes<T>()});
    else
      return std::max({Large::smem_bytes<float>(), LargeMisaligned::smem_bytes<float>(),
                       LargeTransposedB::smem_bytes<float>(), Small::smem_bytes<float>(),
                       SmallTransposedB::smem_bytes<float>(), Skinny::smem_bytes<float>(), Mma::smem_bytes<tf32>(),
                       MmaSmall::smem_bytes<tf32>(), Mma3xTf32::smem_bytes<tf32x3>(),
                       Mma3xTf32Small::smem_bytes<tf32x3>()});
  }
  template <class T, class Args>
  static Status check_alignment(const Args&) { return Status::Success; }  // misaligned input has a path

  // Tiles of bm x bn over the whole call (every entry of a batch).
  template <class Args>
  static long long batch_tiles(const Args& args, int bm, int bn) {
    return detail::ceil_div(args.m, bm) * detail::ceil_div(args.n, bn) * args.batch;
  }

  // A status after which a later choice may still run the call: this composition cannot run on
  // this device (architecture, shared memory, or no code for it in the binary).
  static bool try_another(Status s) {
    return s == Status::UnsupportedArchitecture || s == Status::SharedMemoryTooLarge;
  }

  // The decision, written once for running a call and for gemm::plan: visit(Pick<P, U>{}, why) runs
  // composition P with math type U (or, for plan, checks that it could run here and records why) and
  // returns the status; after a try_another status the next choice is visited. Layouts L are known.
  template <class T, class L, class Args, class Visit>
  static Status decide(const Args& args, const detail::DeviceInfo& dev, Visit&& visit) {
    using detail::ceil_div;
    using detail::Pick;
    // Where a pick's kernels are compiled (parts/targets.cuh). The CUDA-core compositions for GPUs
    // before sm_80 run only there (every sm_80+ GPU has room for a tensor-core tile of each type).
    // The tensor-core fallbacks of bf16, fp16, tf32 and tf32x3 run a single product only where the
    // Hopper kernel cannot (no sm_90a code, or not an sm_90 GPU): the Hopper kernel runs every single
    // product it is given, staging what TMA cannot read; a batch it cannot read takes them on sm_90 too.
    using Legacy = BeforeSm80;
    using Fallback = std::conditional_t<Args::kBatching == Batch::None, WithoutWgmma, void>;
    if constexpr (is_fp8<T>) {
      return hopper_fp8<T>(args, dev, visit);  // (no other family reads FP8: anywhere else UnsupportedArchitecture)
    } else if constexpr (std::is_same_v<T, double>) {
      if (dev.arch >= 80) {
        const Status s = tile_per_sm_or_smaller<DoubleMma, DoubleMmaSmall, T, void>(
            args, dev, visit, "double, sm_80+, at least one 128x128 tile per SM: FP64 tensor cores (DMMA), 128x128 tiles",
            "double, sm_80+, fewer 128x128 tiles than SMs (or their 128 KB of shared memory does not fit): DMMA, "
            "128x64 tiles");
        if (!try_another(s)) return s;
      }
      return visit(Pick<Double, T, Legacy>{}, "double before sm_80 (no FP64 tensor cores): CUDA cores, 128x128 tiles");
    } else if constexpr (is_16bit<T>) {
      if constexpr (Args::kBatching == Batch::None && L::a == Op::N) {
        const DecodeRules& r = rules_for(dev.arch).decode;
        if (dev.arch >= 80 && Decode::serves(args) && Decode::tokens(args) <= r.max_m) {
          if constexpr (L::b == Op::T) {
            // (Turned around on 64x16 tiles instead where turned_over_decode: turned_decode below.)
            if (!turned_over_decode(args, dev)) {
              const Status s = visit(Pick<Decode, T>{}, "16-bit, sm_80+, B stored transposed, at most decode.max_m "
                                                         "tokens (m, or else n) against a K-major weight with rows of "
                                                         "8-byte multiples (decode): mma.sync, the weight's rows on "
                                                         "its 16-row side, 16-byte loads into fragments, warps along "
                                                         "k");
              if (!try_another(s)) return s;
            }
          } else {
            // The tokens are B's columns, read from a transposed copy of B (DecodePolicy), at any
            // size: H200, against the wgmma tiles (which copy A first where its rows are not 16-byte
            // aligned), 16384 x 8 x 16384 132 us against 185, 8561 x 4 x 10688 60 against 65,
            // 4096 x 8 x 14336 36 against 41, 8561 x 4 x 10692 76 against 205.
            const Status s = visit(Pick<Decode, T>{}, "16-bit, sm_80+, n <= decode.max_m tokens as the columns of a "
                                                       "row-major B, against A with rows of 8-byte multiples (decode): "
                                                       "B copied transposed, then mma.sync, A's rows on its 16-row "
                                                       "side, warps along k");
            if (!try_another(s)) return s;
          }
        }
      }
      // mma.sync for rows cp.async cannot read, compiled for every image: on sm_90 for short-k calls
      // whose rows TMA cannot read, elsewhere the fallback below.
      const auto misaligned = [&](const char* why) { return visit(Pick<MmaMisaligned, T>{}, why); };
      if constexpr (Args::kBatching == Batch::None) {
        const HopperRules& r = rules_for(dev.arch).hopper;
        const bool tma_rows = detail::a_aligned(args, 16) && detail::b_aligned(args, 16);
        if (dev.arch == 90 && args.k <= r.short_k_max_k &&
            static_cast<long long>(args.m) * args.n <= r.short_k_max_c && !tma_rows) {
          const Status s = visit(Pick<ShortK, T>{}, "16-bit, sm_90, A or B rows TMA cannot read, k <= "
                                                     "hopper.short_k_max_k and m n <= hopper.short_k_max_c: CUDA "
                                                     "cores, bound by writing C (element loads and stores, one "
                                                     "launch)");
          if (!try_another(s)) return s;
        }
        // (B's rows along n: a few rows of C read them as they lie. Where only A's are misaligned the
        // wgmma tiles copy just A's few rows and read B by TMA.)
        if constexpr (L::b == Op::N) {
          if (dev.arch == 90 && args.m <= r.few_rows_max_m &&
              static_cast<long long>(args.m) * args.m * args.k <= r.few_rows_max_m2k && !detail::b_aligned(args, 16)) {
            const Status s = visit(Pick<FewRows, T>{}, "16-bit, sm_90, m <= hopper.few_rows_max_m and m^2 k <= "
                                                        "hopper.few_rows_max_m2k against a row-major B whose rows "
                                                        "TMA cannot read: CUDA cores, bound by reading B (loads along "
                                                        "its rows, warps along k, k slices in clusters where the "
                                                        "columns make few blocks; one launch)");
            if (!try_another(s)) return s;
          }
        }
        if (dev.arch == 90 && args.k <= r.unstaged_max_k &&
            2.0 * args.m * args.n * args.k <= static_cast<double>(r.unstaged_max_flops) && !tma_rows) {
          const Status s = visit(Pick<MmaUnstaged, T>{}, "16-bit, sm_90, A or B rows TMA cannot read, k <= unstaged_max_k "
                                                          "and 2 m n k <= unstaged_max_flops: mma.sync in one launch "
                                                          "(element loads through registers, 64x64 tiles) instead of "
                                                          "aligned copies for the Hopper kernel");
          if (!try_another(s)) return s;
        }
      }
      if (Status s = turned_decode<T, L>(args, dev, visit); !try_another(s)) return s;
      if (Status s = hopper<T, L>(args, dev, visit); !try_another(s)) return s;
      if (dev.arch >= 80) {
        const auto misaligned_fallback = [&] {
          return misaligned("16-bit, sm_80+ without wgmma, rows cp.async cannot read or "
                            "cannot see (odd leading dimension or pointer, pointer arrays): mma.sync, cp.async "
                            "for blocks whose rows are 16-byte aligned, else element loads");
        };
        Status s;
        if constexpr (Args::kBatching == Batch::Pointers)
          s = misaligned_fallback();  // (the host never sees a pointer array's rows: compiled alone)
        else
          s = Mma::copies_can_read(args) ? mma_sync<T, Fallback>(args, dev, visit) : misaligned_fallback();
        if (!try_another(s)) return s;
      }
      return visit(Pick<WarpTiled, T, Legacy>{}, "16-bit before sm_80: CUDA cores (WarpTiled), converting to float");
    } else if constexpr (std::is_same_v<T, tf32> || std::is_same_v<T, tf32x3>) {
      // TF32 and 3xTF32: the Hopper kernel (TF32 decode turned around), else mma.sync on sm_80+ (float
      // rows are always aligned enough for its copies); before sm_80 strict fp32, which is within
      // their error.
      if constexpr (std::is_same_v<T, tf32>) {
        if constexpr (Args::kBatching == Batch::None && L::b == Op::N) {
          // TF32 wgmma reads B only K-major, so a row-major B (k x n) is first copied transposed: for
          // a few rows of C, a call bound by reading B then reads and writes it twice more. Strict
          // fp32 on CUDA cores (Skinny: 16x512 tiles, k slices) reads it once, and is at least as
          // accurate.
          const CudaCoreRules& c = rules_for(dev.arch).cuda_cores;
          if (dev.arch == 90 && args.m <= c.skinny_max_m && args.k >= c.skinny_min_k &&
              detail::all_vector_aligned(args))
            return visit(Pick<Skinny, float>{}, "tf32, sm_90, a single product with m <= skinny_max_m and k >= "
                                                "skinny_min_k against a row-major B (which TF32 wgmma would read "
                                                "only from a transposed copy), 16-byte-aligned rows: strict fp32 "
                                                "on CUDA cores, 16x512 tiles, 16 k slices");
        }
        if (Status s = turned_decode<T, L>(args, dev, visit); !try_another(s)) return s;
      }
      auto tf32_visit = registers_for_tf32<T, L>(args, visit);
      if (Status s = hopper<T, L>(args, dev, tf32_visit); !try_another(s)) return s;
      if (dev.arch >= 80) {
        if constexpr (std::is_same_v<T, tf32>) {
          if (Status s = mma_sync<T, Fallback>(args, dev, visit); !try_another(s)) return s;
        } else {
          const Status s = tile_per_sm_or_smaller<Mma3xTf32, Mma3xTf32Small, T, Fallback>(
              args, dev, visit, "3xTF32, sm_80+ without wgmma, at least one 128x128 tile per SM: mma.sync, split in "
              "registers, 128x128 tiles",
              "3xTF32, sm_80+ without wgmma, fewer 128x128 tiles than SMs: mma.sync, split in registers, 64x128 tiles");
          if (!try_another(s)) return s;
        }
      }
      return visit(Pick<WarpTiled, float, Legacy>{}, "TF32 before sm_80 (no tensor cores for it): strict fp32, "
                                                     "WarpTiled");
    } else {
      // Strict fp32.
      if (dev.arch < 80) return visit(Pick<WarpTiled, float, Legacy>{}, "fp32 before sm_80 (no cp.async): WarpTiled");
      const bool aligned = detail::all_vector_aligned(args);
      // Rows not 16-byte aligned: where packing_pays, the choices for aligned rows, made for aligned
      // copies. Not for B stored transposed, which every composition copies element by element into
      // its tiles anyway (H200, NT and TT at 767^3 to 1535^3: within 4% either way); and A stored
      // transposed, copied element by element likewise, pays for its copies only through the k
      // split that aligned rows allow (TN 1023 x 1025 x 1021: 87.0 us split on copies, 93.1 whole
      // tiles on the caller's rows, 100.1 whole tiles on copies).
      if constexpr (detail::kPacksRows<Args> && L::b == Op::N) {
        if (!aligned && packing_pays(args, dev)) {
          return strict_fp32<L>(args, dev, true, [&](auto pick, const char* why) {
            using P = typename decltype(pick)::Policy;
            if constexpr (L::a == Op::T && std::is_same_v<P, Small>)
              return visit(pick, why);
            else
              return visit(detail::Pick<PackedRows<P>, typename decltype(pick)::Math>{}, why);
          });
        }
      }
      return strict_fp32<L>(args, dev, aligned, visit);
    }
  }

  // Whether a single fp32 call whose rows are not all 16-byte aligned runs faster on aligned copies
  // (PackedRows) than on the element-by-element path.
  // H200, tools/plan_audit.cu, row-major: where the element-by-element 64x64 tiles take more than
  // one round of the SMs (767 x 769 x 765: 55.6 us against 43.3 on copies; 1023 x 1025 x 1021 135.6
  // against 81.0; 1535 x 1537 x 1533 308.2 against 221.9), but not within one (703 x 705 x 701:
  // 30.6 against 32.9) or with a short k (the copies cost about as much as the products). Large C
  // keeps LargeMisaligned (2047 x 2049 x 2045: 415.2 us against 440.0 on copies).
  template <class Args>
  static bool packing_pays(const Args& args, const detail::DeviceInfo& dev) {
    const CudaCoreRules& r = rules_for(dev.arch).cuda_cores;
    return !r.large_tiles.reached(batch_tiles(args, 128, 256), dev.sms) && batch_tiles(args, 64, 64) > dev.sms &&
           args.k >= r.pack_min_k;
  }

  // The costs of the 64x64 fp32 tiles whole and in k slices (at SmallKSlices' count s), in rounds of
  // the SMs, a round being one block per SM (blocks resident side by side share their SM, so an SM's
  // time follows its share of the blocks: 1023 x 1025 is 272 tiles of 64x64, two per SM and three on
  // 8 SMs), in units of a 64x64 tile's quarter of k: a whole small tile 4 (latency_penalty times that
  // while at most one tile per SM and k >= large_split_min_k: one block per SM hides little latency),
  // a slice of s small_slice_cost x 4 / s (its share of the beta pass and the atomic adds).
  // H100/H200, tools/plan_audit.cu, 4 slices: 1023 x 1025 x 1021 on aligned copies 81.0 us split
  // against 93.8, 1056^3 72.8 against 85.6, 1535 x 1537 x 1533 221.9 unsplit against 224.4, 1023 x
  // 1025 x 4093 small split 269.1 against large split 412.6; 128 x 4096 x 4096 small split 112.7
  // against 123.3 (one tile per SM).
  struct SmallTileCosts {
    double whole, split;
    bool split_pays() const { return split < whole; }
  };
  template <class Args>
  static SmallTileCosts small_tile_costs(const Args& args, const detail::DeviceInfo& dev, bool aligned,
                                         bool few_entries) {
    const CudaCoreRules& r = rules_for(dev.arch).cuda_cores;
    const long long tiles = batch_tiles(args, 64, 64);
    const auto rounds = [&](long long blocks) { return static_cast<double>(detail::ceil_div(blocks, dev.sms)); };
    const bool latency_bound = tiles <= dev.sms && args.k >= r.large_split_min_k;
    // (Rows not 16-byte aligned split k only while the tiles fill at most half the SMs: H200, 255 x
    // 257 x 253 10.4 us split against 13.5, 383 x 385 x 381 15.6 against 18.3, but 511 x 513 x 509
    // 27.2 against 23.2: the element-by-element split pays for its beta pass only with few tiles.)
    const bool can_split = (aligned || tiles * 2 <= dev.sms) && few_entries && args.k >= r.small_split_min_k;
    const int slices = SmallKSlices::slices(tiles, args.k, dev.sms);
    return {4 * rounds(tiles) * (latency_bound ? r.latency_penalty : 1.0),
            can_split ? r.small_slice_cost * 4.0 / slices * rounds(slices * tiles) : HUGE_VAL};
  }

  // Strict fp32 on sm_80+ (cp.async), for rows that are 16-byte aligned or not.
  template <class L, class Args, class Visit>
  static Status strict_fp32(const Args& args, const detail::DeviceInfo& dev, bool aligned, Visit&& visit) {
    using detail::Pick;
    const CudaCoreRules& r = rules_for(dev.arch).cuda_cores;
    // (a batch that fills the GPU by itself splits no k)
    const bool few_entries = Args::kBatching == Batch::None || batch_tiles(args, 16, 512) < dev.sms;
    if constexpr (Args::kBatching == Batch::None && L::b == Op::T) {
      if (args.m <= r.dot_rows_max_m && args.k >= r.dot_rows_min_k && detail::b_aligned(args, 16))
        return visit(Pick<DotRows, float>{}, "fp32, a single product, m <= dot_rows_max_m and k >= dot_rows_min_k "
                                             "against B stored transposed with 16-byte-aligned rows (memory-bound): "
                                             "dot products along k on CUDA cores, k slices in clusters where the "
                                             "columns make few blocks");
    }
    if (aligned && few_entries && args.m <= r.skinny_max_m && args.k >= r.skinny_min_k)
      return visit(Pick<Skinny, float>{}, "fp32, m <= skinny_max_m and k >= skinny_min_k (memory-bound), "
                                          "16-byte-aligned rows: 16x512 tiles, 16 k slices");
    const long long large_tiles = batch_tiles(args, 128, 256);
    const bool large_round = r.large_tiles.reached(large_tiles, dev.sms);
    // A batch of entries smaller than the large tile takes the small one (64 x 64 entries in
    // 128 x 256 tiles would compute 8 times what they need).
    const bool large_entries = Args::kBatching == Batch::None || (args.m >= 128 && args.n >= 256);
    if constexpr (L::b == Op::T) {
      if (large_entries && large_round)
        return visit(Pick<LargeTransposedB, float>{}, "fp32, B stored transposed, 128x256 tiles fill large_tiles "
                                                      "rounds of the SMs: 256x128 tiles, B copied element-wise into "
                                                      "padded rows");
      if (small_tile_costs(args, dev, aligned, few_entries).split_pays())
        return visit(Pick<SmallTransposedBSplitK, float>{}, "fp32, B stored transposed, fewer 128x256 tiles than "
                                                            "large_tiles rounds, k >= small_split_min_k, and k slices "
                                                            "of 64x64 tiles balance the SMs best: 64x64 tiles, k "
                                                            "slices to fill a round of the SMs");
      return visit(Pick<SmallTransposedB, float>{}, "fp32, B stored transposed, fewer 128x256 tiles than large_tiles "
                                                    "rounds: 64x64 tiles");
    } else {
      // The large tile in k slices (at LargeKSlices' count s): a large tile is 32 units of the model
      // below at large_slice_speed x the small tile's speed (2048^3: 358 against 417 us), a slice
      // 32 / s of them. It splits only where C fills it (4096 x 128 x 4096: 195.5 us against 112.8
      // in small slices; H100).
      // (The area of C the tiles cover, in 64x64 tiles: a large tile is 8 of them.)
      const bool split_large = aligned && large_entries && args.m >= 128 && args.n >= 256 &&
                               args.k >= r.large_split_min_k &&
                               8.0 * large_tiles <= r.large_split_max_cover * batch_tiles(args, 64, 64);
      const int large_count = LargeKSlices::slices(large_tiles, args.k, dev.sms);
      const long long large_rounds = detail::ceil_div(large_count * large_tiles, static_cast<long long>(dev.sms));
      const double large_slices =
          split_large ? 32 / (r.large_slice_speed * large_count) * static_cast<double>(large_rounds) : HUGE_VAL;
      if (large_entries && large_round) {
        if constexpr (Args::kBatching != Batch::None) {  // (compiled for batches only)
          if (aligned && args.m <= 512 && args.n <= 512)
            return visit(Pick<BatchMedium, float>{}, "fp32, a batch of entries up to 512x512, 16-byte-aligned rows: "
                                                     "128x128 tiles");
        }
        // Within one round the whole tiles leave SMs idle (96 of them: 36 of 132), where stream-K
        // shares out nothing: k slices where they cost less (H200, 2048 x 1536 x 4096 TN: 0.91 of
        // cuBLAS in 4 slices, 0.75 whole).
        // (In whole blocks: s slices take fewer than s times the one round of whole tiles.)
        if (split_large && large_tiles < dev.sms && large_rounds < large_count)
          return visit(Pick<LargeSplitK, float>{}, "fp32, 128x256 tiles fill large_tiles rounds but not one round, k >= "
                                                   "large_split_min_k, and k slices of them cost less than whole tiles: "
                                                   "128x256 tiles, k slices that fill whole rounds");
        return aligned ? visit(Pick<Large, float>{}, "fp32, 128x256 tiles fill large_tiles rounds, 16-byte-aligned rows: "
                                                     "128x256 tiles, stream-K for the last wave")
                       : visit(Pick<LargeMisaligned, float>{}, "fp32, 128x256 tiles fill large_tiles rounds, rows not "
                                                               "16-byte aligned: 256x128 tiles, element copies");
      }
      // Fewer than 96 large tiles: the large tile in k slices, 64x64 tiles whole or in k slices,
      // whichever small_tile_costs' model finds cheapest.
      const SmallTileCosts small = small_tile_costs(args, dev, aligned, few_entries);
      if (large_slices < std::min(small.whole, small.split))
        return visit(Pick<LargeSplitK, float>{}, "fp32, fewer 128x256 tiles than large_tiles rounds, k >= large_split_min_k, and k slices of "
                                                 "them take the fewest rounds of the SMs: 128x256 tiles, k slices that fill "
                                                 "whole rounds");
      if (small.split_pays())
        return visit(Pick<SmallSplitK, float>{}, "fp32, fewer 128x256 tiles than large_tiles rounds, k >= small_split_min_k, and k slices of "
                                                 "64x64 tiles balance the SMs best: 64x64 tiles, k slices to fill a "
                                                 "round of the SMs");
      return visit(Pick<Small, float>{}, "fp32, fewer 128x256 tiles than large_tiles rounds: 64x64 tiles");
    }
  }

  // A pick's reason with a note after it, in a buffer of the calling thread's: every call decides
  // anew, and a string built per call would allocate on the path of each (the reason is read at once:
  // gemm::plan copies it, a call ignores it).
  static const char* with_note(const char* why, const char* note) {
    static thread_local std::string joined;
    joined.assign(why).append(note);
    return joined.c_str();
  }

  // The visitor of TF32's Hopper picks (hopper() below): a pick of a kRegisterAWidth composition for a
  // plain single product with A stored k x m, or with A and B row-major where the turned call has no
  // more tiles, becomes the same width reading A through registers (RegisterA, TurnedRegisterA); every
  // other pick passes as it is.
  template <class T, class L, class Args, class Visit>
  static auto registers_for_tf32(const Args& args, Visit& visit) {
    return [&args, &visit](auto pick, const char* why) -> Status {
      using P = typename decltype(pick)::Policy;
      if constexpr (std::is_same_v<T, tf32> && Args::kBatching == Batch::None && !detail::has_epilogue<Args> &&
                    kRegisterAWidth<P>) {
        if constexpr (L::a == Op::T) {
          return visit(detail::Pick<RegisterA<P>, T>{},
                       with_note(why, "; tf32 with A stored k x m: A read through registers (WgmmaRegisterA), not "
                                      "copied transposed"));
        } else if constexpr (L::b == Op::N) {
          // (Turned, the tiles lie the other way: no more of them, so that neither the rounds of the SMs
          // nor the k split the width's rule made for the call grow: 4096 x 8 x 4096 is 32 tiles of
          // 128x64, 4 slices each, but 64 turned, too many to split.)
          constexpr int bm = P::Tile::BM, bn = P::Tile::BN;
          if (batch_tiles(args, bn, bm) <= batch_tiles(args, bm, bn))
            return visit(detail::Pick<TurnedRegisterA<P>, T>{},
                         with_note(why, "; tf32 with A and B row-major: the call turned around (C^T = B^T A^T, in "
                                        "no more tiles), B read through registers as its A, nothing copied "
                                        "transposed, C stored from registers"));
        }
      }
      return visit(pick, why);
    };
  }

  // The Hopper kernel for this shape (sm_90 only; without sm_90a code in the binary it answers
  // UnsupportedArchitecture and the caller goes on).
  template <class T, class L, class Args, class Visit>
  static Status hopper(const Args& args, const detail::DeviceInfo& dev, Visit& visit) {
    using detail::Pick;
    // Batches the Hopper kernels can read (HopperPolicy::runs_batch: strided ones as 3-D tensor maps,
    // pointer arrays through address maps); others go on to the next family.
    if (dev.arch != 90 || !Hopper::template runs_batch<T>(args)) return Status::UnsupportedArchitecture;
    const HopperRules& r = rules_for(dev.arch).hopper;
    const auto tiles = [&](int bn) { return batch_tiles(args, 128, bn); };
    const bool wide_round = r.wide_tiles.reached(tiles(256), dev.sms);
    if constexpr (Args::kBatching == Batch::Pointers) {
      // Entries smaller than a 128x128 tile would waste most of it: mma.sync's smaller tiles serve
      // them (H100, bf16 4096 x 64^3: 42% of cuBLAS here, 63% there). Two compositions only (each
      // is compiled per layout and type for pointer arrays).
      if (args.m < 128 || args.n < 128) return Status::UnsupportedArchitecture;
      if (wide_round)
        return visit(Pick<Hopper, T>{}, "sm_90, a pointer array whose 128x256 tiles fill wide_tiles rounds of the "
                                        "SMs: persistent warp-specialised wgmma kernel, 128x256 tiles, entries placed "
                                        "in one address map per operand");
      return visit(Pick<HopperMedium, T>{}, "sm_90, a pointer array with fewer 128x256 tiles than wide_tiles rounds: "
                                            "persistent wgmma kernel, 128x128 tiles, entries placed in one address map "
                                            "per operand");
    } else {
      const auto rounds = [&](long long t) { return detail::ceil_div(t, static_cast<long long>(dev.sms)); };
      // The wide tile on its side (256x128) takes fewer rounds than 128x256 (a ragged n).
      const auto tall_takes_fewer_rounds = [&] { return rounds(batch_tiles(args, 256, 128)) < rounds(tiles(256)); };
      if constexpr (Args::kBatching == Batch::None && !std::is_same_v<T, tf32x3>) {
        if (args.m <= r.decode_max_m)
          return visit(Pick<HopperDecode, T>{}, "sm_90, m <= decode_max_m (decode): persistent wgmma kernel, 64x128 tiles of "
                                                "one math warpgroup, 8 stages, k split across blocks where the tiles "
                                                "fill at most a quarter of the SMs (half, with slices of at least "
                                                "96 k blocks)");
      }
      if constexpr (Args::kBatching == Batch::None && !std::is_same_v<T, tf32x3>) {
        // 128x192 where the other widths leave much of their last round empty (the ping-pong
        // schedule's territory, a fused epilogue over wide rounds, aside). Single products only (a
        // batch's tiles fill rounds by their number), not 3xTF32 (its promoted tiles are at most 128
        // wide).
        const auto cost = [&](long long t, double work, double speed) { return rounds(t) * work / speed; };
        const double wide = std::min(cost(tiles(256), 2, r.speed_wide), cost(batch_tiles(args, 256, 128), 2, r.speed_wide));
        const double balanced = cost(tiles(192), 1.5, r.speed_balanced);
        // (192x128: 16-bit plain calls only, so that no other instance compiles its kernel.)
        constexpr bool kTallServes = is_16bit<T> && !detail::has_epilogue<Args>;
        const double tall = kTallServes ? cost(batch_tiles(args, 192, 128), 1.5, r.speed_balanced_tall) : HUGE_VAL;
        const bool fused_wide = detail::has_epilogue<Args> && wide_round;
        // 128x128 tiles whose last round is split along k (HopperSplitK's tail split), where that
        // costs less than every width whole: 576 x 7168 x 8192 takes 2 rounds of 128x192 tiles (3
        // of 128x128), but 2 and 16 tiles of 128x128, the 16 in 8 slices (H200: 115.4 us against
        // 125.0 and 134.5).
        const double medium = cost(tiles(128), 1, r.speed_medium);
        const double split_tail = medium_tail_rounds(args, dev) / r.speed_medium;
        // (Against the widths whole, not the tail split below: on the one shape of the shape space
        // where both applied, 8192 x 576 x 7168 NT, the split's model put it ahead, and it ran at
        // 0.66 of cuBLAS against 128x96's 0.84.)
        // (Fused epilogues too: H200, bias + GELU bf16 NT, against cuBLASLt's GELU_BIAS on the four
        // forward shapes of the shape space this takes, 0.88-1.06 against 0.80-0.92 for the ping-pong
        // and 128x128 tiles before: 8192 x 576 x 7168 0.90 / 0.67, 2048 x 768 x 3072 0.99 / 0.80.)
        // (128x96 tiles: 16-bit with B stored transposed, where they fill medium_tiles rounds, or make
        // one round where 128x128 tiles make more than narrow_few_above of one and 128x64 tiles more
        // than one.)
        const bool narrow_round = r.medium_tiles.reached(tiles(96), dev.sms) ||
                                  (!r.narrow_few_above.within(tiles(128), dev.sms) && tiles(96) <= dev.sms &&
                                   tiles(64) > dev.sms);
        const double narrow =
            is_16bit<T> && L::b == Op::T && narrow_round ? cost(tiles(96), 0.75, r.speed_narrow) : HUGE_VAL;
        // A plain 16-bit call with a short k: the ping-pong schedule's 128x128 tiles (their epilogues
        // under the other consumer's mainloop) where they make a round of the SMs and cost the least
        // at speed_pingpong (rules.cuh has the measurement).
        if constexpr (is_16bit<T> && !detail::has_epilogue<Args>) {
          const double pingpong = cost(tiles(128), 1, r.speed_pingpong);
          if (args.k >= r.pingpong_min_k && args.k <= r.pingpong_max_k && tiles(128) >= dev.sms &&
              pingpong < std::min({wide, balanced, tall, medium, narrow}))
            return visit(Pick<HopperPingPong, T>{}, "sm_90, 16-bit, k in [pingpong_min_k, pingpong_max_k]: 128x128 tiles "
                                                    "make a round of the SMs and cost less on the ping-pong schedule "
                                                    "than every width on the cooperative one (speed_pingpong, rounds x "
                                                    "work / speed): persistent ping-pong wgmma kernel (one consumer's "
                                                    "epilogue under the other's mainloop), 128x128 tiles, TMA stores");
        }
        if constexpr (is_16bit<T> && L::b == Op::T) {
          if (narrow < std::min({wide, balanced, tall, medium}))
            return visit(Pick<HopperNarrow, T>{}, "sm_90, 16-bit, B stored transposed: 128x96 tiles fill medium_tiles "
                                                  "rounds (or one round, past narrow_few_above of one of 128x128) "
                                                  "and balance the rounds of the SMs better than every other "
                                                  "width whole (speed_narrow, rounds x work / speed): persistent "
                                                  "warp-specialised wgmma kernel, 128x96 tiles, TMA stores");
        }
        if (!fused_wide && split_tail < r.tail_gain * std::min({wide, balanced, tall, medium}))
          return visit(Pick<HopperMedium, T>{}, "sm_90, 128x128 tiles whose last round of the SMs, cut in k slices that "
                                                "fill it (HopperSplitK's tail split), costs less than every width "
                                                "whole (HopperSplitK::tail_round_blocks, tail_gain, rounds x work / "
                                                "speed): "
                                                "persistent wgmma kernel, 128x128 tiles, TMA stores");
        const double others = std::min({wide, split_tail, medium});
        if constexpr (kTallServes) {
          if (tall < balanced && tall < r.balanced_gain * others)
            return visit(Pick<HopperBalancedTall, T>{}, "sm_90, 16-bit, 192x128 tiles balance the rounds of the SMs "
                                                        "better than 128x192, 128x256, 256x128 and 128x128 ones "
                                                        "(speed_balanced_tall, balanced_gain, rounds x work / speed): "
                                                        "persistent warp-specialised wgmma kernel, three math "
                                                        "warpgroups, 192x128 tiles, TMA stores");
        }
        if (!fused_wide && balanced < r.balanced_gain * others)
          return visit(Pick<HopperBalanced, T>{}, "sm_90, 128x192 tiles balance the rounds of the SMs better than "
                                                  "128x256, 256x128 and 128x128 ones (balanced_gain, rounds x work / "
                                                  "speed): persistent warp-specialised wgmma kernel, 128x192 tiles, "
                                                  "TMA stores");
        // 128x256 tiles short of wide_tiles rounds where they cost the least of every width (one round
        // of twice the work against two of 128x128), plain and fused calls alike (both measured).
        if (!wide_round && wide < std::min({balanced, tall, medium, split_tail, narrow})) {
          if (tall_takes_fewer_rounds())
            return visit(Pick<HopperTall, T>{}, "sm_90, fewer 128x256 tiles than wide_tiles rounds, but 256x128 "
                                                "tiles cost less than every other width (rounds x work / speed): "
                                                "persistent warp-specialised wgmma kernel, 256x128 tiles, TMA stores");
          return visit(Pick<Hopper, T>{}, "sm_90, fewer 128x256 tiles than wide_tiles rounds, but they cost less "
                                          "than every other width (rounds x work / speed): persistent "
                                          "warp-specialised wgmma kernel, 128x256 tiles, TMA stores");
        }
      }
      if (wide_round) {
        // A fused epilogue: ping-pong while 128x256 tiles take at most 4 rounds of the SMs, or where
        // its 128x128 tiles (half a round each), handicapped by 5%, take fewer rounds, or (16-bit)
        // where k is at most fused_pingpong_max_k (rules.cuh has that measurement); else the plain
        // choices below. H100, bias + GELU bf16, each call repeated for 2-3 s (at the 700 W cap):
        // ping-pong / cooperative 3072^3 105.1 / 113.3 us, 4096^3 218.5 / 218.0 (223.4 / 230.9 in
        // short runs), 5120^3 446.6 / 458.1 (13 half rounds against 7), 6144^3 743.2 / 702.6 (18
        // against 9), 8192^3 1730 / 1644.
        if constexpr (detail::has_epilogue<Args> && !std::is_same_v<T, tf32x3>) {
          if (rounds(tiles(256)) <= r.pingpong_max_rounds ||
              r.pingpong_half_round * rounds(tiles(128)) < r.pingpong_full_round * rounds(tiles(256)))
            return visit(Pick<HopperPingPong, T>{}, "sm_90, a fused epilogue, 128x256 tiles fill wide_tiles rounds "
                                                    "but at most pingpong_max_rounds, or 128x128 tiles balance better "
                                                    "(pingpong_half_round / pingpong_full_round): persistent "
                                                    "ping-pong wgmma kernel (one consumer's epilogue under the "
                                                    "other's mainloop), 128x128 tiles, TMA stores");
          if (is_16bit<T> && args.k <= r.fused_pingpong_max_k)
            return visit(Pick<HopperPingPong, T>{}, "sm_90, 16-bit, a fused epilogue, 128x256 tiles fill wide_tiles "
                                                    "rounds and k <= fused_pingpong_max_k: persistent ping-pong "
                                                    "wgmma kernel (one consumer's epilogue under the other's "
                                                    "mainloop), 128x128 tiles, TMA stores");
        }
        // A short k: a tile's mainloop is short beside its epilogue, which the ping-pong schedule runs
        // under the other consumer's mainloop (tools/plan_audit.cu --short-k, H200, bf16 NT and NN over
        // 10 m x n: k = 512 7-14% faster than 128x256 tiles, 768 4-6%, 1024 1-4%; 1536 within 2% either
        // way, 2048 up 0-4% slower; 4096 x 4096 x 16 to 256 7-12% faster, but x 8, less than a wgmma's
        // k, 6-8% slower). 16-bit single products (what was measured).
        if constexpr (Args::kBatching == Batch::None && is_16bit<T> && !detail::has_epilogue<Args>) {
          if (args.k >= r.pingpong_min_k && args.k <= r.pingpong_max_k)
            return visit(Pick<HopperPingPong, T>{}, "sm_90, 128x256 tiles fill wide_tiles rounds, k in [pingpong_min_k, "
                                                    "pingpong_max_k]: persistent ping-pong wgmma kernel (one "
                                                    "consumer's epilogue under the other's mainloop), 128x128 tiles, "
                                                    "TMA stores");
        }
        if constexpr (!std::is_same_v<T, tf32x3>) {  // (3xTF32's promoted tiles are at most 128 wide and tall)
          if (tall_takes_fewer_rounds())
            return visit(Pick<HopperTall, T>{}, "sm_90, 128x256 tiles fill wide_tiles rounds, but 256x128 tiles take fewer "
                                                "rounds of the SMs (a ragged n): persistent warp-specialised wgmma "
                                                "kernel, 256x128 tiles, TMA stores");
          // 128x128 tiles (half the work each) where they take fewer rounds of the SMs in all and k is
          // long enough to hide their extra epilogues: 3072^3 is 288 tiles of 128x256 (3 rounds) or
          // 576 of 128x128 (5 half rounds; H100 86.2 us against 99.1), 2047 x 2049 x 2048 144 (2) or
          // 272 (3 half rounds; 63.7 against 67.4); but 3000 x 2000 x 1000 (2 rounds or 3 half) took
          // 31.8 against 28.8; 4096^3 ties (4 or 8 half) and keeps 128x256 (175.9 against 185.4).
          // tools/plan_audit.cu, benchmark/results/h100-2026-11-26-plan-audit/plan_audit*.md.
          if (args.k >= r.medium_min_k && rounds(tiles(128)) < r.medium_vs_wide_rounds * rounds(tiles(256)))
            return visit(Pick<HopperMedium, T>{}, "sm_90, 128x256 tiles fill wide_tiles rounds, k >= medium_min_k, but "
                                                  "128x128 tiles take fewer rounds of the SMs counting each as half a "
                                                  "round (medium_vs_wide_rounds): persistent "
                                                  "warp-specialised wgmma kernel, 128x128 tiles, TMA stores");
        }
        return visit(Pick<Hopper, T>{}, "sm_90, 128x256 tiles fill wide_tiles rounds of the SMs: persistent "
                                        "warp-specialised wgmma kernel, 128x256 tiles, TMA stores");
      }
      if (r.medium_tiles.reached(tiles(128), dev.sms))
        return visit(Pick<HopperMedium, T>{}, "sm_90, fewer 128x256 tiles than wide_tiles rounds, but 128x128 tiles "
                                              "fill medium_tiles rounds: persistent wgmma kernel, 128x128 tiles");
      // 128x128 tiles where k is long enough for them to split into slices (HopperSplitK: one round
      // of the SMs, where the tiles fill at most half of them): 768 x 768 x 65536 is 36 tiles, 3
      // slices each (H200: 135 us against 214 in 72 whole tiles of 128x64), where the slices cost less
      // than the 128x64 tiles as they would run (split_medium_cost, split_overhead_blocks): whole, or
      // below a quarter of the SMs in slices of their own (192 x 128 x 4096: 4 tiles of 128x64 in 16
      // slices of 4 k blocks, against 2 of 128x128 in 4 of 16). Not where C is narrower
      // than the tile: such a call is bound by reading the other operand, not by its tiles' math
      // (4096 x 8 x 4096 NT: 0.57 of cuBLAS in 4 slices, 0.75 whole).
      if constexpr (Args::kBatching == Batch::None && !std::is_same_v<T, tf32x3>) {
        // (The slices the launch will cut: the policy's own count.)
        using MediumShape = typename HopperMedium::template Shape<typename Args::Element>;
        const int k_blocks = static_cast<int>(detail::ceil_div(args.k, MediumShape::BK));
        const int slices = args.n >= 128 ? medium_cut(args, dev).splits : 1;
        using SmallShape = typename HopperSmall::template Shape<typename Args::Element>;
        const int small_slices = HopperSmall::template k_slices<SmallShape>(args, dev).splits;
        const double small_cost = small_slices > 1
                                      ? static_cast<double>(k_blocks) / small_slices + r.split_overhead_blocks
                                      : static_cast<double>(rounds(tiles(64))) * k_blocks;
        if (slices > 1 && static_cast<double>(k_blocks) / slices * r.split_medium_cost + r.split_overhead_blocks < small_cost)
          return visit(Pick<HopperMedium, T>{}, "sm_90, 128x128 tiles fill at most half the SMs, n >= 128, and k "
                                                "splits into slices of them in one round (HopperSplitK) that cost "
                                                "less than the 128x64 tiles, whole or in slices (split_medium_cost, "
                                                "split_overhead_blocks): persistent wgmma kernel, 128x128 tiles, k "
                                                "split across blocks");
      }
      // Below that 128x64 tiles, unless they take at least twice the rounds of the SMs that 128x128
      // tiles (twice the work each) take: 1023 x 1025 is 136 tiles of 128x64 (two rounds) and 72 of
      // 128x128 (one round; measured 21.5 us against 24.6), 1024^2 128 of 128x64 (one round; 7.3 us
      // against 9.3).
      if (rounds(tiles(64)) >= r.small_vs_medium_rounds * rounds(tiles(128)))
        return visit(Pick<HopperMedium, T>{}, "sm_90, fewer 128x128 tiles than medium_tiles rounds, but 128x64 tiles "
                                              "would take small_vs_medium_rounds times their rounds: persistent wgmma "
                                              "kernel, 128x128 tiles");
      return visit(Pick<HopperSmall, T>{}, "sm_90, fewer 128x128 tiles than medium_tiles rounds: persistent wgmma "
                                           "kernel, 128x64 tiles");
    }
  }

  // HopperMedium's split-K cut of this call: the launch's own (HopperPolicy::k_slices).
  template <class Args>
  static HopperKSlices medium_cut(const Args& args, const detail::DeviceInfo& dev) {
    return HopperMedium::template k_slices<typename HopperMedium::template Shape<typename Args::Element>>(args, dev);
  }

  // The rounds of the SMs HopperMedium's 128x128 tiles take where it splits their last round along k
  // (HopperSplitK's tail split): the whole rounds, and the last as its slices' k blocks and the
  // fixup's over a whole tile's; infinite where it would not split so.
  template <class Args>
  static double medium_tail_rounds(const Args& args, const detail::DeviceInfo& dev) {
    using MediumShape = typename HopperMedium::template Shape<typename Args::Element>;
    const HopperKSlices cut = medium_cut(args, dev);
    if (cut.splits <= 1 || cut.whole == 0) return HUGE_VAL;
    const int k_blocks = static_cast<int>(detail::ceil_div(args.k, MediumShape::BK));
    return static_cast<double>(cut.whole / dev.sms) +
           static_cast<double>(HopperMedium::KSplit::tail_round_blocks(k_blocks, cut.splits)) / k_blocks;
  }

  // FP8 on Hopper. Its accumulators are promoted (three sets of them: sm90/scaling.cuh), so only
  // tiles whose math warpgroups own at most 64 x 128 serve it: decode's 64x128, 128x128 (two math
  // warpgroups, six 32 KB stages) and 128x64, chosen as for bf16 below 128x256 tiles, with
  // HopperSplitK where the tiles fill few SMs; beyond bf16's rules, one row of 128x128 tiles for
  // 65-128 tokens where decode's two rows would fall short, and 128x64 tiles for C no wider than
  // them (both below). A call that never promotes (Scales::promote_every(0),
  // tensor or row scales) keeps one set, so it takes bf16's 128x256 tiles where they make a round of
  // the SMs (half the shared-memory reads per flop of 128x128).
  template <class T, class Args, class Visit>
  static Status hopper_fp8(const Args& args, const detail::DeviceInfo& dev, Visit& visit) {
    using detail::Pick;
    if (dev.arch != 90) return Status::UnsupportedArchitecture;
    // (A batch reads its entries as stored: FP8's tensor cores need A as written and B transposed.)
    if (!HopperMedium::template runs_batch<T>(args)) return Status::UnsupportedBatch;
    const HopperRules& r = rules_for(dev.arch).hopper;
    const auto tiles = [&](int bn) { return batch_tiles(args, 128, bn); };
    const auto rounds = [&](long long t) { return detail::ceil_div(t, static_cast<long long>(dev.sms)); };
    if constexpr (Args::kBatching == Batch::None) {
      if constexpr (detail::has_scales<Args>) {
        if (detail::scales_of(args).promote_k == 0 && args.m > r.decode_max_m && tiles(256) >= dev.sms)
          return visit(Pick<Hopper, T>{}, "fp8, sm_90, never promoted (Scales::promote_every(0)) and 128x256 tiles "
                                          "make a round of the SMs: persistent wgmma kernel, 128x256 tiles, the "
                                          "tensor cores' own sums");
      }
      if (Status s = turned_fp8<T>(args, dev, visit); !try_another(s)) return s;
      if (args.m <= r.decode_max_m) {
        const bool block_long =
            detail::block_scaled(args) &&
            ((args.k >= r.fp8_two_row_block_min_k && r.fp8_two_row_block_tiles.within(tiles(128), dev.sms)) ||
             args.k >= r.fp8_two_row_block_long_k);
        if (args.m > HopperDecode::Tile::BM && (r.fp8_two_row_medium_tiles.reached(tiles(128), dev.sms) || block_long))
          return visit(Pick<HopperMedium, T>{}, "fp8, sm_90, more tokens than a 64-row tile holds, up to decode_max_m, "
                                                "and 128x128 tiles reach fp8_two_row_medium_tiles rounds of the SMs "
                                                "or, with block scales, k is at least fp8_two_row_block_min_k with "
                                                "them within fp8_two_row_block_tiles rounds, or at least "
                                                "fp8_two_row_block_long_k: persistent wgmma kernel, one row of "
                                                "128x128 tiles instead of two of 64x128, promoted accumulators, k "
                                                "split where they fill few SMs");
        return visit(Pick<HopperDecode, T>{}, "fp8, sm_90, m <= decode_max_m (decode): persistent wgmma kernel, 64x128 "
                                              "tiles of one math warpgroup, promoted accumulators, k split across "
                                              "blocks where the tiles fill at most a quarter of the SMs (half, "
                                              "with slices of at least 96 k blocks)");
      }
      // C no wider than a 128x64 tile (a router's 8 experts): bound by reading A, so the tile that
      // computes fewest empty columns, with its own k split where it fills few SMs, not 128x128 tiles
      // split in k (which compute 128 columns for 8). H200, e4m3 -> bf16, 36 calls (m 256-4096, n 8
      // and 64, k 1024-14336) beside cuBLASLt: 1.17x the speed of 128x128 tiles in every scale mode
      // (geometric mean; the slowest call 0.98x), ours / cuBLASLt tensor 1.04 against 0.89, row 1.69
      // against 1.44, block 1.43 against 1.22. (At n = 96 it reads A twice: no rule there.)
      if (args.n <= HopperSmallFp8::Tile::BN)
        return visit(Pick<HopperSmallFp8, T>{}, "fp8, sm_90, C no wider than a 128x64 tile: persistent wgmma "
                                                "kernel, 128x64 tiles, promoted accumulators, k split where they "
                                                "fill at most a quarter of the SMs and k has 32 blocks or more");
    }
    if (Args::kBatching != Batch::None || r.medium_tiles.reached(tiles(128), dev.sms) ||
        medium_cut(args, dev).splits > 1 ||
        rounds(tiles(64)) >= r.small_vs_medium_rounds * rounds(tiles(128)))
      return visit(Pick<HopperMedium, T>{}, "fp8, sm_90, 128x128 tiles fill medium_tiles rounds of the SMs, split k, "
                                            "or take fewer rounds than 128x64 ones (small_vs_medium_rounds), or a "
                                            "batch: persistent wgmma kernel, 128x128 tiles, promoted accumulators");
    return visit(Pick<HopperSmallFp8, T>{}, "fp8, sm_90, fewer 128x128 tiles than medium_tiles rounds: persistent "
                                            "wgmma kernel, 128x64 tiles, promoted accumulators, k split as for a "
                                            "narrow C");
  }

  // FP8 decode turned around (C^T = B A^T) on the 16-bit calls' turned tiles: tensor or row scales
  // (block scales' 1 x 128 blocks would lie along the tiles' narrow side) or none, A row-major and B
  // stored n x k, a few tokens (hopper.fp8_turned_tiles has the measurement). UnsupportedArchitecture
  // (try another) otherwise.
  template <class T, class Args, class Visit>
  static Status turned_fp8(const Args& args, const detail::DeviceInfo& dev, Visit& visit) {
    using detail::Pick;
    if (detail::block_scaled(args)) return Status::UnsupportedArchitecture;
    if (args.op_a != Op::N || args.op_b != Op::T) return Status::UnsupportedArchitecture;
    const HopperRules& h = rules_for(dev.arch).hopper;
    const long long tiles = detail::ceil_div(args.n, 64);  // the weight's 64-row tiles
    if (args.m <= h.turned_narrow_max_m)
      return visit(Pick<HopperTurnedNarrow, T>{}, "fp8, sm_90, tensor or row scales, A row-major and B stored "
                                                  "transposed, m <= hopper.turned_narrow_max_m tokens: the call "
                                                  "turned around (C^T = B A^T), 64 weight rows by 16 tokens per "
                                                  "tile, 12 stages, k split where the tiles fill at most a quarter "
                                                  "of the SMs");
    if (args.m <= h.turned_max_m && h.fp8_turned_tiles.within(tiles, dev.sms))
      return visit(Pick<HopperTurned, T>{}, "fp8, sm_90, tensor or row scales, A row-major and B stored transposed, "
                                            "m <= hopper.turned_max_m tokens and the weight's 64-row tiles within "
                                            "fp8_turned_tiles rounds: the call turned around (C^T = B A^T), 64 "
                                            "weight rows by 32 tokens per tile, 12 stages, k split where the tiles "
                                            "fill at most a quarter of the SMs");
    if (args.m >= h.turned_wide_min_m && args.m <= h.turned_wide_max_m && h.fp8_turned_wide_tiles.within(tiles, dev.sms))
      return visit(Pick<HopperTurnedWide, T>{}, "fp8, sm_90, tensor or row scales, A row-major and B stored "
                                                "transposed, hopper.turned_wide_min_m to turned_wide_max_m tokens "
                                                "and the weight's 64-row tiles within fp8_turned_wide_tiles rounds: "
                                                "the call turned around (C^T = B A^T), 64 weight rows by 64 tokens "
                                                "per tile, 12 stages, k split where the tiles fill at most a "
                                                "quarter of the SMs");
    return Status::UnsupportedArchitecture;
  }

  // Composition Large where its tiles make at least one per SM and it can run here, else Small
  // (kernels compiled where Where says: void, everywhere).
  template <class Large, class Small, class T, class Where, class Args, class Visit>
  static Status tile_per_sm_or_smaller(const Args& args, const detail::DeviceInfo& dev, Visit& visit,
                                       const char* why_large, const char* why_small) {
    if (batch_tiles(args, Large::Tile::BM, Large::Tile::BN) >= dev.sms) {
      const Status s = visit(detail::Pick<Large, T, Where>{}, why_large);
      if (!try_another(s)) return s;
    }
    return visit(detail::Pick<Small, T, Where>{}, why_small);
  }

  // Where a few tokens (A's m rows, B stored transposed) run turned around on 64x16 tiles instead of
  // the decode kernel: sm_90, rows TMA can read (no copies first), and the weight's 64-row tiles more
  // than hopper.turned_few_above and within hopper.turned_few_within rounds of the SMs. turned_decode
  // then takes the call (m <= decode.max_m <= turned_narrow_max_m).
  template <class Args>
  static bool turned_over_decode(const Args& args, const detail::DeviceInfo& dev) {
    const HopperRules& h = rules_for(dev.arch).hopper;
    const long long tiles = detail::ceil_div(args.n, 64);
    return dev.arch == 90 && args.m <= rules_for(dev.arch).decode.max_m && args.m <= h.turned_narrow_max_m &&
           detail::a_aligned(args, 16) && detail::b_aligned(args, 16) && !h.turned_few_above.within(tiles, dev.sms) &&
           h.turned_few_within.within(tiles, dev.sms);
  }

  // Decode turned around on sm_90 (HopperTurnedNarrow, HopperTurned): a single product with A
  // row-major, B stored transposed and m <= hopper.turned_max_m (16-bit calls reach it past the
  // decode kernel's tokens), or, 16-bit, any other layout up to hopper.turned_narrow_max_m tokens
  // (a weight gradient's few outputs: a router's 8 experts, a LoRA's rank; the 64-row tiles then
  // sweep the other operand where 64x128 ones spent their rows on the m side: H200, 8 x 4096 x 4096
  // TN 0.87 of cuBLAS against 0.70, 8 x 4096 x 65536 0.92 against 0.72, TT 0.88 against 0.71, NN
  // 1.02 against 0.89). With A transposed the tokens are copied K-major first (a narrow B tile reads
  // only K-major: HopperPolicy::kNarrowB), which pays where the weight's 64-row tiles fill
  // hopper.turned_copied_tiles rounds of the SMs (16 x 1024 x 8192 TN: 16 tiles, 0.79 against 0.85).
  // UnsupportedArchitecture (try another) otherwise.
  template <class T, class L, class Args, class Visit>
  static Status turned_decode(const Args& args, const detail::DeviceInfo& dev, Visit& visit) {
    using detail::Pick;
    if constexpr (Args::kBatching == Batch::None && (is_16bit<T> || (L::a == Op::N && L::b == Op::T))) {
      const HopperRules& h = rules_for(dev.arch).hopper;
      if constexpr (is_16bit<T> && L::a == Op::N && L::b == Op::T) {
        if (dev.arch == 90 && args.m >= h.turned_wide_min_m && args.m <= h.turned_wide_max_m &&
            h.turned_wide_tiles.within(detail::ceil_div(args.n, 64), dev.sms))
          return visit(Pick<HopperTurnedWide, T>{}, "16-bit, sm_90, A row-major and B stored transposed, "
                                                    "hopper.turned_wide_min_m to turned_wide_max_m tokens (decode) and "
                                                    "the weight's 64-row tiles within turned_wide_tiles rounds: the "
                                                    "call turned around (C^T = B A^T), 64 weight rows by 64 tokens "
                                                    "per tile, 12 stages, k split where the tiles fill at most a "
                                                    "quarter of the SMs");
      }
      if (dev.arch != 90 || args.m > h.turned_max_m) return Status::UnsupportedArchitecture;
      if constexpr (!(L::a == Op::N && L::b == Op::T)) {
        if (args.m > h.turned_narrow_max_m) return Status::UnsupportedArchitecture;
        if (L::a == Op::T && !h.turned_copied_tiles.reached(detail::ceil_div(args.n, 64), dev.sms))
          return Status::UnsupportedArchitecture;
      }
      if (args.m <= h.turned_narrow_max_m)
        return visit(Pick<HopperTurnedNarrow, T>{}, "16-bit or tf32, sm_90, A row-major and B stored transposed (16-bit: "
                                                    "any layout, A transposed where the weight's 64-row tiles fill "
                                                    "hopper.turned_copied_tiles rounds; up to decode.max_m tokens "
                                                    "where they take more than turned_few_above and at most "
                                                    "turned_few_within rounds), m <= "
                                                    "hopper.turned_narrow_max_m tokens (decode): the call turned "
                                                    "around (C^T = B A^T), 64 weight rows by 16 tokens per tile, 12 "
                                                    "stages, k split where the tiles fill at most a quarter of the "
                                                    "SMs");
      return visit(Pick<HopperTurned, T>{}, "16-bit or tf32, sm_90, A row-major and B stored transposed, m <= "
                                            "hopper.turned_max_m tokens (decode): the call turned around (C^T = B "
                                            "A^T), 64 weight rows by 32 tokens per tile, 12 stages, k split where "
                                            "the tiles fill at most a quarter of the SMs");
    } else {
      (void)args, (void)dev, (void)visit;
    }
    return Status::UnsupportedArchitecture;
  }

  // mma.sync for bf16, fp16 or tf32, by tile count; the caller checked copies_can_read. Mma's 144 KB
  // of shared memory is more than sm_86 and sm_89 give a block: those take the small tile.
  template <class T, class Where, class Args, class Visit>
  static Status mma_sync(const Args& args, const detail::DeviceInfo& dev, Visit& visit) {
    return tile_per_sm_or_smaller<Mma, MmaSmall, T, Where>(
        args, dev, visit, "sm_80+ without wgmma, at least one 128x256 tile per SM: mma.sync, 128x256 tiles, 3 stages "
        "64 bytes deep",
        "sm_80+ without wgmma, fewer 128x256 tiles than SMs (or their 144 KB of shared memory does not fit): "
        "mma.sync, 64x128 tiles");
  }

  template <class T, class L, class Args>
  static Status launch(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    // Layouts known from here on, so that a composition for one layout is compiled only for it.
    if constexpr (std::is_same_v<L, detail::AnyOps>) {
      return detail::with_ops<L>(args.op_a, args.op_b,
                                 [&](auto layouts) { return launch<T, decltype(layouts)>(args, dev, stream); });
    } else {
      return decide<T, L>(args, dev, [&](auto pick, const char*) {
        using P = detail::PickedPolicy<decltype(pick)>;
        return P::template launch<typename decltype(pick)::Math, L>(args, dev, stream);
      });
    }
  }
};

// Every preset, in ladder order: the CUDA-core tutorial stages, the tensor-core stages, Tuned.
using All = TypeList<Naive, Coalesced, SmemTiled, BlockTile1D, BlockTile2D, Vectorized, BankConflictFree,
                     DoubleBuffered, WarpTiled, MultiStage, Wmma, MmaSync, Dmma, Wgmma, WarpSpecialized, WideTile,
                     Persistent, Fp8, Tuned>;

// The presets of a list that serve math type T with C of type Out.
template <class T, class Out, class List>
struct Serving;
template <class T, class Out>
struct Serving<T, Out, TypeList<>> {
  using type = TypeList<>;
};
template <class T, class Out, class P, class... Rest>
struct Serving<T, Out, TypeList<P, Rest...>> {
  using Tail = typename Serving<T, Out, TypeList<Rest...>>::type;
  using type = std::conditional_t<P::template kServes<T, Out>, typename TypeList<P>::template Append<Tail>, Tail>;
};
template <class T, class Out = storage_t<T>>
using AllServing = typename Serving<T, Out, All>::type;

}  // namespace gemm::preset
