// The tuning harness: the whole occtune CLI over the stencil5 family, e.g.
//   ./stencil5_tuner tune --kernel stencil5 --problem nx=8192,ny=8192
// Worker isolation re-executes this program, which registers the same family.
#include <occtune/main.hpp>

#include "stencil5.cuh"

int main(int argc, char** argv) {
  return occtune::main(argc, argv, [] { occtune::register_family(stencil5::family()); });
}
