// Prints the version of the occtune library it loaded and what that library was built from;
// fails when the library and the header it was compiled with disagree.
#include <occtune/version.hpp>

#include <cstdio>
#include <cstring>

int main() {
  std::printf("occtune %s (kernel build %s, CUDA runtime %s, git %s)\n", occtune::version(),
              occtune::kernel_build_id(), occtune::cuda_runtime_version(), occtune::git_commit());
  if (std::strcmp(occtune::version(), OCCTUNE_VERSION_STRING) != 0) {
    std::fprintf(stderr, "version_app: loaded occtune %s but was compiled against %s\n",
                 occtune::version(), OCCTUNE_VERSION_STRING);
    return 1;
  }
  return 0;
}
