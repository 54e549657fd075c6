#pragma once
// gemm::distributed: one GEMM over several GPUs through NCCL (target gemm::distributed).
//
//   C (m x n, row-major) = alpha * op(A) * op(B) + beta * C,   op(A) m x k, op(B) k x n,
//
// the problem of gemm::gemm<T>(op_a, op_b, ...), with every rank holding a shard of A, B and C
// (shard.hpp says which; C is always split by rows). Two ways to call it:
//
//   gemm::distributed::gemm<T>(context, algorithm, op_a, op_b, m, n, k, alpha, A, B, beta, C, stream)
//       one rank: one process (or thread) per GPU, with your NCCL communicator wrapped in a Context;
//   gemm::distributed::gemm<T>(group, algorithm, op_a, op_b, m, n, k, alpha, As, Bs, beta, Cs)
//       every GPU of this process from one thread (LocalGroup), one shard per rank in each list.
//
// m, n, k, alpha, beta, the layouts, the types and the algorithm are global: every rank must pass
// the same (Options::check_agreement makes the ranks compare them). A, B, C are this rank's shards
// (Shard: pointer, rows x cols as stored, leading dimension); their shapes must be the ones
// stored_block() gives, or the call returns ShardMismatchA/B/C. Types: those of gemm::gemm (float,
// gemm::tf32, double, __nv_bfloat16, __half; C of the input type, or float for 16-bit inputs);
// layouts: op N or T for A and B, any leading dimensions. The local multiplies are gemm::gemm<T,
// Policy> calls (Policy: the default policy unless named).
//
// Algorithms (Algorithm in shard.hpp):
//   RowSplit           A and C by rows, B replicated: one local multiply, no communication.
//   AllGather          A and C by rows, B by columns. p steps around a ring: at step s a rank
//                      multiplies the B block it holds (its own first) into its C columns while NCCL
//                      sends that block to the next rank and receives the next one from the previous
//                      rank into the other of two buffers. NCCL runs on a high-priority stream with
//                      few CTAs (Options::comm_ctas) and the multiply beside it plans for the
//                      remaining SMs (gemm::SmLimit).
//   AllGatherThenGemm  AllGather's sharding: receive every B block first, then multiply (no
//                      overlap; the baseline for AllGather, and the simpler choice for small shapes).
//   ReduceScatter      A by columns and B by rows (k split): a rank computes the partial product of
//                      every row block of C (in scalar_t<T>: float for 16-bit inputs), and each block
//                      is summed onto its owner with ncclReduce while the next one is computed; the
//                      owner adds beta * C once.
//
// Every call validates everything on every rank before the first collective (sizes, shard shapes,
// leading dimensions, pointers, the device, the workspace), so an invalid call returns its Status
// and enqueues nothing. The single-process call checks all ranks before any of them starts. Ranks
// driven separately each check their own arguments: a rank that returns early leaves its peers
// waiting in a collective, unless Options::check_agreement is on. After CommunicatorError, abort
// the communicators (ncclCommAbort). The work is enqueued on `stream` (the group's streams) and the
// call returns without waiting; the shards must stay untouched until the stream has passed it.
//
// NVLink multicast must stay off: LocalGroup sets NCCL_NVLS_ENABLE=0 before creating communicators;
// if you create your own, call disable_nvls() first. Context::init refuses to run with
// NCCL_NVLS_ENABLE other than "0" (Options::allow_nvls overrides that where multicast is allowed).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>
#include <cuda_runtime.h>
#include <nccl.h>
#include "../gemm.cuh"
#include "context.cuh"
#include "shard.hpp"

namespace gemm::distributed {

// One rank's piece of a matrix, as stored: rows x cols, row-major, rows `ld` elements apart.
template <class E>
struct Shard {
  E* data = nullptr;
  int rows = 0, cols = 0;
  int ld = 1;

  constexpr Shard() = default;
  constexpr Shard(E* data_, int rows_, int cols_, int ld_) : data(data_), rows(rows_), cols(cols_), ld(ld_) {}
  template <class F, std::enable_if_t<std::is_convertible_v<F*, E*>, int> = 0>
  constexpr Shard(const Shard<F>& other) : data(other.data), rows(other.rows), cols(other.cols), ld(other.ld) {}
};

namespace detail {

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

// ReduceScatter's last pass: C = partial + beta * C on the owner's rows (beta == 0: C is not read).
// One block per row (grid-stride over rows), threads along the row.
template <class P, class Out, class S>
__global__ void add_partial_kernel(int rows, int cols, const P* __restrict__ partial, long long ldp, S beta,
                                   Out* __restrict__ C, long long ldc) {
  for (int i = blockIdx.x; i < rows; i += gridDim.x) {
    const P* p = partial + i * ldp;
    Out* c = C + i * ldc;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
      S v = static_cast<S>(p[j]);
      if (beta != S(0)) v += beta * ::gemm::detail::convert<S>(c[j]);
      c[j] = ::gemm::detail::convert<Out>(v);
    }
  }
}

constexpr std::size_t align256(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

// One rank's part of one call. prepare() checks everything and takes the workspace without
// enqueueing anything; begin(), then for each step before(s), exchange(s) (NCCL calls only, inside
// a group the driver opens) and after(s), then end() enqueue the work. A failure after begin() is
// recorded (status()) and the rank keeps making its NCCL calls, so that its peers do not hang;
// only its multiplies stop.
template <class T, class Policy, class Out>
class Plan {
 public:
  using In = storage_t<T>;
  using S = scalar_t<T>;

  Plan(Context& ctx, Algorithm algorithm, Op op_a, Op op_b, int m, int n, int k, S alpha, Shard<const In> A,
       Shard<const In> B, S beta, Shard<Out> C, cudaStream_t stream)
      : ctx_(ctx), alg_(algorithm), op_a_(op_a), op_b_(op_b), m_(m), n_(n), k_(k), alpha_(alpha), beta_(beta), A_(A),
        B_(B), C_(C), stream_(stream) {}

  int device() const { return ctx_.device(); }
  Status status() const { return error_; }
  bool communicates() const { return mode_ == Mode::Ring || mode_ == Mode::Gather || mode_ == Mode::Reduce; }
  int steps() const {
    if (mode_ == Mode::Ring || mode_ == Mode::Reduce) return p_;
    return mode_ == Mode::Gather ? 1 : 0;
  }

  Status prepare() {
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

    if (m_ == 0 || n_ == 0) mode_ = Mode::Nothing;  // an empty C: nothing to do, as gemm::gemm
    else if (!product_) mode_ = Mode::ScaleOnly;    // C = beta * C, no communication
    else if (p_ == 1 || alg_ == Algorithm::RowSplit) mode_ = Mode::Local;
    else if (alg_ == Algorithm::AllGather) mode_ = Mode::Ring;
    else if (alg_ == Algorithm::AllGatherThenGemm) mode_ = Mode::Gather;
    else mode_ = Mode::Reduce;
    if (mode_ == Mode::Nothing) return Status::Success;

    if (Status s = ::gemm::detail::query_device(dev_); s != Status::Success) return s;
    if (Status s = take_workspace(); s != Status::Success) return s;
    return for_each_multiply([&](const auto& args, bool) { return validate(args); });
  }

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

  void begin() {
    if (mode_ == Mode::Nothing) return;
    wait(stream_, ctx_.done_);  // the previous call on this context (any stream) is done with the workspace
    if (!communicates()) return;
    if (pack_)
      note(cudaMemcpy2DAsync(pack_, own_.ld * sizeof(In), B_.data, static_cast<std::size_t>(B_.ld) * sizeof(In),
                             own_.cols * sizeof(In), own_.rows, cudaMemcpyDeviceToDevice, stream_));
    record(ctx_.start_, stream_);
    wait(ctx_.comm_stream_, ctx_.start_);
  }

  void before(int s) {
    if (mode_ == Mode::Ring) {
      if (s >= 1) wait(stream_, ctx_.comm_done_);          // the block of step s has arrived
      if (s >= 2) wait(ctx_.comm_stream_, ctx_.compute_);  // the buffer it overwrites has been multiplied
    } else if (mode_ == Mode::Reduce) {
      multiply(reduce_args(s), s >= 1);  // beside the reduction of the previous block
      record(ctx_.compute_, stream_);
      wait(ctx_.comm_stream_, ctx_.compute_);
    }
  }

  ncclResult_t exchange(int s) {
    ncclComm_t comm = ctx_.comm_;
    cudaStream_t cs = ctx_.comm_stream_;
    constexpr ncclDataType_t type = nccl_type<In>();
    ncclResult_t r = ncclSuccess;
    if (mode_ == Mode::Ring) {
      const RingStep step = ring_step(r_, p_, s);
      if (!step.exchange) return ncclSuccess;
      const WireBlock out = wire(step.block), in = wire(step.recv_block);
      const In* src = s == 0 ? send_own_ : recv_[(s - 1) % 2];
      if (out.count() > 0) r = ncclSend(src, out.count(), type, step.send_to, comm, cs);
      if (r == ncclSuccess && in.count() > 0) r = ncclRecv(recv_[s % 2], in.count(), type, step.recv_from, comm, cs);
    } else if (mode_ == Mode::Gather) {
      for (int d = 1; d < p_ && r == ncclSuccess; ++d) {
        const int to = positive_mod(r_ + d, p_), from = positive_mod(r_ - d, p_);
        if (own_.count() > 0) r = ncclSend(send_own_, own_.count(), type, to, comm, cs);
        const WireBlock in = wire(from);
        if (r == ncclSuccess && in.count() > 0) r = ncclRecv(gather_ + gather_offset_[from], in.count(), type, from, comm, cs);
      }
    } else if (mode_ == Mode::Reduce) {
      const Range rows = partition(m_, p_, s);
      const std::size_t count = partial_count(rows.size, n_, ldp_);
      S* block = partial_ + static_cast<std::size_t>(rows.offset) * ldp_;
      if (count > 0) r = ncclReduce(block, block, count, nccl_type<S>(), ncclSum, s, comm, cs);
    }
    return r;
  }

  void after(int s) {
    if (mode_ == Mode::Ring) {
      const bool exchanged = ring_step(r_, p_, s).exchange;
      if (exchanged) record(ctx_.comm_done_, ctx_.comm_stream_);
      multiply(ring_args(s), exchanged);
      record(ctx_.compute_, stream_);
    } else if (mode_ == Mode::Gather) {
      record(ctx_.comm_done_, ctx_.comm_stream_);
      wait(stream_, ctx_.comm_done_);
      for (int j = 0; j < p_; ++j) multiply(gather_args(j), false);
    }
  }

  void end() {
    switch (mode_) {
      case Mode::Nothing: return;
      case Mode::Local: multiply(local_args(), false); break;
      case Mode::ScaleOnly: multiply(scale_args(), false); break;
      case Mode::Ring:
      case Mode::Reduce:
        // Join: the caller's stream passes this point only once every transfer is done.
        record(ctx_.comm_done_, ctx_.comm_stream_);
        wait(stream_, ctx_.comm_done_);
        if (mode_ == Mode::Reduce) add_partial();
        break;
      case Mode::Gather: break;  // joined before the multiplies
    }
    record(ctx_.done_, stream_);
  }

 private:
  enum class Mode { Nothing, Local, ScaleOnly, Ring, Gather, Reduce };

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

  static constexpr int kWireAlign = sizeof(In) >= 16 ? 1 : static_cast<int>(16 / sizeof(In));
  static constexpr int kPartialAlign = static_cast<int>(16 / sizeof(S));

  WireBlock wire(int block) const { return wire_block(op_b_, n_, k_, p_, block, kWireAlign); }

  Status take_workspace() {
    std::size_t bytes = 0;
    std::size_t pack_at = 0, recv_at[2] = {0, 0}, gather_at = 0;
    if (mode_ == Mode::Ring || mode_ == Mode::Gather) {
      own_ = wire(r_);
      const bool pack = own_.count() > 0 && B_.ld != own_.ld;
      pack_at = bytes;
      if (pack) bytes += align256(own_.size() * sizeof(In));
      if (mode_ == Mode::Ring) {
        std::size_t largest = 0;
        for (int q = 0; q < p_; ++q) largest = std::max(largest, wire(q).size());
        for (int b = 0; b < std::min(2, p_ - 1); ++b) {
          recv_at[b] = bytes;
          bytes += align256(largest * sizeof(In));
        }
      } else {
        gather_at = bytes;
        gather_offset_.assign(p_, 0);
        std::size_t elements = 0;
        for (int q = 0; q < p_; ++q) {
          if (q == r_) continue;
          gather_offset_[q] = elements;
          elements += align256(wire(q).size() * sizeof(In)) / sizeof(In);
        }
        bytes += elements * sizeof(In);
      }
      void* base = nullptr;
      if (bytes > 0)
        if (Status s = ctx_.workspace(bytes, base); s != Status::Success) return s;
      char* b = static_cast<char*>(base);
      pack_ = pack ? reinterpret_cast<In*>(b + pack_at) : nullptr;
      send_own_ = pack ? pack_ : B_.data;
      if (mode_ == Mode::Ring)
        for (int i = 0; i < std::min(2, p_ - 1); ++i) recv_[i] = reinterpret_cast<In*>(b + recv_at[i]);
      else
        gather_ = reinterpret_cast<In*>(b + gather_at);
    } else if (mode_ == Mode::Reduce) {
      ldp_ = partial_ld(n_, kPartialAlign);
      bytes = align256(static_cast<std::size_t>(m_) * static_cast<std::size_t>(ldp_) * sizeof(S));
      void* base = nullptr;
      if (Status s = ctx_.workspace(bytes, base); s != Status::Success) return s;
      partial_ = static_cast<S*>(base);
    }
    return Status::Success;
  }

  // The local multiplies, each as the gemm::gemm arguments it runs with: prepare() validates them
  // all with the same generators that after(), before() and end() run them with.
  GemmArgs<In, Out> local_args() const {
    return {C_.rows, n_, k_, alpha_, A_.data, A_.ld, B_.data, B_.ld, beta_, C_.data, C_.ld, op_a_, op_b_};
  }
  GemmArgs<In, Out> scale_args() const {  // k = 0: C = beta * C
    return {C_.rows, n_, 0, alpha_, nullptr, 1, nullptr, std::max(1, n_), beta_, C_.data, C_.ld, Op::N, Op::N};
  }
  Out* c_columns(int col) const { return C_.data ? C_.data + col : nullptr; }
  // Step s of the ring: the C columns of block j from the B block held at that step.
  GemmArgs<In, Out> ring_args(int s) const {
    const int j = ring_step(r_, p_, s).block;
    const Range cols = partition(n_, p_, j);
    const In* b = s == 0 ? B_.data : recv_[(s - 1) % 2];
    const int ldb = s == 0 ? B_.ld : static_cast<int>(wire(j).ld);
    return {C_.rows, cols.size, k_, alpha_, A_.data, A_.ld, b, ldb, beta_, c_columns(cols.offset), C_.ld, op_a_, op_b_};
  }
  GemmArgs<In, Out> gather_args(int j) const {
    const Range cols = partition(n_, p_, j);
    const In* b = j == r_ ? B_.data : gather_ + gather_offset_[j];
    const int ldb = j == r_ ? B_.ld : static_cast<int>(wire(j).ld);
    return {C_.rows, cols.size, k_, alpha_, A_.data, A_.ld, b, ldb, beta_, c_columns(cols.offset), C_.ld, op_a_, op_b_};
  }
  // Step q of ReduceScatter: rows of rank q's block, this rank's k slice, into the partial buffer.
  GemmArgs<In, S> reduce_args(int q) const {
    const Range rows = partition(m_, p_, q);
    const In* a = A_.data == nullptr ? nullptr
                  : op_a_ == Op::N   ? A_.data + static_cast<std::size_t>(rows.offset) * A_.ld
                                     : A_.data + rows.offset;
    return {rows.size, n_, local_k(), alpha_, a, A_.ld, B_.data, B_.ld, S(0),
            partial_ + static_cast<std::size_t>(rows.offset) * ldp_, static_cast<int>(ldp_), op_a_, op_b_};
  }
  int local_k() const { return partition(k_, p_, r_).size; }

  template <class F>
  Status for_each_multiply(F&& f) const {
    switch (mode_) {
      case Mode::Nothing: return Status::Success;
      case Mode::Local: return f(local_args(), false);
      case Mode::ScaleOnly: return f(scale_args(), false);
      case Mode::Ring:
        for (int s = 0; s < p_; ++s)
          if (Status st = f(ring_args(s), ring_step(r_, p_, s).exchange); st != Status::Success) return st;
        return Status::Success;
      case Mode::Gather:
        for (int j = 0; j < p_; ++j)
          if (Status st = f(gather_args(j), false); st != Status::Success) return st;
        return Status::Success;
      case Mode::Reduce:
        for (int q = 0; q < p_; ++q)
          if (Status st = f(reduce_args(q), q >= 1); st != Status::Success) return st;
        return Status::Success;
    }
    return Status::Success;
  }

  // What gemm::gemm would check before launching, without launching.
  template <class X>
  Status validate(const GemmArgs<In, X>& a) const {
    if (Status s = ::gemm::detail::validate_sizes(a); s != Status::Success) return s;
    if (a.m == 0 || a.n == 0) return Status::Success;
    if (Status s = ::gemm::detail::validate_pointers(a); s != Status::Success) return s;
    return Policy::template check_alignment<T>(a);
  }

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

  void add_partial() {
    if (error_ != Status::Success || C_.rows == 0) return;
    const Range rows = partition(m_, p_, r_);
    const S* src = partial_ + static_cast<std::size_t>(rows.offset) * ldp_;
    const long long blocks = std::min(rows.size, 4096);
    const Status s = ::gemm::detail::launch_kernel<&add_partial_kernel<S, Out, S>>(
        blocks, 256, 0, stream_, dev_, rows.size, n_, src, static_cast<long long>(ldp_), beta_, C_.data,
        static_cast<long long>(C_.ld));
    if (s != Status::Success) error_ = s;
  }

  void note(cudaError_t e) {
    if (e != cudaSuccess && error_ == Status::Success) error_ = cuda_status(e);
  }
  void wait(cudaStream_t stream, cudaEvent_t event) { note(cudaStreamWaitEvent(stream, event, 0)); }
  void record(cudaEvent_t event, cudaStream_t stream) { note(cudaEventRecord(event, stream)); }

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
  Mode mode_ = Mode::Nothing;
  ::gemm::detail::DeviceInfo dev_;
  Status error_ = Status::Success;
  // All-gather algorithms: this rank's block as it travels, the packed copy of it (when the
  // caller's ld differs from the wire's), where it is sent from, the two ring buffers, the gather
  // buffer and each block's offset in it.
  WireBlock own_;
  In* pack_ = nullptr;
  const In* send_own_ = nullptr;
  In* recv_[2] = {nullptr, nullptr};
  In* gather_ = nullptr;
  std::vector<std::size_t> gather_offset_;
  // ReduceScatter: the m x n partial products, rows ldp_ apart.
  S* partial_ = nullptr;
  long long ldp_ = 1;
};

// Runs prepared plans (one per rank of this thread) step by step; the NCCL calls of a step go in one
// group. Returns the first failure; `failed` gets its plan's index.
template <class PlanT>
Status execute(PlanT* const* plans, int count, int& failed) {
  failed = -1;
  auto each = [&](auto&& f) {
    for (int i = 0; i < count; ++i) {
      DeviceGuard guard(plans[i]->device());
      f(*plans[i]);
    }
  };
  each([](PlanT& p) { p.begin(); });
  if (plans[0]->communicates()) {
    const int steps = plans[0]->steps();
    for (int s = 0; s < steps; ++s) {
      each([s](PlanT& p) { p.before(s); });
      ncclResult_t r = ncclGroupStart();
      int at = 0;
      for (; at < count && r == ncclSuccess; ++at) {
        DeviceGuard guard(plans[at]->device());
        r = plans[at]->exchange(s);
      }
      const ncclResult_t end = ncclGroupEnd();
      if (r != ncclSuccess || end != ncclSuccess) {
        failed = r != ncclSuccess ? at - 1 : 0;
        return nccl_status(r != ncclSuccess ? r : end);
      }
      each([s](PlanT& p) { p.after(s); });
    }
  }
  each([](PlanT& p) { p.end(); });
  for (int i = 0; i < count; ++i)
    if (plans[i]->status() != Status::Success) {
      failed = i;
      return plans[i]->status();
    }
  return Status::Success;
}

template <class T, class Policy, class Out>
constexpr bool check_types() {
  static_assert(is_math_type<T>,
                "gemm::distributed::gemm<T>: T must be float, gemm::tf32, double, __nv_bfloat16 or __half.");
  static_assert(!is_math_type<T> || is_supported_output<T, Out>,
                "gemm::distributed::gemm<T>: C must hold the input type, or float for __nv_bfloat16 and __half.");
  static_assert(!is_math_type<T> || !is_supported_output<T, Out> ||
                    (Policy::template kServes<T, Out> && Policy::template kServes<T, scalar_t<T>>),
                "gemm::distributed::gemm<T, Policy>: the policy must serve T with C of type Out, and with C of "
                "type scalar_t<T> (ReduceScatter's partial products).");
  return is_math_type<T> && is_supported_output<T, Out> && Policy::template kServes<T, Out> &&
         Policy::template kServes<T, scalar_t<T>>;
}

}  // namespace detail

// One rank's call: see the top of this file. `ctx` wraps this rank's communicator; the work goes
// on `stream` (a stream of ctx.device()) and on ctx's communication stream, joined back into
// `stream` before the call's end.
template <class T, class Policy = DefaultPolicy, class Out>
Status gemm(Context& ctx, Algorithm algorithm, Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha,
            Shard<const storage_t<T>> A, Shard<const storage_t<T>> B, scalar_t<T> beta, Shard<Out> C,
            cudaStream_t stream = 0) {
  if constexpr (!detail::check_types<T, Policy, Out>()) {
    return Status::InvalidSize;  // never compiled into a program: a static_assert has stopped the build
  } else {
    if (!ctx.ready()) return Status::InvalidCommunicator;
    detail::DeviceGuard guard(ctx.device());
    if (guard.error() != cudaSuccess) return detail::cuda_status(guard.error());
    detail::Plan<T, Policy, Out> plan(ctx, algorithm, op_a, op_b, m, n, k, alpha, A, B, beta, C, stream);
    const Status local = plan.prepare();
    if (ctx.options().check_agreement) {
      if (local == Status::InvalidCommunicator) return local;
      if (Status s = plan.agree(local); s != Status::Success) return s;
    } else if (local != Status::Success) {
      return local;
    }
    detail::Plan<T, Policy, Out>* plans[1] = {&plan};
    int failed = -1;
    return detail::execute(plans, 1, failed);
  }
}

// Every GPU of `group` from this thread: A[r], B[r], C[r] are rank r's shards, the work of rank r
// goes on group.stream(r). Checks every rank before any work starts; on a refusal
// group.failed_rank() names the rank whose arguments were refused.
template <class T, class Policy = DefaultPolicy, class Out>
Status gemm(LocalGroup& group, Algorithm algorithm, Op op_a, Op op_b, int m, int n, int k, scalar_t<T> alpha,
            const std::vector<Shard<const storage_t<T>>>& A, const std::vector<Shard<const storage_t<T>>>& B,
            scalar_t<T> beta, const std::vector<Shard<Out>>& C) {
  if constexpr (!detail::check_types<T, Policy, Out>()) {
    return Status::InvalidSize;  // never compiled into a program: a static_assert has stopped the build
  } else {
    using PlanT = detail::Plan<T, Policy, Out>;
    group.set_failed_rank(-1);
    const int p = group.size();
    if (p == 0) return Status::InvalidCommunicator;
    if (A.size() != static_cast<std::size_t>(p) || B.size() != static_cast<std::size_t>(p) ||
        C.size() != static_cast<std::size_t>(p))
      return Status::InvalidCommunicator;
    std::vector<std::unique_ptr<PlanT>> plans;
    std::vector<PlanT*> raw;
    for (int r = 0; r < p; ++r) {
      plans.push_back(std::make_unique<PlanT>(group.context(r), algorithm, op_a, op_b, m, n, k, alpha, A[r], B[r], beta,
                                              C[r], group.stream(r)));
      raw.push_back(plans.back().get());
    }
    for (int r = 0; r < p; ++r) {
      detail::DeviceGuard guard(group.device(r));
      if (guard.error() != cudaSuccess) {
        group.set_failed_rank(r);
        return detail::cuda_status(guard.error());
      }
      if (Status s = plans[r]->prepare(); s != Status::Success) {
        group.set_failed_rank(r);
        return s;
      }
    }
    int failed = -1;
    const Status s = detail::execute(raw.data(), p, failed);
    group.set_failed_rank(failed);
    return s;
  }
}

}  // namespace gemm::distributed
