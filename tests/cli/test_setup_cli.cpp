// `aitk-env setup` before its pipeline lands: it must parse the contract's options (including
// AITK_ENV_TORCH_BACKEND, whose storage once outlived the command's lifetime) and say clearly
// that it cannot run yet.
#include <gtest/gtest.h>

#include "run_cli.hpp"

using aitk::test::run_cli;

TEST(SetupCli, ParsesTheContractOptionsAndSaysWhatIsMissing) {
    auto r = run_cli({"setup", "-p", "/tmp/aitk-setup-prefix", "--backend", "cu128", "--python",
                      "3.12"},
                     "", {"AITK_ENV_TORCH_BACKEND=cu126"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("setup is not available in this build yet"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("README.md"), std::string::npos);
}

TEST(SetupCli, UnknownOptionIsAUsageError) {
    auto r = run_cli({"setup", "--no-such-option"});
    EXPECT_EQ(r.exit_code, 2);
}
