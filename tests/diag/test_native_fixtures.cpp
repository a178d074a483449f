// The fixture builders the diag tests rely on produce real images of the kind asked for.
#include <gtest/gtest.h>

#include "aitk/fs/file.hpp"
#include "aitk/fs/temp.hpp"
#include "native_fixtures.hpp"

namespace AITK_FILE_LOCAL {

namespace {

namespace fs = std::filesystem;
using namespace aitk::test;

std::string head(const fs::path& p, std::size_t n) {
    return aitk::fs::read_file(p).substr(0, n);
}

TEST(NativeFixtures, ChainDllsAreMzImagesAndTheStemIsAnIdentifier) {
    if (!have_mingw(64)) GTEST_SKIP() << "mingw-w64 is not installed";
    auto dir = aitk::fs::TempDir::create("fixtures");
    auto c = build_chain_dll(dir.path() / "c.dll");
    auto b = build_chain_dll(dir.path() / "b.dll", {c});
    EXPECT_EQ(head(b, 2), "MZ");
    EXPECT_NE(aitk::fs::read_file(b).find("c.dll"), std::string::npos);
    EXPECT_EQ(native_stem("libomp140.x86_64.dll"), "libomp140_x86_64");
    EXPECT_EQ(native_stem("libcudnn.so.9"), "cudnn");
}

TEST(NativeFixtures, DelayLoadAnd32BitDlls) {
    if (!have_delay_load_tools() || !have_mingw(32)) GTEST_SKIP() << "lld / mingw i686 missing";
    auto dir = aitk::fs::TempDir::create("fixtures");
    PeBuild d;
    d.out = dir.path() / "d.dll";
    d.c_source = "int lazy_fn(void);\n__declspec(dllexport) int d_fn(void) { return lazy_fn(); }\n";
    d.delay_imports = {"lazy.dll"};
    build_pe(d);
    EXPECT_NE(aitk::fs::read_file(d.out).find("lazy.dll"), std::string::npos);
    auto x = build_chain_dll(dir.path() / "x86.dll", {}, 32);
    EXPECT_EQ(head(x, 2), "MZ");
}

TEST(NativeFixtures, SharedObjectChainRecordsNeededNames) {
    auto dir = aitk::fs::TempDir::create("fixtures");
    auto c = build_chain_so(dir.path() / "lib" / "libc3.so.1", {}, "libc3.so.1");
    auto b = build_chain_so(dir.path() / "bin" / "libb3.so", {c}, {}, "$ORIGIN/../lib");
    EXPECT_EQ(head(b, 4),
              "\x7f"
              "ELF");
    auto bytes = aitk::fs::read_file(b);
    EXPECT_NE(bytes.find("libc3.so.1"), std::string::npos);
    EXPECT_NE(bytes.find("$ORIGIN/../lib"), std::string::npos);
    EXPECT_EQ(bytes.find(dir.path().string() + "/lib/libc3"), std::string::npos);
}

}  // namespace

}  // namespace AITK_FILE_LOCAL
