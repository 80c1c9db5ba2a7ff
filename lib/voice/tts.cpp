// The `tts` built-in (docs/voice.md): on message:send, eSpeak NG speaks the
// response text into a WAV audio part, for a voice message (`is_voice`), or
// for every message with `all_messages`.
//
// eSpeak NG has one process-wide state (voice, rate, output callback), so
// every call into it holds one lock. And eSpeak NG 1.51 cannot be started
// again once stopped (after espeak_Terminate, espeak_Initialize's next
// synthesis never returns), while started it runs a thread of its own, and
// unloading it would pull the code from under that thread. So the first
// `tts` built-in starts it for the rest of the process, and pins this plugin,
// with eSpeak NG, in memory: it is the one plugin that is never unloaded.
#include <hookbus/plugin.hpp>

#include "voice/audio.hpp"

#include <espeak-ng/speak_lib.h>

#include <fmt/format.h>

#include <dlfcn.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace {

namespace voice = hookbus::voice;
using hookbus::ConfigError;
using hookbus::ConfigObject;

std::mutex espeak_mutex;
int espeak_sample_rate = 0;  // guarded by espeak_mutex: 0 until eSpeak NG is started

// eSpeak NG hands the synthesised samples to this callback, with the buffer
// given to espeak_Synth as the event's user data; a null `wav` ends them.
int collect_samples(short* wav, int count, espeak_EVENT* events) {
  if (wav != nullptr && count > 0) {
    auto* samples = static_cast<std::vector<std::int16_t>*>(events->user_data);
    samples->insert(samples->end(), wav, wav + count);
  }
  return 0;  // go on
}

struct TtsSettings {
  std::string voice = "en-us";    // the eSpeak NG voice; PocketSphinx's default model is US English too
  int speed = espeakRATE_NORMAL;  // words per minute
  bool all_messages = false;
};

TtsSettings read_settings(const ConfigObject& settings) {
  settings.allow_only({"voice", "speed", "all_messages"});
  TtsSettings read;
  if (const auto value = settings.find("voice")) read.voice = value->as_nonempty_string();
  if (const auto value = settings.find("speed"))
    read.speed = static_cast<int>(value->as_integer(espeakRATE_MINIMUM, espeakRATE_MAXIMUM));
  if (const auto value = settings.find("all_messages")) read.all_messages = value->as_bool();
  return read;
}

// Keeps this plugin, and so eSpeak NG, loaded until the process ends.
void pin_this_plugin() {
  Dl_info self{};
  if (::dladdr(reinterpret_cast<void*>(&collect_samples), &self) == 0 || self.dli_fname == nullptr ||
      ::dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) == nullptr)
    throw std::runtime_error("tts: cannot keep its plugin loaded, which eSpeak NG needs once started");
}

// With espeak_mutex held.
void start_espeak(const ConfigObject& where) {
  if (espeak_sample_rate > 0) return;
  // DONT_EXIT: without it, missing voice data makes eSpeak NG end the process.
  const int sample_rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nullptr, espeakINITIALIZE_DONT_EXIT);
  if (sample_rate <= 0)
    throw ConfigError(where.location(),
                      "eSpeak NG cannot start: its voice data (Debian's espeak-ng-data) is "
                      "missing; install libespeak-ng1 and espeak-ng-data");
  espeak_SetSynthCallback(collect_samples);
  espeak_sample_rate = sample_rate;
  pin_this_plugin();
}

// One `tts` built-in's use of eSpeak NG: its voice and speed, checked when made.
class Speaker {
 public:
  Speaker(TtsSettings settings, const ConfigObject& where) : settings_(std::move(settings)) {
    std::lock_guard lock(espeak_mutex);
    start_espeak(where);
    if (espeak_SetVoiceByName(settings_.voice.c_str()) != EE_OK) {
      const auto found = where.find("voice");
      throw ConfigError(found ? found->location() : where.location(),
                        fmt::format("eSpeak NG has no voice '{}'; `espeak-ng --voices` lists them (e.g. en-us, "
                                    "en-gb, de, fr)",
                                    settings_.voice));
    }
  }

  [[nodiscard]] bool speaks(const hookbus::MessageSendEvent& message) const {
    return !message.response_text.empty() && (message.is_voice || settings_.all_messages);
  }

  voice::Pcm speak(const std::string& text) const {
    std::lock_guard lock(espeak_mutex);
    voice::Pcm pcm{.samples = {}, .sample_rate = espeak_sample_rate};
    // The voice and rate are global: set for each message, as another Speaker may have changed them.
    espeak_SetVoiceByName(settings_.voice.c_str());
    espeak_SetParameter(espeakRATE, settings_.speed, 0);
    // Synchronous output: espeak_Synth returns once every sample went to collect_samples.
    const espeak_ERROR synthesised =
        espeak_Synth(text.c_str(), text.size() + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8, nullptr, &pcm.samples);
    if (synthesised != EE_OK)
      throw std::runtime_error(
          fmt::format("tts: eSpeak NG failed to speak the response (error {})", static_cast<int>(synthesised)));
    return pcm;
  }

 private:
  TtsSettings settings_;
};

std::optional<hookbus::MessageSendResult> speak_response(const Speaker& speaker,
                                                         const hookbus::MessageSendEvent& message) {
  if (!speaker.speaks(message)) return std::nullopt;
  const std::string wav = voice::wav_file(speaker.speak(message.response_text));
  return hookbus::MessageSendResult{
      .parts = {hookbus::AudioPart{std::string(voice::wav_mime_type), voice::base64_encode(wav)}}};
}

}  // namespace

HOOKBUS_BUILTIN_PLUGIN("tts") {
  builtins.add("tts", [](const ConfigObject& settings) -> hookbus::BuiltinProvider {
    auto speaker = std::make_shared<const Speaker>(read_settings(settings), settings);
    return [speaker](hookbus::Registrar& registrar) {
      registrar.on<hookbus::MessageSendEvent>(
          [speaker](const hookbus::MessageSendEvent& message) { return speak_response(*speaker, message); },
          {.label = "builtin:tts", .kind = hookbus::HandlerKind::builtin});
    };
  });
}
