// `occtune db doctor`: the store's health on demand. diagnose() only reads (it never creates,
// migrates or moves anything); repair() fixes what can be fixed without losing data that is
// still readable: abandoned runs, an older schema, orphaned rows, and a damaged file of ours,
// which is moved aside (never deleted) so a fresh store can take its place.
#pragma once

#include <SQLiteCpp/Exception.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "autotuner/core/error.hpp"
#include "db/file_probe.hpp"
#include "db/integrity.hpp"
#include "db/run_owner.hpp"

namespace occtune::db {

struct DoctorReport {
  enum class State {
    kHealthy,       // usable; notes may still say what the next write open will tidy up
    kMissing,       // no file (exit 3)
    kForeign,       // an SQLite file of another application (exit 3)
    kNewer,         // written by a newer occtune: never written to by this one (exit 3)
    kNotDatabase,   // neither SQLite nor recognisably ours: never moved (exit 4)
    kDamaged,       // ours, and SQLite finds it corrupt (exit 4)
    kInconsistent,  // sound pages, but rows that refer to missing rows (exit 4)
    kUnusable,      // a directory, unreadable, on a network filesystem (exit 4)
  };
  std::filesystem::path path;
  State state = State::kHealthy;
  std::string summary;  // one line: what is wrong, the value, what to do; empty when healthy
  std::optional<probe::Header> header;
  std::string network_fs;  // the network filesystem's name, empty on a local one
  int application_id = 0;
  int user_version = 0;
  std::vector<std::string> integrity;     // integrity_check findings
  std::vector<std::string> foreign_keys;  // foreign_key_check findings
  bool counted = false;                   // the counts below were read
  std::int64_t devices = 0, measurements = 0;
  std::map<std::string, std::int64_t> runs;  // by status
  std::vector<owner::RunningRun> running;
  std::vector<std::string> notes;    // healthy, but worth knowing
  std::vector<std::string> actions;  // what repair() did

  ExitCode exit_code() const;
  static const char* state_name(State state);
};

DoctorReport diagnose(const std::filesystem::path& path);
// Repairs what diagnose() found and diagnoses again; the result lists the actions taken. A
// newer, foreign or non-database file, or one on a network filesystem, is left as it is.
DoctorReport repair(const std::filesystem::path& path);

}  // namespace occtune::db
