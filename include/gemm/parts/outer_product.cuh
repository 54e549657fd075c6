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

// A math part offers two levels, so that a pipeline can either hand it a whole stage or schedule
// the fragment loads itself (to overlap them with the previous step's FMAs):
//   kKPerStep<T>, Fragment<T, Shape, Map>   k values per step and the registers one step needs;
//   load(f, As, Bs, step, r0, c0)         shared memory -> fragment for k = step * kKPerStep ...;
//   multiply(f, acc)                      acc += the step's outer products;
//   run(As, Bs, acc, r0, c0, during)      every step of one stage; during() is called once the first
//                                         fragment is loaded, so that copies for a later tile can
//                                         interleave with the FMAs instead of running on their own.
struct OuterProduct {
  static std::string describe() { return "OuterProduct"; }
  template <class T>
  static constexpr int kKPerStep = 1;

  template <class T, class Shape, class Map>
  struct Fragment {
    T a[Map::kGroupsM * Shape::TM];
    T b[Map::kGroupsN * Shape::TN];
  };

  // As, Bs: one stage of shared memory; r0, c0: the thread's first fragment row and column in the tile.
  template <class T, class Shape, class Map, class ALayout, class BLayout>
  __device__ static void load(Fragment<T, Shape, Map>& f, const T* As, const T* Bs, int kk, int r0, int c0) {
#pragma unroll
    for (int gm = 0; gm < Map::kGroupsM; ++gm) {
      const int r = r0 + gm * Map::kGroupStrideM;
      detail::load_run<T, Shape::TM, ALayout::kVecAlongR>(f.a + gm * Shape::TM, As,
                                                           [&](int i) { return ALayout::offset(r + i, kk); });
    }
#pragma unroll
    for (int gn = 0; gn < Map::kGroupsN; ++gn) {
      const int c = c0 + gn * Map::kGroupStrideN;
      detail::load_run<T, Shape::TN, BLayout::kVecAlongC>(f.b + gn * Shape::TN, Bs,
                                                           [&](int j) { return BLayout::offset(kk, c + j); });
    }
  }

  template <class T, class Shape, class Map, int FM, int FN>
  __device__ static void multiply(const Fragment<T, Shape, Map>& f, T (&acc)[FM][FN]) {
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
      for (int j = 0; j < FN; ++j) acc[i][j] += f.a[i] * f.b[j];
  }

  template <class T, class Shape, class Map, class ALayout, class BLayout, int FM, int FN, class During>
  __device__ static void run(const T* As, const T* Bs, T (&acc)[FM][FN], int r0, int c0, During&& during) {
#pragma unroll
    for (int kk = 0; kk < Shape::BK; ++kk) {
      Fragment<T, Shape, Map> f;
      load<T, Shape, Map, ALayout, BLayout>(f, As, Bs, kk, r0, c0);
      if (kk == 0) during();
      multiply<T, Shape, Map>(f, acc);
    }
  }
};

// The same outer products, reading A along k instead of along m: each 16-byte load brings one row's
// A values for 4 consecutive k (2 for double), so A can stay row-major (k-contiguous) in shared
// memory and arrive there with 16-byte cp.async copies instead of a transposing scatter. Pair it
// with a thread map whose lanes own neighbouring rows (TM = 1) and a padded RowMajor A, so the
// lanes' 16-byte reads fall in different banks. One step covers those 4 (or 2) k values.
struct OuterProductAlongK {
  static std::string describe() { return "OuterProductAlongK"; }
  template <class T>
  static constexpr int kKPerStep = detail::kElemsPer16B<T>;

  template <class T, class Shape, class Map>
  struct Fragment {
    T a[Map::kGroupsM * Shape::TM][kKPerStep<T>];
    T b[kKPerStep<T>][Map::kGroupsN * Shape::TN];
  };

  template <class T, class Shape, class Map, class ALayout, class BLayout>
  __device__ static void load(Fragment<T, Shape, Map>& f, const T* As, const T* Bs, int step, int r0, int c0) {
    constexpr int P = kKPerStep<T>;
    static_assert(ALayout::kVecAlongC,
                  "OuterProductAlongK reads A in 16-byte pieces along k: use an A layout that keeps them "
                  "contiguous (RowMajor<Pad> with BK + Pad a multiple of 4 floats / 2 doubles).");
    static_assert(Shape::BK % P == 0, "OuterProductAlongK: BK must be a multiple of 4 floats (2 doubles).");
    const int k0 = step * P;
#pragma unroll
    for (int gm = 0; gm < Map::kGroupsM; ++gm)
#pragma unroll
      for (int tm = 0; tm < Shape::TM; ++tm) {
        const int row = r0 + gm * Map::kGroupStrideM + tm;
        const auto piece = *reinterpret_cast<const detail::Vector<T, P>*>(As + ALayout::offset(row, k0));
#pragma unroll
        for (int e = 0; e < P; ++e) f.a[gm * Shape::TM + tm][e] = piece.v[e];
      }
#pragma unroll
    for (int kk = 0; kk < P; ++kk)
#pragma unroll
      for (int gn = 0; gn < Map::kGroupsN; ++gn) {
        const int c = c0 + gn * Map::kGroupStrideN;
        detail::load_run<T, Shape::TN, BLayout::kVecAlongC>(f.b[kk] + gn * Shape::TN, Bs,
                                                             [&](int j) { return BLayout::offset(k0 + kk, c + j); });
      }
  }

  template <class T, class Shape, class Map, int FM, int FN>
  __device__ static void multiply(const Fragment<T, Shape, Map>& f, T (&acc)[FM][FN]) {
#pragma unroll
    for (int kk = 0; kk < kKPerStep<T>; ++kk)
#pragma unroll
      for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) acc[i][j] += f.a[i][kk] * f.b[kk][j];
  }

  template <class T, class Shape, class Map, class ALayout, class BLayout, int FM, int FN, class During>
  __device__ static void run(const T* As, const T* Bs, T (&acc)[FM][FN], int r0, int c0, During&& during) {
#pragma unroll
    for (int step = 0; step < Shape::BK / kKPerStep<T>; ++step) {
      Fragment<T, Shape, Map> f;
      load<T, Shape, Map, ALayout, BLayout>(f, As, Bs, step, r0, c0);
      if (step == 0) during();
      multiply<T, Shape, Map>(f, acc);
    }
  }
};

}  // namespace gemm
