// The operand layouts live in the public API (include/occtune/layout.hpp): occtune::sgemm takes
// them, and the kernels, the store and the CLI use the same type.
#pragma once

#include "occtune/layout.hpp"
