#include <memtune/io/parallel_for.hpp>
#include <memtune/templates/aos_soa.hpp>

#include <cfloat>
#include <cstdint>
#include <stdexcept>

namespace memtune::templates {

std::vector<double> aos_soa_reference(AosSoaOp op, int fields, std::span<const float> in) {
  const std::int64_t f = fields;
  if (f < 1) throw std::invalid_argument("aos_soa_reference: fields must be >= 1");
  if (op != AosSoaOp::write && static_cast<std::int64_t>(in.size()) % f != 0)
    throw std::invalid_argument("aos_soa_reference: the struct input must hold n*fields floats");
  const std::int64_t n = op == AosSoaOp::write ? static_cast<std::int64_t>(in.size()) : static_cast<std::int64_t>(in.size()) / f;
  std::vector<double> out(static_cast<std::size_t>(op == AosSoaOp::read ? n : n * f));
  parallel_for(n, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      switch (op) {
      case AosSoaOp::read: {
        double acc = 0.0;
        for (std::int64_t k = 0; k < f; ++k) acc += in[static_cast<std::size_t>(i * f + k)];
        out[static_cast<std::size_t>(i)] = acc;
        break;
      }
      case AosSoaOp::write:
        for (std::int64_t k = 0; k < f; ++k)
          out[static_cast<std::size_t>(i * f + k)] = static_cast<double>(in[static_cast<std::size_t>(i)]) * static_cast<double>(k + 1);
        break;
      case AosSoaOp::readwrite:
        for (std::int64_t k = 0; k < f; ++k)
          out[static_cast<std::size_t>(i * f + k)] =
              static_cast<double>(in[static_cast<std::size_t>(i * f + k)]) * aos_soa_readwrite_scale(static_cast<int>(k)) + 1.0;
        break;
      }
    }
  });
  return out;
}

double aos_soa_tolerance(AosSoaOp op, int fields) {
  // |x| <= 1. read: F-1 float additions of a sum bounded by F; write: one
  // rounding of a product up to 8; readwrite: one fma, result up to 3.25.
  // Twice the bound, plus a floor for exact zeros.
  const double bound = op == AosSoaOp::read ? fields * fields * FLT_EPSILON : 8.0 * FLT_EPSILON;
  return 2.0 * bound + 1e-30;
}

template <class T> std::vector<T> aos_to_soa(std::span<const T> aos, int fields, T pad) {
  const std::int64_t f = fields;
  const std::int64_t n = static_cast<std::int64_t>(aos.size()) / f;
  const std::int64_t pitch = aos_soa_pitch(n);
  std::vector<T> soa(static_cast<std::size_t>(f * pitch), pad);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = 0; k < f; ++k) soa[static_cast<std::size_t>(k * pitch + i)] = aos[static_cast<std::size_t>(i * f + k)];
  return soa;
}

template <class T> std::vector<T> soa_to_aos(std::span<const T> soa, std::int64_t n, int fields) {
  const std::int64_t f = fields;
  const std::int64_t pitch = aos_soa_pitch(n);
  if (static_cast<std::int64_t>(soa.size()) < f * pitch) throw std::invalid_argument("soa_to_aos: fields * pitch floats expected");
  std::vector<T> aos(static_cast<std::size_t>(n * f));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = 0; k < f; ++k) aos[static_cast<std::size_t>(i * f + k)] = soa[static_cast<std::size_t>(k * pitch + i)];
  return aos;
}

template std::vector<float> aos_to_soa<float>(std::span<const float>, int, float);
template std::vector<double> aos_to_soa<double>(std::span<const double>, int, double);
template std::vector<float> soa_to_aos<float>(std::span<const float>, std::int64_t, int);
template std::vector<double> soa_to_aos<double>(std::span<const double>, std::int64_t, int);

} // namespace memtune::templates
