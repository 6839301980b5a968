# What `cmake --install` puts where (GNUInstallDirs under CMAKE_INSTALL_PREFIX; DESTDIR works),
# and the Debian package `cpack -G DEB` makes of it (scripts/package-check builds, installs and
# removes it in CI).
include(GNUInstallDirs)

# The commit `feeddiff --version` names, read from git at every build (cmake/build_info.cmake).
set(FEEDDIFF_GIT_COMMIT "" CACHE STRING
    "The commit feeddiff is built from, for a tree without .git (default: ask git at build time)")
set(feeddiff_build_info ${PROJECT_BINARY_DIR}/generated/build_info.cc)
add_custom_target(feeddiff_build_info
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DOUTPUT=${feeddiff_build_info}
          -DCOMMIT=${FEEDDIFF_GIT_COMMIT} -P ${PROJECT_SOURCE_DIR}/cmake/build_info.cmake
  BYPRODUCTS ${feeddiff_build_info}
  COMMENT "Reading the commit feeddiff is built from" VERBATIM)
target_sources(feeddiff_cli PRIVATE ${feeddiff_build_info})
add_dependencies(feeddiff_cli feeddiff_build_info)

# The manual pages, gzipped (-9n: as Debian wants them, no timestamp): feeddiff(1) written
# by the built binary from its own parser (`feeddiff --man`), feeddiff.toml(5) from dist/man.
find_program(FEEDDIFF_GZIP gzip REQUIRED)
set(feeddiff_man_dir ${PROJECT_BINARY_DIR}/man)
add_custom_command(
  OUTPUT ${feeddiff_man_dir}/feeddiff.1 ${feeddiff_man_dir}/feeddiff.1.gz
         ${feeddiff_man_dir}/feeddiff.toml.5.gz
  COMMAND ${CMAKE_COMMAND} -DFEEDDIFF=$<TARGET_FILE:feeddiff> -DGZIP=${FEEDDIFF_GZIP}
          -DTOML_PAGE=${PROJECT_SOURCE_DIR}/dist/man/feeddiff.toml.5 -DOUT=${feeddiff_man_dir}
          -P ${PROJECT_SOURCE_DIR}/cmake/man.cmake
  DEPENDS feeddiff ${PROJECT_SOURCE_DIR}/cmake/man.cmake
          ${PROJECT_SOURCE_DIR}/dist/man/feeddiff.toml.5
  COMMENT "Writing the manual pages" VERBATIM)
add_custom_target(feeddiff_man ALL DEPENDS ${feeddiff_man_dir}/feeddiff.1.gz
                                           ${feeddiff_man_dir}/feeddiff.toml.5.gz)

# systemd units go to PREFIX/lib/systemd/{system,user}: /usr/lib/systemd is systemd's own
# directory (on Debian, where /lib is /usr/lib, lintian accepts it), /usr/local/lib/systemd is
# in its search path too. zsh's completion goes to Debian's vendor directory under /usr, else
# to site-functions. Computed at each configure (empty cache values) so a new prefix moves them.
set(FEEDDIFF_SYSTEMD_DIR "" CACHE STRING
    "Where the systemd units go, DIR/system and DIR/user (default: PREFIX/lib/systemd)")
set(FEEDDIFF_ZSH_COMPLETION_DIR "" CACHE STRING
    "Where the zsh completion _feeddiff goes (default: by the prefix)")
set(feeddiff_systemd_dir ${FEEDDIFF_SYSTEMD_DIR})
if(NOT feeddiff_systemd_dir)
  set(feeddiff_systemd_dir lib/systemd)
endif()
set(feeddiff_zsh_dir ${FEEDDIFF_ZSH_COMPLETION_DIR})
if(NOT feeddiff_zsh_dir AND CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(feeddiff_zsh_dir ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
elseif(NOT feeddiff_zsh_dir)
  set(feeddiff_zsh_dir ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
endif()

set(FEEDDIFF_BINARY ${CMAKE_INSTALL_FULL_BINDIR}/feeddiff)
foreach(scope system user)
  configure_file(dist/systemd/${scope}/feeddiff-poll@.service.in
                 ${PROJECT_BINARY_DIR}/systemd/${scope}/feeddiff-poll@.service @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/systemd/${scope}/feeddiff-poll@.service
                dist/systemd/${scope}/feeddiff-poll@.timer
          DESTINATION ${feeddiff_systemd_dir}/${scope})
endforeach()

install(TARGETS feeddiff RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${feeddiff_man_dir}/feeddiff.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${feeddiff_man_dir}/feeddiff.toml.5.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man5)
install(FILES dist/completion/feeddiff.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME feeddiff)
install(FILES dist/completion/_feeddiff DESTINATION ${feeddiff_zsh_dir})
install(FILES dist/completion/feeddiff.fish
        DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)

# The Debian package links libgit2 and what it needs statically (cmake/static_deps.cmake):
# lintian is told so, with the reason, where it looks for that.
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr" AND FEEDDIFF_STATIC)
  install(FILES dist/debian/lintian-overrides DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides
          RENAME feeddiff)
endif()

# Docs: the README, the JSON formats, the license (as Debian's copyright file) and a
# changelog in Debian's format, gzipped as Debian wants.
string(TIMESTAMP feeddiff_changelog_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
set(FEEDDIFF_MAINTAINER "feeddiff maintainers <feeddiff@users.noreply.github.com>")
configure_file(dist/debian/changelog.in ${PROJECT_BINARY_DIR}/doc/changelog @ONLY)
execute_process(COMMAND ${FEEDDIFF_GZIP} -9nf ${PROJECT_BINARY_DIR}/doc/changelog)
install(FILES README.md docs/json.md docs/notify.md docs/site.md docs/sqlite.md docs/index.md
              docs/search.md
              docs/log.schema.json
              docs/show.schema.json
              docs/search.schema.json
              dist/debian/copyright ${PROJECT_BINARY_DIR}/doc/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The Debian package: `cpack -G DEB` in a build directory configured with
# -DCMAKE_INSTALL_PREFIX=/usr (scripts/package-check). Depends: what dpkg-shlibdeps finds the binary linked to (libc;
# libgit2, libsqlite3, pugixml, gumbo and libstdc++ are linked in, see cmake/static_deps.cmake; with
# -DFEEDDIFF_STATIC=OFF it finds their shared libraries, libsqlite3-0 among them), and libcurl4,
# which no tool can see: src/fetch/curl_api.cc loads libcurl.so.4 with dlopen. 7.80 is the
# first libcurl with every function it resolves (curl_url_strerror).
# The package installs where the build was configured to (the units name the binary's path).
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_PACKAGE_NAME feeddiff)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "feeddiff")
set(CPACK_PACKAGE_CONTACT "${FEEDDIFF_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "archive web feeds in git and see what changed")
# Lines of the extended description (under 80 characters each, as Debian wants).
set(CPACK_PACKAGE_DESCRIPTION "feeddiff polls RSS, Atom and JSON Feed sources politely
(conditional requests, intervals, backoff) and archives every response that
changed as one commit of an ordinary git repository: the raw body byte for
byte, with its HTTP headers. It shows each change as the items added, removed
and changed and the diff, in text, Markdown, JSON or HTML, and writes a
static site of the archive.")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://github.com/feeddiff/feeddiff")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION web)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libcurl4 (>= 7.80.0)")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "git, ca-certificates")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
