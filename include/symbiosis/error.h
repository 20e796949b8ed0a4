// InputError: the one exception type for bad user input (flags, configs,
// traces). Its message is a single line that says what is wrong and what
// to do, e.g. "trace.csv: record 17: size column is empty; ...".

#ifndef SYMBIOSIS_ERROR_H_
#define SYMBIOSIS_ERROR_H_

#include <stdexcept>
#include <string>

namespace symbiosis {

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message)
      : std::runtime_error(message) {}
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_ERROR_H_
