#pragma once
// Targets: which of a program's compiled images hold a composition's kernel bodies.
//
// nvcc compiles every kernel a call can reach once per architecture the program is built for. A
// dispatcher that runs a composition only on some devices (preset::Tuned's fallbacks: the CUDA-core
// path for GPUs before sm_80, mma.sync where the Hopper kernel cannot run) says so with a Targets
// part, and the other images get a stub that traps instead of the body: ptxas then assembles a few
// instructions instead of a whole kernel (a bf16 call with op arguments, sm_90a: 40 s of nvcc -> 18 s).
//
//   EveryImage     the default: the body is in every image.
//   BeforeSm80     only in code for architectures before sm_80 (no cp.async, no mma.sync).
//   WithoutWgmma   only in code without sm_90a's features: the Hopper kernels' fallbacks.
//   (WithWgmma     what the Hopper kernels themselves need: sm_90a code.)
//
// The host asks runs_here<Targets>(dev) before launching such a kernel (detail/image.cuh finds out
// which image the device runs), so a stub is never launched: the call gets
// Status::UnsupportedArchitecture and the dispatcher's next choice runs instead.
#include <string>
#include <type_traits>
#include "../detail/image.cuh"
#include "../status.cuh"

namespace gemm {

struct EveryImage {
  __host__ __device__ static constexpr bool holds(int /*arch*/, bool /*wgmma*/) { return true; }
  static std::string describe() { return "EveryImage"; }
};

struct BeforeSm80 {
  __host__ __device__ static constexpr bool holds(int arch, bool /*wgmma*/) { return arch < 80; }
  static std::string describe() { return "BeforeSm80"; }
};

struct WithoutWgmma {
  __host__ __device__ static constexpr bool holds(int /*arch*/, bool wgmma) { return !wgmma; }
  static std::string describe() { return "WithoutWgmma"; }
};

// What the Hopper kernels need of an image (their bodies are compiled only there).
struct WithWgmma {
  __host__ __device__ static constexpr bool holds(int /*arch*/, bool wgmma) { return wgmma; }
  static std::string describe() { return "WithWgmma"; }
};

namespace detail {

// What the code being compiled is: its architecture (10 * major + minor; 0 in the host pass) and
// whether it has sm_90a's features.
__host__ __device__ constexpr int compiled_arch() {
#if defined(__CUDA_ARCH__)
  return __CUDA_ARCH__ / 10;
#else
  return 0;
#endif
}
__host__ __device__ constexpr bool compiled_with_wgmma() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  return true;
#else
  return false;
#endif
}

// In a kernel: whether this image holds the body (the host pass always compiles it).
template <class Targets>
__host__ __device__ constexpr bool compiled_here() {
  return compiled_arch() == 0 || Targets::holds(compiled_arch(), compiled_with_wgmma());
}

// On the host: whether the image this device runs holds the body.
template <class Targets>
Status runs_here(const DeviceInfo& dev) {
  if constexpr (std::is_same_v<Targets, EveryImage>) {
    (void)dev;
    return Status::Success;
  } else {
    Image image;
    if (Status s = image_of(dev, image); s != Status::Success) return s;
    return Targets::holds(image.arch, image.wgmma) ? Status::Success : Status::UnsupportedArchitecture;
  }
}

// A pick's composition (detail::Pick) with the Targets it names; the composition as it is where it
// names none. TargetsOf: where its kernel bodies are, as a Targets part.
template <class Pick, class Where = typename Pick::Where>
struct Picked {
  using Policy = typename Pick::Policy::template WithTargets<Where>;
  using Targets = Where;
};
template <class Pick>
struct Picked<Pick, void> {
  using Policy = typename Pick::Policy;
  using Targets = EveryImage;
};
template <class Pick>
using PickedPolicy = typename Picked<Pick>::Policy;
template <class Pick>
using TargetsOf = typename Picked<Pick>::Targets;

}  // namespace detail
}  // namespace gemm
