// Autotuner: a compile-time grid of fp32 compositions, each timed beside cuBLAS (strict fp32) on
// the same random data, checked against cuBLAS first, then ranked by the geometric mean of their
// speed relative to cuBLAS over the shapes. Usage:
//   autotune [--out results.md] [--reps N]
// Build: part of the CMake tree (target gemm_autotune, build/tools/gemm_autotune), or
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iinclude tools/autotune.cu -lcublas
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <gemm/gemm.cuh>
#include "../examples/support.cuh"

namespace tune {
using namespace gemm;

// One candidate: tile, warp tile, pipeline, raster, then optionally the A layout, math, k split and
// loader. All use a transposed or padded row-major A, row-major B and the vector epilogue
// (VectorLoader<> candidates run their scalar-copy instantiation on misaligned input).
template <int BM, int BN, int BK, int WM, int WN, int WMI, int WNI, int TM, int TN, class Pipe, class Raster,
          class ALayout = Transposed<4>, class Math = OuterProduct, class Split = NoSplitK, class Loader = VectorLoader<>>
struct Candidate : TiledPolicy<TileShape<BM, BN, BK, TM, TN>, WarpThreadMap<WM, WN, WMI, WNI>, Loader,
                               SmemLayout<ALayout, RowMajor<0>>, Pipe, Math, VectorEpilogue, Raster, Split>,
                   Named<Candidate<BM, BN, BK, WM, WN, WMI, WNI, TM, TN, Pipe, Raster, ALayout, Math, Split, Loader>> {
  static const char* name() { return "candidate"; }
};

template <int S>
using Cp = CpAsyncMultiStage<S>;
template <int S>
using Fp = CpAsyncFragmentPipeline<S>;
using Rb = RegisterDoubleBuffer;
using Row = RowMajorRaster;
template <int G>
using Swz = SwizzledRaster<G>;
using K = OuterProductAlongK;
using O = OuterProduct;
template <int P>
using RM = RowMajor<P>;
using T4 = Transposed<4>;
using SK = StreamK;
using NoSK = NoSplitK;
using Scalar = ScalarLoader;

// The grid. 128x128 tiles with 32x64 warp tiles give 2 blocks per SM at ~128 registers; 128x256 or
// 256x128 tiles with 64x64 warp tiles give 1 block of 8 warps at ~210-240 registers (CUTLASS's SIMT
// shape). ScalarLoader candidates are the misaligned path on its own (every copy one element).
using Grid = TypeList<
    // The tutorial presets' compositions, for reference
    Candidate<128, 128, 8, 32, 64, 2, 2, 4, 4, Cp<3>, Row>,                        // = MultiStage
    Candidate<128, 128, 8, 32, 64, 2, 2, 4, 4, Rb, Row>,                           // = WarpTiled
    // Large C, aligned: 128x256 tiles, 8 warps of 64x64
    Candidate<128, 256, 16, 64, 64, 4, 2, 4, 4, Cp<3>, Swz<8>>,
    Candidate<128, 256, 16, 64, 64, 4, 2, 4, 4, Cp<3>, Swz<8>, T4, O, SK>,
    Candidate<128, 256, 16, 64, 64, 4, 2, 4, 4, Cp<4>, Swz<8>, T4, O, SK>,
    Candidate<128, 256, 32, 64, 64, 4, 2, 4, 4, Cp<3>, Swz<8>, T4, O, SK>,
    Candidate<128, 256, 16, 64, 64, 4, 2, 4, 4, Cp<3>, Row, T4, O, SK>,            // = Tuned::Large
    Candidate<128, 256, 16, 64, 64, 4, 2, 4, 4, Cp<3>, Row>,                       // the same without stream-K
    Candidate<128, 256, 16, 64, 64, 4, 2, 4, 4, Fp<3>, Swz<8>, T4, O, SK>,
    Candidate<128, 256, 16, 64, 64, 4, 2, 4, 4, Fp<4>, Swz<8>, T4, O, SK>,
    Candidate<256, 128, 16, 64, 64, 4, 2, 4, 4, Cp<3>, Swz<8>, T4, O, SK>,
    Candidate<256, 128, 8, 64, 64, 4, 2, 4, 4, Fp<4>, Swz<8>, T4, O, SK>,
    Candidate<128, 128, 16, 32, 64, 2, 2, 4, 4, Fp<3>, Swz<8>, T4, O, SK>,
    // Large C, misaligned: every copy one element
    Candidate<256, 128, 8, 64, 64, 4, 2, 4, 4, Rb, Swz<8>, T4, O, NoSK, Scalar>,
    Candidate<256, 128, 8, 64, 64, 4, 2, 4, 4, Fp<3>, Swz<8>, T4, O, SK, Scalar>,  // = Tuned::LargeMisaligned
    Candidate<256, 128, 8, 64, 64, 4, 2, 4, 4, Fp<4>, Swz<8>, T4, O, SK, Scalar>,
    Candidate<256, 128, 16, 64, 64, 4, 2, 4, 4, Cp<3>, Swz<8>, T4, O, SK, Scalar>,
    Candidate<128, 256, 16, 64, 64, 4, 2, 4, 4, Cp<3>, Swz<8>, T4, O, SK, Scalar>,
    // Small C: 64x64 tiles, A read along k
    Candidate<64, 64, 16, 32, 32, 8, 1, 1, 4, Cp<3>, Swz<8>, RM<4>, K>,
    Candidate<64, 64, 32, 32, 32, 8, 1, 1, 4, Cp<3>, Swz<8>, RM<4>, K>,
    Candidate<64, 64, 16, 32, 32, 8, 1, 1, 4, Fp<3>, Swz<8>, RM<4>, K>,
    Candidate<64, 64, 32, 32, 32, 8, 1, 1, 4, Fp<3>, Swz<8>, RM<4>, K>,            // = Tuned::Small
    Candidate<64, 64, 32, 32, 32, 8, 1, 1, 4, Fp<4>, Swz<8>, RM<4>, K>,
    Candidate<64, 128, 32, 32, 64, 8, 2, 1, 4, Fp<3>, Swz<8>, RM<4>, K>>;

struct Shape {
  int m, n, k;
};

using support::median_ms;

struct Ranked {
  std::string describe;
  std::vector<double> ratio;  // vs cuBLAS per shape
  std::vector<double> tflops;
  bool ok = true;
  double score = 0;
};

struct Tuner {
  std::vector<Shape> shapes;
  float *A, *B, *C;
  std::vector<std::vector<float>> reference;
  std::vector<double> cublas_tflops;
  std::vector<Ranked> rows;
  int reps;
  int only = -1;  // run just this candidate (for profiling), -1 for all
  int index = 0;

  template <class P>
  void candidate() {
    if (only >= 0 && index++ != only) return;
    Ranked r{P::describe()};
    for (size_t s = 0; s < shapes.size(); ++s) {
      const int m = shapes[s].m, n = shapes[s].n, k = shapes[s].k;
      auto call = [&] {
        if (gemm::gemm<float, P>(m, n, k, 1.f, A, k, B, n, 0.f, C, n) != Status::Success) r.ok = false;
      };
      CHECK_CUDA(cudaMemset(C, 0xff, size_t(m) * n * 4));
      call();
      CHECK_CUDA(cudaDeviceSynchronize());
      std::vector<float> got(size_t(m) * n);
      CHECK_CUDA(cudaMemcpy(got.data(), C, got.size() * 4, cudaMemcpyDeviceToHost));
      double diff = 0, scale = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        const double d = std::fabs(double(got[i]) - reference[s][i]);
        diff = d == d ? std::max(diff, d) : INFINITY;
        scale = std::max(scale, std::fabs(double(reference[s][i])));
      }
      if (!(diff / scale < 1e-4)) r.ok = false;
      const double t = 2.0 * m * n * double(k) / (median_ms(call, reps) * 1e-3) / 1e12;
      r.tflops.push_back(t);
      r.ratio.push_back(t / cublas_tflops[s]);
    }
    double log_sum = 0;
    for (double x : r.ratio) log_sum += std::log(x);
    r.score = r.ok ? std::exp(log_sum / r.ratio.size()) : 0;
    std::fprintf(stderr, "%5.1f%%  %s%s\n", 100 * r.score, r.describe.c_str(), r.ok ? "" : "  [WRONG RESULT]");
    rows.push_back(r);
  }
  template <class... P>
  void all(TypeList<P...>) {
    (candidate<P>(), ...);
  }
};

}  // namespace tune

int main(int argc, char** argv) {
  const char* out_path = nullptr;
  int reps = 15, only = -1, size = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--size") && i + 1 < argc) size = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--out") && i + 1 < argc) out_path = argv[++i];
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
  }
  tune::Tuner t;
  t.reps = reps;
  t.only = only;
  t.shapes = {{1024, 1024, 1024}, {2048, 2048, 2048}, {3072, 3072, 3072}, {4096, 4096, 4096}, {4095, 4097, 4093}, {8192, 8192, 8192}};
  if (size > 0) t.shapes = {{size, size, size}};
  size_t max_a = 0, max_b = 0, max_c = 0;
  for (auto s : t.shapes) {
    max_a = std::max(max_a, size_t(s.m) * s.k);
    max_b = std::max(max_b, size_t(s.k) * s.n);
    max_c = std::max(max_c, size_t(s.m) * s.n);
  }
  CHECK_CUDA(cudaMalloc(&t.A, max_a * 4));
  CHECK_CUDA(cudaMalloc(&t.B, max_b * 4));
  CHECK_CUDA(cudaMalloc(&t.C, max_c * 4));
  support::fill_random(t.A, max_a, 11u);
  support::fill_random(t.B, max_b, 12u);
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH);
  for (const auto& shape : t.shapes) {
    const int m = shape.m, n = shape.n, k = shape.k;
    const float one = 1, zero = 0;
    auto call = [&] { cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, t.B, n, t.A, k, &zero, t.C, n); };
    const double ms = tune::median_ms(call, reps);
    t.cublas_tflops.push_back(2.0 * m * n * double(k) / (ms * 1e-3) / 1e12);
    t.reference.emplace_back(size_t(m) * n);
    CHECK_CUDA(cudaMemcpy(t.reference.back().data(), t.C, size_t(m) * n * 4, cudaMemcpyDeviceToHost));
  }
  t.all(tune::Grid{});

  std::sort(t.rows.begin(), t.rows.end(), [](auto& a, auto& b) { return a.score > b.score; });
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::string md = "Autotune, " + std::string(prop.name) + ", fp32 strict, median of " + std::to_string(reps) +
                   " event-timed runs per point, cuBLAS SGEMM (pedantic) in the same run.\n\n| rank | score (geomean of cuBLAS) |";
  for (auto s : t.shapes) md += " " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + " |";
  md += " candidate |\n|---:|---:|";
  for (size_t i = 0; i < t.shapes.size(); ++i) md += "---:|";
  md += "---|\n| - | cuBLAS |";
  char buf[128];
  for (double c : t.cublas_tflops) std::snprintf(buf, sizeof buf, " %.1f TFLOP/s |", c), md += buf;
  md += " cuBLAS SGEMM |\n";
  int rank = 1;
  for (auto& r : t.rows) {
    std::snprintf(buf, sizeof buf, "| %d | %.1f%% |", rank++, 100 * r.score);
    md += buf;
    for (size_t i = 0; i < r.ratio.size(); ++i) std::snprintf(buf, sizeof buf, " %.1f (%.0f%%) |", r.tflops[i], 100 * r.ratio[i]), md += buf;
    md += " " + r.describe + (r.ok ? "" : " WRONG") + " |\n";
  }
  std::printf("%s", md.c_str());
  if (out_path) {
    FILE* f = std::fopen(out_path, "w");
    if (f) std::fputs(md.c_str(), f), std::fclose(f);
  }
  cublasDestroy(h);
  return 0;
}
