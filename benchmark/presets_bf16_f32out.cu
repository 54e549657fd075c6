// The preset table of bf16_f32out: every preset of gemm::preset::All that serves
// __nv_bfloat16 inputs with float C, row-major entry point.
#include "presets_impl.cuh"

namespace gemm_bench {
template <>
const std::vector<Preset<Bf16F32>>& presets<Bf16F32>() {
  return detail::serving_table<Bf16F32>();
}
}  // namespace gemm_bench
