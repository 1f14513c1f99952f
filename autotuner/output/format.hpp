// Small number formatters shared by the table printers.
#pragma once

#include <cstddef>
#include <string>

namespace occtune::output {

std::string bytes(std::size_t n);             // "48 KiB", "80.0 GiB"
std::string percent(double fraction);         // "100%"
std::string fixed(double value, int digits);  // "1.234"
std::string sci(double value);                // "3.1e-07"; "-" for negative (not checked)

}  // namespace occtune::output
