// Instantiates every preset of gemm::preset::All for double.
#include "presets_impl.cuh"

namespace gemm_bench {
template <>
const std::vector<Preset<double>>& presets<double>() {
  static const std::vector<Preset<double>> table =
      detail::make_preset_table<double>(gemm::preset::All{});
  return table;
}
}  // namespace gemm_bench
