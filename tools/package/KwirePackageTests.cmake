# ctest tests of the package (issue 15), in every KWIRE_TESTS build with install rules:
#   package.install             cmake --install of this build tree into a fresh prefix
#                               (FIXTURES_SETUP kwire_package); checks that every public
#                               header (hand-written and generated) and the package files
#                               are there and no test helper is
#   package.consumer            tools/package/consumer configured (find_package(kwire CONFIG)),
#                               built and run against that prefix
#   package.consumer_pkgconfig  every installed header compiled with kwire.pc's Cflags, and
#                               tools/package/consumer/main.cc built with
#                               `pkg-config --cflags --static --libs kwire` and run
#   package.subproject          tools/package/subproject configured: kwire through FetchContent
#                               with GoogleTest and Google Benchmark made unfindable
# The driver is tools/package/package_test.cmake; everything it makes is under
# <build>/package-test/.
set(KWIRE_PACKAGE_TEST_DIR ${PROJECT_BINARY_DIR}/package-test)
# The generated headers the install must hold (the generator's list, one per line).
list(JOIN KWIRE_GEN_HEADERS "\n" _kwire_gen_lines)
file(WRITE ${PROJECT_BINARY_DIR}/package/generated-headers.txt "${_kwire_gen_lines}\n")
set(KWIRE_PACKAGE_TEST_ARGS
  -DKWIRE_SOURCE_DIR=${PROJECT_SOURCE_DIR}
  -DKWIRE_BUILD_DIR=${PROJECT_BINARY_DIR}
  -DKWIRE_TEST_DIR=${KWIRE_PACKAGE_TEST_DIR}
  -DKWIRE_GEN_HEADERS_FILE=${PROJECT_BINARY_DIR}/package/generated-headers.txt
  -DKWIRE_INCLUDEDIR=${CMAKE_INSTALL_INCLUDEDIR}
  -DKWIRE_LIBDIR=${CMAKE_INSTALL_LIBDIR}
  -DKWIRE_CONFIG_NAME=$<CONFIG>
  -DKWIRE_C_COMPILER=${CMAKE_C_COMPILER}
  -DKWIRE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
  -DKWIRE_GENERATOR=${CMAKE_GENERATOR}
  -DKWIRE_MAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}
  -DKWIRE_EXPECT_SANITIZED=${KWIRE_CONFIG_SANITIZE})

foreach(step install consumer consumer_pkgconfig subproject)
  add_test(NAME package.${step}
           COMMAND ${CMAKE_COMMAND} -DKWIRE_STEP=${step} ${KWIRE_PACKAGE_TEST_ARGS}
                   -P ${PROJECT_SOURCE_DIR}/tools/package/package_test.cmake)
  set_tests_properties(package.${step} PROPERTIES LABELS package TIMEOUT 600)
endforeach()
set_tests_properties(package.install PROPERTIES FIXTURES_SETUP kwire_package)
set_tests_properties(package.consumer package.consumer_pkgconfig PROPERTIES
                     FIXTURES_REQUIRED kwire_package)
# The consumers link the large archives of the test preset: one at a time.
set_tests_properties(package.consumer package.consumer_pkgconfig PROPERTIES
                     RESOURCE_LOCK kwire_package_link)
