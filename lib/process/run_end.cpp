// How a finished run of a hook ended (process/run_end.hpp).
#include "process/run_end.hpp"

#include "support/utf8.hpp"

#include <fmt/format.h>

namespace hookbus::detail {

// Messages and reasons are made valid UTF-8 here, where a hook's bytes (its
// stderr, its file name) enter results and errors.
void run_failed(std::string_view who, const ProcessResult& run, std::string_view what) {
  const std::string tail = run.stderr_tail();
  throw ExternalHookError(valid_utf8(fmt::format("{}: {}{}{}", who, what, tail.empty() ? "" : "; stderr: ", tail)));
}

RunEnd triage_run(std::string_view who, const ProcessResult& run, Duration timeout) {
  if (run.timed_out) run_failed(who, run, fmt::format("timed out after {} ms (its timeout)", timeout.count()));
  if (run.stdout_truncated)
    run_failed(who, run, fmt::format("printed more than its stdout limit of {} bytes", run.stdout_limit));
  if (run.exit_code == 2) return RunEnd::exit_code_2;
  if (!run.succeeded()) run_failed(who, run, run.status());
  return RunEnd::answered;
}

}  // namespace hookbus::detail
