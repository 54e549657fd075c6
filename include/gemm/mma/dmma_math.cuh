#pragma once
// DmmaMath: fp64 on the FP64 tensor cores (DMMA, sm_80 and newer): mma.m8n8k4.f64 on sm_80 and
// mma.m16n8k4.f64 on sm_90 (twice the work per instruction, as the H100's FP64 tensor cores do twice
// the A100's per SM; the fragments are the same, two 8-row tiles form one 16-row tile).
//
// A lane's A fragment is one double, A[g][t], and its B fragment one double, B[t][g] (g = lane / 4,
// t = lane % 4): the operand's m (or n) index is g and its k index t, whichever operand and however
// it is stored. So both operands load the same way, with 64-bit shared loads from a PairSwizzle tile.
// A 64-bit load is served in two halves of 16 lanes (g = 0..3 and 4..7 with t = 0..3): four rows (or,
// MN-major, four k rows) each reading two adjacent 16-byte chunks, which the swizzle spreads over all
// 32 banks. ldmatrix cannot help here: it splits rows at 32 bits.
//
// A warp owns WM x WN (WM/8 x WN/8 tiles of 8x8, two accumulators each); one k step is 4 deep.
// With 64 x 32 warp tiles that is 64 accumulators (128 registers) per thread and, per k step,
// 12 fragment loads for 32 m8n8k4 (sm_90: 16 m16n8k4) DMMAs.
#include <string>
#include <type_traits>
#include "../ptx/mma.cuh"
#include "../types.cuh"
#include "math_warp.cuh"
#include "smem_layout.cuh"

namespace gemm {

struct DmmaMath {
  static std::string describe() { return "DmmaMath<m8n8k4.f64>"; }

  template <class T, class Out>
  static constexpr bool kServes = std::is_same_v<T, double> && std::is_same_v<Out, double>;

  template <class T, class Tile, class Warps, class Layouts>
  struct Warp : mma::WarpShape<double, Tile, Warps, Layouts, PairSwizzle, PairSwizzle> {
    using Base = typename Warp::WarpShape;
    using Base::BK, Base::kAKMajor, Base::kBKMajor, Base::WM, Base::WN;
    using typename Base::StageA, typename Base::StageB;
    static constexpr int kK = 4;
    static_assert(WM % 16 == 0 && WN % 8 == 0,
                  "DmmaMath: the warp tile must be a multiple of 16 x 8 (one m16n8k4 DMMA on sm_90, two m8n8k4 "
                  "on sm_80); change WarpTile<WM, WN>.");
    static_assert(BK % kK == 0, "DmmaMath: a stage's k depth must be a whole number of k steps of 4.");
    static constexpr int MT = WM / 8;
    static constexpr int NT = WN / 8;
    static constexpr int kEpilogueBytesPerWarp = 0;

    struct Fragment {
      double a[MT];
      double b[NT];
    };
    struct Accumulators {
      double d[MT][NT][2];
    };

    // A lane's element of A tile mi at k step `step` is (m g, k t) of that tile, in the layout
    // (lane position) + (dr, dc) with constant dr, dc (LaneCursor); B's likewise with n for m.
    //   K-major: row m (n), chunk k / 2: lane (w0 + g, t / 2, byte 8 (t % 2)), access (8 i, 2 step);
    //   MN-major: row k, chunk m / 2: lane (t, (w0 + g) / 2, byte 8 (g % 2)), access (4 step, 4 i).
    template <bool kKMajor>
    __host__ __device__ static LanePosition lane_position(int w0, int lane) {
      if constexpr (kKMajor) return {w0 + lane / 4, (lane % 4) / 2, (lane % 2) * 8};
      else return {lane % 4, (w0 + lane / 4) / 2, (lane / 4) % 2 * 8};
    }
    template <bool kKMajor>
    __host__ __device__ static constexpr int dr(int i, int step) { return kKMajor ? 8 * i : kK * step; }
    template <bool kKMajor>
    __host__ __device__ static constexpr int dc(int i, int step) { return kKMajor ? 2 * step : 4 * i; }

    LaneCursor<typename StageA::Layout> a_cursor;
    LaneCursor<typename StageB::Layout> b_cursor;
    int wm0, wn0, lane;

    __device__ Warp(int wm0_, int wn0_, int lane_)
        : a_cursor(lane_position<kAKMajor>(wm0_, lane_)), b_cursor(lane_position<kBKMajor>(wn0_, lane_)),
          wm0(wm0_), wn0(wn0_), lane(lane_) {}

    __device__ static void zero(Accumulators& acc) { mma::fill(acc.d, 0.0); }

    __device__ void load(Fragment& f, const char* a_tile, const char* b_tile, int step) const {
#pragma unroll
      for (int mi = 0; mi < MT; ++mi)
        f.a[mi] = *reinterpret_cast<const double*>(a_tile + a_cursor(dr<kAKMajor>(mi, step), dc<kAKMajor>(mi, step)));
#pragma unroll
      for (int nj = 0; nj < NT; ++nj)
        f.b[nj] = *reinterpret_cast<const double*>(b_tile + b_cursor(dr<kBKMajor>(nj, step), dc<kBKMajor>(nj, step)));
    }

    // 8x8 tiles 2p and 2p + 1 (rows g and g + 8 of a 16-row tile) go to one m16n8k4 on sm_90.
    __device__ static void multiply(const Fragment& f, Accumulators& acc) {
#pragma unroll
      for (int p = 0; p < MT / 2; ++p)
#pragma unroll
        for (int jj = 0; jj < NT; ++jj) {
          const int nj = p % 2 ? NT - 1 - jj : jj;
          ptx::mma_m16n8k4_f64(acc.d[2 * p][nj], acc.d[2 * p + 1][nj], f.a[2 * p], f.a[2 * p + 1], f.b[nj]);
        }
    }

    __host__ __device__ static int acc_row(int wm0, int lane, int mi) { return wm0 + 8 * mi + lane / 4; }
    __host__ __device__ static int acc_col(int wn0, int lane, int nj, int r) { return wn0 + 8 * nj + 2 * (lane % 4) + r; }

    template <class Args>
    __device__ void store(const Accumulators& acc, const Args& args, int m0, int n0, char*) const {
      mma::store_pairs(args, m0, n0, acc.d, [&](int mi, int) { return acc_row(wm0, lane, mi); },
                       [&](int nj) { return acc_col(wn0, lane, nj, 0); });
    }
  };
};

}  // namespace gemm
