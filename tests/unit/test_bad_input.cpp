// The catalogue of bad input (issue #5): every flag of the subcommands with bad values, job
// files (malformed TOML, unknown keys, wrong types, missing version), shapes, device selectors,
// environment variables and database paths. Each must end with one line on stderr that names the
// offending value and what to do, the documented exit code, nothing on stdout, and the database
// byte for byte as it was. Runs without a GPU: every case here is rejected before one is needed.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "autotuner/core/error.hpp"
#include "autotuner/core/job_config.hpp"
#include "autotuner/core/shape.hpp"
#include "db/store.hpp"
#include "tests/support/run_cli.hpp"

namespace occtune {
namespace {

namespace fs = std::filesystem;

struct Workspace {
  fs::path dir;
  fs::path db;         // a database with one run in it
  fs::path job;        // a valid job file (independent of the built-in default)
  std::string before;  // the database's bytes before any case ran

  Workspace() {
    dir = fs::temp_directory_path() /
          ("occtune_bad_input_" + std::to_string(::getpid()) + "_" + std::to_string(::rand()));
    fs::create_directories(dir);
    db = dir / "keep.db";
    {
      auto store = db::Store::open(db);
      DeviceInfo d;
      d.uuid = "GPU-11111111-2222-3333-4444-555555555555";
      d.name = "Test GPU";
      auto id = store.begin_run({d, "tiled_dynamic", "b1", "f32", Shape{8, 8, 8}, "t", {}, {}});
      store.finish_run(id, db::RunStatus::kComplete);
    }
    before = testing::slurp(db);
    job = write("ok.toml", "version = 1\n[job]\nkernels = [\"naive\"]\nshapes = [\"8x8x8\"]\n");
  }
  ~Workspace() {
    std::error_code ec;
    fs::permissions(dir / "readonly", fs::perms::owner_all, ec);
    fs::remove_all(dir, ec);
  }
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << text;
    return dir / name;
  }
};

struct Case {
  std::string args;     // shell words after `occtune`
  int code;             // documented exit code
  std::string mention;  // the offending value (or key) the message must name
  std::string env = "";
};

// Runs one case and checks the contract; `timeout` guards against a bad value that is accepted
// and starts something long (a server, a GPU run).
void expect_rejected(const Case& c, const Workspace& w) {
  SCOPED_TRACE("occtune " + c.args + (c.env.empty() ? "" : " [" + c.env + "]"));
  const auto r = testing::run_cli(c.args, "timeout 60 env " + c.env);
  EXPECT_EQ(r.code, c.code) << r.err;
  EXPECT_TRUE(r.out.empty()) << "stdout: " << r.out;
  // One line: the message and nothing else (no log lines, no usage dump, no stack).
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("occtune: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(c.mention), std::string::npos)
      << "does not name '" << c.mention << "': " << r.err;
  // "What was wrong; what to do": every message says how to go on (a fix after ';', or the
  // rule the value must meet).
  bool guides = false;
  for (const char* word : {";", " must ", " needs ", "expected", " use ", " pass ", "known"})
    guides |= r.err.find(word) != std::string::npos;
  EXPECT_TRUE(guides) << "no fix given: " << r.err;
  EXPECT_EQ(testing::slurp(w.db), w.before) << "the database changed";
}

void expect_all(const std::vector<Case>& cases, const Workspace& w) {
  for (auto& c : cases) expect_rejected(c, w);
}

TEST(BadInput, TuneFlags) {
  Workspace w;
  const std::string tune = "tune --config " + w.job.string() + " --db " + w.db.string() + " ";
  expect_all(
      {
          {tune + "--kernel nope", 2, "'nope'"},
          {tune + "--kernel ''", 2, "''"},
          {tune + "--format xml", 2, "'xml'"},
          {tune + "--samples many", 2, "many"},
          {tune + "--samples -5", 2, "-5"},
          {tune + "--samples 0", 2, "--samples"},
          {tune + "--samples 99999999999", 2, "99999999999"},
          {tune + "--warmup -1", 2, "-1"},
          {tune + "--warmup 1.5", 2, "1.5"},
          {tune + "--min-tile -1", 2, "--min-tile"},
          {tune + "--min-tile 0", 2, "--min-tile"},
          {tune + "--min-tile abc", 2, "abc"},
          {tune + "--candidate-timeout 0", 2, "--candidate-timeout"},
          {tune + "--candidate-timeout -3", 2, "-3"},
          {tune + "--candidate-timeout soon", 2, "soon"},
          {tune + "--candidate-timeout 1e9", 2, "--candidate-timeout"},
          {tune + "--min-seconds -1", 2, "--min-seconds"},
          {tune + "--target-noise 0", 2, "--target-noise"},
          {tune + "--max-seconds 0", 2, "--max-seconds"},
          {tune + "--max-samples 0", 2, "--max-samples"},
          {tune + "--max-samples 5 --samples 10", 2, "--max-samples"},
          {tune + "--batch 0", 2, "--batch"},
          {tune + "--flush-l2 maybe", 2, "maybe"},
          {tune + "--tolerance 2", 2, "--tolerance"},
          {tune + "--tolerance nan", 2, "--tolerance"},
          {tune + "--seed -1", 2, "-1"},
          {tune + "--seed x", 2, "x"},
          {tune + "--settle-ms -1", 2, "--settle-ms"},
          {tune + "--settle-timeout-ms 1 --settle-ms 50", 2, "--settle-timeout-ms"},
          {tune + "--throttle-ratio 2", 2, "--throttle-ratio"},
          {tune + "--throttle-retries -1", 2, "--throttle-retries"},
          {tune + "--strategy nope", 2, "'nope'"},
          {tune + "--screen-samples 0", 2, "--screen-samples"},
          {tune + "--drop-factor 0.5", 2, "--drop-factor"},
          {tune + "--finalists 0", 2, "--finalists"},
          {tune + "--confirm-samples -1", 2, "--confirm-samples"},
          {tune + "--tie-level 1", 2, "--tie-level"},
          {tune + "--time-budget -1", 2, "--time-budget"},
          {tune + "--max-candidates -1", 2, "--max-candidates"},
          {tune + "--frobnicate", 2, "--frobnicate"},
          {tune + "--shape", 2, "--shape"},
          {tune + "stray", 2, "stray"},
          {"frobnicate", 2, "frobnicate"},
      },
      w);
}

TEST(BadInput, Shapes) {
  Workspace w;
  const std::string tune = "tune --config " + w.job.string() + " --db " + w.db.string();
  for (std::string shape :
       {"0x1x1", "-5x1x1", "ax1x1", "99999999999x1x1", "1x1", "1x1x1x1", "1x1x+-5", "+-0x1x1",
        " 1x1x1", "1x1x1 ", "x", "xx", "1e3x1x1", "1.5x1x1", "0x10x1x1", "1,2,3"})
    expect_rejected({tune + " --shape '" + shape + "'", 2, "'" + shape + "'"}, w);
  expect_rejected({tune + " --shape ''", 2, "''"}, w);
  expect_rejected({"plan --profile h100 --shape 8x0x8", 2, "'8x0x8'"}, w);
  expect_rejected({"query --db " + w.db.string() + " --device GPU-1234 --shape 8x8", 2, "'8x8'"},
                  w);
}

TEST(BadInput, DeviceSelectors) {
  Workspace w;
  const std::string tune = "tune --config " + w.job.string() + " --db " + w.db.string();
  for (std::string sel : {"foo", "-1", "+1", "12345", "GPU-", "GPU-zz", "GPU-1234567-",
                          "GPU-12345678_", " 0", "0 ", "MIG-1234", "1.0"}) {
    expect_rejected({tune + " --device '" + sel + "'", 2, "'" + sel + "'"}, w);
    expect_rejected({"plan --device '" + sel + "'", 2, "'" + sel + "'"}, w);
  }
  expect_rejected({"query --db " + w.db.string() + " --shape 8x8x8 --device foo", 2, "'foo'"}, w);
  expect_rejected({tune, 2, "'bar'", "OCCTUNE_DEVICE=bar"}, w);
  const auto job = w.dir / "device.toml";
  std::ofstream(job) << "version = 1\n[job]\nshapes = [\"8x8x8\"]\ndevice = \"GPU-xyz\"\n";
  expect_rejected({"tune --config " + job.string() + " --db " + w.db.string(), 2, "'GPU-xyz'"}, w);
}

TEST(BadInput, JobFiles) {
  Workspace w;
  const std::vector<std::pair<std::string, std::string>> files = {
      {"version = 1\n[job\nkernels = []\n", "malformed TOML at line 2"},
      {"version = 1\nkernels = [\"naive\"\n", "malformed TOML"},
      {"\xff\xfe\x00garbage", "malformed TOML"},
      {"versoin = 1\n", "'versoin'"},
      {"version = 1\n[jobs]\n", "'jobs'"},
      {"version = 1\n[job]\nshapez = [\"8x8x8\"]\n", "'job.shapez'"},
      {"version = 1\n[measure]\nsamplez = 5\n", "'measure.samplez'"},
      {"version = 1\n[measure]\nsamples = \"20\"\n", "'measure.samples'"},
      {"version = 1\n[measure]\nsamples = 0\n", "'measure.samples'"},
      {"version = 1\n[measure]\nflush_l2 = 1\n", "'measure.flush_l2'"},
      {"version = 1\n[measure]\ntolerance = \"small\"\n", "'measure.tolerance'"},
      {"version = 1\n[measure]\nseed = -1\n", "'measure.seed'"},
      {"version = 1\n[measure]\ncandidate_timeout_s = 0\n", "'measure.candidate_timeout_s'"},
      {"version = 1\n[measure]\ncandidate_timeout_s = \"10\"\n", "'measure.candidate_timeout_s'"},
      {"version = 1\n[measure]\ncandidate_timeout_s = 1e12\n", "'measure.candidate_timeout_s'"},
      {"version = 1\n[job]\nkernels = \"naive\"\n", "'job.kernels'"},
      {"version = 1\n[job]\nkernels = [\"nope\"]\n", "'nope'"},
      {"version = 1\n[job]\nshapes = [\"0x8x8\"]\n", "'0x8x8'"},
      {"version = 1\n[job]\nshapes = [8]\n", "'job.shapes'"},
      {"version = 1\n[job]\nmin_tile = -2\n", "'job.min_tile'"},
      {"version = 1\n[job]\ndevice = 5\n", "'job.device'"},
      {"version = 1\n[job]\ndb = true\n", "'job.db'"},
      {"version = 1\njob = 3\n", "'job'"},
      {"[job]\nkernels = [\"naive\"]\n", "missing 'version'"},
      {"", "missing 'version'"},
      {"version = 2\n", "version"},
      {"version = \"1\"\n", "version"},
      // toml++ 3.3.0 reached undefined behaviour here (autotuner/core/toml.hpp).
      {"version = 1\ns = \"\"\"\\\n\xc2\xa7\"\"\"\n", "'s'"},
  };
  int i = 0;
  for (auto& [text, mention] : files) {
    const auto path = w.write("bad" + std::to_string(i++) + ".toml", text);
    expect_rejected({"tune --config " + path.string() + " --db " + w.db.string(), 2, mention}, w);
  }
  expect_rejected({"tune --config " + (w.dir / "missing.toml").string(), 2, "missing.toml"}, w);
  expect_rejected({"tune --config " + w.dir.string(), 2, w.dir.string()}, w);
  expect_rejected({"tune --db " + w.db.string(), 2, "nope.toml",
                   "OCCTUNE_CONFIG=" + (w.dir / "nope.toml").string()},
                  w);
}

TEST(BadInput, EnvironmentVariables) {
  Workspace w;
  const std::string tune = "tune --config " + w.job.string() + " --db " + w.db.string();
  expect_rejected({tune, 2, "OCCTUNE_CANDIDATE_TIMEOUT='abc'", "OCCTUNE_CANDIDATE_TIMEOUT=abc"}, w);
  expect_rejected({tune, 2, "OCCTUNE_CANDIDATE_TIMEOUT='-1'", "OCCTUNE_CANDIDATE_TIMEOUT=-1"}, w);
  expect_rejected({tune, 2, "OCCTUNE_CANDIDATE_TIMEOUT='0'", "OCCTUNE_CANDIDATE_TIMEOUT=0"}, w);
  expect_rejected(
      {"tune --config " + w.job.string(), 4, w.dir.string(), "OCCTUNE_DB=" + w.dir.string()}, w);
}

TEST(BadInput, OtherSubcommands) {
  Workspace w;
  const std::string db = " --db " + w.db.string();
  const auto profile = w.write("profile.toml", "version = 1\nprofile = \"x\"\n");
  expect_all(
      {
          {"devices --format xml", 2, "'xml'"},
          {"devices stray", 2, "stray"},
          {"plan", 2, "--profile"},
          {"plan --profile h100 --device 0", 2, "exactly one"},
          {"plan --profile nope", 2, "'nope'"},
          {"plan --profile " + profile.string(), 2, profile.string()},
          {"plan --profile " + (w.dir / "none.toml").string(), 2, "none.toml"},
          {"plan --profile h100 --kernel nope", 2, "'nope'"},
          {"plan --profile h100 --min-tile -1", 2, "--min-tile"},
          {"plan --profile h100 --format xml", 2, "'xml'"},
          {"query" + db + " --device GPU-1234", 2, "--shape"},
          {"query" + db + " --device GPU-1234 --shape 8x8x8 --kernel nope", 2, "'nope'"},
          {"query" + db + " --device GPU-1234 --shape 8x8x8 --format xml", 2, "'xml'"},
          {"serve" + db + " --port 70000", 2, "70000"},
          {"serve" + db + " --port -1", 2, "-1"},
          {"serve" + db + " --port http", 2, "http"},
          {"serve" + db + " --threads 0", 2, "--threads"},
          {"serve" + db + " --queue -1", 2, "--queue"},
          {"compare " + w.job.string(), 2, "NEW"},
          {"compare " + (w.dir / "a.json").string() + " " + (w.dir / "b.json").string(), 2,
           "a.json"},
          {"compare " + w.job.string() + " " + w.job.string(), 2, w.job.string()},
          {"import" + db, 2, "FILE"},
          {"import " + (w.dir / "none.json").string() + db, 2, "none.json"},
          {"import " + w.job.string() + db, 2, w.job.string()},
      },
      w);
}

TEST(BadInput, PlantedFaultsAreHiddenWithoutTheTestSwitch) {
  Workspace w;
  expect_rejected({"tune --kernel planted_faults --shape 8x8x8 --db " + w.db.string(), 2,
                   "'planted_faults'", "OCCTUNE_TEST_KERNELS="},
                  w);
  const auto r =
      testing::run_cli("plan --profile h100 --kernel planted_faults", "OCCTUNE_TEST_KERNELS=1");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("fault=6"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exceeds_limits"), std::string::npos) << r.out;  // fault=2, before launch
}

// Found by the fuzzers (tests/fuzz/regressions): a message that quotes the input is still one
// line, whatever bytes the input holds, and a sign after '+' is no number.
TEST(BadInput, MessagesStayOneLineWhateverTheInput) {
  EXPECT_STREQ(Error(ExitCode::kUsage, "a\nb\r\x01").what(), "a\\nb\\r\\x01");
  auto message = [](auto&& parse) -> std::string {
    try {
      parse();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage);
      return e.what();
    }
    ADD_FAILURE() << "accepted";
    return "";
  };
  for (const std::string& text : {std::string("524x\n\0-24x", 9), std::string("8x8\nx8")}) {
    const auto m = message([&] { parse_shape(text); });
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_EQ(m.find('\0'), std::string::npos) << m;
  }
  const auto toml =
      message([] { parse_job_config("version = 1\n[measure]\nflush_l2 = f\n", "x"); });
  EXPECT_EQ(toml.find('\n'), std::string::npos) << toml;
  EXPECT_NE(toml.find("line 3"), std::string::npos) << toml;
  EXPECT_NE(message([] { parse_shape("1X+1X+-052772405"); }).find("'-052772405'"),
            std::string::npos);
}

// Database paths: the store decides the code (4: cannot be used as a database at all, 3: an
// incompatible one); the message names the path, and the file or directory is left as it was.
TEST(BadInput, DatabasePaths) {
  Workspace w;
  const std::string run = "tune --config " + w.job.string() + " --db ";
  const auto text = w.write("notes.db", "not a database\n");
  expect_rejected({run + text.string(), 4, text.string()}, w);
  EXPECT_EQ(testing::slurp(text), "not a database\n");
  expect_rejected({run + w.dir.string(), 4, w.dir.string()}, w);
  // A parent that is a regular file can never be created, even by root.
  expect_rejected({run + (text / "x.db").string(), 4, (text / "x.db").string()}, w);
  expect_rejected({run + "/proc/occtune-none/x.db", 4, "/proc/occtune-none/x.db"}, w);
  expect_rejected(
      {"query --db " + text.string() + " --device GPU-1234 --shape 8x8x8", 4, text.string()}, w);
  expect_rejected({"export --db " + (w.dir / "none.db").string(), 3, "none.db"}, w);
  EXPECT_FALSE(fs::exists(w.dir / "none.db"));

  if (::geteuid() != 0) {  // root ignores directory permissions
    const auto ro = w.dir / "readonly";
    fs::create_directories(ro);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
    expect_rejected({run + (ro / "x.db").string(), 4, (ro / "x.db").string()}, w);
  }

  // A new store and its missing directories are created only once the GPU is there (issue
  // #16): the selector names no GPU, so this ends before, with or without a GPU on the machine
  // (2 or 4), and leaves nothing behind.
  const auto nested = w.dir / "new" / "sub" / "x.db";
  const auto r = testing::run_cli(run + nested.string() + " --device GPU-00000000-0000");
  EXPECT_TRUE(r.code == 2 || r.code == 4) << r.err;
  EXPECT_FALSE(fs::exists(w.dir / "new")) << r.err;
}

// Issue #16, "bad input that is unclear": each of these was silently accepted, answered with a
// misleading message, or touched a file before the input was checked.
TEST(BadInput, UnclearCasesOfIssue16) {
  Workspace w;
  const std::string db = " --db " + w.db.string();
  const std::string missing = (w.dir / "missing.db").string();
  const std::string long_value(100000, 'x');
  expect_all(
      {
          {"query --shape 8x8x8" + db, 2, "OCCTUNE_LOG_LEVEL='DEBUGX'", "OCCTUNE_LOG_LEVEL=DEBUGX"},
          {"query --shape 8x8x8" + db, 2, "OCCTUNE_LOG_LEVEL", "OCCTUNE_LOG_LEVEL="},
          // Input before I/O: the selector is named, not the missing database.
          {"query --device not-a-uuid --shape 8x8x8 --db " + missing, 2, "not-a-uuid"},
          // Empty values are errors, not defaults.
          {"query --db '' --shape 8x8x8", 2, "--db"},
          {"query --device '' --shape 8x8x8" + db, 2, "--device"},
          {"tune --config ''" + db, 2, "--config"},
          {"query --shape 8x8x8", 2, "OCCTUNE_DB", "OCCTUNE_DB="},
          {"check --runners-up -1" + db, 2, "-1"},
          {"serve --port 0x50" + db, 2, "0x50"},
          {"tune --samples abc" + db, 2, "'abc'"},
          {"db frobnicate", 2, "frobnicate"},
          {"plan --profile a100 --profile h100", 2, "--profile was given 2 times"},
          {"plan --profile " + (w.dir / "missing.toml").string(), 2, "does not exist"},
          {"serve --bind 999.1.1.1" + db, 2, "999.1.1.1"},
          // A value from the environment: the message names the variable.
          {"query --shape 8x8x8" + db, 2, "(from OCCTUNE_DEVICE)", "OCCTUNE_DEVICE=not-a-uuid"},
          {"tune" + db, 2, "(from OCCTUNE_CONFIG)",
           "OCCTUNE_CONFIG=" + (w.dir / "absent.toml").string()},
      },
      w);
  EXPECT_FALSE(fs::exists(missing));

  // A 100,000-character value is cut, once, and the fix at the end survives.
  const auto r = testing::run_cli("query --shape " + long_value + db);
  EXPECT_EQ(r.code, 2) << r.err.substr(0, 300);
  EXPECT_LT(r.err.size(), 1000u);
  EXPECT_NE(r.err.find("bytes cut"), std::string::npos) << r.err;

  // Level names in any case are accepted.
  EXPECT_NE(testing::run_cli("query --shape 8x8x8" + db, "OCCTUNE_LOG_LEVEL=Warning").code, 2);
  // A UUID prefix is resolved against the store: the device is found (no "no entries"), the
  // lookup then misses (that run has no correct result).
  const auto prefix = testing::run_cli("query --device gpu-11111111 --shape 8x8x8" + db);
  EXPECT_EQ(prefix.code, 3) << prefix.err;
  EXPECT_EQ(prefix.err.find("has no entries"), std::string::npos) << prefix.err;
  EXPECT_EQ(testing::slurp(w.db), w.before);
}

TEST(BadInput, NoGpuCreatesNothingAndJsonSaysSo) {
  if (testing::gpu_visible()) GTEST_SKIP() << "a GPU is visible: these cases would run for real";
  Workspace w;
  const fs::path fresh = w.dir / "new" / "occtune.db";
  const auto tune = testing::run_cli("tune --shape 64x64x64 --db " + fresh.string());
  EXPECT_EQ(tune.code, 4) << tune.err;
  EXPECT_FALSE(fs::exists(fresh.parent_path())) << "a failed tune created the store";
  const auto devices = testing::run_cli("devices --format json");
  EXPECT_EQ(devices.code, 4);
  const auto doc = nlohmann::json::parse(devices.out);
  EXPECT_EQ(doc.at("kind"), "devices");
  EXPECT_TRUE(doc.at("devices").empty());
  EXPECT_NE(doc.at("error").get<std::string>().find("no CUDA device"), std::string::npos);
}

}  // namespace
}  // namespace occtune
