#pragma once
// Beta passes: C = beta * C, for calls where the product vanishes (k == 0 or alpha == 0), and before
// split-K or stream-K blocks add their partial products into C. beta == 0 writes zeros without reading C.
// An FP8 call's D scale and amax apply to what these passes store (PassOutput).
// With a fused epilogue (epilogue.cuh) the same passes give C = epilogue(beta * C): the whole result
// of a call without a product term, and (beta = 1) the finishing pass after split-K or stream-K
// blocks have added up a tile, which applies the epilogue once to the complete sums.
#include "../args.cuh"
#include "../detail/batch.cuh"
#include "../detail/launch.cuh"
#include "../epilogue.cuh"
#include "../ptx/grid_dependency.cuh"
#include "../scales.cuh"

namespace gemm::detail {

// What these passes store: the value as it is, or for an FP8 call with an output scale and amax
// (scales.cuh) the value times d, its magnitude raised into amax as the kernels' stores do
// (finish(): one atomic per thread, after its elements).
template <class Args>
struct PassOutput {
  float d = 1.0f;
  float* amax = nullptr;
  float largest = 0.0f;
  __device__ explicit PassOutput(const Args& args) {
    if constexpr (has_scales<Args>) {
      const Scales& s = scales_of(args);
      if (s.d != nullptr) d = __ldg(s.d);
      amax = s.amax;
    } else {
      (void)args;
    }
  }
  template <class Out, class S>
  __device__ __forceinline__ Out store(S v) {
    if constexpr (has_scales<Args>) {
      largest = fmaxf(largest, fabsf(static_cast<float>(v)));  // (NaN does not count)
      return convert<Out>(static_cast<float>(v) * d);
    } else {
      return convert<Out>(v);
    }
  }
  __device__ __forceinline__ void finish() const {
    if constexpr (has_scales<Args>) {
      if (amax != nullptr && largest > 0.0f) atomicMax(reinterpret_cast<int*>(amax), __float_as_int(largest));
    }
  }
};

template <class Out, class S, class Epilogue, class Output>
__device__ __forceinline__ void scale_element(Out* c, S beta, const Epilogue& epi, int row, int col, Output& out) {
  *c = out.template store<Out>(beta != S(0) ? epi(beta * convert<S>(*c), row, col) : epi(S(0), row, col));
}

template <class Args>
__global__ void scale_c_kernel(const Args params) {
  ptx::wait_for_prior_grid();  // (launched as dependent: ptx/grid_dependency.cuh)
  if (beyond_batch(params)) return;
  decltype(auto) args = block_entry(params);
  const long long total = static_cast<long long>(args.m) * args.n;
  PassOutput<std::decay_t<decltype(args)>> out(args);
  for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long row = idx / args.n, col = idx % args.n;
    scale_element(args.C + row * args.ldc + col, args.beta, epilogue_of(args), static_cast<int>(row),
                  static_cast<int>(col), out);
  }
  out.finish();
}

// Stream-K's pass over tiles first_tile, first_tile + 1, ... of Cfg's tiling (one block per tile),
// before the blocks that share those tiles add into them (and after, to finish a fused epilogue).
template <class Args, class Cfg>
__global__ void scale_tiles_kernel(const Args params, const int first_tile) {
  ptx::wait_for_prior_grid();  // (launched as dependent: ptx/grid_dependency.cuh)
  if (beyond_batch(params)) return;
  decltype(auto) args = block_entry(params);
  using Shape = typename Cfg::Shape;
  const int tiles_m = (args.m + Shape::BM - 1) / Shape::BM;
  const int tiles_n = (args.n + Shape::BN - 1) / Shape::BN;
  int tile_m, tile_n;
  Cfg::Raster::tile(first_tile + static_cast<int>(blockIdx.x), tiles_m, tiles_n, tile_m, tile_n);
  PassOutput<std::decay_t<decltype(args)>> out(args);
  for (int idx = threadIdx.x; idx < Shape::BM * Shape::BN; idx += blockDim.x) {
    const int row = tile_m * Shape::BM + idx / Shape::BN, col = tile_n * Shape::BN + idx % Shape::BN;
    if (row < args.m && col < args.n)
      scale_element(args.C + static_cast<long long>(row) * args.ldc + col, args.beta, epilogue_of(args), row, col,
                    out);
  }
  out.finish();
}

// C = epilogue(beta * C) on the host's stream; nothing to do when beta == 1 and there is no epilogue.
template <class Args>
Status scale_c(const Args& args, const DeviceInfo& dev, cudaStream_t stream) {
  if (args.beta == 1 && !has_epilogue<Args>) return Status::Success;
  const long long elems = static_cast<long long>(args.m) * args.n;
  const long long most = std::max(1LL, 65536LL / args.batch);  // blocks over all entries: about 65536 at most
  const long long blocks = std::min(ceil_div(elems, 256), most);
  return launch_kernel<&scale_c_kernel<Args>>(Grid(blocks, args.batch), 256, 0, stream, dev, args);
}


// An FP8 call's amax output starts at 0 on the call's stream (its kernels, these passes included,
// raise it); stream-ordered, after every check, so that a refused call writes nothing.
inline Status reset_amax(NoScales, cudaStream_t) { return Status::Success; }
inline Status reset_amax(const Scales& scales, cudaStream_t stream) {
  if (scales.amax == nullptr) return Status::Success;
  return cuda_status(cudaMemsetAsync(scales.amax, 0, sizeof(float), stream));
}

// After split-K or stream-K blocks have added their partial sums into C: C = epilogue(C). The same
// pass as beta's, with beta = 1 and the epilogue.
template <class Args>
Args finishing(Args args) {
  args.beta = 1;
  return args;
}

}  // namespace gemm::detail
