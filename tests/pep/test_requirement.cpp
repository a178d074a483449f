#include "aitk/pep/requirement.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "test_data.hpp"

namespace AITK_FILE_LOCAL {

using aitk::pep::MarkerEnvironment;
using aitk::pep::MarkerVariable;
using aitk::pep::Requirement;
using testing::HasSubstr;

namespace {

Requirement r(std::string_view text) {
    auto parsed = Requirement::parse(text);
    if (!parsed) {
        throw std::runtime_error("requirement does not parse: " + parsed.error().describe());
    }
    return *parsed;
}

std::vector<std::string> clause_strings(const Requirement& requirement) {
    std::vector<std::string> out;
    for (const auto& clause : requirement.specifier().specifiers())
        out.push_back(clause.to_string());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST(RequirementConformance, ValidRequirementsParseLikePackaging) {
    auto cases = aitk::test::conformance("requirements");
    ASSERT_GE(cases.size(), 200u);
    for (const auto& c : cases) {
        std::string text = c["input"];
        SCOPED_TRACE(text);
        auto parsed = Requirement::parse(text);
        ASSERT_TRUE(parsed) << parsed.error().describe();
        const Requirement& req = *parsed;
        EXPECT_EQ(req.name(), c["name"].get<std::string>());
        EXPECT_EQ(req.extras(), c["extras"].get<std::vector<std::string>>());
        EXPECT_EQ(req.specifier().to_string(), c["specifier"].get<std::string>());
        EXPECT_EQ(clause_strings(req), c["specifiers"].get<std::vector<std::string>>());
        if (c["url"].is_null()) {
            EXPECT_FALSE(req.url());
        } else {
            ASSERT_TRUE(req.url());
            EXPECT_EQ(*req.url(), c["url"].get<std::string>());
        }
        if (c["marker"].is_null()) {
            EXPECT_FALSE(req.marker());
        } else {
            ASSERT_TRUE(req.marker());
            EXPECT_EQ(req.marker()->to_string(), c["marker"].get<std::string>());
        }
        std::string str = req.to_string();
        if (c.contains("str")) {
            EXPECT_EQ(str, c["str"].get<std::string>());
        }
        auto again = Requirement::parse(str);
        ASSERT_TRUE(again) << again.error().describe();
        EXPECT_EQ(*again, req);
        EXPECT_EQ(again->to_string(), str);
    }
}

TEST(RequirementConformance, InvalidRequirementsAreRejected) {
    auto cases = aitk::test::conformance("requirements_invalid");
    ASSERT_GE(cases.size(), 25u);
    for (const auto& c : cases) {
        std::string text = c;
        SCOPED_TRACE(text);
        auto parsed = Requirement::parse(text);
        ASSERT_FALSE(parsed) << parsed->to_string();
        EXPECT_FALSE(parsed.error().message.empty());
        EXPECT_EQ(parsed.error().input, text);
        EXPECT_LE(parsed.error().position, text.size());
    }
}

TEST(RequirementParse, ErrorsNameTheProblemAndItsColumn) {
    struct Case {
        std::string_view text;
        std::size_t position;
        std::string_view message;
    };
    const Case cases[] = {
        {"", 0, "expected a package name at the start of the requirement (it is empty)"},
        {"==0.0", 0, "the name comes before the version"},
        {"name[bar baz]", 9, "expected a comma between extra names"},
        {"name[bar, baz,]", 14, "expected an extra name after the comma (remove the trailing"},
        {"name[bar, baz >= 1.0", 14, "expected ']' to close the extras list opened at column 5"},
        {"name[]]", 6, "after the name 'name', which has no valid version"},
        {"black (>=20.*) ; extra == 'format'", 11,
         "'.*' can only be used with the == and != operators (in the version clause at column 8)"},
        {"name == 1.2.3.post4.*", 19, "'.*' can only be used with the == and != operators"},
        {"name >= 1.0+local.version.label", 11, "a local version label ('+...') can only be"},
        {"name (==1.0", 11, "expected ')' to close the version specifier opened at column 6"},
        {"name >= 1.0 <= 2.0", 12, "separate version clauses with ','"},
        {"name==1.0.org1", 9, "after the version specifier at column 5"},
        {"torch==2.5.1-cu121", 14, "after the version specifier at column 6"},
        {"name>=1\r", 7, "a carriage return is not allowed here"},
        {"name; python_version >= \"3\"\r", 27, "a carriage return is not allowed here"},
        {"name @ ", 7, "expected a URL after '@'"},
        {"name @ https://example.com/; extra == 'example'", 29,
         "the ';' right after the URL is part of it: put a space before ';'"},
        {"name; invalid_name", 6, "unknown marker variable 'invalid_name'"},
        {"name; (extra == 'example'", 25, "expected ')' to close the '(' at column 7"},
        {"name==1.0;", 10, "expected a marker variable"},
        {"name; python_version >= '3.8' and", 33, "expected a marker variable"},
        {"name; os_name == 'a' && os_name == 'b'", 21, "use 'and' / 'or'"},
        {"trailing-dash-", 13, "after the name 'trailing-dash'"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(std::string(c.text));
        auto parsed = Requirement::parse(c.text);
        ASSERT_FALSE(parsed) << parsed->to_string();
        EXPECT_EQ(parsed.error().position, c.position);
        EXPECT_THAT(parsed.error().message, HasSubstr(std::string(c.message)));
        EXPECT_EQ(parsed.error().input, std::string(c.text));
    }
}

TEST(RequirementParse, FollowsPackagingsGrammar) {
    EXPECT_EQ(r("name (>=1.0)").to_string(), "name>=1.0");
    EXPECT_EQ(r("name ( >=1.0 , <2 )").to_string(), "name<2,>=1.0");
    EXPECT_EQ(r("name(>=1.0)").to_string(), "name>=1.0");
    EXPECT_EQ(r("name()").to_string(), "name");
    EXPECT_EQ(r("name>=1.0,").to_string(), "name>=1.0");  // packaging drops the empty clause
    EXPECT_EQ(r("name>=\n1").to_string(), "name>=1");
    EXPECT_EQ(r("name\n").to_string(), "name");
    EXPECT_EQ(r("name[a,a , B]").extras(), (std::vector<std::string>{"B", "a"}));
    EXPECT_EQ(r("name (===foo)").to_string(), "name===foo");
    EXPECT_EQ(r("name==1.0.*").to_string(), "name==1.0.*");
    EXPECT_EQ(r("a._b").name(), "a._b");
    EXPECT_FALSE(Requirement::parse("name-"));
    EXPECT_FALSE(Requirement::parse("name>=1.0,,<2"));
    EXPECT_FALSE(Requirement::parse("name~=1"));
    EXPECT_FALSE(Requirement::parse("na\xc3\xa9me"));

    // A ';' glued to the URL belongs to the URL.
    Requirement glued = r("name@ url;os_name==\"a\"");
    EXPECT_EQ(glued.url(), "url;os_name==\"a\"");
    EXPECT_FALSE(glued.marker());
    Requirement spaced = r("name@url ;os_name=='a'");
    EXPECT_EQ(spaced.url(), "url");
    ASSERT_TRUE(spaced.marker());
    EXPECT_EQ(spaced.to_string(), "name @ url ; os_name == \"a\"");
}

TEST(RequirementCompare, EqualityIsPackagings) {
    EXPECT_EQ(r("scikit-learn==1.0.1"), r("scikit_learn==1.0.1"));
    EXPECT_EQ(r("importlib-metadata; python_version<\"3.8\""),
              r("importlib-metadata; python_version<'3.8'"));
    EXPECT_EQ(r("requests[security, tests]>=2.8.1,==2.8.*;python_version<\"2.7\""),
              r("requests[tests,security]==2.8.*,>=2.8.1; python_version < \"2.7\""));
    EXPECT_FALSE(r("packaging>20.1") == r("packaging>=20.1"));
    EXPECT_FALSE(r("package_one") == r("package_two"));
    EXPECT_FALSE(r("name @ https://a") == r("name @ https://b"));
    EXPECT_EQ(r("Flask_SQLAlchemy~=3.1").canonical_name(), "flask-sqlalchemy");
}

TEST(RequirementRealistic, AiTrainingRequirements) {
    MarkerEnvironment linux_box;
    linux_box.set(MarkerVariable::sys_platform, "linux");
    linux_box.set(MarkerVariable::platform_system, "Linux");
    linux_box.set(MarkerVariable::platform_machine, "x86_64");
    linux_box.set(MarkerVariable::python_version, "3.12");
    MarkerEnvironment windows_box;
    windows_box.set(MarkerVariable::sys_platform, "win32");
    windows_box.set(MarkerVariable::platform_system, "Windows");
    windows_box.set(MarkerVariable::platform_machine, "AMD64");
    windows_box.set(MarkerVariable::python_version, "3.12");

    Requirement torch = r("torch==2.7.0+cu128; sys_platform == \"linux\"");
    EXPECT_EQ(torch.name(), "torch");
    EXPECT_EQ(torch.specifier().to_string(), "==2.7.0+cu128");
    EXPECT_EQ(torch.to_string(), "torch==2.7.0+cu128; sys_platform == \"linux\"");
    EXPECT_TRUE(*torch.applies(linux_box));
    EXPECT_FALSE(*torch.applies(windows_box));

    Requirement triton = r("triton-windows; platform_system == \"Windows\"");
    EXPECT_EQ(triton.canonical_name(), "triton-windows");
    EXPECT_TRUE(triton.specifier().empty());
    EXPECT_FALSE(*triton.applies(linux_box));
    EXPECT_TRUE(*triton.applies(windows_box));

    Requirement diffusers = r("diffusers @ git+https://github.com/huggingface/diffusers@abc123");
    EXPECT_EQ(diffusers.url(), "git+https://github.com/huggingface/diffusers@abc123");
    EXPECT_FALSE(diffusers.marker());
    EXPECT_TRUE(*diffusers.applies(windows_box));
    EXPECT_EQ(diffusers.to_string(),
              "diffusers @ git+https://github.com/huggingface/diffusers@abc123");

    Requirement cudnn =
        r("nvidia-cudnn-cu12==9.1.0.70; platform_system == \"Linux\" and platform_machine == "
          "\"x86_64\"");
    EXPECT_EQ(cudnn.specifier().to_string(), "==9.1.0.70");
    EXPECT_TRUE(*cudnn.applies(linux_box));
    EXPECT_FALSE(*cudnn.applies(windows_box));

    Requirement accelerate = r("accelerate[deepspeed] >= 0.34 ; extra == 'train'");
    std::vector<std::string> train{"Train"};
    std::vector<std::string> none;
    EXPECT_TRUE(*accelerate.applies(linux_box, train));
    EXPECT_FALSE(*accelerate.applies(linux_box, none));
    EXPECT_EQ(accelerate.to_string(), "accelerate[deepspeed]>=0.34; extra == \"train\"");

    for (const auto* text :
         {"torch==2.7.0+cu128; sys_platform == \"linux\"", "xformers==0.0.28.post3",
          "flash-attn>=2.6.3,!=2.6.*; platform_machine == 'x86_64'", "jax[cuda12]==0.4.35",
          "bitsandbytes>=0.43; sys_platform == 'linux' or sys_platform == 'win32'",
          "vllm @ https://example.com/vllm-0.6.3-cp38-abi3-manylinux1_x86_64.whl ; "
          "platform_machine == 'x86_64'"}) {
        SCOPED_TRACE(text);
        Requirement first = r(text);
        Requirement again = r(first.to_string());
        EXPECT_EQ(again, first);
        EXPECT_EQ(again.to_string(), first.to_string());
    }
}

}  // namespace AITK_FILE_LOCAL
