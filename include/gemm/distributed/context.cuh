#pragma once
// gemm::distributed's resources: a rank's Context (its NCCL communicator, a high-priority stream for
// the communication, events and a workspace), and LocalGroup, which creates the communicators of all
// the GPUs of this process. See gemm/distributed/gemm.cuh for the API that uses them.
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>
#include <cuda_runtime.h>
#include <nccl.h>
#include "../detail/launch.cuh"
#include "../status.cuh"

#if !defined(NCCL_VERSION_CODE) || NCCL_VERSION_CODE < 21800
#error "gemm::distributed needs NCCL 2.18 or newer (ncclCommInitRankConfig with maxCTAs, ncclBfloat16)"
#endif

namespace gemm::distributed {

// What a rank's calls may use. LocalGroup::init passes them to every rank's Context; a Context made
// on your own communicator takes them from Context::init, and Context::options() changes them
// between calls.
struct Options {
  // The CTAs (thread blocks, one SM each) an NCCL kernel may use: LocalGroup::init creates its
  // communicators with ncclConfig_t::maxCTAs = comm_ctas. For your own communicator, pass what you
  // configured. Use a power of two: NCCL rounds its point-to-point channels up to one. 0: NCCL's
  // default (LocalGroup then calls ncclCommInitAll), and no SMs are kept for it (see compute_sms).
  int comm_ctas = 16;
  // ncclConfig_t::cgaClusterSize of LocalGroup's communicators (with comm_ctas > 0). 1: NCCL's
  // CTAs may take any free SM beside a multiply; with NCCL's default on Hopper (clusters of 4 CTAs
  // in one GPC) its kernel can wait for a multiply to end when the free SMs are spread out. 0: NCCL's
  // default. Set it in your own communicators' config too.
  int comm_cga_cluster_size = 1;
  // The SMs a local multiply plans for while a transfer runs beside it (gemm::SmLimit); 0: the
  // device's SMs less comm_ctas rounded up to a power of two. The persistent Hopper kernel launches
  // one block per SM it plans for: a block with no free SM would wait for NCCL's kernel to finish.
  int compute_sms = 0;
  // Before its first collective, each call compares every rank's global arguments and local checks
  // with one small all-reduce and a host synchronisation: then a rank given bad arguments, or
  // global shapes that differ from the others', makes every rank return an error (PeerRejected,
  // RanksDisagree) instead of leaving its peers waiting in a collective. Off by default (it costs a
  // round trip per call); the single-process gemm(LocalGroup&, ...) checks all ranks itself.
  bool check_agreement = false;
  // Accept a process where NCCL_NVLS_ENABLE is not "0". Leave it false on machines where NVLink
  // multicast must stay off (the 2-GPU machine of this project).
  bool allow_nvls = false;
};

// The NCCL error behind the last Status::CommunicatorError on this thread.
namespace detail {
inline ncclResult_t& last_nccl_error_slot() {
  thread_local ncclResult_t result = ncclSuccess;
  return result;
}
// Communicators must be blocking (NCCL's default): ncclInProgress counts as a failure.
inline Status nccl_status(ncclResult_t r) {
  if (r == ncclSuccess) return Status::Success;
  last_nccl_error_slot() = r;
  return Status::CommunicatorError;
}
inline Status cuda_status(cudaError_t e) {
  if (e == cudaSuccess) return Status::Success;
  cudaGetLastError();  // not sticky for the caller's next call
  return ::gemm::detail::record(e, Status::CudaError);
}
}  // namespace detail

inline ncclResult_t last_nccl_error() { return detail::last_nccl_error_slot(); }

// NVLink multicast (NVLS) must stay off on this project's machines: a program using it can put the
// host's GPUs out of service. NCCL reads NCCL_NVLS_ENABLE when it creates its first communicator, so
// call this before creating any (LocalGroup::init does); it sets the variable to "0" unless it
// already is "0". This library never calls cuMulticastCreate.
inline void disable_nvls() {
  const char* v = std::getenv("NCCL_NVLS_ENABLE");
  if (v == nullptr || std::strcmp(v, "0") != 0) setenv("NCCL_NVLS_ENABLE", "0", 1);
}

inline bool nvls_disabled() {
  const char* v = std::getenv("NCCL_NVLS_ENABLE");
  return v != nullptr && std::strcmp(v, "0") == 0;
}

namespace detail {

// Makes `device` current for its lifetime.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    restore_ = cudaGetDevice(&previous_) == cudaSuccess;
    if (!restore_ || previous_ != device) error_ = cudaSetDevice(device);
  }
  ~DeviceGuard() {
    int now = -1;
    if (restore_ && cudaGetDevice(&now) == cudaSuccess && now != previous_) cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;
  cudaError_t error() const { return error_; }

 private:
  int previous_ = 0;
  bool restore_ = false;
  cudaError_t error_ = cudaSuccess;
};

template <class T, class Policy, class Out>
class ShardPlan;

inline int pow2_up(int x) {
  int p = 1;
  while (p < x) p *= 2;
  return p;
}

constexpr int kAgreeFields = 12;  // see ShardPlan::agree

}  // namespace detail

// One rank's state: the NCCL communicator (the caller's), the device, a stream of the highest
// priority for NCCL's kernels (so that they get SMs ahead of the multiply's blocks), events and the
// workspace the algorithms need (receive buffers, partial sums), kept between calls and grown on
// demand (growing waits for the previous call to finish). A Context serves one call at a time: use
// it from one thread, or serialise its calls.
class Context {
 public:
  Context() = default;
  ~Context() { reset(); }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Wraps `comm`, created by you (ncclCommInitRank / ncclCommInitRankConfig, one rank per GPU) with
  // NCCL_NVLS_ENABLE=0 in force (disable_nvls()). The communicator stays yours: reset() and the
  // destructor leave it alone. Makes the communicator's device current while it works.
  Status init(ncclComm_t comm, const Options& options = {}) {
    reset();
    if (comm == nullptr) return Status::InvalidCommunicator;
    if (!options.allow_nvls && !nvls_disabled()) return Status::NvlsNotDisabled;
    int device = -1, rank = -1, size = 0;
    if (Status s = detail::nccl_status(ncclCommCuDevice(comm, &device)); s != Status::Success) return s;
    if (Status s = detail::nccl_status(ncclCommUserRank(comm, &rank)); s != Status::Success) return s;
    if (Status s = detail::nccl_status(ncclCommCount(comm, &size)); s != Status::Success) return s;
    device_ = device;  // from here on reset() frees what was made on it
    detail::DeviceGuard guard(device);
    cudaError_t err = guard.error();
    int least = 0, greatest = 0;
    if (err == cudaSuccess) err = cudaDeviceGetStreamPriorityRange(&least, &greatest);
    if (err == cudaSuccess) err = cudaStreamCreateWithPriority(&comm_stream_, cudaStreamNonBlocking, greatest);
    for (cudaEvent_t* e : {&start_, &compute_, &comm_done_, &done_})
      if (err == cudaSuccess) err = cudaEventCreateWithFlags(e, cudaEventDisableTiming);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device);
    if (err == cudaSuccess) err = cudaMalloc(&agree_device_, 2 * detail::kAgreeFields * sizeof(long long));
    if (err == cudaSuccess) err = cudaMallocHost(&agree_host_, 2 * detail::kAgreeFields * sizeof(long long));
    if (err != cudaSuccess) {
      const Status s = detail::cuda_status(err);
      reset();
      return s;
    }
    comm_ = comm;
    rank_ = rank;
    size_ = size;
    options_ = options;
    return Status::Success;
  }

  // Frees what init() made, after the work of the last call has finished. Not the communicator.
  void reset() {
    if (device_ >= 0) {
      detail::DeviceGuard guard(device_);
      if (done_) cudaEventSynchronize(done_);
      if (comm_stream_) cudaStreamSynchronize(comm_stream_);
      if (workspace_) cudaFree(workspace_);
      if (agree_device_) cudaFree(agree_device_);
      if (agree_host_) cudaFreeHost(agree_host_);
      for (cudaEvent_t* e : {&start_, &compute_, &comm_done_, &done_})
        if (*e) cudaEventDestroy(*e);
      if (comm_stream_) cudaStreamDestroy(comm_stream_);
      cudaGetLastError();  // whatever failed here is not the next call's error
    }
    start_ = compute_ = comm_done_ = done_ = nullptr;
    comm_stream_ = nullptr;
    workspace_ = nullptr;
    agree_device_ = nullptr;
    agree_host_ = nullptr;
    capacity_ = 0;
    comm_ = nullptr;
    device_ = rank_ = -1;
    size_ = sms_ = 0;
  }

  bool ready() const { return comm_ != nullptr; }
  ncclComm_t comm() const { return comm_; }
  int device() const { return device_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int sms() const { return sms_; }
  Options& options() { return options_; }
  const Options& options() const { return options_; }
  // The stream NCCL's kernels run on.
  cudaStream_t comm_stream() const { return comm_stream_; }

  // The SMs a multiply plans for while a transfer runs beside it.
  int overlap_sms() const {
    if (options_.compute_sms > 0) return std::min(options_.compute_sms, sms_);
    if (options_.comm_ctas <= 0) return 0;  // no limit
    return std::max(1, sms_ - detail::pow2_up(options_.comm_ctas));
  }

  // Waits for everything the last call enqueued, on every stream it used.
  Status synchronize() {
    if (!ready()) return Status::InvalidCommunicator;
    detail::DeviceGuard guard(device_);
    if (Status s = detail::cuda_status(cudaEventSynchronize(done_)); s != Status::Success) return s;
    return detail::cuda_status(cudaStreamSynchronize(comm_stream_));
  }

 private:
  template <class T, class Policy, class Out>
  friend class detail::ShardPlan;

  // `bytes` of device memory at `out` (256-byte aligned), reused between calls.
  Status workspace(std::size_t bytes, void*& out) {
    if (bytes > capacity_) {
      // The previous call may still read or write the old buffer.
      if (Status s = detail::cuda_status(cudaEventSynchronize(done_)); s != Status::Success) return s;
      if (workspace_) cudaFree(workspace_);
      workspace_ = nullptr;
      capacity_ = 0;
      const std::size_t rounded = (bytes + (std::size_t(2) << 20) - 1) / (std::size_t(2) << 20) * (std::size_t(2) << 20);
      if (Status s = detail::cuda_status(cudaMalloc(&workspace_, rounded)); s != Status::Success) {
        workspace_ = nullptr;
        return s;
      }
      capacity_ = rounded;
    }
    out = workspace_;
    return Status::Success;
  }

  ncclComm_t comm_ = nullptr;
  int device_ = -1, rank_ = -1, size_ = 0, sms_ = 0;
  Options options_;
  cudaStream_t comm_stream_ = nullptr;
  // start_: the caller's stream reached the call; compute_: a local multiply finished; comm_done_:
  // a transfer finished; done_: the whole call finished (recorded on the caller's stream, which by
  // then has waited for the transfers too). Re-recorded every call: a wait binds to the record
  // before it.
  cudaEvent_t start_ = nullptr, compute_ = nullptr, comm_done_ = nullptr, done_ = nullptr;
  void* workspace_ = nullptr;
  std::size_t capacity_ = 0;
  long long* agree_device_ = nullptr;
  long long* agree_host_ = nullptr;
};

// All the GPUs of this process as one communicator clique, driven from one host thread: one rank
// per device, each with its own stream (stream(rank)) and Context.
class LocalGroup {
 public:
  LocalGroup() = default;
  ~LocalGroup() { reset(); }
  LocalGroup(const LocalGroup&) = delete;
  LocalGroup& operator=(const LocalGroup&) = delete;

  // Sets NCCL_NVLS_ENABLE=0 (disable_nvls()), then creates a communicator per device (every
  // visible device when `devices` is empty; rank r is devices[r]): with options.comm_ctas > 0 by
  // ncclCommInitRankConfig (maxCTAs = comm_ctas) for all devices in one NCCL group, otherwise by
  // ncclCommInitAll. Then a non-blocking stream and a Context per rank.
  // (ncclConfig_t: maxCTAs = comm_ctas, cgaClusterSize = comm_cga_cluster_size.)
  Status init(std::vector<int> devices = {}, const Options& options = {}) {
    reset();
    disable_nvls();
    if (devices.empty()) {
      int count = 0;
      const cudaError_t err = cudaGetDeviceCount(&count);
      if (err != cudaSuccess || count == 0) {
        cudaGetLastError();
        return ::gemm::detail::record(err, Status::NoDevice);
      }
      for (int d = 0; d < count; ++d) devices.push_back(d);
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) return detail::cuda_status(cudaErrorNoDevice);
    for (size_t i = 0; i < devices.size(); ++i) {
      if (devices[i] < 0 || devices[i] >= count) return Status::InvalidCommunicator;
      for (size_t j = 0; j < i; ++j)
        if (devices[j] == devices[i]) return Status::InvalidCommunicator;
    }
    int current = 0;
    cudaGetDevice(&current);
    detail::DeviceGuard restore(current);
    const int n = static_cast<int>(devices.size());
    comms_.assign(n, nullptr);
    Status status = Status::Success;
    if (options.comm_ctas > 0) {
      ncclUniqueId id;
      status = detail::nccl_status(ncclGetUniqueId(&id));
      if (status == Status::Success) {
        ncclResult_t r = ncclGroupStart();
        for (int i = 0; i < n && r == ncclSuccess; ++i) {
          if (cudaSetDevice(devices[i]) != cudaSuccess) {
            r = ncclUnhandledCudaError;
            break;
          }
          ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
          config.maxCTAs = options.comm_ctas;
          if (options.comm_cga_cluster_size > 0) config.cgaClusterSize = options.comm_cga_cluster_size;
          r = ncclCommInitRankConfig(&comms_[i], n, id, i, &config);
        }
        const ncclResult_t end = ncclGroupEnd();
        status = detail::nccl_status(r != ncclSuccess ? r : end);
      }
    } else {
      status = detail::nccl_status(ncclCommInitAll(comms_.data(), n, devices.data()));
    }
    if (status != Status::Success) {
      for (ncclComm_t& c : comms_)
        if (c) ncclCommAbort(c);
      comms_.clear();
      return status;
    }
    devices_ = devices;
    streams_.assign(n, nullptr);
    for (int i = 0; i < n && status == Status::Success; ++i) {
      detail::DeviceGuard guard(devices[i]);
      status = detail::cuda_status(cudaStreamCreateWithFlags(&streams_[i], cudaStreamNonBlocking));
      contexts_.push_back(std::make_unique<Context>());
      if (status == Status::Success) status = contexts_.back()->init(comms_[i], options);
    }
    if (status != Status::Success) reset();
    return status;
  }

  // Waits for all work, then frees the contexts, the communicators and the streams.
  void reset() {
    synchronize();
    contexts_.clear();
    if (!comms_.empty()) {
      ncclGroupStart();  // destroying several communicators from one thread: one group
      for (ncclComm_t c : comms_)
        if (c) ncclCommDestroy(c);
      ncclGroupEnd();
    }
    comms_.clear();
    for (size_t i = 0; i < streams_.size(); ++i) {
      if (!streams_[i]) continue;
      detail::DeviceGuard guard(devices_[i]);
      cudaStreamDestroy(streams_[i]);
    }
    streams_.clear();
    devices_.clear();
    failed_rank_ = -1;
  }

  int size() const { return static_cast<int>(contexts_.size()); }
  int device(int rank) const { return devices_[rank]; }
  cudaStream_t stream(int rank) const { return streams_[rank]; }
  ncclComm_t comm(int rank) const { return comms_[rank]; }
  Context& context(int rank) { return *contexts_[rank]; }

  // Waits for every rank's stream and every call's transfers.
  Status synchronize() {
    Status first = Status::Success;
    for (size_t i = 0; i < streams_.size(); ++i) {
      if (!streams_[i]) continue;
      detail::DeviceGuard guard(devices_[i]);
      Status s = detail::cuda_status(cudaStreamSynchronize(streams_[i]));
      if (s == Status::Success && i < contexts_.size()) s = contexts_[i]->synchronize();
      if (first == Status::Success) first = s;
    }
    return first;
  }

  // The rank whose arguments the last gemm(LocalGroup&, ...) refused (-1: none).
  int failed_rank() const { return failed_rank_; }
  void set_failed_rank(int rank) { failed_rank_ = rank; }

 private:
  std::vector<int> devices_;
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
  std::vector<std::unique_ptr<Context>> contexts_;
  int failed_rank_ = -1;
};

}  // namespace gemm::distributed
