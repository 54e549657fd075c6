// The preset table of tf32x3: every preset of gemm::preset::All that serves
// gemm::tf32x3 (float data, three TF32 products: fp32 accuracy), row-major entry point.
#include "presets_impl.cuh"

namespace gemm_bench {
template <>
const std::vector<Preset<Tf32x3>>& presets<Tf32x3>() {
  return detail::serving_table<Tf32x3>();
}
}  // namespace gemm_bench
