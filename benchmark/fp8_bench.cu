// The FP8 rows of gemm_bench: gemm::gemm<__nv_fp8_e4m3> (Tuned and the ladder's Fp8 stage) beside
// cuBLASLt in the same scale mode, on the same data, in the same run (cublaslt_fp8.cuh).
//
// Rows gemm/fp8_<scales>/<preset>/NT/<m>x<n>x<k>, scales tensor, rowwise or block (gemm::ScaleMode): A
// m x k row-major (activations, Op::N), B stored n x k (a weight, Op::T), C bf16 row-major, alpha 1,
// beta 0. Data, fresh for each shape: e4m3 values u 2^e (u uniform in (-1, 1), e an integer uniform in
// [-4, 4]) and positive scales in (2^-7, 2^-6), in sets rotated so that small shapes are not timed out
// of L2 (as bench.cu's rows). Each iteration times a batch of cuBLASLt and then one of ours on the same
// sets (CUDA events; batches of at least --gemm_batch_ms after about 20 ms of warm-up), so that clock
// drift affects both sides of the ratio alike. Counters:
//   TFLOPS           ours, from the median batch
//   cublas_TFLOPS    cuBLASLt in the same mode, from its median batch
//   pct_cublas       median over iterations of 100 * cuBLASLt's time / ours, the pair back to back
//   max_rel_diff_lt  max |C - C_lt| / max |C_lt| on set 0: a spot check, reported, never a failure
// Where cuBLASLt has no algorithm (4096x4104x4104: rows of 4104 bytes are not 16-byte aligned) the row
// times ours alone, without the cuBLASLt counters, and its label says why; the Fp8 preset refuses those
// rows too (Status::MisalignedA: TMA reads them), a skipped row.
#include "bench_common.cuh"
#include "cublaslt_fp8.cuh"
#include "shape_space.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>

namespace gemm_bench {
namespace {

using fp8 = __nv_fp8_e4m3;
using bf16 = __nv_bfloat16;

constexpr int kModeCount = 3;
constexpr gemm::ScaleMode kModes[kModeCount] = {gemm::ScaleMode::Tensor, gemm::ScaleMode::Rowwise,
                                                gemm::ScaleMode::Block};
int mode_index(gemm::ScaleMode m) {
  return m == gemm::ScaleMode::Tensor ? 0 : m == gemm::ScaleMode::Rowwise ? 1 : 2;
}

// ===========================================================================
// Data
// ===========================================================================
int fill_grid(std::size_t n) { return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>((n + 255) / 256, 1024))); }

// u 2^e over nine binades, rounded to e4m3 (|u 2^e| < 16, far inside e4m3's 448; the smallest round to 0).
__global__ void fill_fp8_kernel(fp8* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    const int e = static_cast<int>(splitmix64(splitmix64(seed ^ 0xE4E3ull) ^ i) % 9) - 4;
    p[i] = fp8(static_cast<float>(ldexp(uniform_pm1(seed, i), e)));
  }
}

// Positive scales in (2^-7, 2^-6): with the data above, C stays far inside bf16's range.
__global__ void fill_scales_kernel(float* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = static_cast<float>((1.5 + 0.5 * uniform_pm1(seed, i)) * 0.0078125);
}

// ===========================================================================
// Workspace of one shape: rotating sets of A, B and C, the scales of every mode, cuBLASLt per mode
// ===========================================================================
constexpr double kRotationBytes = 200e6;  // total size of all sets, at least
constexpr int kMaxSets = 64;

std::size_t pad256(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

struct Fp8Workspace {
  Shape s;
  int sets = 1, next = 0;
  std::size_t a_bytes = 0, b_bytes = 0, c_bytes = 0;  // each padded to 256 bytes
  char* inputs = nullptr;   // sets x (A, B)
  char* outputs = nullptr;  // sets x C
  bf16* c_lt = nullptr;     // cuBLASLt's C on set 0, for the spot check
  float* scales = nullptr;  // per mode, A's then B's, each 256-byte aligned; then a D scale and an amax
  std::size_t scale_offset[kModeCount][2] = {};
  std::size_t d_offset = 0;  // the D scale (and 32 floats on, amax) for --gemm_fp8_out=e4m3
  long long scale_count[kModeCount][2] = {};
  CublasLtFp8<bf16> lt[kModeCount];  // prepared by the mode's first row
  bool lt_prepared[kModeCount] = {};
  int lt_batch[kModeCount] = {};  // cuBLASLt's calibrated batch per mode: 0 not yet, -1 failed

  explicit Fp8Workspace(const Shape& shape) : s(shape) {
    a_bytes = pad256(std::size_t(s.m) * s.k);
    b_bytes = pad256(std::size_t(s.n) * s.k);
    c_bytes = pad256(std::size_t(s.m) * s.n * sizeof(bf16));
    sets = static_cast<int>(std::ceil(kRotationBytes / double(a_bytes + b_bytes + c_bytes)));
    sets = std::max(1, std::min(sets, kMaxSets));
    try {
      GEMM_BENCH_CUDA(cudaMalloc(&inputs, std::size_t(sets) * (a_bytes + b_bytes)));
      GEMM_BENCH_CUDA(cudaMalloc(&outputs, std::size_t(sets) * c_bytes));
      GEMM_BENCH_CUDA(cudaMalloc(&c_lt, c_bytes));
      std::size_t floats = 0;
      for (int i = 0; i < kModeCount; ++i) {
        scale_count[i][0] = gemm::Scales::needed_a(kModes[i], s.m, s.k);
        scale_count[i][1] = gemm::Scales::needed_b(kModes[i], s.n, s.k);
        for (int j = 0; j < 2; ++j) {
          scale_offset[i][j] = floats;
          floats += (std::size_t(scale_count[i][j]) + 63) / 64 * 64;
        }
      }
      d_offset = floats;
      floats += 64;
      GEMM_BENCH_CUDA(cudaMalloc(&scales, floats * sizeof(float)));
      const std::uint64_t seed = splitmix64((std::uint64_t(0xF8) << 56) ^ (std::uint64_t(s.m) << 40) ^
                                            (std::uint64_t(s.n) << 20) ^ std::uint64_t(s.k));
      const std::size_t bytes = std::size_t(sets) * (a_bytes + b_bytes);
      fill_fp8_kernel<<<fill_grid(bytes), 256>>>(reinterpret_cast<fp8*>(inputs), bytes, seed);
      GEMM_BENCH_CUDA(cudaGetLastError());
      fill_scales_kernel<<<fill_grid(floats), 256>>>(scales, floats, splitmix64(seed));
      GEMM_BENCH_CUDA(cudaGetLastError());
      GEMM_BENCH_CUDA(cudaDeviceSynchronize());
    } catch (...) {
      release();
      throw;
    }
  }
  ~Fp8Workspace() { release(); }
  void release() {
    if (inputs) cudaFree(inputs);
    if (outputs) cudaFree(outputs);
    if (c_lt) cudaFree(c_lt);
    if (scales) cudaFree(scales);
    inputs = outputs = nullptr;
    c_lt = nullptr;
    scales = nullptr;
  }
  fp8* A(int i) const { return reinterpret_cast<fp8*>(inputs + std::size_t(i) * (a_bytes + b_bytes)); }
  fp8* B(int i) const { return reinterpret_cast<fp8*>(inputs + std::size_t(i) * (a_bytes + b_bytes) + a_bytes); }
  bf16* C(int i) const { return reinterpret_cast<bf16*>(outputs + std::size_t(i) * c_bytes); }
  gemm::Scales scales_of(int mode) const {
    const float* a = scales + scale_offset[mode][0];
    const float* b = scales + scale_offset[mode][1];
    const long long na = scale_count[mode][0], nb = scale_count[mode][1];
    switch (kModes[mode]) {
      case gemm::ScaleMode::Tensor: return gemm::Scales::tensor(a, b);
      case gemm::ScaleMode::Rowwise: return gemm::Scales::rowwise(a, na, b, nb);
      default: return gemm::Scales::block(a, na, b, nb);
    }
  }
  // The output's scaling of --gemm_fp8_out=e4m3 (the D scale holds a fill value: positive, small).
  gemm::Scales with_output(const gemm::Scales& s) const { return s.output(scales + d_offset, scales + d_offset + 32); }
  int take() {
    const int i = next;
    next = (next + 1) % sets;
    return i;
  }
};

std::unique_ptr<Fp8Workspace> g_fp8_workspace;

Fp8Workspace& fp8_workspace(const Shape& s) {
  const Fp8Workspace* w = g_fp8_workspace.get();
  if (!w || w->s.m != s.m || w->s.n != s.n || w->s.k != s.k) {
    g_fp8_workspace.reset();  // the previous shape's buffers first,
    release_workspace();      // and those of the other types' rows, which ran before
    g_fp8_workspace = std::make_unique<Fp8Workspace>(s);
  }
  return *g_fp8_workspace;
}

// ===========================================================================
// Ours, timing
// ===========================================================================
using OursFn = gemm::Status (*)(const Shape&, const fp8*, const fp8*, bf16*, const gemm::Scales&, bool);

// The natural FP8 call: activations row-major, the weight stored n x k. fp8_c: C is e4m3 (in the
// bf16 buffer, which holds it twice over).
template <class Policy>
gemm::Status ours(const Shape& s, const fp8* A, const fp8* B, bf16* C, const gemm::Scales& scales, bool fp8_c) {
  if (fp8_c)
    return gemm::gemm<fp8, Policy>(gemm::Op::N, gemm::Op::T, s.m, s.n, s.k, 1.0f, A, s.k, B, s.k, 0.0f,
                                   reinterpret_cast<fp8*>(C), s.n, scales, 0);
  return gemm::gemm<fp8, Policy>(gemm::Op::N, gemm::Op::T, s.m, s.n, s.k, 1.0f, A, s.k, B, s.k, 0.0f, C, s.n, scales,
                                 0);
}



// Warm-up, then the number of launches (each on the next set) that makes a batch >= target_s.
template <class Launch>
int calibrate(Fp8Workspace& ws, double target_s, Launch&& launch, std::string* err) {
  return calibrate_launches(target_s, [&](std::string* e) { return launch(ws.take(), e); }, err);
}

// Seconds for n launches (each on the next set) between two events; 0 and *err on failure.
template <class Launch>
double time_batch(Fp8Workspace& ws, int n, Launch&& launch, std::string* err) {
  return time_launches(n, [&](std::string* e) { return launch(ws.take(), e); }, err);
}

// ===========================================================================
// Rows
// ===========================================================================
struct Fp8Record {
  std::string name, preset;
  Shape shape;
  gemm::ScaleMode mode = gemm::ScaleMode::Tensor;
  OursFn fn = nullptr;
  std::string error;    // the row failed or was refused (SkipWithError)
  bool refused = false;  // error is the preset refusing the operands' alignment, as the Hopper presets do
  std::string lt_note;  // why cuBLASLt did not run beside it
  std::string lt_describe;
  std::string cls;      // --gemm_fp8_space: the shape space's class (decode, forward, random)
  double ours_s = std::nan(""), lt_s = std::nan(""), pct = std::nan(""), diff = std::nan("");
};

std::vector<std::unique_ptr<Fp8Record>>& fp8_records() {
  static std::vector<std::unique_ptr<Fp8Record>> r;
  return r;
}

void run_fp8_row(benchmark::State& state, Fp8Record* r, const Options* opt) {
  auto fail = [&](const std::string& msg) {
    if (r->error.empty()) r->error = msg;
    state.SkipWithError(r->error.c_str());
  };
  if (!r->error.empty()) return fail(r->error);
  std::string why;
  if (!sm90_device("the FP8 rows need an sm_90 GPU (FP8 wgmma)", &why)) return fail(r->name + ": " + why);
  try {
    Fp8Workspace& ws = fp8_workspace(r->shape);
    const Shape& s = ws.s;
    const int mi = mode_index(r->mode);
    // --gemm_fp8_promote: ours promoted every that many k (block scales: 128); 0 (never) gives
    // cuBLASLt its fast accumulation too, so that neither side promotes.
    const bool block = r->mode == gemm::ScaleMode::Block;
    const gemm::Scales lt_scales = ws.scales_of(mi);
    const gemm::Scales promoted = lt_scales.promote_every(block ? gemm::kScaleBlock : opt->fp8_promote);
    const bool fp8_c = opt->fp8_out_e4m3;
    const gemm::Scales scales = fp8_c ? ws.with_output(promoted) : promoted;
    CublasLtFp8<bf16>& lt = ws.lt[mi];
    if (!ws.lt_prepared[mi]) {
      if (lt.prepare(s.m, s.n, s.k, s.k, s.k, s.n, lt_scales, !block && opt->fp8_promote == 0) == LtStatus::CudaError)
        throw Error(lt.message());
      ws.lt_prepared[mi] = true;
      if (!lt.ready()) ws.lt_batch[mi] = -1;
    }

    // Spot check on set 0, C first filled with bytes 0x7f (3.4e38 in bf16) so that unwritten elements show.
    const std::size_t elems = std::size_t(s.m) * s.n;
    GEMM_BENCH_CUDA(cudaMemset(ws.C(0), 0x7f, ws.c_bytes));
    if (const gemm::Status st = r->fn(s, ws.A(0), ws.B(0), ws.C(0), scales, fp8_c); st != gemm::Status::Success) {
      r->refused = st == gemm::Status::MisalignedA || st == gemm::Status::MisalignedB || st == gemm::Status::MisalignedC;
      return fail(r->name + ": " + launch_error(st));
    }
    GEMM_BENCH_CUDA(cudaDeviceSynchronize());
    bool with_lt = ws.lt_batch[mi] >= 0;
    if (with_lt) {
      GEMM_BENCH_CUDA(cudaMemset(ws.c_lt, 0x7f, ws.c_bytes));
      with_lt = lt.run(ws.A(0), ws.B(0), ws.c_lt) == LtStatus::Success;
      GEMM_BENCH_CUDA(cudaDeviceSynchronize());
      if (!with_lt) {
        ws.lt_batch[mi] = -1;
      } else if (!fp8_c) {  // (e4m3 C: no spot check)
        const Comparison c = compare_device(ws.C(0), ws.c_lt, elems);
        r->diff = c.nonfinite ? INFINITY : c.rel();
      }
    }

    std::string err;
    auto launch_ours = [&](int set, std::string* e) {
      const gemm::Status st = r->fn(s, ws.A(set), ws.B(set), ws.C(set), scales, fp8_c);
      if (st == gemm::Status::Success) return true;
      *e = launch_error(st);
      return false;
    };
    auto launch_lt = [&](int set, std::string* e) {
      if (lt.run(ws.A(set), ws.B(set), ws.C(set)) == LtStatus::Success) return true;
      *e = lt.message();
      return false;
    };
    const double target_s = opt->batch_ms * 1e-3;
    const int batch = calibrate(ws, target_s, launch_ours, &err);
    if (!err.empty()) return fail(r->name + ": " + err);
    // cuBLASLt's batch is calibrated (with its warm-up) once per shape and mode, and shared by the presets.
    if (with_lt && ws.lt_batch[mi] == 0) {
      ws.lt_batch[mi] = calibrate(ws, target_s, launch_lt, &err);
      if (!err.empty()) ws.lt_batch[mi] = -1, err.clear();
    }
    int lt_batch = ws.lt_batch[mi];
    if (lt_batch < 0) r->diff = std::nan("");
    if (!lt.ready()) r->lt_note = "cuBLASLt refused: " + lt.message();
    else if (lt_batch < 0) r->lt_note = "cuBLASLt failed: " + lt.message();
    else r->lt_describe = lt.describe();

    std::vector<double> ours_t, lt_t, pct;
    for (auto _ : state) {
      double lt_launch = 0;
      if (lt_batch > 0) {
        lt_launch = time_batch(ws, lt_batch, launch_lt, &err) / lt_batch;
        if (!err.empty()) {
          r->lt_note = "cuBLASLt failed: " + err;
          err.clear();
          lt_batch = ws.lt_batch[mi] = -1;
        }
      }
      const double t = time_batch(ws, batch, launch_ours, &err) / batch;
      if (!err.empty()) {
        fail(r->name + ": " + err);
        break;
      }
      ours_t.push_back(t);
      if (lt_batch > 0) {
        lt_t.push_back(lt_launch);
        pct.push_back(100.0 * lt_launch / t);
      }
      state.SetIterationTime(t);
    }
    if (!r->error.empty()) return;

    r->ours_s = median(ours_t);
    state.counters["TFLOPS"] = s.flops() / r->ours_s * 1e-12;
    if (!lt_t.empty()) {
      r->lt_s = median(lt_t);
      r->pct = median(pct);
      state.counters["cublas_TFLOPS"] = s.flops() / r->lt_s * 1e-12;
      state.counters["pct_cublas"] = r->pct;
    }
    if (!std::isnan(r->diff)) state.counters["max_rel_diff_lt"] = r->diff;
    state.counters["batch"] = batch;
    state.counters["sets"] = ws.sets;
    state.SetLabel(r->lt_note.empty() ? r->lt_describe : r->lt_note);
  } catch (const std::exception& e) {
    fail(r->name + ": " + e.what());
  }
}

// ===========================================================================
// Grid
// ===========================================================================
struct Fp8Case {
  Shape s;
  std::vector<gemm::ScaleMode> modes;
  std::string cls;  // the shape space's class (--gemm_fp8_space), else empty
};

std::vector<Fp8Case> fp8_grid() {
  const std::vector<gemm::ScaleMode> all(std::begin(kModes), std::end(kModes));
  return {
      {{4096, 4096, 4096}, all},
      {{8192, 8192, 8192}, all},
      {{4096, 14336, 4096}, all},              // LLaMA-3 8B's MLP up projection
      {{4096, 7168, 2048}, all},               // DeepSeek-V3's shapes, where block scales come from
      {{4096, 2112, 7168}, all},
      {{64, 8192, 8192}, all},                 // decode
      {{1, 8192, 8192}, all},                  // decode, a few tokens (tensor and row scales: turned around)
      {{16, 8192, 8192}, all},
      {{32, 4096, 7168}, all},
      {{128, 7168, 2048}, all},
      {{2048, 2048, 2048}, all},
      {{4096, 4104, 4104}, {gemm::ScaleMode::Tensor}},  // rows of 4104 bytes: not 16-byte aligned
  };
}

// --gemm_fp8_space: every forward-form call of the shape space (Y = X W^T with the weight stored n x k,
// FP8's natural call): decode, forward, and the random shapes' NT form, in every scale mode.
std::vector<Fp8Case> fp8_space_cases() {
  const std::vector<gemm::ScaleMode> all(std::begin(kModes), std::end(kModes));
  std::vector<Fp8Case> cases;
  for (const SpaceShape& sp : shape_space())
    if (sp.type == "bf16" && sp.layout == "NT" && (sp.cls == "decode" || sp.cls == "forward" || sp.cls == "random"))
      cases.push_back({{sp.m, sp.n, sp.k}, all, sp.cls});
  return cases;
}

bool list_has(const std::string& list, const std::string& item) {
  std::stringstream ss(list);
  std::string x;
  while (std::getline(ss, x, ','))
    if (x == item) return true;
  return false;
}

// FP8 rows unless --gemm_types leaves out fp8 or --gemm_layouts leaves out NT (their only layout).
bool fp8_selected(const Options& opt) {
  if (opt.shape_space || opt.flow_only) return false;
  if (!opt.types.empty() && !list_has(opt.types, kFp8TypeName)) return false;
  return opt.layouts.empty() || list_has(opt.layouts, "NT");
}

}  // namespace

void register_fp8_benchmarks(const Options& opt) {
  if (!fp8_selected(opt)) return;
  std::vector<Fp8Case> cases;
  const std::vector<Shape> custom = parse_shapes(opt.shapes);
  if (opt.fp8_space) {
    cases = fp8_space_cases();
  } else {
    if (custom.empty()) cases = fp8_grid();
    for (const Shape& s : custom) cases.push_back({s, {std::begin(kModes), std::end(kModes)}, ""});
  }
  const std::pair<std::string, OursFn> presets[] = {{gemm::preset::Tuned::name(), ours<gemm::preset::Tuned>},
                                                    {gemm::preset::Fp8::name(), ours<gemm::preset::Fp8>}};
  const std::size_t n_presets = opt.fp8_space ? 1 : 2;  // (the space: Tuned, the default a user gets)
  for (const Fp8Case& c : cases)
    for (gemm::ScaleMode mode : c.modes)
      for (std::size_t p = 0; p < n_presets; ++p) {
        const auto& [preset, fn] = presets[p];
        auto r = std::make_unique<Fp8Record>();
        r->name = std::string("gemm/fp8_") + gemm::to_string(mode) + "/" + preset + "/NT/" + c.s.str();
        r->preset = preset;
        r->shape = c.s;
        r->mode = mode;
        r->fn = fn;
        r->cls = c.cls;
        Fp8Record* rp = r.get();
        fp8_records().push_back(std::move(r));
        benchmark::RegisterBenchmark(rp->name.c_str(),
                                     [rp, &opt](benchmark::State& st) { run_fp8_row(st, rp, &opt); })
            ->UseManualTime()
            ->Iterations(std::max(1, opt.repetitions))
            ->Unit(benchmark::kMicrosecond);
      }
  benchmark::AddCustomContext("cublaslt_fp8",
                              "cublasLtMatmul e4m3 x e4m3 TN, CUBLAS_COMPUTE_32F, scale type CUDA_R_32F, D bf16, "
                              "32 MiB workspace, the heuristic's first algorithm, same scale mode as the row");
  benchmark::AddCustomContext("fp8_output", opt.fp8_out_e4m3 ? "ours: e4m3 C with a D scale and amax; cuBLASLt: bf16 D"
                                                             : "bf16 C on both sides");
  benchmark::AddCustomContext("fp8_promote", opt.fp8_promote == 0
                                                 ? "0: tensor and row rows never promoted, cuBLASLt with FAST_ACCUM"
                                                 : std::to_string(opt.fp8_promote) +
                                                       " k per promoted sum (block rows: 128); cuBLASLt promoted");
}

namespace {

// --gemm_fp8_space's summary: per scale mode and class (and over all classes), the geometric mean of
// ours / cuBLASLt and the worst call, over the calls both ran; the calls cuBLASLt refused and those
// that failed here are counted apart.
void print_fp8_space_summary(const std::vector<const Fp8Record*>& rows) {
  std::printf("## FP8 over the shape space's forward-form calls: Tuned / cuBLASLt in the same scale mode\n\n");
  std::printf("| scales | class | calls | geometric mean | worst | worst call | cuBLASLt refused | failed here |\n");
  std::printf("|---|---|---:|---:|---:|---|---:|---:|\n");
  std::vector<std::string> classes = shape_classes();  // (those without FP8 rows print nothing)
  classes.push_back("all");
  for (gemm::ScaleMode mode : kModes)
    for (const std::string& cls : classes) {
      std::vector<double> ratios;
      double worst = std::nan("");
      std::string worst_call;
      int refused = 0, failed = 0;
      for (const Fp8Record* r : rows) {
        if (r->mode != mode || (cls != "all" && r->cls != cls)) continue;
        if (!r->error.empty()) {
          ++failed;
          continue;
        }
        if (std::isnan(r->pct)) {
          ++refused;
          continue;
        }
        ratios.push_back(r->pct / 100.0);
        if (std::isnan(worst) || r->pct / 100.0 < worst) worst = r->pct / 100.0, worst_call = r->shape.str();
      }
      if (ratios.empty() && refused == 0 && failed == 0) continue;
      std::printf("| %s | %s | %zu | %s | %s | %s | %d | %d |\n", gemm::to_string(mode), cls.c_str(), ratios.size(),
                  ratios.empty() ? "-" : fmt("%.3f", geomean(ratios)).c_str(),
                  ratios.empty() ? "-" : fmt("%.3f", worst).c_str(), worst_call.c_str(), refused, failed);
    }
  std::printf("\n");
}

}  // namespace

void print_fp8_summary(const Options& opt) {
  std::vector<const Fp8Record*> rows;
  for (const auto& r : fp8_records())
    if (!std::isnan(r->ours_s) || !r->error.empty()) rows.push_back(r.get());
  if (rows.empty()) return;
  std::printf("\n## gemm_bench FP8 rows (%s; median of %d paired batches; %% of cuBLASLt = median of cuBLASLt's "
              "batch time / ours just after it, same scale mode and data; tensor and row scales promoted every %s)\n\n",
              device_summary().c_str(), std::max(1, opt.repetitions),
              opt.fp8_promote == 0 ? "0 k: never, cuBLASLt with fast accumulation"
                                   : (std::to_string(opt.fp8_promote) + " k").c_str());
  std::printf("| scales | shape | preset | TFLOP/s | cuBLASLt TFLOP/s | %% of cuBLASLt | max rel diff vs cuBLASLt | note |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---|\n");
  for (const Fp8Record* r : rows) {
    std::string ours = "-", theirs = "-", pct = "-", diff = "-", note = r->lt_note;
    if (!r->error.empty()) {
      note = (r->refused ? "skipped, the preset refuses the alignment (Tuned stages such rows): " : "ERROR: ") + r->error;
    } else {
      ours = fmt("%.1f", r->shape.flops() / r->ours_s * 1e-12);
      if (!std::isnan(r->lt_s)) theirs = fmt("%.1f", r->shape.flops() / r->lt_s * 1e-12);
      if (!std::isnan(r->pct)) pct = fmt("%.1f%%", r->pct);
      if (!std::isnan(r->diff)) diff = fmt("%.1e", r->diff);
    }
    std::printf("| %s | %s NT | %s | %s | %s | %s | %s | %s |\n", gemm::to_string(r->mode), r->shape.str().c_str(),
                r->preset.c_str(), ours.c_str(), theirs.c_str(), pct.c_str(), diff.c_str(), note.c_str());
  }
  std::printf("\n");
  if (opt.fp8_space) print_fp8_space_summary(rows);
  std::fflush(stdout);
}

void release_fp8_workspace() { g_fp8_workspace.reset(); }

void fill_fp8(__nv_fp8_e4m3* p, std::size_t n, std::uint64_t seed) {
  fill_fp8_kernel<<<fill_grid(n), 256>>>(p, n, seed);
}
void fill_fp8_scales(float* p, std::size_t n, std::uint64_t seed) {
  fill_scales_kernel<<<fill_grid(n), 256>>>(p, n, seed);
}
gemm::Status tuned_fp8_nt(int m, int n, int k, const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* B, __nv_bfloat16* C,
                          const gemm::Scales& scales) {
  return ours<gemm::preset::Tuned>(Shape{m, n, k}, A, B, C, scales, false);
}

}  // namespace gemm_bench
