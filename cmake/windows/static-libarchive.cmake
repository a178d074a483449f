# A static libarchive for mingw needs what FindLibArchive does not say: LIBARCHIVE_STATIC (no
# dllimport in its headers) and the compression libraries and bcrypt it was built against.
find_library(AITK_LIBARCHIVE_A NAMES libarchive.a archive REQUIRED)
find_path(AITK_LIBARCHIVE_INCLUDE archive.h REQUIRED)
find_library(AITK_ZSTD_A NAMES libzstd.a zstd REQUIRED)
find_library(AITK_LZMA_A NAMES liblzma.a lzma REQUIRED)
find_library(AITK_BZ2_A NAMES libbz2.a bz2 REQUIRED)
find_library(AITK_Z_A NAMES libz.a z REQUIRED)
add_library(LibArchive::LibArchive STATIC IMPORTED)
set_target_properties(LibArchive::LibArchive PROPERTIES
    IMPORTED_LOCATION "${AITK_LIBARCHIVE_A}"
    INTERFACE_INCLUDE_DIRECTORIES "${AITK_LIBARCHIVE_INCLUDE}"
    INTERFACE_COMPILE_DEFINITIONS "LIBARCHIVE_STATIC;LZMA_API_STATIC"
    INTERFACE_LINK_LIBRARIES "${AITK_ZSTD_A};${AITK_LZMA_A};${AITK_BZ2_A};${AITK_Z_A};bcrypt")
set(LibArchive_FOUND TRUE)
