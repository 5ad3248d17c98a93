#pragma once
// Internal to isolation: the framing of the worker protocol. One message is a
// JSON object plus an optional binary blob (a CUBIN), sent as
//
//   u32 json_bytes | u32 blob_bytes | json text | blob      (little-endian)
//
// over a Unix stream socket. JSON carries everything readable; the blob keeps
// binary images out of it (no base64). A frame larger than the limits below
// is garbage (a worker that wrote to the wrong descriptor), never allocated.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace memtune::isolation {

inline constexpr std::size_t kMaxJsonBytes = std::size_t{64} << 20;  // [bytes]
inline constexpr std::size_t kMaxBlobBytes = std::size_t{512} << 20; // [bytes]

// The other side broke the protocol or went away mid-frame.
class ProtocolError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct Frame {
  nlohmann::json message;
  std::vector<char> blob;
};

// Writes one frame, retrying short writes and EINTR; never raises SIGPIPE.
// Throws ProtocolError when the peer is gone.
void write_frame(int fd, const nlohmann::json& message, std::span<const char> blob = {});

// Blocks for one frame. nullopt when the peer closed the connection cleanly
// between frames; ProtocolError when it closed mid-frame or sent garbage.
std::optional<Frame> read_frame(int fd);

// Assembles frames from bytes as they arrive on a non-blocking descriptor
// (the supervisor's side, which polls several workers).
class FrameAssembler {
public:
  void feed(const char* data, std::size_t bytes);
  // The next complete frame, if one has arrived. Throws ProtocolError on garbage.
  std::optional<Frame> pop();
  // Bytes of an incomplete frame are waiting.
  [[nodiscard]] bool partial() const { return !buffer_.empty(); }

private:
  std::vector<char> buffer_;
};

} // namespace memtune::isolation
