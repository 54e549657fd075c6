#pragma once
// Independent work spread over a few streams and joined back, so that small calls run side by side
// on the GPU instead of one after another: the caller's stream forks (an event it records, which
// every fan stream waits for), the work goes round-robin onto the fan's streams, and the caller's
// stream waits for each fan stream's last work (one event each). Only events order the streams,
// which is the pattern CUDA graphs capture as parallel branches, so a call made this way can be
// captured. Fans are kept per device for reuse (created on first need, never destroyed); one fan
// serves one call at a time.
#include <cuda_runtime.h>
#include "../status.cuh"
#include "idle_pool.cuh"
#include "launch.cuh"

namespace gemm::detail {

inline constexpr int kFanStreams = 4;

struct StreamFan {
  int device = -1;
  cudaStream_t streams[kFanStreams] = {};
  cudaEvent_t fork = nullptr;
  cudaEvent_t joins[kFanStreams] = {};

  // The caller's stream forks into the fan's streams.
  Status open(cudaStream_t caller) const {
    Status s = cuda_status(cudaEventRecord(fork, caller));
    for (int i = 0; i < kFanStreams && s == Status::Success; ++i) s = cuda_status(cudaStreamWaitEvent(streams[i], fork, 0));
    return s;
  }
  // The caller's stream waits for everything the fan's streams were given.
  Status close(cudaStream_t caller) const {
    Status s = Status::Success;
    for (int i = 0; i < kFanStreams && s == Status::Success; ++i) {
      s = cuda_status(cudaEventRecord(joins[i], streams[i]));
      if (s == Status::Success) s = cuda_status(cudaStreamWaitEvent(caller, joins[i], 0));
    }
    return s;
  }
};

class StreamFans {
 public:
  Status acquire(int device, StreamFan*& out) {
    if ((out = idle_.take(device)) != nullptr) return Status::Success;
    auto* fan = new StreamFan;
    fan->device = device;
    Status s = cuda_status(cudaEventCreateWithFlags(&fan->fork, cudaEventDisableTiming));
    for (int i = 0; i < kFanStreams && s == Status::Success; ++i) {
      s = cuda_status(cudaStreamCreateWithFlags(&fan->streams[i], cudaStreamNonBlocking));
      if (s == Status::Success) s = cuda_status(cudaEventCreateWithFlags(&fan->joins[i], cudaEventDisableTiming));
    }
    if (s != Status::Success) {
      for (int i = 0; i < kFanStreams; ++i) {
        if (fan->streams[i]) cudaStreamDestroy(fan->streams[i]);
        if (fan->joins[i]) cudaEventDestroy(fan->joins[i]);
      }
      if (fan->fork) cudaEventDestroy(fan->fork);
      delete fan;
      return s;
    }
    out = fan;
    return Status::Success;
  }
  void release(StreamFan* fan) { idle_.put(fan); }

 private:
  IdlePool<StreamFan> idle_;
};

inline StreamFans& stream_fans() {
  static StreamFans* fans = new StreamFans;  // (kept for the process: streams outlive static destruction order)
  return *fans;
}

}  // namespace gemm::detail
