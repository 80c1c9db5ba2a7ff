// The `stt` built-in (docs/voice.md): on message:receive, each audio part
// becomes a text part with what PocketSphinx hears in it, through the
// transform action. A message without audio passes unchanged.
//
// PocketSphinx (Debian 12: 0.8+5prealpha) logs through a process-wide
// callback and documents no thread safety, so every call into it, from any
// decoder, holds one lock: transcriptions are serialised across the process.
#include <hookbus/builtins.hpp>  // builtin_priority
#include <hookbus/plugin.hpp>

#include "voice/audio.hpp"

#include <pocketsphinx.h>
#include <sphinxbase/cmn.h>
#include <sphinxbase/err.h>
#include <sphinxbase/feat.h>
#include <sphinxbase/fsg_model.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace voice = hookbus::voice;
using hookbus::ConfigError;
using hookbus::ConfigObject;
using hookbus::ConfigValue;

const fs::path model_dir = HOOKBUS_POCKETSPHINX_MODEL_DIR;

// --------------------------------------------------- the PocketSphinx lock

std::mutex sphinx_mutex;
std::vector<std::string>* sphinx_errors = nullptr;  // guarded by sphinx_mutex: where errors go during a call

// PocketSphinx's log: its errors are kept for the caller, its chatter dropped.
void keep_errors(void*, err_lvl_t level, const char* format, ...) {
  if (level < ERR_ERROR || sphinx_errors == nullptr) return;
  char text[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  std::string message(text);
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  sphinx_errors->push_back(std::move(message));
}

// Holds the lock for one use of PocketSphinx, with its errors going to
// `errors()` and the rest of its log nowhere; afterwards its log is as before
// (its default callback), so no pointer into this plugin stays in the library
// once the plugin is unloaded.
class SphinxCall {
 public:
  SphinxCall() : lock_(sphinx_mutex), previous_log_(err_get_logfp()) {
    sphinx_errors = &errors_;
    err_set_callback(keep_errors, nullptr);
    err_set_logfp(nullptr);  // what it prints itself (its configuration) rather than through the callback
  }
  ~SphinxCall() {
    err_set_logfp(previous_log_);
    err_set_callback(err_logfp_cb, nullptr);
    sphinx_errors = nullptr;
  }
  SphinxCall(const SphinxCall&) = delete;
  SphinxCall& operator=(const SphinxCall&) = delete;
  [[nodiscard]] const std::vector<std::string>& errors() const { return errors_; }

 private:
  std::lock_guard<std::mutex> lock_;
  FILE* previous_log_;
  std::vector<std::string> errors_;
};

// ------------------------------------------------------------- settings

// What the decoder searches for: an n-gram language model (any words), or a JSGF grammar (its phrases).
enum class SearchKind { language_model, grammar };

struct SttSettings {
  fs::path acoustic_model = model_dir / "en-us" / "en-us";
  fs::path dictionary = model_dir / "en-us" / "cmudict-en-us.dict";
  SearchKind search = SearchKind::language_model;
  fs::path search_file = model_dir / "en-us" / "en-us.lm.bin";
  int sample_rate = 16000;
};

fs::path existing(const ConfigValue& value, bool directory, std::string_view what) {
  const fs::path path = value.as_path();
  std::error_code ec;
  const bool found = directory ? fs::is_directory(path, ec) : fs::is_regular_file(path, ec);
  if (!found)
    throw ConfigError(value.location(), fmt::format("expected {}, but {} is not {}", what, path.string(),
                                                    directory ? "a directory" : "a file"));
  return path;
}

SttSettings read_settings(const ConfigObject& settings) {
  settings.allow_only({"acoustic_model", "dictionary", "language_model", "grammar", "sample_rate"});
  SttSettings read;
  if (const auto value = settings.find("acoustic_model"))
    read.acoustic_model = existing(*value, true, "the directory of a PocketSphinx acoustic model");
  if (const auto value = settings.find("dictionary"))
    read.dictionary = existing(*value, false, "a pronunciation dictionary file");
  const auto language_model = settings.find("language_model");
  const auto grammar = settings.find("grammar");
  if (language_model && grammar)
    throw ConfigError(settings.location(), "set language_model or grammar, not both: the decoder searches one");
  if (language_model)
    read.search_file = existing(*language_model, false, "an n-gram language model file (.lm, .lm.bin)");
  if (grammar) {
    read.search = SearchKind::grammar;
    read.search_file = existing(*grammar, false, "a JSGF grammar file");
  }
  if (const auto value = settings.find("sample_rate"))
    read.sample_rate = static_cast<int>(value->as_integer(8000, 48000));
  return read;
}

// -------------------------------------------------------------- decoder

// The name ps_init gives the search the settings configure (the language model
// or the grammar). ps_get_search would tell, but leaks in this version.
constexpr const char* configured_search = "_default";

// Adds a search that hears one word and nothing else. (Built as a finite-state
// grammar: ps_set_jsgf_string leaks the grammar it parses in this version.)
bool add_one_word_search(ps_decoder_t* decoder, const char* name, const char* word) {
  fsg_model_t* one_word = fsg_model_init(name, ps_get_logmath(decoder), 1.0, 2);
  fsg_model_trans_add(one_word, 0, 1, 0, fsg_model_word_add(one_word, word));
  one_word->start_state = 0;
  one_word->final_state = 1;
  const bool added = ps_set_fsg(decoder, name, one_word) == 0;
  fsg_model_free(one_word);  // the decoder keeps its own reference
  return added;
}

// One PocketSphinx decoder, built from checked settings.
class Decoder {
 public:
  Decoder(const SttSettings& settings, const hookbus::ConfigLocation& where) : sample_rate_(settings.sample_rate) {
    const std::string acoustic_model = settings.acoustic_model.string();
    const std::string dictionary = settings.dictionary.string();
    const std::string search_file = settings.search_file.string();
    const std::string sample_rate = std::to_string(settings.sample_rate);
    const char* search_option = settings.search == SearchKind::grammar ? "-jsgf" : "-lm";
    SphinxCall call;
    cmd_ln_t* config = cmd_ln_init(nullptr, ps_args(), TRUE, "-hmm", acoustic_model.c_str(), "-dict",
                                   dictionary.c_str(), search_option, search_file.c_str(), "-samprate",
                                   sample_rate.c_str(), "-cmn", "live",  // not the model's batch: see transcribe()
                                   nullptr);
    if (config != nullptr) {
      decoder_ = ps_init(config);  // keeps its own reference to the configuration
      cmd_ln_free_r(config);
    }
    // An error logged is a failure even when a decoder came back.
    if (decoder_ == nullptr || !call.errors().empty()) {
      if (decoder_ != nullptr) ps_free(std::exchange(decoder_, nullptr));
      throw ConfigError(where, fmt::format("PocketSphinx cannot start a decoder with these settings: {}",
                                           call.errors().empty() ? "it gave no reason"
                                                                 : fmt::format("{}", fmt::join(call.errors(), "; "))));
    }
    cmn_ = ps_get_feat(decoder_)->cmn_struct;
    initial_mean_.resize(static_cast<std::size_t>(cmn_->veclen));
    cmn_live_get(cmn_, initial_mean_.data());
    // The first of transcribe()'s two passes only adapts the front end, which
    // the search does not touch: a search for one word makes it nearly free
    // (half the time, the same words). A dictionary without "a" gets two full
    // passes instead.
    constexpr const char* adapting = "hookbus-adapt";
    adapting_search_ = add_one_word_search(decoder_, adapting, "a") ? adapting : configured_search;
  }
  ~Decoder() {
    SphinxCall call;
    ps_free(decoder_);
  }
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  [[nodiscard]] int sample_rate() const noexcept { return sample_rate_; }

  // The words heard in the samples (at sample_rate()), or "" when none.
  //
  // Each message is heard on its own, whatever was heard before: PocketSphinx
  // adapts its noise estimate and cepstral mean (the recording's average
  // colour) while it listens, so both start afresh for every message (a new
  // stream, the model's own mean), and it listens twice: the first pass fits
  // them to this recording, the second transcribes it. The samples go in as a
  // stream (full_utt FALSE): the whole-utterance mode hears far fewer words of
  // synthetic speech (docs/voice.md has the numbers).
  std::string transcribe(const std::vector<std::int16_t>& samples) const {
    SphinxCall call;
    ps_start_stream(decoder_);
    cmn_live_set(cmn_, initial_mean_.data());
    for (const std::string& search : {adapting_search_, std::string(configured_search)}) {
      if (ps_set_search(decoder_, search.c_str()) < 0 || ps_start_utt(decoder_) < 0 ||
          ps_process_raw(decoder_, samples.data(), samples.size(), FALSE, FALSE) < 0 || ps_end_utt(decoder_) < 0)
        throw std::runtime_error(
            fmt::format("stt: PocketSphinx failed to decode the audio: {}", fmt::join(call.errors(), "; ")));
    }
    std::int32_t score = 0;
    const char* heard = ps_get_hyp(decoder_, &score);
    return heard == nullptr ? std::string() : std::string(heard);
  }

 private:
  int sample_rate_;
  ps_decoder_t* decoder_ = nullptr;
  cmn_t* cmn_ = nullptr;              // the decoder's
  std::vector<mfcc_t> initial_mean_;  // the model's cepstral mean, as the decoder started
  std::string adapting_search_;       // the first pass's
};

// --------------------------------------------------------------- the hook

std::string transcript(const Decoder& decoder, const hookbus::AudioPart& audio) {
  if (!voice::is_wav_mime_type(audio.mime_type))
    throw voice::AudioError(
        fmt::format("stt: cannot transcribe '{}' audio; send {} (16-bit PCM)", audio.mime_type, voice::wav_mime_type));
  const voice::Pcm pcm = voice::resample(voice::read_wav(voice::base64_decode(audio.data)), decoder.sample_rate());
  return decoder.transcribe(pcm.samples);
}

std::optional<hookbus::MessageReceiveResult> transcribe_audio(const Decoder& decoder,
                                                              const hookbus::MessageReceiveEvent& message) {
  const auto is_audio = [](const hookbus::ContentPart& part) {
    return std::holds_alternative<hookbus::AudioPart>(part);
  };
  if (std::none_of(message.parts.begin(), message.parts.end(), is_audio)) return std::nullopt;
  std::vector<hookbus::ContentPart> parts;
  for (const auto& part : message.parts) {
    if (const auto* audio = std::get_if<hookbus::AudioPart>(&part))
      parts.emplace_back(hookbus::TextPart{transcript(decoder, *audio)});
    else
      parts.push_back(part);
  }
  return hookbus::MessageReceiveResult{.action = hookbus::ReceiveAction::transform, .parts = std::move(parts)};
}

}  // namespace

HOOKBUS_BUILTIN_PLUGIN("stt") {
  builtins.add("stt", [](const ConfigObject& settings) -> hookbus::BuiltinProvider {
    auto decoder = std::make_shared<const Decoder>(read_settings(settings), settings.location());
    return [decoder](hookbus::Registrar& registrar) {
      registrar.on<hookbus::MessageReceiveEvent>(
          [decoder](const hookbus::MessageReceiveEvent& message) { return transcribe_audio(*decoder, message); },
          {.label = "builtin:stt",
           .priority = hookbus::builtin_priority::transcribe,
           .kind = hookbus::HandlerKind::builtin});
    };
  });
}
