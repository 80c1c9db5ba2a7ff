#pragma once
// What the library (supervisor.cpp) and the supervisor program
// (supervisor_main.cpp) say to each other. Both are built from the same
// source tree and the program is embedded in the library, so they always
// agree: no versioning.
//
// The supervisor starts with exactly these descriptors and argv:
//   0, 1, 2  the program's stdin, stdout and stderr, handed on to it as they are
//   3        the control socket (SOCK_SEQPACKET): one Message per packet
//   4        its own image (the sealed memfd it was executed from); closed at once
//   argv     "hookbus-supervisor", working directory ("" for the supervisor's own),
//            program, the program's arguments; the environment is the program's.

#include <cstdint>

namespace hookbus::detail::supervisor {

inline constexpr int program_stdin = 0;
inline constexpr int program_stdout = 1;
inline constexpr int program_stderr = 2;
inline constexpr int control = 3;
inline constexpr int image = 4;

enum class Kind : std::int32_t {
  // supervisor -> library
  started,               // value: the program's pid. Always the first report, or one of the next two.
  cannot_start_program,  // value: errno from posix_spawn (no such program, not executable, no such directory)
  cannot_supervise,      // value: errno of the supervisor's own setup (subreaper, /proc, signalfd)
  exited,                // value: the program's wait status; sent once, when it is reaped
  all_exited,            // after terminate: every process of the run has exited (sent once)

  // library -> supervisor
  terminate,  // SIGTERM to the program's process group (while it runs) and to every process it
              // left behind, now and as they are abandoned, until `kill`; then all_exited
  kill,       // SIGKILL to everything the program started, reap it all, then exit
  release,    // the program exited and its output is closed: exit, leaving detached processes running
};
// End of file on the control socket (the library gave up or its process died) means kill.

struct Message {
  Kind kind;
  std::int32_t value;
};

}  // namespace hookbus::detail::supervisor
