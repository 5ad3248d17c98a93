# The aos_soa template's host sources (aos_soa.cu is embedded by templates/CMakeLists.txt).
set(template_sources
  aos_soa.cpp
  aos_soa_reference.cpp
  aos_soa_access.cpp
  aos_soa_note.cpp
)
