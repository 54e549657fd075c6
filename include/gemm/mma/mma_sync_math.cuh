#pragma once
// MmaSyncMath: warp-level mma.sync on tensor cores, fragments loaded with ldmatrix.
//
//   bf16, fp16: mma.m16n8k16, fp32 accumulators. Each operand's fragments come from ldmatrix.x4
//               (four 8x8 matrices per instruction: one 16x16 A fragment or two 16x8 B fragments):
//               the plain form where the operand is stored K-major, .trans where it is stored
//               MN-major. Both read LdmatrixSwizzle tiles without bank conflicts.
//   tf32:       mma.m16n8k8. K-major operands load with the plain ldmatrix (a 16-byte row is four
//               tf32, and the fragment layout is the b16 one at 32-bit granularity); ldmatrix has no
//               32-bit .trans, so MN-major operands load element by element (32-bit shared loads
//               from a PairSwizzle tile, conflict-free). Every element is rounded to tf32 (cvt.rna)
//               before the mma.
//   tf32x3:     3xTF32 (fp32 accuracy): fragments load as tf32's do, unrounded, and split in registers
//               (detail/tf32_split.cuh). Per mma tile and k step, a_lo b_hi + a_hi b_lo + a_hi b_hi
//               go through the tensor cores into a zeroed sum; it is added in fp32 to the stage's
//               partial sums, which the stage's last step adds to the accumulators. The tensor
//               cores' own accumulation truncates, so chains of mmas stay short (3); the adds in
//               two levels keep each chain of fp32 adds short too (BK / 8 per stage, k / BK across
//               stages; MmaPolicy slices k beyond 4096). Measured on the H100 against cuBLAS SGEMM's
//               error: one level of adds per k step, 3.7x at k = 16384; partial sums kept in the
//               tensor cores over a stage, 2.2x at k = 64. Two sets of accumulators: warp tiles of at
//               most 32 x 64. No scratch memory.
//
// A warp owns a WM x WN tile (WM/16 x WN/8 mma tiles, 4 fp32 accumulators each); one k step is
// 16 (tf32: 8) deep. See ptx/mma.cuh for the fragment layouts. Each lane's shared addresses are a few
// base registers plus constants (LaneCursor); the __host__ __device__ functions that define them are
// replayed by the host tests against the PTX fragment layouts and checked for bank conflicts.
#include <cstdint>
#include <string>
#include <type_traits>
#include "../detail/launch.cuh"
#include "../detail/tf32_split.cuh"
#include "../ptx/cp_async.cuh"
#include "../ptx/mma.cuh"
#include "../types.cuh"
#include "math_warp.cuh"
#include "smem_layout.cuh"

namespace gemm {

struct MmaSyncMath {
  static std::string describe() { return "MmaSyncMath<ldmatrix,m16n8k16|tf32:m16n8k8|tf32x3:3xm16n8k8>"; }

  // bf16 and fp16 with C in the input type or float; tf32 and tf32x3 with float C. Never plain
  // float: strict fp32 must not silently become TF32.
  template <class T, class Out>
  static constexpr bool kServes = (is_16bit<T> && is_supported_output<T, Out>) ||
                                  ((std::is_same_v<T, tf32> || std::is_same_v<T, tf32x3>) && std::is_same_v<Out, float>);

  // tf32 stored MN-major is read element by element (PairSwizzle tiles); everything else with
  // ldmatrix (LdmatrixSwizzle).
  template <class T, bool kKMajor>
  static constexpr bool kScalar = sizeof(storage_t<T>) != 2 && !kKMajor;
  template <class T, bool kKMajor>
  using SwizzleFor = std::conditional_t<kScalar<T, kKMajor>, PairSwizzle, LdmatrixSwizzle>;

  template <class T, class Tile, class Warps, class Layouts>
  struct Warp : mma::WarpShape<storage_t<T>, Tile, Warps, Layouts, SwizzleFor<T, mma::a_k_major<Layouts>>,
                              SwizzleFor<T, mma::b_k_major<Layouts>>> {
    using Base = typename Warp::WarpShape;
    using Base::BK, Base::kAKMajor, Base::kBKMajor, Base::WM, Base::WN;
    using typename Base::In, typename Base::StageA, typename Base::StageB;
    static constexpr bool k16Bit = sizeof(In) == 2;
    static constexpr bool kSplit = std::is_same_v<T, tf32x3>;  // three TF32 products per step
    static constexpr int kK = k16Bit ? 16 : 8;  // k per mma
    static constexpr bool kAScalar = kScalar<T, kAKMajor>;
    static constexpr bool kBScalar = kScalar<T, kBKMajor>;
    static_assert(WM % 16 == 0 && WN % 16 == 0,
                  "MmaSyncMath: the warp tile must be a multiple of 16 x 16 (an mma is 16 rows of A, and one "
                  "ldmatrix.x4 loads the B fragments of 16 columns); change WarpTile<WM, WN>.");
    static_assert(BK % kK == 0, "MmaSyncMath: a stage's k depth must be a whole number of mma k steps.");
    static constexpr int MT = WM / 16;  // mma tiles along m
    static constexpr int NT = WN / 8;   // along n
    static constexpr int kEpilogueBytesPerWarp = 0;  // results go straight from registers to C

    static constexpr int kSteps = BK / kK;  // k steps per stage
    struct Fragment {
      std::uint32_t a[MT][4];
      std::uint32_t b[NT][2];
      int step;  // which k step of its stage (3xTF32 adds its partial sums at the last)
    };
    struct Accumulators {
      float d[MT][NT][4];
      float part[kSplit ? MT : 1][kSplit ? NT : 1][4];  // 3xTF32: this stage's sums (else unused)
    };

    // --- Addresses ------------------------------------------------------------------------------------
    // Each operand's accesses are (lane position) + (dr, dc) with compile-time dr, dc (LaneCursor):
    //   A K-major, ldmatrix.x4 per tile mi: lanes 0-15 hand in rows m 0-15 at k chunk 0, lanes 16-31
    //     the same rows at chunk 1 (a[0..3] = rows 0-7 / 8-15 x k 0-7 / 8-15);
    //   A MN-major (16-bit), ldmatrix.x4.trans: rows k; matrices (k 0-7, m 0-7), (k 0-7, m 8-15),
    //     (k 8-15, m 0-7), (k 8-15, m 8-15);
    //   A MN-major (tf32), register r of tile mi: element (m g + 8 (r % 2), k t + 4 (r / 2));
    //   B K-major, ldmatrix.x4 per pair p of n tiles: matrices (n 0-7, k chunk 0), (n 0-7, chunk 1),
    //     (n 8-15, chunk 0), (n 8-15, chunk 1) -> b[2p][0], b[2p][1], b[2p+1][0], b[2p+1][1];
    //   B MN-major (16-bit), .trans: rows k; matrices (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15),
    //     (k 8-15, n 8-15), the same registers;
    //   B MN-major (tf32), register r of tile nj: element (n g, k t + 4 r).
    // (g = lane / 4, t = lane % 4; m, n relative to the warp tile and k to the k step.)
    __host__ __device__ static LanePosition a_lane(int wm0, int lane) {
      if constexpr (kAKMajor) return {wm0 + lane % 16, lane / 16, 0};
      else if constexpr (!kAScalar) return {lane % 8 + 8 * (lane / 16), wm0 / StageA::kElemsPerChunk + (lane / 8) % 2, 0};
      else return {lane % 4, (wm0 + lane / 4) / 4, (lane / 4) % 4 * 4};
    }
    __host__ __device__ static constexpr int a_dr(int mi, int step, int r) {
      return kAKMajor ? 16 * mi : kAScalar ? kK * step + 4 * (r / 2) : kK * step;
    }
    __host__ __device__ static constexpr int a_dc(int mi, int step, int r) {
      return kAKMajor ? 2 * step : kAScalar ? 4 * mi + 2 * (r % 2) : 2 * mi;
    }
    __host__ __device__ static LanePosition b_lane(int wn0, int lane) {
      if constexpr (kBKMajor) return {wn0 + lane % 8 + 8 * (lane / 16), (lane / 8) % 2, 0};
      else if constexpr (!kBScalar) return {lane % 8 + 8 * ((lane / 8) % 2), wn0 / StageB::kElemsPerChunk + lane / 16, 0};
      else return {lane % 4, (wn0 + lane / 4) / 4, (lane / 4) % 4 * 4};
    }
    // p: the pair of n tiles (ldmatrix) or the n tile (scalar); r: the register (scalar).
    __host__ __device__ static constexpr int b_dr(int p, int step, int r) {
      return kBKMajor ? 16 * p : kBScalar ? kK * step + 4 * r : kK * step;
    }
    __host__ __device__ static constexpr int b_dc(int p, int step, int r) {
      return kBKMajor ? 2 * step : kBScalar ? 2 * p : 2 * p;
    }

    LaneCursor<typename StageA::Layout> a_cursor;
    LaneCursor<typename StageB::Layout> b_cursor;
    int wm0, wn0, lane;  // the warp tile's first row and column in the block tile; this lane

    __device__ Warp(int wm0_, int wn0_, int lane_)
        : a_cursor(a_lane(wm0_, lane_)), b_cursor(b_lane(wn0_, lane_)), wm0(wm0_), wn0(wn0_), lane(lane_) {}

    // --- The math -----------------------------------------------------------------------------------
    __device__ static void zero(Accumulators& acc) {
      mma::fill(acc.d, 0.0f);
      if constexpr (kSplit) mma::fill(acc.part, 0.0f);
    }

    // The fragments of k step `step` from one stage's A and B tiles.
    __device__ void load(Fragment& f, const char* a_tile, const char* b_tile, int step) const {
      f.step = step;
      [[maybe_unused]] const std::uint32_t a_base = detail::smem_address(a_tile);
      [[maybe_unused]] const std::uint32_t b_base = detail::smem_address(b_tile);
#pragma unroll
      for (int mi = 0; mi < MT; ++mi) {
        if constexpr (kAScalar) {
#pragma unroll
          for (int r = 0; r < 4; ++r)
            f.a[mi][r] = *reinterpret_cast<const std::uint32_t*>(a_tile + a_cursor(a_dr(mi, step, r), a_dc(mi, step, r)));
        } else if constexpr (kAKMajor) {
          ptx::ldmatrix_x4(f.a[mi], a_base + a_cursor(a_dr(mi, step, 0), a_dc(mi, step, 0)));
        } else {
          ptx::ldmatrix_x4_trans(f.a[mi], a_base + a_cursor(a_dr(mi, step, 0), a_dc(mi, step, 0)));
        }
      }
      if constexpr (kBScalar) {
#pragma unroll
        for (int nj = 0; nj < NT; ++nj)
#pragma unroll
          for (int r = 0; r < 2; ++r)
            f.b[nj][r] = *reinterpret_cast<const std::uint32_t*>(b_tile + b_cursor(b_dr(nj, step, r), b_dc(nj, step, r)));
      } else {
#pragma unroll
        for (int p = 0; p < NT / 2; ++p) {
          std::uint32_t x[4];
          if constexpr (kBKMajor)
            ptx::ldmatrix_x4(x, b_base + b_cursor(b_dr(p, step, 0), b_dc(p, step, 0)));
          else
            ptx::ldmatrix_x4_trans(x, b_base + b_cursor(b_dr(p, step, 0), b_dc(p, step, 0)));
          f.b[2 * p][0] = x[0], f.b[2 * p][1] = x[1], f.b[2 * p + 1][0] = x[2], f.b[2 * p + 1][1] = x[3];
        }
      }
      if constexpr (!k16Bit && !kSplit) {  // fp32 bits in shared memory: round them to tf32
#pragma unroll
        for (int mi = 0; mi < MT; ++mi)
#pragma unroll
          for (int r = 0; r < 4; ++r) f.a[mi][r] = ptx::to_tf32(f.a[mi][r]);
#pragma unroll
        for (int nj = 0; nj < NT; ++nj)
#pragma unroll
          for (int r = 0; r < 2; ++r) f.b[nj][r] = ptx::to_tf32(f.b[nj][r]);
      }
    }

    // acc += this step's products. The n order snakes so that consecutive mmas share an operand.
    __device__ static void multiply(const Fragment& f, Accumulators& acc) {
      if constexpr (kSplit) {
        multiply_split(f, acc);
      } else {
#pragma unroll
        for (int mi = 0; mi < MT; ++mi)
#pragma unroll
          for (int jj = 0; jj < NT; ++jj) {
            const int nj = mi % 2 ? NT - 1 - jj : jj;
            if constexpr (std::is_same_v<In, __nv_bfloat16>)
              ptx::mma_m16n8k16_bf16(acc.d[mi][nj], f.a[mi], f.b[nj]);
            else if constexpr (std::is_same_v<In, __half>)
              ptx::mma_m16n8k16_f16(acc.d[mi][nj], f.a[mi], f.b[nj]);
            else
              ptx::mma_m16n8k8_tf32(acc.d[mi][nj], f.a[mi], f.b[nj]);
          }
      }
    }

    // 3xTF32: split each fragment register once (A all at once, B one n tile at a time, to hold
    // fewer registers); per tile three mmas into a zeroed sum, added to the stage's partial sums,
    // which the stage's last step adds to the accumulators.
    __device__ static void multiply_split(const Fragment& f, Accumulators& acc) {
      std::uint32_t a_hi[MT][4], a_lo[MT][4], a_hf[MT][4];
#pragma unroll
      for (int mi = 0; mi < MT; ++mi)
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const detail::Tf32Parts p = detail::split_tf32(__uint_as_float(f.a[mi][r]));
          a_hi[mi][r] = __float_as_uint(p.hi), a_lo[mi][r] = __float_as_uint(p.lo), a_hf[mi][r] = __float_as_uint(p.hi_finite);
        }
#pragma unroll
      for (int nj = 0; nj < NT; ++nj) {
        std::uint32_t b_hi[2], b_lo[2], b_hf[2];
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          const detail::Tf32Parts p = detail::split_tf32(__uint_as_float(f.b[nj][r]));
          b_hi[r] = __float_as_uint(p.hi), b_lo[r] = __float_as_uint(p.lo), b_hf[r] = __float_as_uint(p.hi_finite);
        }
#pragma unroll
        for (int mi = 0; mi < MT; ++mi) {
          float step_sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
          ptx::mma_m16n8k8_tf32(step_sum, a_lo[mi], b_hf);  // the small terms first
          ptx::mma_m16n8k8_tf32(step_sum, a_hf[mi], b_lo);
          ptx::mma_m16n8k8_tf32(step_sum, a_hi[mi], b_hi);
#pragma unroll
          for (int r = 0; r < 4; ++r) acc.part[mi][nj][r] += step_sum[r];
        }
      }
      if (f.step == kSteps - 1) {  // (a constant once the pipeline's step loop is unrolled)
#pragma unroll
        for (int mi = 0; mi < MT; ++mi)
#pragma unroll
          for (int nj = 0; nj < NT; ++nj)
#pragma unroll
            for (int r = 0; r < 4; ++r) acc.d[mi][nj][r] += acc.part[mi][nj][r], acc.part[mi][nj][r] = 0.0f;
      }
    }

    // Where accumulator d[mi][nj][r] lies in the block tile.
    __host__ __device__ static int acc_row(int wm0, int lane, int mi, int r) { return wm0 + 16 * mi + lane / 4 + 8 * (r / 2); }
    __host__ __device__ static int acc_col(int wn0, int lane, int nj, int r) { return wn0 + 8 * nj + 2 * (lane % 4) + r % 2; }

    // C = alpha * acc + beta * C for the warp's tile of the block tile at (m0, n0).
    template <class Args>
    __device__ void store(const Accumulators& acc, const Args& args, int m0, int n0, char*) const {
      mma::store_pairs(args, m0, n0, acc.d, [&](int mi, int h) { return acc_row(wm0, lane, mi, 2 * h); },
                       [&](int nj) { return acc_col(wn0, lane, nj, 0); });
    }
  };
};

}  // namespace gemm
