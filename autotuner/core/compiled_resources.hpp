// The registers, static shared memory and barriers of a __global__ function as the program's own
// compiled code has them, read offline: the ELF object that holds the function (the executable
// or a shared library), its symbol table for the function's mangled name, and the cubin for an
// architecture in its .nv_fatbin section (docs/architecture.md, "Registers from the compiled
// code"). What offline planning of a user kernel uses in place of declared registers. Host-only.
#pragma once

#include <optional>
#include <string>

namespace occtune {

struct CompiledResources {
  int registers = 0;
  int static_smem = 0;  // bytes
  int barriers = 0;
};

struct CompiledLookup {
  std::optional<CompiledResources> resources;  // nullopt: not found, `why` says why
  std::string object;   // the file read ("/path/to/harness")
  std::string mangled;  // the function's mangled name, once known
  int cubin_arch = 0;   // the cubin read (the nearest compatible one when not `arch` itself)
  std::string why;      // why none: what the program has and the fix
};

// The resources of `function` (a __global__ function's host address) in the cubin for `arch`
// (compute capability x 10, e.g. 90) or else the newest cubin the driver would load on it (same
// major, lower minor). Each object is read once per process. Never throws for a missing or
// unreadable file: `why` says what is missing and what to do.
CompiledLookup compiled_resources(const void* function, int arch);

}  // namespace occtune
