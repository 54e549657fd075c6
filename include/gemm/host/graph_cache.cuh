#pragma once
// Repeated calls as CUDA graphs. A small flow is bound by the host, not by PCIe: 1024^3 fp32 with
// pinned operands is 25 operations (copies, multiplies) and about 60 stream calls between them
// (events, waits), which took the calling thread 153 us of a 276 us call on an H100. A call that
// comes again with the same pointers, shape, scalars and options is replayed from a CUDA graph:
// one cudaGraphLaunch instead of the whole enqueue.
//
// Policy: a call is captured on its second sighting (a one-off call pays nothing), and only when
// all operands are pinned (pageable ones need host copy threads between the device operations)
// and its device buffers are at most 64 MiB (beyond that the flow is long enough to hide its
// enqueue). A graph owns its device buffers (cudaMalloc, outside the stream-ordered pool) until
// it is evicted: at most 8 graphs and 256 MiB, least recently used first, and all of them at
// gemm::host::release_cache(). Evicting waits for the graph's last launch to finish.
#include <cstdint>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <cuda_runtime.h>
#include "schedule.cuh"

namespace gemm::host::detail {

// Everything a captured flow depends on besides the plan: the host pointers and their pitches,
// the scalars (baked into the kernels' arguments), the instantiation (its multiply function) and
// the device.
struct GraphKey {
  Problem problem;  // with budget 0: the device budget only matters for whether the graph's buffers fit
  Tuning tuning;
  const void* instantiation = nullptr;
  const void* a = nullptr;
  const void* b = nullptr;
  const void* c = nullptr;
  std::size_t lda = 0, ldb = 0, ldc = 0;
  std::uint64_t alpha = 0, beta = 0;  // bit patterns
  int device = -1;

  template <class S>
  static std::uint64_t bits(S v) {
    static_assert(sizeof(S) <= sizeof(std::uint64_t), "GraphKey: scalars of at most 8 bytes.");
    std::uint64_t out = 0;
    std::memcpy(&out, &v, sizeof(S));
    return out;
  }
  bool operator==(const GraphKey& o) const {
    return same_problem(problem, o.problem) && same_tuning(tuning, o.tuning) && instantiation == o.instantiation && a == o.a && b == o.b && c == o.c &&
           lda == o.lda && ldb == o.ldb && ldc == o.ldc && alpha == o.alpha && beta == o.beta && device == o.device;
  }
};

struct CachedGraph {
  GraphKey key;
  std::shared_ptr<const Schedule> schedule;  // the one captured (or to capture)
  int sightings = 0;
  bool building = false, failed = false, evicted = false;
  cudaGraphExec_t exec = nullptr;
  char* device_buffer = nullptr;
  std::size_t bytes = 0;
  cudaEvent_t done = nullptr;  // recorded after each launch

  ~CachedGraph() {
    if (!exec && !device_buffer && !done) return;
    int current = 0;
    cudaGetDevice(&current);
    cudaSetDevice(key.device);
    if (done) {
      cudaEventSynchronize(done);
      cudaEventDestroy(done);
    }
    if (exec) cudaGraphExecDestroy(exec);
    if (device_buffer) cudaFree(device_buffer);
    cudaSetDevice(current);
    cudaGetLastError();
  }
};

class GraphCache {
 public:
  static constexpr std::size_t kMaxGraphBytes = std::size_t(64) << 20;
  static constexpr std::size_t kMaxTotalBytes = std::size_t(256) << 20;
  static constexpr std::size_t kMaxEntries = 8;

  static bool eligible(const Schedule& s) { return s.stage_bytes == 0 && s.device_bytes <= kMaxGraphBytes; }

  // What the caller does with this sighting of `key`.
  struct Sighting {
    std::shared_ptr<CachedGraph> entry;  // null: run as usual
    bool launch = false;                 // entry->exec is ready
    bool build = false;                  // the caller captures it (entry->building is set)
  };
  Sighting sight(const GraphKey& key, const std::shared_ptr<const Schedule>& schedule, std::size_t budget) {
    std::lock_guard<std::mutex> lock(mu_);
    Sighting out;
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if ((*it)->key == key) {
        entries_.splice(entries_.begin(), entries_, it);
        out.entry = entries_.front();
        break;
      }
    if (!out.entry) {
      auto e = std::make_shared<CachedGraph>();
      e->key = key;
      e->schedule = schedule;
      entries_.push_front(e);
      out.entry = e;
      evict_locked();
    }
    CachedGraph& e = *out.entry;
    ++e.sightings;
    if (e.exec) {
      out.launch = e.schedule->device_bytes <= budget;
    } else if (!e.failed && !e.building && e.sightings >= 2 && bytes_ + schedule->device_bytes <= kMaxTotalBytes) {
      e.schedule = schedule;
      e.building = true;
      out.build = true;
    }
    return out;
  }
  // The capture of a sighting with `build` ended: keep the graph (and its buffer) or mark failed.
  void built(const std::shared_ptr<CachedGraph>& e, cudaGraphExec_t exec, char* buffer, cudaEvent_t done) {
    std::lock_guard<std::mutex> lock(mu_);
    e->building = false;
    if (!exec) {
      e->failed = true;
      return;
    }
    e->exec = exec;  // freed with the entry, also when it was evicted while being built
    e->device_buffer = buffer;
    e->done = done;
    if (e->evicted) return;
    e->bytes = e->schedule->device_bytes;
    bytes_ += e->bytes;
    evict_locked();
  }
  // Drops every graph (each waits for its last launch when its last user lets go of it).
  void clear() {
    std::list<std::shared_ptr<CachedGraph>> drop;
    {
      std::lock_guard<std::mutex> lock(mu_);
      drop.swap(entries_);
      for (auto& e : drop) e->evicted = true;
      bytes_ = 0;
    }
  }
  void stats(int& graphs, std::size_t& bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    graphs = 0;
    for (const auto& e : entries_) graphs += e->exec != nullptr;
    bytes = bytes_;
  }

 private:
  void evict_locked() {
    while (entries_.size() > kMaxEntries || bytes_ > kMaxTotalBytes) {
      auto victim = std::prev(entries_.end());
      if (victim == entries_.begin()) break;  // the one just used stays
      bytes_ -= (*victim)->bytes;
      (*victim)->evicted = true;
      entries_.erase(victim);  // freed when its last user lets go
    }
  }

  std::mutex mu_;
  std::list<std::shared_ptr<CachedGraph>> entries_;  // most recently used first
  std::size_t bytes_ = 0;
};
inline GraphCache& graph_cache() {
  static GraphCache* c = new GraphCache;
  return *c;
}

}  // namespace gemm::host::detail
