# Driver of the package tests (tools/package/KwirePackageTests.cmake): cmake -DKWIRE_STEP=<step>
# -D... -P tools/package/package_test.cmake. Steps:
#   install             fresh <test>/prefix from `cmake --install <build> --prefix`, then
#                       checks its contents
#   consumer            tools/package/consumer against <test>/prefix with find_package(kwire)
#   consumer_pkgconfig  every installed header with kwire.pc's Cflags; tools/package/consumer/
#                       main.cc compiled and linked with pkg-config alone, then run
#   subproject          configure tools/package/subproject (kwire via FetchContent) without
#                       GoogleTest and Google Benchmark
cmake_minimum_required(VERSION 3.25)

foreach(var KWIRE_STEP KWIRE_SOURCE_DIR KWIRE_BUILD_DIR KWIRE_TEST_DIR KWIRE_CXX_COMPILER
            KWIRE_GENERATOR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "package_test.cmake: ${var} not set")
  endif()
endforeach()

set(prefix ${KWIRE_TEST_DIR}/prefix)
set(include_root ${prefix}/${KWIRE_INCLUDEDIR}/kwire)

# Runs a command; on failure prints its output and fails the test.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${ARGN}\n${out}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

# Wall time since `start` (a "%s%f" timestamp: microseconds), in seconds with 2 decimals.
function(elapsed_since start what)
  string(TIMESTAMP now "%s%f")
  math(EXPR centis "(${now} - ${start}) / 10000")
  math(EXPR secs "${centis} / 100")
  math(EXPR frac "${centis} % 100")
  if(frac LESS 10)
    set(frac "0${frac}")
  endif()
  message(STATUS "${what}: ${secs}.${frac} s")
endfunction()

if(KWIRE_STEP STREQUAL "install")
  file(REMOVE_RECURSE ${prefix})
  run("cmake --install" ${CMAKE_COMMAND} --install ${KWIRE_BUILD_DIR} --prefix ${prefix})
  # Every public header: hand-written ones of the source tree (all of codec/ but tests'
  # helpers) and the generator's list.
  file(GLOB_RECURSE source_headers RELATIVE ${KWIRE_SOURCE_DIR} ${KWIRE_SOURCE_DIR}/codec/*.h)
  list(FILTER source_headers EXCLUDE REGEX "_test[^/]*\\.h$|/test_util\\.h$")
  # The facade headers (codec/include/kwire/X.h) are installed as include/kwire/X.h.
  list(TRANSFORM source_headers REPLACE "^codec/include/kwire/" "")
  file(STRINGS ${KWIRE_GEN_HEADERS_FILE} gen_headers)
  set(expected ${source_headers})
  foreach(h IN LISTS gen_headers)
    get_filename_component(name ${h} NAME)
    list(APPEND expected codec/generated/${name})
  endforeach()
  list(LENGTH gen_headers gen_count)
  if(gen_count LESS 100)
    message(FATAL_ERROR "only ${gen_count} generated headers listed in ${KWIRE_GEN_HEADERS_FILE}")
  endif()
  set(missing "")
  foreach(h IN LISTS expected)
    if(NOT EXISTS ${include_root}/${h})
      list(APPEND missing ${h})
    endif()
  endforeach()
  if(missing)
    list(JOIN missing "\n  " missing)
    message(FATAL_ERROR "headers missing from the install (${include_root}):\n  ${missing}")
  endif()
  # Nothing of the tests.
  file(GLOB_RECURSE installed_headers RELATIVE ${include_root} ${include_root}/*.h)
  set(test_headers ${installed_headers})
  list(FILTER test_headers INCLUDE REGEX "_test|test_util")
  if(test_headers)
    message(FATAL_ERROR "test headers installed: ${test_headers}")
  endif()
  foreach(f ${KWIRE_LIBDIR}/cmake/kwire/kwireConfig.cmake
            ${KWIRE_LIBDIR}/cmake/kwire/kwireConfigVersion.cmake
            ${KWIRE_LIBDIR}/pkgconfig/kwire.pc)
    if(NOT EXISTS ${prefix}/${f})
      message(FATAL_ERROR "${f} missing from the install")
    endif()
  endforeach()
  # The measurements of the note: files and bytes of the install tree.
  file(GLOB_RECURSE all_files ${prefix}/*)
  list(LENGTH all_files file_count)
  set(bytes 0)
  foreach(f IN LISTS all_files)
    file(SIZE ${f} size)
    math(EXPR bytes "${bytes} + ${size}")
  endforeach()
  list(LENGTH installed_headers header_count)
  math(EXPR mib "${bytes} / 1048576")
  message(STATUS "install tree: ${file_count} files (${header_count} headers), ${mib} MiB")

elseif(KWIRE_STEP STREQUAL "consumer")
  set(bin ${KWIRE_TEST_DIR}/consumer-build)
  file(REMOVE_RECURSE ${bin})
  set(args -S ${KWIRE_SOURCE_DIR}/tools/package/consumer -B ${bin} -G ${KWIRE_GENERATOR}
           -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${KWIRE_CXX_COMPILER}
           -DCMAKE_C_COMPILER=${KWIRE_C_COMPILER})
  if(KWIRE_MAKE_PROGRAM)
    list(APPEND args -DCMAKE_MAKE_PROGRAM=${KWIRE_MAKE_PROGRAM})
  endif()
  string(TIMESTAMP start "%s%f")
  run("configure tools/package/consumer" ${CMAKE_COMMAND} ${args})
  elapsed_since(${start} "consumer configure (cold)")
  # A sanitized install says so at configure time (kwireConfig.cmake); a plain one does not.
  string(FIND "${run_output}" "(KWIRE_SANITIZE:" warned)
  if(KWIRE_EXPECT_SANITIZED AND warned EQUAL -1)
    message(FATAL_ERROR "find_package(kwire) of a sanitized install did not warn:\n${run_output}")
  elseif(NOT KWIRE_EXPECT_SANITIZED AND NOT warned EQUAL -1)
    message(FATAL_ERROR "find_package(kwire) of a plain install warned of sanitizers:\n${run_output}")
  endif()
  # ... and kwire_ALLOW_SANITIZED=ON silences it.
  if(KWIRE_EXPECT_SANITIZED)
    run("configure tools/package/consumer, kwire_ALLOW_SANITIZED=ON" ${CMAKE_COMMAND} ${args}
        -Dkwire_ALLOW_SANITIZED=ON)
    string(FIND "${run_output}" "(KWIRE_SANITIZE:" warned)
    if(NOT warned EQUAL -1)
      message(FATAL_ERROR "kwire_ALLOW_SANITIZED=ON did not silence the warning:\n${run_output}")
    endif()
  endif()
  string(TIMESTAMP start "%s%f")
  run("build tools/package/consumer" ${CMAKE_COMMAND} --build ${bin} -j 1)
  elapsed_since(${start} "consumer build")
  run("run kwire_consumer" ${bin}/kwire_consumer)
  message(STATUS "${run_output}")

elseif(KWIRE_STEP STREQUAL "consumer_pkgconfig")
  find_program(pkg_config pkg-config REQUIRED)
  set(bin ${KWIRE_TEST_DIR}/consumer-pkgconfig)
  file(REMOVE_RECURSE ${bin})
  file(MAKE_DIRECTORY ${bin})
  set(ENV{PKG_CONFIG_PATH} "${prefix}/${KWIRE_LIBDIR}/pkgconfig:$ENV{PKG_CONFIG_PATH}")
  run("pkg-config --cflags kwire" ${pkg_config} --cflags kwire)
  separate_arguments(cflags UNIX_COMMAND "${run_output}")
  run("pkg-config --static --libs kwire" ${pkg_config} --static --libs kwire)
  separate_arguments(libs UNIX_COMMAND "${run_output}")
  # Every installed header on its own, with nothing but kwire.pc's flags: each #include
  # resolves inside the install (or absl, a Requires).
  file(GLOB_RECURSE installed_headers RELATIVE ${include_root} ${include_root}/*.h)
  set(tu "// Generated by tools/package/package_test.cmake: every installed header.\n")
  foreach(h IN LISTS installed_headers)
    string(APPEND tu "#include \"${h}\"\n")
  endforeach()
  file(WRITE ${bin}/all_headers.cc "${tu}")
  string(TIMESTAMP start "%s%f")
  run("compile every installed header" ${KWIRE_CXX_COMPILER} -std=c++20 ${cflags}
      -fsyntax-only ${bin}/all_headers.cc)
  elapsed_since(${start} "all installed headers (-fsyntax-only)")
  string(TIMESTAMP start "%s%f")
  run("build main.cc with pkg-config" ${KWIRE_CXX_COMPILER} -std=c++20 ${cflags}
      ${KWIRE_SOURCE_DIR}/tools/package/consumer/main.cc -o ${bin}/kwire_consumer ${libs})
  elapsed_since(${start} "consumer build (pkg-config)")
  run("run kwire_consumer (pkg-config)" ${bin}/kwire_consumer)
  message(STATUS "${run_output}")

elseif(KWIRE_STEP STREQUAL "subproject")
  set(bin ${KWIRE_TEST_DIR}/subproject-build)
  file(REMOVE_RECURSE ${bin})
  set(args -S ${KWIRE_SOURCE_DIR}/tools/package/subproject -B ${bin} -G ${KWIRE_GENERATOR} --no-warn-unused-cli
           -DKWIRE_SOURCE_DIR=${KWIRE_SOURCE_DIR}
           -DCMAKE_CXX_COMPILER=${KWIRE_CXX_COMPILER} -DCMAKE_C_COMPILER=${KWIRE_C_COMPILER}
           # Prove that a subproject needs none of the harness's dependencies.
           -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON)
  if(KWIRE_MAKE_PROGRAM)
    list(APPEND args -DCMAKE_MAKE_PROGRAM=${KWIRE_MAKE_PROGRAM})
  endif()
  string(TIMESTAMP start "%s%f")
  run("configure tools/package/subproject" ${CMAKE_COMMAND} ${args})
  elapsed_since(${start} "subproject configure")

else()
  message(FATAL_ERROR "package_test.cmake: unknown step '${KWIRE_STEP}'")
endif()
