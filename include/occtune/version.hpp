// occtune's version: the release numbers as macros (the single source of the project version,
// read by CMakeLists.txt) and what the running library was built from. C++17, no other headers.
#pragma once

#define OCCTUNE_VERSION_MAJOR 0
#define OCCTUNE_VERSION_MINOR 1
#define OCCTUNE_VERSION_PATCH 0
// "MAJOR.MINOR.PATCH" of this header, and a number that compares in release order.
#define OCCTUNE_VERSION_STRING "0.1.0"
#define OCCTUNE_VERSION_NUMBER \
  (OCCTUNE_VERSION_MAJOR * 10000 + OCCTUNE_VERSION_MINOR * 100 + OCCTUNE_VERSION_PATCH)

namespace occtune {

// The library's version, "MAJOR.MINOR.PATCH". Compare with OCCTUNE_VERSION_STRING to see whether
// the library loaded at run time is the one the program was compiled against.
const char* version() noexcept;

// The kernel build id: 16 hex digits hashing the kernel sources, architectures, flags, compiler
// and ptxas's reports. Stored results carry it; a result of another build is never reused.
const char* kernel_build_id() noexcept;

// The CUDA runtime linked into the library (statically), "MAJOR.MINOR", e.g. "13.0".
const char* cuda_runtime_version() noexcept;

// `git describe --always --dirty` of the source tree at build time, or "unknown" when it was
// built outside a git checkout.
const char* git_commit() noexcept;

}  // namespace occtune
