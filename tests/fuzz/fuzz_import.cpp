// libFuzzer harness for `occtune import` (db/import_validation, db/exchange): any bytes as an
// export file, seeded with real exports. A document the checks accept is imported into an
// in-memory store, so whatever validation lets through must also fit the schema. Refusals are
// usage errors (2), a newer schema_version is "incompatible" (3); nothing else may escape.
#include <cstddef>
#include <cstdint>
#include <string>

#include "db/exchange.hpp"
#include "db/store.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  occtune::fuzz::accepts(
      [&] {
        occtune::db::check_export(text, "fuzz.json");
        occtune::db::Store store = occtune::db::Store::open(":memory:");
        (void)occtune::db::import_runs(store, text, "fuzz.json");
        (void)occtune::db::export_runs(store, {"fuzz", {}});
      },
      {occtune::ExitCode::kUsage, occtune::ExitCode::kNotFound});
  return 0;
}
