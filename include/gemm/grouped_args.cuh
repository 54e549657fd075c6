#pragma once
// The arguments of a grouped GEMM (grouped.cuh), as the Hopper kernels receive them: a strided batch
// of `groups` products whose row counts live in device memory.
//
//   Contiguous: A is one matrix of max_rows x k rows sorted by group (row-major, lda), C one of
//               max_rows x n (ldc); group g owns rows [rows[g], rows[g + 1]) of both (rows: groups + 1
//               offsets). B holds one weight per group, stride_b elements apart.
//   Masked:     A, C and B are strided batches (groups entries of max_rows rows); group g's first
//               rows[g] rows are its product (rows: groups counts), the rest is neither read into C
//               nor written.
//
// Rows the device gives that the buffers cannot hold (negative, decreasing, or past max_rows) are
// clamped into them (group_begin, group_rows) and reported through `error` (group_in_range, checked
// where the units are counted); nothing outside the caller's buffers is read or written.
#include "args.cuh"

namespace gemm {

enum class GroupedForm { Contiguous, Masked };

template <class In, class Out>
struct GroupedArgs : GemmArgs<In, Out, Batch::Strided> {
  using Entry = GemmArgs<In, Out, Batch::Strided>;
  GroupedForm form = GroupedForm::Contiguous;
  const int* rows = nullptr;   // offsets (Contiguous: groups + 1) or counts (Masked: groups), device memory
  const int* units = nullptr;  // per group, the first work unit (groups + 1: the last is the total), device
  unsigned* error = nullptr;   // set to 1 where a group's rows were out of range

  // The rows of A and C (Contiguous), or of each entry (Masked): the batch's m.
  __host__ __device__ int max_rows() const { return this->m; }

  // Group g's first row in A and C and its row count, clamped into the buffers.
  __device__ int group_begin(int g) const {
    if (form == GroupedForm::Masked) return 0;
    const int b = __ldg(rows + g);
    return b < 0 ? 0 : (b > max_rows() ? max_rows() : b);
  }
  __device__ int group_rows(int g) const {
    if (form == GroupedForm::Masked) {
      const int c = __ldg(rows + g);
      return c < 0 ? 0 : (c > max_rows() ? max_rows() : c);
    }
    const int b = group_begin(g);
    int e = __ldg(rows + g + 1);
    e = e > max_rows() ? max_rows() : e;
    return e > b ? e - b : 0;
  }

  // Whether the device gave group g rows the buffers can hold (else they are clamped and flagged).
  __device__ bool group_in_range(int g) const {
    const int b = __ldg(rows + g);
    if (form == GroupedForm::Masked) return b >= 0 && b <= max_rows();
    const int e = __ldg(rows + g + 1);
    return b >= 0 && e >= b && e <= max_rows();
  }

  // Group g as a product of its own (C at its first row, m its rows): what the consumers store to.
  __device__ Entry entry(long long g) const {
    Entry e = static_cast<const Entry&>(*this);
    const int gi = static_cast<int>(g);
    const long long begin = group_begin(gi);
    e.m = group_rows(gi);
    if (form == GroupedForm::Masked) {
      e.A = this->A + g * this->stride_a;
      e.C = this->C + g * this->stride_c;
    } else {
      e.A = this->A + begin * this->lda;
      e.C = this->C + begin * this->ldc;
    }
    e.B = this->B + g * this->stride_b;
    return e;
  }
};

namespace detail {
template <class Args>
struct IsGrouped : std::false_type {};
template <class In, class Out>
struct IsGrouped<GroupedArgs<In, Out>> : std::true_type {};
template <class Args>
inline constexpr bool is_grouped = IsGrouped<std::decay_t<Args>>::value;
}  // namespace detail

}  // namespace gemm
