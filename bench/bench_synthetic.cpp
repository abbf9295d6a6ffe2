// Times the paper's synthetic experiment end to end and per phase.
// Usage: lcs_bench_synthetic [replicates=10] [threads=2] [repeats=1]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/core/threads.h"
#include "engine/experiments/synthetic/synthetic_experiment.h"

int main(int argc, char** argv)
{
    const int replicates = argc > 1 ? std::atoi(argv[1]) : 10;
    const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
    const int repeats = argc > 3 ? std::atoi(argv[3]) : 1;
    lcs::configureThreads(1);
    lcs::SyntheticConfig config;
    config.replicates = replicates;
    config.threads = threads;
    std::printf("synthetic experiment: %d replicates x 3 methods, %d worker thread(s)\n", replicates, threads);
    for (int rep = 0; rep < repeats; ++rep) {
        const auto result = lcs::runSynthetic(config, {});
        double inference[4] = {0, 0, 0, 0}, correction = 0;
        int corrections = 0;
        for (const auto& m : result.methods) {
            for (const auto& o : m.replicates) {
                inference[static_cast<int>(m.method)] += o.inferenceSeconds;
                correction += o.correctionSeconds;
                ++corrections;
            }
        }
        std::printf("run %d: %.2f s wall\n", rep + 1, result.seconds);
        for (const auto& m : result.methods)
            std::printf("  %-13s inference %.3f s/replicate (wall, on one worker)  cost %.4f -> %.4f\n",
                        lcs::methodName(m.method).c_str(), inference[static_cast<int>(m.method)] / replicates,
                        m.uncorrected.mean, m.corrected.mean);
        std::printf("  correction    %.3f s per q (500 Adam steps on 500 points)\n", correction / corrections);
    }
    return 0;
}
