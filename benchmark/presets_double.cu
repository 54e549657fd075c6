// The preset table of double: every preset of gemm::preset::All that serves
// double, row-major entry point.
#include "presets_impl.cuh"

namespace gemm_bench {
template <>
const std::vector<Preset<Double>>& presets<Double>() {
  return detail::serving_table<Double>();
}
}  // namespace gemm_bench
