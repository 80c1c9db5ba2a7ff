#pragma once
// A setting naming a file for hookbus to write (the trace files, the audit
// log), read by the rules of support/confined_file.hpp when the config is
// read, so a project's config that names one it may not is an error before
// anything of it runs.

#include <hookbus/config.hpp>

#include "support/confined_file.hpp"

namespace hookbus::detail {

// The file `value` names for hookbus to write, checked when the config is
// read: a ConfigError naming the file and key when it names a directory, or,
// in a project layer's config (`in_project`), a path the project may not
// have written to (why_not_in_project). Relative to the config's project
// directory (the working directory when it has none), which confines a
// project's file.
FileToWrite file_to_write(const ConfigValue& value, bool in_project);

// Whether the config at `where` is a project layer's (ConfigLocation::layer).
bool in_project_config(const ConfigLocation& where) noexcept;

}  // namespace hookbus::detail
