// Stores that are not plain writable files (issue #16, defects 5 and 7): a read-only store (file
// 0444 in a directory 0555) is readable by every reading command; a FIFO as --db is refused at
// once instead of hanging; `db doctor --repair` through a symlink repairs the target; a schema
// version of -5 is not "healthy".
//
// Permission bits do not stop root, and CI runs as root, so the read-only case runs the CLI as
// an unprivileged user: `setpriv --reuid=65534` (nobody) when the test runs as root, directly
// otherwise. The decision itself (immutable or not) is also tested as a function.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "db/read_access.hpp"
#include "db/store.hpp"
#include "kernels/kernel_manifest.hpp"
#include "tests/support/run_cli.hpp"
#include "tests/support/seed_store.hpp"
#include "tests/support/store_builders.hpp"

namespace occtune {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;
using testing::TempDir;

constexpr const char* kUuid = "GPU-5eed0000-0000-4000-8000-000000000000";

void seed(const fs::path& path) {
  auto store = db::Store::open(path);
  testing::seed_run(store, testing::seed_device(kUuid), {256, 256, 256}, 0.1);
}

TEST(StoreAccess, ImmutableOnlyWhereNoWriterCanExist) {
  EXPECT_TRUE(db::open_immutable(/*directory_writable=*/false, /*wal_exists=*/false));
  EXPECT_FALSE(db::open_immutable(true, false));  // a writer may come: see its commits
  EXPECT_FALSE(db::open_immutable(false, true));  // a writer is there now
  EXPECT_FALSE(db::open_immutable(true, true));
}

TEST(StoreAccess, ReadOnlyStoreIsReadableByEveryReader) {
  // A directory nobody (uid 65534) can reach: 0755 along the way, files 0444, directory 0555.
  TempDir dir("readonly");
  fs::permissions(dir.path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                fs::perms::others_read | fs::perms::others_exec);
  const fs::path shipped = dir.path / "shipped";
  fs::create_directories(shipped);
  const fs::path path = shipped / "occtune.db";
  seed(path);
  ASSERT_FALSE(fs::exists(path.string() + "-wal"));
  ::chmod(path.c_str(), 0444);
  ::chmod(shipped.c_str(), 0555);
  const std::string before = testing::read_bytes(path);

  const std::string as_user =
      ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  if (!as_user.empty() && run_cli("--version",
                                  "setpriv --reuid=65534 --regid=65534 "
                                  "--clear-groups")
                                  .code != 0)
    GTEST_SKIP() << "cannot run the CLI as an unprivileged user here";
  auto reader = [&](const std::string& args) { return run_cli(args, as_user); };

  const auto q = reader("query --db " + path.string() + " --device " + kUuid +
                        " --shape 256x256x256 --format json");
  EXPECT_EQ(q.code, 0) << q.err;
  EXPECT_NE(q.out.find(kUuid), std::string::npos) << q.out;
  const auto e = reader("export --db " + path.string());
  EXPECT_EQ(e.code, 0) << e.err;
  EXPECT_NE(e.out.find("\"kind\":\"export\""), std::string::npos) << e.out.substr(0, 200);
  const auto d = reader("db doctor --db " + path.string());
  EXPECT_EQ(d.code, 0) << d.err << d.out;
  EXPECT_NE(d.out.find("verdict    healthy"), std::string::npos) << d.out;

  // serve: answers from the read-only store, then stops on SIGTERM.
  // python3 rather than curl fetches (the GPU machines may have no curl).
  const int port = 18000 + int(::getpid() % 2000);
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/v1/devices";
  const std::string get =
      "python3 -c 'import sys, urllib.request; "
      "print(urllib.request.urlopen(sys.argv[1], timeout=2).read().decode())' " +
      url;
  const auto s = run_cli("serve --db " + path.string() + " --port " + std::to_string(port) +
                             " & pid=$!; for i in $(seq 50); do " + get +
                             " >/dev/null 2>&1 && break; sleep 0.1; done; " + get +
                             "; kill -TERM $pid; wait $pid",
                         as_user);
  EXPECT_NE(s.out.find(kUuid), std::string::npos) << s.out << s.err;
  EXPECT_EQ(testing::read_bytes(path), before) << "a reader changed the store";
  EXPECT_FALSE(fs::exists(path.string() + "-wal"));
}

TEST(StoreAccess, FifoAsDatabaseIsRefusedAtOnce) {
  TempDir dir("fifo");
  const fs::path fifo = dir.path / "occtune.db";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::path export_file = dir.path / "e.json";
  {
    TempDir src("fifo-src");
    seed(src.path / "s.db");
    ASSERT_EQ(
        run_cli("export --db " + (src.path / "s.db").string() + " --out " + export_file.string())
            .code,
        0);
  }
  for (const std::string& args : {"query --device " + std::string(kUuid) + " --shape 256x256x256",
                                 std::string("export"), "import " + export_file.string(),
                                 std::string("serve --port 0"), std::string("db doctor")}) {
    SCOPED_TRACE(args);
    const auto start = std::chrono::steady_clock::now();
    // `timeout` turns a hang into exit 124 (137 when SIGTERM is ignored) instead of a stuck test.
    const auto r = run_cli(args + " --db " + fifo.string(), "timeout -k 5 20");
    EXPECT_TRUE(r.code != 124 && r.code != 137) << "hung";
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  }
}

TEST(StoreAccess, RepairThroughASymlinkRepairsTheTarget) {
  TempDir dir("symlink");
  const fs::path real = dir.path / "real.db";
  const fs::path link = dir.path / "link.db";
  seed(real);
  fs::create_symlink(real, link);
  testing::write_bytes(real, "not the header!!");
  const auto r = run_cli("db doctor --repair --db " + link.string());
  EXPECT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("moved the damaged database aside"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(run_cli("db doctor --db " + link.string()).code, 0);
  EXPECT_EQ(testing::files_containing(dir.path, ".corrupt-").size(), 1u);
}

TEST(StoreAccess, NegativeSchemaVersionIsNotHealthy) {
  TempDir dir("user-version");
  const fs::path path = dir.path / "occtune.db";
  seed(path);
  { SQLite::Database(path.string(), SQLite::OPEN_READWRITE).exec("PRAGMA user_version = -5"); }
  const auto d = run_cli("db doctor --db " + path.string());
  EXPECT_EQ(d.code, 3) << d.out << d.err;
  EXPECT_NE(d.err.find("-5"), std::string::npos) << d.err;
  const auto q = run_cli("query --device " + std::string(kUuid) + " --shape 256x256x256 --db " +
                         path.string());
  EXPECT_EQ(q.code, 3) << q.err;
}

}  // namespace
}  // namespace occtune
