// Fuzz target: the stored-value decoder (engine/value_codec.h) on arbitrary bytes.
// Properties: never crashes, leaks or hangs; a value it accepts re-encodes to bytes that decode to
// the same header and properties, and the header-only decoder agrees with the full one.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "engine/value_codec.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace partkv;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  engine::ValueHeader header;
  Entity entity;
  Status s = engine::DecodeValue(bytes, &header, &entity);
  engine::ValueHeader header_only;
  Status hs = engine::DecodeValueHeader(bytes, &header_only);
  if (!s.ok()) {
    FUZZ_CHECK(s.IsCorruption());
    return 0;
  }
  FUZZ_CHECK(hs.ok());
  FUZZ_CHECK(header_only.etag_version == header.etag_version);
  FUZZ_CHECK(header_only.timestamp_ticks == header.timestamp_ticks);

  std::string again;
  engine::EncodeValue(header, entity, &again);
  engine::ValueHeader header2;
  Entity entity2;
  FUZZ_CHECK(engine::DecodeValue(again, &header2, &entity2).ok());
  FUZZ_CHECK(header2.etag_version == header.etag_version);
  FUZZ_CHECK(header2.timestamp_ticks == header.timestamp_ticks);
  FUZZ_CHECK(entity2.properties() == entity.properties());
  // The encoder is canonical: re-encoding the re-decoded value gives the same bytes.
  std::string third;
  engine::EncodeValue(header2, entity2, &third);
  FUZZ_CHECK(third == again);
  return 0;
}
