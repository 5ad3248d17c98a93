#pragma once
// Template device sources, embedded at build time from templates/<name>/*.cu
// (see cmake/EmbedSource.cmake): the library needs no files at run time.
namespace memtune::templates::embedded {
extern const char filter_cu[];
extern const char aos_soa_cu[];
extern const char matvec_cu[];
extern const char fdtd_cu[];
} // namespace memtune::templates::embedded
