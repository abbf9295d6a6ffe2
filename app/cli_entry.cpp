// lcstudio-cli's entry point: signals in, the command line to runCli.
#include <csignal>
#include <cstdlib>

#include <unistd.h>

#include "app/cli_commands.h"
#include "app/cli_support.h"

namespace {

extern "C" void onInterrupt(int signal)
{
    // A second signal while the first is still being honoured (in code that cannot be
    // interrupted: a model file's own loop, one long LibTorch call) ends the process at
    // once. Nothing has been committed; the staging it leaves is removed by the next run
    // that writes there (removeStaleTemporaries).
    if (cli::g_cancel.isCancelled()) {
        static const char text[] = "\nlcstudio-cli: stopped at once (a second signal)\n";
        [[maybe_unused]] const auto written = ::write(STDERR_FILENO, text, sizeof text - 1);
        std::_Exit(128 + signal);
    }
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
