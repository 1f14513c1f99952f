// The 5-point stencil's radius and weights, shared by the tuned kernel and its reference
// (a quoted include, so the compiled-kernel cache keys this file's bytes too).
#pragma once

#define STENCIL_RADIUS 1
#define STENCIL_CENTRE 0.5f
#define STENCIL_SIDE 0.125f
