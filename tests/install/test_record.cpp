#include "aitk/install/record.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace AITK_FILE_LOCAL {

using namespace aitk::install;

namespace {

std::vector<InstalledFile> parsed(std::string_view text) {
    auto result = parse_record(text);
    EXPECT_TRUE(result.has_value()) << (result ? "" : result.error());
    return result ? *result : std::vector<InstalledFile>{};
}

std::string error_of(std::string_view text) {
    auto result = parse_record(text);
    EXPECT_FALSE(result.has_value());
    return result ? "" : result.error();
}

}  // namespace

TEST(Record, ParsesRowsWithHashesSizesAndRecordsOwnEmptyRow) {
    auto rows = parsed(
        "demo/__init__.py,sha256=AbC-_x,22\n"
        "../../../bin/demo,sha256=Zz9,250\r\n"
        "\n"
        "demo-1.0.dist-info/RECORD,,\n");
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].path, "demo/__init__.py");
    EXPECT_EQ(rows[0].hash, "sha256=AbC-_x");
    EXPECT_EQ(rows[0].size, 22u);
    EXPECT_EQ(rows[1].path, "../../../bin/demo");
    EXPECT_EQ(rows[1].size, 250u);
    EXPECT_EQ(rows[2].path, "demo-1.0.dist-info/RECORD");
    EXPECT_EQ(rows[2].hash, "");
    EXPECT_EQ(rows[2].size, 0u);
}

TEST(Record, ReadsQuotedFieldsAsPythonsCsvModuleWritesThem) {
    auto rows = parsed(
        "\"data/a,b.txt\",sha256=x,1\n"
        "\"data/say \"\"hi\"\".txt\",sha256=y,2\n"
        "\"data/two\nlines\",sha256=z,3\n"
        "last,,");  // no final line end
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[0].path, "data/a,b.txt");
    EXPECT_EQ(rows[1].path, "data/say \"hi\".txt");
    EXPECT_EQ(rows[2].path, "data/two\nlines");
    EXPECT_EQ(rows[2].size, 3u);
    EXPECT_EQ(rows[3].path, "last");
}

TEST(Record, FormatQuotesOnlyWhatNeedsIt_AndRoundTrips) {
    std::vector<InstalledFile> files = {
        {"pkg/mod.py", "sha256=abc", 10},
        {"pkg/a,b.txt", "sha256=def", 0},
        {"pkg/q\"uote", "sha256=ghi", 5},
        {"pkg-1.0.dist-info/RECORD", "", 0},
    };
    const std::string text = format_record(files);
    EXPECT_EQ(text,
              "pkg/mod.py,sha256=abc,10\n"
              "\"pkg/a,b.txt\",sha256=def,0\n"
              "\"pkg/q\"\"uote\",sha256=ghi,5\n"
              "pkg-1.0.dist-info/RECORD,,\n");
    auto back = parsed(text);
    ASSERT_EQ(back.size(), files.size());
    for (std::size_t i = 0; i < files.size(); ++i) {
        EXPECT_EQ(back[i].path, files[i].path);
        EXPECT_EQ(back[i].hash, files[i].hash);
        EXPECT_EQ(back[i].size, files[i].size);
    }
}

TEST(Record, BadRowsNameTheirLine) {
    EXPECT_EQ(error_of("a,sha256=x,1\nb,sha256=y\n"),
              "line 2: has 2 fields, expected 3 (path,hash,size)");
    EXPECT_EQ(error_of("a,sha256=x,1,extra\n"),
              "line 1: has 4 fields, expected 3 (path,hash,size)");
    EXPECT_EQ(error_of("a,sha256=x,12k\n"), "line 1: size '12k' is not a number");
    EXPECT_EQ(error_of("a,sha256=x,-1\n"), "line 1: size '-1' is not a number");
    EXPECT_EQ(error_of("a,deadbeef,1\n"),
              "line 1: hash 'deadbeef' is not written <algorithm>=<digest>");
    EXPECT_EQ(error_of("a,sha256=,1\n"),
              "line 1: hash 'sha256=' is not written <algorithm>=<digest>");
    EXPECT_EQ(error_of(",sha256=x,1\n"), "line 1: the path is empty");
    EXPECT_EQ(error_of("ok,,\n\"open,sha256=x,1\n"), "line 2: a quoted field is not closed");
}

TEST(Record, HashesAreUrlsafeBase64WithoutPadding) {
    // sha256("") in RECORD form, as pip and the wheel tool write it.
    EXPECT_EQ(record_hash_of(""), "sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
    aitk::fs::Sha256 h;
    auto digest = h.finish();
    EXPECT_TRUE(record_hash_matches("sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU", digest));
    EXPECT_TRUE(record_hash_matches("sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU=", digest));
    EXPECT_FALSE(record_hash_matches("sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFV", digest));
    EXPECT_FALSE(record_hash_matches("sha512=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU", digest));
    EXPECT_TRUE(is_sha256_record_hash("sha256=x"));
    EXPECT_FALSE(is_sha256_record_hash("md5=x"));
}

TEST(Record, WheelRecordPathsMustBeNormalRelativePaths) {
    EXPECT_FALSE(record_path_problem("pkg/mod.py").has_value());
    EXPECT_FALSE(record_path_problem("pkg-1.0.data/scripts/tool").has_value());
    EXPECT_TRUE(record_path_problem("../evil.py").has_value());
    EXPECT_TRUE(record_path_problem("pkg/../../evil.py").has_value());
    EXPECT_TRUE(record_path_problem("/etc/passwd").has_value());
    EXPECT_TRUE(record_path_problem("C:/x.py").has_value());
    EXPECT_TRUE(record_path_problem("pkg\\mod.py").has_value());
    EXPECT_EQ(record_path_problem("./pkg/mod.py").value_or(""),
              "is not in normal form ('pkg/mod.py')");
    EXPECT_EQ(record_path_problem("pkg//mod.py").value_or(""),
              "is not in normal form ('pkg/mod.py')");
}

}  // namespace AITK_FILE_LOCAL
