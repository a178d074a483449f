#include "aitk/install/entry_points.hpp"

#include <gtest/gtest.h>

#include <string>

namespace AITK_FILE_LOCAL {

using namespace aitk::install;

TEST(EntryPoints, ReadsGroupsNamesAndValuesLikeImportlibMetadata) {
    auto parsed = parse_entry_points(
        "\xEF\xBB\xBF# generated\n"
        "[console_scripts]\n"
        "black = black:patched_main\n"
        "  blackd=blackd:main [d]  \n"
        "\n"
        "; a comment\n"
        "[gui_scripts]\n"
        "viewer = pkg.gui:App.run\n"
        "[pytest11]\n"
        "myplugin = pkg.plugin\n");
    ASSERT_TRUE(parsed.has_value()) << parsed.error();
    ASSERT_EQ(parsed->size(), 4u);
    EXPECT_EQ((*parsed)[0].group, "console_scripts");
    EXPECT_EQ((*parsed)[0].name, "black");
    EXPECT_EQ((*parsed)[0].value, "black:patched_main");
    EXPECT_EQ((*parsed)[0].line, 3u);
    EXPECT_EQ((*parsed)[1].name, "blackd");
    EXPECT_EQ((*parsed)[1].value, "blackd:main [d]");
    EXPECT_EQ((*parsed)[2].group, "gui_scripts");
    EXPECT_EQ((*parsed)[2].value, "pkg.gui:App.run");
    EXPECT_EQ((*parsed)[3].group, "pytest11");
    EXPECT_EQ((*parsed)[3].value, "pkg.plugin");
}

TEST(EntryPoints, BadLinesNameTheirLine) {
    EXPECT_EQ(parse_entry_points("[console_scripts\nx = a:b\n").error(),
              "line 1: a group header '[console_scripts' lacks its closing ']'");
    EXPECT_EQ(parse_entry_points("[]\n").error(), "line 1: the group name is empty");
    EXPECT_EQ(parse_entry_points("[g]\njust words\n").error(),
              "line 2: 'just words' is not written 'name = value'");
    EXPECT_EQ(parse_entry_points("x = a:b\n").error(),
              "line 1: entry point 'x = a:b' comes before any [group]");
    EXPECT_EQ(parse_entry_points("[g]\n = a:b\n").error(), "line 2: an entry point has no name");
}

TEST(EntryPoints, ScriptTargetsSplitModuleAttributeAndExtras) {
    auto plain = parse_script_target("pkg.cli:main");
    ASSERT_TRUE(plain.has_value());
    EXPECT_EQ(plain->module, "pkg.cli");
    EXPECT_EQ(plain->attribute, "main");
    EXPECT_TRUE(plain->extras.empty());

    auto nested = parse_script_target(" pkg : App.run [gui, fast-mode] ");
    ASSERT_TRUE(nested.has_value()) << nested.error();
    EXPECT_EQ(nested->module, "pkg");
    EXPECT_EQ(nested->attribute, "App.run");
    EXPECT_EQ(nested->extras, (std::vector<std::string>{"gui", "fast-mode"}));

    EXPECT_EQ(parse_script_target("pkg.cli").error(),
              "'pkg.cli' names no callable: write 'module:function'");
    EXPECT_EQ(parse_script_target("pkg:").error(), "'pkg:': '' is not an attribute name");
    EXPECT_EQ(parse_script_target("my-pkg:main").error(),
              "'my-pkg:main': 'my-pkg' is not a module name");
    EXPECT_EQ(parse_script_target("pkg:main()").error(),
              "'pkg:main()': 'main()' is not an attribute name");
    EXPECT_EQ(parse_script_target("pkg:main [x").error(),
              "'pkg:main [x': extras lack a closing ']'");
    EXPECT_EQ(parse_script_target("pkg:a..b").error(),
              "'pkg:a..b': 'a..b' is not an attribute name");
}

TEST(EntryPoints, ScriptNamesMustBePlainFileNames) {
    EXPECT_TRUE(is_valid_script_name("black"));
    EXPECT_TRUE(is_valid_script_name("pip3.12"));
    EXPECT_TRUE(is_valid_script_name("torchrun"));
    EXPECT_FALSE(is_valid_script_name(""));
    EXPECT_FALSE(is_valid_script_name("."));
    EXPECT_FALSE(is_valid_script_name(".."));
    EXPECT_FALSE(is_valid_script_name("../../etc/cron.d/x"));
    EXPECT_FALSE(is_valid_script_name("sub/tool"));
    EXPECT_FALSE(is_valid_script_name("a\\b"));
    EXPECT_FALSE(is_valid_script_name("two words"));
    EXPECT_FALSE(is_valid_script_name("tab\tname"));
}

}  // namespace AITK_FILE_LOCAL
