#pragma once
// Internal: what config asks of the hook formats while it reads a hooks.NAME
// entry (config.cpp). Config knows an entry's shape; whether the "events"
// and the "matcher" of a hook of a format's protocol ("protocol":
// "claude_code") mean anything is the format's business, and only the
// format knows its event names. Declared here, defined by the formats
// (lib/formats/hook_format.cpp): config includes nothing of them, and this
// is its one call into a higher layer.

#include <hookbus/config.hpp>

namespace hookbus::detail {

// Checks the events and the matcher of `entry`, which names `protocol`:
// throws ConfigError at the element for an event the format does not have
// (hooks["v.sh"].events[1]), at the matcher for one it cannot read. Nothing
// to check for hookbus's own protocol and kodelet's.
void check_format_hook_entry(HookProtocol protocol, const ConfigObject& entry);

}  // namespace hookbus::detail
