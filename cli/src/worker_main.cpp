// memtune-worker: launches candidates for a tuning process (isolate/).
// Every description reaches it as data (a file's text, or
// KernelDescription::to_data(): the built-in templates too), so it holds no
// descriptions of its own and links no catalogue. A description with C++
// callbacks cannot travel; the tuning process then runs it in-process and
// says why (a program with such descriptions can link its own worker with a
// lookup: isolate/worker_main.hpp).
#include <memtune/isolate/worker_main.hpp>

int main(int argc, char** argv) { return memtune::isolation::worker_main(argc, argv, nullptr); }
