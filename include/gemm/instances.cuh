#pragma once
// Compiling a policy's kernels once per program instead of once per source file.
//
// gemm is header-only, so every .cu file that calls gemm::gemm<T, Policy> compiles that policy's
// kernels for each architecture it targets. For Tuned that is dozens of kernels (its compositions
// times four layouts, and the batched forms): a minute or more of nvcc per type per file. A program
// whose files call the same instantiation can compile it in one file and declare it in the others:
//
//   // gemm_kernels.cu, one translation unit of the program
//   #include <gemm/instances.cuh>
//   GEMM_INSTANTIATE(__nv_bfloat16, __nv_bfloat16, gemm::preset::Tuned)
//
//   // every other file that calls it (through a header they share, say)
//   #include <gemm/instances.cuh>
//   GEMM_EXTERN(__nv_bfloat16, __nv_bfloat16, gemm::preset::Tuned)
//
// The arguments are the math type T, C's type and the policy (a name without commas: a using-alias
// for a composition with several template arguments). One pair covers every entry point without an
// epilogue, since they all end in detail::run: gemm::gemm (row-major and with ops),
// gemm::blas::gemm, the strided and pointer-array batched calls, and gemm::host's multiplies.
//
// A fused call compiles kernels of its own (each activation and bias type is an instantiation of its
// own). GEMM_FUSED_EXTERN / GEMM_FUSED_INSTANTIATE(T, Out, Policy, Act, Bias) do the same for the
// row-major fused entry point, gemm::gemm<T, Policy>(m, n, k, ..., C, ldc, Epilogue<Out, Act, Bias>):
//
//   GEMM_FUSED_INSTANTIATE(__nv_bfloat16, __nv_bfloat16, gemm::preset::Tuned, gemm::act::GeluTanh, float)
//
// GEMM_INSTANTIATE is GEMM_INSTANTIATE_SINGLE + _STRIDED + _POINTERS; a build that wants them to
// compile in parallel can put the three in three files. The file that instantiates must see the
// same definitions (the same gemm headers and macros) as the files that declare.
#include "gemm.cuh"

namespace gemm::detail {
using RowMajorOps = Ops<Op::N, Op::N>;  // the row-major entry point's layouts, as one macro argument
}  // namespace gemm::detail

// The instantiations of detail::run behind each kind of call: `prefix` is `extern` or empty.
#define GEMM_DETAIL_RUN_INSTANCE(prefix, T, Out, Policy, Layouts, kBatch)                                   \
  namespace gemm::detail {                                                                                 \
  prefix template Status run<T, Policy, Layouts, Out, kBatch>(const GemmArgs<storage_t<T>, Out, kBatch>&, \
                                                              cudaStream_t);                               \
  }

// Single products: the row-major entry point (Ops<N, N>) and those that take ops (AnyOps).
#define GEMM_DETAIL_SINGLE(prefix, T, Out, Policy)                                                  \
  GEMM_DETAIL_RUN_INSTANCE(prefix, T, Out, Policy, ::gemm::detail::RowMajorOps, ::gemm::Batch::None) \
  GEMM_DETAIL_RUN_INSTANCE(prefix, T, Out, Policy, ::gemm::detail::AnyOps, ::gemm::Batch::None)
#define GEMM_DETAIL_STRIDED(prefix, T, Out, Policy) \
  GEMM_DETAIL_RUN_INSTANCE(prefix, T, Out, Policy, ::gemm::detail::AnyOps, ::gemm::Batch::Strided)
#define GEMM_DETAIL_POINTERS(prefix, T, Out, Policy) \
  GEMM_DETAIL_RUN_INSTANCE(prefix, T, Out, Policy, ::gemm::detail::AnyOps, ::gemm::Batch::Pointers)

#define GEMM_EXTERN(T, Out, Policy)                \
  GEMM_DETAIL_SINGLE(extern, T, Out, Policy)       \
  GEMM_DETAIL_STRIDED(extern, T, Out, Policy)      \
  GEMM_DETAIL_POINTERS(extern, T, Out, Policy)

#define GEMM_INSTANTIATE_SINGLE(T, Out, Policy) GEMM_DETAIL_SINGLE(, T, Out, Policy)
#define GEMM_INSTANTIATE_STRIDED(T, Out, Policy) GEMM_DETAIL_STRIDED(, T, Out, Policy)
#define GEMM_INSTANTIATE_POINTERS(T, Out, Policy) GEMM_DETAIL_POINTERS(, T, Out, Policy)
#define GEMM_INSTANTIATE(T, Out, Policy)     \
  GEMM_INSTANTIATE_SINGLE(T, Out, Policy)    \
  GEMM_INSTANTIATE_STRIDED(T, Out, Policy)   \
  GEMM_INSTANTIATE_POINTERS(T, Out, Policy)

// The row-major fused entry point (gemm::gemm with an Epilogue<Out, Act, Bias>, no ops, no scales).
#define GEMM_DETAIL_FUSED(prefix, T, Out, Policy, Act, Bias)                                              \
  namespace gemm::detail {                                                                                \
  prefix template Status run_fused<T, Policy, RowMajorOps, false, Out, Act, Bias, NoScales>(              \
      GemmArgs<storage_t<T>, Out>, const Epilogue<Out, Act, Bias>&, cudaStream_t, const NoScales&);      \
  }
#define GEMM_FUSED_EXTERN(T, Out, Policy, Act, Bias) GEMM_DETAIL_FUSED(extern, T, Out, Policy, Act, Bias)
#define GEMM_FUSED_INSTANTIATE(T, Out, Policy, Act, Bias) GEMM_DETAIL_FUSED(, T, Out, Policy, Act, Bias)
