// WAV files, base64 and resampling for the voice built-ins (audio.hpp).
#include "voice/audio.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <numbers>

namespace hookbus::voice {
namespace {

constexpr std::string_view base64_alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::uint32_t read_le(std::string_view bytes, std::size_t at, std::size_t size) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < size; ++i)
    value |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return value;
}

void append_le(std::string& out, std::uint32_t value, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

constexpr std::uint16_t wave_format_pcm = 1;
constexpr std::uint16_t wave_format_extensible = 0xfffe;

}  // namespace

bool is_wav_mime_type(std::string_view mime_type) {
  mime_type = mime_type.substr(0, mime_type.find(';'));
  while (!mime_type.empty() && mime_type.back() == ' ') mime_type.remove_suffix(1);
  std::string lower(mime_type);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower == "audio/wav" || lower == "audio/x-wav" || lower == "audio/wave" || lower == "audio/vnd.wave";
}

std::string base64_encode(std::string_view bytes) {
  std::string text;
  text.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t group = 0;
    for (std::size_t k = 0; k < 3; ++k) group = (group << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) text.push_back(k <= n ? base64_alphabet[(group >> (18 - 6 * k)) & 0x3f] : '=');
  }
  return text;
}

std::string base64_decode(std::string_view text) {
  std::array<int, 256> value{};
  value.fill(-1);
  for (std::size_t i = 0; i < base64_alphabet.size(); ++i)
    value[static_cast<unsigned char>(base64_alphabet[i])] = static_cast<int>(i);
  if (text.size() % 4 != 0)
    throw AudioError(fmt::format("the audio data is not base64: its length, {}, is not a multiple of 4", text.size()));
  std::string bytes;
  bytes.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    // Only the last group may end in one or two '='.
    std::size_t padding = 0;
    if (i + 4 == text.size()) padding = text[i + 3] != '=' ? 0 : text[i + 2] != '=' ? 1 : 2;
    std::uint32_t group = 0;
    for (std::size_t k = 0; k < 4 - padding; ++k) {
      const int v = value[static_cast<unsigned char>(text[i + k])];
      if (v < 0)
        throw AudioError(fmt::format("the audio data is not base64: unexpected character at offset {}", i + k));
      group = (group << 6) | static_cast<std::uint32_t>(v);
    }
    group <<= 6 * padding;
    for (std::size_t k = 0; k < 3 - padding; ++k) bytes.push_back(static_cast<char>((group >> (16 - 8 * k)) & 0xff));
  }
  return bytes;
}

std::string wav_file(const Pcm& pcm) {
  const auto data_size = static_cast<std::uint32_t>(pcm.samples.size() * 2);
  std::string file = "RIFF";
  append_le(file, 36 + data_size, 4);
  file += "WAVEfmt ";
  append_le(file, 16, 4);  // the fmt chunk's size
  append_le(file, wave_format_pcm, 2);
  append_le(file, 1, 2);  // channels
  append_le(file, static_cast<std::uint32_t>(pcm.sample_rate), 4);
  append_le(file, static_cast<std::uint32_t>(pcm.sample_rate) * 2, 4);  // bytes per second
  append_le(file, 2, 2);                                                // bytes per frame
  append_le(file, 16, 2);                                               // bits per sample
  file += "data";
  append_le(file, data_size, 4);
  for (const std::int16_t sample : pcm.samples) append_le(file, static_cast<std::uint16_t>(sample), 2);
  return file;
}

Pcm read_wav(std::string_view file) {
  if (file.size() < 12 || file.substr(0, 4) != "RIFF" || file.substr(8, 4) != "WAVE")
    throw AudioError("the audio is not a WAV file (no RIFF/WAVE header); send 16-bit PCM WAV");
  std::uint16_t format = 0, channels = 0, bits = 0;
  std::uint32_t sample_rate = 0;
  bool have_format = false;
  for (std::size_t at = 12; at + 8 <= file.size();) {
    const std::string_view id = file.substr(at, 4);
    const std::uint32_t size = read_le(file, at + 4, 4);
    const std::size_t body = at + 8;
    if (size > file.size() - body)
      throw AudioError(fmt::format("the WAV file is truncated: its '{}' chunk needs {} bytes, {} are left", id, size,
                                   file.size() - body));
    if (id == "fmt ") {
      if (size < 16) throw AudioError("the WAV file's 'fmt ' chunk is too short");
      format = static_cast<std::uint16_t>(read_le(file, body, 2));
      channels = static_cast<std::uint16_t>(read_le(file, body + 2, 2));
      sample_rate = read_le(file, body + 4, 4);
      bits = static_cast<std::uint16_t>(read_le(file, body + 14, 2));
      if (format == wave_format_extensible && size >= 26)
        format = static_cast<std::uint16_t>(read_le(file, body + 24, 2));
      have_format = true;
    } else if (id == "data") {
      if (!have_format) throw AudioError("the WAV file has its 'data' chunk before its 'fmt ' chunk");
      if (format != wave_format_pcm || bits != 16)
        throw AudioError(
            fmt::format("the WAV file holds {}-bit samples of format {}; send 16-bit PCM (format 1)", bits, format));
      if (channels == 0 || sample_rate == 0) throw AudioError("the WAV file has no channels or no sample rate");
      Pcm pcm{.samples = {}, .sample_rate = static_cast<int>(sample_rate)};
      const std::size_t frames = size / (2u * channels);
      pcm.samples.reserve(frames);
      for (std::size_t frame = 0; frame < frames; ++frame) {
        long sum = 0;
        for (std::size_t channel = 0; channel < channels; ++channel)
          sum += static_cast<std::int16_t>(read_le(file, body + 2 * (frame * channels + channel), 2));
        pcm.samples.push_back(static_cast<std::int16_t>(sum / channels));
      }
      return pcm;
    }
    at = body + size + (size & 1);  // chunks are padded to an even size
  }
  throw AudioError("the WAV file has no 'data' chunk");
}

Pcm resample(const Pcm& pcm, int sample_rate) {
  if (pcm.sample_rate == sample_rate || pcm.samples.empty()) return Pcm{pcm.samples, sample_rate};
  const double step = static_cast<double>(pcm.sample_rate) / sample_rate;  // input samples per output sample
  const double cutoff = std::min(1.0, 1.0 / step) * 0.95;                  // of the input's Nyquist frequency
  constexpr long half_width = 16;                                          // input samples each side
  const auto& in = pcm.samples;
  Pcm out{.samples = std::vector<std::int16_t>(static_cast<std::size_t>(static_cast<double>(in.size()) / step)),
          .sample_rate = sample_rate};
  for (std::size_t i = 0; i < out.samples.size(); ++i) {
    const double t = static_cast<double>(i) * step;
    const auto centre = static_cast<long>(t);
    double sum = 0;
    for (long k = std::max(0L, centre - half_width + 1);
         k <= std::min<long>(centre + half_width, static_cast<long>(in.size()) - 1); ++k) {
      const double x = t - static_cast<double>(k);
      const double phase = std::numbers::pi * x * cutoff;
      const double sinc = phase == 0 ? 1.0 : std::sin(phase) / phase;
      const double window = 0.5 + 0.5 * std::cos(std::numbers::pi * x / half_width);
      sum += in[static_cast<std::size_t>(k)] * cutoff * sinc * window;
    }
    out.samples[i] = static_cast<std::int16_t>(std::lround(std::clamp(sum, -32768.0, 32767.0)));
  }
  return out;
}

}  // namespace hookbus::voice
