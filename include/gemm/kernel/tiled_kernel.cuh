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
  using CopyA = TileCopy<T, Shape::BM, Shape::BK, Cfg::kLoadWidth, Cfg::kThreads, typename Tiles::A, kVec>;
  using CopyB = TileCopy<T, Shape::BK, Shape::BN, Cfg::kLoadWidth, Cfg::kThreads, typename Tiles::B, kVec>;
  struct Regs {
    typename CopyA::Regs a;
    typename CopyB::Regs b;
  };

  const GemmArgs<T>& args;
  T* smem;
  int m0, n0, tid, r0, c0, k_tiles;

  __device__ Mainloop(const GemmArgs<T>& args_, T* smem_, int m0_, int n0_)
      : args(args_), smem(smem_), m0(m0_), n0(n0_), tid(threadIdx.x),
        r0(Cfg::Map::row(threadIdx.x)), c0(Cfg::Map::col(threadIdx.x)),
        k_tiles((args_.k + Shape::BK - 1) / Shape::BK) {}

  __device__ T* stage_a(int s) const { return smem + s * Tiles::kStageElems; }
  __device__ T* stage_b(int s) const { return smem + s * Tiles::kStageElems + Tiles::kAElems; }

  // Tile kt of A is rows [m0, m0+BM) x cols [k0, k0+BK); of B, rows [k0, k0+BK) x cols [n0, n0+BN).
  __device__ const T* a_tile(int kt) const { return args.A + static_cast<long long>(m0) * args.lda + kt * Shape::BK; }
  __device__ const T* b_tile(int kt) const {
    return args.B + static_cast<long long>(kt) * Shape::BK * args.ldb + n0;
  }
  __device__ int rows_a() const { return min(Shape::BM, args.m - m0); }
  __device__ int cols_b() const { return min(Shape::BN, args.n - n0); }
  __device__ int k_left(int kt) const { return min(Shape::BK, args.k - kt * Shape::BK); }

  __device__ void fetch(Regs& regs, int kt) const {
    CopyA::fetch(regs.a, a_tile(kt), args.lda, rows_a(), k_left(kt), tid);
    CopyB::fetch(regs.b, b_tile(kt), args.ldb, k_left(kt), cols_b(), tid);
  }
  __device__ void store(const Regs& regs, int s) const {
    CopyA::store(regs.a, stage_a(s), tid);
    CopyB::store(regs.b, stage_b(s), tid);
  }
  __device__ void copy_async(int s, int kt) const {
    CopyA::copy_async(stage_a(s), a_tile(kt), args.lda, rows_a(), k_left(kt), tid);
    CopyB::copy_async(stage_b(s), b_tile(kt), args.ldb, k_left(kt), cols_b(), tid);
  }
  template <class Acc>
  __device__ void compute(int s, Acc& acc) const {
    Cfg::Math::template run<T, Shape, typename Cfg::Map, typename Tiles::A, typename Tiles::B>(stage_a(s), stage_b(s),
                                                                                                 acc, r0, c0);
  }
};

template <class T, class Cfg, bool kVec>
__global__ void __launch_bounds__(Cfg::kThreads) tiled_gemm_kernel(const GemmArgs<T> args) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  using Shape = typename Cfg::Shape;
  using Map = typename Cfg::Map;

  const int tiles_m = (args.m + Shape::BM - 1) / Shape::BM;
  const int tiles_n = (args.n + Shape::BN - 1) / Shape::BN;
  int tile_m, tile_n;
  Cfg::Raster::tile(blockIdx.x, tiles_m, tiles_n, tile_m, tile_n);

  Mainloop<T, Cfg, kVec> ml(args, reinterpret_cast<T*>(smem_bytes), tile_m * Shape::BM, tile_n * Shape::BN);

  constexpr int FM = Map::kGroupsM * Shape::TM;
  constexpr int FN = Map::kGroupsN * Shape::TN;
  T acc[FM][FN];
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j) acc[i][j] = T(0);

  Cfg::Pipeline::run(ml, acc);
  Cfg::Epilogue::template run<T, Shape, Map, kVec>(acc, args, ml.m0, ml.n0, ml.r0, ml.c0);
}

}  // namespace gemm::detail
