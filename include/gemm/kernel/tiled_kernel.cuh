#pragma once
// The composed kernel behind every tiled policy. It owns nothing of its own: the tile shape,
// thread map, loader, shared layout, pipeline, math and epilogue parts each do one job, and this
// file only wires them together for one block tile of C.
#include <type_traits>
#include "../args.cuh"
#include "../detail/batch.cuh"
#include "../parts/epilogue.cuh"
#include "../parts/k_split.cuh"
#include "../parts/loader.cuh"
#include "../parts/targets.cuh"
#include "../ptx/grid_dependency.cuh"

namespace gemm::detail {

// Everything one block needs for its k loop; the pipeline drives it.
// Args: GemmArgs<In, Out>; shared memory holds Cfg::Acc (In converted on the way for 16-bit inputs);
// Layouts: detail::Ops<op_a, op_b>, the storage of A and B.
template <class Args, class Cfg, bool kVec, class Layouts>
struct Mainloop {
  using In = typename Args::Element;
  using T = typename Cfg::Acc;
  using Shape = typename Cfg::Shape;
  using Tiles = typename Cfg::Tiles;
  static constexpr bool kTA = Layouts::a == Op::T;
  static constexpr bool kTB = Layouts::b == Op::T;
  // Chunk widths. Misaligned input moves element by element, with neighbouring threads on neighbouring
  // elements (coalesced). cp.async cannot transpose a 16-byte chunk, so a layout that scatters a chunk
  // (row-major A into a transposed tile, say) is filled element by element too: then a warp's 4-byte
  // copies read 4 rows of 8 consecutive k and write 32 different banks, instead of 16 rows and 2-way
  // bank conflicts.
  static constexpr int kFetchWidth = kVec ? Cfg::kLoadWidth : 1;
  template <class Layout, bool kTransposed>
  static constexpr int kAsyncWidth =
      kVec && (kTransposed ? Layout::kVecAlongR : Layout::kVecAlongC) ? Cfg::kLoadWidth : 1;
  using CopyA = TileCopy<In, T, Shape::BM, Shape::BK, kFetchWidth, Cfg::kThreads, typename Tiles::A, kVec, kTA>;
  using CopyB = TileCopy<In, T, Shape::BK, Shape::BN, kFetchWidth, Cfg::kThreads, typename Tiles::B, kVec, kTB>;
  using AsyncCopyA = TileCopy<In, T, Shape::BM, Shape::BK, kAsyncWidth<typename Tiles::A, kTA>, Cfg::kThreads,
                              typename Tiles::A, kVec, kTA>;
  using AsyncCopyB = TileCopy<In, T, Shape::BK, Shape::BN, kAsyncWidth<typename Tiles::B, kTB>, Cfg::kThreads,
                              typename Tiles::B, kVec, kTB>;
  struct Regs {
    typename CopyA::Regs a;
    typename CopyB::Regs b;
  };

  const Args& args;
  T* smem;
  int m0, n0, tid, r0, c0;
  int k0, k_len, k_tiles;  // this block's k range: [k0, k0 + k_len)
  // The cp.async copies' per-thread addresses and edge tests for whole k steps, worked out once.
  typename AsyncCopyA::Cursor cursor_a;
  typename AsyncCopyB::Cursor cursor_b;

  __device__ Mainloop(const Args& args_, T* smem_, int m0_, int n0_, int k0_, int k_len_)
      : args(args_), smem(smem_), m0(m0_), n0(n0_), tid(threadIdx.x),
        r0(Cfg::Map::row(threadIdx.x)), c0(Cfg::Map::col(threadIdx.x)), k0(k0_), k_len(k_len_),
        k_tiles((k_len_ + Shape::BK - 1) / Shape::BK),
        cursor_a(AsyncCopyA::cursor(args_.lda, threadIdx.x)),
        cursor_b(AsyncCopyB::cursor(args_.ldb, threadIdx.x)) {}

  __device__ T* stage_a(int s) const { return smem + s * Tiles::kStageElems; }
  __device__ T* stage_b(int s) const { return smem + s * Tiles::kStageElems + Tiles::kAElems; }

  // Tile kt of op(A) is rows [m0, m0+BM) x cols [kk, kk+BK) with kk = k0 + kt*BK; of op(B), rows
  // [kk, kk+BK) x cols [n0, n0+BN). These give the stored tile's origin and, for a k extent kx, its
  // stored rows and columns (a transposed operand stores k along its rows).
  __device__ const In* a_tile(int kt) const {
    const long long kk = k0 + kt * Shape::BK;
    return args.A + (kTA ? kk * args.lda + m0 : static_cast<long long>(m0) * args.lda + kk);
  }
  __device__ const In* b_tile(int kt) const {
    const long long kk = k0 + kt * Shape::BK;
    return args.B + (kTB ? static_cast<long long>(n0) * args.ldb + kk : kk * args.ldb + n0);
  }
  __device__ int rows_a() const { return min(Shape::BM, args.m - m0); }
  __device__ int cols_b() const { return min(Shape::BN, args.n - n0); }
  __device__ int a_rows(int kx) const { return kTA ? kx : rows_a(); }
  __device__ int a_cols(int kx) const { return kTA ? rows_a() : kx; }
  __device__ int b_rows(int kx) const { return kTB ? cols_b() : kx; }
  __device__ int b_cols(int kx) const { return kTB ? kx : cols_b(); }
  __device__ int k_left(int kt) const { return min(Shape::BK, k_len - kt * Shape::BK); }

  // Every k step but a ragged last one is a whole BK deep: passing BK as a constant there lets the
  // compiler drop the per-element k checks from the steady state.
  __device__ bool whole_k_step(int kt) const { return (kt + 1) * Shape::BK <= k_len; }

  __device__ void fetch(Regs& regs, int kt) const {
    if (whole_k_step(kt)) {
      CopyA::fetch(regs.a, a_tile(kt), args.lda, a_rows(Shape::BK), a_cols(Shape::BK), tid);
      CopyB::fetch(regs.b, b_tile(kt), args.ldb, b_rows(Shape::BK), b_cols(Shape::BK), tid);
    } else {
      const int kx = k_left(kt);
      CopyA::fetch(regs.a, a_tile(kt), args.lda, a_rows(kx), a_cols(kx), tid);
      CopyB::fetch(regs.b, b_tile(kt), args.ldb, b_rows(kx), b_cols(kx), tid);
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
      AsyncCopyA::copy_async(stage_a(s), a_tile(kt), args.lda, a_rows(k_in), a_cols(k_in), tid, cursor_a);
      AsyncCopyB::copy_async(stage_b(s), b_tile(kt), args.ldb, b_rows(k_in), b_cols(k_in), tid, cursor_b);
    } else if (kt >= k_tiles) {
      return;
    } else if (whole_k_step(kt)) {
      AsyncCopyA::copy_async(stage_a(s), a_tile(kt), args.lda, a_rows(Shape::BK), a_cols(Shape::BK), tid);
      AsyncCopyB::copy_async(stage_b(s), b_tile(kt), args.ldb, b_rows(Shape::BK), b_cols(Shape::BK), tid);
    } else {
      AsyncCopyA::copy_async(stage_a(s), a_tile(kt), args.lda, a_rows(k_left(kt)), a_cols(k_left(kt)), tid);
      AsyncCopyB::copy_async(stage_b(s), b_tile(kt), args.ldb, b_rows(k_left(kt)), b_cols(k_left(kt)), tid);
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

// Adds four floats to a 16-byte-aligned address with one vector reduction (sm_90), else element-wise.
__device__ __forceinline__ void atomic_add4(float* p, float a, float b, float c, float d) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(a), "f"(b), "f"(c), "f"(d) : "memory");
#else
  atomicAdd(p, a), atomicAdd(p + 1, b), atomicAdd(p + 2, c), atomicAdd(p + 3, d);
#endif
}

// Split-K / stream-K epilogue: C += alpha * partial, after the host's beta * C pass.
// kVec: C and ldc are 16-byte aligned, so float runs of 4 inside the matrix add as one vector.
template <class T, class Shape, class Map, bool kVec, int FM, int FN, class Args>
__device__ void atomic_accumulate(const T (&acc)[FM][FN], const Args& args, int m0, int n0, int r0, int c0) {
  static_assert(std::is_same_v<typename Args::Output, T>,
                "Split-K and stream-K add partial sums into C, which must hold the accumulator type (float or double).");
  constexpr bool kVector = kVec && sizeof(T) == 4 && Shape::TN % 4 == 0;
#pragma unroll
  for (int i = 0; i < FM; ++i) {
    const int row = m0 + r0 + fragment_row<Shape, Map>(i);
    if (row >= args.m) continue;
    T* c_row = args.C + static_cast<long long>(row) * args.ldc;
#pragma unroll
    for (int j = 0; j < FN; j += kVector ? 4 : 1) {
      const int col = n0 + c0 + fragment_col<Shape, Map>(j);
      if constexpr (kVector) {
        if (col + 4 <= args.n) {
          atomic_add4(reinterpret_cast<float*>(c_row + col), args.alpha * acc[i][j], args.alpha * acc[i][j + 1],
                      args.alpha * acc[i][j + 2], args.alpha * acc[i][j + 3]);
          continue;
        }
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (col + e < args.n) atomicAdd(c_row + col + e, args.alpha * acc[i][j + e]);
      } else {
        if (col < args.n) atomicAdd(c_row + col, args.alpha * acc[i][j]);
      }
    }
  }
}

// One output tile's k range [k0, k0 + k_len): the mainloop, then either the epilogue or (accumulate)
// an atomic add of alpha * partial into C.
template <class Args, class Cfg, bool kVec, class Layouts>
__device__ __forceinline__ void compute_tile(const Args& args, typename Cfg::Acc* smem, int tile, int tiles_m,
                                             int tiles_n, int k0, int k_len, bool accumulate) {
  using T = typename Cfg::Acc;
  using Shape = typename Cfg::Shape;
  using Map = typename Cfg::Map;
  int tile_m, tile_n;
  Cfg::Raster::tile(tile, tiles_m, tiles_n, tile_m, tile_n);
  Mainloop<Args, Cfg, kVec, Layouts> ml(args, smem, tile_m * Shape::BM, tile_n * Shape::BN, k0, k_len);

  constexpr int FM = Map::kGroupsM * Shape::TM;
  constexpr int FN = Map::kGroupsN * Shape::TN;
  T acc[FM][FN];
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j) acc[i][j] = T(0);

  Cfg::Pipeline::run(ml, acc);
  if constexpr (Cfg::KSplit::kSplits > 1 || Cfg::KSplit::kStreamK) {
    if (accumulate) {
      atomic_accumulate<T, Shape, Map, kVec>(acc, args, ml.m0, ml.n0, ml.r0, ml.c0);
      return;
    }
  }
  Cfg::Epilogue::template run<Shape, Map, kVec>(acc, args, ml.m0, ml.n0, ml.r0, ml.c0);
}

template <class Args, class Cfg, bool kVec, class Layouts>
__global__ void __launch_bounds__(Cfg::kThreads) tiled_gemm_kernel(const Args params, const KSchedule sk) {
  if constexpr (!compiled_here<typename Cfg::Targets>()) {
    __trap();  // unreachable: the host launches this only where runs_here<Targets> (parts/targets.cuh)
  } else {
    ptx::wait_for_prior_grid();  // (launched as dependent: ptx/grid_dependency.cuh)
    if (beyond_batch(params)) return;
    decltype(auto) args = block_entry(params);
    extern __shared__ __align__(16) unsigned char smem_bytes[];
    using T = typename Cfg::Acc;
    T* smem = reinterpret_cast<T*>(smem_bytes);
    using Shape = typename Cfg::Shape;
    using KSplit = typename Cfg::KSplit;

    const int tiles_m = (args.m + Shape::BM - 1) / Shape::BM;
    const int tiles_n = (args.n + Shape::BN - 1) / Shape::BN;
    const int tiles = tiles_m * tiles_n;
    const int block = static_cast<int>(blockIdx.x);
    if constexpr (KSplit::kStreamK) {
      // Tile t owns iterations [t * k_iters, (t + 1) * k_iters) of one line; a whole-tile block takes
      // its tile's, a stream-K block an even share of the leftover tiles' (which may span two tiles).
      const int k_iters = (args.k + Shape::BK - 1) / Shape::BK;
      long long it, end;
      if (block < sk.dp_tiles) {
        it = static_cast<long long>(block) * k_iters;
        end = it + k_iters;
      } else {
        const long long first = static_cast<long long>(sk.dp_tiles) * k_iters;
        const long long share = static_cast<long long>(tiles - sk.dp_tiles) * k_iters;
        const int s = block - sk.dp_tiles;
        it = first + share * s / sk.sk_blocks;
        end = first + share * (s + 1) / sk.sk_blocks;
      }
      while (it < end) {  // the same for every thread of the block
        const int tile = static_cast<int>(it / k_iters);
        const int kb = static_cast<int>(it - static_cast<long long>(tile) * k_iters);
        const int ke = static_cast<int>(min(static_cast<long long>(k_iters), kb + (end - it)));
        const int k0 = kb * Shape::BK;
        compute_tile<Args, Cfg, kVec, Layouts>(args, smem, tile, tiles_m, tiles_n, k0, min(args.k, ke * Shape::BK) - k0,
                                   tile >= sk.dp_tiles);
        it += ke - kb;
        __syncthreads();  // the next tile's copies reuse the shared stages
      }
    } else {
      // With split-K, consecutive groups of tiles blocks take consecutive k slices (sk.slices of them).
      constexpr bool kSplit = KSplit::kSplits > 1;
      const int slices = kSplit ? sk.slices : 1;
      const int split = block / tiles;
      const int k_per_split =
          kSplit ? ((args.k + slices - 1) / slices + Shape::BK - 1) / Shape::BK * Shape::BK : args.k;
      const int k0 = split * k_per_split;
      const int k_len = max(0, min(args.k - k0, k_per_split));
      compute_tile<Args, Cfg, kVec, Layouts>(args, smem, block - split * tiles, tiles_m, tiles_n, k0, k_len, kSplit);
    }
  }
}

}  // namespace gemm::detail
