// The service's /v1/best takes a user kernel family's problem by its names (issue #13): each
// dimension as a parameter or one `problem=`, validated by the CLI's --problem rules (the
// offending value and the fix in a 400), m, n, k still accepted; built-in families keep m, n, k.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "autotuner/core/user_family.hpp"
#include "autotuner/service/params.hpp"
#include "db/store.hpp"
#include "kernels/registry.hpp"
#include "tests/support/seed_store.hpp"
#include "tests/support/service_harness.hpp"

namespace occtune::service {
namespace {

using ::testing::HasSubstr;

const char kFakeKernel[1] = {};  // never launched: parsing only
int fake_attributes(const void*, int*, int*, int*) { return 0; }
int fake_active(const void*, int, std::size_t, int*) { return 0; }
int fake_smem(const void*, int) { return 0; }

const bool registered = [] {
  KernelFamily f;
  f.name = "svcgrid";
  f.version = "1";
  f.dims = {"nx", "ny"};
  f.configs = {{{{"rows", 1}}, kFakeKernel, {}, 32, 0, {}}};
  f.smem = [](Block, const KernelConfig&) { return std::size_t(0); };
  f.grid = [](const Dims& p, const KernelConfig&, Block b) {
    return Grid{(p["nx"] + b.x - 1) / b.x, (p["ny"] + b.y - 1) / b.y, 1};
  };
  f.buffers = [](const Dims& p) {
    return std::vector<Buffer>{{"out", std::size_t(p["nx"] * p["ny"]), Buffer::Role::kOutput}};
  };
  f.launch = [](const LaunchArgs&) { return 0; };
  f.reference = [](const Dims&, std::vector<std::vector<float>>&) {};
  f.cuda = {&fake_attributes, &fake_active, &fake_smem};
  register_family(f);
  return true;
}();

constexpr const char* kDevice = "GPU-aaaaaaaa-0000-4000-8000-000000000001";

BestRequest best(QueryParams::Multimap extra) {
  extra.emplace("device", kDevice);
  return parse_best(extra);
}

BadParameter refused(QueryParams::Multimap extra) {
  try {
    best(std::move(extra));
  } catch (const BadParameter& e) {
    return e;
  }
  ADD_FAILURE() << "accepted";
  return {};
}

TEST(ServiceUserProblem, NamedDimensionsProblemAndMnkAskTheSameQuestion) {
  ASSERT_TRUE(registered);
  const auto named = best({{"kernel", "svcgrid"}, {"nx", "4096"}, {"ny", "2048"}});
  EXPECT_EQ(named.shape.m, 4096);
  EXPECT_EQ(named.shape.n, 2048);
  EXPECT_EQ(named.shape.k, 1);
  // Given in any order, the dimensions are read in declared order.
  const auto reversed = best({{"ny", "2048"}, {"kernel", "svcgrid"}, {"nx", "4096"}});
  const auto whole = best({{"kernel", "svcgrid"}, {"problem", "ny=2048,nx=4096"}});
  const auto positional = best({{"kernel", "svcgrid"}, {"m", "4096"}, {"n", "2048"}, {"k", "1"}});
  EXPECT_EQ(reversed.cache_key(), named.cache_key());
  EXPECT_EQ(whole.cache_key(), named.cache_key());
  EXPECT_EQ(positional.cache_key(), named.cache_key());
}

TEST(ServiceUserProblem, ABadProblemIsRefusedWithTheValueAndTheFix) {
  auto e = refused({{"kernel", "svcgrid"}, {"nx", "4096"}});
  EXPECT_EQ(e.name, "nx");
  EXPECT_THAT(e.detail, HasSubstr("dimension 'ny' is missing"));
  e = refused({{"kernel", "svcgrid"}, {"nx", "4k"}, {"ny", "1"}});
  EXPECT_THAT(e.detail, HasSubstr("'4k'"));
  e = refused({{"kernel", "svcgrid"}, {"problem", "nx=0,ny=1"}});
  EXPECT_EQ(e.name, "problem");
  EXPECT_THAT(e.detail, HasSubstr("nx"));
  e = refused({{"kernel", "svcgrid"}, {"problem", "nx=1,ny=1"}, {"nx", "1"}});
  EXPECT_EQ(e.name, "problem");
  EXPECT_THAT(e.detail, HasSubstr("problem=nx=4096,ny=4096"));
  e = refused({{"kernel", "svcgrid"}, {"m", "1"}, {"n", "1"}, {"k", "1"}, {"nx", "1"}});
  EXPECT_EQ(e.name, "m");
  e = refused({{"kernel", "svcgrid"}});
  EXPECT_EQ(e.name, "problem");
  EXPECT_THAT(e.detail, HasSubstr("required"));
  e = refused({{"kernel", "svcgrid"}, {"nx", "1"}, {"ny", "1"}, {"nz", "1"}});
  EXPECT_EQ(e.name, "nz");
  EXPECT_THAT(e.detail, HasSubstr("nx, ny"));
}

TEST(ServiceUserProblem, BuiltInFamiliesKeepMnk) {
  const auto r = best({{"kernel", "tiled_dynamic"}, {"m", "64"}, {"n", "32"}, {"k", "16"}});
  EXPECT_EQ(r.shape.str(), "64x32x16");
  EXPECT_EQ(refused({{"kernel", "tiled_dynamic"}, {"problem", "m=1,n=1,k=1"}}).name, "problem");
  EXPECT_EQ(refused({{"kernel", "tiled_dynamic"}, {"nx", "1"}}).name, "nx");
  EXPECT_EQ(refused({{"m", "1"}, {"n", "1"}}).name, "k");  // any family: m, n, k required
}

TEST(ServiceUserProblem, TheServerAnswersByNamesAndRefusesABadValueWith400) {
  ASSERT_TRUE(registered);
  testing::TempDir dir;
  const auto db = dir.path / "serve.db";
  {
    auto store = db::Store::open(db);
    testing::seed_run(store, testing::seed_device(kDevice), Shape{1024, 1024, 1024}, 0.25);
  }
  ServiceOptions options;
  options.db = db;
  testing::RunningService server(options);
  httplib::Client c("127.0.0.1", server.port());
  const std::string best = std::string("/v1/best?device=") + kDevice + "&kernel=svcgrid";
  auto r = c.Get((best + "&nx=4k&ny=1").c_str());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->body;
  const auto problem = nlohmann::json::parse(r->body);
  EXPECT_THAT(problem.dump(), HasSubstr("'4k'")) << r->body;
  // A well-formed problem, either way: the store has no svcgrid entry, so the offline heuristic
  // answers, for the problem named by its dimensions.
  for (const std::string query : {"&nx=512&ny=256", "&problem=nx%3D512%2Cny%3D256"}) {
    r = c.Get((best + query).c_str());
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << query << ": " << r->body;
    const auto body = nlohmann::json::parse(r->body);
    EXPECT_EQ(body["request"]["problem"], nlohmann::json({{"nx", 512}, {"ny", 256}})) << query;
    EXPECT_EQ(body["request"]["shape"], "512x256x1") << query;
    EXPECT_EQ(body["answered_by"], "heuristic") << query;
  }
}

}  // namespace
}  // namespace occtune::service
