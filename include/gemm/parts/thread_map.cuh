#pragma once
// Thread maps: which elements of the block tile each thread accumulates.
//
// Every map gives a thread a fragment of kGroupsM x kGroupsN groups; a group is TM x TN contiguous
// elements of C. Group (gm, gn) of thread tid starts at row(tid) + gm * kGroupStrideM and
// col(tid) + gn * kGroupStrideN of the block tile. The math and epilogue steps only use this interface.
#include <string>
#include "../detail/describe.cuh"

namespace gemm {

// The tutorials' 2D block tiling: threads form a (BM/TM) x (BN/TN) grid, one TM x TN tile each.
struct BlockThreadMap {
  static std::string describe() { return "BlockThreadMap"; }

  template <class Shape>
  struct Map {
    static constexpr int kThreadsN = Shape::BN / Shape::TN;
    static constexpr int kThreads = (Shape::BM / Shape::TM) * kThreadsN;
    static constexpr int kGroupsM = 1, kGroupsN = 1;
    static constexpr int kGroupStrideM = 0, kGroupStrideN = 0;
    static_assert(kThreads <= 1024, "BlockThreadMap: (BM/TM)*(BN/TN) threads exceed 1024; raise TM or TN.");

    __device__ static int row(int tid) { return (tid / kThreadsN) * Shape::TM; }
    __device__ static int col(int tid) { return (tid % kThreadsN) * Shape::TN; }
  };
};

// Warp tiling: the block tile is cut into WM x WN warp tiles; each warp walks its tile in
// WMITER x WNITER sub-tiles, and inside a sub-tile its 32 lanes form a grid of TM x TN thread tiles.
// Neighbouring lanes read neighbouring shared-memory words, so fragment loads are conflict-free,
// and the warp's working set stays small enough to live in registers.
template <int WM, int WN, int WMITER, int WNITER>
struct WarpThreadMap {
  static std::string describe() { return detail::templated("WarpThreadMap", WM, WN, WMITER, WNITER); }

  template <class Shape>
  struct Map {
    static_assert(Shape::BM % WM == 0, "WarpThreadMap: BM must be a multiple of the warp tile's WM.");
    static_assert(Shape::BN % WN == 0, "WarpThreadMap: BN must be a multiple of the warp tile's WN.");
    static_assert(WM % WMITER == 0 && WN % WNITER == 0, "WarpThreadMap: WM must be a multiple of WMITER and WN of WNITER.");
    static constexpr int kSubM = WM / WMITER;
    static constexpr int kSubN = WN / WNITER;
    static_assert(kSubM % Shape::TM == 0 && kSubN % Shape::TN == 0,
                  "WarpThreadMap: each warp sub-tile (WM/WMITER x WN/WNITER) must be a multiple of TM x TN.");
    static constexpr int kLanesM = kSubM / Shape::TM;
    static constexpr int kLanesN = kSubN / Shape::TN;
    static_assert(kLanesM * kLanesN == 32,
                  "WarpThreadMap: a warp sub-tile must hold exactly 32 thread tiles: (WM/WMITER/TM) * (WN/WNITER/TN) == 32.");
    static constexpr int kWarpsN = Shape::BN / WN;
    static constexpr int kThreads = (Shape::BM / WM) * kWarpsN * 32;
    static_assert(kThreads <= 1024, "WarpThreadMap: more than 32 warps per block; use larger warp tiles.");
    static constexpr int kGroupsM = WMITER, kGroupsN = WNITER;
    static constexpr int kGroupStrideM = kSubM, kGroupStrideN = kSubN;

    __device__ static int row(int tid) {
      const int warp = tid / 32, lane = tid % 32;
      return (warp / kWarpsN) * WM + (lane / kLanesN) * Shape::TM;
    }
    __device__ static int col(int tid) {
      const int warp = tid / 32, lane = tid % 32;
      return (warp % kWarpsN) * WN + (lane % kLanesN) * Shape::TN;
    }
  };
};

}  // namespace gemm
