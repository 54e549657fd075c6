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
//
// Base: what each group is as a call of its own (entry(g)): plain GemmArgs; EpilogueArgs for a fused
// epilogue, whose bias entry(g) moves to the group's; ScaledArgs for an FP8 call with scales (and
// perhaps an epilogue), whose scales entry(g) narrows to the group's (grouped.cuh gives the layouts).
// Deriving from it lets detail::scales_of and epilogue_of find them as for a single call.
#include "args.cuh"
#include "scales.cuh"

namespace gemm {

enum class GroupedForm { Contiguous, Masked };

template <class In, class Out, class Base = GemmArgs<In, Out, Batch::Strided>>
struct GroupedArgs : Base {
  using Entry = Base;
  static constexpr Batch kBatching = Batch::Strided;  // (a ScaledArgs base is a single call's)
  GroupedForm form = GroupedForm::Contiguous;
  const int* rows = nullptr;   // offsets (Contiguous: groups + 1) or counts (Masked: groups), device memory
  const int* units = nullptr;  // per group, the first work unit (groups + 1: the last is the total), device
  int* claims = nullptr;       // the persistent kernel's counter of claimed units (device, zeroed with units)
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
    if constexpr (detail::has_scales<Base>) e.scales = group_scales(gi, begin);
    if constexpr (detail::has_epilogue<Base>) {
      // A bias per column: one vector of n per group; per row: one value per row of C.
      if (e.epilogue.bias_kind == BiasKind::PerColumn)
        e.epilogue.bias += g * this->n;
      else if (e.epilogue.bias_kind == BiasKind::PerRow)
        e.epilogue.bias += form == GroupedForm::Masked ? g * max_rows() : begin;
    }
    return e;
  }

  // Group g's scales (its first row at `begin` of a contiguous A): A's rows or blocks of its rows,
  // B's one weight's worth of its mode.
  __device__ Scales group_scales(int g, long long begin) const {
    Scales s = this->scales;
    const bool masked = form == GroupedForm::Masked;
    const long long rows = max_rows();
    if (s.mode == ScaleMode::Rowwise) {
      s.a += masked ? g * rows : begin;
    } else if (s.mode == ScaleMode::Block) {
      s.a += masked ? g * Scales::k_blocks(this->k) * rows : begin;
      s.a_k_stride = rows;
    }
    s.b += g * Scales::needed_b(s.mode, this->n, this->k);
    return s;
  }
};

namespace detail {
template <class Args>
struct IsGrouped : std::false_type {};
template <class In, class Out, class Base>
struct IsGrouped<GroupedArgs<In, Out, Base>> : std::true_type {};
template <class Args>
inline constexpr bool is_grouped = IsGrouped<std::decay_t<Args>>::value;
}  // namespace detail

}  // namespace gemm
