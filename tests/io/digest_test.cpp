#include <memtune/io/digest.hpp>

#include <doctest/doctest.h>

using memtune::digest128;
using memtune::is_digest128;

TEST_CASE("digest128: 32 lowercase hex digits, different for different text") {
  const std::string a = digest128("filter"), b = digest128("filter ");
  CHECK(a.size() == 32);
  CHECK(a != b);
  CHECK(a == digest128("filter"));
  CHECK(is_digest128(a));
  CHECK(is_digest128(digest128("")));
}

TEST_CASE("is_digest128 refuses what digest128 never writes") {
  const std::string a = digest128("matvec");
  CHECK_FALSE(is_digest128(""));
  CHECK_FALSE(is_digest128(a.substr(1)));
  CHECK_FALSE(is_digest128(a + "0"));
  std::string upper = a;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper != a) CHECK_FALSE(is_digest128(upper));
  CHECK_FALSE(is_digest128(std::string(31, '0') + "g"));
  CHECK(is_digest128(std::string(32, 'f')));
}
