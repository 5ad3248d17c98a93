# The transpose template's host sources (transpose.cu is embedded by templates/CMakeLists.txt).
set(template_sources
  transpose.cpp
  transpose_reference.cpp
  transpose_access.cpp
)
