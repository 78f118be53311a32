// SHA-256 (FIPS 180-4), for model fingerprints in schedule files.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace opsched {

class Sha256 {
public:
    Sha256();
    void update(std::string_view data);
    // Finishes the hash; the object must not be updated afterwards.
    std::string hexDigest();

private:
    void block(const std::uint8_t* p);
    std::array<std::uint32_t, 8> h_;
    std::array<std::uint8_t, 64> buffer_ {};
    std::size_t buffered_ = 0;
    std::uint64_t length_ = 0;
};

std::string sha256Hex(std::string_view data);

} // namespace opsched
