// The helpers of the shared value types (include/hookbus/types.hpp).
#include <hookbus/types.hpp>

#include <utility>

namespace hookbus {

Timestamp timestamp_now() noexcept {
  return std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now());
}

std::string text_of(const std::vector<ContentPart>& parts) {
  std::string text;
  bool first = true;
  for (const auto& part : parts)
    if (const auto* text_part = std::get_if<TextPart>(&part)) {
      if (!first) text += '\n';
      text += text_part->text;
      first = false;
    }
  return text;
}

Message Message::user(std::string text) {
  return Message{.role = Role::user, .content = {TextPart{std::move(text)}}};
}

Message Message::assistant(std::string text, std::vector<ToolCall> tool_calls) {
  Message message{.role = Role::assistant, .tool_calls = std::move(tool_calls)};
  if (!text.empty()) message.content.emplace_back(TextPart{std::move(text)});
  return message;
}

}  // namespace hookbus
