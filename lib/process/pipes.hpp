#pragma once
// Pipes shared by the process runner (process.cpp), the library's side of its
// supervisor (supervisor.cpp) and the co-process (co_process.cpp).

#include <hookbus/errors.hpp>

#include "support/file_descriptor.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <stop_token>
#include <string>
#include <utility>

namespace hookbus::detail {

using Clock = std::chrono::steady_clock;

// A poll() timeout that wakes at `deadline` (capped: the caller re-checks the clock).
inline int milliseconds_until(Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<decltype(left)>(left, 0, 60'000));
}

// The supervisor starts with a fixed descriptor layout (supervisor_protocol.hpp):
// every descriptor handed to it must lie above that layout, or the dup2s that
// build it would overwrite each other (a host that closed its own stdio gets
// pipes numbered 0 to 2).
inline constexpr int first_free_descriptor = 5;

inline FileDescriptor above_fixed_descriptors(FileDescriptor fd) {
  if (fd.get() >= first_free_descriptor) return fd;
  const int moved = ::fcntl(fd.get(), F_DUPFD_CLOEXEC, first_free_descriptor);
  if (moved < 0) throw ProcessError("cannot move a file descriptor: " + error_text(errno));
  return FileDescriptor(moved);
}

struct Pipe {
  FileDescriptor read_end;
  FileDescriptor write_end;
};

// Close-on-exec, so a program started by another thread at the same time never inherits it.
inline Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw ProcessError("cannot create a pipe: " + error_text(errno));
  Pipe pipe{FileDescriptor(fds[0]), FileDescriptor(fds[1])};
  return {above_fixed_descriptors(std::move(pipe.read_end)), above_fixed_descriptors(std::move(pipe.write_end))};
}

inline void make_nonblocking(const FileDescriptor& fd) {
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags | O_NONBLOCK) != 0)
    throw ProcessError("cannot make a pipe non-blocking: " + error_text(errno));
}

// The program's three standard streams: the program's ends go to the
// supervisor (which hands them on), ours stay here.
struct StdioPipes {
  Pipe input = make_pipe();
  Pipe output = make_pipe();
  Pipe errors = make_pipe();

  // Once the supervisor holds the program's ends, ours must go: holding them
  // would keep the program's stdout open forever and its stdin reader alive.
  void close_program_ends() noexcept {
    input.read_end.close();
    output.write_end.close();
    errors.write_end.close();
  }
};

// Writing to a pipe whose reader is gone raises SIGPIPE, which by default
// kills the whole host. A library must not change the host's disposition, so
// SIGPIPE is blocked on this thread while we write, and a SIGPIPE our own
// write raised is taken off the pending set before the old mask comes back.
class SigpipeSuppressed {
 public:
  SigpipeSuppressed() noexcept {
    sigemptyset(&sigpipe_);
    sigaddset(&sigpipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &sigpipe_, &previous_mask_);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
  }
  SigpipeSuppressed(const SigpipeSuppressed&) = delete;
  SigpipeSuppressed& operator=(const SigpipeSuppressed&) = delete;
  ~SigpipeSuppressed() {
    if (raised_ && !was_pending_) {
      const timespec no_wait{};
      while (sigtimedwait(&sigpipe_, nullptr, &no_wait) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
  }

  void note_broken_pipe() noexcept { raised_ = true; }

 private:
  sigset_t sigpipe_;
  sigset_t previous_mask_;
  bool was_pending_ = false;
  bool raised_ = false;
};

// Becomes readable when a stop is requested from another thread, so the poll
// loop wakes at once. Nothing is allocated for a token that can never stop.
class StopWakeup {
 public:
  explicit StopWakeup(const std::stop_token& token)
      : token_(token),
        event_(token.stop_possible() ? ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK) : -1),
        callback_(token, Wake{event_.get()}) {
    if (token.stop_possible() && !event_.is_open())
      throw ProcessError("cannot watch the stop token: eventfd: " + error_text(errno));
  }

  [[nodiscard]] const FileDescriptor& fd() const noexcept { return event_; }
  [[nodiscard]] bool requested() const noexcept { return token_.stop_requested(); }

 private:
  struct Wake {
    int fd;
    void operator()() const noexcept {
      const std::uint64_t one = 1;
      [[maybe_unused]] const ssize_t ignored = ::write(fd, &one, sizeof one);
    }
  };

  std::stop_token token_;
  FileDescriptor event_;  // declared before the callback: it outlives it
  std::stop_callback<Wake> callback_;
};

}  // namespace hookbus::detail
