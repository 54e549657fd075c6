# FindNCCL
# --------
# Finds NCCL: the header nccl.h and the library libnccl, of the same version.
#
# Where it looks:
#   1. NCCL_ROOT (a CMake variable or an environment variable): <root>/include and <root>/lib
#      (or lib64) only, when it is set. A pip installation works as a root: the directory that
#      python3 -c 'import nvidia.nccl as m; print(m.__path__[0])' prints.
#   2. Otherwise the CUDA toolkit (CUDAToolkit_INCLUDE_DIRS / CUDAToolkit_LIBRARY_DIR, e.g.
#      /usr/local/cuda/include/nccl.h and /usr/local/cuda/lib64/libnccl.so), then the system.
# The library is looked for beside the header first (<prefix>/lib64, <prefix>/lib), so that the two
# come from one installation. NCCL_INCLUDE_DIR and NCCL_LIBRARY (cache) override the search.
#
# Versions: the header's from NCCL_MAJOR/MINOR/PATCH in nccl.h; the library's from its file name
# when it carries one (libnccl.so.2.28.9), else by compiling and running a call of ncclGetVersion
# (needs a C++ compiler; skipped when cross-compiling). Both are reported; when both are known and
# differ, NCCL is not found (the message says why).
#
# Results: NCCL_FOUND, NCCL_VERSION (the header's), NCCL_LIBRARY_VERSION (the library's, or empty),
# NCCL_INCLUDE_DIRS, NCCL_LIBRARIES, and the imported target NCCL::NCCL.

include(FindPackageHandleStandardArgs)

set(_nccl_roots "")
if(DEFINED NCCL_ROOT AND NOT "${NCCL_ROOT}" STREQUAL "")
  list(APPEND _nccl_roots "${NCCL_ROOT}")
elseif(DEFINED ENV{NCCL_ROOT} AND NOT "$ENV{NCCL_ROOT}" STREQUAL "")
  list(APPEND _nccl_roots "$ENV{NCCL_ROOT}")
endif()

if(_nccl_roots)
  find_path(NCCL_INCLUDE_DIR nccl.h
    PATHS ${_nccl_roots} PATH_SUFFIXES include
    NO_DEFAULT_PATH)
else()
  if(NOT CUDAToolkit_FOUND)
    find_package(CUDAToolkit QUIET)
  endif()
  set(_nccl_toolkit_roots "")
  if(CUDAToolkit_LIBRARY_ROOT)
    list(APPEND _nccl_toolkit_roots "${CUDAToolkit_LIBRARY_ROOT}")
  endif()
  find_path(NCCL_INCLUDE_DIR nccl.h
    HINTS ${CUDAToolkit_INCLUDE_DIRS} ${_nccl_toolkit_roots}
    PATHS /usr/local/cuda
    PATH_SUFFIXES include)
endif()

# The library: beside the header first, then where the header search looked.
if(NCCL_INCLUDE_DIR)
  get_filename_component(_nccl_prefix "${NCCL_INCLUDE_DIR}" DIRECTORY)
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2
    PATHS "${_nccl_prefix}" PATH_SUFFIXES lib64 lib
    NO_DEFAULT_PATH)
endif()
if(_nccl_roots)
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2
    PATHS ${_nccl_roots} PATH_SUFFIXES lib64 lib
    NO_DEFAULT_PATH)
else()
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2
    HINTS ${CUDAToolkit_LIBRARY_DIR} ${_nccl_toolkit_roots}
    PATHS /usr/local/cuda
    PATH_SUFFIXES lib64 lib)
endif()

# Header version.
set(NCCL_VERSION "")
if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_version_lines
       REGEX "^#define[ \t]+NCCL_(MAJOR|MINOR|PATCH)[ \t]+[0-9]+")
  foreach(_part MAJOR MINOR PATCH)
    set(NCCL_VERSION_${_part} "")
    foreach(_line IN LISTS _nccl_version_lines)
      if(_line MATCHES "^#define[ \t]+NCCL_${_part}[ \t]+([0-9]+)")
        set(NCCL_VERSION_${_part} "${CMAKE_MATCH_1}")
      endif()
    endforeach()
  endforeach()
  if(NOT "${NCCL_VERSION_MAJOR}" STREQUAL "" AND NOT "${NCCL_VERSION_MINOR}" STREQUAL ""
     AND NOT "${NCCL_VERSION_PATCH}" STREQUAL "")
    set(NCCL_VERSION "${NCCL_VERSION_MAJOR}.${NCCL_VERSION_MINOR}.${NCCL_VERSION_PATCH}")
  endif()
endif()

# Library version: from the file name the symlinks lead to, else from ncclGetVersion. Cached per
# library file, so that a configure run does not compile the probe again.
set(NCCL_LIBRARY_VERSION "")
if(NCCL_LIBRARY AND EXISTS "${NCCL_LIBRARY}")
  get_filename_component(_nccl_real "${NCCL_LIBRARY}" REALPATH)
  get_filename_component(_nccl_real_name "${_nccl_real}" NAME)
  if(_nccl_real_name MATCHES "\\.so\\.([0-9]+)\\.([0-9]+)\\.([0-9]+)$")
    set(NCCL_LIBRARY_VERSION "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}.${CMAKE_MATCH_3}")
  elseif(DEFINED _NCCL_PROBED_LIBRARY AND _NCCL_PROBED_LIBRARY STREQUAL "${_nccl_real}"
         AND DEFINED _NCCL_PROBED_HEADER AND _NCCL_PROBED_HEADER STREQUAL "${NCCL_INCLUDE_DIR}")
    set(NCCL_LIBRARY_VERSION "${_NCCL_PROBED_VERSION}")
  elseif(NCCL_INCLUDE_DIR AND CMAKE_CXX_COMPILER_LOADED AND NOT CMAKE_CROSSCOMPILING)
    set(_nccl_probe_dir "${CMAKE_BINARY_DIR}${CMAKE_FILES_DIRECTORY}/FindNCCL")
    file(WRITE "${_nccl_probe_dir}/nccl_version.cpp"
      "#include <cstdio>\n#include <nccl.h>\n"
      "int main() { int v = 0; if (ncclGetVersion(&v) != ncclSuccess) return 1; std::printf(\"%d\", v); return 0; }\n")
    try_run(_nccl_probe_run _nccl_probe_compiled
      "${_nccl_probe_dir}/build" "${_nccl_probe_dir}/nccl_version.cpp"
      CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${NCCL_INCLUDE_DIR}"
      LINK_LIBRARIES "${NCCL_LIBRARY}"
      COMPILE_OUTPUT_VARIABLE _nccl_probe_compile_out
      RUN_OUTPUT_VARIABLE _nccl_probe_out)
    set(_nccl_probed "")
    if(_nccl_probe_compiled AND "${_nccl_probe_run}" STREQUAL "0" AND _nccl_probe_out MATCHES "^([0-9]+)$")
      # NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch since 2.9 (major * 1000 + ... before).
      set(_code "${CMAKE_MATCH_1}")
      if(_code GREATER_EQUAL 20900)
        math(EXPR _maj "${_code} / 10000")
        math(EXPR _min "(${_code} % 10000) / 100")
        math(EXPR _pat "${_code} % 100")
      else()
        math(EXPR _maj "${_code} / 1000")
        math(EXPR _min "(${_code} % 1000) / 100")
        math(EXPR _pat "${_code} % 100")
      endif()
      set(_nccl_probed "${_maj}.${_min}.${_pat}")
    endif()
    set(NCCL_LIBRARY_VERSION "${_nccl_probed}")
    set(_NCCL_PROBED_LIBRARY "${_nccl_real}" CACHE INTERNAL "library whose version FindNCCL probed")
    set(_NCCL_PROBED_HEADER "${NCCL_INCLUDE_DIR}" CACHE INTERNAL "header the probe compiled with")
    set(_NCCL_PROBED_VERSION "${_nccl_probed}" CACHE INTERNAL "what ncclGetVersion returned")
  endif()
endif()

set(NCCL_VERSIONS_MATCH TRUE)
set(_nccl_failure "")
if(NOT "${NCCL_VERSION}" STREQUAL "" AND NOT "${NCCL_LIBRARY_VERSION}" STREQUAL ""
   AND NOT NCCL_VERSION VERSION_EQUAL NCCL_LIBRARY_VERSION)
  set(NCCL_VERSIONS_MATCH FALSE)
  string(CONCAT _nccl_failure
    "nccl.h ${NCCL_VERSION} (${NCCL_INCLUDE_DIR}) and libnccl ${NCCL_LIBRARY_VERSION} (${NCCL_LIBRARY}) are "
    "different versions: point NCCL_ROOT at one installation or set NCCL_INCLUDE_DIR and NCCL_LIBRARY")
endif()

if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY AND NOT NCCL_FIND_QUIETLY)
  if("${NCCL_LIBRARY_VERSION}" STREQUAL "")
    set(_nccl_libver "unknown")
  else()
    set(_nccl_libver "${NCCL_LIBRARY_VERSION}")
  endif()
  message(STATUS "NCCL: header ${NCCL_VERSION} (${NCCL_INCLUDE_DIR}/nccl.h), library ${_nccl_libver} (${NCCL_LIBRARY})")
endif()

set(_nccl_reason "")
if(_nccl_failure)
  set(_nccl_reason REASON_FAILURE_MESSAGE "${_nccl_failure}")
endif()
find_package_handle_standard_args(NCCL
  REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR NCCL_VERSIONS_MATCH
  VERSION_VAR NCCL_VERSION
  ${_nccl_reason})

if(NCCL_FOUND)
  set(NCCL_INCLUDE_DIRS "${NCCL_INCLUDE_DIR}")
  set(NCCL_LIBRARIES "${NCCL_LIBRARY}")
  if(NOT TARGET NCCL::NCCL)
    add_library(NCCL::NCCL UNKNOWN IMPORTED)
    set_target_properties(NCCL::NCCL PROPERTIES
      IMPORTED_LOCATION "${NCCL_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
  endif()
endif()

mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)
unset(_nccl_roots)
unset(_nccl_toolkit_roots)
unset(_nccl_prefix)
unset(_nccl_failure)
unset(_nccl_reason)
