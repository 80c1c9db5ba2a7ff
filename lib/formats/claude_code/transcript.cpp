// The Claude-Code-format transcript hookbus keeps of what it saw on the bus,
// for hooks that read `transcript_path` (include/hookbus/claude_code.hpp).
#include "formats/claude_code/transcript.hpp"

#include <hookbus/claude_code.hpp>
#include <hookbus/json.hpp>

#include "support/logging.hpp"
#include "support/sha256.hpp"
#include "support/utc_time.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <system_error>

namespace hookbus {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

// A Claude-Code-format JSONL transcript of the messages seen on the bus, one
// file per session, for hooks that read `transcript_path` (Stop hooks do).
class Transcript {
 public:
  explicit Transcript(fs::path directory, ClaudeCodeToolNames names)
      : directory_(std::move(directory)), names_(std::move(names)) {}

  void record(const MessageEndEvent& event) {
    const std::lock_guard lock(mutex_);
    std::string& parent = last_uuid_[event.context.session_id];
    const std::string uuid = fmt::format("{:016x}{:016x}", random_(), random_());
    json::object line{{"parentUuid", parent.empty() ? json::value(nullptr) : json::value(parent)},
                      {"sessionId", event.context.session_id},
                      {"cwd", event.context.cwd},
                      {"uuid", uuid},
                      {"timestamp", detail::utc_now_text(detail::TimePrecision::milliseconds)}};
    const Message& message = event.message;
    json::array content;
    for (const auto& part : message.content) {
      if (const auto* text = std::get_if<TextPart>(&part)) content.push_back(json::object{{"type", "text"}, {"text", text->text}});
    }
    if (message.role == Role::assistant) {
      for (const auto& call : message.tool_calls)
        content.push_back(json::object{{"type", "tool_use"}, {"id", call.id}, {"name", names_.to_claude(call.name)}, {"input", call.input}});
      line["type"] = "assistant";
      line["message"] = json::object{{"role", "assistant"}, {"content", std::move(content)}};
    } else if (message.role == Role::tool) {
      json::array result{json::object{{"type", "tool_result"}, {"tool_use_id", message.tool_call_id.value_or("")},
                                      {"content", std::move(content)}}};
      line["type"] = "user";
      line["message"] = json::object{{"role", "user"}, {"content", std::move(result)}};
    } else {
      line["type"] = message.role == Role::system ? "system" : "user";
      line["message"] = json::object{{"role", message.role == Role::system ? "system" : "user"}, {"content", std::move(content)}};
    }
    detail::append_to_transcript(directory_, claude_code_transcript_path(directory_, event.context.session_id),
                         write_json(line) + "\n");
    parent = uuid;
  }

 private:
  fs::path directory_;
  ClaudeCodeToolNames names_;
  std::mutex mutex_;
  std::map<std::string, std::string> last_uuid_;  // per session
  std::mt19937_64 random_{std::random_device{}()};
};

// A session id as a file name (claude_code.hpp): percent-encoded, hashed when very long.
std::string transcript_file_name(std::string_view session_id) {
  if (session_id.empty()) return "session";
  constexpr std::size_t kMaxName = 200;  // well under NAME_MAX with ".jsonl"
  std::string name;
  for (const char c : session_id) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0 && byte < 0x80) name += c;
    else if (c == '-' || c == '_') name += c;
    else name += fmt::format("%{:02X}", byte);
  }
  if (name.size() > kMaxName) name = name.substr(0, kMaxName - 65) + "-" + detail::sha256_hex(session_id);
  return name;
}

}  // namespace

void detail::append_to_transcript(const fs::path& directory, const fs::path& file, std::string_view text) {
  std::error_code ec;
  if (!fs::is_directory(directory, ec)) {
    fs::create_directories(directory, ec);
    ::chmod(directory.c_str(), 0700);
  }
  const int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    detail::log(spdlog::level::warn, "transcript {} not written: {}", file.string(), std::generic_category().message(errno));
    return;
  }
  if (!text.empty() && ::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    detail::log(spdlog::level::warn, "transcript {} not fully written", file.string());
  ::close(fd);
}

std::filesystem::path claude_code_transcript_path(const std::filesystem::path& transcript_dir, std::string_view session_id) {
  return transcript_dir / (transcript_file_name(session_id) + ".jsonl");
}

Connection record_claude_code_transcript(Hooks& hooks, const std::filesystem::path& transcript_dir,
                                         const ClaudeCodeToolNames& tool_names) {
  auto transcript = std::make_shared<Transcript>(transcript_dir, tool_names);
  return hooks.on<MessageEndEvent>([transcript](const MessageEndEvent& event) { transcript->record(event); },
                                   {.label = "claude_code:transcript", .priority = std::numeric_limits<int>::min()});
}

}  // namespace hookbus
