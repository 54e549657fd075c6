#pragma once
// Pipelines: the k loop, i.e. how loading the next tile overlaps computing the current one.
//
// A pipeline drives a mainloop object that offers
//   k_tiles                      number of BK steps
//   fetch(regs, kt), store(regs, stage)   global -> registers -> shared stage
//   copy_async(stage, kt)        global -> shared stage with cp.async
//   compute(stage, acc[, during]) math step over one stage; during() is issued inside it, after the
//                                first fragment loads, so that copies for later tiles overlap the math
#include <string>
#include "../ptx/cp_async.cuh"
#include "../detail/describe.cuh"

namespace gemm {

// Load a tile, wait, compute, wait: the tutorials' shared-memory kernels. Nothing overlaps.
struct SingleStage {
  static constexpr int kStages = 1;
  static constexpr int kMinArch = 0;
  static constexpr bool kRegisterStaged = true;
  static constexpr bool kChoosesPerBlock = false;  // one way of loading for every block
  static std::string describe() { return "SingleStage"; }

  template <class Mainloop, class Acc>
  __device__ static void run(Mainloop& ml, Acc& acc) {
    typename Mainloop::Regs regs;
    for (int kt = 0; kt < ml.k_tiles; ++kt) {
      ml.fetch(regs, kt);
      ml.store(regs, 0);
      __syncthreads();
      ml.compute(0, acc);
      __syncthreads();  // nobody overwrites the stage while others still read it
    }
  }
};

// Two shared buffers: the next tile is fetched into registers while the current one computes,
// then stored into the other buffer. One barrier per k step instead of two.
struct RegisterDoubleBuffer {
  static constexpr int kStages = 2;
  static constexpr int kMinArch = 0;
  static constexpr bool kRegisterStaged = true;
  static constexpr bool kChoosesPerBlock = false;  // one way of loading for every block
  static std::string describe() { return "RegisterDoubleBuffer"; }

  template <class Mainloop, class Acc>
  __device__ static void run(Mainloop& ml, Acc& acc) {
    typename Mainloop::Regs regs;
    if (ml.k_tiles == 0) return;
    ml.fetch(regs, 0);
    ml.store(regs, 0);
    __syncthreads();
    for (int kt = 0; kt < ml.k_tiles; ++kt) {
      const bool more = kt + 1 < ml.k_tiles;
      ml.compute(kt & 1, acc, [&] {
        if (more) ml.fetch(regs, kt + 1);  // global loads in flight during the math
      });
      // The other buffer was last read in step kt-1, which every thread finished before the barrier.
      if (more) ml.store(regs, (kt + 1) & 1);
      __syncthreads();
    }
  }
};

// Stages shared buffers filled by cp.async, Stages-1 tiles ahead of the math (sm_80 and newer).
// The copies need no registers and no thread waits on them until their tile is due.
template <int Stages>
struct CpAsyncMultiStage {
  static_assert(Stages >= 2, "CpAsyncMultiStage: needs at least 2 stages (one computing, one loading).");
  static constexpr int kStages = Stages;
  static constexpr int kMinArch = 80;
  static constexpr bool kRegisterStaged = false;
  static constexpr bool kChoosesPerBlock = false;  // one way of loading for every block
  static std::string describe() { return detail::templated("CpAsyncMultiStage", Stages); }

  template <class Mainloop, class Acc>
  __device__ static void run(Mainloop& ml, Acc& acc) {
#pragma unroll
    for (int s = 0; s < Stages - 1; ++s) {
      if (s < ml.k_tiles) ml.copy_async(s, s);
      detail::cp_async_commit();  // empty groups keep the group count uniform
    }
    int compute_stage = 0, load_stage = Stages - 1;
    for (int kt = 0; kt < ml.k_tiles; ++kt) {
      detail::cp_async_wait<Stages - 2>();  // tile kt has landed (for this thread) ...
      __syncthreads();                      // ... and for every thread; stage kt-1 is free again
      // Issued right after the barrier, before the math (CpAsyncFragmentPipeline issues them inside
      // the math instead; on the 128x256 tile this order measured faster).
      if (kt + Stages - 1 < ml.k_tiles) ml.copy_async(load_stage, kt + Stages - 1);
      detail::cp_async_commit();
      ml.compute(compute_stage, acc);
      compute_stage = compute_stage + 1 == Stages ? 0 : compute_stage + 1;
      load_stage = load_stage + 1 == Stages ? 0 : load_stage + 1;
    }
    detail::cp_async_wait<0>();
  }
};

// CpAsyncMultiStage with the math's fragments double-buffered in registers and the copies moved
// into the math (as CUTLASS's multistage mainloop does). Each step's fragments load while the
// previous step's FMAs run; the barrier comes before the last step of a tile, when every fragment of
// the tile is already loaded, so the next tile's first fragments load under the last step's FMAs
// instead of after the barrier; and the copies for a later tile are issued inside the first step, so
// their address arithmetic interleaves with FMAs. The loop body has no branches: the barrier runs
// for every tile, the last included, and copies past the last tile read nothing.
template <int Stages>
struct CpAsyncFragmentPipeline {
  static_assert(Stages >= 2, "CpAsyncFragmentPipeline: needs at least 2 stages (one computing, one loading).");
  static constexpr int kStages = Stages;
  static constexpr int kMinArch = 80;
  static constexpr bool kRegisterStaged = false;
  static constexpr bool kChoosesPerBlock = false;  // one way of loading for every block
  static std::string describe() { return detail::templated("CpAsyncFragmentPipeline", Stages); }

  template <class Mainloop, class Acc>
  __device__ static void run(Mainloop& ml, Acc& acc) {
    constexpr int kSteps = Mainloop::kMathSteps;
    static_assert(kSteps >= 2 && kSteps % 2 == 0,
                  "CpAsyncFragmentPipeline: alternates two fragment buffers, so a tile must hold an even number "
                  "of math steps (BK for OuterProduct, BK / 4 for OuterProductAlongK with float); raise BK.");
    if (ml.k_tiles == 0) return;
#pragma unroll
    for (int s = 0; s < Stages - 1; ++s) {
      ml.copy_async(s, s);
      detail::cp_async_commit();
    }
    detail::cp_async_wait<Stages - 2>();
    __syncthreads();
    typename Mainloop::Fragment frag[2];
    ml.load_fragment(0, 0, frag[0]);
    int stage = 0, load_stage = Stages - 1;
    for (int kt = 0; kt < ml.k_tiles; ++kt) {
#pragma unroll
      for (int step = 0; step + 1 < kSteps; ++step) {
        ml.load_fragment(stage, step + 1, frag[(step + 1) % 2]);
        if (step == 0) {
          // load_stage was last read in tile kt-1, whose last fragment every thread loaded before the barrier.
          ml.copy_async(load_stage, kt + Stages - 1);
          detail::cp_async_commit();
        }
        ml.multiply(frag[step % 2], acc);
      }
      detail::cp_async_wait<Stages - 2>();  // tile kt+1 has landed (for this thread) ...
      __syncthreads();  // ... and for every thread, and every thread has loaded its last fragment of tile kt
      stage = stage + 1 == Stages ? 0 : stage + 1;
      load_stage = load_stage + 1 == Stages ? 0 : load_stage + 1;
      ml.load_fragment(stage, 0, frag[0]);  // after the last tile: a harmless read of a finished stage
      ml.multiply(frag[1], acc);
    }
    detail::cp_async_wait<0>();
  }
};

// Decided per block, for operands whose alignment only the device knows (the entries of a
// pointer-array batch): Fast (a cp.async pipeline) where this block's A and B rows are 16-byte
// aligned, pointer and leading dimension, else Fallback (register-staged, any alignment). Every
// thread of a block reads the same entry, so the branch is uniform. The mainloop must also offer
// rows_aligned_16() (the mma family's does) and copy with 16-byte cp.async.
template <class Fast, class Fallback = RegisterDoubleBuffer>
struct AlignedOr {
  static_assert(!Fast::kRegisterStaged && Fallback::kRegisterStaged,
                "AlignedOr<Fast, Fallback>: Fast is a cp.async pipeline (CpAsyncMultiStage, CpAsyncFragmentPipeline), "
                "Fallback a register-staged one (RegisterDoubleBuffer, SingleStage).");
  static constexpr int kStages = Fast::kStages > Fallback::kStages ? Fast::kStages : Fallback::kStages;
  static constexpr int kMinArch = Fast::kMinArch;
  static constexpr bool kRegisterStaged = true;  // what the host may assume: any alignment is served
  static constexpr bool kChoosesPerBlock = true;   // cp.async where a block's rows allow, else Fallback
  static std::string describe() { return "AlignedOr<" + Fast::describe() + "," + Fallback::describe() + ">"; }

  template <class Mainloop, class Acc>
  __device__ static void run(Mainloop& ml, Acc& acc) {
    if (ml.rows_aligned_16())
      Fast::run(ml, acc);
    else
      Fallback::run(ml, acc);
  }
};

}  // namespace gemm
