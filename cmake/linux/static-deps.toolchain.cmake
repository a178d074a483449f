# The portable Linux build (preset linux-portable, .ci/portable): every dependency linked from
# static archives, libstdc++ and libgcc inside the executable, and glibc the only shared library
# left, so that one aitk-env runs on any Linux of its architecture with glibc 2.34 or newer.
#
# AITK_LINUX_DEPS (cache or environment variable) names the folder that holds the static
# dependencies (include/, lib/*.a, lib/cmake, lib/pkgconfig, lib/glibc-compat.o), built from
# Debian 12's source packages; .ci/portable unpacks the prebuilt archive there. Default:
# build/linux-deps-<arch> of this checkout. AITK_LINUX_ARCH: x86_64 (default) or aarch64.

# CMake's platform files reset the library suffixes after the toolchain file is read; read as
# CMAKE_USER_MAKE_RULES_OVERRIDE as well, this file sets them again there (static first).
if(CMAKE_C_COMPILER_LOADED OR CMAKE_CXX_COMPILER_LOADED)
    set(CMAKE_FIND_LIBRARY_SUFFIXES .a .so)
    return()
endif()
set(CMAKE_USER_MAKE_RULES_OVERRIDE ${CMAKE_CURRENT_LIST_FILE})

if(NOT AITK_LINUX_ARCH)
    set(AITK_LINUX_ARCH x86_64)
endif()
set(AITK_LINUX_TRIPLE ${AITK_LINUX_ARCH}-linux-gnu)
set(CMAKE_C_COMPILER ${AITK_LINUX_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${AITK_LINUX_TRIPLE}-g++)
if(NOT AITK_LINUX_ARCH STREQUAL CMAKE_HOST_SYSTEM_PROCESSOR)
    set(CMAKE_SYSTEM_NAME Linux)
    set(CMAKE_SYSTEM_PROCESSOR ${AITK_LINUX_ARCH})
endif()

if(NOT AITK_LINUX_DEPS AND DEFINED ENV{AITK_LINUX_DEPS})
    set(AITK_LINUX_DEPS "$ENV{AITK_LINUX_DEPS}")
endif()
if(NOT AITK_LINUX_DEPS)
    get_filename_component(AITK_LINUX_DEPS
                           "${CMAKE_CURRENT_LIST_DIR}/../../build/linux-deps-${AITK_LINUX_ARCH}" ABSOLUTE)
endif()
if(NOT EXISTS "${AITK_LINUX_DEPS}/lib/libcurl.a")
    message(FATAL_ERROR "AITK_LINUX_DEPS='${AITK_LINUX_DEPS}' holds no static ${AITK_LINUX_ARCH} "
                        "dependencies: `bash .ci/portable` unpacks them there")
endif()
# try_compile reads the toolchain file again: hand the settings on.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES AITK_LINUX_DEPS AITK_LINUX_ARCH)

# Only the dependencies' folder (and, cross-building, the target's system libraries) are searched:
# none of the build machine's own -dev packages can slip in.
set(CMAKE_FIND_ROOT_PATH ${AITK_LINUX_DEPS})
if(CMAKE_SYSTEM_NAME)
    list(APPEND CMAKE_FIND_ROOT_PATH /usr/${AITK_LINUX_TRIPLE})
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(OPENSSL_USE_STATIC_LIBS ON)
set(OPENSSL_ROOT_DIR ${AITK_LINUX_DEPS})
set(ZLIB_USE_STATIC_LIBS ON)
set(ENV{PKG_CONFIG_LIBDIR} "${AITK_LINUX_DEPS}/lib/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
# Debian 12's libstdc++.a and libgcc_eh.a call two functions that glibc has only since 2.35/2.36
# (arc4random, _dl_find_object); glibc-compat.o gives them definitions that need nothing newer
# than 2.34, the glibc of Ubuntu 22.04 and RHEL 9.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static-libstdc++ -static-libgcc ${AITK_LINUX_DEPS}/lib/glibc-compat.o")
set(AITK_LINUX_STATIC ON)

if(CMAKE_SYSTEM_NAME)
    find_program(AITK_QEMU NAMES qemu-${AITK_LINUX_ARCH}-static qemu-${AITK_LINUX_ARCH}
                 NO_CMAKE_FIND_ROOT_PATH)
    if(AITK_QEMU)
        set(CMAKE_CROSSCOMPILING_EMULATOR ${AITK_QEMU} -L /usr/${AITK_LINUX_TRIPLE})
    endif()
endif()
