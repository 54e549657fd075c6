#pragma once
// The CUDA-core math step: for each k of the shared tile, load the thread's A column fragment and
// B row fragment into registers and add their outer product to the accumulators. With TM x TN > 1
// each shared-memory load feeds several FMAs, which is the point of register tiling.
#include <string>
#include "../detail/vector.cuh"

namespace gemm {

namespace detail {

// Loads N elements of a run whose element i lies at base[offset(i)]. kVec: the layout keeps aligned
// 16-byte pieces contiguous along this run, so it loads piece by piece with vector loads.
template <class T, int N, bool kVec, class Offset>
__device__ __forceinline__ void load_run(T* dst, const T* base, Offset offset) {
  constexpr int P = kElemsPer16B<T>;
  if constexpr (kVec && N % P == 0) {
#pragma unroll
    for (int p = 0; p < N / P; ++p) {
      const Vector<T, P> piece = *reinterpret_cast<const Vector<T, P>*>(base + offset(p * P));
#pragma unroll
      for (int e = 0; e < P; ++e) dst[p * P + e] = piece.v[e];
    }
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) dst[i] = base[offset(i)];
  }
}

}  // namespace detail

struct OuterProduct {
  static std::string describe() { return "OuterProduct"; }

  // As, Bs: one stage of shared memory; r0, c0: the thread's first fragment row and column in the tile.
  // during(): the pipeline's copies for a later tile, issued once the first fragments are loaded so
  // that the compiler can interleave their address arithmetic with the FMAs instead of running it
  // on its own between barrier and math.
  template <class T, class Shape, class Map, class ALayout, class BLayout, int FM, int FN, class During>
  __device__ static void run(const T* As, const T* Bs, T (&acc)[FM][FN], int r0, int c0, During&& during) {
#pragma unroll
    for (int kk = 0; kk < Shape::BK; ++kk) {
      T a[FM], b[FN];
#pragma unroll
      for (int gm = 0; gm < Map::kGroupsM; ++gm) {
        const int r = r0 + gm * Map::kGroupStrideM;
        detail::load_run<T, Shape::TM, ALayout::kVecAlongR>(a + gm * Shape::TM, As,
                                                             [&](int i) { return ALayout::offset(r + i, kk); });
      }
#pragma unroll
      for (int gn = 0; gn < Map::kGroupsN; ++gn) {
        const int c = c0 + gn * Map::kGroupStrideN;
        detail::load_run<T, Shape::TN, BLayout::kVecAlongC>(b + gn * Shape::TN, Bs,
                                                             [&](int j) { return BLayout::offset(kk, c + j); });
      }
      if (kk == 0) during();
#pragma unroll
      for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) acc[i][j] += a[i] * b[j];
    }
  }
};

// The same outer products, reading A along k instead of along m: each 16-byte load brings one row's
// A values for 4 consecutive k (2 for double), so A can stay row-major (k-contiguous) in shared
// memory and arrive there with 16-byte cp.async copies instead of a transposing scatter. Pair it
// with a thread map whose lanes own neighbouring rows (TM = 1) and a padded RowMajor A, so the
// lanes' 16-byte reads fall in different banks.
struct OuterProductAlongK {
  static std::string describe() { return "OuterProductAlongK"; }

  template <class T, class Shape, class Map, class ALayout, class BLayout, int FM, int FN, class During>
  __device__ static void run(const T* As, const T* Bs, T (&acc)[FM][FN], int r0, int c0, During&& during) {
    constexpr int P = detail::kElemsPer16B<T>;
    static_assert(ALayout::kVecAlongC,
                  "OuterProductAlongK reads A in 16-byte pieces along k: use an A layout that keeps them "
                  "contiguous (RowMajor<Pad> with BK + Pad a multiple of 4 floats / 2 doubles).");
    static_assert(Shape::BK % P == 0, "OuterProductAlongK: BK must be a multiple of 4 floats (2 doubles).");
#pragma unroll
    for (int k0 = 0; k0 < Shape::BK; k0 += P) {
      T a[FM][P];
#pragma unroll
      for (int gm = 0; gm < Map::kGroupsM; ++gm)
#pragma unroll
        for (int tm = 0; tm < Shape::TM; ++tm) {
          const int row = r0 + gm * Map::kGroupStrideM + tm;
          const auto piece = *reinterpret_cast<const detail::Vector<T, P>*>(As + ALayout::offset(row, k0));
#pragma unroll
          for (int e = 0; e < P; ++e) a[gm * Shape::TM + tm][e] = piece.v[e];
        }
#pragma unroll
      for (int kk = 0; kk < P; ++kk) {
        T b[FN];
#pragma unroll
        for (int gn = 0; gn < Map::kGroupsN; ++gn) {
          const int c = c0 + gn * Map::kGroupStrideN;
          detail::load_run<T, Shape::TN, BLayout::kVecAlongC>(b + gn * Shape::TN, Bs,
                                                               [&](int j) { return BLayout::offset(k0 + kk, c + j); });
        }
        if (k0 == 0 && kk == 0) during();
#pragma unroll
        for (int i = 0; i < FM; ++i)
#pragma unroll
          for (int j = 0; j < FN; ++j) acc[i][j] += a[i][kk] * b[j];
      }
    }
  }
};

}  // namespace gemm
