#pragma once
// gemm::host: C = alpha * op(A) * op(B) + beta * C with A, B and C in host memory (pinned or
// pageable), the copies to and from the device overlapped with the multiplies.
//
//   #include <gemm/host.cuh>
//   gemm::Status s = gemm::host::gemm<float>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);  // returns with C on the host
//   gemm::Status t = gemm::host::gemm_async<float>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
//
// The same types, layouts and arguments as gemm::gemm (gemm.cuh), in the same three forms
// (row-major; row-major C with op(A), op(B); gemm::host::blas column-major), with host pointers.
// The multiplies are gemm::gemm<T, Policy> calls on device tiles.
//
// How: the call plans (host/planner.cuh) how to cut the problem into row blocks, column blocks and
// k slices and in which order to copy and multiply them, copies each piece once if everything
// fits the device budget (else streams pieces through two-slot rings, cuBLASXt-like), and runs
// the plan on cached streams: one for host-to-device copies, one for device-to-host copies, up to
// four for the multiplies, ordered by events, so both copy directions and the multiplies overlap.
// Pageable operands go through a ring of pinned staging slots filled and emptied by host copy
// threads. docs/architecture.md ("GEMM from host memory") has the design.
//
// Synchronous calls (gemm, blas::gemm) return once C is in host memory. They use the library's
// own non-blocking streams: they neither wait for nor are ordered with the caller's streams.
//
// Asynchronous calls (gemm_async, blas::gemm_async) return once everything is enqueued, without
// waiting for the device. The call's work starts after everything enqueued on `stream` before it,
// and everything enqueued on `stream` after it starts after the call's work, which ends with C in
// host memory: cudaStreamSynchronize(stream), or an event recorded on `stream` after the call,
// signals completion. Until then the caller must keep A, B and C allocated, not write A or B, not
// read or write C, and keep `stream` alive. Nothing else: device buffers are freed in stream
// order, and the pinned staging goes back to the library's cache from a host callback. With
// pageable operands the staging copies run as host callbacks (cudaLaunchHostFunc) on library
// streams, on the CUDA runtime's callback thread (which they keep busy while they copy).
//
// Errors: everything that can be checked before the device is touched is (sizes, leading
// dimensions, null or misaligned pointers, device or managed memory where host memory is expected,
// options, a budget too small to plan with); such a call returns its Status having allocated
// nothing and written nothing. A policy that refuses the device (UnsupportedArchitecture, ...)
// refuses the first multiply, before anything is copied back. A CUDA failure part-way (out of
// memory, a failed launch) returns CudaError or LaunchFailed after waiting for what was enqueued
// (even in the asynchronous form); C may then be partly written. All memory is released on every path.
//
// Why a separate header, not part of gemm.cuh: it brings process-wide state (the caches and host
// copy threads of host/resources.cuh), <thread>, <mutex> and the pipeline code, which device-only
// users should not compile or carry.
#include <cstddef>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>
#include "gemm.cuh"
#include "host/convert_kernel.cuh"
#include "host/executor.cuh"
#include "host/graph_cache.cuh"
#include "host/planner.cuh"
#include "host/resources.cuh"

namespace gemm::host {

// Who copies pageable memory through the pinned staging slots.
enum class Staging {
  Auto,           // the calling thread (with the copy threads) for synchronous calls, callbacks for asynchronous ones
  CallingThread,  // synchronous calls only
  Callbacks,      // host callbacks on library streams (what asynchronous calls always use)
};

struct Options {
  // Device memory the call may allocate for its buffers, in bytes. 0: 90% of the free memory
  // (plus what gemm::host's own pool holds idle). When A, B and C fit, each is copied once; when
  // they do not, the call streams tiles (out of core). It must hold at least one tile's buffers
  // (256 bytes each for A, B, C, and a float accumulator for 16-bit C split in k), and leave a
  // plan of at most 65536 multiplies, else Status::DeviceBudgetTooSmall. A policy's own scratch
  // (TF32 on Hopper copies the A and B tiles K-major) comes on top.
  std::size_t device_budget = 0;
  // Overrides of the planner's choices (0: the planner chooses). In core: rows per block of A and
  // C, columns per block of B and C. Anywhere: k slices (1: never split k, so each element of C is
  // one multiply's result, as a single gemm::gemm call on the whole problem with the same kernel would give).
  int block_rows = 0;
  int block_cols = 0;
  int k_slices = 0;
  int streams = 0;  // compute streams, 1 to 4
  // In core with k split: 1 multiplies every tile's first k slice, then every tile's second, ...;
  // 0 a tile's slices one after another; -1 the planner chooses.
  int by_slice = -1;
  // Pageable operands: copy threads besides the one copying (0: min(8, hardware threads - 1)),
  // pinned staging slot size (0: 2 MiB; at least one row of a tile) and slots per direction (0: 4).
  int host_threads = 0;
  std::size_t staging_chunk = 0;
  int staging_slots = 0;
  Staging staging = Staging::Auto;
  // Filled with the plan the call used; with `timeline` (synchronous calls only) also with each
  // operation's start and end, which adds two events per operation.
  Report* report = nullptr;
  bool timeline = false;
  // From the second call with the same host pointers, shape, scalars and options on, a call whose
  // operands are all pinned replays a CUDA graph of the first one (one launch instead of some
  // sixty stream calls; see host/graph_cache.cuh). The graph reads A, B and C when it runs, as
  // any call does. false: always enqueue operation by operation.
  bool reuse_graphs = true;
};

namespace detail {

inline Status validate_options(const Options& o, bool async) {
  if (o.block_rows < 0 || o.block_cols < 0 || o.k_slices < 0 || o.streams < 0 || o.streams > kMaxComputeLanes ||
      o.host_threads < 0 || o.host_threads > 256 || o.staging_slots < 0 || o.staging_slots > 64 || o.by_slice < -1 ||
      o.by_slice > 1)
    return Status::InvalidOption;
  if (async && (o.timeline || o.staging == Staging::CallingThread)) return Status::InvalidOption;
  if (o.timeline && o.report == nullptr) return Status::InvalidOption;
  return Status::Success;
}

// Whether the stored matrix [p, p + ((rows - 1) * ld + width) elements) is host memory, and pinned.
inline Status classify(const void* p, long long rows, long long ld, long long width, int elem, Status not_host,
                       bool& pinned) {
  const char* first = static_cast<const char*>(p);
  const char* last = first + static_cast<std::size_t>(((rows - 1) * ld + width) * elem) - 1;
  int pinned_ends = 0;
  for (const char* q : {first, last}) {
    cudaPointerAttributes attr{};
    const cudaError_t err = cudaPointerGetAttributes(&attr, q);
    if (err == cudaErrorInvalidValue) {  // older drivers: plain host memory
      cudaGetLastError();
      continue;
    }
    if (err != cudaSuccess) return cuda_status(err);
    if (attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged) return not_host;
    if (attr.type == cudaMemoryTypeHost) ++pinned_ends;
  }
  pinned = pinned_ends == 2;
  return Status::Success;
}

// The multiply rate the planner assumes per type (H100, measured orders of magnitude).
template <class T>
constexpr double nominal_tflops() {
  if constexpr (std::is_same_v<T, tf32>) return 300;
  else if constexpr (is_16bit<T>) return 650;
  else if constexpr (std::is_same_v<T, double>) return 20;
  else return 50;
}

// The last 32 schedules, by problem and options.
class PlanCache {
 public:
  std::shared_ptr<const Schedule> get(const Problem& p, const Tuning& t) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (same_problem(it->p, p) && same_tuning(it->t, t)) {
        entries_.splice(entries_.begin(), entries_, it);
        return entries_.front().s;
      }
    return nullptr;
  }
  void put(const Problem& p, const Tuning& t, std::shared_ptr<const Schedule> s) {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.push_front({p, t, std::move(s)});
    if (entries_.size() > 32) entries_.pop_back();
  }

 private:
  struct Entry {
    Problem p;
    Tuning t;
    std::shared_ptr<const Schedule> s;
  };
  std::mutex mu_;
  std::list<Entry> entries_;
};
inline PlanCache& plan_cache() {
  static PlanCache* c = new PlanCache;
  return *c;
}

// The device side of the steps for one instantiation: gemm::gemm<T, Policy> on tiles, and the
// accumulator conversions.
template <class T, class Policy, class Layouts, class Out>
struct DeviceCalls {
  using In = storage_t<T>;
  using S = scalar_t<T>;
  // 16-bit C split in k accumulates in float when the policy can write float C.
  static constexpr bool kWiden = is_16bit<T> && !std::is_same_v<Out, float> && Policy::template kServes<T, float>;

  S alpha, beta;
  Op op_a, op_b;
  ::gemm::detail::DeviceInfo dev;

  template <class C>
  static Status run(const DeviceCalls& d, const DeviceCall& c, C* out, cudaStream_t stream) {
    GemmArgs<In, C> args{c.m,        c.n,    c.k, d.alpha, static_cast<const In*>(c.A), c.lda, static_cast<const In*>(c.B),
                         c.ldb,      c.first ? d.beta : S(1), out, c.ldc, d.op_a, d.op_b};
    if (c.k == 0) {  // C = beta * C: valid leading dimensions for the absent A and B
      args.lda = d.op_a == Op::N ? 1 : (c.m > 1 ? c.m : 1);
      args.ldb = d.op_b == Op::N ? (c.n > 1 ? c.n : 1) : 1;
    }
    return ::gemm::detail::run<T, Policy, Layouts, C>(args, stream);
  }
  static Status gemm(const void* self, const DeviceCall& c, cudaStream_t stream) {
    const auto& d = *static_cast<const DeviceCalls*>(self);
    if constexpr (kWiden)
      if (c.acc) return run<float>(d, c, static_cast<float*>(c.C), stream);
    return run<Out>(d, c, static_cast<Out*>(c.C), stream);
  }
  static Status widen(const void* self, const DeviceCall& c, cudaStream_t stream) {
    const auto& d = *static_cast<const DeviceCalls*>(self);
    if constexpr (kWiden)
      return convert_tile<Out, float>(static_cast<const Out*>(c.C), c.ldc, static_cast<float*>(c.acc_ptr), c.ld_acc, c.m,
                                      c.n, d.dev, stream);
    else
      return Status::InvalidSize;  // never planned: no float accumulator without kWiden
  }
  static Status narrow(const void* self, const DeviceCall& c, cudaStream_t stream) {
    const auto& d = *static_cast<const DeviceCalls*>(self);
    if constexpr (kWiden)
      return convert_tile<float, Out>(static_cast<const float*>(c.acc_ptr), c.ld_acc, static_cast<Out*>(c.C), c.ldc,
                                      c.m, c.n, d.dev, stream);
    else
      return Status::InvalidSize;
  }
};

inline std::size_t auto_budget(int device) {
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  std::size_t reserved = 0, used = 0;
  device_pools().usage(device, reserved, used);
  std::size_t b = (free + (reserved > used ? reserved - used : 0)) / 10 * 9;
  // Coarse, so that the plan cache still recognises the call when free memory moves a little.
  const std::size_t q = std::size_t(256) << 20;
  return b > q ? b / q * q : b;
}

// Captures a call into entry's graph, with device buffers of its own.
inline Status build_graph(const std::shared_ptr<CachedGraph>& entry, std::shared_ptr<const Schedule> sched,
                          const HostMatrices& h, const DeviceOps& ops, ExecConfig cfg) {
  char* buffer = nullptr;
  cudaEvent_t done = nullptr;
  cudaGraphExec_t exec = nullptr;
  cudaError_t err = sched->device_bytes > 0 ? cudaMalloc(&buffer, sched->device_bytes) : cudaSuccess;
  if (err == cudaSuccess) err = cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  Status status = err == cudaSuccess ? Status::Success : cuda_status(err);
  if (status == Status::Success) {
    cfg.capture = &exec;
    cfg.device_buffer = buffer;
    cfg.report = nullptr;
    status = Executor(std::move(sched), h, ops, cfg).run();
  }
  if (status != Status::Success || !exec) {
    if (exec) cudaGraphExecDestroy(exec);
    if (done) cudaEventDestroy(done);
    if (buffer) cudaFree(buffer);
    cudaGetLastError();
    graph_cache().built(entry, nullptr, nullptr, nullptr);
    return status != Status::Success ? status : Status::CudaError;
  }
  graph_cache().built(entry, exec, buffer, done);
  return Status::Success;
}

// Replays a captured call: on the caller's stream (asynchronous), or on a stream of the
// library's and waits (synchronous).
inline Status launch_graph(const CachedGraph& g, bool async, cudaStream_t caller, Report* report) {
  StreamSet* set = nullptr;
  cudaStream_t stream = caller;
  if (!async) {
    if (Status s = stream_sets().acquire(g.key.device, set); s != Status::Success) return s;
    stream = set->lane[kLaneH2D];
  }
  cudaError_t err = cudaGraphLaunch(g.exec, stream);
  const bool launched = err == cudaSuccess;
  if (launched) err = cudaEventRecord(g.done, stream);
  if (!async && launched) {
    const cudaError_t sync = cudaStreamSynchronize(stream);
    if (err == cudaSuccess) err = sync;
  }
  if (set) stream_sets().release(set);
  if (err != cudaSuccess) return cuda_status(err);
  if (report) {
    Executor::fill_report_of(*g.schedule, *report);
    report->timeline.clear();
    report->graph = true;
  }
  return Status::Success;
}

template <class T, class Policy, class Layouts, class Out>
Status run(const GemmArgs<storage_t<T>, Out>& args, const Options& opt, bool async, cudaStream_t stream) {
  constexpr bool kOk = is_math_type<T> && is_supported_output<T, Out> && Policy::template kServes<T, Out>;
  if constexpr (!kOk) {
    return ::gemm::detail::run<T, Policy, Layouts, Out>(args, stream);  // its static_assert says what is wrong
  } else {
    const ::gemm::detail::IgnoreCallerWorkspace own_memory;  // the inner calls overlap on several streams
    using In = storage_t<T>;
    // 1. Arguments and options, no CUDA call.
    if (Status s = ::gemm::detail::validate_sizes(args); s != Status::Success) return s;
    if (args.m == 0 || args.n == 0) return Status::Success;
    if (Status s = ::gemm::detail::validate_pointers(args); s != Status::Success) return s;
    if (Status s = validate_options(opt, async); s != Status::Success) return s;

    // 2. The device, and where A, B and C live.
    ::gemm::detail::DeviceInfo dev;
    if (Status s = ::gemm::detail::query_device(dev); s != Status::Success) return s;
    const bool product = ::gemm::detail::reads_ab(args);
    bool pinned_a = true, pinned_b = true, pinned_c = true;
    if (product) {
      const bool na = args.op_a == Op::N, nb = args.op_b == Op::N;
      if (Status s = classify(args.A, na ? args.m : args.k, args.lda, na ? args.k : args.m, sizeof(In),
                              Status::NotHostMemoryA, pinned_a);
          s != Status::Success)
        return s;
      if (Status s = classify(args.B, nb ? args.k : args.n, args.ldb, nb ? args.n : args.k, sizeof(In),
                              Status::NotHostMemoryB, pinned_b);
          s != Status::Success)
        return s;
    }
    if (Status s = classify(args.C, args.m, args.ldc, args.n, sizeof(Out), Status::NotHostMemoryC, pinned_c);
        s != Status::Success)
      return s;
    if (!product && args.beta == 1) return Status::Success;  // C = 1 * C

    // 3. The plan.
    Problem p;
    p.m = args.m;
    p.n = args.n;
    p.k = product ? args.k : 0;
    p.op_a = args.op_a;
    p.op_b = args.op_b;
    p.in_bytes = sizeof(In);
    p.out_bytes = sizeof(Out);
    p.acc_bytes = is_16bit<T> ? 4 : static_cast<int>(sizeof(Out));
    p.product = product;
    p.load_c = args.beta != 0;
    p.can_widen = DeviceCalls<T, Policy, Layouts, Out>::kWiden;
    p.staged_a = product && !pinned_a;
    p.staged_b = product && !pinned_b;
    p.staged_c = !pinned_c;
    p.budget = opt.device_budget > 0 ? opt.device_budget : auto_budget(dev.device);
    p.tflops = nominal_tflops<T>();
    Tuning t;
    t.block_rows = opt.block_rows;
    t.block_cols = opt.block_cols;
    t.k_slices = opt.k_slices;
    t.lanes = opt.streams;
    t.by_slice = opt.by_slice;
    if (opt.staging_chunk > 0) t.chunk_bytes = opt.staging_chunk;
    if (opt.staging_slots > 0) t.stage_slots = opt.staging_slots;
    std::shared_ptr<const Schedule> sched;
    try {  // the plan is host data structures: only std::bad_alloc can come out
      sched = plan_cache().get(p, t);
      if (!sched) {
        PlanResult r = make_schedule(p, t);
        if (!r.ok) {  // a budget that always plans, refused with forced shapes: the shapes are at fault
          const bool forced = opt.block_rows > 0 || opt.block_cols > 0 || opt.k_slices > 0;
          return forced && p.budget >= min_budget(p) ? Status::InvalidOption : Status::DeviceBudgetTooSmall;
        }
        sched = std::make_shared<const Schedule>(std::move(r.schedule));
        plan_cache().put(p, t, sched);
      }
    } catch (...) {
      return ::gemm::detail::record(cudaErrorMemoryAllocation, Status::CudaError);
    }

    // 4. Run it.
    ExecConfig cfg;
    cfg.async = async;
    cfg.caller = stream;
    cfg.staging = async || opt.staging == Staging::Callbacks ? StagingMode::Callbacks : StagingMode::CallingThread;
    cfg.helpers = opt.host_threads > 0 ? opt.host_threads : auto_host_threads();
    cfg.timeline = opt.timeline;
    cfg.report = opt.report;
    if (sched->stage_bytes > 0) copy_pool().ensure(cfg.helpers);
    HostMatrices h;
    h.a = reinterpret_cast<const char*>(args.A);
    h.b = reinterpret_cast<const char*>(args.B);
    h.c = reinterpret_cast<char*>(args.C);
    h.lda_bytes = static_cast<std::size_t>(args.lda) * sizeof(In);
    h.ldb_bytes = static_cast<std::size_t>(args.ldb) * sizeof(In);
    h.ldc_bytes = static_cast<std::size_t>(args.ldc) * sizeof(Out);
    using Calls = DeviceCalls<T, Policy, Layouts, Out>;
    const Calls calls{args.alpha, args.beta, args.op_a, args.op_b, dev};
    const DeviceOps ops{&calls, &Calls::gemm, &Calls::widen, &Calls::narrow};
    if (opt.reuse_graphs && !opt.timeline && GraphCache::eligible(*sched)) {
      GraphKey key;
      key.problem = p;
      key.problem.budget = 0;  // a graph runs under any budget its buffers fit
      key.tuning = t;
      key.instantiation = reinterpret_cast<const void*>(&Calls::gemm);
      key.a = args.A;
      key.b = args.B;
      key.c = args.C;
      key.lda = h.lda_bytes;
      key.ldb = h.ldb_bytes;
      key.ldc = h.ldc_bytes;
      key.alpha = GraphKey::bits(args.alpha);
      key.beta = GraphKey::bits(args.beta);
      key.device = dev.device;
      GraphCache::Sighting g;
      try {
        g = graph_cache().sight(key, sched, p.budget);
      } catch (...) {
        return ::gemm::detail::record(cudaErrorMemoryAllocation, Status::CudaError);
      }
      if (g.build && build_graph(g.entry, sched, h, ops, cfg) == Status::Success) g.launch = true;
      if (g.launch) return launch_graph(*g.entry, async, stream, opt.report);
      // a capture that failed runs as usual (and the entry is not tried again)
    }
    return Executor(std::move(sched), h, ops, cfg).run();
  }
}

template <class T, class Out>
using EnableOtherOutput = ::gemm::detail::EnableOtherOutput<T, Out>;

}  // namespace detail

// ---- Synchronous: return once C is in host memory.

// Row-major A (m x k), B (k x n) and C (m x n), host pointers.
template <class T, class Policy = DefaultPolicy>
Status gemm(int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda, const storage_t<T>* B, int ldb,
            scalar_t<T> beta, storage_t<T>* C, int ldc, const Options& opt = {}) {
  return detail::run<T, Policy, ::gemm::detail::Ops<Op::N, Op::N>, storage_t<T>>(
      {m, n, k, alpha, A, lda, B, ldb, beta, C, ldc}, opt, false, nullptr);
}
template <class T, class Policy = DefaultPolicy, class Out, detail::EnableOtherOutput<T, Out> = 0>
Status gemm(int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda, const storage_t<T>* B, int ldb,
            scalar_t<T> beta, Out* C, int ldc, const Options& opt = {}) {
  return detail::run<T, Policy, ::gemm::detail::Ops<Op::N, Op::N>, Out>({m, n, k, alpha, A, lda, B, ldb, beta, C, ldc},
                                                                        opt, false, nullptr);
}
// Row-major C; A and B stored as written (Op::N) or transposed (Op::T).
template <class T, class Policy = DefaultPolicy>
Status gemm(Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
            const storage_t<T>* B, int ldb, scalar_t<T> beta, storage_t<T>* C, int ldc, const Options& opt = {}) {
  return detail::run<T, Policy, ::gemm::detail::AnyOps, storage_t<T>>(
      {m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, op_a, op_b}, opt, false, nullptr);
}
template <class T, class Policy = DefaultPolicy, class Out, detail::EnableOtherOutput<T, Out> = 0>
Status gemm(Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
            const storage_t<T>* B, int ldb, scalar_t<T> beta, Out* C, int ldc, const Options& opt = {}) {
  return detail::run<T, Policy, ::gemm::detail::AnyOps, Out>({m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, op_a, op_b},
                                                             opt, false, nullptr);
}

// ---- Asynchronous: enqueue on `stream` and return (see the top of this file for the contract).

template <class T, class Policy = DefaultPolicy>
Status gemm_async(int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda, const storage_t<T>* B,
                  int ldb, scalar_t<T> beta, storage_t<T>* C, int ldc, cudaStream_t stream, const Options& opt = {}) {
  return detail::run<T, Policy, ::gemm::detail::Ops<Op::N, Op::N>, storage_t<T>>(
      {m, n, k, alpha, A, lda, B, ldb, beta, C, ldc}, opt, true, stream);
}
template <class T, class Policy = DefaultPolicy, class Out, detail::EnableOtherOutput<T, Out> = 0>
Status gemm_async(int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda, const storage_t<T>* B,
                  int ldb, scalar_t<T> beta, Out* C, int ldc, cudaStream_t stream, const Options& opt = {}) {
  return detail::run<T, Policy, ::gemm::detail::Ops<Op::N, Op::N>, Out>({m, n, k, alpha, A, lda, B, ldb, beta, C, ldc},
                                                                        opt, true, stream);
}
template <class T, class Policy = DefaultPolicy>
Status gemm_async(Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
                  const storage_t<T>* B, int ldb, scalar_t<T> beta, storage_t<T>* C, int ldc, cudaStream_t stream,
                  const Options& opt = {}) {
  return detail::run<T, Policy, ::gemm::detail::AnyOps, storage_t<T>>(
      {m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, op_a, op_b}, opt, true, stream);
}
template <class T, class Policy = DefaultPolicy, class Out, detail::EnableOtherOutput<T, Out> = 0>
Status gemm_async(Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
                  const storage_t<T>* B, int ldb, scalar_t<T> beta, Out* C, int ldc, cudaStream_t stream,
                  const Options& opt = {}) {
  return detail::run<T, Policy, ::gemm::detail::AnyOps, Out>({m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, op_a, op_b},
                                                             opt, true, stream);
}

// ---- Column-major, as BLAS (gemm::blas::gemm's arguments), host pointers.
namespace blas {
namespace detail {
template <class T, class Policy, class Out>
Status run(Op transa, Op transb, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
           const storage_t<T>* B, int ldb, scalar_t<T> beta, Out* C, int ldc, const Options& opt, bool async,
           cudaStream_t stream) {
  // Column-major C is the row-major n x m C^T = op(B)^T op(A)^T: swap A and B (and their statuses).
  return ::gemm::detail::swap_ab(::gemm::host::detail::run<T, Policy, ::gemm::detail::AnyOps, Out>(
      {n, m, k, alpha, B, ldb, A, lda, beta, C, ldc, transb, transa}, opt, async, stream));
}
}  // namespace detail

template <class T, class Policy = DefaultPolicy>
Status gemm(Op transa, Op transb, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
            const storage_t<T>* B, int ldb, scalar_t<T> beta, storage_t<T>* C, int ldc, const Options& opt = {}) {
  return detail::run<T, Policy, storage_t<T>>(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, opt, false,
                                              nullptr);
}
template <class T, class Policy = DefaultPolicy, class Out, ::gemm::detail::EnableOtherOutput<T, Out> = 0>
Status gemm(Op transa, Op transb, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
            const storage_t<T>* B, int ldb, scalar_t<T> beta, Out* C, int ldc, const Options& opt = {}) {
  return detail::run<T, Policy, Out>(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, opt, false, nullptr);
}
template <class T, class Policy = DefaultPolicy>
Status gemm_async(Op transa, Op transb, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
                  const storage_t<T>* B, int ldb, scalar_t<T> beta, storage_t<T>* C, int ldc, cudaStream_t stream,
                  const Options& opt = {}) {
  return detail::run<T, Policy, storage_t<T>>(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, opt, true,
                                              stream);
}
template <class T, class Policy = DefaultPolicy, class Out, ::gemm::detail::EnableOtherOutput<T, Out> = 0>
Status gemm_async(Op transa, Op transb, int m, int n, int k, scalar_t<T> alpha, const storage_t<T>* A, int lda,
                  const storage_t<T>* B, int ldb, scalar_t<T> beta, Out* C, int ldc, cudaStream_t stream,
                  const Options& opt = {}) {
  return detail::run<T, Policy, Out>(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, opt, true, stream);
}
}  // namespace blas

}  // namespace gemm::host
