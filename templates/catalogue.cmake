# The built-in kernel templates, in the order memtune lists them. A template
# is the folder templates/<name>/ (<name>.cu, <name>.cpp with its description,
# its helpers, template.cmake naming its host sources), its public header
# include/memtune/templates/<name>.hpp and its tests
# (tests/templates/<name>_*test.cpp, tests/gpu/<name>_gpu_test.cpp): adding
# one is its files and one line here.
set(MEMTUNE_TEMPLATES
  filter
  matvec
  aos_soa
  fdtd
  transpose
)
