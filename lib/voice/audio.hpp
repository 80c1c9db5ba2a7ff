#pragma once
// Internal: the audio the voice built-ins exchange (docs/voice.md). An
// AudioPart carries a WAV file (RIFF, 16-bit PCM) as base64 text; the
// recogniser wants mono samples at its model's rate.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hookbus::voice {

// What cannot be read: the message says what and how to fix it.
class AudioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Mono 16-bit samples at a sample rate.
struct Pcm {
  std::vector<std::int16_t> samples{};
  int sample_rate{};
};

// MIME types of WAV files: audio/wav, audio/x-wav, audio/wave, audio/vnd.wave
// (any case; parameters after ';' ignored).
bool is_wav_mime_type(std::string_view mime_type);

inline constexpr std::string_view wav_mime_type = "audio/wav";

std::string base64_encode(std::string_view bytes);
// Throws AudioError for a character outside the base64 alphabet or a bad length.
std::string base64_decode(std::string_view text);

// A WAV file of mono 16-bit PCM samples.
std::string wav_file(const Pcm& pcm);
// The samples of a WAV file of 16-bit PCM, channels averaged to mono. Throws
// AudioError for anything else (another encoding, a truncated file).
Pcm read_wav(std::string_view file);

// The samples at another rate, band-limited to the lower rate's Nyquist
// frequency (a Hann-windowed sinc), so nothing above it folds back.
Pcm resample(const Pcm& pcm, int sample_rate);

}  // namespace hookbus::voice
