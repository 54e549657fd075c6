// float: every algorithm and layout; invalid calls (every rank refuses before any work, the group
// stays usable); one thread per rank on communicators made by the caller, with and without the
// agreement check.
#include <cstdlib>
#include <memory>
#include <thread>
#include "harness.cuh"

using namespace dist_test;
using T = float;

namespace {

// Whether every C shard still holds the case's C (and its sentinels).
bool c_unchanged(const Data<T, T>& d, const Shards<T, T>& s) {
  for (int r = 0; r < s.p; ++r) {
    const std::vector<T> want = cut(d.c0, std::max(1, d.c.n), s.c_block[r], s.ldc[r], 1, gemm_test::sentinel<T>());
    const std::vector<T> got = s.c[r]->download();
    if (std::memcmp(want.data(), got.data(), want.size() * sizeof(T)) != 0) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("float: every algorithm and layout matches the single-GPU result", "[distributed][float]") {
  check_cases<T, T>(group(), standard_cases());
}

TEST_CASE("float: small cases for compute-sanitizer", "[distributed][float][memcheck]") {
  check_cases<T, T>(group(), memcheck_cases(), {{Op::T, Op::N}});
}

TEST_CASE("float: invalid calls return their status, launch nothing, write nothing, and the group stays usable",
          "[distributed][float][validation]") {
  gd::LocalGroup& g = group();
  const int p = g.size();
  const Case c{37, 53, 71, 1.0, 0.5};
  const Data<T, T> d(c, Op::N, Op::N);
  Shards<T, T> s(d, gd::Algorithm::AllGather, g);
  using A_t = std::vector<gd::Shard<const T>>;
  using C_t = std::vector<gd::Shard<T>>;
  auto call = [&](gd::Algorithm alg, const A_t& A, const A_t& B, const C_t& C, int m) {
    set_activity(std::string("an invalid ") + gd::to_string(alg) + " call");
    return gd::gemm<T>(g, alg, Op::N, Op::N, m, c.n, c.k, 1.0f, A, B, 0.5f, C);
  };
  const unsigned long long launches = gemm::kernel_launches();
  const auto ag = gd::Algorithm::AllGather;

  A_t a_rows = s.A;
  a_rows[p - 1].rows += 1;
  CHECK(call(ag, a_rows, s.B, s.C, c.m) == gemm::Status::ShardMismatchA);
  CHECK(g.failed_rank() == p - 1);
  // The all-gather's B shards are column blocks; RowSplit wants all of B on every rank.
  CHECK(call(gd::Algorithm::RowSplit, s.A, s.B, s.C, c.m) == gemm::Status::ShardMismatchB);
  C_t c_rows = s.C;
  c_rows[0].rows -= 1;
  CHECK(call(ag, s.A, s.B, c_rows, c.m) == gemm::Status::ShardMismatchC);
  CHECK(g.failed_rank() == 0);
  A_t b_ld = s.B;
  b_ld[1].ld = b_ld[1].cols - 1;
  CHECK(call(ag, s.A, b_ld, s.C, c.m) == gemm::Status::InvalidLeadingDimensionB);
  C_t c_null = s.C;
  c_null[1].data = nullptr;
  CHECK(call(ag, s.A, s.B, c_null, c.m) == gemm::Status::NullPointerC);
  CHECK(g.failed_rank() == 1);
  A_t a_odd = s.A;
  a_odd[0].data = reinterpret_cast<const T*>(reinterpret_cast<const char*>(a_odd[0].data) + 2);
  CHECK(call(ag, a_odd, s.B, s.C, c.m) == gemm::Status::MisalignedA);
  A_t a_short = s.A;
  a_short.pop_back();
  CHECK(call(ag, a_short, s.B, s.C, c.m) == gemm::Status::InvalidCommunicator);
  CHECK(call(ag, s.A, s.B, s.C, -1) == gemm::Status::InvalidSize);
  // One rank's call through the per-rank API, refused before any collective.
  gd::Context none;
  CHECK(gd::gemm<T>(none, ag, Op::N, Op::N, c.m, c.n, c.k, 1.0f, s.A[0], s.B[0], 0.5f, s.C[0]) ==
        gemm::Status::InvalidCommunicator);
  CHECK(gd::gemm<T>(g.context(0), ag, Op::N, Op::N, c.m, c.n, c.k, 1.0f, s.A[0], s.B[0], 0.5f, s.C[0], g.stream(1)) ==
        gemm::Status::DeviceMismatch);
  {
    // A Context refuses a process where NVLink multicast may be on.
    struct RestoreNvls {
      ~RestoreNvls() { setenv("NCCL_NVLS_ENABLE", "0", 1); }
    } restore;
    setenv("NCCL_NVLS_ENABLE", "1", 1);
    gd::Context ctx;
    CHECK(ctx.init(g.comm(0)) == gemm::Status::NvlsNotDisabled);
    CHECK(!ctx.ready());
  }
  CHECK(gemm::kernel_launches() == launches);
  REQUIRE(g.synchronize() == gemm::Status::Success);
  CHECK(c_unchanged(d, s));

  // Nothing is stuck: the same group runs a valid call.
  run_and_check(g, d, ag);
}

TEST_CASE("float: one thread per rank on communicators the caller made, with and without the agreement check",
          "[distributed][float][threads]") {
  gd::LocalGroup& g = group();
  const int p = g.size();
  const Case c{67, 45, 91, 1.0, 0.5};
  const Data<T, T> d(c, Op::T, Op::N);
  std::vector<std::unique_ptr<Shards<T, T>>> shards;
  for (gd::Algorithm alg : gd::kAlgorithms) shards.push_back(std::make_unique<Shards<T, T>>(d, alg, g));
  Shards<T, T> again(d, gd::Algorithm::ReduceScatter, g);

  ncclUniqueId id;
  REQUIRE(ncclGetUniqueId(&id) == ncclSuccess);
  struct Outcome {
    ncclResult_t init = ncclInternalError;
    gemm::Status context = gemm::Status::InvalidCommunicator;
    gemm::Status calls[4] = {};
    gemm::Status disagree = gemm::Status::Success, peer = gemm::Status::Success, agreed = gemm::Status::InvalidSize;
  };
  std::vector<Outcome> out(p);
  set_activity("one thread per rank (ncclCommInitRankConfig, then calls on each rank's Context)");
  std::vector<std::thread> threads;
  for (int r = 0; r < p; ++r) {
    threads.emplace_back([&, r] {
      Outcome& o = out[r];
      cudaSetDevice(g.device(r));
      ncclComm_t comm = nullptr;
      ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
      config.maxCTAs = 8;
      config.cgaClusterSize = 1;
      o.init = ncclCommInitRankConfig(&comm, p, id, r, &config);
      if (o.init != ncclSuccess) return;
      gd::Options options;
      options.comm_ctas = 8;
      gd::Context ctx;
      o.context = ctx.init(comm, options);
      cudaStream_t stream = nullptr;
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      if (o.context == gemm::Status::Success) {
        for (int a = 0; a < 4; ++a) {
          Shards<T, T>& s = *shards[a];
          o.calls[a] = gd::gemm<T>(ctx, s.alg, d.op_a, d.op_b, c.m, c.n, c.k, 1.0f, s.A[r], s.B[r], 0.5f, s.C[r], stream);
        }
        cudaStreamSynchronize(stream);
        ctx.options().check_agreement = true;
        Shards<T, T>& s = *shards[1];
        // alpha differs on the last rank: every rank refuses.
        o.disagree = gd::gemm<T>(ctx, s.alg, d.op_a, d.op_b, c.m, c.n, c.k, r == p - 1 ? 2.0f : 1.0f, s.A[r], s.B[r],
                                 0.5f, s.C[r], stream);
        // A null C on the last rank: it refuses, and the others learn that a peer did.
        gd::Shard<T> c_r = s.C[r];
        if (r == p - 1) c_r.data = nullptr;
        o.peer = gd::gemm<T>(ctx, s.alg, d.op_a, d.op_b, c.m, c.n, c.k, 1.0f, s.A[r], s.B[r], 0.5f, c_r, stream);
        // And a valid call goes through with the check on.
        o.agreed = gd::gemm<T>(ctx, again.alg, d.op_a, d.op_b, c.m, c.n, c.k, 1.0f, again.A[r], again.B[r], 0.5f,
                               again.C[r], stream);
        cudaStreamSynchronize(stream);
      }
      cudaStreamDestroy(stream);
      ctx.reset();
      ncclCommDestroy(comm);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < p; ++r) {
    const Outcome& o = out[r];
    INFO("rank " << r);
    REQUIRE(o.init == ncclSuccess);
    REQUIRE(o.context == gemm::Status::Success);
    for (int a = 0; a < 4; ++a) {
      INFO(gd::to_string(gd::kAlgorithms[a]) << ": " << gemm::to_string(o.calls[a]));
      CHECK(o.calls[a] == gemm::Status::Success);
    }
    CHECK(o.disagree == gemm::Status::RanksDisagree);
    CHECK(o.peer == (r == p - 1 ? gemm::Status::NullPointerC : gemm::Status::PeerRejected));
    CHECK(o.agreed == gemm::Status::Success);
  }
  // The refused calls wrote nothing: the all-gather's C still holds the first call's result.
  for (int a = 0; a < 4; ++a) check_result(d, *shards[a], std::string("thread per rank, ") + gd::to_string(shards[a]->alg));
  check_result(d, again, "thread per rank, reducescatter with the agreement check");
}
