#pragma once
// ShardPlan: one rank's part of one gemm::distributed call, the core that each algorithm's plan
// builds on (local_plan.cuh, all_gather.cuh, all_gather_then_gemm.cuh, reduce_scatter.cuh): the
// call's arguments, the checks every algorithm makes, the agreement between ranks, the local
// multiplies, and the events that order them with the transfers.
//
// A plan's life, driven by execute (gemm.cuh): prepare() checks everything and takes the workspace
// without enqueueing anything; begin(), then for each step before(s), exchange(s) (NCCL calls only,
// inside a group the driver opens) and after(s), then end() enqueue the work. A failure after
// begin() is recorded (status()) and the rank keeps making its NCCL calls, so that its peers do not
// hang; only its multiplies stop. prepare() validates every local multiply with the same argument
// generators that before(), after() and end() run them with.
//
// An algorithm's plan derives from ShardPlan and names the members it uses with using-declarations
// (the base depends on the plan's template parameters, so its names are not otherwise seen).
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <cuda_runtime.h>
#include <nccl.h>
#include "../gemm.cuh"
#include "context.cuh"
#include "shard.hpp"

namespace gemm::distributed::detail {

template <class E>
constexpr ncclDataType_t nccl_type() {
  if constexpr (std::is_same_v<E, double>) return ncclFloat64;
  else if constexpr (std::is_same_v<E, __nv_bfloat16>) return ncclBfloat16;
  else if constexpr (std::is_same_v<E, __half>) return ncclFloat16;
  else return ncclFloat32;
}

template <class X>
constexpr long long type_code() {
  if constexpr (std::is_same_v<X, float>) return 1;
  else if constexpr (std::is_same_v<X, tf32>) return 2;
  else if constexpr (std::is_same_v<X, double>) return 3;
  else if constexpr (std::is_same_v<X, __nv_bfloat16>) return 4;
  else if constexpr (std::is_same_v<X, __half>) return 5;
  else return 0;
}

inline long long bits_of(double x) {
  long long b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

constexpr std::size_t align256(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

template <class T, class Policy, class Out>
class ShardPlan {
 public:
  using In = storage_t<T>;
  using S = scalar_t<T>;

  ShardPlan(Context& ctx, Algorithm algorithm, Op op_a, Op op_b, int m, int n, int k, S alpha, Shard<const In> A,
            Shard<const In> B, S beta, Shard<Out> C, cudaStream_t stream)
      : ctx_(ctx), alg_(algorithm), op_a_(op_a), op_b_(op_b), m_(m), n_(n), k_(k), alpha_(alpha), beta_(beta), A_(A),
        B_(B), C_(C), stream_(stream) {}

  int device() const { return ctx_.device(); }
  Status status() const { return error_; }

  // Options::check_agreement: every rank learns whether all ranks passed the same global arguments
  // and whether any rank's own checks failed (local). One all-reduce (max) of the fingerprint and
  // of its negation, on the communication stream, and a host synchronisation.
  Status agree(Status local) {
    constexpr int F = kAgreeFields;
    long long* h = ctx_.agree_host_;
    h[0] = static_cast<long long>(local);
    h[1] = m_, h[2] = n_, h[3] = k_;
    h[4] = static_cast<long long>(alg_);
    h[5] = static_cast<long long>(op_a_), h[6] = static_cast<long long>(op_b_);
    h[7] = type_code<T>(), h[8] = type_code<Out>();
    h[9] = bits_of(static_cast<double>(alpha_)), h[10] = bits_of(static_cast<double>(beta_));
    h[11] = ctx_.size();
    static_assert(F == 12, "the fingerprint has kAgreeFields fields");
    for (int i = 0; i < F; ++i) h[F + i] = -h[i];
    cudaStream_t cs = ctx_.comm_stream_;
    const std::size_t bytes = 2 * F * sizeof(long long);
    if (Status s = cuda_status(cudaMemcpyAsync(ctx_.agree_device_, h, bytes, cudaMemcpyHostToDevice, cs));
        s != Status::Success)
      return s;
    if (Status s = nccl_status(
            ncclAllReduce(ctx_.agree_device_, ctx_.agree_device_, 2 * F, ncclInt64, ncclMax, ctx_.comm_, cs));
        s != Status::Success)
      return s;
    if (Status s = cuda_status(cudaMemcpyAsync(h, ctx_.agree_device_, bytes, cudaMemcpyDeviceToHost, cs));
        s != Status::Success)
      return s;
    if (Status s = cuda_status(cudaStreamSynchronize(cs)); s != Status::Success) return s;
    if (local != Status::Success) return local;
    for (int i = 1; i < F; ++i)
      if (h[i] != -h[F + i]) return Status::RanksDisagree;  // max != min
    return h[0] != 0 ? Status::PeerRejected : Status::Success;
  }

 protected:
  // prepare()'s first checks, the same for every algorithm: the communicator, the sizes, the
  // stream's device, each shard's shape, leading dimension and pointer.
  Status check_arguments() {
    if (!ctx_.ready()) return Status::InvalidCommunicator;
    p_ = ctx_.size();
    r_ = ctx_.rank();
    if (m_ < 0 || n_ < 0 || k_ < 0) return Status::InvalidSize;
    if (Status s = check_stream(); s != Status::Success) return s;
    product_ = k_ > 0 && alpha_ != S(0);
    if (Status s = check_shard(Operand::A, op_a_, A_, product_, Status::ShardMismatchA,
                               Status::InvalidLeadingDimensionA, Status::NullPointerA, Status::MisalignedA);
        s != Status::Success)
      return s;
    if (Status s = check_shard(Operand::B, op_b_, B_, product_, Status::ShardMismatchB,
                               Status::InvalidLeadingDimensionB, Status::NullPointerB, Status::MisalignedB);
        s != Status::Success)
      return s;
    if (Status s = check_shard(Operand::C, Op::N, C_, true, Status::ShardMismatchC, Status::InvalidLeadingDimensionC,
                               Status::NullPointerC, Status::MisalignedC);
        s != Status::Success)
      return s;
    return Status::Success;
  }

  Status query_device() { return ::gemm::detail::query_device(dev_); }

  // prepare() of the plans that communicate: the checks, the device, the plan's workspace
  // (take_workspace()), then the arguments of every local multiply (multiply_args(i), i < p: one
  // per step or block) checked as gemm::gemm would.
  template <class TakeWorkspace, class MultiplyArgs>
  Status prepare_multiplies(TakeWorkspace&& take_workspace, MultiplyArgs&& multiply_args) {
    if (Status s = check_arguments(); s != Status::Success) return s;
    if (Status s = query_device(); s != Status::Success) return s;
    if (Status s = take_workspace(); s != Status::Success) return s;
    for (int i = 0; i < p_; ++i)
      if (Status s = validate(multiply_args(i)); s != Status::Success) return s;
    return Status::Success;
  }

  // `bytes` of the context's workspace (256-byte aligned, kept between calls).
  Status workspace(std::size_t bytes, void*& out) { return ctx_.workspace(bytes, out); }

  ncclComm_t comm() const { return ctx_.comm_; }
  cudaStream_t comm_stream() const { return ctx_.comm_stream_; }

  // --- The order of the call's work, through the context's events --------------------------------
  // The caller's stream waits for the previous call on this context (any stream): it may still use
  // the workspace.
  void wait_for_previous_call() { wait(stream_, ctx_.done_); }
  // The NCCL stream starts where the caller's stream has got to.
  void start_transfers() {
    record(ctx_.start_, stream_);
    wait(ctx_.comm_stream_, ctx_.start_);
  }
  void transfer_done() { record(ctx_.comm_done_, ctx_.comm_stream_); }  // the transfers enqueued so far
  void wait_for_transfer() { wait(stream_, ctx_.comm_done_); }           // the caller's stream waits for them
  void multiply_done() { record(ctx_.compute_, stream_); }              // the multiplies enqueued so far
  void transfer_waits_for_multiply() { wait(ctx_.comm_stream_, ctx_.compute_); }
  // Join: the caller's stream passes this point only once every transfer is done.
  void join_transfers() {
    transfer_done();
    wait_for_transfer();
  }
  void finish() { record(ctx_.done_, stream_); }  // the call's end, which the next call on the context waits for

  // What gemm::gemm would check before launching, without launching.
  template <class X>
  Status validate(const GemmArgs<In, X>& a) const {
    if (Status s = ::gemm::detail::validate_sizes(a); s != Status::Success) return s;
    if (a.m == 0 || a.n == 0) return Status::Success;
    if (Status s = ::gemm::detail::validate_pointers(a); s != Status::Success) return s;
    return Policy::template check_alignment<T>(a);
  }

  // One local multiply on the caller's stream; beside a transfer it plans for the SMs NCCL leaves.
  template <class X>
  void multiply(const GemmArgs<In, X>& a, bool beside_transfer) {
    if (error_ != Status::Success || a.m == 0 || a.n == 0) return;
    const int caller = ::gemm::detail::sm_limit_slot();
    int limit = caller;
    if (beside_transfer) {
      const int overlap = ctx_.overlap_sms();
      if (overlap > 0) limit = caller > 0 ? std::min(caller, overlap) : overlap;
    }
    ::gemm::SmLimit scope(limit);
    const ::gemm::detail::IgnoreCallerWorkspace own_memory;  // ranks on other devices, overlapping calls
    const Status s = ::gemm::gemm<T, Policy>(a.op_a, a.op_b, a.m, a.n, a.k, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta,
                                             a.C, a.ldc, stream_);
    if (s != Status::Success) error_ = s;
  }

  void note(cudaError_t e) {
    if (e != cudaSuccess && error_ == Status::Success) error_ = cuda_status(e);
  }

  Context& ctx_;
  Algorithm alg_;
  Op op_a_, op_b_;
  int m_, n_, k_;
  S alpha_, beta_;
  Shard<const In> A_, B_;
  Shard<Out> C_;
  cudaStream_t stream_;

  int p_ = 1, r_ = 0;
  bool product_ = false;
  ::gemm::detail::DeviceInfo dev_;
  Status error_ = Status::Success;

 private:
  template <class E>
  Status check_shard(Operand x, Op op, const Shard<E>& s, bool needs_data, Status mismatch, Status bad_ld,
                     Status null, Status misaligned) const {
    const Block b = stored_block(alg_, x, op, m_, n_, k_, p_, r_);
    if (s.rows != b.rows || s.cols != b.cols) return mismatch;
    if (s.ld < std::max(1, s.cols)) return bad_ld;
    if (needs_data && s.rows > 0 && s.cols > 0) {
      if (s.data == nullptr) return null;
      if (!::gemm::detail::aligned_to(s.data, alignof(E))) return misaligned;
    }
    return Status::Success;
  }

  Status check_stream() const {
#if CUDART_VERSION >= 12080
    if (stream_ != nullptr && stream_ != cudaStreamLegacy && stream_ != cudaStreamPerThread) {
      int device = -1;
      if (Status s = cuda_status(cudaStreamGetDevice(stream_, &device)); s != Status::Success) return s;
      if (device != ctx_.device()) return Status::DeviceMismatch;
    }
#endif
    return Status::Success;
  }

  void wait(cudaStream_t stream, cudaEvent_t event) { note(cudaStreamWaitEvent(stream, event, 0)); }
  void record(cudaEvent_t event, cudaStream_t stream) { note(cudaEventRecord(event, stream)); }
};

}  // namespace gemm::distributed::detail
