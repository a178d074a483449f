#include "aitk/archive/member_path.hpp"

#include <gtest/gtest.h>

#include <string>

namespace AITK_FILE_LOCAL {

using aitk::archive::normalize_member_path;
using aitk::archive::resolve_link_target;

namespace {

std::string ok(std::string_view stored) {
    auto r = normalize_member_path(stored);
    EXPECT_TRUE(r.has_value()) << stored << ": " << (r ? "" : r.error());
    return r ? *r : "<error>";
}

std::string refused(std::string_view stored) {
    auto r = normalize_member_path(stored);
    EXPECT_FALSE(r.has_value()) << stored << " was accepted as " << (r ? *r : "");
    return r ? "" : r.error();
}

}  // namespace

TEST(MemberPath, OrdinaryNamesAreKeptOrCanonicalised) {
    EXPECT_EQ(ok("torch/__init__.py"), "torch/__init__.py");
    EXPECT_EQ(ok("./torch//lib/./libc10.so"), "torch/lib/libc10.so");
    EXPECT_EQ(ok("pkg/"), "pkg");
    EXPECT_EQ(ok("./"), "");
    EXPECT_EQ(ok("a..b/c..."), "a..b/c...");  // dots inside names are fine
    EXPECT_EQ(ok("numpy-2.1.0.dist-info/RECORD"), "numpy-2.1.0.dist-info/RECORD");
    EXPECT_EQ(ok("data/caf\xc3\xa9.txt"), "data/caf\xc3\xa9.txt");
}

TEST(MemberPath, EscapesAreRefusedWithTheReason) {
    EXPECT_NE(refused("../evil").find("'..'"), std::string::npos);
    EXPECT_NE(refused("a/../../evil").find("'..'"), std::string::npos);
    EXPECT_NE(refused("a/b/..").find("'..'"), std::string::npos);
    EXPECT_NE(refused("/etc/passwd").find("absolute"), std::string::npos);
    EXPECT_NE(refused("//server/share/x").find("absolute"), std::string::npos);
    EXPECT_NE(refused("C:/Windows/system32").find("drive letter"), std::string::npos);
    EXPECT_NE(refused("c:evil.dll").find("drive letter"), std::string::npos);
    EXPECT_NE(refused("..\\..\\evil").find("backslash"), std::string::npos);
    EXPECT_NE(refused("a\\b").find("backslash"), std::string::npos);
    EXPECT_NE(refused("a\nb").find("control character"), std::string::npos);
    EXPECT_NE(refused("").find("empty"), std::string::npos);
    EXPECT_NE(refused(std::string(300, 'x')).find("longer than 255"), std::string::npos);
    EXPECT_NE(refused(std::string(5000, '/')).find("longer than 4096"), std::string::npos);
}

TEST(MemberPath, LinkTargetsResolveFromTheLinksFolder) {
    EXPECT_EQ(*resolve_link_target("bin/python3", "python3.12"), "bin/python3.12");
    EXPECT_EQ(*resolve_link_target("lib/libx.so", "../share/x"), "share/x");
    EXPECT_EQ(*resolve_link_target("a/b/c", "../../d"), "d");
    EXPECT_EQ(*resolve_link_target("a/b", ".."), "");  // the root itself is inside
    EXPECT_EQ(*resolve_link_target("top", "./x/./y"), "x/y");
}

TEST(MemberPath, LinkTargetsLeavingTheRootAreRefused) {
    auto r = resolve_link_target("a/link", "../../etc/passwd");
    ASSERT_FALSE(r.has_value());
    EXPECT_NE(r.error().find("outside the destination"), std::string::npos);
    EXPECT_NE(r.error().find("../../etc/passwd"), std::string::npos);
    EXPECT_FALSE(resolve_link_target("link", "..").has_value());
    EXPECT_FALSE(resolve_link_target("a/link", "x/../../..").has_value());
    auto abs = resolve_link_target("link", "/etc/passwd");
    ASSERT_FALSE(abs.has_value());
    EXPECT_NE(abs.error().find("absolute"), std::string::npos);
    EXPECT_FALSE(resolve_link_target("link", "C:/x").has_value());
    EXPECT_FALSE(resolve_link_target("link", "..\\x").has_value());
    EXPECT_FALSE(resolve_link_target("link", "").has_value());
}

}  // namespace AITK_FILE_LOCAL
