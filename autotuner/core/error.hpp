// occtune::Error and the exit codes live in the public API (include/occtune/error.hpp), so an
// application catches the same exception the CLI maps to its exit code.
#pragma once

#include "occtune/error.hpp"
