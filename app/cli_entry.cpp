// lcstudio-cli's entry point: signals in, the command line to runCli.
#include <csignal>

#include "cli_commands.h"
#include "cli_support.h"

namespace {

extern "C" void onInterrupt(int signal)
{
    cli::g_cancelSignal = signal;
    cli::g_cancel.cancel();
}

} // namespace

int main(int argc, char** argv)
{
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    // A closed terminal: stop as on Ctrl-C, leaving old outputs and no staging behind;
    // but a run started with nohup (SIGHUP ignored) goes on after its terminal closes.
    if (std::signal(SIGHUP, SIG_IGN) != SIG_IGN)
        std::signal(SIGHUP, onInterrupt);
    return cli::runCli(argc, argv);
}
