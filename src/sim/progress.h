// Progress: a thread-safe progress bar on stderr for long offline work.
// Silent unless enabled (the CLI enables it when stderr is a terminal).

#ifndef SYMBIOSIS_PROGRESS_H_
#define SYMBIOSIS_PROGRESS_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace symbiosis {

class Progress {
 public:
  Progress(std::string label, uint64_t total, bool enabled);
  ~Progress();  // finishes the line

  // Adds `n` units of work done; redraws at most ~10 times a second.
  void Advance(uint64_t n = 1);

 private:
  void Draw(bool final);

  const std::string label_;
  const uint64_t total_;
  const bool enabled_;
  std::atomic<uint64_t> done_{0};
  std::mutex draw_mu_;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_PROGRESS_H_
