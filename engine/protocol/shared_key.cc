// Shared Key signing and HTTP dates (shared_key.h).

#include "engine/protocol/shared_key.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/params.h>

#include <array>
#include <cstdint>

#include "partkv/base64.h"

namespace partkv::protocol {
namespace {

// RFC 9110's IMF-fixdate names: English, fixed case, three letters.
constexpr std::array<std::string_view, 7> kDayNames = {"Sun", "Mon", "Tue", "Wed",
                                                       "Thu", "Fri", "Sat"};
constexpr std::array<std::string_view, 12> kMonthNames = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

std::string OneShotHmac(std::string_view key, std::string_view message) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest, &length);
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(digest), length));
}

void PutDigits(std::string* out, int value, int digits) {
  char buf[8];
  for (int i = digits - 1; i >= 0; --i) {
    buf[i] = static_cast<char>('0' + value % 10);
    value /= 10;
  }
  out->append(buf, static_cast<size_t>(digits));
}

// The `digits` decimal digits of `text` at `at`, or -1 when they are not all digits.
int ReadDigits(std::string_view text, size_t at, size_t digits) {
  int value = 0;
  for (size_t i = 0; i < digits; ++i) {
    char c = text[at + i];
    if (c < '0' || c > '9') return -1;
    value = value * 10 + (c - '0');
  }
  return value;
}

Status BadDate(std::string_view text, std::string_view what) {
  std::string message = "'";
  message += text.substr(0, 64);
  message += "' is not an RFC 1123 date (\"Tue, 01 Dec 2026 08:00:00 GMT\"): ";
  message += what;
  return Status::InvalidArgument(message);
}

}  // namespace

std::string_view SchemeName(SharedKeyScheme scheme) {
  return scheme == SharedKeyScheme::kSharedKeyLite ? "SharedKeyLite" : "SharedKey";
}

void HmacSha256::ContextDeleter::operator()(EVP_MAC_CTX* ctx) const { EVP_MAC_CTX_free(ctx); }

HmacSha256::HmacSha256(HmacSha256&&) noexcept = default;
HmacSha256& HmacSha256::operator=(HmacSha256&&) noexcept = default;
HmacSha256::~HmacSha256() = default;

Result<HmacSha256> HmacSha256::Create(std::string key) {
  if (key.empty()) return Status::InvalidArgument("an HMAC-SHA256 key is empty");
  HmacSha256 hmac;
  hmac.key_ = std::move(key);
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  if (mac == nullptr) return Status::IOError("OpenSSL has no HMAC");
  hmac.keyed_.reset(EVP_MAC_CTX_new(mac));
  EVP_MAC_free(mac);  // the context holds its own reference
  char digest[] = "SHA256";
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", digest, 0),
                         OSSL_PARAM_construct_end()};
  if (!hmac.keyed_ ||
      EVP_MAC_init(hmac.keyed_.get(), reinterpret_cast<const unsigned char*>(hmac.key_.data()),
                   hmac.key_.size(), params) != 1) {
    return Status::IOError("OpenSSL cannot key HMAC-SHA256");
  }
  return hmac;
}

std::string HmacSha256::Sign(std::string_view message) const {
  std::unique_ptr<EVP_MAC_CTX, ContextDeleter> ctx(EVP_MAC_CTX_dup(keyed_.get()));
  unsigned char digest[EVP_MAX_MD_SIZE];
  size_t length = 0;
  if (!ctx ||
      EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(message.data()),
                     message.size()) != 1 ||
      EVP_MAC_final(ctx.get(), digest, &length, sizeof digest) != 1) {
    return OneShotHmac(key_, message);
  }
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(digest), length));
}

bool SignaturesEqual(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string CanonicalizedResource(std::string_view account, std::string_view raw_path,
                                  std::optional<std::string_view> comp) {
  std::string resource;
  resource.reserve(1 + account.size() + raw_path.size() + (comp ? 6 + comp->size() : 0));
  resource += '/';
  resource += account;
  resource += raw_path;
  if (comp) {
    resource += "?comp=";
    resource += *comp;
  }
  return resource;
}

std::string SharedKeyStringToSign(std::string_view verb, std::string_view content_md5,
                                  std::string_view content_type, std::string_view date,
                                  std::string_view resource) {
  std::string s;
  s.reserve(verb.size() + content_md5.size() + content_type.size() + date.size() + resource.size() +
            4);
  s += verb;
  s += '\n';
  s += content_md5;
  s += '\n';
  s += content_type;
  s += '\n';
  s += date;
  s += '\n';
  s += resource;
  return s;
}

std::string SharedKeyLiteStringToSign(std::string_view date, std::string_view resource) {
  std::string s(date);
  s += '\n';
  s += resource;
  return s;
}

std::string AuthorizationHeader(SharedKeyScheme scheme, std::string_view account,
                                std::string_view signature) {
  std::string header(SchemeName(scheme));
  header += ' ';
  header += account;
  header += ':';
  header += signature;
  return header;
}

std::string FormatHttpDate(std::chrono::system_clock::time_point when) {
  using namespace std::chrono;
  const auto seconds = floor<std::chrono::seconds>(when);
  const sys_days day = floor<days>(seconds);
  const year_month_day ymd(day);
  const hh_mm_ss<std::chrono::seconds> time(seconds - day);
  std::string out;
  out.reserve(29);
  out += kDayNames[weekday(day).c_encoding()];
  out += ", ";
  PutDigits(&out, static_cast<int>(static_cast<unsigned>(ymd.day())), 2);
  out += ' ';
  out += kMonthNames[static_cast<unsigned>(ymd.month()) - 1];
  out += ' ';
  PutDigits(&out, static_cast<int>(ymd.year()), 4);
  out += ' ';
  PutDigits(&out, static_cast<int>(time.hours().count()), 2);
  out += ':';
  PutDigits(&out, static_cast<int>(time.minutes().count()), 2);
  out += ':';
  PutDigits(&out, static_cast<int>(time.seconds().count()), 2);
  out += " GMT";
  return out;
}

Result<std::chrono::system_clock::time_point> ParseHttpDate(std::string_view text) {
  using namespace std::chrono;
  // "Tue, 01 Dec 2026 08:00:00 GMT": every field at a fixed offset.
  constexpr std::string_view kShape = "www, dd mmm yyyy hh:mm:ss GMT";
  if (text.size() != kShape.size()) {
    return BadDate(text, "it has " + std::to_string(text.size()) + " characters, not " +
                             std::to_string(kShape.size()));
  }
  if (text.substr(3, 2) != ", " || text[7] != ' ' || text[11] != ' ' || text[16] != ' ' ||
      text[19] != ':' || text[22] != ':' || text.substr(25) != " GMT") {
    return BadDate(text,
                   "its separators or zone are not those of \"www, dd mmm yyyy hh:mm:ss GMT\"");
  }
  size_t day_name = 0;
  while (day_name < kDayNames.size() && kDayNames[day_name] != text.substr(0, 3)) ++day_name;
  if (day_name == kDayNames.size()) {
    return BadDate(text, "no day is named '" + std::string(text.substr(0, 3)) + "'");
  }
  size_t month = 0;
  while (month < kMonthNames.size() && kMonthNames[month] != text.substr(8, 3)) ++month;
  if (month == kMonthNames.size()) {
    return BadDate(text, "no month is named '" + std::string(text.substr(8, 3)) + "'");
  }
  const int d = ReadDigits(text, 5, 2), y = ReadDigits(text, 12, 4);
  const int hh = ReadDigits(text, 17, 2), mm = ReadDigits(text, 20, 2),
            ss = ReadDigits(text, 23, 2);
  if (d < 0 || y < 0 || hh < 0 || mm < 0 || ss < 0) {
    return BadDate(text, "a day, year or time field is not all digits");
  }
  const year_month_day ymd{year{y}, std::chrono::month{static_cast<unsigned>(month + 1)},
                           std::chrono::day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) return BadDate(text, "the date does not exist");
  if (hh > 23 || mm > 59 || ss > 60) return BadDate(text, "the time is out of range");
  const sys_days date(ymd);
  if (weekday(date).c_encoding() != day_name) {
    return BadDate(text, "the date is a " + std::string(kDayNames[weekday(date).c_encoding()]) +
                             ", not a " + std::string(kDayNames[day_name]));
  }
  const sys_seconds when = date + hours{hh} + minutes{mm} + seconds{ss};
  // system_clock counts nanoseconds in 64 bits: about the years 1678 to 2261.
  constexpr seconds kLatest = duration_cast<seconds>(system_clock::duration::max());
  constexpr seconds kEarliest = duration_cast<seconds>(system_clock::duration::min());
  if (when.time_since_epoch() >= kLatest || when.time_since_epoch() <= kEarliest) {
    return BadDate(text, "the year is beyond what the system clock represents");
  }
  return time_point_cast<system_clock::duration>(when);
}

}  // namespace partkv::protocol
