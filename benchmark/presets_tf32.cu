// The preset table of tf32: every preset of gemm::preset::All that serves
// gemm::tf32 (float data, TF32 tensor-core math), row-major entry point.
#include "presets_impl.cuh"

namespace gemm_bench {
template <>
const std::vector<Preset<Tf32>>& presets<Tf32>() {
  return detail::serving_table<Tf32>();
}
}  // namespace gemm_bench
