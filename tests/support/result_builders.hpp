// Builders for tests of what tune and bench print from a race's result (tables, CSV, JSON),
// without a GPU: a shape with its cuBLAS reference, and a measurement of a registered variant.
#pragma once

#include <vector>

#include "autotuner/core/stats.hpp"
#include "autotuner/engine/tune_result.hpp"
#include "kernels/registry.hpp"

namespace occtune::testing {

// A race result of `shape` whose cuBLAS reference took `cublas_ms` in each of two samples.
inline ShapeResult shape_result(Shape shape, double cublas_ms) {
  ShapeResult r;
  r.shape = shape;
  r.cublas.samples_ms = {cublas_ms, cublas_ms};
  r.cublas.summary = summarize(r.cublas.samples_ms);
  return r;
}

// An `ok` measurement of `variant` at its block size, `samples` samples of `ms` each.
inline Measurement measured_variant(const kernels::VariantInfo* variant, double ms,
                                    int samples = 2) {
  Measurement m;
  m.candidate.variant = variant;
  m.candidate.threads = variant->threads();
  m.timing.samples_ms = std::vector<double>(std::size_t(samples), ms);
  m.timing.summary = summarize(m.timing.samples_ms);
  return m;
}

}  // namespace occtune::testing
