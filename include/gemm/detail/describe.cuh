#pragma once
// Helpers to print a part's parameters: "TileShape<128,128,8,8,8>".
#include <limits>
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

// A part with defaulted trailing parameters, as a user would write it: name<values...> without the
// trailing values that equal their defaults (defaults[i] for values[i]; a parameter without one,
// kNoDefault, is always shown).
inline constexpr int kNoDefault = std::numeric_limits<int>::min();
template <int N>
std::string templated_with_defaults(const char* name, const int (&values)[N], const int (&defaults)[N]) {
  int shown = N;
  while (shown > 0 && defaults[shown - 1] != kNoDefault && values[shown - 1] == defaults[shown - 1]) --shown;
  std::string s = std::string(name) + "<";
  for (int i = 0; i < shown; ++i) s += (i ? "," : "") + std::to_string(values[i]);
  return s + ">";
}

}  // namespace gemm::detail
