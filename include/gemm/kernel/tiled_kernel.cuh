#pragma once
// The composed kernel behind every tiled policy. It owns nothing of its own: the tile shape,
// thread map, loader, shared layout, pipeline, math and epilogue parts each do one job, and this
// file only wires them together for one block tile of C.
#include "../args.cuh"
#include "../parts/loader.cuh"

namespace gemm::detail {

// Everything one block needs for its k loop; the pipeline drives it.
template <class T, class Cfg, bool kVec>
struct Mainloop {
  using Shape = typename Cfg::Shape;
  using Tiles = typename Cfg::Tiles;
  // Chunk widths. Misaligned input moves element by element, with neighbouring threads on neighbouring
  // elements (coalesced). cp.async cannot transpose a 16-byte chunk, so a layout that scatters a chunk
  // (transposed A) is filled element by element too: then a warp's 4-byte copies read 4 rows of 8
  // consecutive k and write 32 different banks, instead of 16 rows and 2-way bank conflicts.
  static constexpr int kFetchWidth = kVec ? Cfg::kLoadWidth : 1;
  template <class Layout>
  static constexpr int kAsyncWidth = kVec && Layout::kVecAlongC ? Cfg::kLoadWidth : 1;
  using CopyA = TileCopy<T, Shape::BM, Shape::BK, kFetchWidth, Cfg::kThreads, typename Tiles::A, kVec>;
  using CopyB = TileCopy<T, Shape::BK, Shape::BN, kFetchWidth, Cfg::kThreads, typename Tiles::B, kVec>;
  using AsyncCopyA =
      TileCopy<T, Shape::BM, Shape::BK, kAsyncWidth<typename Tiles::A>, Cfg::kThreads, typename Tiles::A, kVec>;
  using AsyncCopyB =
      TileCopy<T, Shape::BK, Shape::BN, kAsyncWidth<typename Tiles::B>, Cfg::kThreads, typename Tiles::B, kVec>;
  struct Regs {
    typename CopyA::Regs a;
    typename CopyB::Regs b;
  };

  const GemmArgs<T>& args;
  T* smem;
  int m0, n0, tid, r0, c0;
  int k0, k_len, k_tiles;  // this block's k range: [k0, k0 + k_len)
  // The cp.async copies' per-thread addresses and edge tests for whole k steps, worked out once.
  typename AsyncCopyA::Cursor cursor_a;
  typename AsyncCopyB::Cursor cursor_b;

  __device__ Mainloop(const GemmArgs<T>& args_, T* smem_, int m0_, int n0_, int k0_, int k_len_)
      : args(args_), smem(smem_), m0(m0_), n0(n0_), tid(threadIdx.x),
        r0(Cfg::Map::row(threadIdx.x)), c0(Cfg::Map::col(threadIdx.x)), k0(k0_), k_len(k_len_),
        k_tiles((k_len_ + Shape::BK - 1) / Shape::BK),
        cursor_a(AsyncCopyA::cursor(args_.lda, threadIdx.x)),
        cursor_b(AsyncCopyB::cursor(args_.ldb, threadIdx.x)) {}

  __device__ T* stage_a(int s) const { return smem + s * Tiles::kStageElems; }
  __device__ T* stage_b(int s) const { return smem + s * Tiles::kStageElems + Tiles::kAElems; }

  // Tile kt of A is rows [m0, m0+BM) x cols [k0, k0+BK); of B, rows [k0, k0+BK) x cols [n0, n0+BN).
  __device__ const T* a_tile(int kt) const {
    return args.A + static_cast<long long>(m0) * args.lda + k0 + kt * Shape::BK;
  }
  __device__ const T* b_tile(int kt) const {
    return args.B + static_cast<long long>(k0 + kt * Shape::BK) * args.ldb + n0;
  }
  __device__ int rows_a() const { return min(Shape::BM, args.m - m0); }
  __device__ int cols_b() const { return min(Shape::BN, args.n - n0); }
  __device__ int k_left(int kt) const { return min(Shape::BK, k_len - kt * Shape::BK); }

  // Every k step but a ragged last one is a whole BK deep: passing BK as a constant there lets the
  // compiler drop the per-element k checks from the steady state.
  __device__ bool whole_k_step(int kt) const { return (kt + 1) * Shape::BK <= k_len; }

  __device__ void fetch(Regs& regs, int kt) const {
    if (whole_k_step(kt)) {
      CopyA::fetch(regs.a, a_tile(kt), args.lda, rows_a(), Shape::BK, tid);
      CopyB::fetch(regs.b, b_tile(kt), args.ldb, Shape::BK, cols_b(), tid);
    } else {
      CopyA::fetch(regs.a, a_tile(kt), args.lda, rows_a(), k_left(kt), tid);
      CopyB::fetch(regs.b, b_tile(kt), args.ldb, k_left(kt), cols_b(), tid);
    }
  }
  __device__ void store(const Regs& regs, int s) const {
    CopyA::store(regs.a, stage_a(s), tid);
    CopyB::store(regs.b, stage_b(s), tid);
  }
  // Tile kt into stage s with cp.async. A kt past the last tile copies nothing (with cursors it
  // zero-fills the stage, reading nothing), so pipelines may call it unconditionally.
  __device__ void copy_async(int s, int kt) const {
    if constexpr (AsyncCopyA::kCursor && AsyncCopyB::kCursor) {
      const int k_in = k_len - kt * Shape::BK;  // k columns of A / rows of B left from this tile on
      AsyncCopyA::copy_async(stage_a(s), a_tile(kt), args.lda, rows_a(), k_in, tid, cursor_a);
      AsyncCopyB::copy_async(stage_b(s), b_tile(kt), args.ldb, k_in, cols_b(), tid, cursor_b);
    } else if (kt >= k_tiles) {
      return;
    } else if (whole_k_step(kt)) {
      AsyncCopyA::copy_async(stage_a(s), a_tile(kt), args.lda, rows_a(), Shape::BK, tid);
      AsyncCopyB::copy_async(stage_b(s), b_tile(kt), args.ldb, Shape::BK, cols_b(), tid);
    } else {
      AsyncCopyA::copy_async(stage_a(s), a_tile(kt), args.lda, rows_a(), k_left(kt), tid);
      AsyncCopyB::copy_async(stage_b(s), b_tile(kt), args.ldb, k_left(kt), cols_b(), tid);
    }
  }
  // The math one step at a time, for pipelines that schedule fragment loads themselves.
  using Math = typename Cfg::Math;
  using Fragment = typename Math::template Fragment<T, Shape, typename Cfg::Map>;
  static constexpr int kMathSteps = Shape::BK / Math::template kKPerStep<T>;
  __device__ void load_fragment(int s, int step, Fragment& f) const {
    Math::template load<T, Shape, typename Cfg::Map, typename Tiles::A, typename Tiles::B>(f, stage_a(s), stage_b(s),
                                                                                            step, r0, c0);
  }
  template <class Acc>
  __device__ void multiply(const Fragment& f, Acc& acc) const {
    Math::template multiply<T, Shape, typename Cfg::Map>(f, acc);
  }

  // The math over stage s; during() runs inside it, after the first fragments are loaded.
  template <class Acc, class During>
  __device__ void compute(int s, Acc& acc, During&& during) const {
    Cfg::Math::template run<T, Shape, typename Cfg::Map, typename Tiles::A, typename Tiles::B>(stage_a(s), stage_b(s),
                                                                                                 acc, r0, c0, during);
  }
  template <class Acc>
  __device__ void compute(int s, Acc& acc) const {
    compute(s, acc, [] {});
  }
};

// Split-K epilogue: C += alpha * partial, after the host's beta * C pass.
template <class T, class Shape, class Map, int FM, int FN>
__device__ void atomic_accumulate(const T (&acc)[FM][FN], const GemmArgs<T>& args, int m0, int n0, int r0, int c0) {
#pragma unroll
  for (int i = 0; i < FM; ++i) {
    const int row = m0 + r0 + (i / Shape::TM) * Map::kGroupStrideM + i % Shape::TM;
    if (row >= args.m) continue;
#pragma unroll
    for (int j = 0; j < FN; ++j) {
      const int col = n0 + c0 + (j / Shape::TN) * Map::kGroupStrideN + j % Shape::TN;
      if (col < args.n) atomicAdd(args.C + static_cast<long long>(row) * args.ldc + col, args.alpha * acc[i][j]);
    }
  }
}

template <class T, class Cfg, bool kVec>
__global__ void __launch_bounds__(Cfg::kThreads) tiled_gemm_kernel(const GemmArgs<T> args) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  using Shape = typename Cfg::Shape;
  using Map = typename Cfg::Map;

  const int tiles_m = (args.m + Shape::BM - 1) / Shape::BM;
  const int tiles_n = (args.n + Shape::BN - 1) / Shape::BN;
  // With split-K, consecutive groups of tiles_m * tiles_n blocks take consecutive k slices.
  const int tiles = tiles_m * tiles_n;
  const int split = static_cast<int>(blockIdx.x) / tiles;
  int tile_m, tile_n;
  Cfg::Raster::tile(static_cast<int>(blockIdx.x) - split * tiles, tiles_m, tiles_n, tile_m, tile_n);
  constexpr int kSplits = Cfg::KSplit::kSplits;
  const int k_per_split = kSplits == 1 ? args.k : ((args.k + kSplits - 1) / kSplits + Shape::BK - 1) / Shape::BK * Shape::BK;
  const int k0 = split * k_per_split;
  const int k_len = max(0, min(args.k - k0, k_per_split));

  Mainloop<T, Cfg, kVec> ml(args, reinterpret_cast<T*>(smem_bytes), tile_m * Shape::BM, tile_n * Shape::BN, k0,
                            k_len);

  constexpr int FM = Map::kGroupsM * Shape::TM;
  constexpr int FN = Map::kGroupsN * Shape::TN;
  T acc[FM][FN];
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j) acc[i][j] = T(0);

  Cfg::Pipeline::run(ml, acc);
  if constexpr (kSplits == 1) {
    Cfg::Epilogue::template run<T, Shape, Map, kVec>(acc, args, ml.m0, ml.n0, ml.r0, ml.c0);
  } else {
    atomic_accumulate<T, Shape, Map>(acc, args, ml.m0, ml.n0, ml.r0, ml.c0);
  }
}

}  // namespace gemm::detail
