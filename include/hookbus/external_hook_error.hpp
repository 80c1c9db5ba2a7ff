#pragma once
// The error of a hook run that failed (external.hpp; a hook format's
// command, claude_code.hpp), in a header of its own: the hook formats throw
// it without the external-hook runner.

#include <hookbus/errors.hpp>

namespace hookbus {

// A hook run that failed. The message names the hook's file, or its command
// and where that is declared, and says what went wrong, with the end of its
// stderr.
class ExternalHookError : public Error {
 public:
  using Error::Error;
};

}  // namespace hookbus
