#pragma once
// What gemm_arch_check compiles for GEMM_CHECK_ARCHITECTURES (arch_check/CMakeLists.txt): every
// preset that serves math type T with C of type Out, through every entry point (single products with
// any layout; strided and pointer-array batches row-major, as the layouts' code is the single
// products' and the batches add only their addressing), and a fused epilogue (bias + GELU, row-major):
// Tuned's for every type, every preset's for the types of the epilogue tests (float, double, bf16
// with bf16 or float C, fp16 with float C; kFused), so that a kernel which no longer compiles for
// those architectures fails the build even though no program is built for them. Taking a
// function's address instantiates it and every kernel it launches.
#include <gemm/gemm.cuh>
#include <gemm/type_list.cuh>
#include <type_traits>

namespace gemm_check {

using gemm::detail::AnyOps;
using RowMajorOps = gemm::detail::Ops<gemm::Op::N, gemm::Op::N>;

using Entry = void (*)();

template <class T, class Out>
inline constexpr bool kFused = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                               std::is_same_v<T, __nv_bfloat16> || (std::is_same_v<T, __half> && std::is_same_v<Out, float>);

template <class T, class Out, class P>
void fused_entry(Entry* out, int& n) {
  using Fused = gemm::Status (*)(gemm::GemmArgs<gemm::storage_t<T>, Out>,
                                 const gemm::Epilogue<Out, gemm::act::GeluTanh, Out>&, cudaStream_t,
                                 const gemm::detail::NoScales&);
  const Fused fused =
      &gemm::detail::run_fused<T, P, RowMajorOps, false, Out, gemm::act::GeluTanh, Out>;
  out[n++] = reinterpret_cast<Entry>(fused);
}

template <class T, class Out, class P>
void every_entry(Entry* out, int& n) {
  constexpr bool kTuned = std::is_same_v<P, gemm::preset::Tuned>;
  // (Tuned's single and batched forms are the instance files'; its fused form is added here.)
  if constexpr (!kTuned) {
    out[n++] = reinterpret_cast<Entry>(&gemm::detail::run<T, P, AnyOps, Out, gemm::Batch::None>);
    out[n++] = reinterpret_cast<Entry>(&gemm::detail::run<T, P, RowMajorOps, Out, gemm::Batch::Strided>);
    out[n++] = reinterpret_cast<Entry>(&gemm::detail::run<T, P, RowMajorOps, Out, gemm::Batch::Pointers>);
  }
  if constexpr (kTuned || kFused<T, Out>) fused_entry<T, Out, P>(out, n);
}

template <class T, class Out, class... P>
int every_preset(Entry* out, gemm::TypeList<P...>) {
  int n = 0;
  (every_entry<T, Out, P>(out, n), ...);
  return n;
}

}  // namespace gemm_check

// One file per type: GEMM_CHECK_EVERY_PRESET(T, Out) defines a function that instantiates them all.
#define GEMM_CHECK_EVERY_PRESET(T, Out, name)                                                  \
  int name(::gemm_check::Entry* out) {                                                         \
    return ::gemm_check::every_preset<T, Out>(out, ::gemm::preset::AllServing<T, Out>{});      \
  }
