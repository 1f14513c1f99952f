// libFuzzer harness for the job-file parser (autotuner/core/job_config.cpp): any bytes as a
// TOML job file. Run through scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "autotuner/core/job_config.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  occtune::JobConfig job;
  if (occtune::fuzz::accepts([&] { job = occtune::parse_job_config(text, "fuzz.toml"); })) {
    // An accepted job holds only values the rest of occtune can use.
    for (auto& s : job.shapes)
      if (s.m <= 0 || s.n <= 0 || s.k <= 0) occtune::fuzz::violation("accepted shape", "side <= 0");
    if (job.policy.samples < 1 || job.policy.warmup < 0)
      occtune::fuzz::violation("accepted policy", "samples < 1 or warmup < 0");
    if (!(job.policy.tolerance > 0 && job.policy.tolerance < 1))
      occtune::fuzz::violation("accepted policy", "tolerance outside (0, 1)");
  }
  return 0;
}
