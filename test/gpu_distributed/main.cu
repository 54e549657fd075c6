// gemm_distributed_tests: gemm::distributed on every GPU of the machine from one process.
//
// Needs two or more CUDA devices; with fewer it says so and exits with 77 (ctest: skipped). A
// watchdog thread ends the run with exit code 124 and names what it was doing when the run takes
// longer than GEMM_DIST_TEST_TIMEOUT_S seconds (default 600): a hang in a collective shows up as a
// message, not as a stuck job. NCCL_NVLS_ENABLE is set to 0 before any communicator exists.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include "../catch_session.hpp"
#include "harness.cuh"

namespace dist_test {

namespace {
std::mutex activity_mutex;
std::string activity = "starting";
gd::LocalGroup* the_group = nullptr;
}  // namespace

void set_activity(const std::string& what) {
  std::lock_guard<std::mutex> lock(activity_mutex);
  activity = what;
}

gd::LocalGroup& group() { return *the_group; }

}  // namespace dist_test

int main(int argc, char** argv) {
  namespace gd = gemm::distributed;
  gd::disable_nvls();  // before anything creates a communicator

  int devices = 0;
  const cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess || devices < 2) {
    std::printf("SKIPPED: gemm_distributed_tests needs at least 2 CUDA devices; %s.\n",
                err != cudaSuccess ? cudaGetErrorString(err) : (devices == 1 ? "found 1" : "found none"));
    return 77;
  }

  double timeout_s = 600;
  if (const char* t = std::getenv("GEMM_DIST_TEST_TIMEOUT_S")) timeout_s = std::atof(t) > 0 ? std::atof(t) : timeout_s;
  static std::atomic<bool> finished{false};
  std::thread([timeout_s] {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (!finished.load()) {
      if (std::chrono::steady_clock::now() > deadline) {
        std::string what;
        {
          std::lock_guard<std::mutex> lock(dist_test::activity_mutex);
          what = dist_test::activity;
        }
        std::fprintf(stderr,
                     "\nTIMEOUT: gemm_distributed_tests did not finish within %.0f s (a collective or a kernel that "
                     "never completes?). Last activity: %s\n",
                     timeout_s, what.c_str());
        std::fflush(stderr);
        std::_Exit(124);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }).detach();

  int nccl = 0;
  ncclGetVersion(&nccl);
  std::printf("gemm_distributed_tests: %d GPUs, NCCL %d.%d.%d (NCCL_NVLS_ENABLE=%s)\n", devices, nccl / 10000,
              (nccl % 10000) / 100, nccl % 100, std::getenv("NCCL_NVLS_ENABLE"));
  for (int d = 0; d < devices; ++d) {
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, d);
    int peer = 0;
    if (devices > 1) cudaDeviceCanAccessPeer(&peer, d, (d + 1) % devices);
    std::printf("  device %d: %s (sm_%d%d, %d SMs), peer access to device %d: %s\n", d, prop.name, prop.major,
                prop.minor, prop.multiProcessorCount, (d + 1) % devices, peer ? "yes" : "no");
  }

  dist_test::set_activity("creating the communicators (LocalGroup::init)");
  static gd::LocalGroup group;
  const auto t0 = std::chrono::steady_clock::now();
  if (const gemm::Status s = group.init(); s != gemm::Status::Success) {
    std::printf("LocalGroup::init failed: %s (NCCL: %s)\n", gemm::to_string(s),
                ncclGetErrorString(gd::last_nccl_error()));
    return 1;
  }
  std::printf("  communicators for %d ranks in %.2f s (comm_ctas %d, multiplies beside transfers plan for %d SMs)\n",
              group.size(), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
              group.context(0).options().comm_ctas, group.context(0).overlap_sms());
  dist_test::the_group = &group;

  const int rc = run_catch_session(argc, argv);

  dist_test::set_activity("destroying the communicators (LocalGroup::reset)");
  group.reset();
  finished = true;
  return rc;
}
