#include "rdpaudit/core/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

namespace rdpaudit {

namespace {

// The handler may only touch what is async-signal-safe: fixed buffers, unlink, write, raise.
constexpr int kSlots = 4;
struct Slot {
  char path[4096];
  char message[4200];
  std::atomic<bool> armed{false};
};
Slot g_slots[kSlots];
std::atomic<bool> g_graceful{false};
std::atomic<bool> g_stop{false};
std::atomic<int> g_child_group{0};
constexpr char kStopping[] =
    "\nrdpaudit: interrupted; stopping after this slab of the pilot or the counting and "
    "writing a checkpoint (interrupt again to stop at once, without one)\n";

extern "C" void on_interrupt(int sig) {
  const int group = g_child_group.exchange(0);
  if (group > 0) ::kill(-group, SIGKILL);
  if (g_graceful.load() && !g_stop.exchange(true)) {
    const ssize_t ignored = ::write(STDERR_FILENO, kStopping, sizeof kStopping - 1);
    (void)ignored;
    return;
  }
  for (Slot& slot : g_slots) {
    if (!slot.armed.exchange(false)) continue;
    ::unlink(slot.path);
    const ssize_t ignored = ::write(STDERR_FILENO, slot.message, std::strlen(slot.message));
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

int remove_on_interrupt(const std::string& path) {
  install_once();
  // Only this thread arms slots; a slot is free while not armed.
  for (int i = 0; i < kSlots; ++i) {
    Slot& slot = g_slots[i];
    if (slot.armed.load()) continue;
    std::strncpy(slot.path, path.c_str(), sizeof slot.path - 1);
    slot.path[sizeof slot.path - 1] = '\0';
    const std::string message = "\nrdpaudit: interrupted; removed the unfinished " + path + "\n";
    std::strncpy(slot.message, message.c_str(), sizeof slot.message - 1);
    slot.message[sizeof slot.message - 1] = '\0';
    slot.armed = true;
    return i;
  }
  return -1;
}

void forget_on_interrupt(int slot) {
  if (slot >= 0 && slot < kSlots) g_slots[slot].armed = false;
}

void kill_group_on_interrupt(int pgid) {
  install_once();
  g_child_group = pgid;
}

void stop_gracefully_on_interrupt(bool on) {
  install_once();
  g_graceful = on;
}

bool stop_requested() {
  return g_stop.load(std::memory_order_relaxed);
}

}  // namespace rdpaudit
