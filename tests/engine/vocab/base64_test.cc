// Base64: RFC 4648 §10 test vectors, both alphabets, round trips, and strict rejection.

#include "partkv/base64.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/testing/status_matchers.h"

namespace partkv {
namespace {

using ::partkv::testing::StatusIs;

// The decoded bytes, or "ERROR: <message>" so failures read in assertions.
std::string Decode(std::string_view text) {
  auto r = Base64Decode(text);
  return r.ok() ? *r : "ERROR: " + std::string(r.status().message());
}
std::string UrlDecode(std::string_view text) {
  auto r = Base64UrlDecode(text);
  return r.ok() ? *r : "ERROR: " + std::string(r.status().message());
}

std::string AllBytes() {
  std::string s;
  for (int i = 0; i < 256; ++i) s += static_cast<char>(i);
  return s;
}

TEST(Base64Test, EncodesRfc4648Vectors) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foob"), "Zm9vYg==");
  EXPECT_EQ(Base64Encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
}

TEST(Base64Test, DecodesRfc4648Vectors) {
  EXPECT_EQ(Decode(""), "");
  EXPECT_EQ(Decode("Zg=="), "f");
  EXPECT_EQ(Decode("Zm8="), "fo");
  EXPECT_EQ(Decode("Zm9v"), "foo");
  EXPECT_EQ(Decode("Zm9vYg=="), "foob");
  EXPECT_EQ(Decode("Zm9vYmE="), "fooba");
  EXPECT_EQ(Decode("Zm9vYmFy"), "foobar");
}

TEST(Base64Test, UrlVariantUsesDashUnderscoreAndNoPadding) {
  EXPECT_EQ(Base64Encode("\xfb\xff"), "+/8=");
  EXPECT_EQ(Base64UrlEncode("\xfb\xff"), "-_8");
  EXPECT_EQ(Base64UrlEncode("f"), "Zg");
  EXPECT_EQ(Base64UrlEncode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(UrlDecode("-_8"), "\xfb\xff");
  EXPECT_EQ(UrlDecode("Zm9vYg"), "foob");
}

TEST(Base64Test, EveryByteValueAndLengthRoundTrips) {
  const std::string all = AllBytes();
  for (size_t len = 0; len <= all.size(); ++len) {
    // Rotate the start so every byte value appears in every position of a 3-byte group.
    std::string bytes = all.substr(len % 256) + all.substr(0, len % 256);
    bytes.resize(len);
    ASSERT_EQ(Decode(Base64Encode(bytes)), bytes) << "length " << len;
    ASSERT_EQ(UrlDecode(Base64UrlEncode(bytes)), bytes) << "length " << len;
  }
}

TEST(Base64Test, ForeignCharacterRejectedWithOffset) {
  EXPECT_EQ(Decode("Zm9v Zm9"), "ERROR: invalid base64: invalid character at offset 4");
  EXPECT_EQ(Decode("Zm9*"), "ERROR: invalid base64: invalid character at offset 3");
  EXPECT_EQ(Decode("Zm9\n"), "ERROR: invalid base64: invalid character at offset 3");
  EXPECT_EQ(Decode("-_8="), "ERROR: invalid base64: invalid character at offset 0");
  EXPECT_EQ(UrlDecode("+/8"), "ERROR: invalid base64: invalid character at offset 0");
  EXPECT_EQ(Decode(std::string("Zm\0v", 4)),
            "ERROR: invalid base64: invalid character at offset 2");
  EXPECT_EQ(Decode("Zm\xc3\xa9"), "ERROR: invalid base64: invalid character at offset 2");
}

TEST(Base64Test, BadLengthRejected) {
  EXPECT_EQ(Decode("Zm9"), "ERROR: invalid base64: length not a multiple of 4 at offset 3");
  EXPECT_EQ(Decode("Zm9vY"), "ERROR: invalid base64: length not a multiple of 4 at offset 5");
  EXPECT_EQ(UrlDecode("Zm9vY"), "ERROR: invalid base64: truncated final group at offset 4");
}

TEST(Base64Test, MisplacedPaddingRejected) {
  EXPECT_EQ(Decode("===="), "ERROR: invalid base64: unexpected padding at offset 0");
  EXPECT_EQ(Decode("Z==="), "ERROR: invalid base64: unexpected padding at offset 1");
  EXPECT_EQ(Decode("Zm=v"), "ERROR: invalid base64: unexpected padding at offset 2");
  EXPECT_EQ(Decode("Zg==Zm9v"), "ERROR: invalid base64: unexpected padding at offset 2");
  EXPECT_EQ(UrlDecode("Zg=="), "ERROR: invalid base64: unexpected padding at offset 2");
}

TEST(Base64Test, MissingPaddingRejectedInStandardAlphabet) {
  EXPECT_EQ(Decode("Zg"), "ERROR: invalid base64: length not a multiple of 4 at offset 2");
}

TEST(Base64Test, NonzeroUnusedBitsRejected) {
  // "Zh==" would decode to "f" too if the low 4 bits of 'h' were ignored.
  EXPECT_EQ(Decode("Zh=="),
            "ERROR: invalid base64: nonzero unused bits in the last character at offset 1");
  EXPECT_EQ(Decode("Zm9="),
            "ERROR: invalid base64: nonzero unused bits in the last character at offset 2");
  EXPECT_EQ(UrlDecode("Zh"),
            "ERROR: invalid base64: nonzero unused bits in the last character at offset 1");
}

TEST(Base64Test, DecodeErrorsAreInvalidArgument) {
  EXPECT_THAT(Base64Decode("!!!!"), StatusIs(Status::Code::kInvalidArgument));
  EXPECT_THAT(Base64UrlDecode("!"), StatusIs(Status::Code::kInvalidArgument));
}

}  // namespace
}  // namespace partkv
