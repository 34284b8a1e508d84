#include "rdpaudit/core/interrupt.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

namespace rdpaudit {

namespace {

// The handler may only touch what is async-signal-safe: a fixed buffer, unlink, write, raise.
char g_path[4096];
char g_message[4200];
std::atomic<bool> g_armed{false};
std::atomic<bool> g_graceful{false};
std::atomic<bool> g_stop{false};
constexpr char kStopping[] =
    "\nrdpaudit: interrupted; stopping the counting and writing a checkpoint (interrupt again "
    "to stop at once, without one)\n";

extern "C" void on_interrupt(int sig) {
  if (g_graceful.load() && !g_stop.exchange(true)) {
    const ssize_t ignored = ::write(STDERR_FILENO, kStopping, sizeof kStopping - 1);
    (void)ignored;
    return;
  }
  if (g_armed.exchange(false)) {
    ::unlink(g_path);
    const ssize_t ignored = ::write(STDERR_FILENO, g_message, std::strlen(g_message));
    (void)ignored;
  }
  std::signal(sig, SIG_DFL);  // end with the signal's own status (130, 143 in a shell)
  std::raise(sig);
}

void install_once() {
  static const bool installed = [] {
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    return true;
  }();
  (void)installed;
}

}  // namespace

void remove_on_interrupt(const std::string& path) {
  install_once();
  g_armed = false;
  std::strncpy(g_path, path.c_str(), sizeof g_path - 1);
  g_path[sizeof g_path - 1] = '\0';
  const std::string message = "\nrdpaudit: interrupted; removed the unfinished " + path + "\n";
  std::strncpy(g_message, message.c_str(), sizeof g_message - 1);
  g_message[sizeof g_message - 1] = '\0';
  g_armed = true;
}

void forget_on_interrupt() {
  g_armed = false;
}

void stop_gracefully_on_interrupt(bool on) {
  install_once();
  g_graceful = on;
}

bool stop_requested() {
  return g_stop.load(std::memory_order_relaxed);
}

}  // namespace rdpaudit
