// lcstudio-cli's entry point: signals in, the command line to runCli.
#include <csignal>

#include "cli_commands.h"
#include "cli_support.h"

namespace {

extern "C" void onInterrupt(int)
{
    cli::g_cancel.cancel();
}

} // namespace

int main(int argc, char** argv)
{
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    return cli::runCli(argc, argv);
}
