// Builds the run-time preset table for one element type by a fold expression
// over gemm::preset::All. Included only by presets_float.cu and
// presets_double.cu, so that the expensive kernel instantiations of the two
// types compile in parallel.
#pragma once

#include "bench_common.cuh"

#include <gemm/gemm.cuh>
#include <gemm/presets.cuh>

namespace gemm_bench {
namespace detail {

template <class T, class Policy>
gemm::Status launch_preset(int m, int n, int k, T alpha, const T* A, int lda, const T* B,
                           int ldb, T beta, T* C, int ldc, cudaStream_t stream) {
  return gemm::gemm<T, Policy>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

template <class T, class... Policies>
std::vector<Preset<T>> make_preset_table(gemm::TypeList<Policies...>) {
  std::vector<Preset<T>> table;
  table.reserve(sizeof...(Policies));
  (table.push_back(Preset<T>{std::string(Policies::name()), std::string(Policies::describe()),
                             &launch_preset<T, Policies>}),
   ...);
  return table;
}

}  // namespace detail
}  // namespace gemm_bench
