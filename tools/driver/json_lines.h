// The drivers' output: one JSON object per line on stdout, written by
// nlohmann::json (Debian's nlohmann-json3-dev) with its keys in the order
// they were set.

#ifndef SYMBIOSIS_TOOLS_DRIVER_JSON_LINES_H_
#define SYMBIOSIS_TOOLS_DRIVER_JSON_LINES_H_

#include <string>

#include <nlohmann/json.hpp>

namespace symbiosis::bench {

using Json = nlohmann::ordered_json;

// `x` rounded to `decimals` places, so the lines stay short; a NaN or an
// infinity is written as null.
double Rounded(double x, int decimals);

// `j` as one line; bytes that are not UTF-8 (an engine's message) become
// U+FFFD rather than an exception.
std::string Dump(const Json& j);

// Dump(j) and a newline on stdout, flushed: a reader sees whole lines.
void PrintLine(const Json& j);

}  // namespace symbiosis::bench

#endif  // SYMBIOSIS_TOOLS_DRIVER_JSON_LINES_H_
