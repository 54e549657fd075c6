// Instantiates every preset of gemm::preset::All for float.
#include "presets_impl.cuh"

namespace gemm_bench {
template <>
const std::vector<Preset<float>>& presets<float>() {
  static const std::vector<Preset<float>> table =
      detail::make_preset_table<float>(gemm::preset::All{});
  return table;
}
}  // namespace gemm_bench
