// The preset table of fp16_f32out: every preset of gemm::preset::All that serves
// __half inputs with float C, row-major entry point.
#include "presets_impl.cuh"

namespace gemm_bench {
template <>
const std::vector<Preset<Fp16F32>>& presets<Fp16F32>() {
  return detail::serving_table<Fp16F32>();
}
}  // namespace gemm_bench
