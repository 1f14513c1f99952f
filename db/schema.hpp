// The database schema: DDL, the migration steps that reach kSchemaVersion, and the checks that
// decide whether a file may be used by this build (application_id, user_version). Private to db/.
#pragma once

#include <filesystem>

#include "db/store.hpp"

namespace occtune::db::schema {

// What the header of an opened file says about it; read without writing anything.
struct FileState {
  int application_id = 0;
  int user_version = 0;
  int table_count = 0;  // user tables; 0 means an empty (fresh) database

  bool fresh() const { return application_id == 0 && table_count == 0; }
};

// Run it inside a transaction, so the header and the table count describe the same moment.
FileState inspect(SQLite::Database& db);

// Throws Error(kNotFound) when the file belongs to another application, was written by a newer
// occtune, or (read-only) cannot be used without migrating it first.
void check_compatible(const FileState& state, const std::filesystem::path& path, OpenMode mode);

// Brings the file to kSchemaVersion in one BEGIN IMMEDIATE transaction. The state is read again
// inside the transaction because another process may have migrated the file in the meantime.
void migrate(SQLite::Database& db, const std::filesystem::path& path);

// Gives an empty database the schema exactly as an occtune of schema `version` created it
// (steps 0 .. version-1, stamped with that user_version): tests build old files with it to prove
// that migrations keep data and run as one transaction.
void create_as_version(SQLite::Database& db, int version);

}  // namespace occtune::db::schema
