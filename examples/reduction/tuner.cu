// The tuning harness: the whole occtune CLI over the reduction family, e.g.
//   ./reduction_tuner tune --kernel reduction --problem n=4194304
#include <occtune/main.hpp>

#include "reduction.cuh"

int main(int argc, char** argv) {
  return occtune::main(argc, argv, [] { occtune::register_family(reduction::family()); });
}
