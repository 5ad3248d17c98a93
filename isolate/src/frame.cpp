#include <memtune/isolate/frame.hpp>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <sys/socket.h>
#include <unistd.h>

namespace memtune::isolation {
namespace {

constexpr std::size_t kHeaderBytes = 8;

void put_u32(char* out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xFFU);
}
std::uint32_t get_u32(const char* in) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  return v;
}

void write_all(int fd, const char* data, std::size_t bytes) {
  while (bytes > 0) {
    // send(MSG_NOSIGNAL): a worker that died must not kill the tuning process with SIGPIPE.
    ssize_t n = ::send(fd, data, bytes, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = ::write(fd, data, bytes); // a pipe in tests
    if (n < 0) {
      if (errno == EINTR) continue;
      throw ProtocolError(std::string("cannot send to the other process: ") + std::strerror(errno));
    }
    data += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

// Reads exactly `bytes`; false on EOF before the first byte when `eof_ok`.
bool read_all(int fd, char* data, std::size_t bytes, bool eof_ok) {
  std::size_t got = 0;
  while (got < bytes) {
    const ssize_t n = ::read(fd, data + got, bytes - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw ProtocolError(std::string("cannot read from the other process: ") + std::strerror(errno));
    }
    if (n == 0) {
      if (got == 0 && eof_ok) return false;
      throw ProtocolError("the other process closed the connection in the middle of a message");
    }
    got += static_cast<std::size_t>(n);
  }
  return true;
}

void check_sizes(std::size_t json_bytes, std::size_t blob_bytes) {
  if (json_bytes == 0 || json_bytes > kMaxJsonBytes || blob_bytes > kMaxBlobBytes)
    throw ProtocolError("not a memtune worker message (header claims " + std::to_string(json_bytes) +
                        " bytes of JSON and " + std::to_string(blob_bytes) + " bytes of data)");
}

nlohmann::json parse_message(const char* text, std::size_t bytes) {
  nlohmann::json j = nlohmann::json::parse(text, text + bytes, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) throw ProtocolError("a worker message is not a JSON object");
  return j;
}

} // namespace

void write_frame(int fd, const nlohmann::json& message, std::span<const char> blob) {
  const std::string text = message.dump();
  check_sizes(text.size(), blob.size());
  char header[kHeaderBytes];
  put_u32(header, static_cast<std::uint32_t>(text.size()));
  put_u32(header + 4, static_cast<std::uint32_t>(blob.size()));
  write_all(fd, header, kHeaderBytes);
  write_all(fd, text.data(), text.size());
  if (!blob.empty()) write_all(fd, blob.data(), blob.size());
}

std::optional<Frame> read_frame(int fd) {
  char header[kHeaderBytes];
  if (!read_all(fd, header, kHeaderBytes, /*eof_ok=*/true)) return std::nullopt;
  const std::size_t json_bytes = get_u32(header), blob_bytes = get_u32(header + 4);
  check_sizes(json_bytes, blob_bytes);
  std::string text(json_bytes, '\0');
  read_all(fd, text.data(), json_bytes, false);
  Frame f;
  f.message = parse_message(text.data(), text.size());
  f.blob.resize(blob_bytes);
  if (blob_bytes) read_all(fd, f.blob.data(), blob_bytes, false);
  return f;
}

void FrameAssembler::feed(const char* data, std::size_t bytes) { buffer_.insert(buffer_.end(), data, data + bytes); }

std::optional<Frame> FrameAssembler::pop() {
  if (buffer_.size() < kHeaderBytes) return std::nullopt;
  const std::size_t json_bytes = get_u32(buffer_.data()), blob_bytes = get_u32(buffer_.data() + 4);
  check_sizes(json_bytes, blob_bytes);
  const std::size_t total = kHeaderBytes + json_bytes + blob_bytes;
  if (buffer_.size() < total) return std::nullopt;
  Frame f;
  f.message = parse_message(buffer_.data() + kHeaderBytes, json_bytes);
  f.blob.assign(buffer_.begin() + static_cast<std::ptrdiff_t>(kHeaderBytes + json_bytes),
                buffer_.begin() + static_cast<std::ptrdiff_t>(total));
  buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(total));
  return f;
}

} // namespace memtune::isolation
