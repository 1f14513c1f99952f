// The previous export layout (schema_version 1, before issue #12 gave measurements and runs one
// JSON codec): rows copied column by column. Import and compare still read it by renaming its
// fields into the current layout, then validating and decoding that like any current export.
#pragma once

#include <nlohmann/json.hpp>

namespace occtune::db {

// A document of schema_version 1 in the current layout. Values are moved, never judged: what
// is malformed stays malformed for the validation that follows (db/import_validation.hpp).
// The runs' owner_* stamps (which process on which host was writing the run) are left out:
// they describe the exporting machine.
nlohmann::json upgrade_export_v1(nlohmann::json doc);

}  // namespace occtune::db
