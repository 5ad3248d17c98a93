# The fdtd template's host sources (fdtd.cu is embedded by templates/CMakeLists.txt).
set(template_sources
  fdtd.cpp
  fdtd_reference.cpp
  fdtd_access.cpp
  fdtd_ring_access.cpp
  fdtd_note.cpp
)
