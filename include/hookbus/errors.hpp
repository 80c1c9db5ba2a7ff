#pragma once
// Exceptions hookbus throws. Each message says what went wrong, where, and how to fix it.

#include <stdexcept>
#include <string>

namespace hookbus {

// Base of every hookbus error, so an engine can catch them as one family.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A wire name or alias that is not in the catalogue. The message lists the valid names.
class UnknownEventError : public Error {
 public:
  using Error::Error;
};

// JSON that does not match the catalogue. `path()` is where in the document
// (e.g. "tool_call.input"); the message already includes it.
class JsonError : public Error {
 public:
  JsonError(std::string path, const std::string& what)
      : Error(path.empty() ? what : path + ": " + what), path_(std::move(path)) {}
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

// A program could not be started (not found, not executable, no such
// working directory, out of resources): thrown by run_process (process.hpp),
// CoProcess (co_process.hpp) and the external-hook runners. The message names
// the program.
class ProcessError : public Error {
 public:
  using Error::Error;
};

}  // namespace hookbus
