#pragma once
// The tutorials' stages as named policies, in tutorial order. Each preset differs from the one
// before it by the part that the tutorial changed; diff two neighbours to see one idea.
//
// Alignment: every preset accepts any pointer aligned to its element type and any leading
// dimension. Presets with VectorLoader<> run a scalar-load instantiation of the same kernel when
// A, B or C (or lda, ldb, ldc) are not 16-byte aligned; nothing is rejected for alignment.
#include "policy.cuh"
#include "type_list.cuh"

namespace gemm::preset {

// Stage 1, naive: one thread per element of C; consecutive threads take consecutive rows, so a
// warp's loads of A stride across rows and nothing coalesces.
struct Naive : DirectPolicy<RowPerLane>, Named<Naive> {
  static const char* name() { return "Naive"; }
};

// Stage 2, global memory coalescing: consecutive threads take consecutive columns, so a warp reads
// one contiguous row segment of B and writes one of C, instead of 32 scattered words.
struct Coalesced : DirectPolicy<ColumnPerLane>, Named<Coalesced> {
  static const char* name() { return "Coalesced"; }
};

// Stage 3, shared-memory cache blocking: a block stages 32x32 tiles of A and B in shared memory
// and every element loaded from global memory is used 32 times from there.
struct SmemTiled : TiledPolicy<TileShape<32, 32, 32, 1, 1>, BlockThreadMap, ScalarLoader,
                               SmemLayout<RowMajor<0>, RowMajor<0>>, SingleStage, OuterProduct, ScalarEpilogue>,
                   Named<SmemTiled> {
  static const char* name() { return "SmemTiled"; }
};

// Stage 4, 1D block tiling: each thread computes a column of TM = 8 results, reusing each B value
// from shared memory 8 times in a register: fewer shared loads per FMA.
struct BlockTile1D : TiledPolicy<TileShape<64, 64, 8, 8, 1>, BlockThreadMap, ScalarLoader,
                                 SmemLayout<RowMajor<0>, RowMajor<0>>, SingleStage, OuterProduct, ScalarEpilogue>,
                     Named<BlockTile1D> {
  static const char* name() { return "BlockTile1D"; }
};

// Stage 5, 2D block tiling (inner product -> outer product): each thread owns an 8x8 register tile
// and adds the outer product of 8 A and 8 B values per k: 64 FMAs for 16 shared loads.
struct BlockTile2D : TiledPolicy<TileShape<128, 128, 8, 8, 8>, BlockThreadMap, ScalarLoader,
                                 SmemLayout<RowMajor<0>, RowMajor<0>>, SingleStage, OuterProduct, ScalarEpilogue>,
                     Named<BlockTile2D> {
  static const char* name() { return "BlockTile2D"; }
};

// Stage 6, vectorised access: 16-byte global loads and C stores, and A stored transposed (k-major)
// in shared memory so the math step reads A's fragment as vectors too.
struct Vectorized : TiledPolicy<TileShape<128, 128, 8, 8, 8>, BlockThreadMap, VectorLoader<>,
                                SmemLayout<Transposed<0>, RowMajor<0>>, SingleStage, OuterProduct, VectorEpilogue>,
                    Named<Vectorized> {
  static const char* name() { return "Vectorized"; }
};

// Stage 7, bank-conflict-free shared memory: the transposing stores of A hit the same bank from
// threads that differ only in k; 4 padding words per row spread them over all 32 banks.
// (TransposedSwizzled does the same with no extra memory; see the README for which measured faster.)
struct BankConflictFree : TiledPolicy<TileShape<128, 128, 8, 8, 8>, BlockThreadMap, VectorLoader<>,
                                      SmemLayout<Transposed<4>, RowMajor<0>>, SingleStage, OuterProduct, VectorEpilogue>,
                          Named<BankConflictFree> {
  static const char* name() { return "BankConflictFree"; }
};

// Stage 8, double buffering: two shared buffers; the next tile's global loads are in flight
// while the current tile computes, and one barrier per k step instead of two.
struct DoubleBuffered : TiledPolicy<TileShape<128, 128, 8, 8, 8>, BlockThreadMap, VectorLoader<>,
                                    SmemLayout<Transposed<4>, RowMajor<0>>, RegisterDoubleBuffer, OuterProduct,
                                    VectorEpilogue>,
                        Named<DoubleBuffered> {
  static const char* name() { return "DoubleBuffered"; }
};

// Stage 9, warp tiling: block tile -> 32x64 warp tiles -> 4x4 thread tiles, twice in each direction.
// A warp's lanes read adjacent shared-memory words (no conflicts on B) and a warp's fragment
// footprint is small, so its operands are reused from registers.
struct WarpTiled : TiledPolicy<TileShape<128, 128, 8, 4, 4>, WarpThreadMap<32, 64, 2, 2>, VectorLoader<>,
                               SmemLayout<Transposed<4>, RowMajor<0>>, RegisterDoubleBuffer, OuterProduct,
                               VectorEpilogue>,
                   Named<WarpTiled> {
  static const char* name() { return "WarpTiled"; }
};

// Stage 10, multi-stage cp.async pipeline (sm_80+): three shared stages filled by asynchronous
// copies two tiles ahead of the math, with no registers spent on staging.
struct MultiStage : TiledPolicy<TileShape<128, 128, 8, 4, 4>, WarpThreadMap<32, 64, 2, 2>, VectorLoader<>,
                                SmemLayout<Transposed<4>, RowMajor<0>>, CpAsyncMultiStage<3>, OuterProduct,
                                VectorEpilogue>,
                    Named<MultiStage> {
  static const char* name() { return "MultiStage"; }
};

// The fastest fp32 composition measured on the H100 (sm_90); see docs/worklog.md.
struct Tuned : TiledPolicy<TileShape<128, 128, 8, 4, 4>, WarpThreadMap<32, 64, 2, 2>, VectorLoader<>,
                           SmemLayout<Transposed<4>, RowMajor<0>>, CpAsyncMultiStage<3>, OuterProduct, VectorEpilogue,
                           SwizzledRaster<8>>,
               Named<Tuned> {
  static const char* name() { return "Tuned"; }
};

// Every preset, in tutorial order.
using All = TypeList<Naive, Coalesced, SmemTiled, BlockTile1D, BlockTile2D, Vectorized, BankConflictFree,
                     DoubleBuffered, WarpTiled, MultiStage, Tuned>;

}  // namespace gemm::preset
