#pragma once
// WmmaMath: the tutorials' first tensor-core stage, through CUDA's nvcuda::wmma API.
//
// A warp owns WM x WN as (WM/16) x (WN/16) accumulator fragments of 16x16 (fp32). Per k step it loads
// one A fragment per 16 rows and one B fragment per 16 columns with load_matrix_sync and multiplies
// them with mma_sync: 16x16x16 for bf16 and fp16, 16x16x8 for tf32 (whose fragments are rounded with
// __float_to_tf32 after loading). wmma reads row- or column-major tiles with a leading dimension,
// so the shared tiles are PaddedRows (one 16-byte chunk of padding per row: no swizzle, which wmma
// cannot follow), and each operand's layout maps to a fragment layout: A stored m x k (op N) is
// row_major, stored k x m (op T) col_major; B stored k x n (op N) row_major, n x k (op T) col_major.
//
// The accumulator fragments' register layout is unspecified, so results leave through shared
// memory: each warp stores one fragment at a time into its own 16x16 fp32 buffer (the pipeline's
// stages, free after the k loop) and its lanes write that to C with alpha, beta and bounds checks.
#include <string>
#include <type_traits>
#include <mma.h>
#include "../types.cuh"
#include "math_warp.cuh"
#include "smem_layout.cuh"

namespace gemm {

struct WmmaMath {
  static std::string describe() { return "WmmaMath<16x16x16|tf32:16x16x8>"; }

  template <class T, class Out>
  static constexpr bool kServes =
      (is_16bit<T> && is_supported_output<T, Out>) || (std::is_same_v<T, tf32> && std::is_same_v<Out, float>);

  template <class T, class Tile, class Warps, class Layouts>
  struct Warp : mma::WarpShape<storage_t<T>, Tile, Warps, Layouts, PaddedRows, PaddedRows> {
    using Base = typename Warp::WarpShape;
    using Base::BK, Base::kAKMajor, Base::kBKMajor, Base::WM, Base::WN;
    using typename Base::In, typename Base::StageA, typename Base::StageB;
    static constexpr bool kTf32 = std::is_same_v<T, tf32>;
    static constexpr int kK = kTf32 ? 8 : 16;
    static_assert(WM % 16 == 0 && WN % 16 == 0,
                  "WmmaMath: the warp tile must be a multiple of the 16 x 16 wmma fragment; change WarpTile<WM, WN>.");
    static_assert(BK % kK == 0, "WmmaMath: a stage's k depth must be a whole number of wmma k steps.");
    static constexpr int MT = WM / 16;
    static constexpr int NT = WN / 16;
    static constexpr int kEpilogueBytesPerWarp = 16 * 16 * 4;

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    using Elem = std::conditional_t<kTf32, nvcuda::wmma::precision::tf32, In>;
    using ALayout = std::conditional_t<kAKMajor, nvcuda::wmma::row_major, nvcuda::wmma::col_major>;
    using BLayout = std::conditional_t<kBKMajor, nvcuda::wmma::col_major, nvcuda::wmma::row_major>;
    struct Fragment {
      nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, kK, Elem, ALayout> a[MT];
      nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, kK, Elem, BLayout> b[NT];
    };
    struct Accumulators {
      nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, kK, float> c[MT][NT];
    };
#else
    struct Fragment {};
    struct Accumulators {};
#endif

    // wmma's leading dimensions: the padded row length in elements.
    static constexpr unsigned kLdA = StageA::Layout::kStrideBytes / sizeof(In);
    static constexpr unsigned kLdB = StageB::Layout::kStrideBytes / sizeof(In);

    int wm0, wn0, lane;

    __device__ Warp(int wm0_, int wn0_, int lane_) : wm0(wm0_), wn0(wn0_), lane(lane_) {}

    // Where fragment mi (nj) of k step `step` starts, in bytes from the tile: 32-byte aligned, as
    // load_matrix_sync needs (16 or 8 padded rows of a multiple of 16 bytes; 16-element column steps).
    __host__ __device__ static int a_offset(int wm0, int mi, int step) { return StageA::element_offset(wm0 + 16 * mi, kK * step); }
    __host__ __device__ static int b_offset(int wn0, int nj, int step) { return StageB::element_offset(wn0 + 16 * nj, kK * step); }

    __device__ static void zero(Accumulators& acc) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j) nvcuda::wmma::fill_fragment(acc.c[i][j], 0.0f);
#endif
    }

    __device__ void load(Fragment& f, const char* a_tile, const char* b_tile, int step) const {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#pragma unroll
      for (int mi = 0; mi < MT; ++mi) {
        nvcuda::wmma::load_matrix_sync(f.a[mi], reinterpret_cast<const In*>(a_tile + a_offset(wm0, mi, step)), kLdA);
        if constexpr (kTf32)
#pragma unroll
          for (int e = 0; e < f.a[mi].num_elements; ++e) f.a[mi].x[e] = nvcuda::wmma::__float_to_tf32(f.a[mi].x[e]);
      }
#pragma unroll
      for (int nj = 0; nj < NT; ++nj) {
        nvcuda::wmma::load_matrix_sync(f.b[nj], reinterpret_cast<const In*>(b_tile + b_offset(wn0, nj, step)), kLdB);
        if constexpr (kTf32)
#pragma unroll
          for (int e = 0; e < f.b[nj].num_elements; ++e) f.b[nj].x[e] = nvcuda::wmma::__float_to_tf32(f.b[nj].x[e]);
      }
#else
      (void)f, (void)a_tile, (void)b_tile, (void)step;
#endif
    }

    __device__ static void multiply(const Fragment& f, Accumulators& acc) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#pragma unroll
      for (int mi = 0; mi < MT; ++mi)
#pragma unroll
        for (int nj = 0; nj < NT; ++nj) nvcuda::wmma::mma_sync(acc.c[mi][nj], f.a[mi], f.b[nj], acc.c[mi][nj]);
#else
      (void)f, (void)acc;
#endif
    }

    // smem: the block's shared memory, free again (the kernel synchronises before the epilogue).
    template <class Args>
    __device__ void store(const Accumulators& acc, const Args& args, int m0, int n0, char* smem) const {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
      float* buf = reinterpret_cast<float*>(smem + (threadIdx.x / 32) * kEpilogueBytesPerWarp);
      const int r = lane / 2, c0 = 8 * (lane % 2);  // each lane: 8 consecutive columns of one row
#pragma unroll
      for (int mi = 0; mi < MT; ++mi)
#pragma unroll
        for (int nj = 0; nj < NT; ++nj) {
          nvcuda::wmma::store_matrix_sync(buf, acc.c[mi][nj], 16, nvcuda::wmma::mem_row_major);
          __syncwarp();
          const int row = m0 + wm0 + 16 * mi + r, col = n0 + wn0 + 16 * nj + c0;
#pragma unroll
          for (int e = 0; e < 8; ++e) mma::store_element(args, row, col + e, buf[r * 16 + c0 + e]);
          __syncwarp();  // every lane has read the buffer before the next fragment overwrites it
        }
#else
      (void)acc, (void)args, (void)m0, (void)n0, (void)smem;
#endif
    }
  };
};

}  // namespace gemm
