# Install rules for kwire as a package (issue 15): libraries with exported targets,
# headers (hand-written and generated), kwireConfig.cmake + kwireConfigVersion.cmake,
# kwire.pc. Included from the top-level CMakeLists.txt when KWIRE_INSTALL is ON.
#
# Layout under the prefix (GNUInstallDirs):
#   include/kwire/kwire.h, explain.h   the facade headers: #include <kwire/kwire.h> with
#                                      -I<prefix>/include (kwire::kwire, kwire.pc)
#   include/kwire/codec/...            headers: #include "codec/protocol/frame.h" with
#   include/kwire/conformance/check.h  -I<prefix>/include/kwire (the exported targets and
#                                      kwire.pc add it; "codec/" is too generic a name for
#                                      <prefix>/include itself)
#   lib/libkwire_*.a                   the libraries (static unless BUILD_SHARED_LIBS)
#   lib/cmake/kwire/                   kwireConfig.cmake, kwireConfigVersion.cmake,
#                                      kwire-<component>-targets*.cmake
#   lib/pkgconfig/kwire.pc             the core (wire, crc32c, records, codec)
#   bin/kwire, share/kwire/conformance the CLI and the vectors (tools/, conformance/)
#
# find_package(kwire) components, one export set each (loaded in this order):
#   wire     kwire::wire                     Reader / Writer / varints / Error
#   records  kwire::crc32c, kwire::records   record batches, CRC-32C, compression
#   codec    kwire::kwire, kwire::codec      generated messages (decode, encode, equality,
#                                            copy), registry, frames: the core
#   explain  kwire::explain,                 object trees of frames (print.h, explain.h),
#            kwire::records_print            record batches inside them
#   fill     kwire::fill                     minimal and random message instances
#   tools    kwire::conformance              the conformance checks (only when built
#                                            with KWIRE_TOOLS)
# A component brings the ones it links: codec needs records and wire; explain and fill
# need codec; tools needs explain and fill.
# No COMPONENTS means codec (hence wire and records; tools are loaded only on request).

include(CMakePackageConfigHelpers)

set(KWIRE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kwire)
set(KWIRE_HEADER_DIR ${CMAKE_INSTALL_INCLUDEDIR}/kwire)

# ---- libraries, one export set per component.
set(KWIRE_COMPONENTS wire records codec explain fill)
set(KWIRE_COMPONENT_TARGETS_wire kwire_wire)
set(KWIRE_COMPONENT_TARGETS_records kwire_crc32c kwire_records)
set(KWIRE_COMPONENT_TARGETS_codec kwire_codec kwire_kwire)
set(KWIRE_COMPONENT_TARGETS_explain kwire_explain kwire_records_print)
set(KWIRE_COMPONENT_TARGETS_fill kwire_fill)
if(TARGET kwire_conformance)
  list(APPEND KWIRE_COMPONENTS tools)
  set(KWIRE_COMPONENT_TARGETS_tools kwire_conformance)
endif()
foreach(component IN LISTS KWIRE_COMPONENTS)
  install(TARGETS ${KWIRE_COMPONENT_TARGETS_${component}} EXPORT kwire-${component}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(EXPORT kwire-${component} NAMESPACE kwire:: DESTINATION ${KWIRE_CMAKE_DIR}
          FILE kwire-${component}-targets.cmake)
endforeach()

# ---- headers. Hand-written: every codec/**/*.h except tests' helpers (*_test*.h,
# test_util.h), and the port macros the headers include and undefine again
# (codec/wire/port_def.inc, port_undef.inc); generated: the generator's own list
# (gen/codec/generated/*.h).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/codec/ DESTINATION ${KWIRE_HEADER_DIR}/codec
        FILES_MATCHING PATTERN "*.h" PATTERN "*.inc"
        PATTERN "*_test*" EXCLUDE
        PATTERN "test_util.h" EXCLUDE
        PATTERN "defs" EXCLUDE
        PATTERN "include" EXCLUDE)
# The facade headers (<kwire/kwire.h>, <kwire/explain.h>): include/kwire/*.h.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/codec/include/kwire/ DESTINATION ${KWIRE_HEADER_DIR}
        FILES_MATCHING PATTERN "*.h")
install(FILES ${KWIRE_GEN_HEADERS} DESTINATION ${KWIRE_HEADER_DIR}/codec/generated)
if(TARGET kwire_conformance)
  install(FILES ${PROJECT_SOURCE_DIR}/conformance/check.h
          DESTINATION ${KWIRE_HEADER_DIR}/conformance)
endif()

# ---- what kwireConfig.cmake needs to know about this build.
# Private dependencies of a static library are part of its link interface
# ($<LINK_ONLY:...> in the exported INTERFACE_LINK_LIBRARIES), so the consumer must find
# them too: zlib, snappy, lz4, zstd (kwire_records) and ISA-L (kwire_crc32c, isal backend).
# A shared kwire links them itself.
get_target_property(_kwire_records_type kwire_records TYPE)
if(_kwire_records_type STREQUAL "STATIC_LIBRARY")
  set(KWIRE_CONFIG_STATIC ON)
else()
  set(KWIRE_CONFIG_STATIC OFF)
endif()
if(KWIRE_SANITIZE OR KWIRE_FUZZ)
  set(KWIRE_CONFIG_SANITIZE ON)
else()
  set(KWIRE_CONFIG_SANITIZE OFF)
endif()
# pkg-config modules of the private link-time dependencies: <prefix> <module> pairs
# (the imported targets are PkgConfig::<prefix>, as in codec/CMakeLists.txt).
set(KWIRE_CONFIG_PKG_MODULES KWIRE_SNAPPY snappy KWIRE_LZ4 liblz4 KWIRE_ZSTD libzstd)
set(KWIRE_PC_REQUIRES_PRIVATE "zlib snappy liblz4 libzstd")
if(KWIRE_CRC32C_BACKEND STREQUAL "isal")
  list(APPEND KWIRE_CONFIG_PKG_MODULES KWIRE_ISAL libisal)
  string(APPEND KWIRE_PC_REQUIRES_PRIVATE " libisal")
endif()
# abseil has no ABI compatibility between releases (its inline namespace changes), so the
# consumer must find the release kwire was built with; absl's version file is ExactVersion.
set(KWIRE_CONFIG_ABSL_VERSION "${absl_VERSION}")
set(KWIRE_PC_REQUIRES "")
foreach(module absl_status absl_statusor absl_str_format absl_inlined_vector)
  if(KWIRE_PC_REQUIRES)
    string(APPEND KWIRE_PC_REQUIRES ", ")
  endif()
  string(APPEND KWIRE_PC_REQUIRES "${module}")
  if(absl_VERSION)
    string(APPEND KWIRE_PC_REQUIRES " = ${absl_VERSION}")
  endif()
endforeach()

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/tools/package/kwireConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/kwireConfig.cmake
  INSTALL_DESTINATION ${KWIRE_CMAKE_DIR}
  NO_SET_AND_CHECK_MACRO)
# SameMinorVersion: kwire is 0.y.z, and before 1.0 a minor release may change the API
# (semver §4), so find_package(kwire 0.1) accepts 0.1.z with z at least the requested
# patch, never 0.2. From 1.0 on this becomes SameMajorVersion.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/package/kwireConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/kwireConfig.cmake
              ${PROJECT_BINARY_DIR}/package/kwireConfigVersion.cmake
        DESTINATION ${KWIRE_CMAKE_DIR})

# ---- kwire.pc: the core libraries. The private dependencies are Requires.private, as
# pkg-config defines it for static libraries: link with `pkg-config --static --libs kwire`
# (kwire builds static libraries by default).
set(KWIRE_PC_LIBS "-lkwire_codec -lkwire_records -lkwire_crc32c -lkwire_wire")
if(KWIRE_CONFIG_SANITIZE)
  string(APPEND KWIRE_PC_LIBS " -fsanitize=address,undefined")
endif()
# Relocatable: the prefix is found from the .pc file's own directory (so that
# `cmake --install --prefix <dir>` yields a usable file).
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(KWIRE_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH _kwire_up "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
  string(REGEX REPLACE "/$" "" _kwire_up "${_kwire_up}")
  set(KWIRE_PC_PREFIX "\${pcfiledir}/${_kwire_up}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/tools/package/kwire.pc.in ${PROJECT_BINARY_DIR}/package/kwire.pc
               @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/kwire.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
