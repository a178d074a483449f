// Requirements files as pip reads them: logical lines, options, includes, URLs and VCS
// references, problems with file:line:column, the real files of tests/data/realworld and, where
// a pip is installed, the same files read by pip itself.
#include "aitk/project/requirements_file.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "aitk/fs/temp.hpp"
#include "aitk/util/subprocess.hpp"
#include "test_data.hpp"

namespace aitk::project {
namespace AITK_FILE_LOCAL {

// An in-memory file tree for include tests.
RequirementsReadOptions files(std::map<std::string, std::string> tree,
                              util::Environment environment = {}) {
    RequirementsReadOptions options;
    options.environment = std::move(environment);
    options.read =
        [tree = std::move(tree)](
            const std::filesystem::path& path) -> util::Expected<std::string, std::string> {
        auto it = tree.find(path.generic_string());
        if (it == tree.end()) return util::Unexpected(std::string("No such file or directory"));
        return it->second;
    };
    return options;
}

RequirementsFile parse_ok(std::string_view text, const RequirementsReadOptions& options = {},
                          const std::string& file = "/proj/requirements.txt") {
    auto parsed = parse_requirements_text(text, file, options);
    EXPECT_TRUE(parsed) << (parsed ? ""
                                   : parsed.error().describe() + "\nhint: " + parsed.error().hint);
    return parsed ? *parsed : RequirementsFile{};
}

InputProblem parse_error(std::string_view text, const RequirementsReadOptions& options = {},
                         const std::string& file = "/proj/requirements.txt") {
    auto parsed = parse_requirements_text(text, file, options);
    EXPECT_FALSE(parsed) << "expected a problem for:\n" << text;
    return parsed ? InputProblem{} : parsed.error();
}

std::vector<std::string> texts(const std::vector<RequirementLine>& lines) {
    std::vector<std::string> out;
    for (const auto& line : lines)
        out.push_back(line.text);
    return out;
}

std::vector<std::string> requirement_strings(const std::vector<RequirementLine>& lines) {
    std::vector<std::string> out;
    for (const auto& line : lines)
        out.push_back(line.requirement ? line.requirement->to_string()
                                       : "<unnamed " + line.url + ">");
    return out;
}

// --- logical lines -------------------------------------------------------------------------

TEST(RequirementsLines, PlainRequirementsWithMarkersAndExtras) {
    auto file = parse_ok(
        "numpy==2.2.6\n"
        "Flask_SQLAlchemy[async,Dev] >= 3.0 , <4\n"
        "triton-windows==3.7.0.post26; sys_platform == \"win32\"\n");
    ASSERT_EQ(file.requirements.size(), 3u);
    EXPECT_EQ(file.requirements[0].name(), "numpy");
    EXPECT_EQ(file.requirements[0].requirement->specifier().to_string(), "==2.2.6");
    EXPECT_EQ(file.requirements[1].name(), "flask-sqlalchemy");
    EXPECT_EQ(file.requirements[1].requirement->extras(),
              (std::vector<std::string>{"Dev", "async"}));
    EXPECT_EQ(file.requirements[1].text, "Flask_SQLAlchemy[async,Dev] >= 3.0 , <4");
    EXPECT_EQ(file.requirements[2].requirement->to_string(),
              "triton-windows==3.7.0.post26; sys_platform == \"win32\"");
    EXPECT_EQ(file.requirements[2].where, (SourceLocation{"/proj/requirements.txt", 3, 1}));
    EXPECT_TRUE(file.files.empty());  // text given in memory: nothing was read
}

TEST(RequirementsLines, CommentsStartAtLineStartOrAfterWhitespace) {
    auto file = parse_ok(
        "# a comment\n"
        "   # an indented comment\n"
        "imagesize==1.4.1 #for concept statistics\n"
        "yt-dlp  #no pinned version\n"
        "bitsandbytes==0.49.1\t# tab before the hash\n"
        "foo @ https://example.com/foo-1.0.tar.gz#sha256=" +
        std::string(64, 'a') +
        "\n"
        "-e git+https://github.com/huggingface/diffusers.git@1ffa423#egg=diffusers\n");
    EXPECT_EQ(texts(file.requirements),
              (std::vector<std::string>{
                  "imagesize==1.4.1", "yt-dlp", "bitsandbytes==0.49.1",
                  "foo @ https://example.com/foo-1.0.tar.gz#sha256=" + std::string(64, 'a'),
                  "git+https://github.com/huggingface/diffusers.git@1ffa423#egg=diffusers"}));
    EXPECT_EQ(file.requirements[3].hashes,
              (std::vector<std::string>{"sha256:" + std::string(64, 'a')}));
    EXPECT_EQ(file.requirements[4].where.line, 7u);
}

TEST(RequirementsLines, BackslashContinuationsJoinWithTheFirstLineNumber) {
    std::string a(64, 'a');
    std::string b(64, 'B');
    auto file = parse_ok(
        "\n"
        "torch==2.7.0 \\\n"
        "    --hash=sha256:" +
        a +
        " \\\n"
        "    --hash=sha256:" +
        b +
        "\n"
        "after==1\n");
    ASSERT_EQ(file.requirements.size(), 2u);
    EXPECT_EQ(file.requirements[0].text, "torch==2.7.0");
    EXPECT_EQ(file.requirements[0].hashes,
              (std::vector<std::string>{"sha256:" + a, "sha256:" + std::string(64, 'b')}));
    EXPECT_EQ(file.requirements[0].where.line, 2u);
    EXPECT_EQ(file.requirements[1].where.line, 5u);
}

TEST(RequirementsLines, CommentsAndContinuationsInteractAsInPip) {
    // A comment line ends a continuation; a comment line is never continued itself; a comment
    // after a requirement swallows the lines its backslash joins (pip's join_lines, then
    // ignore_comments).
    auto file = parse_ok(
        "first \\\n"
        "# comment ends the joined line\n"
        "# comment with a backslash \\\n"
        "second\n"
        "third # comment \\\n"
        "swallowed\n"
        "fourth\\\n"
        "-more\n"
        "last \\");
    EXPECT_EQ(texts(file.requirements),
              (std::vector<std::string>{"first", "second", "third", "fourth-more", "last"}));
    // "fourth\" + "-more" joins without a space, so "-more" is no option.
}

TEST(RequirementsLines, LineEndingsAndByteOrderMarks) {
    auto crlf = parse_ok("a==1\r\nb==2\rc==3\n");
    EXPECT_EQ(texts(crlf.requirements), (std::vector<std::string>{"a==1", "b==2", "c==3"}));
    EXPECT_EQ(crlf.requirements[2].where.line, 3u);

    auto bom = parse_ok("\xef\xbb\xbfnumpy==1\n");
    EXPECT_EQ(texts(bom.requirements), (std::vector<std::string>{"numpy==1"}));

    // `pip freeze > requirements.txt` in Windows PowerShell writes UTF-16LE with a BOM.
    std::string utf16("\xff\xfe", 2);
    for (char c : std::string("numpy==1.26.4\r\ntorch==2.3.0\r\n")) {
        utf16 += c;
        utf16 += '\0';
    }
    auto wide = parse_ok(utf16);
    EXPECT_EQ(texts(wide.requirements),
              (std::vector<std::string>{"numpy==1.26.4", "torch==2.3.0"}));
}

TEST(RequirementsLines, EnvironmentVariablesOnlyInTheBracedUpperCaseForm) {
    auto options = files({}, {{"TOKEN", "s3cr3t"}, {"EMPTY", ""}, {"lower", "x"}});
    auto file = parse_ok(
        "--extra-index-url https://user:${TOKEN}@example.com/simple\n"
        "pkg @ https://example.com/${EMPTY}/${UNSET}/$TOKEN/${lower}/pkg-1.0.tar.gz\n",
        options);
    EXPECT_EQ(file.options.extra_index_urls,
              (std::vector<std::string>{"https://user:s3cr3t@example.com/simple"}));
    EXPECT_EQ(file.requirements[0].url,
              "https://example.com/${EMPTY}/${UNSET}/$TOKEN/${lower}/pkg-1.0.tar.gz");
}

TEST(RequirementsLines, ExpansionHappensAfterTheCommentIsCut) {
    auto options = files({}, {{"VALUE", "3 #not a comment"}});
    auto file = parse_ok("pkg; extra == \"${VALUE}\"\n", options);
    ASSERT_EQ(file.requirements.size(), 1u);
    EXPECT_EQ(file.requirements[0].text, "pkg; extra == \"3 #not a comment\"");
}

// --- options --------------------------------------------------------------------------------

TEST(RequirementsOptions, IndexAndBinaryOptions) {
    auto file = parse_ok(
        "-i https://mirror.example/simple\n"
        "--index-url=https://pypi.example/simple\n"
        "--extra-index-url https://download.pytorch.org/whl/cu128\n"
        "--extra-index-url=https://download.pytorch.org/whl/cu128\n"
        "-f ./wheels\n"
        "--find-links=https://example.com/links.html\n"
        "-fvendor\n"
        "--pre --prefer-binary\n"
        "--require-hashes\n"
        "--trusted-host example.com --trusted-host=mirror.example\n"
        "--only-binary :all:\n"
        "--no-binary Pillow,PyYAML\n"
        "--only-binary pyyaml\n"
        "--use-feature truststore\n");
    const RequirementsOptions& o = file.options;
    EXPECT_EQ(o.index_url, "https://pypi.example/simple");
    EXPECT_FALSE(o.no_index);
    EXPECT_EQ(o.extra_index_urls,
              (std::vector<std::string>{"https://download.pytorch.org/whl/cu128"}));
    EXPECT_EQ(o.find_links, (std::vector<std::string>{
                                "/proj/wheels", "https://example.com/links.html", "/proj/vendor"}));
    EXPECT_TRUE(o.pre);
    EXPECT_TRUE(o.prefer_binary);
    EXPECT_TRUE(o.require_hashes);
    EXPECT_EQ(o.trusted_hosts, (std::vector<std::string>{"example.com", "mirror.example"}));
    // As pip's FormatControl: each name moves to the list that named it last; ":all:" stays.
    EXPECT_EQ(o.only_binary, (std::vector<std::string>{":all:", "pyyaml"}));
    EXPECT_EQ(o.no_binary, (std::vector<std::string>{"pillow"}));
    EXPECT_TRUE(file.requirements.empty());
}

TEST(RequirementsOptions, FormatControlAllAndNone) {
    auto file = parse_ok(
        "--no-binary :all:\n--only-binary torch\n--no-binary :none:\n"
        "--only-binary :all:,:none:,numpy\n");
    EXPECT_EQ(file.options.no_binary, std::vector<std::string>{});
    EXPECT_EQ(file.options.only_binary, (std::vector<std::string>{"numpy"}));
}

TEST(RequirementsOptions, NoIndexAndAbbreviatedLongOptions) {
    auto file = parse_ok(
        "--no-index\n--extra-index https://a.example/simple\n--find https://b.example\n"
        "--pypi-url https://c.example/simple\n");
    EXPECT_TRUE(file.options.no_index);
    EXPECT_EQ(file.options.extra_index_urls,
              (std::vector<std::string>{"https://a.example/simple"}));
    EXPECT_EQ(file.options.find_links, (std::vector<std::string>{"https://b.example"}));
    EXPECT_EQ(file.options.index_url, "https://c.example/simple");
}

TEST(RequirementsOptions, QuotedValuesAreSplitLikeAShell) {
    auto file = parse_ok("--find-links \"./my wheels\"\n--trusted-host 'a b'\n");
    EXPECT_EQ(file.options.find_links, (std::vector<std::string>{"/proj/my wheels"}));
    EXPECT_EQ(file.options.trusted_hosts, (std::vector<std::string>{"a b"}));
}

// --- problems ---------------------------------------------------------------------------------

TEST(RequirementsProblems, UnknownOptionNamesFileLineColumn) {
    auto problem = parse_error("numpy\n\n  --frobnicate yes\n");
    EXPECT_EQ(problem.describe(), "/proj/requirements.txt:3:3: unknown option '--frobnicate'");
    EXPECT_EQ(problem.hint,
              "requirements files accept -r, -c, -e, -i/--index-url, --extra-index-url, "
              "--no-index, -f/--find-links, --pre, --only-binary, --no-binary, --prefer-binary, "
              "--require-hashes, --trusted-host, --use-feature, and after a requirement --hash, "
              "--global-option and --config-settings");

    auto install_only = parse_error("torch\n--upgrade\n");
    EXPECT_EQ(install_only.describe(), "/proj/requirements.txt:2:1: unknown option '--upgrade'");
    EXPECT_EQ(install_only.hint,
              "'--upgrade' is an option of `pip install`, not of requirements files: remove it");

    auto short_option = parse_error("-x foo\n");
    EXPECT_EQ(short_option.describe(), "/proj/requirements.txt:1:1: unknown option '-x'");
}

TEST(RequirementsProblems, AmbiguousMissingAndSuperfluousValues) {
    EXPECT_EQ(parse_error("--re foo.txt\n").describe(),
              "/proj/requirements.txt:1:1: ambiguous option '--re': it could be --requirement "
              "or --require-hashes");
    auto missing = parse_error("numpy\n-r\n");
    EXPECT_EQ(missing.describe(), "/proj/requirements.txt:2:1: option '-r' needs a value");
    EXPECT_EQ(missing.hint, "write -r FILE");
    EXPECT_EQ(parse_error("--pre=yes\n").describe(),
              "/proj/requirements.txt:1:1: option '--pre' takes no value");
    auto quote = parse_error("--find-links 'unclosed\n");
    EXPECT_EQ(quote.describe(), "/proj/requirements.txt:1:14: this quote is never closed");
}

TEST(RequirementsProblems, FileWideOptionOnARequirementLine) {
    // pip ignores the index option here; people expect it to apply to torch.
    auto problem = parse_error("torch==2.7.0 --index-url https://download.pytorch.org/whl/cu128\n");
    EXPECT_EQ(problem.describe(),
              "/proj/requirements.txt:1:14: option '--index-url' applies to the whole file, and "
              "pip ignores it on a line with a requirement");
    EXPECT_EQ(problem.hint, "move --index-url to a line of its own");
}

TEST(RequirementsProblems, WordsAfterOptionsAndHashWithoutRequirement) {
    auto words = parse_error("-f https://example.com/wheels torch==2.0\n");
    EXPECT_EQ(words.describe(),
              "/proj/requirements.txt:1:31: unexpected 'torch==2.0' after the options");
    auto hash = parse_error("--hash=sha256:" + std::string(64, '0') + "\n");
    EXPECT_EQ(hash.describe(), "/proj/requirements.txt:1:1: --hash without a requirement");
}

TEST(RequirementsProblems, EditableLinesTakeNoOtherOptions) {
    EXPECT_EQ(parse_error("-e . -e ./other\n").describe(),
              "/proj/requirements.txt:1:6: a second -e on the same line");
    auto hash = parse_error("-e . --hash=sha256:" + std::string(64, '0') + "\n");
    EXPECT_EQ(hash.describe(),
              "/proj/requirements.txt:1:6: option '--hash' cannot go with -e (pip ignores it "
              "there)");
    EXPECT_EQ(hash.hint,
              "editable requirements are built from source and cannot be hash-checked: remove "
              "the --hash");
    EXPECT_EQ(parse_error("--only-binary --pre\n").describe(),
              "/proj/requirements.txt:1:1: option '--only-binary' needs a list of names, not "
              "'--pre'");
    EXPECT_EQ(parse_error("-U numpy\n").hint,
              "'-U' is an option of `pip install`, not of requirements files: remove it");
}

TEST(RequirementsProblems, BadHashes) {
    EXPECT_EQ(parse_error("a==1 --hash=md5:0123\n").describe(),
              "/proj/requirements.txt:1:13: hash algorithm 'md5' is not allowed");
    EXPECT_EQ(parse_error("a==1 --hash sha256\n").describe(),
              "/proj/requirements.txt:1:13: --hash value 'sha256' is not a hash name and a digest");
    EXPECT_EQ(parse_error("a==1 --hash=sha256:abc\n").describe(),
              "/proj/requirements.txt:1:20: 'abc' is not a sha256 digest: expected 64 hex "
              "digits, found 3");
}

TEST(RequirementsProblems, BadRequirementPointsIntoTheLine) {
    auto problem = parse_error("numpy\n    torch=2.0\n");
    EXPECT_EQ(problem.describe(),
              "/proj/requirements.txt:2:10: invalid requirement 'torch=2.0': expected the end of "
              "the requirement, or ';' and a marker (after the name 'torch', which has no valid "
              "version)");
    EXPECT_EQ(problem.hint, "= is not a valid operator. Did you mean == ?");

    // In a joined line the column is found on the physical line it came from.
    auto joined = parse_error("ok==1 \\\n  --hash=sha256:" + std::string(64, 'f') + "\nbad[ ==1\n");
    EXPECT_EQ(joined.where.line, 3u);
}

TEST(RequirementsProblems, BadMarkerOnAUrlLine) {
    auto problem =
        parse_error("https://example.com/x-1.0-py3-none-any.whl; python_versio < \"3\"\n");
    EXPECT_EQ(problem.where.line, 1u);
    EXPECT_EQ(problem.where.column, 45u);
    EXPECT_NE(problem.message.find("invalid environment marker 'python_versio < \"3\"'"),
              std::string::npos)
        << problem.message;
}

// --- URLs, paths, VCS ---------------------------------------------------------------------------

TEST(RequirementsUrls, NamedUrlBareWheelAndSdist) {
    auto file = parse_ok(
        "pkg[extra] @ https://example.com/pkg.tar.gz ; python_version >= \"3.10\"\n"
        "https://download.pytorch.org/whl/cu128/"
        "torch-2.7.0%2Bcu128-cp312-cp312-manylinux_2_28_x86_64.whl\n"
        "https://files.example/my_pkg-1.2.3.tar.gz\n"
        "https://example.com/archive/main.zip\n"
        "https://example.com/archive/main.zip#egg=named[gpu]\n");
    ASSERT_EQ(file.requirements.size(), 5u);
    EXPECT_EQ(file.requirements[0].url, "https://example.com/pkg.tar.gz");
    EXPECT_EQ(file.requirements[0].requirement->to_string(),
              "pkg[extra] @ https://example.com/pkg.tar.gz ; python_version >= \"3.10\"");
    EXPECT_EQ(file.requirements[1].name(), "torch");
    EXPECT_EQ(file.requirements[1].requirement->url(),
              "https://download.pytorch.org/whl/cu128/"
              "torch-2.7.0%2Bcu128-cp312-cp312-manylinux_2_28_x86_64.whl");
    EXPECT_EQ(file.requirements[2].name(), "my-pkg");
    EXPECT_EQ(file.requirements[3].name(), "");
    EXPECT_FALSE(file.requirements[3].requirement);
    EXPECT_EQ(file.requirements[3].url, "https://example.com/archive/main.zip");
    EXPECT_EQ(file.requirements[4].requirement->to_string(),
              "named[gpu] @ https://example.com/archive/main.zip#egg=named[gpu]");
}

TEST(RequirementsUrls, BareUrlMarkerNeedsSemicolonSpace) {
    auto file = parse_ok(
        "https://example.com/a-1.0.tar.gz ; sys_platform == \"linux\"\n"
        "https://example.com/nameless.tar.gz; sys_platform == \"linux\"\n");
    EXPECT_EQ(file.requirements[0].requirement->to_string(),
              "a @ https://example.com/a-1.0.tar.gz ; sys_platform == \"linux\"");
    EXPECT_EQ(file.requirements[1].url, "https://example.com/nameless.tar.gz");
    ASSERT_TRUE(file.requirements[1].unnamed_marker);
    EXPECT_EQ(file.requirements[1].unnamed_marker->to_string(), "sys_platform == \"linux\"");
}

TEST(RequirementsUrls, VcsReferences) {
    auto file = parse_ok(
        "git+https://github.com/huggingface/"
        "diffusers.git@c943837899b16cbae2f619b8dd4f7bb6f07dd81a\n"
        "-e git+https://github.com/Nerogar/mgds.git@3a6994a#egg=mgds\n"
        "muon @ git+ssh://git@github.com/KellerJordan/Muon.git@main#subdirectory=src\n"
        "-e git://github.com/org/old.git#egg=Old_Name\n");
    ASSERT_EQ(file.requirements.size(), 4u);
    const auto& diffusers = file.requirements[0];
    EXPECT_FALSE(diffusers.requirement);  // no #egg=: the name comes from the built metadata
    ASSERT_TRUE(diffusers.vcs);
    EXPECT_EQ(diffusers.vcs->vcs, "git");
    EXPECT_EQ(diffusers.vcs->repository, "https://github.com/huggingface/diffusers.git");
    EXPECT_EQ(diffusers.vcs->revision, "c943837899b16cbae2f619b8dd4f7bb6f07dd81a");
    EXPECT_TRUE(diffusers.vcs->revision_is_commit());

    const auto& mgds = file.requirements[1];
    EXPECT_TRUE(mgds.editable);
    EXPECT_EQ(mgds.name(), "mgds");
    EXPECT_EQ(mgds.text, "git+https://github.com/Nerogar/mgds.git@3a6994a#egg=mgds");
    EXPECT_EQ(mgds.vcs->egg_name, "mgds");
    EXPECT_EQ(mgds.vcs->revision, "3a6994a");
    EXPECT_TRUE(mgds.vcs->revision_is_commit());

    const auto& muon = file.requirements[2];
    EXPECT_EQ(muon.vcs->repository, "ssh://git@github.com/KellerJordan/Muon.git");
    EXPECT_EQ(muon.vcs->revision, "main");
    EXPECT_FALSE(muon.vcs->revision_is_commit());
    EXPECT_EQ(muon.vcs->subdirectory, "src");
    EXPECT_EQ(muon.vcs->to_string(),
              "git+ssh://git@github.com/KellerJordan/Muon.git@main#subdirectory=src");

    // "-e git://…" is short for git+git://.
    EXPECT_EQ(file.requirements[3].vcs->repository, "git://github.com/org/old.git");
    EXPECT_EQ(file.requirements[3].name(), "old-name");
}

TEST(RequirementsUrls, LocalPathsAndArchives) {
    auto file = parse_ok(
        "./plugins/mine[gpu,cli]\n"
        "../dist/foo_bar-2.0-py3-none-any.whl\n"
        "vendored-1.0.tar.gz\n"
        "-e .\n"
        "-e ./sub[dev]\n"
        "-e file:///opt/src/tool#egg=tool\n");
    ASSERT_EQ(file.requirements.size(), 6u);
    EXPECT_EQ(file.requirements[0].url, "file:///proj/plugins/mine");
    EXPECT_EQ(file.requirements[0].unnamed_extras, (std::vector<std::string>{"cli", "gpu"}));
    EXPECT_EQ(file.requirements[1].requirement->to_string(),
              "foo-bar @ file:///dist/foo_bar-2.0-py3-none-any.whl");
    EXPECT_EQ(file.requirements[2].requirement->to_string(),
              "vendored @ file:///proj/vendored-1.0.tar.gz");
    EXPECT_TRUE(file.requirements[3].editable);
    EXPECT_EQ(file.requirements[3].url, "file:///proj");
    EXPECT_EQ(file.requirements[4].unnamed_extras, (std::vector<std::string>{"dev"}));
    EXPECT_EQ(file.requirements[5].name(), "tool");
    EXPECT_TRUE(file.requirements[5].editable);
}

TEST(RequirementsUrls, VcsProblems) {
    EXPECT_EQ(parse_error("git+https://github.com/org/repo.git@\n").message,
              "the revision after '@' is empty (name a branch, tag or commit after '@', or "
              "remove the '@')");
    EXPECT_EQ(parse_error("x @ git+foo://github.com/org/repo.git\n").message,
              "'git+foo' is not a transport pip knows for git (use one of git+http, git+https, "
              "git+ssh, git+git, git+file)");
    EXPECT_EQ(parse_error("-e https://example.com/pkg.tar.gz\n").message,
              "'https://example.com/pkg.tar.gz' is not a valid editable requirement");
}

// --- includes -------------------------------------------------------------------------------

TEST(RequirementsIncludes, RequirementsAndConstraintsRelativeToTheIncludingFile) {
    auto options = files({
        {"/proj/requirements.txt",
         "-r sub/base.txt\ntop==1\n--constraint=constraints.txt\n--requirement ./sub/base.txt\n"},
        {"/proj/sub/base.txt", "# base\nbase==2\n-r ../common/common.txt\n"},
        {"/proj/common/common.txt", "common==3\n--pre\n"},
        {"/proj/constraints.txt", "torch==2.7.0\n-r nested-constraints.txt\n"},
        {"/proj/nested-constraints.txt", "numpy<2\n"},
    });
    auto file = read_requirements_file("/proj/requirements.txt", options);
    ASSERT_TRUE(file) << file.error().describe();
    EXPECT_EQ(texts(file->requirements),
              (std::vector<std::string>{"base==2", "common==3", "top==1", "base==2", "common==3"}));
    EXPECT_EQ(texts(file->constraints), (std::vector<std::string>{"torch==2.7.0", "numpy<2"}));
    EXPECT_TRUE(file->options.pre);
    EXPECT_EQ(file->requirements[1].where, (SourceLocation{"/proj/common/common.txt", 1, 1}));
    std::vector<std::filesystem::path> expected_files{
        "/proj/requirements.txt", "/proj/sub/base.txt", "/proj/common/common.txt",
        "/proj/constraints.txt", "/proj/nested-constraints.txt"};
    EXPECT_EQ(file->files, expected_files);
}

TEST(RequirementsIncludes, CyclesAreReportedWithTheChain) {
    auto options = files({
        {"/proj/a.txt", "x==1\n-r b.txt\n"},
        {"/proj/b.txt", "\n\n-r sub/../a.txt\n"},
    });
    auto file = read_requirements_file("/proj/a.txt", options);
    ASSERT_FALSE(file);
    EXPECT_EQ(file.error().describe(),
              "/proj/b.txt:3:1: requirements files include each other: /proj/a.txt -> "
              "/proj/b.txt -> /proj/a.txt");
    EXPECT_EQ(file.error().hint, "remove one of the -r lines of the cycle");

    auto self = parse_requirements_text("-c requirements.txt\n", "/proj/requirements.txt",
                                        files({{"/proj/requirements.txt", ""}}));
    ASSERT_FALSE(self);
    EXPECT_EQ(self.error().message,
              "requirements files include each other: /proj/requirements.txt -> "
              "/proj/requirements.txt");
}

TEST(RequirementsIncludes, RunawayNestingStops) {
    RequirementsReadOptions options;
    options.read = [](const std::filesystem::path&) -> util::Expected<std::string, std::string> {
        return std::string("-r deeper/r.txt\n");
    };
    auto file = parse_requirements_text("-r deeper/r.txt\n", "/r.txt", options);
    ASSERT_FALSE(file);
    EXPECT_EQ(file.error().message, "requirements files nest more than 32 levels deep");
}

TEST(RequirementsIncludes, MissingFileIsReportedAtTheIncludingLine) {
    auto options = files({{"/proj/requirements.txt", "numpy\n-r   missing.txt\n"}});
    auto file = read_requirements_file("/proj/requirements.txt", options);
    ASSERT_FALSE(file);
    EXPECT_EQ(file.error().describe(),
              "/proj/requirements.txt:2:6: cannot read requirements file '/proj/missing.txt': "
              "No such file or directory");
    EXPECT_EQ(file.error().hint,
              "the path is relative to the folder of the file that names it (/proj)");

    auto top = read_requirements_file("/nowhere/requirements.txt", options);
    ASSERT_FALSE(top);
    EXPECT_EQ(
        top.error().describe(),
        "/nowhere/requirements.txt: cannot read requirements file: No such file or directory");

    auto remote = parse_error("-r https://example.com/requirements.txt\n");
    EXPECT_EQ(
        remote.message,
        "cannot include 'https://example.com/requirements.txt': only local files can be read");
}

TEST(RequirementsIncludes, ConstraintsMustBeNamedPlainRequirements) {
    auto check = [](std::string constraint_text) {
        auto options = files({{"/proj/c.txt", std::move(constraint_text)}});
        auto file = parse_requirements_text("-c c.txt\n", "/proj/requirements.txt", options);
        EXPECT_FALSE(file);
        return file ? std::string{} : file.error().describe();
    };
    EXPECT_EQ(check("https://example.com/archive.zip\n"),
              "/proj/c.txt:1:1: unnamed requirements are not allowed as constraints");
    EXPECT_EQ(check("-e git+https://example.com/r.git#egg=r\n"),
              "/proj/c.txt:1:4: editable requirements are not allowed as constraints");
    EXPECT_EQ(check("torch[opt]==2.0\n"), "/proj/c.txt:1:1: constraints cannot have extras");
}

TEST(RequirementLineHelper, ParsesOneEntryWithItsLocation) {
    auto line = parse_requirement_line("  torch==2.7.0 --hash=sha256:" + std::string(64, 'c'),
                                       SourceLocation{"manifest.yaml", 12, 7});
    ASSERT_TRUE(line) << line.error().describe();
    EXPECT_EQ(line->text, "torch==2.7.0");
    EXPECT_EQ(line->where, (SourceLocation{"manifest.yaml", 12, 9}));
    EXPECT_EQ(line->hashes.size(), 1u);

    auto bad = parse_requirement_line("torch=2", SourceLocation{"manifest.yaml", 3, 5});
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().where.line, 3u);
    EXPECT_EQ(bad.error().where.column, 10u);

    auto options_only = parse_requirement_line("--pre", SourceLocation{"manifest.yaml", 4, 5});
    ASSERT_FALSE(options_only);
    EXPECT_EQ(options_only.error().describe(),
              "manifest.yaml:4:5: expected a requirement, found only options");
}

// --- real files -------------------------------------------------------------------------------

std::string realworld(const std::string& relative) {
    return test::data_path("realworld/" + relative);
}

TEST(RequirementsRealWorld, OstrisAiToolkitIncludesItsBaseFile) {
    auto file = read_requirements_file(realworld("ostris_ai-toolkit/requirements.txt"));
    ASSERT_TRUE(file) << file.error().describe();
    ASSERT_EQ(file->requirements.size(), 42u);
    EXPECT_EQ(file->requirements.front().text, "torchao==0.10.0");
    // The same path (on Windows spelt with the native separator).
    EXPECT_EQ(std::filesystem::path(file->requirements.front().where.file),
              std::filesystem::path(realworld("ostris_ai-toolkit/requirements_base.txt")));
    const RequirementLine& diffusers = file->requirements[2];
    EXPECT_EQ(diffusers.where.line, 3u);
    ASSERT_TRUE(diffusers.vcs);
    EXPECT_EQ(diffusers.vcs->repository, "https://github.com/huggingface/diffusers.git");
    EXPECT_EQ(diffusers.vcs->revision, "c943837899b16cbae2f619b8dd4f7bb6f07dd81a");
    EXPECT_FALSE(diffusers.requirement);
    // The commented-out `#pip install git+…` line is gone: transformers follows diffusers.
    EXPECT_EQ(file->requirements[3].text, "transformers==5.5.3");
    EXPECT_EQ(file->requirements[36].text, "setuptools>=77.0.3");
    EXPECT_EQ(file->requirements[36].where.line, 38u);
    EXPECT_EQ(file->requirements.back().text, "scipy==1.12.0");
    EXPECT_EQ(file->requirements.back().where,
              (SourceLocation{realworld("ostris_ai-toolkit/requirements.txt"), 2, 1}));
    EXPECT_EQ(file->files.size(), 2u);

    auto old = read_requirements_file(realworld("ostris_ai-toolkit@356449ec/requirements.txt"));
    ASSERT_TRUE(old) << old.error().describe();
    ASSERT_EQ(old->requirements.size(), 39u);
    EXPECT_EQ(old->requirements[2].vcs->repository, "https://github.com/huggingface/diffusers");
    EXPECT_EQ(old->requirements.back().text, "scipy==1.12.0");  // no final newline
}

TEST(RequirementsRealWorld, KohyaSsExtraIndexLocalPinsAndStubbedIncludes) {
    auto file = read_requirements_file(realworld("bmaltais_kohya_ss/requirements_linux.txt"));
    ASSERT_TRUE(file) << file.error().describe();
    EXPECT_EQ(file->options.extra_index_urls,
              (std::vector<std::string>{"https://download.pytorch.org/whl/cu128"}));
    EXPECT_EQ(texts(file->requirements),
              (std::vector<std::string>{
                  "torch==2.7.0+cu128", "torchvision==0.22.0+cu128", "xformers>=0.0.30",
                  "bitsandbytes>=0.45.0", "tensorboard==2.15.2", "tensorflow==2.15.0.post1",
                  "onnxruntime-gpu==1.19.2", "accelerate==1.7.0", "toml==0.10.2"}));
    const auto& torch = file->requirements[0].requirement->specifier().specifiers().front();
    EXPECT_EQ(torch.version()->local(), "cu128");
    EXPECT_EQ(file->requirements[0].where.line, 4u);
    EXPECT_EQ(file->files.size(), 3u);

    auto windows =
        read_requirements_file(realworld("bmaltais_kohya_ss/requirements_pytorch_windows.txt"));
    ASSERT_TRUE(windows) << windows.error().describe();
    EXPECT_EQ(requirement_strings(windows->requirements),
              (std::vector<std::string>{"torch==2.7.0+cu128", "torchvision==0.22.0+cu128",
                                        "xformers>=0.0.30", "accelerate==1.7.0",
                                        "bitsandbytes>=0.45.0; sys_platform == \"win32\""}));
}

TEST(RequirementsRealWorld, OneTrainerEditablesMarkersAndInlineComments) {
    auto cuda = read_requirements_file(realworld("Nerogar_OneTrainer/requirements-cuda.txt"));
    ASSERT_TRUE(cuda) << cuda.error().describe();
    EXPECT_EQ(cuda->options.extra_index_urls,
              (std::vector<std::string>{"https://download.pytorch.org/whl/cu130"}));
    EXPECT_EQ(
        requirement_strings(cuda->requirements),
        (std::vector<std::string>{
            "torch==2.12.0+cu130", "torchvision==0.27.0+cu130", "onnxruntime-gpu==1.23.2",
            "nvidia-nccl-cu13==2.29.7; sys_platform == \"linux\"", "nvidia-nvcomp-cu13==5.3.0.16",
            "triton-windows==3.7.0.post26; sys_platform == \"win32\"", "bitsandbytes==0.49.1"}));
    EXPECT_EQ(cuda->requirements.back().where.line, 11u);

    auto global = read_requirements_file(realworld("Nerogar_OneTrainer/requirements-global.txt"));
    ASSERT_TRUE(global) << global.error().describe();
    ASSERT_EQ(global->requirements.size(), 42u);
    std::vector<std::string> editables;
    for (const auto& line : global->requirements) {
        if (line.editable) editables.push_back(line.name() + "@" + line.vcs->revision);
    }
    EXPECT_EQ(editables, (std::vector<std::string>{"diffusers@1ffa423", "mgds@3a6994a",
                                                   "muon-optimizer@f90a42b"}));
    EXPECT_EQ(global->requirements[3].text, "imagesize==1.4.1");
    EXPECT_EQ(global->requirements[10].text, "yt-dlp");
    EXPECT_EQ(global->requirements[19].text, "transformers==5.5.4");
    EXPECT_EQ(global->requirements[19].where.line, 25u);
}

// --- pip itself ---------------------------------------------------------------------------------

using Tree = std::vector<std::pair<std::string, std::string>>;

// Reads each of `tops` (files of `tree`, name → content) with pip 23.2's parse_requirements, in
// one Python process, and returns one list of what it yields per top file; nothing when no such
// pip is installed.
std::optional<nlohmann::json> pip_reads(const Tree& tree, const std::vector<std::string>& tops,
                                        const util::Environment& environment = {}) {
    const std::filesystem::path python = "/root/.pyenv/versions/3.11.7/bin/python";
    std::error_code ec;
    if (!std::filesystem::exists(python, ec)) return std::nullopt;
    auto dir = fs::TempDir::create("aitk-pip-compare");
    for (const auto& [name, content] : tree) {
        std::filesystem::create_directories((dir.path() / name).parent_path());
        std::ofstream(dir.path() / name, std::ios::binary) << content;
    }
    util::ProcessRequest request;
    request.argv = {python.string(), "-c",
                    "import json, sys\n"
                    "from pip._internal.req.req_file import parse_requirements\n"
                    "from pip._internal.network.session import PipSession\n"
                    "session = PipSession()\n"
                    "files = []\n"
                    "for top in sys.argv[1:]:\n"
                    "    out = []\n"
                    "    for r in parse_requirements(top, session=session):\n"
                    "        hashes = (r.options or {}).get('hashes') or {}\n"
                    "        out.append({'req': r.requirement.strip(), 'editable': r.is_editable,\n"
                    "                    'constraint': r.constraint,\n"
                    "                    'hashes': sorted(a + ':' + d for a, ds in hashes.items()\n"
                    "                                     for d in ds)})\n"
                    "    files.append(out)\n"
                    "print(json.dumps(files))\n"};
    for (const auto& top : tops)
        request.argv.push_back((dir.path() / top).string());
    request.environment = environment;
    request.environment->emplace("PYTHONDONTWRITEBYTECODE", "1");
    request.timeout = std::chrono::seconds(60);
    auto result = util::run_process(request);
    if (!result || !result->succeeded()) {
        ADD_FAILURE() << "pip did not run: " << (result ? result->err : result.error().message);
        return std::nullopt;
    }
    return nlohmann::json::parse(result->out);
}

// What this reader yields for `top`, in the shape pip_reads() prints.
nlohmann::json ours(const Tree& tree, const std::string& top,
                    const util::Environment& environment = {}) {
    std::map<std::string, std::string> map;
    for (const auto& [name, content] : tree)
        map["/virtual/" + name] = content;
    auto file = read_requirements_file("/virtual/" + top, files(map, environment));
    EXPECT_TRUE(file) << file.error().describe();
    nlohmann::json out = nlohmann::json::array();
    if (!file) return out;
    auto add = [&](const std::vector<RequirementLine>& lines, bool constraint) {
        for (const auto& line : lines) {
            std::vector<std::string> hashes = line.hashes;
            std::sort(hashes.begin(), hashes.end());
            if (line.url.find("#sha") != std::string::npos) hashes.clear();  // pip: in the link
            out.push_back({{"req", line.text},
                           {"editable", line.editable},
                           {"constraint", constraint},
                           {"hashes", hashes}});
        }
    };
    add(file->requirements, false);
    add(file->constraints, true);
    return out;
}

// pip yields constraints in file order among the requirements; compare per kind.
nlohmann::json by_kind(const nlohmann::json& items) {
    nlohmann::json requirements = nlohmann::json::array(), constraints = nlohmann::json::array();
    for (const auto& item : items)
        (item["constraint"].get<bool>() ? constraints : requirements).push_back(item);
    return {requirements, constraints};
}

TEST(RequirementsAgainstPip, TrickyLinesReadTheSame) {
    std::string h1(64, '1'), h2(64, '2');
    Tree tree{
        {"requirements.txt",
         "# header comment \\\n"
         "first==1 \\\n"
         "# a comment ends it\n"
         "second[x,y]>=2 ; python_version >= \"3\"  # trailing\n"
         "third==3 \\\n"
         "    --hash=sha256:" +
             h1 +
             " \\\n"
             "    --hash sha256:" +
             h2 +
             "\n"
             "fourth # eats the next line \\\n"
             "eaten\n"
             "\t  fifth  \n"
             "pkg @ https://example.com/pkg-1.0.tar.gz#egg=pkg\n"
             "-e git+https://github.com/org/repo.git@abcdef1#egg=repo\n"
             "--extra-index-url https://example.com/simple\n"
             "-r sub/more.txt\n"
             "${NAME}==5\n"
             "-c constraints.txt\n"
             "last\\\n"},
        {"sub/more.txt", "more==1\n--pre\nmore-two<3\n"},
        {"constraints.txt", "numpy<2\n"},
    };
    util::Environment environment{{"NAME", "from-env"}};
    auto pip = pip_reads(tree, {"requirements.txt"}, environment);
    if (!pip) GTEST_SKIP() << "pip 23.2 under pyenv 3.11.7 is not installed";
    EXPECT_EQ(by_kind(ours(tree, "requirements.txt", environment)), by_kind((*pip)[0]));
}

TEST(RequirementsAgainstPip, RealFilesReadTheSame) {
    const std::vector<std::string> tops{"Nerogar_OneTrainer/requirements-global.txt",
                                        "Nerogar_OneTrainer/requirements-cuda.txt",
                                        "ostris_ai-toolkit/requirements.txt",
                                        "ostris_ai-toolkit@356449ec/requirements.txt",
                                        "bmaltais_kohya_ss/requirements_linux.txt",
                                        "bmaltais_kohya_ss/requirements_pytorch_windows.txt"};
    Tree tree;
    for (const auto& name : tops)
        tree.emplace_back(name, test::read_file(realworld(name)));
    for (const std::string name :
         {"ostris_ai-toolkit/requirements_base.txt", "bmaltais_kohya_ss/requirements.txt",
          "bmaltais_kohya_ss/requirements_windows.txt", "bmaltais_kohya_ss/stubs/common.txt"}) {
        tree.emplace_back(name, test::read_file(realworld(name)));
    }
    auto pip = pip_reads(tree, tops);
    if (!pip) GTEST_SKIP() << "pip 23.2 under pyenv 3.11.7 is not installed";
    ASSERT_EQ(pip->size(), tops.size());
    for (std::size_t i = 0; i < tops.size(); ++i) {
        EXPECT_EQ(by_kind(ours(tree, tops[i])), by_kind((*pip)[i])) << tops[i];
        EXPECT_GT((*pip)[i].size(), 3u) << tops[i];
    }
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::project
