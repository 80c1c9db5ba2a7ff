#pragma once
// Internal: Claude Code's permission rules (code.claude.com/docs/en/permissions)
// as a command handler's `if` holds one (Claude Code 2.1.85 on): the handler
// runs only for the tool calls its rule matches, decided before any process
// starts. docs/claude-code-rules.md has the syntax, form by form, and what
// hookbus decided where Claude Code's docs leave it open.
//
// A rule hookbus cannot evaluate is refused when it is read, with what is
// wrong and what to write (PermissionRuleError), never taken for "always" or
// "never". A rule that is read matches in the safe direction: where hookbus
// cannot tell what a call does (a Bash command whose program is a variable,
// a file tool's call without its path), it matches, so a guard scoped by its
// `if` still runs; Claude Code does the same for Bash.

#include <hookbus/errors.hpp>

#include <boost/json/fwd.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace hookbus::detail {

class PermissionRuleError : public Error {
 public:
  using Error::Error;
};

struct PermissionRule {
  enum class Kind {
    tool,       // `Bash`, `Read(*)`, `mcp__github`, `mcp__github__*`, `*`: every call of the tools it names
    command,    // `Bash(git push *)`: the commands a Bash call runs
    path,       // `Read(./.env)`, `Edit(src/**)`: the file a file tool reads or edits
    domain,     // `WebFetch(domain:example.com)`: the host a fetch goes to
    name,       // `Agent(Explore)`, `Skill(commit)`: the subagent or the skill a call starts
    parameter,  // `Agent(model:opus)`: one top-level parameter of the call's input
  };
  // Where a path rule's pattern starts (RuleContext has the directories).
  enum class Anchor {
    filesystem_root,    // `//path`
    home,               // `~/path`
    settings_root,      // `/path`
    working_directory,  // `path`, `./path`
  };

  std::string text{};  // as written, without the blanks around it
  std::string tool{};  // a tool's name (`Agent` for `Task`), or a glob of names: `mcp__github__*`, `*`
  Kind kind = Kind::tool;
  // command: the pattern, `*` any text (`:*` at the end is written ` *`);
  // path: gitignore's pattern below the anchor; domain: a host, lower case,
  // `*` in a label; name and parameter: the value, `*` any text.
  std::string pattern{};
  std::string parameter{};                    // parameter: its name
  Anchor anchor = Anchor::working_directory;  // path
  std::size_t parents = 0;                    // path: its leading `../`, each a directory above the anchor
  bool anchored = false;                      // path: matched from the anchor down, not at any depth

  bool operator==(const PermissionRule&) const = default;
};

// One rule, `Tool` or `Tool(specifier)`. Throws PermissionRuleError, saying
// what is wrong and what to write, for a rule that is not one (empty, no
// closing parenthesis), and for one hookbus cannot evaluate as Claude Code
// does: a PowerShell command pattern, a path rule of a tool whose path rules
// Claude Code never consults (`Write(docs/**)`), a rule on a tool's primary
// parameter (`Bash(command:rm *)`), an MCP rule with parentheses, `Cd(...)`,
// a negated or commented gitignore pattern, a specifier of a tool that has
// none.
PermissionRule parse_permission_rule(std::string_view text);

// The directories path rules and relative paths are read from: absolute.
struct RuleContext {
  // Where `/path` starts: the directory of the settings source, which for a
  // project's .claude/settings.json is the project's root, for
  // .claude/settings.local.json the directory Claude Code started in, for the
  // user's settings ~/.claude, for a file given with --settings its directory.
  std::filesystem::path settings_root{};
  std::filesystem::path working_directory{};  // the event's: `path`, `./path`, and relative paths in the input
  std::filesystem::path home{};               // `~/path`
};

// Whether the call of `tool_name` with `tool_input` (the JSON object of its
// arguments) is one the rule matches. A Bash rule matches when any command
// the input runs does (`npm test && git push` matches `Bash(git *)`), the
// commands in `$(...)`, backticks, `sh -c` and after wrappers such as
// `timeout`, `env` or `xargs` among them, and whenever hookbus cannot tell
// what the input runs. A path is compared as written and as the kernel
// resolves it (`..`, links), and matches when either does.
bool matches(const PermissionRule& rule, std::string_view tool_name, const boost::json::value& tool_input,
             const RuleContext& context);

}  // namespace hookbus::detail
