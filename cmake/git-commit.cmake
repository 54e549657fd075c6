# cmake -DSOURCE_DIR=... -DOUTPUT=... -P git-commit.cmake
# Writes OUTPUT, a header defining GEMM_GIT_COMMIT as the sources' short commit ("-dirty" when the
# work tree differs from it, "unknown" without git), and touches it only when that changes, so that
# what includes it recompiles once per commit. Run at build time: benchmark results name the commit
# the binary was built from, not the one the build folder was configured at.
set(commit "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
  if(rc EQUAL 0 AND NOT head STREQUAL "")
    set(commit "${head}")
    execute_process(COMMAND ${GIT_EXECUTABLE} diff --quiet HEAD -- include benchmark WORKING_DIRECTORY ${SOURCE_DIR}
                    RESULT_VARIABLE dirty ERROR_QUIET)
    if(NOT dirty EQUAL 0)
      set(commit "${commit}-dirty")
    endif()
  endif()
endif()
set(text "#pragma once\n#define GEMM_GIT_COMMIT \"${commit}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
