// What the inputs say about torch: the specifier, the build a pin's label or an index option
// names, and the torch index base such an option gives.
#include "aitk/project/torch_pins.hpp"

#include <gtest/gtest.h>

namespace aitk::project {
namespace AITK_FILE_LOCAL {

ProjectInput from_text(const std::string& text) {
    auto file = parse_requirements_text(text, "/p/requirements.txt");
    EXPECT_TRUE(file) << file.error().to_error().what();
    return from_requirements(*file, "requirements");
}

TEST(BackendIndexUrl, NamesTheBackendOfItsLastSegment) {
    auto u = backend_index_url("https://download.pytorch.org/whl/cu128");
    ASSERT_TRUE(u);
    EXPECT_EQ(u->base, "https://download.pytorch.org/whl");
    EXPECT_EQ(u->backend, "cu128");
    u = backend_index_url("https://mirror.example/pytorch-wheels/rocm6.3/");
    ASSERT_TRUE(u);
    EXPECT_EQ(u->base, "https://mirror.example/pytorch-wheels");
    EXPECT_EQ(u->backend, "rocm6.3");
    EXPECT_EQ(backend_index_url("https://download.pytorch.org/whl/nightly/cpu")->base,
              "https://download.pytorch.org/whl/nightly");
    EXPECT_FALSE(backend_index_url("https://pypi.org/simple"));
    EXPECT_FALSE(backend_index_url("https://cu128"));  // a host, not a folder
    EXPECT_FALSE(backend_index_url("https://host/whl/cuda"));
}

TEST(TorchPins, APinsLabelFixesTheBuildStrictly) {
    auto pins = torch_pins(from_text("torch==2.7.0+cu128\ntorchvision==0.22.0+cu128\n"));
    ASSERT_TRUE(pins);
    EXPECT_EQ(pins->torch_specifier, "==2.7.0+cu128");
    EXPECT_EQ(pins->backend, "cu128");
    EXPECT_TRUE(pins->backend_strict);
    EXPECT_EQ(pins->backend_by, "torch==2.7.0+cu128 (/p/requirements.txt:1:1)");
}

TEST(TorchPins, AnIndexOptionNamesTheBuildAndTheIndex) {
    auto pins = torch_pins(from_text(
        "--extra-index-url https://download.pytorch.org/whl/cu130\ntorch>=2.9\nrequests\n"));
    ASSERT_TRUE(pins);
    EXPECT_EQ(pins->torch_specifier, ">=2.9");
    EXPECT_EQ(pins->backend, "cu130");
    EXPECT_FALSE(pins->backend_strict);
    EXPECT_EQ(pins->index_base, "https://download.pytorch.org/whl");
    EXPECT_EQ(pins->backend_by, "the index https://download.pytorch.org/whl/cu130");
}

TEST(TorchPins, TwoIndexesAreAPreferenceNotAChoice) {
    auto pins =
        torch_pins(from_text("--extra-index-url https://h/whl/cu128\n"
                             "--extra-index-url https://h/whl/cu126\ntorch\n"));
    ASSERT_TRUE(pins);
    EXPECT_FALSE(pins->backend);
    EXPECT_EQ(pins->index_backends, (std::vector<std::string>{"cu128", "cu126"}));
    EXPECT_EQ(pins->torch_specifier, "");
}

TEST(TorchPins, TwoBuildsInOneFamilyAreBadInput) {
    auto pins = torch_pins(from_text("torch==2.7.0+cu128\ntorchvision==0.22.0+cu126\n"));
    ASSERT_FALSE(pins);
    auto e = pins.error().to_error();
    EXPECT_EQ(e.code(), util::ExitCode::bad_input);
    EXPECT_NE(std::string(e.what()).find("name different builds (cu128, cu126)"), std::string::npos)
        << e.what();
}

TEST(TorchPins, LocalLabelsThatAreNoBackendSayNothing) {
    auto pins = torch_pins(from_text("torch==2.7.0+mybuild1\n"));
    ASSERT_TRUE(pins);
    EXPECT_FALSE(pins->backend);
}

}  // namespace AITK_FILE_LOCAL
}  // namespace aitk::project
