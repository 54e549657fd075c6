// Builds the run-time preset tables of one benchmarked type by a fold
// expression over a list of presets. Included only by the presets_*.cu files,
// so that the expensive kernel instantiations of the types compile in parallel.
//   serving_table<B>()                                        row-major entry point,
//                                                             gemm::preset::AllServing<T, Out>
//   make_layout_table<B>(gemm::TypeList<...>{})               op entry point (all
//                                                             four layouts per kernel)
#pragma once

#include "bench_common.cuh"

#include <gemm/gemm.cuh>
#include <gemm/presets.cuh>
#include <gemm/tuned.cuh>

namespace gemm_bench {
namespace detail {

template <class B, class Policy>
gemm::Status launch_row_major(int m, int n, int k, typename B::Scalar alpha, const typename B::In* A, int lda,
                              const typename B::In* Bm, int ldb, typename B::Scalar beta, typename B::Out* C,
                              int ldc, cudaStream_t stream) {
  return gemm::gemm<typename B::Math, Policy>(m, n, k, alpha, A, lda, Bm, ldb, beta, C, ldc, stream);
}

template <class B, class Policy>
gemm::Status launch_ops(gemm::Op op_a, gemm::Op op_b, int m, int n, int k, typename B::Scalar alpha,
                        const typename B::In* A, int lda, const typename B::In* Bm, int ldb,
                        typename B::Scalar beta, typename B::Out* C, int ldc, cudaStream_t stream) {
  return gemm::gemm<typename B::Math, Policy>(op_a, op_b, m, n, k, alpha, A, lda, Bm, ldb, beta, C, ldc, stream);
}

// The policy's alignment verdict for a call with 256-byte-aligned matrices
// (the benchmark's workspaces align every matrix to 256 bytes) and the tight
// leading dimensions of the shape and layout. Host-only: no device needed.
template <class B, class Policy>
gemm::Status alignment(Layout layout, const Shape& s) {
  alignas(256) static unsigned char base[256];  // only its address is looked at
  const auto* ab = reinterpret_cast<const typename B::In*>(base);
  auto* c = reinterpret_cast<typename B::Out*>(base);
  const gemm::GemmArgs<typename B::In, typename B::Out> args{
      s.m, s.n, s.k, 1, ab, s.lda(layout), ab, s.ldb(layout), 0, c, s.ldc(), op_a(layout), op_b(layout)};
  return Policy::template check_alignment<typename B::Math>(args);
}

template <class B, class... Policies>
std::vector<Preset<B>> make_preset_table(gemm::TypeList<Policies...>) {
  std::vector<Preset<B>> table;
  table.reserve(sizeof...(Policies));
  (table.push_back(Preset<B>{std::string(Policies::name()), std::string(Policies::describe()),
                             &launch_row_major<B, Policies>, nullptr, &alignment<B, Policies>}),
   ...);
  return table;
}

template <class B, class... Policies>
std::vector<Preset<B>> make_layout_table(gemm::TypeList<Policies...>) {
  std::vector<Preset<B>> table;
  table.reserve(sizeof...(Policies));
  (table.push_back(Preset<B>{std::string(Policies::name()), std::string(Policies::describe()), nullptr,
                             &launch_ops<B, Policies>, &alignment<B, Policies>}),
   ...);
  return table;
}

// The table of every preset of gemm::preset::All that serves B's math and
// output types, in ladder order (what presets<B>() returns).
template <class B>
const std::vector<Preset<B>>& serving_table() {
  static const std::vector<Preset<B>> table =
      make_preset_table<B>(gemm::preset::AllServing<typename B::Math, typename B::Out>{});
  return table;
}

}  // namespace detail
}  // namespace gemm_bench
