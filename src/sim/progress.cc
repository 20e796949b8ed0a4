#include "sim/progress.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace symbiosis {

Progress::Progress(std::string label, uint64_t total, bool enabled)
    : label_(std::move(label)),
      total_(total == 0 ? 1 : total),
      enabled_(enabled),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

Progress::~Progress() {
  if (enabled_) Draw(true);
}

void Progress::Advance(uint64_t n) {
  done_.fetch_add(n, std::memory_order_relaxed);
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(draw_mu_, std::try_to_lock);
  if (!lock.owns_lock() || now - last_draw_ < std::chrono::milliseconds(100)) {
    return;
  }
  last_draw_ = now;
  Draw(false);
}

void Progress::Draw(bool final) {
  const uint64_t done = std::min(done_.load(std::memory_order_relaxed), total_);
  const double fraction = static_cast<double>(done) / total_;
  const int width = 30;
  const int filled = static_cast<int>(fraction * width);
  const double elapsed = std::chrono::duration<double>(
      std::chrono::steady_clock::now() - start_).count();
  char bar[width + 1];
  for (int i = 0; i < width; i++) bar[i] = i < filled ? '#' : '.';
  bar[width] = '\0';
  if (final) {
    std::fprintf(stderr, "\r%s [%s] done in %.1fs\n", label_.c_str(), bar, elapsed);
  } else {
    const double eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0;
    std::fprintf(stderr, "\r%s [%s] %3.0f%%  eta %.0fs ", label_.c_str(), bar,
                 fraction * 100, eta);
  }
  std::fflush(stderr);
}

}  // namespace symbiosis
