#pragma once
// The mma family's kernel: one block per BM x BN tile of C. It only wires the parts together:
//   the raster picks the tile; the math part's Warp gives each warp its WM x WN share, its shared
//   operand tiles (OperandStage) and its fragments; OperandCopy fills a stage with cp.async; and the
//   pipeline (the CUDA-core family's CpAsyncMultiStage, CpAsyncFragmentPipeline or, for rows cp.async
//   cannot read, RegisterDoubleBuffer, unchanged; or AlignedOr, one or the other decided per block)
//   drives the k loop through the Mainloop below,
//   which offers what those pipelines call:
//     k_tiles, copy_async(stage, kt), compute(stage, acc[, during]), load_fragment(stage, step, f),
//     multiply(f, acc), Fragment, kMathSteps; Regs, fetch(regs, kt), store(regs, stage); rows_aligned_16().
#include "../args.cuh"
#include "../detail/batch.cuh"
#include "../detail/launch.cuh"
#include "../parts/targets.cuh"
#include "../ptx/cp_async.cuh"
#include "../ptx/grid_dependency.cuh"
#include "tile_copy.cuh"

namespace gemm::mma {

// Cfg: the resolved composition (MmaPolicy::Config): Warp, Tile, Pipeline, Raster, kThreads, kWarpsN,
// kStageBytes, kWide (16-byte copies; else 4- or 8-byte ones).
template <class Args, class Cfg>
struct Mainloop {
  using In = typename Args::Element;
  using Warp = typename Cfg::Warp;
  using StageA = typename Warp::StageA;
  using StageB = typename Warp::StageB;
  using CopyA = OperandCopy<StageA, Cfg::kThreads>;
  using CopyB = OperandCopy<StageB, Cfg::kThreads>;
  using Fragment = typename Warp::Fragment;
  static constexpr int BK = Warp::BK;
  static constexpr int kMathSteps = BK / Warp::kK;

  const Args& args;
  const Warp& warp;
  char* smem;
  int m0, n0, tid, k_tiles;

  __device__ Mainloop(const Args& args_, const Warp& warp_, char* smem_, int m0_, int n0_)
      : args(args_), warp(warp_), smem(smem_), m0(m0_), n0(n0_), tid(threadIdx.x),
        k_tiles((args_.k + BK - 1) / BK) {}

  __device__ char* stage_a(int s) const { return smem + s * Cfg::kStageBytes; }
  __device__ char* stage_b(int s) const { return smem + s * Cfg::kStageBytes + StageA::kBytes; }

  // Tile kt of an operand as stored: its origin in global memory (possibly outside the matrix), and
  // how many of its stored rows and row elements lie inside the matrix.
  struct TileView {
    const In* origin;
    int rows, cols;
  };
  __device__ TileView a_view(int kt) const {
    const int kk = kt * BK;
    if constexpr (StageA::kKMajor)  // stored m x k: rows m0.., columns kk..
      return {args.A + static_cast<long long>(m0) * args.lda + kk, args.m - m0, args.k - kk};
    else  // stored k x m
      return {args.A + static_cast<long long>(kk) * args.lda + m0, args.k - kk, args.m - m0};
  }
  __device__ TileView b_view(int kt) const {
    const int kk = kt * BK;
    if constexpr (StageB::kKMajor)  // stored n x k
      return {args.B + static_cast<long long>(n0) * args.ldb + kk, args.n - n0, args.k - kk};
    else  // stored k x n
      return {args.B + static_cast<long long>(kk) * args.ldb + n0, args.k - kk, args.n - n0};
  }

  // Tile kt of A and B into stage s with cp.async. A tile past the end zero-fills and reads nothing
  // (its k range lies outside the matrix), so pipelines may issue it unconditionally.
  __device__ void copy_async(int s, int kt) const {
    const TileView a = a_view(kt), b = b_view(kt);
    CopyA::template copy<Cfg::kWide>(stage_a(s), a.origin, args.lda, a.rows, a.cols, args.A, tid);
    CopyB::template copy<Cfg::kWide>(stage_b(s), b.origin, args.ldb, b.rows, b.cols, args.B, tid);
  }

  // Whether this block's A and B rows are 16-byte aligned (pointers and leading dimensions): for a
  // pointer-array entry only known here (the AlignedOr pipeline asks).
  __device__ bool rows_aligned_16() const {
    return detail::vector_aligned(args.A, args.lda) && detail::vector_aligned(args.B, args.ldb);
  }

  // Register-staged pipelines: tile kt into registers, element by element, then into stage s.
  struct Regs {
    typename CopyA::Regs a;
    typename CopyB::Regs b;
  };
  __device__ void fetch(Regs& regs, int kt) const {
    const TileView a = a_view(kt), b = b_view(kt);
    CopyA::fetch(regs.a, a.origin, args.lda, a.rows, a.cols, tid);
    CopyB::fetch(regs.b, b.origin, args.ldb, b.rows, b.cols, tid);
  }
  __device__ void store(const Regs& regs, int s) const {
    CopyA::store(regs.a, stage_a(s), tid);
    CopyB::store(regs.b, stage_b(s), tid);
  }

  __device__ void load_fragment(int s, int step, Fragment& f) const { warp.load(f, stage_a(s), stage_b(s), step); }

  template <class Acc>
  __device__ void multiply(const Fragment& f, Acc& acc) const {
    Warp::multiply(f, acc);
  }

  // The math over stage s; during() runs inside it, once the first fragments are loaded (the register
  // double buffer issues its next global loads there).
  template <class Acc, class During>
  __device__ void compute(int s, Acc& acc, During&& during) const {
#pragma unroll
    for (int step = 0; step < kMathSteps; ++step) {
      Fragment f;
      load_fragment(s, step, f);
      if (step == 0) during();
      multiply(f, acc);
    }
  }
  template <class Acc>
  __device__ void compute(int s, Acc& acc) const {
    compute(s, acc, [] {});
  }
};

template <class Args, class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads) mma_gemm_kernel(const Args params) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  __trap();  // unreachable: the host refuses devices older than sm_80
#else
  if constexpr (!detail::compiled_here<typename Cfg::Targets>()) {
    __trap();  // unreachable: the host launches this only where runs_here<Targets> (parts/targets.cuh)
  } else {
    ptx::wait_for_prior_grid();  // (launched as dependent: ptx/grid_dependency.cuh)
    if (detail::beyond_batch(params)) return;
    const Args args = detail::block_entry(params);  // a copy: here a reference to the parameters changed the code
    // Dynamic shared memory is only guaranteed 16-byte alignment; wmma's pointers need 32 bytes, so the
    // stages start at the next 128-byte boundary (Cfg::kSmemBytes holds the slack).
    extern __shared__ __align__(16) unsigned char mma_smem[];
    char* smem = reinterpret_cast<char*>(mma_smem) + (128u - detail::smem_address(mma_smem) % 128u) % 128u;
    using Tile = typename Cfg::Tile;
    using Warp = typename Cfg::Warp;
    const int tiles_m = (args.m + Tile::BM - 1) / Tile::BM;
    const int tiles_n = (args.n + Tile::BN - 1) / Tile::BN;
    int tile_m, tile_n;
    Cfg::Raster::tile(static_cast<int>(blockIdx.x), tiles_m, tiles_n, tile_m, tile_n);
    const int m0 = tile_m * Tile::BM, n0 = tile_n * Tile::BN;

    const int warp_id = static_cast<int>(threadIdx.x) / 32;
    const Warp warp((warp_id / Cfg::kWarpsN) * Warp::WM, (warp_id % Cfg::kWarpsN) * Warp::WN,
                    static_cast<int>(threadIdx.x) % 32);
    typename Warp::Accumulators acc;
    Warp::zero(acc);

    Mainloop<Args, Cfg> ml(args, warp, smem, m0, n0);
    Cfg::Pipeline::run(ml, acc);

    if constexpr (Warp::kEpilogueBytesPerWarp > 0) __syncthreads();  // the epilogue reuses the stages
    warp.store(acc, args, m0, n0, smem);
  }
#endif
}

}  // namespace gemm::mma
