// `occtune db doctor` and bad database paths as a user meets them: one line on stderr naming the
// value and the fix, the documented exit code, nothing lost or moved that is not ours.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "db/store.hpp"
#include "tests/support/run_cli.hpp"
#include "tests/support/store_builders.hpp"

namespace occtune {
namespace {

namespace fs = std::filesystem;
using testing::files_containing;
using testing::read_bytes;
using testing::run_cli;
using testing::TempDir;

void populate(const fs::path& path, int runs = 3) {
  auto store = db::Store::open(path);
  for (int i = 0; i < runs; ++i) testing::write_complete_run(store, 4);
}

// One error line that names `value`, nothing that looks like a crash.
void expect_one_line_error(const testing::CliResult& r, int code, const std::string& value) {
  EXPECT_EQ(r.code, code) << r.err;
  EXPECT_NE(r.err.find("occtune: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(value), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("terminate"), std::string::npos) << r.err;
  std::size_t error_lines = 0;
  for (std::size_t at = 0; (at = r.err.find("error:", at)) != std::string::npos; ++at)
    ++error_lines;
  EXPECT_EQ(error_lines, 1u) << r.err;
}

TEST(DbDoctor, HealthyDatabaseExitsZeroWithAReport) {
  TempDir dir("doctor-cli");
  const fs::path path = dir.path / "occtune.db";
  populate(path);
  const auto r = run_cli("db doctor --db " + path.string());
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("integrity  ok"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 device, 3 runs (3 complete), 12 measurements"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("verdict    healthy"), std::string::npos) << r.out;

  const auto j = run_cli("db doctor --format json --db " + path.string());
  ASSERT_EQ(j.code, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc.at("schema_version"), 3);
  EXPECT_EQ(doc.at("state"), "healthy");
  EXPECT_EQ(doc.at("contents").at("measurements"), 12);
  EXPECT_EQ(doc.at("file").at("schema"), db::kSchemaVersion);

  // The environment variable names the database too.
  EXPECT_EQ(run_cli("db doctor", "OCCTUNE_DB=" + path.string()).code, 0);
}

TEST(DbDoctor, DamagedDatabaseIsReportedThenRepairedByMovingItAside) {
  TempDir dir("doctor-cli");
  const fs::path path = dir.path / "occtune.db";
  populate(path);
  testing::write_bytes(path, "not the header!!");
  const std::string damaged = read_bytes(path);

  const auto r = run_cli("db doctor --db " + path.string());
  expect_one_line_error(r, 4, path.string());
  EXPECT_NE(r.err.find("--repair"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("verdict    damaged"), std::string::npos) << r.out;
  EXPECT_EQ(read_bytes(path), damaged);  // diagnosing changes nothing

  const auto q = run_cli("query --shape 256x256x256 --device GPU-0000 --db " + path.string());
  expect_one_line_error(q, 4, path.string());
  EXPECT_NE(q.err.find("occtune db doctor"), std::string::npos) << q.err;
  EXPECT_EQ(read_bytes(path), damaged);  // nor does a reader

  const auto fix = run_cli("db doctor --repair --db " + path.string());
  EXPECT_EQ(fix.code, 0) << fix.err;
  EXPECT_NE(fix.out.find("repaired   moved the damaged database aside"), std::string::npos)
      << fix.out;
  EXPECT_NE(fix.out.find("verdict    healthy"), std::string::npos) << fix.out;
  const auto moved = files_containing(dir.path, ".corrupt-");
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_EQ(read_bytes(moved[0]), damaged);
  EXPECT_EQ(run_cli("db doctor --db " + path.string()).code, 0);
}

TEST(DbDoctor, WritingCommandTellsTheUserOnceWhenItMovesADamagedStore) {
  if (testing::gpu_visible()) GTEST_SKIP() << "tune would run for real on this machine";
  TempDir dir("doctor-cli");
  const fs::path path = dir.path / "occtune.db";
  populate(path);
  fs::resize_file(path, 3000);
  const auto r = run_cli("tune --shape 64x64x64 --db " + path.string());
  EXPECT_EQ(r.code, 4) << r.err;  // no GPU here: the store was handled before that
  std::size_t warnings = 0;
  for (std::size_t at = 0; (at = r.err.find("was damaged", at)) != std::string::npos; ++at)
    ++warnings;
  EXPECT_EQ(warnings, 1u) << r.err;
  EXPECT_NE(r.err.find(".corrupt-"), std::string::npos) << r.err;
  std::size_t moved_files = 0;  // the file itself; its -wal and -shm may go along
  for (const auto& p : files_containing(dir.path, ".corrupt-"))
    moved_files += !p.string().ends_with("-wal") && !p.string().ends_with("-shm");
  EXPECT_EQ(moved_files, 1u);
  EXPECT_EQ(run_cli("db doctor --db " + path.string()).code, 0);
  // The next run finds a healthy store and says nothing about it.
  const auto again = run_cli("tune --shape 64x64x64 --db " + path.string());
  EXPECT_EQ(again.err.find("damaged"), std::string::npos) << again.err;
}

TEST(DbDoctor, NewerSchemaIsExitThreeAndNeverWritten) {
  TempDir dir("doctor-cli");
  const fs::path path = dir.path / "newer.db";
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec("CREATE TABLE future (x INTEGER)");
    raw.exec("PRAGMA application_id = " + std::to_string(db::kApplicationId));
    raw.exec("PRAGMA user_version = " + std::to_string(db::kSchemaVersion + 1));
  }
  const std::string before = read_bytes(path);
  for (const std::string args :
       {"db doctor --db ", "db doctor --repair --db ", "tune --shape 64x64x64 --db ",
        "query --shape 64x64x64 --device GPU-0000 --db "}) {
    const auto r = run_cli(args + path.string());
    expect_one_line_error(r, 3, path.string());
    EXPECT_NE(r.err.find("newer occtune"), std::string::npos) << args << r.err;
  }
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_FALSE(fs::exists(path.string() + "-wal"));
}

TEST(DbPaths, EachBadPathGetsOneLineTheCodeAndNothingLost) {
  TempDir dir("paths");
  // A directory.
  for (const std::string command :
       {"db doctor", "tune --shape 64x64x64", "query --shape 64x64x64 --device GPU-0000"}) {
    const auto r = run_cli(command + " --db " + dir.path.string());
    expect_one_line_error(r, 4, dir.path.string());
    EXPECT_NE(r.err.find("directory"), std::string::npos) << command << ": " << r.err;
  }
  // A file that is not a database: refused, never moved.
  const fs::path notes = dir.path / "notes.txt";
  std::ofstream(notes) << "shopping list\n" << std::string(5000, 'x');
  const std::string notes_bytes = read_bytes(notes);
  for (const std::string command : {"db doctor", "db doctor --repair", "tune --shape 64x64x64",
                                    "query --shape 64x64x64 "
                                    "--device GPU-0000"}) {
    const auto r = run_cli(command + " --db " + notes.string());
    expect_one_line_error(r, 4, notes.string());
    EXPECT_NE(r.err.find("not an SQLite database"), std::string::npos) << command << r.err;
  }
  EXPECT_EQ(read_bytes(notes), notes_bytes);
  EXPECT_TRUE(files_containing(dir.path, ".corrupt-").empty());
  // A missing directory: readers say there is nothing yet (and create nothing).
  const fs::path missing = dir.path / "missing" / "occtune.db";
  for (const std::string command : {"db doctor", "query --shape 64x64x64 --device GPU-0000"}) {
    const auto r = run_cli(command + " --db " + missing.string());
    expect_one_line_error(r, 3, missing.string());
    EXPECT_NE(r.err.find("occtune tune"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(missing.parent_path()));
  // A read-only directory: writers are refused before anything is created.
  if (::geteuid() != 0) {
    const fs::path locked = dir.path / "locked";
    fs::create_directories(locked);
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
    const auto r = run_cli("tune --shape 64x64x64 --db " + (locked / "o.db").string());
    expect_one_line_error(r, 4, (locked / "o.db").string());
    EXPECT_NE(r.err.find("not writable"), std::string::npos) << r.err;
    fs::permissions(locked, fs::perms::owner_all);
    EXPECT_FALSE(fs::exists(locked / "o.db"));
  }
  // `db` alone is a usage error.
  EXPECT_EQ(run_cli("db").code, 2);
}

}  // namespace
}  // namespace occtune
