# How the executables get their libraries: the targets feeddiff_libgit2, feeddiff_crypto
# (libcrypto: SHA-1), feeddiff_zlib, feeddiff_deflate (libdeflate), feeddiff_pugixml, feeddiff_gumbo, feeddiff_fmt and
# feeddiff_toml, which the modules link instead of the packages' own targets.
#
# Static (FEEDDIFF_STATIC, the default). Every command starts as a fresh process, many times a
# day from cron and scripts, and `feeddiff show` is measured against `git show` (bench/show).
# Loading libgit2.so took ~1.4 ms before main(): it pulls in 16 libraries (OpenSSL through
# libssh2, Kerberos, mbedTLS), more than half of all `git show` takes. So:
# - libgit2 comes from Debian's libgit2.a, with the archives of what it needs, all installed by
#   the -dev packages libgit2-dev depends on; only the code feeddiff calls is linked.
#   src/store/git_runtime.cc switches off what libgit2 would start for remotes feeddiff never
#   reaches through it (TLS, SSH, Kerberos; fetching is libcurl's, loaded by dlopen).
# - libsqlite3 (export-sqlite) from Debian's libsqlite3.a, which needs only libm.
# - gumbo (article) from Debian's libgumbo.a, which needs only libc.
# - libdeflate (store: the poll's pack compression) from Debian's libdeflate.a, libc only.
# - pugixml from libpugixml.a, fmt compiled from its headers once (cmake/fmt_compiled.cc),
#   toml++ header-only, libstdc++ and libgcc linked in:
#   what remains to load at start-up is libc and libm.
# Debian builds libgit2.a without -fPIC, so executables that link it are not
# position-independent (-no-pie): the executable's own code sits at a fixed address, while
# shared libraries, heap and stack keep their randomized ones. Go binaries ship the same way.
#
# Shared (-DFEEDDIFF_STATIC=OFF): the packages' shared libraries (libgumbo1 among them), for
# systems without the archives; src/main.cc then skips libgit2's CA bundle load by interposition.
option(FEEDDIFF_STATIC "Link libgit2, libsqlite3, pugixml, gumbo, fmt, toml++ and libstdc++ into the executables (non-PIE)" ON)

add_library(feeddiff_libgit2 INTERFACE)
add_library(feeddiff_crypto INTERFACE)
add_library(feeddiff_zlib INTERFACE)
add_library(feeddiff_deflate INTERFACE)
add_library(feeddiff_pugixml INTERFACE)
add_library(feeddiff_fmt INTERFACE)
add_library(feeddiff_toml INTERFACE)
add_library(feeddiff_sqlite INTERFACE)
add_library(feeddiff_gumbo INTERFACE)
if(FEEDDIFF_STATIC)
  foreach(name git2 ssh2 mbedtls mbedx509 mbedcrypto pcre2-8 http_parser z crypto pugixml sqlite3
             gumbo deflate)
    find_library(FEEDDIFF_LIB_${name} lib${name}.a)
    if(NOT FEEDDIFF_LIB_${name})
      message(FATAL_ERROR "lib${name}.a not found (scripts/deps installs the packages that "
                          "ship it); configure with -DFEEDDIFF_STATIC=OFF to link shared libraries")
    endif()
    if(name STREQUAL "pugixml")
      target_link_libraries(feeddiff_pugixml INTERFACE ${FEEDDIFF_LIB_${name}})
    elseif(name STREQUAL "crypto")
      target_link_libraries(feeddiff_crypto INTERFACE ${FEEDDIFF_LIB_${name}})
    elseif(name STREQUAL "sqlite3")
      # SQLite's own threads and math functions: libpthread is in libc, libm is loaded anyway.
      target_link_libraries(feeddiff_sqlite INTERFACE ${FEEDDIFF_LIB_${name}} m Threads::Threads
                                                      ${CMAKE_DL_LIBS})
      target_include_directories(feeddiff_sqlite SYSTEM INTERFACE ${SQLite3_INCLUDE_DIRS})
    elseif(name STREQUAL "gumbo")
      target_link_libraries(feeddiff_gumbo INTERFACE ${FEEDDIFF_LIB_${name}})
      target_include_directories(feeddiff_gumbo SYSTEM INTERFACE ${GUMBO_INCLUDE_DIRS})
    elseif(name STREQUAL "z")
      target_link_libraries(feeddiff_zlib INTERFACE ${FEEDDIFF_LIB_${name}})
    elseif(name STREQUAL "deflate")
      target_link_libraries(feeddiff_deflate INTERFACE ${FEEDDIFF_LIB_${name}})
    else()
      target_link_libraries(feeddiff_libgit2 INTERFACE ${FEEDDIFF_LIB_${name}})
    endif()
  endforeach()
  # libgit2 and libssh2 need zlib and libcrypto too: linked after them. CMake lists a library
  # once, where a target first needs it: in an executable that links libfeeddiff_core (SHA-1)
  # before libfeeddiff_store (the store's tests), libcrypto.a came before libssh2.a and the
  # link failed. The copy given as a linker argument is not merged with the other, so it
  # always follows libssh2.
  target_link_libraries(feeddiff_libgit2 INTERFACE feeddiff_zlib feeddiff_crypto
                                                   "-Wl,${FEEDDIFF_LIB_crypto}" Threads::Threads)
  target_include_directories(feeddiff_libgit2 SYSTEM INTERFACE ${LIBGIT2_INCLUDE_DIRS})
  target_compile_definitions(feeddiff_libgit2 INTERFACE FEEDDIFF_STATIC_LIBGIT2=1)
  target_link_options(feeddiff_libgit2 INTERFACE -no-pie
    -Wl,--wrap=git_mbedtls_stream_global_init -Wl,--wrap=git_mbedtls_stream_new
    -Wl,--wrap=libssh2_init)
  target_include_directories(feeddiff_pugixml SYSTEM INTERFACE
    $<TARGET_PROPERTY:pugixml::pugixml,INTERFACE_INCLUDE_DIRECTORIES>)
  # fmt: no libfmt.a in Debian, and header-only fmt compiles fmt's implementation again in
  # every file that formats; it is compiled once instead (cmake/fmt_compiled.cc).
  add_library(feeddiff_fmt_compiled STATIC ${PROJECT_SOURCE_DIR}/cmake/fmt_compiled.cc)
  target_link_libraries(feeddiff_fmt INTERFACE feeddiff_fmt_compiled)
  target_compile_definitions(feeddiff_toml INTERFACE TOML_HEADER_ONLY=1)
  # Every executable: no libstdc++.so or libgcc_s.so to load.
  add_link_options(-static-libstdc++ -static-libgcc)
else()
  target_link_libraries(feeddiff_libgit2 INTERFACE PkgConfig::LIBGIT2)
  target_link_libraries(feeddiff_crypto INTERFACE OpenSSL::Crypto)
  target_link_libraries(feeddiff_zlib INTERFACE ZLIB::ZLIB)
  target_link_libraries(feeddiff_deflate INTERFACE PkgConfig::LIBDEFLATE)
  target_link_libraries(feeddiff_pugixml INTERFACE pugixml::pugixml)
  target_link_libraries(feeddiff_fmt INTERFACE fmt::fmt)
  target_link_libraries(feeddiff_toml INTERFACE tomlplusplus::tomlplusplus)
  target_link_libraries(feeddiff_sqlite INTERFACE SQLite::SQLite3)
  target_link_libraries(feeddiff_gumbo INTERFACE PkgConfig::GUMBO)
endif()
