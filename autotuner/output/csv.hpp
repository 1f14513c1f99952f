// CSV as RFC 4180 writes it: fields with a comma, a double quote, CR or LF are quoted, quotes
// doubled, records end with CRLF. Every CSV occtune prints goes through here, so a variant
// name such as "bm=64,bn=32" stays one field.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace occtune::output {

std::string csv_field(std::string_view value);
void write_csv_record(std::ostream& out, const std::vector<std::string>& fields);

}  // namespace occtune::output
