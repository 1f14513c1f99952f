#include "autotuner/cli/tune_report.hpp"

#include <fmt/format.h>

#include "autotuner/output/format.hpp"
#include "autotuner/output/json_output.hpp"
#include "autotuner/output/text_table.hpp"

namespace occtune::cli {

namespace {

double ratio(double cublas_ms, double ms) { return ms > 0 ? cublas_ms / ms : 0; }

}  // namespace

void print_shape_table(std::ostream& out, const ShapeResult& r) {
  out << fmt::format("shape {} (M x N x K), {:.3g} GFLOP\n", r.shape.str(), r.shape.flops() / 1e9);
  output::TextTable t({"kernel", "config", "threads", "smem", "blocks/SM", "occupancy", "limiter",
                       "waves", "median ms", "q1-q3 ms", "GFLOP/s", "vs cuBLAS", "rel err",
                       "status", ""},
                      {false, false, true, true, true, true, false, true, true, true, true, true,
                       true, false, false});
  const double ref = r.cublas.summary.median;
  for (auto& k : r.kernels) {
    for (size_t i = 0; i < k.measurements.size(); ++i) {
      auto& m = k.measurements[i];
      auto& c = m.candidate;
      const bool ok = m.outcome == Outcome::kOk;
      const auto& s = m.timing.summary;
      t.add_row({k.kernel, c.variant->label(), std::to_string(c.threads),
                 output::bytes(c.dynamic_smem), std::to_string(c.active_blocks_per_sm),
                 output::percent(c.occupancy), c.limiter, output::fixed(c.waves, 2),
                 ok ? output::fixed(s.median, 4) : "-",
                 ok ? fmt::format("{:.4f}-{:.4f}", s.q1, s.q3) : "-",
                 ok ? fmt::format("{:.0f}", m.gflops()) : "-",
                 ok ? fmt::format("{:.2f}x", ratio(ref, s.median)) : "-", output::sci(m.rel_error),
                 std::string(to_string(m.outcome)),
                 int(i) == k.winner ? "<- best " + k.kernel : ""});
    }
  }
  t.add_row({"cublas", "sgemm fp32", "-", "-", "-", "-", "-", "-", output::fixed(ref, 4),
             fmt::format("{:.4f}-{:.4f}", r.cublas.summary.q1, r.cublas.summary.q3),
             fmt::format("{:.0f}", ref > 0 ? r.shape.flops() / (ref * 1e6) : 0.0), "1.00x",
             "0", "reference", ""});
  t.print(out);
  for (auto& k : r.kernels)
    for (auto& m : k.measurements)
      if (m.outcome != Outcome::kOk)
        out << fmt::format("  {} {}: {}: {}\n", k.kernel, m.candidate.variant->label(),
                           to_string(m.outcome), m.error);
  out << '\n';
}

nlohmann::json shape_json(const ShapeResult& r) {
  nlohmann::json kernels = nlohmann::json::array();
  for (auto& k : r.kernels) {
    nlohmann::json ms = nlohmann::json::array();
    for (auto& m : k.measurements) {
      auto j = output::to_json(m);
      if (m.outcome == Outcome::kOk)
        j["ratio_to_cublas"] = ratio(r.cublas.summary.median, m.timing.summary.median);
      ms.push_back(j);
    }
    kernels.push_back({{"kernel", k.kernel},
                       {"run_id", k.run_id},
                       {"winner", k.winner},
                       {"candidates", ms}});
  }
  return {{"shape", r.shape.str()},
          {"m", r.shape.m},
          {"n", r.shape.n},
          {"k", r.shape.k},
          {"cublas", {{"timing", output::to_json(r.cublas.summary)},
                      {"samples_ms", r.cublas.samples_ms}}},
          {"kernels", kernels}};
}

void print_csv_header(std::ostream& out) {
  out << "schema_version,device_uuid,shape,kernel,variant,params,threads,tile,dynamic_smem,"
         "active_blocks_per_sm,occupancy,limiter,grid_x,grid_y,waves,status,median_ms,min_ms,"
         "q1_ms,q3_ms,samples,gflops,ratio_to_cublas,rel_error,winner\n";
}

void print_csv_rows(std::ostream& out, const DeviceInfo& device, const ShapeResult& r) {
  const double ref = r.cublas.summary.median;
  for (auto& k : r.kernels) {
    for (size_t i = 0; i < k.measurements.size(); ++i) {
      auto& m = k.measurements[i];
      auto& c = m.candidate;
      auto& s = m.timing.summary;
      out << fmt::format("{},{},{},{},{},\"{}\",{},{},{},{},{:.4f},{},{},{},{:.3f},{},{},{},{},{},{},"
                         "{:.1f},{:.4f},{:.3e},{}\n",
                         output::kJsonSchemaVersion, device.uuid, r.shape.str(), k.kernel,
                         c.variant->symbol, c.variant->label(), c.threads, c.tile, c.dynamic_smem,
                         c.active_blocks_per_sm, c.occupancy, c.limiter, c.grid_x, c.grid_y,
                         c.waves, to_string(m.outcome), s.median, s.min, s.q1, s.q3, s.count,
                         m.gflops(), ratio(ref, s.median), m.rel_error,
                         int(i) == k.winner ? 1 : 0);
    }
  }
  auto& s = r.cublas.summary;
  out << fmt::format("{},{},{},cublas,cublasSgemm,\"\",,,,,,,,,,ok,{},{},{},{},{},{:.1f},1.0,0,0\n",
                     output::kJsonSchemaVersion, device.uuid, r.shape.str(), s.median, s.min, s.q1,
                     s.q3, s.count, ref > 0 ? r.shape.flops() / (ref * 1e6) : 0.0);
}

}  // namespace occtune::cli
