// The whole-flow table's gemm::host rows (host.cuh): GEMM from host memory with the copies
// overlapped, beside the PCIe rates measured in the same run and the copy-bound floor of each
// flow (bytes that must cross PCIe / measured rate, the larger direction; the two directions
// overlap). Also one instrumented 1024^3 flow per memory kind, whose per-operation times go to
// the flow JSON for plot.py's timeline chart.
#include "bench_common.cuh"

#include <gemm/host.cuh>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace gemm_bench {
namespace {

using Clock = std::chrono::steady_clock;
namespace host = gemm::host;

// printf into a string of any length.
void appendf(std::string& out, const char* format, ...) __attribute__((format(printf, 2, 3)));
void appendf(std::string& out, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  va_list ap2;
  va_copy(ap2, ap);
  const int n = std::vsnprintf(nullptr, 0, format, ap);
  va_end(ap);
  if (n > 0) {
    std::string buf(static_cast<std::size_t>(n) + 1, '\0');
    std::vsnprintf(buf.data(), buf.size(), format, ap2);
    buf.resize(static_cast<std::size_t>(n));
    out += buf;
  }
  va_end(ap2);
}

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }
std::string num(double v, const char* f = "%.3f") { return std::isfinite(v) ? fmt(f, v) : "-"; }
std::string jnum(double v) { return std::isfinite(v) ? fmt("%.6g", v) : "null"; }
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Pinned host memory, freed on scope exit.
template <class T>
struct Pinned {
  T* p = nullptr;
  explicit Pinned(std::size_t n) { GEMM_BENCH_CUDA(cudaMallocHost(&p, std::max<std::size_t>(n, 1) * sizeof(T))); }
  ~Pinned() { cudaFreeHost(p); }
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
};
template <class T>
struct Device {
  T* p = nullptr;
  explicit Device(std::size_t n) { GEMM_BENCH_CUDA(cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T))); }
  ~Device() { cudaFree(p); }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
};

struct Pcie {
  double h2d_small = kNaN, d2h_small = kNaN, h2d_large = kNaN, d2h_large = kNaN, duplex = kNaN;  // GB/s
  std::size_t small_bytes = std::size_t(4) << 20, large_bytes = std::size_t(256) << 20,
              duplex_bytes = std::size_t(64) << 20;
};

// Median GB/s of a pinned copy of `bytes` in one direction.
double copy_rate(char* host, char* dev, std::size_t bytes, cudaMemcpyKind kind, int reps) {
  cudaEvent_t e0, e1;
  GEMM_BENCH_CUDA(cudaEventCreate(&e0));
  GEMM_BENCH_CUDA(cudaEventCreate(&e1));
  std::vector<double> t;
  for (int i = 0; i < reps + 2; ++i) {
    GEMM_BENCH_CUDA(cudaEventRecord(e0, 0));
    if (kind == cudaMemcpyHostToDevice) GEMM_BENCH_CUDA(cudaMemcpyAsync(dev, host, bytes, kind, 0));
    else GEMM_BENCH_CUDA(cudaMemcpyAsync(host, dev, bytes, kind, 0));
    GEMM_BENCH_CUDA(cudaEventRecord(e1, 0));
    GEMM_BENCH_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    GEMM_BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    if (i >= 2) t.push_back(ms);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return static_cast<double>(bytes) / (median(t) * 1e6);
}

Pcie measure_pcie(int reps) {
  Pcie r;
  Pinned<char> h(r.large_bytes), h2(r.duplex_bytes);
  Device<char> d(r.large_bytes), d2(r.duplex_bytes);
  std::memset(h.p, 1, r.large_bytes);
  std::memset(h2.p, 2, r.duplex_bytes);
  r.h2d_small = copy_rate(h.p, d.p, r.small_bytes, cudaMemcpyHostToDevice, reps);
  r.d2h_small = copy_rate(h.p, d.p, r.small_bytes, cudaMemcpyDeviceToHost, reps);
  r.h2d_large = copy_rate(h.p, d.p, r.large_bytes, cudaMemcpyHostToDevice, std::max(3, reps / 4));
  r.d2h_large = copy_rate(h.p, d.p, r.large_bytes, cudaMemcpyDeviceToHost, std::max(3, reps / 4));
  // Both directions at once, on two streams: what an overlapped flow can have.
  cudaStream_t s1, s2;
  GEMM_BENCH_CUDA(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  GEMM_BENCH_CUDA(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  std::vector<double> t;
  for (int i = 0; i < std::max(3, reps / 4) + 1; ++i) {
    GEMM_BENCH_CUDA(cudaDeviceSynchronize());
    const auto t0 = Clock::now();
    GEMM_BENCH_CUDA(cudaMemcpyAsync(d.p, h.p, r.duplex_bytes, cudaMemcpyHostToDevice, s1));
    GEMM_BENCH_CUDA(cudaMemcpyAsync(h2.p, d2.p, r.duplex_bytes, cudaMemcpyDeviceToHost, s2));
    GEMM_BENCH_CUDA(cudaStreamSynchronize(s1));
    GEMM_BENCH_CUDA(cudaStreamSynchronize(s2));
    if (i > 0) t.push_back(ms_since(t0));
  }
  r.duplex = 2.0 * static_cast<double>(r.duplex_bytes) / (median(t) * 1e6);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
  return r;
}

struct HostRow {
  std::string name, type, memory, plan, note;
  int m = 0, n = 0, k = 0;
  std::size_t budget = 0;
  double ms = kNaN, predicted_ms = kNaN, h2d_bytes = kNaN, d2h_bytes = kNaN, floor_ms = kNaN;
  double target_ms = kNaN, goal_ms = kNaN, device_gemm_ms = kNaN, first_load_ms = kNaN;
  double rel_err = kNaN, tolerance = kNaN;
  bool in_core = false, ok = false;
  std::string error;
  double tflops() const { return 2.0 * m * n * k / (ms * 1e9); }
};

// Median host-clock time of a call that returns once C is on the host; "" or an error.
double time_calls(const std::function<gemm::Status()>& call, int runs, std::string& err) {
  std::vector<double> t;
  for (int i = 0; i < runs + 2 && err.empty(); ++i) {
    GEMM_BENCH_CUDA(cudaDeviceSynchronize());
    const auto t0 = Clock::now();
    const gemm::Status s = call();
    const double ms = ms_since(t0);
    if (s != gemm::Status::Success) {
      err = std::string("gemm::host failed: ") + gemm::to_string(s);
      if (gemm::last_cuda_error() != cudaSuccess) err += std::string(" [") + cudaGetErrorName(gemm::last_cuda_error()) + "]";
    } else if (i >= 2) {
      t.push_back(ms);
    }
  }
  return err.empty() ? median(t) : kNaN;
}

// Floor: the larger direction at the measured rate for the flow's transfer size.
void set_floor(HostRow& r, const host::Report& rep, double h2d_gbs, double d2h_gbs) {
  r.plan = rep.plan;
  r.in_core = rep.in_core;
  r.predicted_ms = rep.predicted_ms;
  r.h2d_bytes = rep.h2d_bytes;
  r.d2h_bytes = rep.d2h_bytes;
  r.floor_ms = std::max(rep.h2d_bytes / (h2d_gbs * 1e6), rep.d2h_bytes / (d2h_gbs * 1e6));
  r.first_load_ms = rep.first_load_bytes / (h2d_gbs * 1e6);
}

double rel_error_host(const float* c, const std::vector<double>& ref) {
  double max_diff = 0, max_ref = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    if (!std::isfinite(c[i])) return INFINITY;
    max_diff = std::max(max_diff, std::fabs(c[i] - ref[i]));
    max_ref = std::max(max_ref, std::fabs(ref[i]));
  }
  return max_ref > 0 ? max_diff / max_ref : max_diff;
}

std::string timeline_json(const std::string& label, const host::Report& rep) {
  std::ostringstream o;
  o << "{\"label\": \"" << json_escape(label) << "\", \"plan\": \"" << json_escape(rep.plan) << "\", \"spans\": [";
  for (std::size_t i = 0; i < rep.timeline.size(); ++i) {
    const host::Span& s = rep.timeline[i];
    o << (i ? ",\n      " : "\n      ") << "{\"lane\": " << s.lane << ", \"lane_name\": \"" << s.lane_name
      << "\", \"kind\": \"" << s.kind << "\", \"step\": " << s.step << ", \"start_ms\": " << jnum(s.start_ms)
      << ", \"end_ms\": " << jnum(s.end_ms) << ", \"bytes\": " << jnum(s.bytes) << "}";
  }
  o << "]}";
  return o.str();
}

// 8192^3 (or other large) flows of type T against a device-only gemm::gemm<T> on the same data.
template <class T>
void large_rows(int size, const std::vector<std::pair<std::string, host::Options>>& variants, const Pcie& pcie,
                int runs, double tolerance, double target_factor, bool target_vs_device, std::vector<HostRow>& rows) {
  using S = gemm::scalar_t<T>;
  const std::size_t nn = std::size_t(size) * size;
  std::printf("gemm_bench: gemm::host %d^3 %s...\n", size, gemm::type_name<T, T>());
  std::fflush(stdout);
  Device<T> dA(nn), dB(nn), dC(nn), dCref(nn);
  fill_uniform(dA.p, nn, 0x5EED1);
  fill_uniform(dB.p, nn, 0x5EED2);
  Pinned<T> hA(nn), hB(nn), hC(nn);
  GEMM_BENCH_CUDA(cudaMemcpy(hA.p, dA.p, nn * sizeof(T), cudaMemcpyDeviceToHost));
  GEMM_BENCH_CUDA(cudaMemcpy(hB.p, dB.p, nn * sizeof(T), cudaMemcpyDeviceToHost));
  // Device-only: the kernels alone, data resident.
  double device_ms = kNaN;
  {
    cudaEvent_t e0, e1;
    GEMM_BENCH_CUDA(cudaEventCreate(&e0));
    GEMM_BENCH_CUDA(cudaEventCreate(&e1));
    std::vector<double> t;
    for (int i = 0; i < 2 + std::max(3, runs); ++i) {
      GEMM_BENCH_CUDA(cudaEventRecord(e0, 0));
      const gemm::Status s = gemm::gemm<T>(size, size, size, S(1), dA.p, size, dB.p, size, S(0), dCref.p, size);
      GEMM_BENCH_CUDA(cudaEventRecord(e1, 0));
      GEMM_BENCH_CUDA(cudaEventSynchronize(e1));
      if (s != gemm::Status::Success) break;
      float ms = 0;
      GEMM_BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1));
      if (i >= 2) t.push_back(ms);
    }
    if (!t.empty()) device_ms = median(t);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
  }
  for (const auto& [label, base] : variants) {
    HostRow r;
    r.name = label;
    r.type = gemm::type_name<T, T>();
    r.memory = "pinned";
    r.m = r.n = r.k = size;
    r.budget = base.device_budget;
    r.device_gemm_ms = device_ms;
    r.tolerance = tolerance;
    host::Report rep;
    host::Options opt = base;
    opt.report = &rep;
    std::fill(hC.p, hC.p + nn, gemm::detail::convert<T>(0.0));
    r.ms = time_calls([&] { return host::gemm<T>(size, size, size, S(1), hA.p, size, hB.p, size, S(0), hC.p, size, opt); },
                      runs, r.error);
    set_floor(r, rep, pcie.h2d_large, pcie.d2h_large);
    if (r.error.empty()) {
      GEMM_BENCH_CUDA(cudaMemcpy(dC.p, hC.p, nn * sizeof(T), cudaMemcpyHostToDevice));
      const Comparison cmp = compare_device(dC.p, dCref.p, nn);
      r.rel_err = cmp.nonfinite ? INFINITY : cmp.rel();
      r.ok = r.rel_err <= tolerance;
      if (!r.ok) r.error = fmt("result differs from the device-only gemm::gemm: %.3e (tolerance %.0e)", r.rel_err, tolerance);
    }
    r.target_ms = target_factor * (target_vs_device ? device_ms + r.first_load_ms : r.floor_ms);
    r.note = target_vs_device ? fmt("target: within %.0f%% of device-only GEMM (%.2f ms) + first load (%.2f ms)",
                                    (target_factor - 1) * 100, device_ms, r.first_load_ms)
                              : fmt("target: within %.0f%% of the copy floor", (target_factor - 1) * 100);
    if (!r.in_core) r.note += "; out of core";
    else if (r.budget > 0) r.note += fmt("; the operands fit the %.0f MiB budget: in core", r.budget / 1048576.0);
    rows.push_back(r);
  }
}

}  // namespace

HostFlowOutput run_host_flows(const Options& opt, const std::vector<float>& a1024, const std::vector<float>& b1024,
                              const std::vector<double>& ref1024) {
  HostFlowOutput out;
  const int runs = std::max(1, opt.flow_runs);
  const int big_runs = std::max(3, runs / 4);
  std::vector<HostRow> rows;
  std::vector<std::string> timelines;
  Pcie pcie;
  std::string fatal;
  try {
    std::printf("gemm_bench: PCIe rates...\n");
    std::fflush(stdout);
    pcie = measure_pcie(runs);

    // ---- 1024^3 fp32, host to host.
    const int s = 1024;
    const std::size_t nn = std::size_t(s) * s;
    Pinned<float> pA(nn), pB(nn), pC(nn);
    std::memcpy(pA.p, a1024.data(), nn * sizeof(float));
    std::memcpy(pB.p, b1024.data(), nn * sizeof(float));
    std::vector<float> gA(a1024), gB(b1024), gC(nn);  // pageable
    struct Variant {
      std::string name;
      bool pinned;
      bool async;
      host::Options opt;
      double target, goal;
    };
    std::vector<Variant> vs;
    auto add = [&](std::string name, bool pinned, bool async, host::Options o, double target, double goal) {
      vs.push_back({std::move(name), pinned, async, o, target, goal});
    };
    host::Options o;
    add("1024^3 fp32 pinned", true, false, o, 0.22, 0.19);
    add("1024^3 fp32 pinned, asynchronous", true, true, o, 0.22, 0.19);
    {
      host::Options v;
      v.reuse_graphs = false;  // what a first call costs: every operation enqueued by the calling thread
      add("1024^3 fp32 pinned, no graph (every call enqueued)", true, false, v, 0.22, 0.19);
    }
    for (int rows_per_block : {64, 128, 256}) {
      host::Options v;
      v.block_rows = rows_per_block;
      v.block_cols = s;
      v.k_slices = 1;
      add(fmt("1024^3 fp32 pinned, row blocks of %d", rows_per_block), true, false, v, 0.22, 0.19);
    }
    {
      host::Options v;
      v.block_rows = 128;
      v.block_cols = s;
      v.k_slices = 2;
      add("1024^3 fp32 pinned, row blocks of 128, 2 k slices", true, false, v, 0.22, 0.19);
      v.k_slices = 1;
      v.block_rows = 256;
      v.block_cols = 512;
      add("1024^3 fp32 pinned, 256 x 512 tiles", true, false, v, 0.22, 0.19);
    }
    add("1024^3 fp32 pageable", false, false, o, 0.60, 0.40);
    {
      host::Options v;
      v.staging = host::Staging::Callbacks;
      add("1024^3 fp32 pageable, staging in host callbacks", false, false, v, 0.60, 0.40);
      add("1024^3 fp32 pageable, asynchronous", false, true, o, 0.60, 0.40);
      v = {};
      v.host_threads = 4;
      add("1024^3 fp32 pageable, 4 copy threads", false, false, v, 0.60, 0.40);
    }
    std::printf("gemm_bench: gemm::host 1024^3 fp32 flows...\n");
    std::fflush(stdout);
    cudaStream_t stream;
    GEMM_BENCH_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (const Variant& v : vs) {
      HostRow r;
      r.name = v.name;
      r.type = "float";
      r.memory = v.pinned ? "pinned" : "pageable";
      r.m = r.n = r.k = s;
      r.target_ms = v.target;
      r.goal_ms = v.goal;
      r.tolerance = tolerance<Float>();
      host::Report rep;
      host::Options opt_v = v.opt;
      opt_v.report = &rep;
      const float* a = v.pinned ? pA.p : gA.data();
      const float* b = v.pinned ? pB.p : gB.data();
      float* c = v.pinned ? pC.p : gC.data();
      std::fill(c, c + nn, NAN);
      r.ms = time_calls(
          [&] {
            if (!v.async) return host::gemm<float>(s, s, s, 1.f, a, s, b, s, 0.f, c, s, opt_v);
            const gemm::Status st = host::gemm_async<float>(s, s, s, 1.f, a, s, b, s, 0.f, c, s, stream, opt_v);
            GEMM_BENCH_CUDA(cudaStreamSynchronize(stream));
            return st;
          },
          runs, r.error);
      set_floor(r, rep, pcie.h2d_small, pcie.d2h_small);
      if (r.error.empty()) {
        r.rel_err = rel_error_host(c, ref1024);
        r.ok = r.rel_err <= r.tolerance;
        if (!r.ok) r.error = fmt("wrong result: max rel error %.3e vs the CPU reference", r.rel_err);
      }
      rows.push_back(r);
    }
    GEMM_BENCH_CUDA(cudaStreamDestroy(stream));
    // One instrumented flow per memory kind, for the timeline chart.
    for (bool pinned : {true, false}) {
      host::Report rep;
      host::Options t;
      t.report = &rep;
      t.timeline = true;
      const gemm::Status st = host::gemm<float>(s, s, s, 1.f, pinned ? pA.p : gA.data(), s, pinned ? pB.p : gB.data(),
                                                s, 0.f, pinned ? pC.p : gC.data(), s, t);
      if (st == gemm::Status::Success)
        timelines.push_back(timeline_json(std::string("1024^3 fp32 ") + (pinned ? "pinned" : "pageable"), rep));
    }

    // ---- 8192^3 fp32 pinned (in core), and bf16 with a device budget.
    {
      host::Options rows_only;
      rows_only.block_cols = 8192;
      rows_only.k_slices = 1;
      large_rows<float>(8192, {{"8192^3 fp32 pinned", host::Options{}}, {"8192^3 fp32 pinned, row blocks only", rows_only}},
                        pcie, big_runs, tolerance<Float>(), 1.10, true, rows);
    }
    {
      host::Options gib, small;
      gib.device_budget = std::size_t(1) << 30;
      small.device_budget = std::size_t(256) << 20;
      large_rows<__nv_bfloat16>(8192, {{"8192^3 bf16 pinned, 1 GiB device budget", gib},
                                       {"8192^3 bf16 pinned, 256 MiB device budget", small}},
                                pcie, big_runs, tolerance<Bf16>(), 1.20, false, rows);
    }
  } catch (const std::exception& e) {
    fatal = e.what();
  }

  // ---- Tables.
  appendf(out.tables, "\n## GEMM from host memory (gemm::host), %s\n\n", device_summary().c_str());
  appendf(out.tables, "PCIe, pinned, measured in this run: H2D %s GB/s and D2H %s GB/s at 4 MiB, %s and %s GB/s at 256 MiB; "
              "both directions at once (64 MiB each) %s GB/s in all.\n\n",
              num(pcie.h2d_small, "%.1f").c_str(), num(pcie.d2h_small, "%.1f").c_str(), num(pcie.h2d_large, "%.1f").c_str(),
              num(pcie.d2h_large, "%.1f").c_str(), num(pcie.duplex, "%.1f").c_str());
  appendf(out.tables, "Copy floor: the larger of (bytes to the device / H2D rate) and (bytes back / D2H rate), at the rate "
              "for the flow's size (4 MiB rates for 1024^3, 256 MiB rates for 8192^3); bytes as the plan moves them "
              "(an out-of-core plan may copy a piece more than once). Times: median of %d runs (%d for 8192^3), host "
              "clock from the call to C on the host; predicted: the planner's estimate with nominal rates.\n\n",
              runs, big_runs);
  appendf(out.tables, "| flow | time (ms) | TFLOP/s | PCIe in / out (GB/s) | copy floor (ms) | time / floor | predicted (ms) "
              "| target (ms) | met | max rel err | ok |\n");
  appendf(out.tables, "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|\n");
  bool all_ok = fatal.empty();
  for (const HostRow& r : rows) {
    const std::string target = std::isfinite(r.goal_ms) ? fmt("%.2f (goal %.2f)", r.target_ms, r.goal_ms) : num(r.target_ms, "%.2f");
    const std::string met = !std::isfinite(r.ms) ? "-"
                            : r.ms <= r.goal_ms ? "goal"
                            : r.ms <= r.target_ms ? "yes"
                                                  : "no";
    appendf(out.tables, "| %s | %s | %s | %s / %s | %s | %s | %s | %s | %s | %s | %s |\n", r.name.c_str(), num(r.ms).c_str(),
                num(r.tflops(), "%.1f").c_str(), num(r.h2d_bytes / (r.ms * 1e6), "%.1f").c_str(),
                num(r.d2h_bytes / (r.ms * 1e6), "%.1f").c_str(), num(r.floor_ms).c_str(),
                num(r.ms / r.floor_ms, "%.2f").c_str(), num(r.predicted_ms).c_str(), target.c_str(), met.c_str(),
                num(r.rel_err, "%.1e").c_str(), r.ok ? "yes" : ("NO: " + r.error).c_str());
    all_ok &= r.ok;
  }
  appendf(out.tables, "\nPlans:\n\n");
  for (const HostRow& r : rows)
    appendf(out.tables, "- %s: %s%s%s\n", r.name.c_str(), r.plan.c_str(), r.note.empty() ? "" : ". ", r.note.c_str());
  if (!fatal.empty()) appendf(out.tables, "\nERROR: %s\n", fatal.c_str());
  appendf(out.tables, "\n");

  // ---- JSON fragment.
  std::ostringstream j;
  j << "  \"pcie\": {\"h2d_4MiB_GBs\": " << jnum(pcie.h2d_small) << ", \"d2h_4MiB_GBs\": " << jnum(pcie.d2h_small)
    << ", \"h2d_256MiB_GBs\": " << jnum(pcie.h2d_large) << ", \"d2h_256MiB_GBs\": " << jnum(pcie.d2h_large)
    << ", \"duplex_64MiB_GBs\": " << jnum(pcie.duplex) << "},\n";
  j << "  \"host_error\": \"" << json_escape(fatal) << "\",\n";
  j << "  \"host_rows\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const HostRow& r = rows[i];
    j << (i ? ",\n" : "\n") << "    {\"name\": \"" << json_escape(r.name) << "\", \"type\": \"" << r.type
      << "\", \"memory\": \"" << r.memory << "\", \"m\": " << r.m << ", \"n\": " << r.n << ", \"k\": " << r.k
      << ", \"budget_bytes\": " << r.budget << ", \"in_core\": " << (r.in_core ? "true" : "false")
      << ", \"ms\": " << jnum(r.ms) << ", \"tflops\": " << jnum(r.tflops()) << ", \"h2d_bytes\": " << jnum(r.h2d_bytes)
      << ", \"d2h_bytes\": " << jnum(r.d2h_bytes) << ", \"h2d_gbs\": " << jnum(r.h2d_bytes / (r.ms * 1e6))
      << ", \"d2h_gbs\": " << jnum(r.d2h_bytes / (r.ms * 1e6)) << ", \"floor_ms\": " << jnum(r.floor_ms)
      << ", \"predicted_ms\": " << jnum(r.predicted_ms) << ", \"target_ms\": " << jnum(r.target_ms)
      << ", \"goal_ms\": " << jnum(r.goal_ms) << ", \"device_gemm_ms\": " << jnum(r.device_gemm_ms)
      << ", \"first_load_ms\": " << jnum(r.first_load_ms) << ", \"max_rel_err\": " << jnum(r.rel_err)
      << ", \"ok\": " << (r.ok ? "true" : "false") << ", \"plan\": \"" << json_escape(r.plan) << "\", \"note\": \""
      << json_escape(r.note) << "\", \"error\": \"" << json_escape(r.error) << "\"}";
  }
  j << "\n  ],\n  \"timelines\": [";
  for (std::size_t i = 0; i < timelines.size(); ++i) j << (i ? ",\n    " : "\n    ") << timelines[i];
  j << "\n  ]";
  out.json = j.str();
  out.ok = all_ok;
  for (const HostRow& r : rows) {
    if (r.name == "1024^3 fp32 pinned") {
      out.pinned_ms = r.ms;
      out.rel_err = r.rel_err;
      out.row_ok = r.ok;
      out.row_error = r.error;
      out.plan = r.plan;
    }
    if (r.name == "1024^3 fp32 pageable") {
      out.pageable_ms = r.ms;
      out.rel_err = std::max(out.rel_err, r.rel_err);
      out.row_ok = out.row_ok && r.ok;
      if (!r.ok && out.row_error.empty()) out.row_error = r.error;
    }
  }
  return out;
}

}  // namespace gemm_bench
