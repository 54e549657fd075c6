#pragma once
// The fused-epilogue harness (gemm::Epilogue): runs one call and checks D = act(alpha * op(A) op(B) +
// beta * C + bias) against the fp64 reference followed by the same bias and activation in double,
// element by element; NaN and Inf must come out where the reference gives them; nothing outside D
// may change, nor C when D is distinct.
#include <cmath>
#include <vector>
#include <gemm/instances.cuh>
#include "check.cuh"

// Tuned's fused bf16 GELU call with a float bias, which several test files run, is compiled once
// (common/fused_instances.cu) and declared here.
GEMM_FUSED_EXTERN(__nv_bfloat16, __nv_bfloat16, ::gemm::preset::Tuned, ::gemm::act::GeluTanh, float)

namespace epilogue_test {

using gemm::BiasKind;
using gemm::Op;
using gemm::Status;
using gemm_test::Case;
using gemm_test::DeviceBuffer;
namespace act = gemm::act;

// A caller's epilogue that uses the coordinates: scales each row and adds a ramp along the columns.
struct RowColumnRamp {
  template <class S>
  __host__ __device__ S operator()(S v, int row, int col) const {
    return v * S(1 + row % 3) + S(0.001) * S(col % 100);
  }
};

// How much an activation can magnify an error of its argument.
template <class Act>
constexpr double kSlope = std::is_same_v<Act, RowColumnRamp> ? 3.0 : 1.2;
// An activation's own absolute error per unit of |argument|: act::GeluTanhFast's hardware tanh (up
// to about 2^-11 absolute, times v / 2), with a factor of 2 to spare; exact formulas 0.
template <class Act>
constexpr double kActAbsolute = std::is_same_v<Act, act::GeluTanhFast> ? 0x1p-11 : 0.0;

struct FusedCase {
  Case c;
  BiasKind bias = BiasKind::PerColumn;
  bool in_place = false;   // D == C
  bool specials = false;   // bias holds NaN, +Inf and -Inf in its first three entries
  bool null_c = false;     // C passed as nullptr (beta == 0 only)
  int bias_offset = 0;     // the bias this many elements into its buffer (1: not aligned to pairs)
};

template <class Act>
Act make_act() {
  if constexpr (std::is_same_v<Act, act::Clamp>)
    return act::Clamp{-0.5f, 0.75f};
  else
    return Act{};
}

// Which entry points a check compiles. Each fused entry point is its own set of kernels (the
// row-major one: one layout; with ops: four; gemm::blas: four more, with the epilogue turned
// around), and a Hopper or Tuned set costs minutes of nvcc: checks whose cases are all row-major
// compile that entry point alone.
enum class Entries { RowMajor, Every };

// Runs one fused call and checks D element by element; outside D's m x n nothing may change, and C
// must be untouched when D is distinct.
template <class Policy, class T, class Out, class Act, class Bias = float, Entries kEntries = Entries::RowMajor>
void run_fused(const FusedCase& f) {
  using In = gemm::storage_t<T>;
  using S = gemm::scalar_t<T>;
  const Case& c = f.c;
  constexpr bool kFloatBias = std::is_same_v<Bias, float>;
  const char* type = gemm::type_name<T, Out>();
  INFO(Policy::name() << "<" << type << "> " << c.str() << " bias kind "
                      << static_cast<int>(f.bias) << (kFloatBias ? " (float)" : " (output type)")
                      << (f.in_place ? " D == C" : " D distinct") << (f.specials ? " NaN/Inf bias" : "")
                      << (f.null_c ? " C null" : "") << (f.bias_offset ? " bias offset" : ""));
  const int lda = c.lda(), ldb = c.ldb(), ldc = c.ldc();
  const int ldd = f.in_place ? ldc : c.n + (c.pad_c + 1) % 5;  // another padding than C's
  const size_t c_elems = c.offset_c + static_cast<size_t>(c.m + 1) * ldc;
  const size_t d_elems = f.in_place ? c_elems : c.offset_c + static_cast<size_t>(c.m + 1) * ldd;

  std::vector<In> a(std::max<size_t>(c.offset_a + static_cast<size_t>(c.a_rows()) * lda, 1));
  std::vector<In> b(std::max<size_t>(c.offset_b + static_cast<size_t>(c.b_rows()) * ldb, 1));
  gemm_test::fill_random(a);
  gemm_test::fill_random(b);
  std::vector<Out> c0(c_elems, gemm_test::sentinel<Out>()), d0(d_elems, gemm_test::sentinel<Out>());
  std::uniform_real_distribution<double> u(-1, 1);
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.n; ++j)
      c0[c.offset_c + static_cast<size_t>(i) * ldc + j] =
          gemm::detail::convert<Out>(c.nan_in_c ? std::numeric_limits<double>::quiet_NaN() : u(gemm_test::rng()));
  // The caller's frame: a column-major call's rows are the row-major problem's columns.
  const int caller_rows = c.column_major ? c.n : c.m, caller_cols = c.column_major ? c.m : c.n;
  const int bias_len = f.bias == BiasKind::PerRow ? caller_rows : caller_cols;
  std::vector<Bias> bias(std::max(bias_len, 1));
  for (auto& x : bias) x = gemm::detail::convert<Bias>(2 * u(gemm_test::rng()));
  if (f.specials && bias_len >= 3) {
    bias[0] = gemm::detail::convert<Bias>(std::numeric_limits<double>::quiet_NaN());
    bias[1] = gemm::detail::convert<Bias>(std::numeric_limits<double>::infinity());
    bias[2] = gemm::detail::convert<Bias>(-std::numeric_limits<double>::infinity());
  }

  DeviceBuffer<In> da(a.size()), db(b.size());
  DeviceBuffer<Out> dc(c0.size()), dd(f.in_place ? 1 : d0.size());
  DeviceBuffer<Bias> dbias(bias.size() + f.bias_offset);
  CUDA_REQUIRE(cudaMemcpy(da.ptr, a.data(), a.size() * sizeof(In), cudaMemcpyHostToDevice));
  CUDA_REQUIRE(cudaMemcpy(db.ptr, b.data(), b.size() * sizeof(In), cudaMemcpyHostToDevice));
  CUDA_REQUIRE(cudaMemcpy(dc.ptr, c0.data(), c0.size() * sizeof(Out), cudaMemcpyHostToDevice));
  if (!f.in_place) CUDA_REQUIRE(cudaMemcpy(dd.ptr, d0.data(), d0.size() * sizeof(Out), cudaMemcpyHostToDevice));
  CUDA_REQUIRE(cudaMemcpy(dbias.ptr + f.bias_offset, bias.data(), bias.size() * sizeof(Bias), cudaMemcpyHostToDevice));

  const In* dA = da.ptr + c.offset_a;
  const In* dB = db.ptr + c.offset_b;
  Out* dC = dc.ptr + c.offset_c;
  Out* dD = f.in_place ? dC : dd.ptr + c.offset_c;
  const Out* C_arg = f.null_c ? nullptr : dC;
  const gemm::Epilogue<Out, Act, Bias> epi{dD, ldd, f.bias == BiasKind::None ? nullptr : dbias.ptr + f.bias_offset, f.bias,
                                           make_act<Act>()};
  const S alpha = static_cast<S>(c.alpha), beta = static_cast<S>(c.beta);
  Status status;
  if (!c.column_major && c.op_a == Op::N && c.op_b == Op::N)
    status = gemm::gemm<T, Policy>(c.m, c.n, c.k, alpha, dA, lda, dB, ldb, beta, C_arg, ldc, epi);
  else if constexpr (kEntries == Entries::Every)
    status = c.column_major ? gemm::blas::gemm<T, Policy>(c.op_b, c.op_a, c.n, c.m, c.k, alpha, dB, ldb, dA, lda, beta,
                                                          C_arg, ldc, epi)
                            : gemm::gemm<T, Policy>(c.op_a, c.op_b, c.m, c.n, c.k, alpha, dA, lda, dB, ldb, beta,
                                                    C_arg, ldc, epi);
  else
    FAIL("a case with ops or column-major needs run_fused<..., Entries::Every>");
  INFO("status: " << gemm::to_string(status));
  REQUIRE(status == Status::Success);
  CUDA_REQUIRE(cudaDeviceSynchronize());

  std::vector<Out> c_after(c0.size()), d_after(d0.size());
  CUDA_REQUIRE(cudaMemcpy(c_after.data(), dc.ptr, c0.size() * sizeof(Out), cudaMemcpyDeviceToHost));
  if (f.in_place)
    d_after = c_after;
  else
    CUDA_REQUIRE(cudaMemcpy(d_after.data(), dd.ptr, d0.size() * sizeof(Out), cudaMemcpyDeviceToHost));

  const In* A = a.data() + c.offset_a;
  const In* B = b.data() + c.offset_b;
  const Out* C0 = c0.data() + c.offset_c;
  const bool ta = c.op_a == Op::T, tb = c.op_b == Op::T;
  std::vector<double> ref(static_cast<size_t>(c.m) * c.n), mag(ref.size());
  std::vector<double> abs_a(a.size()), abs_b(b.size());
  for (size_t i = 0; i < a.size(); ++i) abs_a[i] = std::fabs(gemm_test::to_double(a[i]));
  for (size_t i = 0; i < b.size(); ++i) abs_b[i] = std::fabs(gemm_test::to_double(b[i]));
  gemm::reference::gemm<In, Out>(ta, tb, c.m, c.n, c.k, c.alpha, A, lda, B, ldb, c.beta, c.beta != 0 ? C0 : nullptr,
                                 ldc, ref.data(), c.n);
  gemm::reference::gemm<double, double>(ta, tb, c.m, c.n, c.k, std::fabs(c.alpha), abs_a.data() + c.offset_a, lda,
                                        abs_b.data() + c.offset_b, ldb, 0.0, nullptr, 1, mag.data(), c.n);

  const gemm_test::ErrorModel<T, Out> model;
  const Act activation = make_act<Act>();
  long long wrong = 0, stray = 0;
  std::ostringstream first;
  const Out* D = d_after.data() + c.offset_c;
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.n; ++j) {
      const int row = c.column_major ? j : i, col = c.column_major ? i : j;
      const double b_v = f.bias == BiasKind::PerRow      ? gemm_test::to_double(bias[row])
                         : f.bias == BiasKind::PerColumn ? gemm_test::to_double(bias[col])
                                                         : 0.0;
      const double pre = ref[static_cast<size_t>(i) * c.n + j] + b_v;
      const double want = gemm::detail::activate(activation, pre, row, col);
      const double got = gemm_test::to_double(D[static_cast<size_t>(i) * ldd + j]);
      const double beta_c =
          c.beta != 0 ? std::fabs(c.beta * gemm_test::to_double(C0[static_cast<size_t>(i) * ldc + j])) : 0.0;
      bool ok;
      if (std::isnan(want) || std::isinf(want)) {
        ok = std::isnan(want) ? std::isnan(got) : got == want;
      } else {
        double bound = kSlope<Act> * model.element(c.k, mag[static_cast<size_t>(i) * c.n + j],
                                                   beta_c + std::fabs(b_v), pre) +
                       16 * model.u_acc * (std::fabs(pre) + std::fabs(want)) +
                       2 * model.u_out * std::fabs(want) + model.tiny_out;
        // (Only where the activation has such an error: an infinite argument can give a finite result.)
        if constexpr (kActAbsolute<Act> > 0) bound += kActAbsolute<Act> * std::fabs(pre);
        ok = std::fabs(got - want) <= bound;
      }
      if (!ok) {
        if (wrong < 5) first << "  D(" << i << "," << j << ") = " << got << ", expected " << want << " (before the "
                             << "activation " << pre << ")\n";
        ++wrong;
      }
    }
  // Outside D's elements nothing changes; a distinct C stays as it was.
  const auto outside = [&](const std::vector<Out>& now, const std::vector<Out>& was, int ld, bool whole) {
    for (size_t idx = 0; idx < now.size(); ++idx) {
      const bool inside = !whole && idx >= static_cast<size_t>(c.offset_c) &&
                          idx < c.offset_c + static_cast<size_t>(c.m) * ld &&
                          static_cast<int>((idx - c.offset_c) % ld) < c.n;
      if (!inside && std::memcmp(&now[idx], &was[idx], sizeof(Out)) != 0) {
        if (stray < 3) first << "  write outside D at element " << idx << (whole ? " of C" : "") << "\n";
        ++stray;
      }
    }
  };
  outside(d_after, f.in_place ? c0 : d0, ldd, false);
  if (!f.in_place) outside(c_after, c0, ldc, true);
  INFO("wrong elements: " << wrong << ", stray writes: " << stray << "\n" << first.str());
  CHECK(wrong == 0);
  CHECK(stray == 0);
}

// The cases each family runs: ragged and whole tiles, beta 0 over NaN and beta != 0, D distinct and
// in place, both bias kinds, NaN/Inf in the bias, k = 0 and alpha = 0, C null under beta = 0.
inline std::vector<FusedCase> family_cases(int align_elems) {
  const auto aligned = [&](Case c) { return gemm_test::rows_aligned_to(c, align_elems); };
  std::vector<FusedCase> v;
  v.push_back({aligned(Case{65, 63, 9, -1.25, 0.0, 0, 0, 0, 0, 0, 0, true}), BiasKind::PerColumn});
  v.push_back({aligned(Case{127, 129, 131, 2.0, -0.75, 6, 4, 4}), BiasKind::PerRow, false, true});
  v.push_back({aligned(Case{260, 132, 68, -1.5, 0.5, 4, 8, 4}), BiasKind::PerColumn, true, true});
  v.push_back({aligned(Case{256, 256, 64, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true}), BiasKind::PerRow, true});
  v.push_back({aligned(Case{300, 520, 100, 0.5, 0.0}), BiasKind::PerColumn, false, false, true});
  v.push_back({aligned(Case{7, 13, 29, 0.5, 1.0, 3, 1, 2}), BiasKind::None});
  v.push_back({Case{33, 17, 0, 1.0, 2.5}, BiasKind::PerColumn});
  v.push_back({Case{20, 30, 40, 0.0, -1.0}, BiasKind::PerRow, true});
  return v;
}

template <class Policy, class T, class Out, class Act = act::GeluTanh, class Bias = float>
void check_family(int align_elems = 1) {
  for (const FusedCase& f : family_cases(align_elems)) run_fused<Policy, T, Out, Act, Bias>(f);
}

// Every activation, on one preset: both bias kinds, NaN and Inf through the activation.
template <class Policy, class T, class Out, class Act>
void check_activation(int align_elems = 1) {
  const auto aligned = [&](Case c) { return gemm_test::rows_aligned_to(c, align_elems); };
  run_fused<Policy, T, Out, Act>({aligned(Case{127, 129, 131, 2.0, -0.75, 6, 4, 4}), BiasKind::PerRow, false, true});
  run_fused<Policy, T, Out, Act>({aligned(Case{65, 63, 9, -1.25, 0.0, 0, 0, 0, 0, 0, 0, true}), BiasKind::PerColumn,
                                  true, true});
  run_fused<Policy, T, Out, Act>({aligned(Case{33, 40, 48, 1.0, 0.0}), BiasKind::None});
}

template <class Policy, class T, class Out>
void check_all_activations(int align_elems = 1) {
  check_activation<Policy, T, Out, act::Identity>(align_elems);
  check_activation<Policy, T, Out, act::ReLU>(align_elems);
  check_activation<Policy, T, Out, act::GeluErf>(align_elems);
  check_activation<Policy, T, Out, act::GeluTanh>(align_elems);
  check_activation<Policy, T, Out, act::SiLU>(align_elems);
  check_activation<Policy, T, Out, act::Clamp>(align_elems);
  check_activation<Policy, T, Out, RowColumnRamp>(align_elems);
}

}  // namespace epilogue_test
