// The tuning harness: the whole occtune CLI over the tiled_matmul family, e.g.
//   ./tiled_matmul_tuner tune --kernel tiled_matmul --problem m=1024,n=1024,k=1024
#include <occtune/main.hpp>

#include "tiled_matmul.cuh"

int main(int argc, char** argv) {
  return occtune::main(argc, argv, [] { occtune::register_family(tiled_matmul::family()); });
}
