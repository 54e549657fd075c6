#pragma once
// The tutorials' stages as named policies, in tutorial order. Each preset differs from the one
// before it by the part that the tutorial changed; diff two neighbours to see one idea.
//
// Alignment: every preset accepts any pointer aligned to its element type and any leading
// dimension. Presets with VectorLoader<> run a scalar-load instantiation of the same kernel when
// A, B or C (or lda, ldb, ldc) are not 16-byte aligned; nothing is rejected for alignment.
#include <algorithm>
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

// Beyond the tutorials: the fastest compositions measured on the H100 (sm_90) by tools/autotune.cu,
// picked per call by the shape of C. See docs/worklog.md for how each was chosen; on sm_80 the same
// choices apply but are unmeasured. gemm::gemm<T>() with no policy named uses this preset.
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
  // Too few large tiles but a long k (128 x 8192 x 8192, say): the large tile, 4 k slices.
  using LargeSplitK = TiledPolicy<TileShape<128, 256, 16, 4, 4>, WarpThreadMap<64, 64, 4, 2>,
                                  VectorLoader<Misaligned::Reject>, SmemLayout<Transposed<4>, RowMajor<0>>,
                                  CpAsyncMultiStage<3>, OuterProduct, VectorEpilogue, SwizzledRaster<8>, SplitK<4>>;
  // Smaller C: 64x64 tiles, so that 1024 x 1024 still gives 256 blocks for 132 SMs. A stays
  // k-contiguous in shared memory, so 16-byte cp.async copies fill the pipeline; 32 deep in k, with
  // the fragment pipeline overlapping the barrier.
  using Small = TiledPolicy<TileShape<64, 64, 32, 1, 4>, WarpThreadMap<32, 32, 8, 1>, VectorLoader<>,
                            SmemLayout<RowMajor<4>, RowMajor<0>>, CpAsyncFragmentPipeline<3>, OuterProductAlongK,
                            VectorEpilogue, SwizzledRaster<8>>;
  // m <= 16 with a long k: memory-bound (B is read once), so the tile is 16 x 512 with each thread
  // owning all 16 rows of 4 columns (every B value loaded from shared memory feeds 16 FMAs), 16 k
  // slices give 128 blocks, a 4-stage cp.async pipeline keeps B in flight, and the slices add into
  // C with 16-byte vector reductions. Aligned input only (misaligned skinny calls take the small-C path).
  using Skinny = TiledPolicy<TileShape<16, 512, 16, 16, 4>, BlockThreadMap, VectorLoader<Misaligned::Reject>,
                             SmemLayout<Transposed<4>, RowMajor<0>>, CpAsyncMultiStage<4>, OuterProduct,
                             VectorEpilogue, RowMajorRaster, SplitK<16>>;
  // double: 64 accumulators of 8 bytes already fill the register file at 128x128 tiles.
  using Double = TiledPolicy<TileShape<128, 128, 8, 4, 4>, WarpThreadMap<32, 64, 2, 2>, VectorLoader<>,
                             SmemLayout<Transposed<4>, RowMajor<0>>, RegisterDoubleBuffer, OuterProduct,
                             VectorEpilogue, SwizzledRaster<8>>;

  static constexpr int kMinArch = 0;
  static const char* name() { return "Tuned"; }
  static std::string parts() {
    return "float: large aligned C {" + Large::parts() + "}; large misaligned C {" + LargeMisaligned::parts() +
           "}; few large tiles, long k {" + LargeSplitK::parts() + "}; small C {" + Small::parts() +
           "}; m <= 16, k >= 1024, aligned {" + Skinny::parts() + "}; before sm_80 {WarpTiled}; double {" + Double::parts() +
           "}";
  }
  template <class T>
  static int smem_bytes() {
    if constexpr (sizeof(T) == 8)
      return Double::smem_bytes<T>();
    else
      return std::max({Large::smem_bytes<T>(), LargeMisaligned::smem_bytes<T>(), Small::smem_bytes<T>(),
                       Skinny::smem_bytes<T>()});
  }
  template <class T>
  static Status check_alignment(const GemmArgs<T>&) { return Status::Success; }  // misaligned input has a path

  template <class T>
  static Status launch(const GemmArgs<T>& args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    if constexpr (sizeof(T) == 8) {
      return Double::launch<T>(args, dev, stream);
    } else {
      if (dev.arch < 80) return WarpTiled::launch<T>(args, dev, stream);  // no cp.async before sm_80
      const bool aligned = detail::all_vector_aligned(args);
      if (aligned && args.m <= 16 && args.k >= 1024) return Skinny::launch<T>(args, dev, stream);
      const long long large_tiles = detail::ceil_div(args.m, 128) * detail::ceil_div(args.n, 256);
      if (large_tiles >= 96) {
        return aligned ? Large::launch<T>(args, dev, stream) : LargeMisaligned::launch<T>(args, dev, stream);
      }
      if (aligned && args.k >= 2048 && large_tiles * 4 >= 96) return LargeSplitK::launch<T>(args, dev, stream);
      return Small::launch<T>(args, dev, stream);
    }
  }
};

// Every preset, in tutorial order.
using All = TypeList<Naive, Coalesced, SmemTiled, BlockTile1D, BlockTile2D, Vectorized, BankConflictFree,
                     DoubleBuffered, WarpTiled, MultiStage, Tuned>;

}  // namespace gemm::preset
