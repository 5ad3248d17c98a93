// memtune-worker: launches candidates for a tuning process (isolate/).
// The built-in templates are rebuilt by name from the catalogue linked here.
#include <memtune/isolate/worker_main.hpp>
#include <memtune/templates/catalogue.hpp>

int main(int argc, char** argv) {
  return memtune::isolation::worker_main(argc, argv, [](const std::string& name) -> const memtune::KernelDescription* {
    for (const memtune::KernelDescription* d : memtune::templates::descriptions())
      if (d->name == name) return d;
    return nullptr;
  });
}
