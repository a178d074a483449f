#include "aitk/pep/metadata.hpp"

#include <gtest/gtest.h>

#include <string>

namespace AITK_FILE_LOCAL {

using aitk::pep::CoreMetadata;

namespace {

// Shaped like the METADATA of a torch 2.5 wheel (written for this test).
const char* const kTorchLike = R"(Metadata-Version: 2.1
Name: torch
Version: 2.5.1+cu121
Summary: Tensors and Dynamic neural networks in Python with strong GPU acceleration
Home-page: https://pytorch.org/
Download-URL: https://github.com/pytorch/pytorch/tags
Author: PyTorch Team
Author-email: packages@pytorch.org
License: BSD-3
Keywords: pytorch,machine learning
Classifier: Development Status :: 5 - Production/Stable
Classifier: Intended Audience :: Developers
Classifier: Programming Language :: Python :: 3.12
Requires-Python: >=3.8.0
Description-Content-Type: text/markdown
License-File: LICENSE
License-File: NOTICE
Requires-Dist: filelock
Requires-Dist: typing-extensions>=4.8.0
Requires-Dist: networkx
Requires-Dist: jinja2
Requires-Dist: fsspec
Requires-Dist: nvidia-cuda-nvrtc-cu12==12.1.105; platform_system == "Linux" and platform_machine == "x86_64"
Requires-Dist: nvidia-cudnn-cu12==9.1.0.70; platform_system == "Linux" and platform_machine == "x86_64"
Requires-Dist: triton==3.1.0; platform_system == "Linux" and platform_machine == "x86_64" and python_version < "3.13"
Requires-Dist: setuptools; python_version >= "3.12"
Requires-Dist: sympy==1.12.1; python_version == "3.8"
Requires-Dist: sympy==1.13.1; python_version >= "3.9"
Provides-Extra: opt-einsum
Requires-Dist: opt-einsum>=3.3; extra == "opt-einsum"
Provides-Extra: optree
Requires-Dist: optree>=0.12.0; extra == "optree"

![PyTorch Logo](https://example.invalid/pytorch-logo-dark.png)

--------------------------------------------------------------------------------

PyTorch is a Python package that provides two high-level features:
- Tensor computation (like NumPy) with strong GPU acceleration
- Deep neural networks built on a tape-based autograd system

Headers: in the body are not headers.
)";

std::string crlf(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '\n') out += '\r';
        out += c;
    }
    return out;
}

}  // namespace

TEST(CoreMetadata, ParsesATorchLikeMetadataFile) {
    auto parsed = CoreMetadata::parse(kTorchLike);
    ASSERT_TRUE(parsed) << parsed.error().describe();
    const CoreMetadata& m = *parsed;
    EXPECT_EQ(m.metadata_version, "2.1");
    EXPECT_EQ(m.name, "torch");
    EXPECT_EQ(m.version_text, "2.5.1+cu121");
    EXPECT_EQ(m.version.to_string(), "2.5.1+cu121");
    EXPECT_EQ(m.requires_python, ">=3.8.0");
    EXPECT_EQ(m.summary,
              "Tensors and Dynamic neural networks in Python with strong GPU acceleration");
    EXPECT_EQ(m.description_content_type, "text/markdown");
    ASSERT_EQ(m.requires_dist.size(), 13u);
    EXPECT_EQ(m.requires_dist[0], "filelock");
    EXPECT_EQ(m.requires_dist[7],
              "triton==3.1.0; platform_system == \"Linux\" and platform_machine == \"x86_64\" and "
              "python_version < \"3.13\"");
    EXPECT_EQ(m.requires_dist[12], "optree>=0.12.0; extra == \"optree\"");
    EXPECT_EQ(m.provides_extra, (std::vector<std::string>{"opt-einsum", "optree"}));
    EXPECT_EQ(m.description.rfind("![PyTorch Logo]", 0), 0u) << m.description;
    EXPECT_NE(m.description.find("Headers: in the body are not headers.\n"), std::string::npos);
    EXPECT_EQ(m.get_all("classifier").size(), 3u);
    EXPECT_EQ(m.get_all("License-File"), (std::vector<std::string_view>{"LICENSE", "NOTICE"}));
    EXPECT_EQ(m.get("HOME-PAGE"), "https://pytorch.org/");
    EXPECT_FALSE(m.get("Maintainer"));
    ASSERT_EQ(m.headers.size(), 32u);
    EXPECT_EQ(m.headers[1].name, "Name");
    EXPECT_EQ(m.headers[1].line, 2u);
}

TEST(CoreMetadata, CrlfGivesTheSameResult) {
    auto lf = CoreMetadata::parse(kTorchLike);
    auto dos = CoreMetadata::parse(crlf(kTorchLike));
    ASSERT_TRUE(lf);
    ASSERT_TRUE(dos) << dos.error().describe();
    EXPECT_EQ(dos->requires_dist, lf->requires_dist);
    EXPECT_EQ(dos->summary, lf->summary);
    EXPECT_EQ(dos->description, lf->description);
    EXPECT_EQ(dos->description.find('\r'), std::string::npos);
}

TEST(CoreMetadata, HeaderNamesAreCaseInsensitive) {
    auto parsed = CoreMetadata::parse(
        "metadata-version: 2.3\nNAME: Foo_Bar\nversion: 1.0\nrequires-dist: a\nREQUIRES-DIST: b\n"
        "requires-python:>=3.9\n");
    ASSERT_TRUE(parsed) << parsed.error().describe();
    EXPECT_EQ(parsed->name, "Foo_Bar");
    EXPECT_EQ(parsed->metadata_version, "2.3");
    EXPECT_EQ(parsed->requires_dist, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(parsed->requires_python, ">=3.9");
    EXPECT_TRUE(parsed->description.empty());
}

TEST(CoreMetadata, FoldedDescriptionWithEightSpaces) {
    // How setuptools wrote PKG-INFO before Metadata 2.1 moved the description to the body.
    const char* text =
        "Metadata-Version: 1.1\n"
        "Name: old-style\n"
        "Version: 0.9\n"
        "Description: Old Style\n"
        "        =========\n"
        "        \n"
        "        Indented:\n"
        "            code block\n"
        "        \n"
        "Platform: UNKNOWN\n";
    auto parsed = CoreMetadata::parse(text);
    ASSERT_TRUE(parsed) << parsed.error().describe();
    EXPECT_EQ(parsed->description, "Old Style\n=========\n\nIndented:\n    code block");
    EXPECT_EQ(parsed->get("Platform"), "UNKNOWN");
}

TEST(CoreMetadata, FoldedDescriptionWithPipeConvention) {
    const char* text =
        "Name: piped\n"
        "Version: 1\n"
        "Description: first\n"
        "       |second\n"
        "       |  third\n"
        "\tfourth\n";
    auto parsed = CoreMetadata::parse(text);
    ASSERT_TRUE(parsed) << parsed.error().describe();
    EXPECT_EQ(parsed->description, "first\nsecond\n  third\nfourth");
}

TEST(CoreMetadata, OtherFoldedHeadersAreJoinedWithOneSpace) {
    const char* text =
        "Name: folded\n"
        "Version: 1\n"
        "Summary: a summary\n"
        "  that goes on\n"
        "Requires-Dist: numpy;\n"
        "    python_version >= \"3.9\"\n";
    auto parsed = CoreMetadata::parse(text);
    ASSERT_TRUE(parsed) << parsed.error().describe();
    EXPECT_EQ(parsed->summary, "a summary that goes on");
    EXPECT_EQ(parsed->requires_dist, std::vector<std::string>{"numpy; python_version >= \"3.9\""});
}

TEST(CoreMetadata, DescriptionHeaderWinsOverBody) {
    auto parsed = CoreMetadata::parse("Name: a\nVersion: 1\nDescription: header\n\nbody\n");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->description, "header");
}

TEST(CoreMetadata, ToleratesBomCrAndNoTrailingNewline) {
    auto parsed = CoreMetadata::parse("\xEF\xBB\xBFName: a\rVersion: 1.0\r\rbody\rline");
    ASSERT_TRUE(parsed) << parsed.error().describe();
    EXPECT_EQ(parsed->name, "a");
    EXPECT_EQ(parsed->description, "body\nline");
    auto bare = CoreMetadata::parse("Name: a\nVersion: 1.0");
    ASSERT_TRUE(bare);
    EXPECT_EQ(bare->version.to_string(), "1.0");
}

TEST(CoreMetadata, MissingFieldsAreNamed) {
    auto no_name = CoreMetadata::parse("Metadata-Version: 2.1\nVersion: 1.0\n");
    ASSERT_FALSE(no_name);
    EXPECT_EQ(no_name.error().message, "core metadata has no 'Name' header (it is required)");

    auto no_version = CoreMetadata::parse("Name: foo\n\nVersion: 1.0 (in the body)\n");
    ASSERT_FALSE(no_version);
    EXPECT_EQ(no_version.error().message, "core metadata has no 'Version' header (it is required)");

    EXPECT_FALSE(CoreMetadata::parse(""));
}

TEST(CoreMetadata, ErrorsCarryLineNumbers) {
    auto not_header = CoreMetadata::parse("Name: foo\nVersion: 1.0\nthis is not a header\n");
    ASSERT_FALSE(not_header);
    EXPECT_EQ(not_header.error().message,
              "line 3: expected a header 'Field-Name: value' (a blank line must separate the "
              "headers from the description)");
    EXPECT_EQ(not_header.error().input, "this is not a header");
    EXPECT_EQ(not_header.error().position, 4u);

    auto spaced = CoreMetadata::parse("Name : foo\nVersion: 1\n");
    ASSERT_FALSE(spaced);
    EXPECT_EQ(spaced.error().message.rfind("line 1: expected a header", 0), 0u);

    auto leading = CoreMetadata::parse(" Name: foo\nVersion: 1\n");
    ASSERT_FALSE(leading);
    EXPECT_EQ(leading.error().message,
              "line 1: continuation line (starting with whitespace) before any header");

    auto bad_version =
        CoreMetadata::parse("Metadata-Version: 2.1\r\nName: foo\r\nVersion: 1.x\r\n");
    ASSERT_FALSE(bad_version);
    EXPECT_EQ(bad_version.error().message.rfind("line 3: Version '1.x' is not a valid PEP 440 "
                                                "version: ",
                                                0),
              0u)
        << bad_version.error().message;
    EXPECT_EQ(bad_version.error().input, "Version: 1.x");
    EXPECT_GE(bad_version.error().position, 9u);

    auto bad_name = CoreMetadata::parse("Name: ../evil\nVersion: 1\n");
    ASSERT_FALSE(bad_name);
    EXPECT_EQ(
        bad_name.error().message.rfind("line 1: Name '../evil' is not a valid project name", 0),
        0u);
    EXPECT_EQ(bad_name.error().position, 6u);
}

TEST(CoreMetadata, FirstOccurrenceOfSingleFieldsWins) {
    auto parsed =
        CoreMetadata::parse("Name: a\nVersion: 1\nVersion: 2\nSummary: one\nSummary: two\n");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->version_text, "1");
    EXPECT_EQ(parsed->summary, "one");
    EXPECT_EQ(parsed->get_all("summary").size(), 2u);
}

TEST(CoreMetadata, RequiresDistStaysRaw) {
    auto parsed = CoreMetadata::parse(
        "Name: a\nVersion: 1\nRequires-Dist: torch[opt-einsum] (>=2.0) ; sys_platform != 'win32'\n"
        "Requires-Dist: not a valid requirement at all\n");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(parsed->requires_dist,
              (std::vector<std::string>{"torch[opt-einsum] (>=2.0) ; sys_platform != 'win32'",
                                        "not a valid requirement at all"}));
}

}  // namespace AITK_FILE_LOCAL
