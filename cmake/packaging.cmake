# Installation (`cmake --install BUILD --prefix P`, FHS layout under P) and packages (`cpack` in
# BUILD, or the `package` target: a .deb and a .tar.gz).
#
#   bin/aitk-env
#   share/aitk-env/manifests/   the data tables and the default manifest
#   share/aitk-env/templates/   shim, Dockerfile and pull-through cache templates
#   share/doc/aitk-env/         README.md, LICENSE (and docs/ when the checkout has it)
#
# The binary reads none of these files: every table, manifest and template it uses is compiled
# in (src/*/embedded.cmake), so an installed, packaged or extracted aitk-env runs from any
# folder. The copies are there to read and to start from (manifests/README.md documents the
# manifest schema, templates/nginx-pull-through.conf is meant to be copied).
include(GNUInstallDirs)

install(TARGETS aitk-env RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/manifests ${PROJECT_SOURCE_DIR}/templates
        DESTINATION ${CMAKE_INSTALL_DATADIR}/aitk-env)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/docs)
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
endif()

set(AITK_ENV_PACKAGE_CONTACT "aitk-env developers <aitk-env@localhost>"
    CACHE STRING "Maintainer field of the .deb")
set(CPACK_PACKAGE_NAME aitk-env)
set(CPACK_PACKAGE_VENDOR aitk-env)
set(CPACK_PACKAGE_CONTACT ${AITK_ENV_PACKAGE_CONTACT})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "correct, reproducible Python + PyTorch environments for AI training projects")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "aitk-env reads the GPU driver and compute capability, picks the torch wheel set that runs "
    "on the machine, resolves and hash-checks everything into a shared cache, installs it into "
    "an isolated venv-compatible prefix, writes a lockfile and launch shims.")
string(TOLOWER "${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR}" aitk_package_system)
set(CPACK_PACKAGE_FILE_NAME ${CPACK_PACKAGE_NAME}-${PROJECT_VERSION}-${aitk_package_system})
set(CPACK_STRIP_FILES ON)
set(CPACK_THREADS 0)

# .tar.gz: aitk-env-<version>-linux-x86_64/{bin,share}/…, to extract anywhere. It needs the same
# shared libraries as the .deb (its Depends line: `dpkg-deb -f aitk-env_*.deb Depends`).
set(CPACK_GENERATOR TGZ)
set(CPACK_ARCHIVE_COMPONENT_INSTALL OFF)

# .deb: installed under /usr; Depends computed by dpkg-shlibdeps from what the binary links
# (libcurl4, libarchive13, libyaml-cpp0.7, libssl3, libfmt9, libspdlog1.10, libstdc++6, …).
find_program(AITK_ENV_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(AITK_ENV_DPKG_SHLIBDEPS)
    list(APPEND CPACK_GENERATOR DEB)
    set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
    set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
    set(CPACK_DEBIAN_PACKAGE_SECTION devel)
    set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
    # https certificates for libcurl, git for git requirements, a CPython for environments
    # (else setup installs a standalone build).
    set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ca-certificates, git, python3")
else()
    message(STATUS "dpkg-shlibdeps not found (Debian: apt-get install dpkg-dev): cpack makes "
                   "the .tar.gz only")
endif()

include(CPack)
