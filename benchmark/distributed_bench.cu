// gemm_distributed_bench: gemm::distributed on every GPU of the machine against one GPU (Google
// Benchmark). Rows:
//   distributed/<type>/single/1gpu/<m>x<n>x<k>            gemm::gemm on GPU 0: T(1)
//   distributed/<type>/<algorithm>/<p>gpu/<m>x<n>x<k>     the algorithm on p GPUs: T(p)
//   distributed/<type>/allgather/<p>gpu/<shape>/ctas:<c>  the all-gather with NCCL on c CTAs
// with the counters TFLOPS (2mnk / T), efficiency = T(1) / (p T(p)), T1_ms, max_rel_err (the
// distributed C against the single-GPU C, checked once before timing), comm_ctas, compute_sms.
// allgather_then_gemm (the no-overlap baseline) runs on communicators with NCCL's default number of
// CTAs; the other algorithms on the library's default (Options::comm_ctas). A timed batch enqueues
// calls back to back on every rank's stream, bracketed by events; T is the slowest rank's time per
// call. A summary at the end sets the numbers against the design targets (docs/multi-gpu.md).
#include <benchmark/benchmark.h>
#include <gemm/distributed/gemm.cuh>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>
#include <cuda_runtime.h>

namespace {

namespace gd = gemm::distributed;
using gemm::Op;

void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "gemm_distributed_bench: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

struct Shape {
  int m, n, k;
  std::string str() const { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); }
  double flops() const { return 2.0 * m * n * static_cast<double>(k); }
};

struct Settings {
  std::vector<Shape> shapes{{8192, 8192, 8192}};
  std::vector<std::string> types{"bf16", "float"};
  std::vector<int> ctas{8, 32};
  int repetitions = 7;
  double batch_ms = 25;
  bool list_only = false;
} settings;

// ---------------------------------------------------------------------------
// Communicators: one group per comm_ctas value (-1: the library's default Options).
// ---------------------------------------------------------------------------
std::map<int, std::unique_ptr<gd::LocalGroup>> groups;

gd::LocalGroup& group_for(int ctas) {
  auto& slot = groups[ctas];
  if (!slot) {
    slot = std::make_unique<gd::LocalGroup>();
    gd::Options options;
    if (ctas >= 0) options.comm_ctas = ctas;
    const gemm::Status s = slot->init({}, options);
    if (s != gemm::Status::Success) {
      std::fprintf(stderr, "gemm_distributed_bench: LocalGroup::init(comm_ctas %d): %s (NCCL: %s)\n", ctas,
                   gemm::to_string(s), ncclGetErrorString(gd::last_nccl_error()));
      std::exit(1);
    }
  }
  return *slot;
}

// ---------------------------------------------------------------------------
// Data: every matrix element is a hash of its coordinates in the whole stored matrix, so that a
// shard made on its own device holds exactly its block of the whole.
// ---------------------------------------------------------------------------
template <class E>
__global__ void fill_kernel(E* dst, int rows, int cols, long long ld, int row0, int col0, unsigned long long seed) {
  const long long total = static_cast<long long>(rows) * cols;
  for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int i = static_cast<int>(idx / cols), j = static_cast<int>(idx % cols);
    unsigned long long h = seed ^ (static_cast<unsigned long long>(row0 + i) * 0x9E3779B97F4A7C15ull) ^
                           (static_cast<unsigned long long>(col0 + j) * 0xC2B2AE3D27D4EB4Full);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    const float v = static_cast<float>(h >> 40) / static_cast<float>(1ull << 24) * 2.0f - 1.0f;  // [-1, 1)
    dst[i * ld + j] = gemm::detail::convert<E>(v);
  }
}

template <class E>
struct Buffer {
  int device = 0;
  E* ptr = nullptr;
  size_t count = 0;
  Buffer(int dev, size_t n) : device(dev), count(n) {
    cuda_check(cudaSetDevice(dev), "cudaSetDevice");
    cuda_check(cudaMalloc(&ptr, std::max<size_t>(n, 1) * sizeof(E)), "cudaMalloc");
  }
  ~Buffer() {
    cudaSetDevice(device);
    cudaFree(ptr);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  std::vector<E> download() const {
    std::vector<E> v(count);
    cuda_check(cudaSetDevice(device), "cudaSetDevice");
    cuda_check(cudaMemcpy(v.data(), ptr, count * sizeof(E), cudaMemcpyDeviceToHost), "download");
    return v;
  }
};

template <class E>
std::unique_ptr<Buffer<E>> make_block(int device, const gd::Block& b, unsigned long long seed) {
  auto buf = std::make_unique<Buffer<E>>(device, static_cast<size_t>(b.rows) * b.cols);
  if (b.rows > 0 && b.cols > 0) {
    fill_kernel<E><<<1024, 256>>>(buf->ptr, b.rows, b.cols, b.cols, b.row, b.col, seed);
    cuda_check(cudaGetLastError(), "fill_kernel");
    cuda_check(cudaDeviceSynchronize(), "fill_kernel");
  }
  return buf;
}

template <class T>
constexpr const char* type_label() {
  return std::is_same_v<T, float> ? "float" : "bf16";
}

// One type and shape: whole matrices on GPU 0, and every algorithm's shards on every rank. C is
// m x n of the input type (bf16 C for bf16, the row names' type).
template <class T>
struct Problem {
  using In = gemm::storage_t<T>;
  Shape s;
  int p;
  std::unique_ptr<Buffer<In>> A, B;
  std::unique_ptr<Buffer<In>> C1;
  std::map<gd::Algorithm, std::vector<std::unique_ptr<Buffer<In>>>> a, b;
  std::vector<std::unique_ptr<Buffer<In>>> c;  // every algorithm writes the rank's rows of C
  std::vector<In> single;                      // GPU 0's C, on the host (for the checks)
  double t1_ms = 0;

  Problem(const Shape& shape, gd::LocalGroup& g) : s(shape), p(g.size()) {
    const int dev0 = g.device(0);
    A = make_block<In>(dev0, {0, 0, s.m, s.k}, 1);
    B = make_block<In>(dev0, {0, 0, s.k, s.n}, 2);
    C1 = std::make_unique<Buffer<In>>(dev0, static_cast<size_t>(s.m) * s.n);
    for (gd::Algorithm alg : {gd::Algorithm::RowSplit, gd::Algorithm::AllGather, gd::Algorithm::ReduceScatter})
      for (int r = 0; r < p; ++r) {
        a[alg].push_back(make_block<In>(g.device(r), gd::stored_block(alg, gd::Operand::A, Op::N, s.m, s.n, s.k, p, r), 1));
        b[alg].push_back(make_block<In>(g.device(r), gd::stored_block(alg, gd::Operand::B, Op::N, s.m, s.n, s.k, p, r), 2));
      }
    for (int r = 0; r < p; ++r) {
      const gd::Block cb = gd::stored_block(gd::Algorithm::RowSplit, gd::Operand::C, Op::N, s.m, s.n, s.k, p, r);
      c.push_back(std::make_unique<Buffer<In>>(g.device(r), static_cast<size_t>(cb.rows) * cb.cols));
    }
  }

  gd::Algorithm shards_of(gd::Algorithm alg) const {
    return alg == gd::Algorithm::AllGatherThenGemm ? gd::Algorithm::AllGather : alg;
  }

  gemm::Status run(gd::LocalGroup& g, gd::Algorithm alg) {
    const gd::Algorithm sh = shards_of(alg);
    std::vector<gd::Shard<const In>> As, Bs;
    std::vector<gd::Shard<In>> Cs;
    for (int r = 0; r < p; ++r) {
      const gd::Block ba = gd::stored_block(sh, gd::Operand::A, Op::N, s.m, s.n, s.k, p, r);
      const gd::Block bb = gd::stored_block(sh, gd::Operand::B, Op::N, s.m, s.n, s.k, p, r);
      const gd::Block bc = gd::stored_block(sh, gd::Operand::C, Op::N, s.m, s.n, s.k, p, r);
      As.emplace_back(a[sh][r]->ptr, ba.rows, ba.cols, std::max(1, ba.cols));
      Bs.emplace_back(b[sh][r]->ptr, bb.rows, bb.cols, std::max(1, bb.cols));
      Cs.emplace_back(c[r]->ptr, bc.rows, bc.cols, std::max(1, bc.cols));
    }
    return gd::gemm<T>(g, alg, Op::N, Op::N, s.m, s.n, s.k, 1.0f, As, Bs, 0.0f, Cs);
  }

  gemm::Status run_single(cudaStream_t stream) {
    return gemm::gemm<T>(s.m, s.n, s.k, 1.0f, A->ptr, s.k, B->ptr, s.n, 0.0f, C1->ptr, s.n, stream);
  }

  // max |C - C_single| / max |C_single| over every rank's rows.
  double compare(gd::LocalGroup& g) {
    if (single.empty()) single = C1->download();
    double diff = 0, scale = 0;
    for (int r = 0; r < p; ++r) {
      const std::vector<In> got = c[r]->download();
      const size_t offset = static_cast<size_t>(gd::partition(s.m, g.size(), r).offset) * s.n;
      for (size_t i = 0; i < got.size(); ++i) {
        const double want = gemm::detail::convert<double>(single[offset + i]);
        const double v = gemm::detail::convert<double>(got[i]);
        diff = std::isfinite(v) ? std::max(diff, std::fabs(v - want)) : INFINITY;
        scale = std::max(scale, std::fabs(want));
      }
    }
    return scale > 0 ? diff / scale : diff;
  }
};

template <class T>
std::map<std::string, std::unique_ptr<Problem<T>>> problems;

template <class T>
Problem<T>& problem(const Shape& s) {
  auto& slot = problems<T>[s.str()];
  if (!slot) slot = std::make_unique<Problem<T>>(s, group_for(-1));
  return *slot;
}

// Milliseconds per call of a batch of `batch` calls enqueued back to back on every stream; the
// slowest stream's time.
template <class F>
double time_batch(const std::vector<int>& devices, const std::vector<cudaStream_t>& streams, int batch, F&& call) {
  std::vector<cudaEvent_t> start(devices.size()), stop(devices.size());
  for (size_t i = 0; i < devices.size(); ++i) {
    cuda_check(cudaSetDevice(devices[i]), "cudaSetDevice");
    cuda_check(cudaEventCreate(&start[i]), "cudaEventCreate");
    cuda_check(cudaEventCreate(&stop[i]), "cudaEventCreate");
    cuda_check(cudaEventRecord(start[i], streams[i]), "cudaEventRecord");
  }
  for (int i = 0; i < batch; ++i) call();
  double slowest = 0;
  for (size_t i = 0; i < devices.size(); ++i) {
    cuda_check(cudaSetDevice(devices[i]), "cudaSetDevice");
    cuda_check(cudaEventRecord(stop[i], streams[i]), "cudaEventRecord");
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    cuda_check(cudaSetDevice(devices[i]), "cudaSetDevice");
    cuda_check(cudaEventSynchronize(stop[i]), "cudaEventSynchronize");
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, start[i], stop[i]), "cudaEventElapsedTime");
    slowest = std::max(slowest, static_cast<double>(ms));
    cudaEventDestroy(start[i]);
    cudaEventDestroy(stop[i]);
  }
  return slowest / batch;
}

// Runs `call` (then waits with `sync`) until `ms` of wall time have passed: the GPUs reach their
// clocks before anything is timed.
template <class F, class G>
void warm_up(F&& call, G&& sync, double ms) {
  const auto t0 = std::chrono::steady_clock::now();
  do {
    for (int i = 0; i < 4; ++i) call();
    sync();
  } while (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() < ms);
}

int batch_for(double ms_per_call) {
  return std::max(1, static_cast<int>(std::ceil(settings.batch_ms / std::max(ms_per_call, 1e-3))));
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// Per-row times of every repetition, and T(1) per "<type>/<shape>", for the summary.
std::map<std::string, std::vector<double>> times_ms;
std::map<std::string, double> t1_of;

struct SingleGpu {
  cudaStream_t stream = nullptr;
  int device = 0;
};

SingleGpu& single_gpu() {
  static SingleGpu s;
  if (!s.stream) {
    s.device = group_for(-1).device(0);
    cuda_check(cudaSetDevice(s.device), "cudaSetDevice");
    cuda_check(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  return s;
}

// T(1): the median of `repetitions` batches of the single-GPU call (measured once per problem).
template <class T>
double t1_ms(Problem<T>& pr) {
  if (pr.t1_ms > 0) return pr.t1_ms;
  SingleGpu& sg = single_gpu();
  cuda_check(cudaSetDevice(sg.device), "cudaSetDevice");
  auto call = [&] {
    if (pr.run_single(sg.stream) != gemm::Status::Success) {
      std::fprintf(stderr, "gemm_distributed_bench: single-GPU gemm failed\n");
      std::exit(1);
    }
  };
  warm_up(call, [&] { cuda_check(cudaStreamSynchronize(sg.stream), "cudaStreamSynchronize"); }, 500);
  const double first = time_batch({sg.device}, {sg.stream}, 1, call);
  const int batch = batch_for(first);
  std::vector<double> t;
  for (int i = 0; i < settings.repetitions; ++i) t.push_back(time_batch({sg.device}, {sg.stream}, batch, call));
  pr.t1_ms = median(t);
  t1_of[std::string(type_label<T>()) + "/" + pr.s.str()] = pr.t1_ms;
  return pr.t1_ms;
}

template <class T>
void single_row(benchmark::State& state, Shape s, const std::string& name) {
  Problem<T>& pr = problem<T>(s);
  const double t1 = t1_ms(pr);
  SingleGpu& sg = single_gpu();
  cuda_check(cudaSetDevice(sg.device), "cudaSetDevice");
  const int batch = batch_for(t1);
  for (auto _ : state) {
    const double ms = time_batch({sg.device}, {sg.stream}, batch, [&] { pr.run_single(sg.stream); });
    state.SetIterationTime(ms * 1e-3);
    times_ms[name].push_back(ms);
    state.counters["TFLOPS"] = s.flops() / (ms * 1e-3) * 1e-12;
    state.counters["efficiency"] = t1 / ms;
    state.counters["T1_ms"] = t1;
    state.counters["batch"] = batch;
  }
}

template <class T>
void distributed_row(benchmark::State& state, Shape s, gd::Algorithm alg, int ctas, const std::string& name) {
  gd::LocalGroup& g = group_for(ctas);
  Problem<T>& pr = problem<T>(s);
  const double t1 = t1_ms(pr);
  const int p = g.size();
  std::vector<int> devices;
  std::vector<cudaStream_t> streams;
  for (int r = 0; r < p; ++r) {
    devices.push_back(g.device(r));
    streams.push_back(g.stream(r));
  }
  auto call = [&] {
    const gemm::Status st = pr.run(g, alg);
    if (st != gemm::Status::Success) {
      std::fprintf(stderr, "gemm_distributed_bench: %s: %s\n", name.c_str(), gemm::to_string(st));
      std::exit(1);
    }
  };
  // Warm-up (workspace, NCCL connections, clocks), then the check against the single-GPU C.
  warm_up(call, [&] { cuda_check(g.synchronize() == gemm::Status::Success ? cudaSuccess : cudaErrorUnknown, "warm-up"); },
          200);
  single_gpu();
  const double err = pr.compare(g);
  const double tolerance = std::is_same_v<T, float> ? 1e-4 : 2e-2;
  if (!(err <= tolerance)) {
    state.SkipWithError("the distributed C differs from the single-GPU C");
    return;
  }
  const int batch = batch_for(time_batch(devices, streams, 1, call));
  for (auto _ : state) {
    const double ms = time_batch(devices, streams, batch, call);
    state.SetIterationTime(ms * 1e-3);
    times_ms[name].push_back(ms);
    state.counters["TFLOPS"] = s.flops() / (ms * 1e-3) * 1e-12;
    state.counters["efficiency"] = t1 / (p * ms);
    state.counters["T1_ms"] = t1;
    state.counters["max_rel_err"] = err;
    state.counters["comm_ctas"] = g.context(0).options().comm_ctas;
    state.counters["compute_sms"] = g.context(0).overlap_sms();
    state.counters["batch"] = batch;
  }
}

int gpus() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
  return n;
}

std::string row(const char* type, const std::string& what, int p, const Shape& s) {
  return std::string("distributed/") + type + "/" + what + "/" + std::to_string(p) + "gpu/" + s.str();
}

template <class T>
void register_type(int p) {
  const char* type = type_label<T>();
  for (const Shape& s : settings.shapes) {
    auto add = [&](const std::string& name, auto fn) {
      benchmark::RegisterBenchmark(name.c_str(), [fn, name](benchmark::State& st) { fn(st, name); })
          ->UseManualTime()
          ->Iterations(1)
          ->Repetitions(settings.repetitions)
          ->ReportAggregatesOnly(true)
          ->Unit(benchmark::kMillisecond);
    };
    add(row(type, "single", 1, s), [s](benchmark::State& st, const std::string& n) { single_row<T>(st, s, n); });
    for (gd::Algorithm alg : gd::kAlgorithms) {
      // The baseline gets NCCL's default number of CTAs; the others the library's default.
      const int ctas = alg == gd::Algorithm::AllGatherThenGemm ? 0 : -1;
      add(row(type, gd::to_string(alg), p, s), [s, alg, ctas](benchmark::State& st, const std::string& n) {
        distributed_row<T>(st, s, alg, ctas, n);
      });
    }
    for (int c : settings.ctas)
      add(row(type, "allgather", p, s) + "/ctas:" + std::to_string(c),
          [s, c](benchmark::State& st, const std::string& n) {
            distributed_row<T>(st, s, gd::Algorithm::AllGather, c, n);
          });
  }
}

// The design targets (2 GPUs): bf16 8192^3 all-gather efficiency >= 85% (goal 95%) and faster
// than all-gather-then-GEMM (goal 15% faster); fp32 8192^3 all-gather >= 90%; bf16 row split >= 95%.
void summary(int p) {
  std::printf("\n=== gemm_distributed_bench summary (%d GPUs; medians of %d repetitions)\n", p, settings.repetitions);
  std::printf("%-62s %10s %9s %10s\n", "row", "ms", "TFLOPS", "efficiency");
  std::map<std::string, double> efficiency_of;
  for (const auto& [name, t] : times_ms) {
    const double ms = median(t);
    // name: distributed/<type>/<what>/<p>gpu/<shape>[/ctas:<c>]
    std::vector<std::string> parts;
    for (size_t at = 0;;) {
      const size_t next = name.find('/', at);
      parts.push_back(name.substr(at, next == std::string::npos ? std::string::npos : next - at));
      if (next == std::string::npos) break;
      at = next + 1;
    }
    const bool single = parts.size() > 2 && parts[2] == "single";
    double flops = 0, eff = 0;
    if (parts.size() >= 5) {
      for (const Shape& s : settings.shapes)
        if (s.str() == parts[4]) flops = s.flops();
      const auto t1 = t1_of.find(parts[1] + "/" + parts[4]);
      if (t1 != t1_of.end()) eff = t1->second / ((single ? 1 : p) * ms);
    }
    efficiency_of[name] = eff;
    std::printf("%-62s %10.3f %9.1f %10.3f\n", name.c_str(), ms, flops > 0 ? flops / (ms * 1e-3) * 1e-12 : 0.0, eff);
  }
  auto eff = [&](const std::string& n) { return efficiency_of.count(n) ? efficiency_of.at(n) : -1.0; };
  auto ms = [&](const std::string& n) { return times_ms.count(n) ? median(times_ms.at(n)) : -1.0; };
  const Shape big{8192, 8192, 8192};
  std::printf("\n=== targets (2 GPUs)\n");
  auto line = [&](const char* what, double value, double target, double goal) {
    const char* verdict = value < 0 ? "not run" : value >= target ? "PASS" : "FAIL";
    std::printf("%-58s %8.3f  target %.2f  goal %.2f  %s%s\n", what, value, target, goal, verdict,
                value >= goal ? " (goal met)" : "");
  };
  line("bf16 8192^3 all-gather GEMM efficiency", eff(row("bf16", "allgather", p, big)), 0.85, 0.95);
  const double ag = ms(row("bf16", "allgather", p, big)), agtg = ms(row("bf16", "allgather_then_gemm", p, big));
  line("bf16 8192^3 all-gather-then-GEMM time / all-gather GEMM time", ag > 0 && agtg > 0 ? agtg / ag : -1.0, 1.0,
       1.15);
  line("fp32 8192^3 all-gather GEMM efficiency", eff(row("float", "allgather", p, big)), 0.90, 0.90);
  line("bf16 8192^3 row split efficiency", eff(row("bf16", "rowsplit", p, big)), 0.95, 0.95);
  if (p != 2) std::printf("(the targets are for 2 GPUs; this machine has %d)\n", p);
}

bool parse_flag(const char* arg) {
  auto value = [&](const char* name) -> const char* {
    const size_t n = std::strlen(name);
    return std::strncmp(arg, name, n) == 0 && arg[n] == '=' ? arg + n + 1 : nullptr;
  };
  auto split = [](const char* v) {
    std::vector<std::string> out;
    std::string cur;
    for (const char* c = v; *c; ++c) {
      if (*c == ',') {
        if (!cur.empty()) out.push_back(cur);
        cur.clear();
      } else {
        cur += *c;
      }
    }
    if (!cur.empty()) out.push_back(cur);
    return out;
  };
  const char* v = nullptr;
  if ((v = value("--dist_shapes"))) {
    settings.shapes.clear();
    for (const std::string& s : split(v)) {
      Shape sh{};
      if (std::sscanf(s.c_str(), "%dx%dx%d", &sh.m, &sh.n, &sh.k) != 3 || sh.m <= 0 || sh.n <= 0 || sh.k <= 0) {
        std::fprintf(stderr, "gemm_distributed_bench: bad shape '%s' (MxNxK)\n", s.c_str());
        std::exit(2);
      }
      settings.shapes.push_back(sh);
    }
  } else if ((v = value("--dist_types"))) {
    settings.types = split(v);
  } else if ((v = value("--dist_ctas"))) {
    settings.ctas.clear();
    for (const std::string& s : split(v)) settings.ctas.push_back(std::atoi(s.c_str()));
  } else if ((v = value("--dist_repetitions"))) {
    settings.repetitions = std::max(1, std::atoi(v));
  } else if ((v = value("--dist_batch_ms"))) {
    settings.batch_ms = std::max(0.1, std::atof(v));
  } else {
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest;
  rest.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--dist_help") == 0) {
      std::printf(
          "gemm_distributed_bench: gemm::distributed on every GPU against one GPU.\n"
          "  --dist_shapes=MxNxK,..   shapes (default 8192x8192x8192)\n"
          "  --dist_types=bf16,float  types (default both; bf16 has bf16 C)\n"
          "  --dist_ctas=C,..         extra all-gather rows with NCCL on C CTAs (default 8,32; the\n"
          "                           plain row uses the library's default, Options::comm_ctas)\n"
          "  --dist_repetitions=N     repetitions per row (default 7; rows report their median)\n"
          "  --dist_batch_ms=X        length of one timed batch of calls (default 25)\n"
          "Google Benchmark's flags work as usual (--benchmark_filter, --benchmark_out, ...).\n");
      return 0;
    }
    if (std::strncmp(argv[i], "--benchmark_list_tests", 22) == 0) settings.list_only = true;
    if (!parse_flag(argv[i])) rest.push_back(argv[i]);
  }
  gd::disable_nvls();  // before any communicator exists
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());

  const int p = gpus();
  if (p < 2 && !settings.list_only) {
    std::printf("SKIPPED: gemm_distributed_bench needs at least 2 CUDA devices; found %d.\n", p);
    return 77;
  }
  for (const std::string& t : settings.types) {
    if (t == "bf16") register_type<__nv_bfloat16>(std::max(p, 2));
    else if (t == "float") register_type<float>(std::max(p, 2));
    else {
      std::fprintf(stderr, "gemm_distributed_bench: unknown type '%s' (bf16, float)\n", t.c_str());
      return 2;
    }
  }
  int nccl = 0;
  ncclGetVersion(&nccl);
  benchmark::AddCustomContext("nccl", std::to_string(nccl));
  benchmark::AddCustomContext("gpus", std::to_string(p));
  benchmark::AddCustomContext("NCCL_NVLS_ENABLE", std::getenv("NCCL_NVLS_ENABLE") ? std::getenv("NCCL_NVLS_ENABLE") : "");
  if (!settings.list_only) {
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, 0);
    benchmark::AddCustomContext("gpu", prop.name);
  }
  benchmark::RunSpecifiedBenchmarks();
  if (!settings.list_only) summary(p);
  problems<float>.clear();
  problems<__nv_bfloat16>.clear();
  groups.clear();
  benchmark::Shutdown();
  return 0;
}
