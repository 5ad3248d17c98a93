# The matvec template's host sources (matvec.cu is embedded by templates/CMakeLists.txt).
set(template_sources
  matvec.cpp
  matvec_reference.cpp
  matvec_access.cpp
  matvec_note.cpp
)
