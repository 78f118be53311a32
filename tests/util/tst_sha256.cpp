#include "util/sha256.h"

#include <gtest/gtest.h>

#include <string>

namespace {

struct Vector {
    std::string input;
    std::string digest;
};

// FIPS 180-4 example vectors, plus lengths around the 55/56/64-byte padding boundaries.
class Sha256Vectors : public ::testing::TestWithParam<Vector> { };

TEST_P(Sha256Vectors, MatchesReference)
{
    EXPECT_EQ(opsched::sha256Hex(GetParam().input), GetParam().digest);
}

INSTANTIATE_TEST_SUITE_P(Fips, Sha256Vectors,
    ::testing::Values(Vector { "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
        Vector { "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
        Vector { "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
        Vector { std::string(1000, 'a'), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3" }));

TEST(Sha256, IncrementalEqualsOneShot)
{
    const std::string text(300, 'x');
    opsched::Sha256 h;
    for (std::size_t i = 0; i < text.size(); i += 7)
        h.update(std::string_view(text).substr(i, 7));
    EXPECT_EQ(h.hexDigest(), opsched::sha256Hex(text));
}

} // namespace
