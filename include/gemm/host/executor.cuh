#pragma once
// Runs a Schedule (schedule.cuh) on the device: lanes are streams of a cached set, a dependency on
// an operation of another lane is an event recorded after it, and the staging copies of
// pageable memory run on host threads, either
//   - driven by the calling thread (the synchronous call): it walks the operation list, copies
//     into a staging slot once the copy that last read the slot is done (polling its event), and
//     copies finished tiles out of their slots whenever their device-to-host copy has landed; or
//   - as host callbacks (cudaLaunchHostFunc) on the two staging streams (the asynchronous call,
//     which must return at once), each callback splitting its copy over the copy threads.
// Types are erased here (one copy of this code per program, not per type); the multiplies and
// the accumulator conversions come in as function pointers.
#include <chrono>
#include <cstddef>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>
#include <cuda_runtime.h>
#include "../status.cuh"
#include "resources.cuh"
#include "schedule.cuh"

namespace gemm::host {

// One operation of a recorded call, in milliseconds from the call's first event.
struct Span {
  int lane = 0;
  const char* lane_name = "";
  const char* kind = "";
  int step = -1;   // the multiply's index for gemm, widen and narrow
  double start_ms = 0, end_ms = 0;
  double bytes = 0;  // copies
};

// What a call did (Options::report): its plan, and with Options::timeline its operations' times.
struct Report {
  std::string plan;  // one line: in or out of core, blocks, slots, streams, bytes, prediction
  bool in_core = false;
  int row_blocks = 0, col_blocks = 0, k_slices = 0, steps = 0, compute_streams = 0;
  bool pinned_a = false, pinned_b = false, pinned_c = false;  // false: pageable, went through staging
  std::size_t device_bytes = 0, staging_bytes = 0;
  double h2d_bytes = 0, d2h_bytes = 0;  // bytes the plan moves over PCIe
  double first_load_bytes = 0;          // copied before the first multiply can start
  double predicted_ms = 0;              // the planner's estimate (nominal H100 rates)
  std::vector<Span> timeline;           // Options::timeline, synchronous calls only
  bool graph = false;                   // replayed from a CUDA graph of an earlier call (Options::reuse_graphs)
};

}  // namespace gemm::host

namespace gemm::host::detail {

// One multiply or conversion, in device terms.
struct DeviceCall {
  int m = 0, n = 0, k = 0;
  const void* A = nullptr;
  int lda = 0;
  const void* B = nullptr;
  int ldb = 0;
  void* C = nullptr;  // the tile, of C's type, or float when `acc`
  int ldc = 0;
  bool first = true;  // first k slice: beta applies, else beta = 1
  bool acc = false;   // C is the float accumulator
  // Widen / Narrow: acc (float) <-> C (C's type), m x n.
  void* acc_ptr = nullptr;
  int ld_acc = 0;
};

struct DeviceOps {
  const void* self = nullptr;
  Status (*gemm)(const void* self, const DeviceCall& call, cudaStream_t stream) = nullptr;
  Status (*widen)(const void* self, const DeviceCall& call, cudaStream_t stream) = nullptr;
  Status (*narrow)(const void* self, const DeviceCall& call, cudaStream_t stream) = nullptr;
};

struct HostMatrices {
  const char* a = nullptr;
  const char* b = nullptr;
  char* c = nullptr;
  std::size_t lda_bytes = 0, ldb_bytes = 0, ldc_bytes = 0;  // leading dimensions in bytes
};

enum class StagingMode { CallingThread, Callbacks };

struct ExecConfig {
  bool async = false;
  cudaStream_t caller = nullptr;  // async: the caller's stream
  StagingMode staging = StagingMode::CallingThread;
  int helpers = 0;                // copy threads besides the copying thread
  bool timeline = false;
  Report* report = nullptr;
  // Device memory for the schedule's buffers, owned by the caller (else the call allocates its own).
  char* device_buffer = nullptr;
  // Record instead of run: the operations are captured into a CUDA graph, instantiated into
  // *capture for the caller to launch (graph_cache.cuh). Pinned operands only, no timeline.
  cudaGraphExec_t* capture = nullptr;
};

// Everything a host callback needs; lives until the call's last callback (async) or its end.
struct CallState {
  std::shared_ptr<const Schedule> schedule;
  HostMatrices host;
  char* stage = nullptr;
  std::size_t stage_block = 0;  // bytes of the pinned block (for its return to the cache)
  int helpers = 0;
  struct Arg {
    CallState* state;
    int op;
  };
  std::vector<Arg> args;  // one per operation (host callbacks get a pointer into it)
};

inline const char* host_pointer(const HostMatrices& h, Mat m) { return m == Mat::A ? h.a : m == Mat::B ? h.b : h.c; }
inline std::size_t host_pitch(const HostMatrices& h, Mat m) {
  return m == Mat::A ? h.lda_bytes : m == Mat::B ? h.ldb_bytes : h.ldc_bytes;
}
inline int elem_bytes(const Problem& p, Mat m) { return m == Mat::C ? p.out_bytes : p.in_bytes; }

// The host side of a staging copy: host matrix block <-> staging slot (rows at the device pitch).
inline RowCopy stage_copy(const Schedule& s, const HostMatrices& h, char* stage, const FlowOp& op) {
  const int elem = elem_bytes(s.problem, op.mat);
  const BufferShape& buf = s.buffers[op.buffer].shape;
  const std::size_t dev_pitch = static_cast<std::size_t>(buf.ld) * buf.elem;
  char* slot = stage + static_cast<std::size_t>(op.stage) * s.stage_slot_bytes;
  const std::size_t hp = host_pitch(h, op.mat);
  const char* hblock = host_pointer(h, op.mat) + static_cast<std::size_t>(op.row) * hp + static_cast<std::size_t>(op.col) * elem;
  RowCopy c;
  c.width = static_cast<std::size_t>(op.width) * elem;
  c.rows = op.rows;
  if (op.kind == OpKind::StageIn) {
    c.src = hblock;
    c.src_pitch = hp;
    c.dst = slot;
    c.dst_pitch = dev_pitch;
  } else {
    c.src = slot;
    c.src_pitch = dev_pitch;
    c.dst = const_cast<char*>(hblock);
    c.dst_pitch = hp;
  }
  return c;
}

inline void CUDART_CB host_op_callback(void* p) {
  const auto* arg = static_cast<const CallState::Arg*>(p);
  const CallState& st = *arg->state;
  copy_pool().copy(stage_copy(*st.schedule, st.host, st.stage, st.schedule->ops[arg->op]), st.helpers);
}

inline void CUDART_CB finish_callback(void* p) {
  auto* st = static_cast<CallState*>(p);
  pinned_cache().release(st->stage, st->stage_block);  // no CUDA call
  delete st;
}

class Executor {
 public:
  Executor(std::shared_ptr<const Schedule> s, const HostMatrices& h, const DeviceOps& ops, const ExecConfig& cfg)
      : sched_(std::move(s)), s_(*sched_), host_(h), dev_ops_(ops), cfg_(cfg) {}

  // Never throws: a failed host allocation (std::bad_alloc) ends the call like a CUDA one.
  Status run() {
    Status st = Status::Success;
    try {
      st = setup();
      if (st == Status::Success) st = walk();
    } catch (...) {
      st = ::gemm::detail::record(cudaErrorMemoryAllocation, Status::CudaError);
    }
    try {
      return finish(st);
    } catch (...) {
      return ::gemm::detail::record(cudaErrorMemoryAllocation, Status::CudaError);
    }
  }

 private:
  bool host_driven() const { return !cfg_.async && cfg_.staging == StagingMode::CallingThread; }
  bool on_host(int i) const { return host_driven() && is_host_op(s_.ops[i].kind); }

  Status fail(cudaError_t err) { return cuda_status(err); }

  Status setup() {
    cudaError_t err = cudaGetDevice(&device_);
    if (err != cudaSuccess) return fail(err);
    int max_pitch = 0;
    err = cudaDeviceGetAttribute(&max_pitch, cudaDevAttrMaxPitch, device_);
    if (err != cudaSuccess) return fail(err);
    max_pitch_ = static_cast<std::size_t>(max_pitch);

    const std::size_t n = s_.ops.size();
    for (const FlowOp& op : s_.ops) used_[op.lane] = true;
    // An event after each operation another lane waits for (host-driven staging copies need
    // none: they are done before anything after them is enqueued).
    event_of_.assign(n, -1);
    int events = 0;
    for (std::size_t i = 0; i < n; ++i)
      for (int d : s_.ops[i].deps)
        if (s_.ops[d].lane != s_.ops[i].lane && !on_host(d) && event_of_[d] < 0) event_of_[d] = events++;
    fork_event_ = events++;
    join_event0_ = events;
    events += kMaxLanes;
    if (Status st = event_cache().acquire(device_, static_cast<std::size_t>(events), events_); st != Status::Success)
      return st;

    if (Status st = stream_sets().acquire(device_, set_); st != Status::Success) return st;
    origin_ = cfg_.async && !cfg_.capture ? cfg_.caller : set_->lane[kLaneH2D];
    if (!cfg_.async || cfg_.capture) used_[kLaneH2D] = true;
    if (cfg_.capture) {
      // Relaxed: first calls may create pools or load kernels, which the other modes refuse.
      err = cudaStreamBeginCapture(origin_, cudaStreamCaptureModeRelaxed);
      if (err != cudaSuccess) return fail(err);
      capturing_ = true;
    }

    if (cfg_.timeline) {
      t_start_.assign(n, nullptr);
      t_end_.assign(n, nullptr);
      for (std::size_t i = 0; i <= n; ++i) {
        cudaEvent_t a = nullptr, b = nullptr;
        err = cudaEventCreate(&a);
        if (err == cudaSuccess && i < n) err = cudaEventCreate(&b);
        if (err != cudaSuccess) {
          if (a) cudaEventDestroy(a);
          return fail(err);
        }
        if (i == n) {
          t_origin_ = a;
        } else {
          t_start_[i] = a;
          t_end_[i] = b;
        }
      }
    }

    // Device buffers, in stream order on the origin stream.
    if (cfg_.device_buffer) {
      dev_ = cfg_.device_buffer;
    } else if (s_.device_bytes > 0) {
      cudaMemPool_t pool = nullptr;
      if (Status st = device_pools().get(device_, pool); st != Status::Success) return st;
      void* p = nullptr;
      err = cudaMallocFromPoolAsync(&p, s_.device_bytes, pool, origin_);
      if (err != cudaSuccess) return fail(err);
      dev_ = static_cast<char*>(p);
    }
    // Pinned staging.
    if (s_.stage_bytes > 0) {
      void* p = nullptr;
      if (Status st = pinned_cache().acquire(s_.stage_bytes, p, stage_block_); st != Status::Success) return st;
      stage_ = static_cast<char*>(p);
    }
    state_ = new CallState;
    state_->schedule = sched_;
    state_->host = host_;
    state_->stage = stage_;
    state_->stage_block = stage_block_;
    state_->helpers = cfg_.helpers;
    state_->args.resize(n);
    for (std::size_t i = 0; i < n; ++i) state_->args[i] = {state_, static_cast<int>(i)};

    // Time zero of the timeline, before anything of the call runs; the host clock's zero is
    // when the calling thread sees it (a few microseconds late).
    if (cfg_.timeline) {
      err = cudaEventRecord(t_origin_, origin_);
      if (err == cudaSuccess && host_driven()) {
        err = cudaEventSynchronize(t_origin_);
        host_t0_ = std::chrono::steady_clock::now();
      }
      if (err != cudaSuccess) return fail(err);
    }
    // Fork: every lane stream starts after the allocation (and, async, after the caller's work).
    err = cudaEventRecord(events_[fork_event_], origin_);
    if (err != cudaSuccess) return fail(err);
    forked_ = true;
    for (int l = 0; l < kMaxLanes; ++l)
      if (lane_is_stream(l) && set_->lane[l] != origin_) {
        err = cudaStreamWaitEvent(set_->lane[l], events_[fork_event_], 0);
        if (err != cudaSuccess) return fail(err);
      }
    return Status::Success;
  }

  bool lane_is_stream(int l) const {
    if (!used_[l]) return false;
    return !(host_driven() && (l == kLaneStageIn || l == kLaneStageOut));
  }
  cudaStream_t stream(int lane) const { return set_->lane[lane]; }

  // Waits for the dependencies of op i that run on other streams.
  Status wait_deps(int i, cudaStream_t st) {
    const FlowOp& op = s_.ops[i];
    for (int d : op.deps) {
      if (s_.ops[d].lane == op.lane || on_host(d)) continue;
      const cudaError_t err = cudaStreamWaitEvent(st, events_[event_of_[d]], 0);
      if (err != cudaSuccess) return fail(err);
    }
    return Status::Success;
  }

  char* dev_block(const FlowOp& op, std::size_t& pitch) const {
    const Buffer& b = s_.buffers[op.buffer];
    pitch = static_cast<std::size_t>(b.shape.ld) * b.shape.elem;
    return dev_ + b.offset + static_cast<std::size_t>(op.buffer_row) * pitch;
  }

  // A 2D copy, row by row where a pitch is beyond what the copy engines take.
  cudaError_t copy2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                     std::size_t rows, cudaMemcpyKind kind, cudaStream_t st) const {
    if (rows == 1) return cudaMemcpyAsync(dst, src, width, kind, st);
    if (dpitch <= max_pitch_ && spitch <= max_pitch_) return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, kind, st);
    for (std::size_t r = 0; r < rows; ++r) {
      const cudaError_t err = cudaMemcpyAsync(static_cast<char*>(dst) + r * dpitch,
                                              static_cast<const char*>(src) + r * spitch, width, kind, st);
      if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
  }

  Status enqueue_gpu(int i) {
    const FlowOp& op = s_.ops[i];
    cudaStream_t st = stream(op.lane);
    if (Status s = wait_deps(i, st); s != Status::Success) return s;
    cudaError_t err = cudaSuccess;
    if (cfg_.timeline && (err = cudaEventRecord(t_start_[i], st)) != cudaSuccess) return fail(err);
    Status status = Status::Success;
    switch (op.kind) {
      case OpKind::H2D:
      case OpKind::D2H: {
        const int elem = elem_bytes(s_.problem, op.mat);
        std::size_t pitch = 0;
        char* dev = dev_block(op, pitch);
        const std::size_t width = static_cast<std::size_t>(op.width) * elem;
        const bool h2d = op.kind == OpKind::H2D;
        if (op.stage >= 0) {  // whole rows at the device pitch: one contiguous copy
          char* slot = stage_ + static_cast<std::size_t>(op.stage) * s_.stage_slot_bytes;
          const std::size_t bytes = static_cast<std::size_t>(op.rows - 1) * pitch + width;
          err = h2d ? cudaMemcpyAsync(dev, slot, bytes, cudaMemcpyHostToDevice, st)
                    : cudaMemcpyAsync(slot, dev, bytes, cudaMemcpyDeviceToHost, st);
        } else {
          const std::size_t hp = host_pitch(host_, op.mat);
          const char* h = host_pointer(host_, op.mat) + static_cast<std::size_t>(op.row) * hp +
                          static_cast<std::size_t>(op.col) * elem;
          err = h2d ? copy2d(dev, pitch, h, hp, width, op.rows, cudaMemcpyHostToDevice, st)
                    : copy2d(const_cast<char*>(h), hp, dev, pitch, width, op.rows, cudaMemcpyDeviceToHost, st);
        }
        if (err != cudaSuccess) return fail(err);
        break;
      }
      case OpKind::Gemm: {
        const Step stp = s_.steps[op.step];
        DeviceCall c;
        c.m = s_.plan.rows[stp.i].size;
        c.n = s_.plan.cols[stp.j].size;
        c.k = s_.problem.product ? s_.plan.ks[stp.p].size : 0;
        if (op.a >= 0) {
          c.A = dev_ + s_.buffers[op.a].offset;
          c.lda = s_.buffers[op.a].shape.ld;
        }
        if (op.b >= 0) {
          c.B = dev_ + s_.buffers[op.b].offset;
          c.ldb = s_.buffers[op.b].shape.ld;
        }
        c.C = dev_ + s_.buffers[op.c].offset;
        c.ldc = s_.buffers[op.c].shape.ld;
        c.first = op.first;
        c.acc = s_.buffers[op.c].acc;
        status = dev_ops_.gemm(dev_ops_.self, c, st);
        break;
      }
      case OpKind::Widen:
      case OpKind::Narrow: {
        DeviceCall c;
        c.m = op.tile_rows;
        c.n = op.tile_cols;
        c.C = dev_ + s_.buffers[op.c].offset;
        c.ldc = s_.buffers[op.c].shape.ld;
        c.acc_ptr = dev_ + s_.buffers[op.acc].offset;
        c.ld_acc = s_.buffers[op.acc].shape.ld;
        status = op.kind == OpKind::Widen ? dev_ops_.widen(dev_ops_.self, c, st) : dev_ops_.narrow(dev_ops_.self, c, st);
        break;
      }
      case OpKind::StageIn:
      case OpKind::StageOut:
        err = cudaLaunchHostFunc(st, host_op_callback, &state_->args[i]);
        if (err != cudaSuccess) return fail(err);
        break;
    }
    if (status != Status::Success) return status;
    if (cfg_.timeline && (err = cudaEventRecord(t_end_[i], st)) != cudaSuccess) return fail(err);
    if (event_of_[i] >= 0 && (err = cudaEventRecord(events_[event_of_[i]], st)) != cudaSuccess) return fail(err);
    return Status::Success;
  }

  // --- host-driven staging ---------------------------------------------------------------------
  // Whether op i's dependencies on device work are complete (polls; an error ends the call).
  Status gpu_deps_done(int i, bool& done) {
    done = true;
    for (int d : s_.ops[i].deps) {
      if (on_host(d)) continue;
      const cudaError_t err = cudaEventQuery(events_[event_of_[d]]);
      if (err == cudaErrorNotReady) {
        done = false;
        return Status::Success;
      }
      if (err != cudaSuccess) return fail(err);
    }
    return Status::Success;
  }
  Status run_host(int i) {
    const auto t0 = std::chrono::steady_clock::now();
    copy_pool().copy(stage_copy(s_, host_, stage_, s_.ops[i]), cfg_.helpers);
    host_done_[i] = true;
    if (cfg_.timeline) {
      const auto t1 = std::chrono::steady_clock::now();
      host_span_[i] = {std::chrono::duration<double, std::milli>(t0 - host_t0_).count(),
                       std::chrono::duration<double, std::milli>(t1 - host_t0_).count()};
    }
    return Status::Success;
  }
  // Copies out every deferred tile whose device-to-host copy has landed, in order.
  Status poll_deferred() {
    while (!deferred_.empty()) {
      bool done = false;
      if (Status s = gpu_deps_done(deferred_.front(), done); s != Status::Success) return s;
      if (!done) return Status::Success;
      const int i = deferred_.front();
      deferred_.pop_front();
      if (Status s = run_host(i); s != Status::Success) return s;
    }
    return Status::Success;
  }
  // Runs op i (a staging copy) once its device dependencies are done, copying out finished
  // tiles while it waits.
  Status run_host_when_ready(int i) {
    for (;;) {
      bool done = false;
      if (Status s = gpu_deps_done(i, done); s != Status::Success) return s;
      if (done) return run_host(i);
      if (s_.ops[i].kind == OpKind::StageIn) {
        if (Status s = poll_deferred(); s != Status::Success) return s;
      }
      GEMM_HOST_PAUSE();
    }
  }
  // Runs deferred copies up to and including op d.
  Status drain_through(int d) {
    while (!host_done_[d]) {
      const int i = deferred_.front();
      deferred_.pop_front();
      if (Status s = run_host_when_ready(i); s != Status::Success) return s;
    }
    return Status::Success;
  }

  Status walk() {
    const int n = static_cast<int>(s_.ops.size());
    if (host_driven()) {
      host_done_.assign(n, false);
      if (cfg_.timeline) host_span_.assign(n, {0.0, 0.0});
    }
    for (int i = 0; i < n; ++i) {
      const FlowOp& op = s_.ops[i];
      if (!on_host(i)) {
        if (host_driven())
          for (int d : op.deps)
            if (on_host(d) && !host_done_[d])
              if (Status s = drain_through(d); s != Status::Success) return s;
        if (Status s = enqueue_gpu(i); s != Status::Success) return s;
      } else if (op.kind == OpKind::StageOut) {
        deferred_.push_back(i);
      } else {
        for (int d : op.deps)
          if (on_host(d) && !host_done_[d])
            if (Status s = drain_through(d); s != Status::Success) return s;
        if (Status s = run_host_when_ready(i); s != Status::Success) return s;
      }
      if (host_driven())
        if (Status s = poll_deferred(); s != Status::Success) return s;
    }
    while (!deferred_.empty()) {
      const int i = deferred_.front();
      deferred_.pop_front();
      if (Status s = run_host_when_ready(i); s != Status::Success) return s;
    }
    return Status::Success;
  }

  // Joins the lanes into the origin stream, frees in stream order, and (sync) waits. On an
  // error part-way the call still waits for what it enqueued, so that nothing it owns is used
  // after it returns.
  Status finish(Status status) {
    cudaError_t err = cudaSuccess;
    bool joined = true;
    if (forked_) {
      int j = 0;
      for (int l = 0; l < kMaxLanes; ++l)
        if (lane_is_stream(l) && set_->lane[l] != origin_) {
          cudaEvent_t e = events_[join_event0_ + j++];
          if (cudaEventRecord(e, set_->lane[l]) != cudaSuccess || cudaStreamWaitEvent(origin_, e, 0) != cudaSuccess)
            joined = false;
        }
    }
    if (dev_ && dev_ != cfg_.device_buffer) cudaFreeAsync(dev_, origin_);
    if (capturing_) {  // nothing ran: end the capture (also after an error) and keep the graph
      cudaGraph_t graph = nullptr;
      err = cudaStreamEndCapture(origin_, &graph);
      if (status == Status::Success && err != cudaSuccess) status = fail(err);
      if (status == Status::Success && !joined) status = fail(cudaErrorStreamCaptureUnjoined);
      if (status == Status::Success && (err = cudaGraphInstantiate(cfg_.capture, graph, 0)) != cudaSuccess) {
        *cfg_.capture = nullptr;
        status = fail(err);
      }
      if (graph) cudaGraphDestroy(graph);
    }
    bool wait = (!cfg_.async || status != Status::Success || !joined) && !capturing_;
    if (!wait) {
      if (stage_) {
        // The pinned block goes back (and the state is deleted) once everything before is done.
        err = cudaLaunchHostFunc(origin_, finish_callback, state_);
        if (err != cudaSuccess) {
          status = fail(err);
          wait = true;
        }
      } else {
        delete state_;  // no callback refers to it
      }
    } else if (capturing_) {
      delete state_;  // the graph has no host callbacks (pinned operands only)
    }
    if (wait) {
      if (forked_) {
        if (joined) {
          err = cudaStreamSynchronize(origin_);
        } else {  // a join failed: wait for every lane
          for (int l = 0; l < kMaxLanes; ++l)
            if (lane_is_stream(l)) cudaStreamSynchronize(set_->lane[l]);
          err = cudaStreamSynchronize(origin_);
        }
        if (err != cudaSuccess && status == Status::Success) status = fail(err);
      }
      if (status == Status::Success && cfg_.timeline) collect_timeline();
      if (stage_) pinned_cache().release(stage_, stage_block_);
      delete state_;
      if (!cfg_.async) pinned_cache().trim(limits().pinned.load());
    }
    state_ = nullptr;
    if (cfg_.timeline) {
      for (cudaEvent_t e : t_start_)
        if (e) cudaEventDestroy(e);
      for (cudaEvent_t e : t_end_)
        if (e) cudaEventDestroy(e);
      if (t_origin_) cudaEventDestroy(t_origin_);
    }
    if (!events_.empty()) event_cache().release(device_, events_);
    if (set_) stream_sets().release(set_);
    if (cfg_.report) fill_report(*cfg_.report);
    cudaGetLastError();
    return status;
  }

  void collect_timeline() {
    Report* r = cfg_.report;
    if (!r) return;
    r->timeline.clear();
    for (std::size_t i = 0; i < s_.ops.size(); ++i) {
      const FlowOp& op = s_.ops[i];
      Span sp;
      sp.lane = op.lane;
      sp.lane_name = lane_name(op.lane);
      sp.kind = to_string(op.kind);
      sp.step = op.kind == OpKind::Gemm ? op.step : -1;
      if (op.kind == OpKind::H2D || op.kind == OpKind::D2H || is_host_op(op.kind))
        sp.bytes = static_cast<double>(op.rows) * op.width * elem_bytes(s_.problem, op.mat);
      if (on_host(static_cast<int>(i))) {
        sp.start_ms = host_span_[i].first;
        sp.end_ms = host_span_[i].second;
      } else {
        float a = 0, b = 0;
        if (cudaEventElapsedTime(&a, t_origin_, t_start_[i]) != cudaSuccess ||
            cudaEventElapsedTime(&b, t_origin_, t_end_[i]) != cudaSuccess) {
          cudaGetLastError();
          continue;
        }
        sp.start_ms = a;
        sp.end_ms = b;
      }
      r->timeline.push_back(sp);
    }
  }

  void fill_report(Report& r) const { fill_report_of(s_, r); }

 public:
  static void fill_report_of(const Schedule& s_, Report& r) {
    r.graph = false;
    r.plan = describe(s_);
    r.in_core = s_.plan.in_core;
    r.row_blocks = static_cast<int>(s_.plan.rows.size());
    r.col_blocks = static_cast<int>(s_.plan.cols.size());
    r.k_slices = static_cast<int>(s_.plan.ks.size());
    r.steps = static_cast<int>(s_.steps.size());
    r.compute_streams = s_.plan.lanes;
    r.pinned_a = !s_.problem.staged_a;
    r.pinned_b = !s_.problem.staged_b;
    r.pinned_c = !s_.problem.staged_c;
    r.device_bytes = s_.device_bytes;
    r.staging_bytes = s_.stage_bytes;
    r.h2d_bytes = s_.h2d_bytes;
    r.d2h_bytes = s_.d2h_bytes;
    r.first_load_bytes = s_.first_load_bytes;
    r.predicted_ms = s_.predicted_ms;
  }

 private:
  std::shared_ptr<const Schedule> sched_;
  const Schedule& s_;
  HostMatrices host_;
  DeviceOps dev_ops_;
  ExecConfig cfg_;

  int device_ = 0;
  std::size_t max_pitch_ = 0;
  bool used_[kMaxLanes] = {};
  std::vector<int> event_of_;
  std::vector<cudaEvent_t> events_;
  int fork_event_ = 0, join_event0_ = 0;
  StreamSet* set_ = nullptr;
  cudaStream_t origin_ = nullptr;
  bool forked_ = false;
  bool capturing_ = false;
  char* dev_ = nullptr;
  char* stage_ = nullptr;
  std::size_t stage_block_ = 0;
  CallState* state_ = nullptr;
  // Host-driven staging.
  std::vector<bool> host_done_;
  std::deque<int> deferred_;
  // Timeline.
  std::vector<cudaEvent_t> t_start_, t_end_;
  cudaEvent_t t_origin_ = nullptr;
  std::chrono::steady_clock::time_point host_t0_;
  std::vector<std::pair<double, double>> host_span_;
};

}  // namespace gemm::host::detail
