#include "support/sha256.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace wasmgpu {
namespace {

// Digests from FIPS 180-4's examples (NIST CSRC "SHA256.pdf") and the
// one-million-'a' vector of FIPS 180-2.
TEST(Sha256, KnownVectors) {
  EXPECT_EQ(to_hex(sha256(std::string_view(""))), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(to_hex(sha256(std::string_view("abc"))),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(to_hex(sha256(std::string_view("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(to_hex(sha256(std::string(1000000, 'a'))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Feeding the input in pieces of any size gives the one-shot digest: the
// block buffering has no off-by-one at the 64-byte boundary or the 56-byte
// padding limit.
TEST(Sha256, IncrementalEqualsOneShot) {
  std::vector<uint8_t> data(300);
  for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 131 + 7);
  for (size_t length : {0u, 1u, 55u, 56u, 57u, 63u, 64u, 65u, 119u, 120u, 128u, 300u}) {
    const std::span<const uint8_t> input(data.data(), length);
    const Sha256Digest expected = sha256(input);
    for (size_t piece : {1u, 3u, 17u, 64u, 100u}) {
      Sha256 hasher;
      for (size_t at = 0; at < length; at += piece) hasher.update(input.subspan(at, std::min(piece, length - at)));
      EXPECT_EQ(hasher.finish(), expected) << "length " << length << ", pieces of " << piece;
    }
  }
}

}  // namespace
}  // namespace wasmgpu
