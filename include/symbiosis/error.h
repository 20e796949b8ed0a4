// InputError: the one exception type for bad user input (flags, configs,
// traces). Its message is a single line that says what is wrong and what
// to do, e.g. "trace.csv: record 17: size column is empty; ...".

#ifndef SYMBIOSIS_ERROR_H_
#define SYMBIOSIS_ERROR_H_

#include <cstdio>
#include <stdexcept>
#include <string>

namespace symbiosis {

class InputError : public std::runtime_error {
 public:
  // Control bytes in `message` (a newline, or a NUL that would cut what()
  // short), usually from the input it quotes, are written as \xNN: the
  // message stays one whole line.
  explicit InputError(const std::string& message)
      : std::runtime_error(OneLine(message)) {}

 private:
  static std::string OneLine(const std::string& message) {
    std::string out;
    out.reserve(message.size());
    for (const char c : message) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
        char hex[5];
        std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
        out += hex;
      } else {
        out += c;
      }
    }
    return out;
  }
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_ERROR_H_
