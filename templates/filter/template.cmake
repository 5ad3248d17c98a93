# The filter template's host sources (filter.cu is embedded by templates/CMakeLists.txt).
set(template_sources
  filter.cpp
  filter_reference.cpp
  filter_access.cpp
  filter_direct_access.cpp
)
