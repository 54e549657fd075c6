// The preset table of float: every preset of gemm::preset::All that serves
// float, row-major entry point.
#include "presets_impl.cuh"

namespace gemm_bench {
template <>
const std::vector<Preset<Float>>& presets<Float>() {
  return detail::serving_table<Float>();
}
}  // namespace gemm_bench
