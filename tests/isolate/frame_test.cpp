// Frames of the worker protocol (isolate/include/memtune/isolate/frame.hpp).
#include <memtune/isolate/frame.hpp>

#include <doctest/doctest.h>

#include <sys/socket.h>
#include <unistd.h>

using namespace memtune::isolation;

namespace {
struct SocketPair {
  int fd[2];
  SocketPair() { REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fd) == 0); }
  ~SocketPair() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  void close_writer() {
    ::close(fd[0]);
    fd[0] = -1;
  }
};
} // namespace

TEST_CASE("a frame carries a JSON message and a binary blob") {
  SocketPair s;
  const std::vector<char> blob{'\0', '\x7f', '\xff', 'c', 'u', 'b', 'i', 'n'};
  write_frame(s.fd[0], {{"type", "run"}, {"id", 7}}, blob);
  write_frame(s.fd[0], {{"type", "bye"}});
  const auto first = read_frame(s.fd[1]);
  REQUIRE(first);
  CHECK(first->message.at("id") == 7);
  CHECK(first->blob == blob);
  const auto second = read_frame(s.fd[1]);
  REQUIRE(second);
  CHECK(second->message.at("type") == "bye");
  CHECK(second->blob.empty());
  s.close_writer();
  CHECK_FALSE(read_frame(s.fd[1])); // closed between frames: the end, not an error
}

TEST_CASE("a frame cut off, or bytes that are no frame, are protocol errors") {
  SocketPair s;
  const char partial[] = {10, 0, 0, 0, 0, 0, 0, 0, '{', '"'};
  REQUIRE(::write(s.fd[0], partial, sizeof partial) == sizeof partial);
  s.close_writer();
  CHECK_THROWS_AS(read_frame(s.fd[1]), ProtocolError);

  FrameAssembler a;
  const char garbage[] = "Segmentation fault (core dumped)\n";
  a.feed(garbage, sizeof garbage - 1);
  CHECK_THROWS_AS(a.pop(), ProtocolError);
}

TEST_CASE("the assembler gives frames once their last byte has arrived") {
  SocketPair s;
  write_frame(s.fd[0], {{"type", "result"}, {"id", 1}}, std::vector<char>(1000, 'x'));
  write_frame(s.fd[0], {{"type", "result"}, {"id", 2}});
  s.close_writer();
  std::vector<char> bytes;
  char c;
  while (::read(s.fd[1], &c, 1) == 1) bytes.push_back(c);
  FrameAssembler a;
  std::vector<int> ids;
  for (char b : bytes) { // one byte at a time, as a slow pipe might deliver them
    a.feed(&b, 1);
    while (auto f = a.pop()) ids.push_back(f->message.at("id").get<int>());
  }
  CHECK(ids == std::vector<int>{1, 2});
  CHECK_FALSE(a.partial());
}
