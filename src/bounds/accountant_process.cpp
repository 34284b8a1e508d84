// Runs an accountant command: its input on stdin, its stdout and stderr read while it runs,
// killed with its process group after the time-out (docs/bounds.md, "Auditing your own
// accountant").
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "accountant_json.hpp"
#include "rdpaudit/bounds/accountant.hpp"
#include "rdpaudit/core/error.hpp"
#include "rdpaudit/core/interrupt.hpp"

extern char** environ;

namespace rdpaudit::bounds {

using detail::quoted_list;

CommandResult run_accountant_command(const std::vector<std::string>& argv,
                                     const std::string& directory, const std::string& input,
                                     double timeout_s) {
  CommandResult result;
  if (argv.empty() || argv.front().empty()) {
    result.start_error = "no program named";
    return result;
  }
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0 ||
      pipe2(err_pipe, O_CLOEXEC) != 0)
    throw ResourceError(std::string("cannot create a pipe for an accountant command: ") +
                        std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawn_file_actions_addchdir_np(&actions, directory.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, so that a time-out kills whatever it started; SIGPIPE at its
  // default there (this process ignores it while writing the input).
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  struct sigaction ignore {
  }, previous{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &previous);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (spawned != 0) {
    close(in_pipe[1]);
    close(out_pipe[0]);
    close(err_pipe[0]);
    sigaction(SIGPIPE, &previous, nullptr);
    result.start_error = std::strerror(spawned);
    return result;
  }
  kill_group_on_interrupt(pid);  // a signal to rdpaudit ends the command too
  fcntl(in_pipe[1], F_SETFL, O_NONBLOCK);
  int in_fd = input.empty() ? (close(in_pipe[1]), -1) : in_pipe[1];
  int out_fd = out_pipe[0], err_fd = err_pipe[0];
  std::size_t written = 0;
  constexpr std::size_t kMaxOutput = std::size_t{64} << 20;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(timeout_s));
  char buffer[1 << 16];
  while (out_fd >= 0 || err_fd >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      result.timed_out = true;
      break;
    }
    pollfd fds[3];
    nfds_t n = 0;
    if (in_fd >= 0) fds[n++] = {in_fd, POLLOUT, 0};
    if (out_fd >= 0) fds[n++] = {out_fd, POLLIN, 0};
    if (err_fd >= 0) fds[n++] = {err_fd, POLLIN, 0};
    const int ready = poll(fds, n, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) {
      kill(-pid, SIGKILL);
      kill_group_on_interrupt(0);
      throw ResourceError(std::string("poll on an accountant command: ") + std::strerror(errno));
    }
    for (nfds_t k = 0; ready > 0 && k < n; ++k) {
      if (fds[k].revents == 0) continue;
      if (fds[k].fd == in_fd) {
        const ssize_t w = write(in_fd, input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == input.size()) {
          close(in_fd);  // done, or it stopped reading (EPIPE): its output will say
          in_fd = -1;
        }
        continue;
      }
      int& fd = fds[k].fd == out_fd ? out_fd : err_fd;
      std::string& sink = fds[k].fd == out_fd ? result.out : result.err;
      const ssize_t got = read(fd, buffer, sizeof buffer);
      if (got > 0) {
        if (sink.size() < kMaxOutput) sink.append(buffer, static_cast<std::size_t>(got));
      } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
        close(fd);
        fd = -1;
      }
    }
  }
  if (in_fd >= 0) close(in_fd);
  if (out_fd >= 0) close(out_fd);
  if (err_fd >= 0) close(err_fd);
  if (result.timed_out) kill(-pid, SIGKILL);
  // Its output is closed: it has exited or is about to; a time-out left it killed.
  int status = 0;
  for (;;) {
    const pid_t w = waitpid(pid, &status, result.timed_out ? 0 : WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (w == 0) {
      if (std::chrono::steady_clock::now() >= deadline) {
        result.timed_out = true;
        kill(-pid, SIGKILL);
      } else {
        usleep(1000);
      }
    }
  }
  kill_group_on_interrupt(0);
  sigaction(SIGPIPE, &previous, nullptr);
  if (!result.timed_out) result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (result.out.size() >= kMaxOutput)
    throw InputError("accountant command " + quoted_list(argv), "its output", "exceeds 64 MiB");
  return result;
}

}  // namespace rdpaudit::bounds
