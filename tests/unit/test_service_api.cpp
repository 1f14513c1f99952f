// The query service as clients see it: the real server on an ephemeral loopback port, every
// route, every error path, the Host and method rules, metrics, and every response checked
// against docs/openapi.json (status, content type, schema).
#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "autotuner/output/json_output.hpp"
#include "db/exchange.hpp"
#include "db/store.hpp"
#include "tests/support/openapi_check.hpp"
#include "tests/support/seed_store.hpp"
#include "tests/support/service_harness.hpp"

namespace occtune::testing {
namespace {

using nlohmann::json;

constexpr const char* kA = "GPU-aaaaaaaa-0000-4000-8000-000000000001";  // H100, tuned 1024^3
constexpr const char* kB = "GPU-bbbbbbbb-0000-4000-8000-000000000002";  // H100, tuned 2048^3
constexpr const char* kC = "GPU-cccccccc-0000-4000-8000-000000000003";  // H200 (9.0), 4096^3
constexpr const char* kUnknown = "GPU-dddddddd-0000-4000-8000-000000000004";
// An H100 whose only run failed: its properties are stored, but it has no entry at any shape.
constexpr const char* kUntuned = "GPU-eeeeeeee-0000-4000-8000-000000000005";

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ServiceApi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    db_ = dir_->path / "serve.db";
    auto store = db::Store::open(db_);
    seed_run(store, seed_device(kA), Shape{1024, 1024, 1024}, 0.25);
    seed_run(store, seed_device(kB), Shape{2048, 2048, 2048}, 2.0);
    seed_run(store, seed_device(kC, "NVIDIA H200"), Shape{4096, 4096, 4096}, 16.0);
    seed_run(store, seed_device(kUntuned), Shape{512, 512, 512}, 1.0, db::RunStatus::kFailed);
    service::ServiceOptions options;
    options.db = db_;
    options.threads = 4;
    server_ = new RunningService(options);
    openapi_ = new OpenApiCheck(
        json::parse(read_file(std::filesystem::path(OCCTUNE_SOURCE_DIR) / "docs/openapi.json")));
  }
  static void TearDownTestSuite() {
    delete server_;
    delete openapi_;
    delete dir_;
  }

  httplib::Client client() const {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(10, 0);
    return c;
  }

  // GET through httplib's client, checked against the OpenAPI document.
  httplib::Result get(const std::string& path, const std::string& query = "") const {
    auto c = client();
    auto r = c.Get((path + (query.empty() ? "" : "?" + query)).c_str());
    EXPECT_TRUE(r) << path << "?" << query;
    if (r) conforms(path, "GET", *r);
    return r;
  }

  void conforms(const std::string& path, const std::string& method,
                const httplib::Response& r) const {
    const std::string finding =
        openapi_->check(path, method, r.status, r.get_header_value("Content-Type"), r.body);
    EXPECT_EQ(finding, "") << method << " " << path << " -> " << r.status << "\n" << r.body;
  }

  static json problem(const httplib::Result& r, int status) {
    EXPECT_EQ(r->status, status) << r->body;
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/problem+json");
    json j = json::parse(r->body);
    EXPECT_EQ(j["status"], status);
    return j;
  }

  // A raw request; the response as text.
  std::string raw(const std::string& request) const {
    RawConnection c(server_->port());
    EXPECT_TRUE(c.connected());
    c.send(request);
    return c.read_response();
  }

  static std::string best_query(const std::string& device, const std::string& shape_m,
                                const std::string& extra = "") {
    return "device=" + device + "&kernel=tiled_dynamic&m=" + shape_m + "&n=" + shape_m +
           "&k=" + shape_m + extra;
  }

  static inline TempDir* dir_ = nullptr;
  static inline std::filesystem::path db_;
  static inline RunningService* server_ = nullptr;
  static inline OpenApiCheck* openapi_ = nullptr;
};

TEST_F(ServiceApi, HealthzAnswersOk) {
  auto r = get("/healthz");
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(json::parse(r->body)["status"], "ok");
  EXPECT_EQ(r->get_header_value("Cache-Control"), "no-store");
}

TEST_F(ServiceApi, DevicesListsEveryDeviceOfTheStore) {
  auto r = get("/v1/devices");
  ASSERT_EQ(r->status, 200);
  json j = json::parse(r->body);
  EXPECT_EQ(j["kind"], "devices");
  std::set<std::string> uuids;
  for (auto& d : j["devices"]) uuids.insert(d["uuid"]);
  EXPECT_EQ(uuids, (std::set<std::string>{kA, kB, kC, kUntuned}));
}

TEST_F(ServiceApi, BestAnswersTheExactKey) {
  auto r = get("/v1/best", best_query(kA, "1024"));
  ASSERT_EQ(r->status, 200) << r->body;
  json j = json::parse(r->body);
  EXPECT_EQ(j["answered_by"], "exact");
  EXPECT_EQ(j["measured"], true);
  EXPECT_EQ(j["config"]["tile"], 16);  // the faster of the two seeded candidates
  EXPECT_EQ(j["config"]["threads"], 256);
  EXPECT_EQ(j["entry"]["run"]["device"]["uuid"], kA);
  EXPECT_EQ(j["chain"][0]["result"], "hit");
  EXPECT_EQ(j["chain"][1]["result"], "not_tried");
}

// One field, one name: the measurement the service answers with, the same measurement in an
// export of the store, and the same measurement as `tune --format json` printed it when the
// engine measured it are one encoding (row ids aside: only the store has them). Fails when any
// of the three encoders diverges from the model's codec.
TEST_F(ServiceApi, TuneExportAndTheServiceEncodeAMeasurementAlike) {
  auto r = get("/v1/best", best_query(kA, "1024"));
  ASSERT_EQ(r->status, 200) << r->body;
  const json body = json::parse(r->body);
  json served = body["entry"]["best"];
  ASSERT_TRUE(served["id"].is_number()) << served;

  auto store = db::Store::open(db_);
  const json doc = json::parse(db::export_runs(store, {"t", {}}).json);
  json exported;
  for (auto& run : doc["runs"])
    if (run["device"]["uuid"] == kA)
      for (auto& m : run["measurements"])
        if (m["id"] == served["id"]) exported = m;
  ASSERT_TRUE(exported.is_object()) << "the served measurement is not in the export";

  // What seed_run stored for kA's winner, as the engine handed it over.
  json tuned = output::to_json(seed_measurement(16, 0.25, Shape{1024, 1024, 1024}));
  for (json* j : {&served, &exported, &tuned}) {
    j->erase("id");
    j->erase("run_id");
  }
  EXPECT_EQ(served, exported);
  EXPECT_EQ(served, tuned);
  EXPECT_EQ(served["outcome"], "ok");
  // The launch configuration the service answers is the measurement's, under the same names.
  for (auto& [name, value] : body["config"].items()) EXPECT_EQ(served.at(name), value) << name;
  // The entry's run is the export's run.
  json run = body["entry"]["run"];
  for (auto& e : doc["runs"])
    if (e["id"] == run["id"]) {
      json exported_run = e;
      exported_run.erase("measurements");
      EXPECT_EQ(run, exported_run);
    }
}

TEST_F(ServiceApi, BestFallsBackToTheSameModel) {
  auto r = get("/v1/best", best_query(kA, "2048"));
  ASSERT_EQ(r->status, 200) << r->body;
  json j = json::parse(r->body);
  EXPECT_EQ(j["answered_by"], "same_model");
  EXPECT_EQ(j["entry"]["run"]["device"]["uuid"], kB);
  EXPECT_EQ(j["chain"][0]["result"], "miss");
  EXPECT_EQ(j["device"]["uuid"], kA);
}

TEST_F(ServiceApi, BestFallsBackToTheSameArchitecture) {
  auto r = get("/v1/best", best_query(kA, "4096"));
  ASSERT_EQ(r->status, 200) << r->body;
  json j = json::parse(r->body);
  EXPECT_EQ(j["answered_by"], "same_architecture");
  EXPECT_EQ(j["entry"]["run"]["device"]["uuid"], kC);
  EXPECT_EQ(j["chain"][1]["result"], "miss");
}

TEST_F(ServiceApi, AnotherShapeOfTheSameDeviceAnswersBeforeTheHeuristic) {
  auto r = get("/v1/best", "device=" + std::string(kA) + "&kernel=tiled_dynamic&m=100&n=300&k=7");
  ASSERT_EQ(r->status, 200) << r->body;
  json j = json::parse(r->body);
  EXPECT_EQ(j["answered_by"], "nearest_shape");
  EXPECT_EQ(j["measured"], true);
  EXPECT_EQ(j["measured_shape"], "1024x1024x1024");
  EXPECT_GT(j["shape_distance"].get<double>(), 0.0);
  // No kernel named: the fastest family's entry; here only tiled_dynamic has any.
  r = get("/v1/best", "device=" + std::string(kA) + "&m=1024&n=1024&k=1024");
  ASSERT_EQ(r->status, 200) << r->body;
  j = json::parse(r->body);
  EXPECT_EQ(j["answered_by"], "exact");
  EXPECT_EQ(j["config"]["family"], "tiled_dynamic");
  EXPECT_TRUE(j["request"]["kernel"].is_null());
}

TEST_F(ServiceApi, BestEndsWithTheUnmeasuredOccupancyHeuristic) {
  auto r = get("/v1/best", "device=" + std::string(kUntuned) + "&kernel=tiled_dynamic&m=100&n=300&k=7");
  ASSERT_EQ(r->status, 200) << r->body;
  json j = json::parse(r->body);
  EXPECT_EQ(j["answered_by"], "heuristic");
  EXPECT_EQ(j["measured"], false);
  EXPECT_TRUE(j["entry"].is_null());
  // The textbook method on an H100 picks 1024 threads: tile 32.
  EXPECT_EQ(j["config"]["threads"], 1024);
  EXPECT_EQ(j["config"]["tile"], 32);
  EXPECT_NE(j["chain"][4]["detail"].get<std::string>().find("not measured"), std::string::npos);
}

TEST_F(ServiceApi, WithoutFallbackAMissIsA404ThatExplainsTheChain) {
  auto r = get("/v1/best", best_query(kA, "2048", "&fallback=false"));
  json j = problem(r, 404);
  EXPECT_EQ(j["type"], "urn:occtune:problem:no-configuration");
  ASSERT_EQ(j["chain"].size(), 5u);
  EXPECT_EQ(j["chain"][0]["result"], "miss");
  EXPECT_EQ(j["chain"][1]["result"], "not_tried");
}

TEST_F(ServiceApi, UnknownDeviceIsA404) {
  json j = problem(get("/v1/best", best_query(kUnknown, "1024")), 404);
  EXPECT_EQ(j["type"], "urn:occtune:problem:unknown-device");
}

TEST_F(ServiceApi, UppercaseUuidsAreTheSameDevice) {
  std::string upper = kA;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  auto r = get("/v1/best", best_query(upper, "1024"));
  EXPECT_EQ(r->status, 200) << r->body;
}

TEST_F(ServiceApi, EveryBadParameterIsA400NamingIt) {
  const std::string a = kA;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"kernel=tiled_dynamic&m=1&n=1&k=1", "device"},
      {"device=GPU-123&kernel=tiled_dynamic&m=1&n=1&k=1", "device"},
      {"device=" + a.substr(0, a.size() - 1) + "g&kernel=tiled_dynamic&m=1&n=1&k=1", "device"},
      {"device=" + a + "&kernel=nope&m=1&n=1&k=1", "kernel"},
      {"device=" + a + "&kernel=tiled_dynamic&n=1&k=1", "m"},
      {"device=" + a + "&kernel=tiled_dynamic&m=0&n=1&k=1", "m"},
      {"device=" + a + "&kernel=tiled_dynamic&m=-5&n=1&k=1", "m"},
      {"device=" + a + "&kernel=tiled_dynamic&m=1&n=abc&k=1", "n"},
      {"device=" + a + "&kernel=tiled_dynamic&m=1&n=1&k=2147483648", "k"},
      {"device=" + a + "&kernel=tiled_dynamic&m=1&n=1&k=99999999999999999999999", "k"},
      {"device=" + a + "&kernel=tiled_dynamic&m=1&n=1&k=012", "k"},
      {"device=" + a + "&kernel=tiled_dynamic&m=1&n=1&k=1%00", "k"},
      {"device=" + a + "&kernel=tiled_dynamic&m=1&n=1&k=1&dtype=f64", "dtype"},
      {"device=" + a + "&kernel=tiled_dynamic&m=1&n=1&k=1&fallback=yes", "fallback"},
      {"device=" + a + "&kernel=tiled_dynamic&m=1&n=1&k=1&layout=NT", "layout"},
      {"device=" + a + "&kernel=tiled_dynamic&m=1&n=1&k=1&layout=cn", "layout"},
      {"device=" + a + "&kernel=tiled_dynamic&m=1&n=1&k=1&colour=red", "colour"},
      {"device=" + a + "&kernel=tiled_dynamic&m=1&m=2&n=1&k=1", "m"},
  };
  for (auto& [query, parameter] : cases) {
    auto r = get("/v1/best", query);
    ASSERT_TRUE(r);
    json j = problem(r, 400);
    EXPECT_EQ(j["type"], "urn:occtune:problem:bad-parameter") << query;
    EXPECT_EQ(j["parameter"], parameter) << query;
  }
  for (auto& [route, query, parameter] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"/v1/configs", "limit=0", "limit"},
           {"/v1/configs", "limit=501", "limit"},
           {"/v1/configs", "cursor=x", "cursor"},
           {"/v1/configs", "device=nope", "device"},
           {"/v1/configs", "layout=xx", "layout"},
           {"/v1/devices", "all=1", "all"},
           {"/healthz", "x=1", "x"},
           {"/metrics", "name[]=1", "name[]"},
       }) {
    json j = problem(get(route, query), 400);
    EXPECT_EQ(j["parameter"], parameter) << route << "?" << query;
  }
}

TEST_F(ServiceApi, ProblemsNeverCarryInternalText) {
  auto r = get("/v1/best",
               "device=" + std::string(kA) + "&kernel=%27%3B%20DROP%20TABLE%20runs&m=1&n=1&k=1");
  json j = problem(r, 400);
  const std::string body = r->body;
  for (const char* leak : {"SQLITE", "sqlite", "SELECT", "std::", "what()"})
    EXPECT_EQ(body.find(leak), std::string::npos) << body;
}

TEST_F(ServiceApi, ConfigsPagesThroughEveryEntryOnce) {
  std::vector<std::string> seen;
  std::string query = "limit=1";
  for (int page = 0; page < 10; ++page) {
    auto r = get("/v1/configs", query);
    ASSERT_EQ(r->status, 200) << r->body;
    json j = json::parse(r->body);
    for (auto& e : j["entries"]) seen.push_back(e["run"]["device"]["uuid"]);
    if (j["next_cursor"].is_null()) break;
    query = "limit=1&cursor=" + std::to_string(j["next_cursor"].get<long long>());
  }
  EXPECT_EQ(seen, (std::vector<std::string>{kC, kB, kA}));  // newest run first

  json only_b = json::parse(get("/v1/configs", "device=" + std::string(kB))->body);
  ASSERT_EQ(only_b["entries"].size(), 1u);
  EXPECT_EQ(only_b["entries"][0]["run"]["m"], 2048);
  EXPECT_TRUE(only_b["next_cursor"].is_null());
  EXPECT_EQ(json::parse(get("/v1/configs", "kernel=naive")->body)["entries"].size(), 0u);
  // Every seeded entry is nn: a layout filter keeps them or none.
  EXPECT_EQ(json::parse(get("/v1/configs", "layout=nn")->body)["entries"].size(), 3u);
  EXPECT_EQ(json::parse(get("/v1/configs", "layout=tn")->body)["entries"].size(), 0u);
}

// The layout is part of the key: the seeded nn entry answers layout=nn (the default) exactly,
// and a tn query of the same shape finds no measured entry, only the occupancy heuristic.
TEST_F(ServiceApi, BestKeysByLayout) {
  json nn = json::parse(get("/v1/best", best_query(kA, "1024", "&layout=nn"))->body);
  EXPECT_EQ(nn["answered_by"], "exact");
  EXPECT_EQ(nn["request"]["layout"], "nn");
  EXPECT_EQ(nn["entry"]["run"]["layout"], "nn");
  auto r = get("/v1/best", best_query(kA, "1024", "&layout=tn"));
  ASSERT_EQ(r->status, 200) << r->body;
  json tn = json::parse(r->body);
  EXPECT_EQ(tn["answered_by"], "heuristic");
  EXPECT_EQ(tn["request"]["layout"], "tn");
  EXPECT_EQ(tn["chain"][0]["result"], "miss");
  json exact_only = problem(get("/v1/best", best_query(kA, "1024", "&layout=tt&fallback=false")),
                            404);
  EXPECT_NE(exact_only["detail"].get<std::string>().find("(layout tt)"), std::string::npos);
}

TEST_F(ServiceApi, OpenApiIsServedAsKeptInTheRepository) {
  auto r = get("/openapi.json");
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(r->body, read_file(std::filesystem::path(OCCTUNE_SOURCE_DIR) / "docs/openapi.json"));
  EXPECT_EQ(json::parse(r->body)["openapi"], "3.1.0");
}

TEST_F(ServiceApi, MetricsCountRequestsLookupsAndBuild) {
  get("/v1/best", best_query(kA, "1024"));
  get("/v1/best", best_query(kA, "2048"));
  get("/nowhere");
  auto r = get("/metrics");
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string& m = r->body;
  for (const char* expected :
       {"# TYPE occtune_http_requests_total counter",
        "occtune_http_requests_total{route=\"/v1/best\",status=\"200\"}",
        "occtune_http_requests_total{route=\"other\",status=\"404\"}",
        "# TYPE occtune_http_request_duration_seconds histogram",
        "occtune_http_request_duration_seconds_bucket{route=\"/v1/best\",le=\"+Inf\"}",
        "occtune_http_request_duration_seconds_count{route=\"/v1/best\"}",
        "occtune_lookup_steps_total{step=\"exact\",result=\"hit\"}",
        "occtune_lookup_steps_total{step=\"same_model\",result=\"hit\"}",
        "occtune_build_info{version=\"test\",kernel_build_id=\"", "occtune_workers 4"})
    EXPECT_NE(m.find(expected), std::string::npos) << expected << "\n" << m;
  // Every sample line is `name{labels} value` or `name value` with a numeric value.
  std::istringstream lines(m);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.rfind(' ');
    ASSERT_NE(space, std::string::npos) << line;
    EXPECT_NO_THROW((void)std::stod(line.substr(space + 1))) << line;
  }
}

TEST_F(ServiceApi, HeadAnswersLikeGetWithoutABody) {
  auto c = client();
  auto get_r = c.Get(("/v1/best?" + best_query(kA, "1024")).c_str());
  auto head_r = c.Head(("/v1/best?" + best_query(kA, "1024")).c_str());
  ASSERT_TRUE(get_r && head_r);
  EXPECT_EQ(head_r->status, 200);
  EXPECT_TRUE(head_r->body.empty());
  EXPECT_EQ(head_r->get_header_value("Content-Length"), std::to_string(get_r->body.size()));
  conforms("/v1/best", "HEAD", *head_r);
}

TEST_F(ServiceApi, UnknownPathsAre404Problems) {
  for (const char* path : {"/", "/v1", "/v1/best/", "/v2/best", "/v1/BEST", "/../etc/passwd"}) {
    json j = problem(get(path), 404);
    EXPECT_EQ(j["type"], "urn:occtune:problem:not-found") << path;
  }
}

TEST_F(ServiceApi, OtherMethodsAre405WithAllow) {
  auto c = client();
  std::vector<httplib::Result> results;
  results.push_back(c.Post("/v1/best", "", "text/plain"));
  results.push_back(c.Put("/v1/best", "", "text/plain"));
  results.push_back(c.Patch("/v1/devices", "", "text/plain"));
  results.push_back(c.Delete("/v1/configs"));
  results.push_back(c.Options("/healthz"));
  for (auto& r : results) {
    ASSERT_TRUE(r);
    json j = problem(r, 405);
    EXPECT_EQ(r->get_header_value("Allow"), "GET, HEAD");
    EXPECT_EQ(j["type"], "urn:occtune:problem:method-not-allowed");
    conforms("/v1/best", "POST", *r);
  }
  // Methods httplib's parser does not know are 405 too, not a parse error.
  for (const char* method : {"TRACE", "CONNECT", "BREW", "PROPFIND"}) {
    const std::string r =
        raw(std::string(method) + " /v1/devices HTTP/1.1\r\nHost: " + server_->host() + "\r\n\r\n");
    EXPECT_EQ(status_of(r), 405) << method << "\n" << r;
    EXPECT_EQ(header_of(r, "Allow"), "GET, HEAD") << method;
  }
}

TEST_F(ServiceApi, HostMustNameTheBoundAddress) {
  const std::string port = std::to_string(server_->port());
  auto with_host = [&](const std::string& host_lines) {
    return raw("GET /healthz HTTP/1.1\r\n" + host_lines + "\r\n");
  };
  EXPECT_EQ(status_of(with_host("Host: 127.0.0.1:" + port + "\r\n")), 200);
  EXPECT_EQ(status_of(with_host("Host: localhost:" + port + "\r\n")), 200);
  EXPECT_EQ(status_of(with_host("Host: LOCALHOST:" + port + "\r\n")), 200);
  for (const std::string& bad :
       std::vector<std::string>{"evil.example:" + port, "evil.example", "127.0.0.1", "127.0.0.1:1",
                                "localhost:" + port + "0", "127.0.0.1.nip.io:" + port,
                                "[::1]:" + port, "127.0.0.1:" + port + ":" + port}) {
    const std::string r = with_host("Host: " + bad + "\r\n");
    EXPECT_EQ(status_of(r), 421) << bad << "\n" << r;
    EXPECT_NE(body_of(r).find("misdirected-request"), std::string::npos);
  }
  EXPECT_EQ(status_of(with_host("")), 400);  // HTTP/1.1 without Host
  EXPECT_EQ(status_of(with_host("Host: 127.0.0.1:" + port + "\r\nHost: evil.example\r\n")), 400);
  // The rule holds for every route, before parameters are looked at.
  EXPECT_EQ(status_of(raw("GET /v1/best?junk HTTP/1.1\r\nHost: evil.example\r\n\r\n")), 421);
}

TEST_F(ServiceApi, BodiesAreRefusedUnreadAndTheConnectionCloses) {
  const std::string host = "Host: " + server_->host() + "\r\n";
  {
    RawConnection c(server_->port());
    // The "body" is a complete second request: it must not be answered.
    c.send("GET /healthz HTTP/1.1\r\n" + host + "Content-Length: 40\r\n\r\n" +
           "GET /healthz HTTP/1.1\r\n" + host + "\r\n");
    const std::string r = c.read_response();
    EXPECT_EQ(status_of(r), 413) << r;
    EXPECT_EQ(header_of(r, "Connection"), "close");
    EXPECT_EQ(header_of(r, "Keep-Alive"), "");
    EXPECT_TRUE(c.closed_by_server());
  }
  {
    RawConnection c(server_->port());
    c.send("GET /healthz HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n" +
           "5\r\nhello\r\n0\r\n\r\n");
    const std::string r = c.read_response();
    EXPECT_EQ(status_of(r), 413) << r;
    EXPECT_TRUE(c.closed_by_server());
  }
  {
    RawConnection c(server_->port());
    c.send("GET /healthz HTTP/1.1\r\n" + host +
           "Content-Length: 5\r\nExpect: 100-continue\r\n\r\n");
    const std::string r = c.read_response();
    EXPECT_EQ(status_of(r), 417) << r;
    EXPECT_EQ(r.find("100 Continue"), std::string::npos);
    EXPECT_TRUE(c.closed_by_server());
  }
  // Content-Length: 0 is no body.
  EXPECT_EQ(status_of(raw("GET /healthz HTTP/1.1\r\n" + host + "Content-Length: 0\r\n\r\n")), 200);
}

TEST_F(ServiceApi, KeepAliveServesManyRequestsOnOneConnection) {
  RawConnection c(server_->port());
  const std::string request = "GET /v1/best?" + best_query(kA, "1024") +
                              " HTTP/1.1\r\nHost: " + server_->host() + "\r\n\r\n";
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(c.send(request));
    const std::string r = c.read_response();
    ASSERT_EQ(status_of(r), 200) << i << "\n" << r;
    EXPECT_EQ(json::parse(body_of(r))["answered_by"], "exact");
  }
  // Pipelined: three requests in one write, three answers in order.
  ASSERT_TRUE(
      c.send(request + "GET /healthz HTTP/1.1\r\nHost: " + server_->host() + "\r\n\r\n" + request));
  EXPECT_EQ(json::parse(body_of(c.read_response()))["answered_by"], "exact");
  EXPECT_EQ(json::parse(body_of(c.read_response()))["status"], "ok");
  EXPECT_EQ(json::parse(body_of(c.read_response()))["answered_by"], "exact");
}

TEST_F(ServiceApi, ErrorResponsesOfTheTransportConformToo) {
  const std::string host = "Host: " + server_->host() + "\r\n";
  const std::vector<std::pair<std::string, int>> cases = {
      {"GET /v1/best HTTP/1.1\r\nHost: evil\r\n\r\n", 421},
      {"GET /v1/best HTTP/1.1\r\n" + host + "Content-Length: 3\r\n\r\nabc", 413},
      {"GET /v1/best?" + std::string(3000, 'a') + " HTTP/1.1\r\n" + host + "\r\n", 414},
      {"POST /v1/best HTTP/1.1\r\n" + host + "\r\n", 405},
  };
  for (auto& [request, status] : cases) {
    const std::string r = raw(request);
    ASSERT_EQ(status_of(r), status) << r;
    EXPECT_EQ(openapi_->check("/v1/best", "GET", status, header_of(r, "Content-Type"), body_of(r)),
              "")
        << r;
  }
}

}  // namespace
}  // namespace occtune::testing
