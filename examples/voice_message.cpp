// One voice message through the voice built-ins (docs/voice.md), as a chat
// gateway would pass it: `tts` speaks the agent's answer into a WAV part on
// message:send, and `stt` turns that audio, received back as a user's voice
// message, into text on message:receive. Listening with a grammar of a few
// commands (argv[1]), and then with the open-vocabulary model, to show both.
// Needs the voice plugins: HOOKBUS_BUILTIN_PLUGIN_DIR names them in a build tree.

#include <hookbus/hookbus.hpp>

#include <fmt/format.h>

#include <iostream>
#include <string>

using namespace hookbus;

namespace {

std::string transcript(const BuiltinRegistry& builtins, const AudioPart& audio, const boost::json::object& settings) {
  Hooks hooks;
  const ConnectionGroup stt = builtins.install(hooks, "stt", settings);
  const MessageReceiveResult received = hooks.emit(MessageReceiveEvent{.channel_id = "voice", .parts = {audio}});
  if (received.action != ReceiveAction::transform || !received.parts) return "(no transcript)";
  return std::get<TextPart>(received.parts->at(0)).text;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: voice_message GRAMMAR.gram\n";
    return 2;
  }
  try {
    const BuiltinRegistry builtins = default_builtins();
    Hooks hooks;
    const ConnectionGroup tts = builtins.install(hooks, "tts", {});
    const std::string answer = "turn on the kitchen light";
    const MessageSendResult sent =
        hooks.emit(MessageSendEvent{.channel_id = "voice", .response_text = answer, .is_voice = true});
    const auto& audio = std::get<AudioPart>(sent.parts.at(0));
    fmt::print("tts spoke \"{}\": {} with {} bytes of base64\n", answer, audio.mime_type, audio.data.size());
    fmt::print("stt heard, with the grammar {}: \"{}\"\n", argv[1],
               transcript(builtins, audio, {{"grammar", argv[1]}}));
    fmt::print("stt heard, with the open-vocabulary model: \"{}\"\n", transcript(builtins, audio, {}));
  } catch (const ConfigError& error) {
    std::cerr << "voice_message: " << error.what() << '\n';
    return 1;
  }
  return 0;
}
