// The fuzz targets' seed corpus, made from the catalogue: `fuzz_seeds DIR`
// writes DIR/<target>/<name> for each target of test/fuzz (tools/fuzz runs it
// before fuzzing). Every event and result appears at its default and with
// random values in every field, so the fuzzers start from each shape the
// readers know instead of discovering them byte by byte.
#include "elf_image.hpp"
#include "random_values.hpp"

#include <hookbus/json.hpp>
#include <hookbus/names.hpp>
#include <hookbus/trace.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <sstream>
#include <string>
#include <string_view>

namespace {

namespace fs = std::filesystem;
using namespace hookbus;

class Corpus {
 public:
  explicit Corpus(fs::path root) : root_(std::move(root)) {}

  void add(std::string_view target, const std::string& name, std::string_view bytes) const {
    fs::create_directories(root_ / target);
    std::ofstream(root_ / target / name, std::ios::binary | std::ios::trunc) << bytes;
  }

 private:
  fs::path root_;
};

const TraceHeader kTraceHeader{.started = {}, .pid = 1234, .host = "build-7", .project = "/home/dev/project"};

// The index byte the by-index targets start with, then the JSON.
std::string indexed(std::size_t index, const std::string& json) { return std::string(1, static_cast<char>(index)) + json; }

// The answer target's input: byte 0 picks the protocol (bit 0) and event, byte
// 1 how the run ended (0: exit 0, 3: exit 2, 5: exit 1), then stdout, NUL, stderr.
std::string answer(bool claude, std::size_t event, std::uint8_t how, std::string_view out, std::string_view err) {
  std::string input{static_cast<char>((event << 1) | (claude ? 1 : 0)), static_cast<char>(how)};
  return input + std::string(out) + '\0' + std::string(err);
}

void events_and_results(const Corpus& corpus) {
  testing::RandomValues random(2026);
  for (std::size_t i = 0; i < event_count; ++i) {
    const std::string name(event_name(i));
    std::visit(
        [&]<class E>(const E&) {
          for (int variant = 0; variant < 3; ++variant) {
            const E event = variant == 0 ? E{} : random.make<E>();
            const std::string json = write_json(to_json(event));
            const std::string file = fmt::format("{}-{}", name, variant);
            corpus.add("event_by_name", file, json);
            corpus.add("event_by_index", file, indexed(i, json));
            EmissionRecord record{.seq = static_cast<std::uint64_t>(variant), .thread = 1, .payload = event};
            if constexpr (EventWithResult<E>) {
              const result_t<E> result = variant == 0 ? result_t<E>{} : random.make<result_t<E>>();
              const std::string answer_json = write_json(to_json(result));
              corpus.add("result", file, indexed(i, answer_json));
              corpus.add("answer", file + "-exit0", answer(false, i, 0, answer_json, ""));
              boost::json::object line = to_json(result).as_object();
              line["id"] = 1;
              corpus.add("persistent_answer", file, indexed(i, write_json(line)));
              record.result = result;
            }
            record.handlers.push_back(HandlerRecord{.label = "guard", .kind = RecordedKind::external,
                                                    .source = ".hookbus/hooks/guard", .protocol = "hookbus",
                                                    .layer = Layer::project, .action = HandlerAction::no_change});
            corpus.add("trace_file", file, trace_line(kTraceHeader) + "\n" + trace_line(record) + "\n");
          }
        },
        make_event(i));
    corpus.add("answer", name + "-exit2", answer(false, i, 3, "", "reason \xff\xfe here\n"));
    corpus.add("answer", name + "-exit1", answer(false, i, 5, "", "Traceback: boom\n"));
    corpus.add("persistent_answer", name + "-null", indexed(i, R"({"id": 1})"));
    corpus.add("persistent_answer", name + "-error", indexed(i, R"({"id": 1, "error": "no database"})"));
  }
  // Answers out of step, and in older words.
  corpus.add("persistent_answer", "other-id", indexed(0, R"({"id": 2, "decision": "deny"})"));
  corpus.add("persistent_answer", "no-id", indexed(0, R"({"decision": "deny"})"));
  corpus.add("persistent_answer", "blocked", indexed(0, R"({"id": 1, "blocked": true, "reason": "no"})"));
  corpus.add("persistent_answer", "not-an-object", indexed(0, "[1]"));
  // Answers in older words (kodelet's, hookbus's former ones).
  corpus.add("answer", "blocked", answer(false, 0, 0, R"({"blocked": true, "reason": "no"})", ""));
  corpus.add("answer", "block", answer(false, 0, 0, R"({"block": true})", ""));
  corpus.add("answer", "kodelet-output",
             answer(false, 0, 0, R"({"output": {"toolName": "bash", "success": false, "error": "x"}})", ""));
}

void claude_code_answers(const Corpus& corpus) {
  const std::string_view answers[] = {
      R"({"decision": "block", "reason": "not now"})",
      R"({"continue": false, "stopReason": "done", "systemMessage": "hi", "suppressOutput": true})",
      R"({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no", "updatedInput": {"command": "ls"}}})",
      R"({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "context"}})",
      R"({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedInput": {}}}})",
      R"({"decision": "approve"})",
      "plain text for the model\n"};
  for (std::size_t event = 0; event < 12; ++event) {
    for (std::size_t i = 0; i < std::size(answers); ++i)
      corpus.add("answer", fmt::format("claude-{}-{}", event, i), answer(true, event, 0, answers[i], ""));
    corpus.add("answer", fmt::format("claude-{}-exit2", event), answer(true, event, 3, "", "blocked \xc3 here"));
  }
}

// A trace of several emits, nested and with every action a handler records.
void traces(const Corpus& corpus) {
  std::string text = trace_line(kTraceHeader) + "\n";
  std::uint64_t seq = 0;
  for (const HandlerAction action : {HandlerAction::allow, HandlerAction::deny, HandlerAction::failed,
                                     HandlerAction::skipped, HandlerAction::patch}) {
    EmissionRecord record{.seq = seq++, .thread = 1, .start = std::chrono::sys_time<std::chrono::nanoseconds>(
                                                         std::chrono::nanoseconds(1795000000123456789 + seq * 1000)),
                          .duration = std::chrono::nanoseconds(48211),
                          .payload = ToolCallEvent{.tool_call_id = "c1", .tool_name = "bash",
                                                   .input = {{"command", "rm -rf /"}}}};
    record.handlers.push_back(HandlerRecord{.label = "guard", .duration = std::chrono::nanoseconds(900),
                                            .action = action, .reason = "why", .error = "boom"});
    record.result = ToolCallResult{};
    text += trace_line(record) + "\n";
  }
  // A run of a wrapped step: a retrying wrapper, a fail-open one inside it, two attempts.
  EmissionRecord run{.seq = seq++, .thread = 1, .duration = std::chrono::nanoseconds(90000),
                     .payload = ToolCallEvent{.tool_call_id = "c2", .tool_name = "bash", .input = {{"command", "make"}}}};
  run.step = StepRecord{{
      {.label = "retry", .next_calls = 2},
      {.label = "logger", .parent = 0, .outcome = StepOutcome::failed, .error = "disk full"},
      {.step = true, .parent = 1, .outcome = StepOutcome::threw, .error = "timeout"},
      {.step = true, .parent = 0},
  }};
  text += trace_line(run) + "\n";
  corpus.add("trace_file", "session", text);
}

// Claude Code settings files: every event, every key of a command, what is skipped.
void claude_code_settings(const Corpus& corpus) {
  corpus.add("claude_code_settings", "empty", "{}");
  corpus.add("claude_code_settings", "every-key", R"json({
  "disableAllHooks": false,
  "permissions": { "allow": ["Bash(ls:*)"] },
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash|Edit", "hooks": [
        { "type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh", "timeout": 30,
          "async": false, "once": true, "statusMessage": "checking" } ] },
      { "matcher": "mcp__.*__write.*", "hooks": [ { "type": "prompt", "prompt": "is this safe?" } ] }
    ],
    "PostToolUse": [ { "matcher": "*", "hooks": [ { "type": "command", "command": "~/bin/log", "async": true } ] } ],
    "PostToolUseFailure": [ { "hooks": [ { "type": "command", "command": "notify failed" } ] } ],
    "PermissionRequest": [ { "matcher": "", "hooks": [ { "type": "command", "command": "ask-me" } ] } ],
    "UserPromptSubmit": [ { "hooks": [ { "type": "command", "command": "check-prompt", "timeout": 1.5 } ] } ],
    "Notification": [ { "hooks": [ { "type": "command", "command": "notify-send hi" } ] } ],
    "Stop": [ { "hooks": [ { "type": "command", "command": "stop" } ] } ],
    "SubagentStart": [ { "hooks": [ { "type": "command", "command": "sub" } ] } ],
    "SubagentStop": [ { "hooks": [ { "type": "command", "command": "sub" } ] } ],
    "PreCompact": [ { "matcher": "auto", "hooks": [ { "type": "command", "command": "compact" } ] } ],
    "SessionStart": [ { "matcher": "startup", "hooks": [ { "type": "command", "command": "start" } ] } ],
    "SessionEnd": [ { "hooks": [ { "type": "command", "command": "end" } ] } ],
    "Setup": [ { "hooks": [ { "type": "command", "command": "not ours" } ] } ]
  }
})json");
  corpus.add("claude_code_settings", "plugin", R"({"description": "a plugin", "hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/check.sh"}]}]}})");
}

// Every key the config reader knows, checked by ConfigTest.TheFuzzSeedUsesEveryKeyTheReaderKnows.
std::string every_config_key() {
  std::ifstream in(HOOKBUS_CONFIG_EVERY_KEY, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw std::runtime_error("cannot read " HOOKBUS_CONFIG_EVERY_KEY);
  return text.str();
}

void configs(const Corpus& corpus) {
  corpus.add("config", "empty", "{}");
  corpus.add("config", "every-key", every_config_key());
  corpus.add("config", "documented", R"json({
  "builtins": {
    "audit":       { "file": ".hookbus/audit.jsonl" },
    "tool_policy": {
      "deny": [
        "mcp__*",
        { "tool": "bash", "argument": "command", "pattern": "rm\\s+-rf\\s+/", "reason": "no recursive delete of /" }
      ],
      "allow": [ { "tool": "bash", "argument": "command", "pattern": "^ls( |$)" } ]
    },
    "redact":      { "patterns": ["internal-[0-9]{6}"], "default_patterns": true },
    "tool_stats":  { "log_every": 10 }
  },
  "hook_directories": ["tools/hooks"],
  "timeout_ms": 30000,
  "hooks": {
    "block-rm-rf":      { "timeout_ms": 5000, "failure": "fail_closed" },
    "org/repo/lint":    { "disabled": true },
    "guard":            { "events": ["before_tool_call"], "tools": "bash|shell" },
    "validate-bash.sh": { "protocol": "claude_code", "events": ["PreToolUse"], "matcher": "Bash" }
  },
  "claude_code": { "settings": ["user", "project", "local"], "tool_names": { "bash": "Bash" } },
  "disable_all_hooks": false
})json");
  corpus.add("config", "tool-policy", R"({"builtins": {"tool_policy": {"deny": ["deploy", {"tool": "bash"}]}}})");
}

// Shared objects as small as the loader reads them, with what a plugin's
// dynamic section names: libraries, a run path, DT_RPATH.
void shared_objects(const Corpus& corpus) {
  using testing::elf_image;
  corpus.add("elf_dynamic", "nothing", elf_image({}, std::nullopt).bytes);
  corpus.add("elf_dynamic", "runpath", elf_image({"libhelper.so", "libc.so.6"}, "$ORIGIN/lib:/opt/x").bytes);
  corpus.add("elf_dynamic", "rpath", elf_image({"$ORIGIN/libhelper.so"}, std::nullopt, "${ORIGIN}/lib::lib").bytes);
}

// Shell commands of each kind the resolver follows or reports, in the
// project fuzz_shell_command makes (hooks/guard.sh, guard-link, tools/pkg, Makefile).
void shell_commands(const Corpus& corpus) {
  corpus.add("shell_command", "script", "\"$CLAUDE_PROJECT_DIR\"/hooks/guard.sh --strict 2>/dev/null");
  corpus.add("shell_command", "prefixes", "cd hooks && env A=1 nice -n 5 timeout 10 sh -c './guard.sh; exit 0'");
  corpus.add("shell_command", "interpreters", "bash guard-link || python3 -m tools.pkg | make -C . -f Makefile check");
  corpus.add("shell_command", "compound", "if [ -x hooks/guard.sh ]; then . hooks/common.sh; fi; for f in a b; do "
                                          "case $f in a) ./guard-link;; esac; done & { (cd ~ && ls); }");
  corpus.add("shell_command", "unresolved", "eval \"$X\"; $(cat .hookrc) `date` hooks/*.sh npx prettier <<EOF\n$HOME\nEOF\n");
}

// The parts of issue 28 (docs/claude-code-rules.md): each documented form of
// a permission rule with a call it is matched on (byte 0 picks the tool: 0
// Bash, 1 Read, 2 Edit, 3 Grep, 4 WebFetch, 5 Agent, 6 Skill, 7 an MCP tool),
// the documented CLAUDE_ENV_FILE lines and what bash's export -p prints, and
// Codex's [hooks] tables.
void hook_formats(const Corpus& corpus) {
  const auto rule = [&](const std::string& name, char tool, std::string_view text, std::string_view argument) {
    corpus.add("permission_rule", name, std::string(1, tool) + std::string(text) + '\0' + std::string(argument));
  };
  rule("bash-prefix", 0, "Bash(git push:*)", "npm test && git push origin main");
  rule("bash-wildcards", 0, "Bash(git log * main)", "FOO=1 timeout 5 git log --oneline main | head");
  rule("bash-substitution", 0, "Bash(rm *)", "echo $(rm -rf /) `date` <(cat x) && sh -c 'cd x; rm y'");
  rule("bash-compound", 0, "Bash(npm run *)", "if true; then npm run build; fi; for f in a; do echo $f; done");
  rule("read-dot", 1, "Read(./.env)", "/nonexistent/project/sub/../.env");
  rule("read-dot-alone", 1, "Read(..)", "/nonexistent/x");
  rule("read-bare", 1, "Read(*.env)", "/nonexistent/project/sub/a.env");
  rule("read-home", 1, "Read(~/.ssh/**)", "/nonexistent/home/.ssh/id_rsa");
  rule("read-absolute", 1, "Read(//etc/[a-p]*wd)", "/etc/passwd");
  rule("edit-root", 2, "Edit(/src/**/*.ts)", "/nonexistent/project/src/a/b.ts");
  rule("edit-directory", 2, "Edit(src/)", "src/x");
  rule("grep", 3, "Read(../shared/**)", "/nonexistent/shared");
  rule("webfetch", 4, "WebFetch(domain:*.example.com)", "https://user@api.Example.com.:8080/x?y#z");
  rule("agent", 5, "Agent(Explore)", "Explore");
  rule("agent-parameter", 5, "Task(model:opus)", "opus");
  rule("skill", 6, "Skill(plugin:commit)", "plugin:commit");
  rule("mcp", 7, "mcp__github__*", "");
  rule("error", 0, "Bash(rm *) && Read(.env)", "rm x");
  corpus.add("env_file", "documented", "export NODE_ENV=production\nexport DEBUG_LOG=true\n"
                                       "export PATH=\"$PATH:./node_modules/.bin\"\n");
  corpus.add("env_file", "export-p", "declare -x A=\"x\\\"y\\$z\"\ndeclare -x B=$'a\\nb\\x01'\ndeclare -x C\n");
  corpus.add("env_file", "forms", "# a comment\nA=1; export A B=~/bin:$HOME C='it''s'\ntypeset -x D=\"multi\nline\"\n"
                                  "export E=$(date) F=${G:-x}\nunset A\necho hi && export H=1\n");
  corpus.add("codex_toml", "documented", R"toml([[hooks.PreToolUse]]
matcher = "Bash"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "python3 .codex/hooks/guard.py"
timeout = 30
statusMessage = "Checking"
)toml");
  corpus.add("codex_toml", "every-form", R"toml(model = "o3"
[features]
hooks = true
[hooks]
Stop = [{ hooks = [{ type = "command", command = "./stop", async = false, command_windows = "stop.cmd" }] }]
[[hooks.PostToolUse]]
matcher = "Edit|Write"
hooks = [{ type = "command", command = "./format", timeout_sec = 5 }]
[hooks.state."config.toml:stop:0:0"]
enabled = false
trusted_hash = "sha256:0"
)toml");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fuzz_seeds DIR\n";
    return 2;
  }
  const Corpus corpus(argv[1]);
  events_and_results(corpus);
  claude_code_answers(corpus);
  claude_code_settings(corpus);
  traces(corpus);
  configs(corpus);
  shared_objects(corpus);
  hook_formats(corpus);
  shell_commands(corpus);
  return 0;
}
