// Direct references: URL fragments, the full-commit rule and VCS URLs
// (pep/direct_reference.hpp).
#include "aitk/pep/direct_reference.hpp"

#include <gtest/gtest.h>

namespace aitk::pep {
namespace AITK_FILE_LOCAL {

TEST(UrlFragment, SplitsAtTheFirstHash) {
    auto plain = split_fragment("https://h/x-1.0.tar.gz");
    EXPECT_EQ(plain.url, "https://h/x-1.0.tar.gz");
    EXPECT_EQ(plain.fragment, "");
    EXPECT_FALSE(plain.sha256());
    EXPECT_TRUE(plain.items().empty());

    auto ref = split_fragment("https://h/x.tar.gz#sha256=ab&subdirectory=py/pkg&egg=x#y");
    EXPECT_EQ(ref.url, "https://h/x.tar.gz");
    EXPECT_EQ(ref.fragment, "sha256=ab&subdirectory=py/pkg&egg=x#y");
    EXPECT_EQ(ref.sha256(), "ab");
    EXPECT_EQ(ref.subdirectory(), "py/pkg");
    EXPECT_EQ(ref.egg(), "x#y");
    EXPECT_EQ(ref.items(),
              (std::vector<std::string_view>{"sha256=ab", "subdirectory=py/pkg", "egg=x#y"}));
}

TEST(UrlFragment, FindsKeysAsPipsRegexDoes) {
    // "[#&]key=([^&]*)": the first match wins, a key must be followed by '=', "" is a value.
    auto ref = split_fragment("u#egg=first&egg=second&eggs=no&subdirectory=");
    EXPECT_EQ(ref.egg(), "first");
    EXPECT_EQ(ref.subdirectory(), "");
    EXPECT_FALSE(ref.sha256());
    EXPECT_FALSE(split_fragment("u#xsha256=ab").sha256());
    EXPECT_FALSE(split_fragment("u#sha256").sha256());
    EXPECT_EQ(split_fragment("u#a&&sha256=cd").sha256(), "cd");
    EXPECT_EQ(split_fragment("u#a#sha256=cd").sha256(), "cd");  // after any '#' too
    EXPECT_EQ(split_fragment("u#a&&b&").items(), (std::vector<std::string_view>{"a", "b"}));
    // Views into the text: a caller can tell where a value stands.
    const std::string_view url = "https://h/p#egg=name";
    auto egg = split_fragment(url).egg();
    ASSERT_TRUE(egg);
    EXPECT_EQ(egg->data() - url.data(), 16);
}

TEST(FullCommitId, FortyOrSixtyFourHexDigitsOfEitherCase) {
    EXPECT_TRUE(is_full_commit_id(std::string(40, 'f')));
    EXPECT_TRUE(is_full_commit_id(std::string(40, 'F')));
    EXPECT_TRUE(is_full_commit_id("c943837899b16cbae2f619b8dd4f7bb6f07dd81a"));
    EXPECT_TRUE(is_full_commit_id("C943837899B16CBAE2F619B8DD4F7BB6F07DD81A"));
    EXPECT_TRUE(is_full_commit_id(std::string(64, '0')));  // a SHA-256 repository
    EXPECT_TRUE(is_full_commit_id(std::string(32, 'a') + std::string(32, 'B')));
    EXPECT_FALSE(is_full_commit_id(""));
    EXPECT_FALSE(is_full_commit_id("3a6994a"));  // abbreviated
    EXPECT_FALSE(is_full_commit_id(std::string(39, 'f')));
    EXPECT_FALSE(is_full_commit_id(std::string(41, 'f')));
    EXPECT_FALSE(is_full_commit_id(std::string(63, 'f')));
    EXPECT_FALSE(is_full_commit_id(std::string(65, 'f')));
    EXPECT_FALSE(is_full_commit_id(std::string(40, 'g')));
    EXPECT_FALSE(is_full_commit_id(std::string(39, 'f') + " "));
    EXPECT_FALSE(is_full_commit_id("main"));
}

TEST(VcsUrl, ParsesAndPrintsPipForms) {
    auto plain = parse_vcs_url("https://example.com/x");
    ASSERT_TRUE(plain);
    EXPECT_FALSE(*plain);

    auto hg = parse_vcs_url("hg+https://hg.example.org/repo@v1.0#egg=Repo&subdirectory=py");
    ASSERT_TRUE(hg && *hg);
    EXPECT_EQ((*hg)->vcs, "hg");
    EXPECT_EQ((*hg)->repository, "https://hg.example.org/repo");
    EXPECT_EQ((*hg)->revision, "v1.0");
    EXPECT_EQ((*hg)->egg_name, "repo");
    EXPECT_EQ((*hg)->subdirectory, "py");
    EXPECT_EQ((*hg)->to_string(), "hg+https://hg.example.org/repo@v1.0#subdirectory=py");

    auto query = parse_vcs_url("GIT+HTTPS://user@h.example/r.git?ref=x@main");
    ASSERT_TRUE(query && *query);
    EXPECT_EQ((*query)->vcs, "git");
    EXPECT_EQ((*query)->repository, "https://user@h.example/r.git?ref=x@main");
    EXPECT_EQ((*query)->revision, "");

    auto bad_egg = parse_vcs_url("git+https://example.com/r.git#egg=a b");
    ASSERT_FALSE(bad_egg);
    EXPECT_EQ(bad_egg.error(),
              "'#egg=a b' does not name a project (write #egg=name, or `name @ "
              "git+https://example.com/r.git`)");
    auto no_slashes = parse_vcs_url("git+https:example.com/r.git");
    ASSERT_FALSE(no_slashes);
    EXPECT_EQ(no_slashes.error(),
              "expected '//' after 'git+https:' (the form is git+https://host/path@revision)");

    VcsUrl short_hash{"git", "https://x/r.git", "abc123", "", ""};
    EXPECT_FALSE(short_hash.revision_is_commit());  // six digits: too short to be sure
    short_hash.revision = "ABCDEF0";
    EXPECT_TRUE(short_hash.revision_is_commit());
    short_hash.revision = std::string(64, 'a');
    EXPECT_TRUE(short_hash.revision_is_commit());
    short_hash.revision = "v1.2.3";
    EXPECT_FALSE(short_hash.revision_is_commit());
}

TEST(VcsUrl, SplitsAtThePathsLastAt) {
    auto parts = split_vcs_url("git+ssh://git@github.com/org/r.git@v1@rc?q=@x#subdirectory=s");
    ASSERT_TRUE(parts);
    EXPECT_EQ(parts->vcs, "git");
    EXPECT_EQ(parts->transport, "ssh");
    EXPECT_EQ(parts->netloc, "git@github.com");
    EXPECT_EQ(parts->path, "/org/r.git@v1");
    EXPECT_EQ(parts->revision, "rc");
    EXPECT_EQ(parts->query, "?q=@x");  // cut off before the revision is looked for
    EXPECT_EQ(parts->fragment.subdirectory(), "s");

    parts = split_vcs_url("git+https://h/r@");
    ASSERT_TRUE(parts);
    EXPECT_EQ(parts->path, "/r");
    EXPECT_EQ(parts->revision, "");
    parts = split_vcs_url("git+file:///tmp/repo@main");
    ASSERT_TRUE(parts);
    EXPECT_EQ(parts->netloc, "");
    EXPECT_EQ(parts->path, "/tmp/repo");
    EXPECT_EQ(parts->revision, "main");

    EXPECT_FALSE(split_vcs_url("https://h/r"));
    EXPECT_FALSE(split_vcs_url("git+https:h/r"));
    EXPECT_FALSE(split_vcs_url("C:+x"));
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::pep
