// Progress of long runs on stderr: a bar when stderr is a terminal, plain lines otherwise.
// Silent for the first few seconds so that short runs print nothing.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace rdpaudit {

class Progress {
 public:
  /// `total` units of work; `enabled` = false makes every call a no-op.
  Progress(std::int64_t total, bool enabled);
  ~Progress();

  void set_label(const std::string& label);
  /// Thread-safe; prints at most every half second (terminal) or every 10 % (lines).
  void advance(std::int64_t units);
  void finish();
  /// One line of news (e.g. a sequential audit's look) on stderr, between progress lines.
  void note(const std::string& line);

 private:
  void print(std::int64_t done, bool final_line);

  std::int64_t total_;
  bool enabled_;
  bool tty_;
  std::atomic<std::int64_t> done_{0};
  std::mutex mutex_;
  std::chrono::steady_clock::time_point start_, last_;
  int last_decile_ = -1;
  bool printed_ = false;
  std::string label_;
};

}  // namespace rdpaudit
