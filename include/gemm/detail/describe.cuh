#pragma once
// Helpers to print a part's parameters: "TileShape<128,128,8,8,8>".
#include <string>

namespace gemm::detail {

inline std::string join_ints() { return {}; }
template <class... Rest>
std::string join_ints(int first, Rest... rest) {
  std::string s = std::to_string(first);
  ((s += "," + std::to_string(rest)), ...);
  return s;
}

template <class... Ints>
std::string templated(const char* name, Ints... values) {
  return std::string(name) + "<" + join_ints(values...) + ">";
}

}  // namespace gemm::detail
