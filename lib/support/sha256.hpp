#pragma once
// SHA-256 (FIPS 180-4), for the trust fingerprints and the query cache: a
// content hash that a changed hook file cannot keep. Incremental, so a file is
// hashed as it is read.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace hookbus::detail {

class Sha256 {
 public:
  Sha256() noexcept;
  void update(std::string_view bytes) noexcept;
  // The digest as 64 lowercase hex digits. The object is spent afterwards.
  [[nodiscard]] std::string hex_digest() noexcept;

 private:
  void compress(const unsigned char* block) noexcept;

  std::array<std::uint32_t, 8> state_;
  std::array<unsigned char, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t length_ = 0;  // bytes so far
};

[[nodiscard]] std::string sha256_hex(std::string_view bytes);

}  // namespace hookbus::detail
