#pragma once
// Internal: how a finished run of a hook ended, read the same for every
// protocol (hookbus's, lib/external/external.cpp; a hook format's, such as
// lib/formats/claude_code/answer.cpp), before the protocol reads its answer:
// below both, beside the debug line a run leaves (run_log.hpp).

#include <hookbus/external_hook_error.hpp>
#include <hookbus/hooks.hpp>
#include <hookbus/process.hpp>

#include <string_view>

namespace hookbus::detail {

enum class RunEnd {
  answered,     // exit code 0: the protocol reads its stdout
  exit_code_2,  // what the protocol makes of it (a refusal, mostly)
};

// Answered or exit code 2; any other end throws ExternalHookError (a time-out
// after `timeout`, stdout cut at the run's own limit, another exit status),
// through run_failed.
RunEnd triage_run(std::string_view who, const ProcessResult& run, Duration timeout);

// Throws ExternalHookError: "`who`: `what`; stderr: ...", with the end of the
// run's stderr, in valid UTF-8 (a hook's bytes enter the message here). `who`
// names the hook: its file, or its command and where that is declared.
[[noreturn]] void run_failed(std::string_view who, const ProcessResult& run, std::string_view what);

}  // namespace hookbus::detail
