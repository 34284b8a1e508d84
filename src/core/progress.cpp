#include "rdpaudit/core/progress.hpp"

#include <unistd.h>

#include <cstdio>

#include "rdpaudit/core/activity.hpp"

namespace rdpaudit {

namespace {
constexpr double kQuietSeconds = 3.0;
constexpr double kLogSeconds = 60.0;
}  // namespace

Progress::Progress(std::int64_t total, bool enabled)
    : total_(total > 0 ? total : 1),
      enabled_(enabled),
      tty_(isatty(fileno(stderr)) != 0),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

Progress::~Progress() {
  finish();
  set_activity_detail("");
}

void Progress::set_label(const std::string& label) {
  std::lock_guard<std::mutex> lock(mutex_);
  label_ = label;
  set_activity_detail(label);
}

void Progress::advance(std::int64_t units) {
  if (!enabled_) return;
  const std::int64_t done = done_.fetch_add(units) + units;
  std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  if (lock.owns_lock()) print(done, false);
}

void Progress::finish() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (printed_) print(done_.load(), true);
  enabled_ = false;
}

void Progress::note(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::fprintf(stderr, "%s%s\n", tty_ && printed_ ? "\r\033[K" : "", line.c_str());
  std::fflush(stderr);
}

void Progress::print(std::int64_t done, bool final_line) {
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (!final_line && elapsed < kQuietSeconds) return;
  const double frac = static_cast<double>(done) / static_cast<double>(total_);
  const double eta_s = frac > 0 ? elapsed * (1.0 - frac) / frac : 0.0;
  if (tty_) {
    if (!final_line && std::chrono::duration<double>(now - last_).count() < 0.5) return;
    last_ = now;
    const int width = 30, filled = static_cast<int>(frac * width);
    std::fprintf(stderr, "\r%s [%.*s%*s] %5.1f%%  %.0fs elapsed, ~%.0fs left ", label_.c_str(),
                 filled, "##############################", width - filled, "", 100.0 * frac,
                 elapsed, eta_s);
    if (final_line) std::fputc('\n', stderr);
  } else {
    // A log gets a line from the first seconds, then one per tenth done or per minute,
    // whichever comes first; a final line that repeats the last one is skipped.
    const int decile = static_cast<int>(frac * 10);
    const bool minute = std::chrono::duration<double>(now - last_).count() >= kLogSeconds;
    if (printed_ && decile == last_decile_ && (!minute || final_line)) return;
    last_ = now;
    last_decile_ = decile;
    std::fprintf(stderr, "%s %5.1f%% (%.0fs elapsed, ~%.0fs left)\n", label_.c_str(), 100.0 * frac,
                 elapsed, eta_s);
  }
  std::fflush(stderr);
  printed_ = true;
}

}  // namespace rdpaudit
