// bf16 with bf16 C: every algorithm and layout; 100 calls back to back; multiplies beside transfers
// on 3 SMs; a group of one GPU.
#include <memory>
#include "harness.cuh"

using namespace dist_test;
using T = __nv_bfloat16;

TEST_CASE("bf16: every algorithm and layout matches the single-GPU result", "[distributed][bf16]") {
  check_cases<T, T>(group(), standard_cases());
}

TEST_CASE("bf16: small cases for compute-sanitizer", "[distributed][bf16][memcheck]") {
  check_cases<T, T>(group(), memcheck_cases(), {{Op::N, Op::T}});
}

TEST_CASE("bf16: 100 calls back to back, cycling the algorithms, each into its own C", "[distributed][bf16][repeat]") {
  gd::LocalGroup& g = group();
  const Case c{300, 257, 511, 1.0, 0.5};
  const Data<T, T> d(c, Op::N, Op::T);
  constexpr int kCalls = 100;
  std::vector<std::unique_ptr<Shards<T, T>>> shards;
  for (int i = 0; i < kCalls; ++i) shards.push_back(std::make_unique<Shards<T, T>>(d, gd::kAlgorithms[i % 4], g));
  // Enqueued without waiting: calls on one context share its workspace (ring buffers and partial
  // sums alias), so each must wait for the one before it on the device.
  for (int i = 0; i < kCalls; ++i) {
    Shards<T, T>& s = *shards[i];
    set_activity("call " + std::to_string(i) + " of 100 back to back (" + gd::to_string(s.alg) + ")");
    const gemm::Status st = gd::gemm<T>(g, s.alg, d.op_a, d.op_b, c.m, c.n, c.k, 1.0f, s.A, s.B, 0.5f, s.C);
    INFO("call " << i << ": " << gemm::to_string(st));
    REQUIRE(st == gemm::Status::Success);
  }
  set_activity("waiting for 100 calls back to back");
  REQUIRE(g.synchronize() == gemm::Status::Success);
  for (int i = 0; i < kCalls; ++i)
    check_result(d, *shards[i], "call " + std::to_string(i) + " (" + gd::to_string(shards[i]->alg) + ")");
}

TEST_CASE("bf16: multiplies beside transfers planned for 3 SMs (Options::compute_sms)", "[distributed][bf16]") {
  gd::LocalGroup& g = group();
  struct Restore {
    gd::LocalGroup& g;
    ~Restore() {
      for (int r = 0; r < g.size(); ++r) g.context(r).options().compute_sms = 0;
    }
  } restore{g};
  for (int r = 0; r < g.size(); ++r) g.context(r).options().compute_sms = 3;
  check_cases<T, T>(g, {{256, 384, 192, 1.0, 1.0}, {129, 67, 250, 1.0, 0.5, false, 3}});
}

TEST_CASE("bf16: a group of one GPU", "[distributed][bf16]") {
  gd::LocalGroup one;
  set_activity("creating a group of one GPU");
  REQUIRE(one.init({group().device(0)}) == gemm::Status::Success);
  REQUIRE(one.size() == 1);
  check_cases<T, T>(one, {{37, 53, 71, 0.75, -0.5}, {256, 384, 192}, {17, 19, 0, 1.0, 0.5}});
}
