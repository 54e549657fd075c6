#pragma once
// What gemm::host keeps between calls, and the host threads that copy pageable memory.
//
// Policy (see also gemm::host::set_cache_limits and gemm::host::release_cache):
//   device memory  one stream-ordered memory pool per device, owned by gemm::host. A call allocates
//                  its buffers from it in stream order (cudaMallocFromPoolAsync) and frees them in
//                  stream order at its end; the pool keeps up to the device cache limit (default
//                  1 GiB) reserved between calls, so that repeated calls do not map memory again.
//   pinned memory  staging for pageable operands, from a process-wide cache of cudaHostAlloc
//                  blocks; a call takes one block and gives it back when it completes (the
//                  asynchronous form from a host callback, which makes no CUDA call); idle blocks
//                  beyond the pinned cache limit (default 64 MiB) are freed at the next call.
//   events, streams  reused, never destroyed except by release_cache(): cudaEventCreate and
//                  cudaStreamCreate cost microseconds, which a 0.2 ms call cannot spare. A set of
//                  streams serves one call at a time while it enqueues (another thread's call gets
//                  another set); work still running from an earlier asynchronous call only makes
//                  a later call on the same set wait behind it.
//   copy threads   started at the first call with pageable memory and kept (they sleep when idle).
//   graphs         a repeated call with pinned operands is captured and replayed (graph_cache.cuh);
//                  each graph owns its device buffers (at most 8 graphs, 256 MiB) until evicted.
// Nothing here is freed at process exit: CUDA may already be torn down by then.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>
#include <cuda_runtime.h>
#include "../detail/idle_pool.cuh"
#include "../detail/launch.cuh"
#include "../detail/workspace.cuh"
#include "../status.cuh"
#include "graph_cache.cuh"
#include "schedule.cuh"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define GEMM_HOST_PAUSE() _mm_pause()
#else
#define GEMM_HOST_PAUSE() std::this_thread::yield()
#endif

namespace gemm::host {

// What gemm::host holds between calls (cache_stats()).
struct CacheStats {
  std::size_t device_reserved = 0;   // bytes reserved by gemm::host's memory pools, all devices
  std::size_t device_used = 0;       // of which allocated to calls still in flight
  std::size_t pinned_bytes = 0;      // pinned host memory gemm::host has allocated and not freed
  std::size_t pinned_idle = 0;       // of which idle in the cache
  unsigned long long pinned_allocations = 0;  // cudaHostAlloc calls made so far
  int stream_sets = 0;               // sets of streams created (one per concurrently enqueueing thread)
  int idle_events = 0;
  int copy_threads = 0;              // host threads for pageable copies
  int graphs = 0;                    // captured calls kept for replay (Options::reuse_graphs)
  std::size_t graph_bytes = 0;       // device bytes those graphs own
};

}  // namespace gemm::host

namespace gemm::host::detail {

inline Status cuda_status(cudaError_t err, Status s = Status::CudaError) {
  cudaGetLastError();  // not sticky for the caller's next call
  return ::gemm::detail::record(err, s);
}

struct Limits {
  std::atomic<std::size_t> device{std::size_t(1) << 30};
  std::atomic<std::size_t> pinned{std::size_t(64) << 20};
};
inline Limits& limits() {
  static Limits* l = new Limits;
  return *l;
}

// ---------------------------------------------------------------------------------------------
// Device memory: one pool per device.
// ---------------------------------------------------------------------------------------------
class DevicePools {
 public:
  Status get(int device, cudaMemPool_t& out) {
    if (device < 0 || device >= kMax) return ::gemm::detail::record(cudaErrorInvalidDevice, Status::CudaError);
    std::lock_guard<std::mutex> lock(mu_);
    if (!pools_[device]) {
      int supported = 0;
      cudaError_t err = cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device);
      if (err != cudaSuccess) return cuda_status(err);
      if (!supported) return cuda_status(cudaErrorNotSupported);
      cudaMemPool_t pool = nullptr;
      err = ::gemm::detail::create_device_pool(device, limits().device.load(), pool);
      if (err != cudaSuccess) {
        if (pool) cudaMemPoolDestroy(pool);
        return cuda_status(err);
      }
      pools_[device] = pool;
    }
    out = pools_[device];
    return Status::Success;
  }
  void set_limit() {
    std::lock_guard<std::mutex> lock(mu_);
    for (cudaMemPool_t p : pools_)
      if (p) apply_limit(p);
  }
  void trim() {
    std::lock_guard<std::mutex> lock(mu_);
    for (cudaMemPool_t p : pools_)
      if (p) cudaMemPoolTrimTo(p, 0);
    cudaGetLastError();
  }
  // Reserved and used bytes of the current device's pool (0 when it has none).
  void usage(int device, std::size_t& reserved, std::size_t& used) {
    reserved = used = 0;
    std::lock_guard<std::mutex> lock(mu_);
    if (device < 0 || device >= kMax || !pools_[device]) return;
    unsigned long long r = 0, u = 0;
    cudaMemPoolGetAttribute(pools_[device], cudaMemPoolAttrReservedMemCurrent, &r);
    cudaMemPoolGetAttribute(pools_[device], cudaMemPoolAttrUsedMemCurrent, &u);
    cudaGetLastError();
    reserved = static_cast<std::size_t>(r);
    used = static_cast<std::size_t>(u);
  }
  void totals(std::size_t& reserved, std::size_t& used) {
    reserved = used = 0;
    for (int d = 0; d < kMax; ++d) {
      std::size_t r, u;
      usage(d, r, u);
      reserved += r;
      used += u;
    }
  }

 private:
  static void apply_limit(cudaMemPool_t pool) {
    unsigned long long keep = limits().device.load();
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    cudaGetLastError();
  }
  static constexpr int kMax = 64;
  std::mutex mu_;
  cudaMemPool_t pools_[kMax] = {};
};
inline DevicePools& device_pools() {
  static DevicePools* p = new DevicePools;
  return *p;
}

// ---------------------------------------------------------------------------------------------
// Pinned staging blocks.
// ---------------------------------------------------------------------------------------------
class PinnedCache {
 public:
  // A block of at least `bytes`: the smallest idle one that fits, else a new one.
  Status acquire(std::size_t bytes, void*& out, std::size_t& got) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      std::size_t best = idle_.size();
      for (std::size_t i = 0; i < idle_.size(); ++i)
        if (idle_[i].bytes >= bytes && (best == idle_.size() || idle_[i].bytes < idle_[best].bytes)) best = i;
      if (best != idle_.size()) {
        out = idle_[best].ptr;
        got = idle_[best].bytes;
        idle_bytes_ -= got;
        idle_.erase(idle_.begin() + static_cast<std::ptrdiff_t>(best));
        return Status::Success;
      }
    }
    void* p = nullptr;
    const cudaError_t err = cudaHostAlloc(&p, bytes, cudaHostAllocPortable);
    if (err != cudaSuccess) return cuda_status(err);
    std::lock_guard<std::mutex> lock(mu_);
    total_ += bytes;
    ++allocations_;
    out = p;
    got = bytes;
    return Status::Success;
  }
  // Back to the idle list. No CUDA call, so a host callback may do it.
  void release(void* p, std::size_t bytes) {
    if (!p) return;
    std::lock_guard<std::mutex> lock(mu_);
    idle_.push_back({p, bytes});
    idle_bytes_ += bytes;
  }
  // Frees idle blocks, largest first, until at most `keep` bytes stay idle. Not from a callback.
  void trim(std::size_t keep) {
    std::vector<Block> drop;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (idle_bytes_ <= keep) return;
      std::sort(idle_.begin(), idle_.end(), [](const Block& a, const Block& b) { return a.bytes < b.bytes; });
      while (!idle_.empty() && idle_bytes_ > keep) {
        drop.push_back(idle_.back());
        idle_bytes_ -= idle_.back().bytes;
        total_ -= idle_.back().bytes;
        idle_.pop_back();
      }
    }
    for (const Block& b : drop) cudaFreeHost(b.ptr);
    cudaGetLastError();
  }
  void stats(std::size_t& total, std::size_t& idle, unsigned long long& allocations) {
    std::lock_guard<std::mutex> lock(mu_);
    total = total_;
    idle = idle_bytes_;
    allocations = allocations_;
  }

 private:
  struct Block {
    void* ptr;
    std::size_t bytes;
  };
  std::mutex mu_;
  std::vector<Block> idle_;
  std::size_t idle_bytes_ = 0, total_ = 0;
  unsigned long long allocations_ = 0;
};
inline PinnedCache& pinned_cache() {
  static PinnedCache* p = new PinnedCache;
  return *p;
}

// ---------------------------------------------------------------------------------------------
// Events (no timing) and sets of streams.
// ---------------------------------------------------------------------------------------------
class EventCache {
 public:
  // n events of the current device (events belong to the device they were created on).
  Status acquire(int device, std::size_t n, std::vector<cudaEvent_t>& out) {
    out.clear();
    {
      std::lock_guard<std::mutex> lock(mu_);
      std::vector<cudaEvent_t>& idle = idle_[device];
      while (out.size() < n && !idle.empty()) {
        out.push_back(idle.back());
        idle.pop_back();
      }
    }
    while (out.size() < n) {
      cudaEvent_t e = nullptr;
      const cudaError_t err = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
      if (err != cudaSuccess) {
        release(device, out);
        return cuda_status(err);
      }
      out.push_back(e);
    }
    return Status::Success;
  }
  // An event can go back as soon as the waits on it are enqueued: a wait uses the record that was
  // current when it was enqueued, and a later record does not change it.
  void release(int device, std::vector<cudaEvent_t>& evs) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<cudaEvent_t>& idle = idle_[device];
    idle.insert(idle.end(), evs.begin(), evs.end());
    evs.clear();
  }
  void clear() {
    std::map<int, std::vector<cudaEvent_t>> drop;
    {
      std::lock_guard<std::mutex> lock(mu_);
      drop.swap(idle_);
    }
    int current = 0;
    cudaGetDevice(&current);
    for (auto& [device, evs] : drop) {
      cudaSetDevice(device);
      for (cudaEvent_t e : evs) cudaEventDestroy(e);
    }
    cudaSetDevice(current);
    cudaGetLastError();
  }
  int idle() {
    std::lock_guard<std::mutex> lock(mu_);
    int n = 0;
    for (const auto& [device, evs] : idle_) n += static_cast<int>(evs.size());
    return n;
  }

 private:
  std::mutex mu_;
  std::map<int, std::vector<cudaEvent_t>> idle_;
};
inline EventCache& event_cache() {
  static EventCache* c = new EventCache;
  return *c;
}

struct StreamSet {
  int device = -1;
  cudaStream_t lane[kMaxLanes] = {};
};

class StreamSets {
 public:
  Status acquire(int device, StreamSet*& out) {
    if ((out = idle_.take(device)) != nullptr) return Status::Success;
    auto* s = new StreamSet;
    s->device = device;
    for (cudaStream_t& st : s->lane) {
      const cudaError_t err = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
      if (err != cudaSuccess) {
        for (cudaStream_t x : s->lane)
          if (x) cudaStreamDestroy(x);
        delete s;
        return cuda_status(err);
      }
    }
    ++created_;
    out = s;
    return Status::Success;
  }
  void release(StreamSet* s) { idle_.put(s); }
  // Destroys the idle sets (work still queued in them completes first; CUDA allows that).
  void clear() {
    const std::vector<StreamSet*> drop = idle_.drain();
    created_ -= static_cast<int>(drop.size());
    int current = 0;
    cudaGetDevice(&current);
    for (StreamSet* s : drop) {
      cudaSetDevice(s->device);
      for (cudaStream_t x : s->lane) cudaStreamDestroy(x);
      delete s;
    }
    cudaSetDevice(current);
    cudaGetLastError();
  }
  int created() const { return created_.load(); }

 private:
  gemm::detail::IdlePool<StreamSet> idle_;
  std::atomic<int> created_{0};
};
inline StreamSets& stream_sets() {
  static StreamSets* s = new StreamSets;
  return *s;
}

// ---------------------------------------------------------------------------------------------
// Host copy threads. One memcpy thread moves ~6-12 GB/s on a server CPU, a fifth of a PCIe Gen5
// link, so a staging copy is split over several threads; the caller (the calling thread, or the
// CUDA callback thread) does a share itself. Between jobs the threads spin for a while before
// they sleep: a pipelined call hands them a job every ~10-20 us, and waking a sleeping thread
// costs about as much.
// ---------------------------------------------------------------------------------------------
struct RowCopy {
  char* dst = nullptr;
  std::size_t dst_pitch = 0;
  const char* src = nullptr;
  std::size_t src_pitch = 0;
  std::size_t width = 0;  // bytes per row
  long long rows = 0;
};

inline void copy_rows(const RowCopy& c, long long r0, long long r1) {
  for (long long r = r0; r < r1; ++r)
    std::memcpy(c.dst + static_cast<std::size_t>(r) * c.dst_pitch, c.src + static_cast<std::size_t>(r) * c.src_pitch,
                c.width);
}

class CopyPool {
 public:
  // At least `threads` helper threads (never fewer than already running).
  void ensure(int threads) {
    std::lock_guard<std::mutex> lock(submit_);
    while (static_cast<int>(threads_.size()) < threads) threads_.emplace_back([this] { worker(); });
  }
  int threads() {
    std::lock_guard<std::mutex> lock(submit_);
    return static_cast<int>(threads_.size());
  }

  // Copies c with up to `helpers` threads besides the caller; returns when it is done.
  void copy(const RowCopy& c, int helpers) {
    const std::size_t bytes = c.width * static_cast<std::size_t>(c.rows);
    if (c.rows <= 0 || c.width == 0) return;
    std::lock_guard<std::mutex> lock(submit_);
    helpers = std::min(helpers, static_cast<int>(threads_.size()));
    if (helpers <= 0 || bytes < 2 * kMinPart) {
      copy_rows(c, 0, c.rows);
      return;
    }
    // Contiguous on both sides: one long row, cut anywhere.
    RowCopy job = c;
    if (c.src_pitch == c.width && c.dst_pitch == c.width) {
      job.width = bytes;
      job.rows = 1;
    }
    long long parts;
    if (job.rows == 1) {
      parts = std::min<long long>(2 * (helpers + 1), static_cast<long long>(job.width / kMinPart));
    } else {
      const long long rows_min = std::max<long long>(1, static_cast<long long>(kMinPart / std::max<std::size_t>(job.width, 1)));
      parts = std::min<long long>(2 * (helpers + 1), std::max<long long>(1, job.rows / rows_min));
    }
    parts = std::max<long long>(parts, 1);
    job_ = job;
    parts_ = parts;
    next_.store(0);
    done_.store(0);
    {
      std::lock_guard<std::mutex> l(mu_);
      open_.store(true);
      generation_.fetch_add(1);
    }
    cv_.notify_all();
    run_parts();
    while (done_.load() < parts_) GEMM_HOST_PAUSE();
    open_.store(false);
    while (active_.load() != 0) GEMM_HOST_PAUSE();
  }

 private:
  static constexpr std::size_t kMinPart = 64 * 1024;

  void run_part(long long i) {
    if (job_.rows == 1) {
      const std::size_t per = (job_.width + static_cast<std::size_t>(parts_) - 1) / static_cast<std::size_t>(parts_);
      const std::size_t b0 = std::min(job_.width, static_cast<std::size_t>(i) * per);
      const std::size_t b1 = std::min(job_.width, b0 + per);
      if (b1 > b0) std::memcpy(job_.dst + b0, job_.src + b0, b1 - b0);
    } else {
      const long long per = (job_.rows + parts_ - 1) / parts_;
      const long long r0 = std::min(job_.rows, i * per), r1 = std::min(job_.rows, r0 + per);
      copy_rows(job_, r0, r1);
    }
  }
  void run_parts() {
    for (;;) {
      const long long i = next_.fetch_add(1);
      if (i >= parts_) return;
      run_part(i);
      done_.fetch_add(1);
    }
  }
  void worker() {
    unsigned seen = generation_.load();
    for (;;) {
      // Spin ~200 us for the next job, then sleep.
      const auto t0 = std::chrono::steady_clock::now();
      unsigned g = generation_.load();
      while (g == seen) {
        for (int i = 0; i < 64 && (g = generation_.load()) == seen; ++i) GEMM_HOST_PAUSE();
        if (g != seen) break;
        if (std::chrono::steady_clock::now() - t0 > std::chrono::microseconds(200)) {
          std::unique_lock<std::mutex> l(mu_);
          cv_.wait(l, [&] { return generation_.load() != seen; });
          g = generation_.load();
        }
      }
      // Join the job only while it is open; a job is not replaced while anyone is inside it.
      active_.fetch_add(1);
      if (open_.load()) run_parts();
      active_.fetch_sub(1);
      seen = g;
    }
  }

  std::mutex submit_;  // one job at a time
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::thread> threads_;
  std::atomic<unsigned> generation_{0};
  std::atomic<bool> open_{false};
  std::atomic<int> active_{0};
  RowCopy job_;
  long long parts_ = 0;
  std::atomic<long long> next_{0}, done_{0};
};
inline CopyPool& copy_pool() {
  static CopyPool* p = new CopyPool;  // threads are never joined: they sleep when idle
  return *p;
}

inline int auto_host_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return static_cast<int>(std::max(1u, std::min(8u, hw > 1 ? hw - 1 : 1u)));
}

}  // namespace gemm::host::detail

namespace gemm::host {

// The device and pinned bytes gemm::host may keep idle between calls (defaults 1 GiB, 64 MiB).
inline void set_cache_limits(std::size_t device_bytes, std::size_t pinned_bytes) {
  detail::limits().device.store(device_bytes);
  detail::limits().pinned.store(pinned_bytes);
  detail::device_pools().set_limit();
}

// Frees what is idle now: pinned blocks, the pools' unused device memory, idle events and stream
// sets. Calls still in flight keep what they use (their device memory returns to the pool at
// their end, and is released by the next release_cache()). Do not call it while another thread
// is inside a gemm::host call.
inline void release_cache() {
  detail::graph_cache().clear();  // waits for each graph's last launch, frees its buffers
  detail::pinned_cache().trim(0);
  detail::device_pools().trim();
  detail::event_cache().clear();
  detail::stream_sets().clear();
}

inline CacheStats cache_stats() {
  CacheStats s;
  detail::device_pools().totals(s.device_reserved, s.device_used);
  detail::pinned_cache().stats(s.pinned_bytes, s.pinned_idle, s.pinned_allocations);
  s.stream_sets = detail::stream_sets().created();
  s.idle_events = detail::event_cache().idle();
  s.copy_threads = detail::copy_pool().threads();
  detail::graph_cache().stats(s.graphs, s.graph_bytes);
  return s;
}

}  // namespace gemm::host
