// occtune's per-user cache directory, where the store (db/store_path) and the compiled-kernel
// cache (autotuner/source/kernel_cache) live by default: one XDG rule for both.
#pragma once

#include <filesystem>

namespace occtune {

// $XDG_CACHE_HOME/occtune (an absolute value only: the XDG spec says to ignore a relative one),
// else $HOME/.cache/occtune, else .cache/occtune (no HOME, as under some service managers).
std::filesystem::path occtune_cache_dir();

}  // namespace occtune
