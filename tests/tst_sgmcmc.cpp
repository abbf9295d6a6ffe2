// Posterior approximations: samplers against a known posterior, hand-written gradients
// against autograd, KFAC factors against brute force, Laplace samples' covariance.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include <QtTest/QtTest>

#include <torch/torch.h>

#include "engine/calibration/image_training.h"
#include "engine/core/normal_stream.h"
#include "engine/core/threads.h"
#include "engine/fastpath/flat_parameters.h"
#include "engine/fastpath/mlp_backward.h"
#include "engine/fastpath/mlp_distillation.h"
#include "engine/inference/chain.h"
#include "engine/inference/methods.h"
#include "engine/inference/sghmc.h"
#include "engine/models/classifier.h"
#include "engine/models/mlp.h"
#include "tests/tiny_models.h"

using namespace lcs;

namespace {

/// A 4x4-pixel, 3-class task of 90 rows and an MLP-8 to start a chain from, drawn from
/// `seed`: small enough for a distillation run of a few epochs in a test.
struct SmallChainTask {
    ModelSpec spec;
    TrainingSet train;
    Classifier initial;
};
SmallChainTask smallChainTask(uint64_t seed)
{
    auto g = makeGenerator(seed);
    auto spec = mlpSpec({1, 4, 4}, 3, {8});
    TrainingSet train{torch::randn({90, 1, 4, 4}, g), torch::randint(3, {90}, g)};
    auto initial = spec.build(g);
    return {std::move(spec), std::move(train), std::move(initial)};
}

/// Bayesian linear regression y = X w + noise(sd sigma), prior w ~ N(0, 1/tau):
/// posterior precision P = tau I + X^T X / sigma^2, mean P^-1 X^T y / sigma^2.
struct Conjugate {
    torch::Tensor X, y, mean, cov;
    double sigma = 0.5, tau = 1.0;
};

Conjugate makeConjugate()
{
    Conjugate c;
    auto gen = makeGenerator(42);
    c.X = torch::randn({50, 2}, gen, torch::kDouble);
    auto wTrue = torch::tensor({0.7, -1.2}, torch::kDouble);
    c.y = c.X.mv(wTrue) + c.sigma * torch::randn({50}, gen, torch::kDouble);
    auto precision = c.tau * torch::eye(2, torch::kDouble) + c.X.t().mm(c.X) / (c.sigma * c.sigma);
    c.cov = torch::inverse(precision);
    c.mean = c.cov.mv(c.X.t().mv(c.y)) / (c.sigma * c.sigma);
    return c;
}

} // namespace

class TestSgmcmc : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { lcs::configureThreads(1); }

    void normalStreamDrawsTheStandardNormal_data()
    {
        QTest::addColumn<quint64>("seed");
        for (quint64 seed : {1ULL, 2ULL, 0x5eedULL})
            QTest::newRow(qPrintable(QString("seed %1").arg(seed))) << seed;
    }

    /// Moments, both tails and the distribution function against the closed form, Phi
    /// (the Box-Muller polynomials for ln, sin and cos are what this would catch).
    void normalStreamDrawsTheStandardNormal()
    {
        QFETCH(quint64, seed);
        const int64_t n = 1 << 21;
        std::vector<float> z(static_cast<size_t>(n));
        NormalStream stream(seed);
        stream.fill(z.data(), n / 2);
        for (int64_t i = n / 2; i < n; ++i)
            z[static_cast<size_t>(i)] = static_cast<float>(stream.next());  // one at a time: the same law
        double m1 = 0, m2 = 0, m4 = 0;
        int64_t beyond3 = 0, beyondR = 0, beyond4 = 0, below = 0;
        for (float v : z) {
            m1 += v;
            m2 += double(v) * v;
            m4 += double(v) * v * v * v;
            beyond3 += std::fabs(v) > 3.0;
            beyondR += std::fabs(v) > 3.6541528853610088;
            beyond4 += std::fabs(v) > 4.0;
            below += v < -1.0;
        }
        const double N = static_cast<double>(n);
        QVERIFY2(std::fabs(m1 / N) < 4 / std::sqrt(N), qPrintable(QString::number(m1 / N)));
        QVERIFY2(std::fabs(m2 / N - 1) < 4 * std::sqrt(2 / N), qPrintable(QString::number(m2 / N)));
        QVERIFY2(std::fabs(m4 / N - 3) < 4 * std::sqrt(96 / N), qPrintable(QString::number(m4 / N)));
        // P(|z| > 3) = 0.0026998, P(|z| > r) = 0.00025803, P(|z| > 4) = 0.000063342,
        // P(z < -1) = 0.15865525.
        const auto near = [N](int64_t count, double p) {
            return std::fabs(static_cast<double>(count) / N - p) < 4 * std::sqrt(p * (1 - p) / N);
        };
        QVERIFY2(near(beyond3, 0.0026997961), qPrintable(QString::number(beyond3 / N)));
        QVERIFY2(near(beyondR, 0.00025803249), qPrintable(QString::number(beyondR / N)));
        QVERIFY2(near(beyond4, 0.000063342), qPrintable(QString::number(beyond4 / N)));
        QVERIFY2(near(below, 0.15865525), qPrintable(QString::number(below / N)));
        // Kolmogorov-Smirnov distance against Phi, below its 0.1% critical value.
        std::sort(z.begin(), z.end());
        double distance = 0;
        for (int64_t i = 0; i < n; i += 7) {
            const double phi = 0.5 * std::erfc(-z[static_cast<size_t>(i)] / std::sqrt(2.0));
            distance = std::max({distance, std::fabs(phi - static_cast<double>(i) / N),
                                 std::fabs(phi - static_cast<double>(i + 1) / N)});
        }
        QVERIFY2(distance < 1.95 / std::sqrt(N), qPrintable(QString::number(distance)));
    }

    /// Two steps of the hand-written student update against the same two steps through
    /// autograd and torch::optim::SGD (momentum and weight decay act from the second).
    void studentStepMatchesAutogradSgd()
    {
        auto g = makeGenerator(21);
        Mlp teacher(6, std::vector<int64_t>{5}, 3), student(6, std::vector<int64_t>{5}, 3), reference(6, std::vector<int64_t>{5}, 3);
        initialiseFrom(*teacher, g);
        initialiseFrom(*student, g);
        {
            torch::NoGradGuard noGrad;
            for (auto& p : teacher->parameters())
                p.mul_(3.0);  // confident targets
            const auto from = student->parameters(), to = reference->parameters();
            for (size_t i = 0; i < from.size(); ++i)
                to[i].copy_(from[i]);
        }
        const auto calibration = torch::randn({20, 6}, g);
        const double lr = 0.3;
        MlpStudentSteps steps(*teacher, *student, calibration, 0.0, StudentSgd{0.9, 0.05}, 8, 4, false);
        torch::optim::SGD sgd(reference->parameters(), torch::optim::SGDOptions(lr).momentum(0.9).weight_decay(0.05));
        for (int step = 0; step < 2; ++step) {
            auto x = torch::empty({8, 6});
            steps.drawInputs(x, 8);
            at::Tensor target;
            {
                torch::NoGradGuard noGrad;
                target = torch::softmax(teacher->forward(x), 1);
            }
            const double loss = steps.stepOn(x, target, lr);
            sgd.zero_grad();
            auto expected = -(target * torch::log_softmax(reference->forward(x), 1)).sum(1).mean();
            expected.backward();
            sgd.step();
            QVERIFY(std::abs(loss - expected.item<double>()) < 1e-5);
            const auto mine = student->parameters(), theirs = reference->parameters();
            for (size_t i = 0; i < mine.size(); ++i)
                QVERIFY2(mine[i].allclose(theirs[i], 1e-5, 1e-6),
                         qPrintable(QString("step %1, parameter %2").arg(step).arg(i)));
        }
    }

    /// The student's gradient against a central finite difference of the distillation
    /// loss, computed independently in double precision: with no momentum, no decay and
    /// a learning rate of 1 the step is minus the gradient.
    void studentGradientMatchesFiniteDifferences()
    {
        auto g = makeGenerator(22);
        Mlp teacher(4, std::vector<int64_t>{7}, 3), student(4, std::vector<int64_t>{7}, 3);
        initialiseFrom(*teacher, g);
        initialiseFrom(*student, g);
        const auto calibration = torch::randn({9, 4}, g);
        std::vector<at::Tensor> before;
        for (const auto& p : student->parameters())
            before.push_back(p.detach().clone().to(torch::kDouble));
        MlpStudentSteps steps(*teacher, *student, calibration, 0.0, StudentSgd{0.0, 0.0}, 6, 5, false);
        auto x = torch::empty({6, 4});
        steps.drawInputs(x, 6);
        const auto target = torch::softmax(teacher->forward(x).to(torch::kDouble), 1).detach();
        steps.stepOn(x, target.to(torch::kFloat), 1.0);
        const auto xd = x.to(torch::kDouble);
        // loss(theta) for double weights [W1, b1, W2, b2].
        const auto loss = [&](const std::vector<at::Tensor>& w) {
            const auto h = torch::relu(xd.mm(w[0].t()) + w[1]);
            const auto logits = h.mm(w[2].t()) + w[3];
            return -(target * torch::log_softmax(logits, 1)).sum(1).mean().item<double>();
        };
        const auto after = student->parameters();
        double directional = 0;
        std::vector<at::Tensor> plus = before, minus = before, direction;
        const double eps = 1e-4;
        for (size_t i = 0; i < before.size(); ++i) {
            direction.push_back(torch::randn(before[i].sizes(), g, torch::kDouble));
            const auto gradient = before[i] - after[i].detach().to(torch::kDouble);
            directional += (gradient * direction[i]).sum().item<double>();
            plus[i] = before[i] + eps * direction[i];
            minus[i] = before[i] - eps * direction[i];
        }
        const double numeric = (loss(plus) - loss(minus)) / (2 * eps);
        QVERIFY2(std::abs(numeric - directional) < 1e-4 * std::max(1.0, std::abs(numeric)),
                 qPrintable(QString("finite difference %1, hand gradient %2").arg(numeric).arg(directional)));
    }

    /// D' inputs: drawn rows of the calibration set (every row about equally often) plus
    /// noise of the given standard deviation.
    void studentInputsAreNoisyRowsOfTheCalibrationSet()
    {
        Mlp teacher(3, std::vector<int64_t>{4}, 2), student(3, std::vector<int64_t>{4}, 2);
        const auto calibration = torch::arange(30, torch::kFloat).reshape({10, 3});
        MlpStudentSteps exact(*teacher, *student, calibration, 0.0, {}, 1, 7, false);
        auto x = torch::empty({5000, 3});
        exact.drawInputs(x, 5000);
        const auto row = x.select(1, 0).div(3).round().to(torch::kLong);
        QVERIFY(x.allclose(calibration.index_select(0, row)));
        const auto counts = torch::bincount(row, {}, 10);
        QVERIFY2(counts.min().item<int64_t>() > 420 && counts.max().item<int64_t>() < 580,
                 qPrintable(QString::number(counts.min().item<int64_t>())));
        MlpStudentSteps noisy(*teacher, *student, torch::zeros({10, 3}), 0.5, {}, 1, 7, false);
        auto noise = torch::empty({20000, 3});
        noisy.drawInputs(noise, 20000);
        const double sd = noise.std().item<double>();
        QVERIFY2(std::abs(sd - 0.5) < 0.01, qPrintable(QString::number(sd)));
    }

    /// The student on a second core, a step behind the teacher, gives exactly the chain
    /// and the student of the one-core run: the overlap changes the timing, not the maths.
    void overlappedDistillationEqualsTheSequentialOne()
    {
        const auto [spec, train, initial] = smallChainTask(30);
        auto config = distillationSchedule(3, 16, 1e-2, 5, 3);
        config.calibrationNoiseStd = 0.1;
        config.student = {0, 16, 0.1, LrSchedule::OneCycle, 0.9, 1e-4, {}, -1, {}};
        std::vector<std::vector<at::Tensor>> students, teachers;
        std::vector<at::Tensor> predictives;
        for (int threads : {1, 2}) {
            configureThreads(threads, ThreadLoad::Ignore);  // the count given, whatever the load
            auto g = makeGenerator(31);
            const auto run = runSgldDistillation(spec, *initial, train, train.x, train.x, config, g, {});
            students.push_back(run.student->parameters());
            teachers.push_back(run.teacher->parameters());
            predictives.push_back(run.evalPredictive);
        }
        configureThreads(1);
        for (size_t i = 0; i < students[0].size(); ++i) {
            QVERIFY(students[0][i].equal(students[1][i]));
            QVERIFY(teachers[0][i].equal(teachers[1][i]));
        }
        QVERIFY(predictives[0].equal(predictives[1]));
        QVERIFY(!students[0][0].equal(initial->parameters()[0]));
    }

    void distillationTeacherNoiseIsFreshAndScaled_data()
    {
        QTest::addColumn<int>("threads");
        QTest::newRow("one core") << 1;
        QTest::newRow("teacher and student on two") << 2;
    }
    /// The teacher's noise, drawn on the student's core two steps ahead, is the SGLD
    /// noise: at a step so small that the gradient's part is negligible (lr 1e-6: under
    /// 1% of the spread), each parameter moves by sigma times a sum of T fresh standard
    /// normals, sigma = sqrt(2 lr T / N), so the mean of (delta / sigma)^2 over the 163
    /// parameters is T = 30 (chi-square: 11% sd). Noise reused every step would give
    /// T^2 = 900, none 0, a sd off by sqrt 2 60.
    void distillationTeacherNoiseIsFreshAndScaled()
    {
        QFETCH(int, threads);
        const auto [spec, train, initial] = smallChainTask(40);
        const double lr = 1e-6;
        auto config = distillationSchedule(5, 16, lr, 1000, 1);  // 6 steps an epoch, 30 in all
        config.priorPrecision = 0;
        config.temperature = 1;
        config.student = {0, 16, 0.1, LrSchedule::OneCycle, 0.9, 1e-4, {}, -1, {}};
        configureThreads(threads, ThreadLoad::Ignore);
        auto g = makeGenerator(41);
        const auto run = runSgldDistillation(spec, *initial, train, train.x, train.x, config, g, {});
        configureThreads(1);
        const double sigma = std::sqrt(2.0 * lr / 90.0);
        double sum = 0;
        int64_t count = 0;
        const auto before = initial->parameters(), after = run.teacher->parameters();
        for (size_t i = 0; i < before.size(); ++i) {
            const auto delta = (after[i].to(at::kDouble) - before[i].to(at::kDouble)) / sigma;
            sum += delta.pow(2).sum().item<double>();
            count += delta.numel();
        }
        QCOMPARE(count, int64_t(163));
        const double meanSquare = sum / static_cast<double>(count);
        QVERIFY2(meanSquare > 30 * 0.65 && meanSquare < 30 * 1.35, qPrintable(QString::number(meanSquare)));
    }

    /// Every normal kernel this CPU runs (AVX-512, AVX2, portable) gives the same bits:
    /// the same fused multiply-adds in each, the same lanes in the same places. A
    /// portable kernel built without FMA (x86 CPUs before it) rounds products and sums
    /// apart and must come within a few ulps instead. A call's draws are whole blocks
    /// of 32, so a short call moves the stream a block.
    void normalKernelsGiveTheSameNumbers()
    {
        const int widest = NormalStream::widestKernel();
        QVERIFY(widest == 16 || widest == 8 || widest == 4);
        // The third call spans several of the narrower kernels' 64-block tiles.
        const auto draw = [](int lanes, std::vector<float>& out) {
            NormalStream stream(77);
            stream.fillWithKernel(lanes, out.data(), 1000, 0.5f, 2.0f);
            stream.fillWithKernel(lanes, out.data() + 1000, 7, 0.5f, 2.0f);
            stream.fillWithKernel(lanes, out.data() + 1007, 5000, 0.5f, 2.0f);
        };
        std::vector<float> reference(1000 + 7 + 5000), other(reference.size());
        draw(widest, reference);
        for (int lanes : {4, 8, 16}) {
            if (lanes > widest) {
                QVERIFY_THROWS_EXCEPTION(std::invalid_argument, NormalStream(77).fillWithKernel(lanes, other.data(), 1, 0, 1));
                continue;
            }
            draw(lanes, other);
            if (lanes == 4 && !NormalStream::portableKernelFuses()) {
                double worst = 0;  // in units of 2^-24 of max(1, |value|): 1-2 float ulps each
                for (size_t i = 0; i < reference.size(); ++i)
                    worst = std::max(worst, std::abs(double(other[i]) - reference[i]) /
                                                std::max(1.0, std::abs(double(reference[i]))) / 0x1.0p-24);
                qInfo("portable kernel without FMA: %.2f x 2^-24 of max(1, |value|) from the fused ones", worst);
                QVERIFY2(worst < 16, qPrintable(QString("portable kernel without FMA: %1 x 2^-24").arg(worst)));
                continue;
            }
            QVERIFY2(std::memcmp(reference.data(), other.data(), sizeof(float) * reference.size()) == 0,
                     qPrintable(QString("%1 lanes").arg(lanes)));
        }
        // 1000 values take 32 blocks (1024 draws): the next call starts at block 33.
        std::vector<float> whole(1024 + 32);
        NormalStream(77).fill(whole.data(), static_cast<int64_t>(whole.size()), 0.5f, 2.0f);
        for (int i = 0; i < 7; ++i)
            QCOMPARE(reference[static_cast<size_t>(1000 + i)], whole[static_cast<size_t>(1024 + i)]);
        QCOMPARE(reference[999], whole[999]);
        // One at a time: the values of a block in order.
        NormalStream single(77);
        for (int i = 0; i < 40; ++i)
            QCOMPARE(static_cast<float>(0.5 + 2.0 * single.next()), whole[static_cast<size_t>(i)]);
    }

    /// fill() against Box and Muller's transform in double precision from the same bits:
    /// 16 xoshiro128++ generators seeded by splitmix64 after the four words of the
    /// scalar generator; generator g's step b gives out[32 b + g] = r cos(theta) and
    /// out[32 b + 16 + g] = r sin(theta), r = sqrt(-2 ln u1), u1 = ((a >> 8) + 1) / 2^24,
    /// theta = q pi/2 + (f + 1/2) 2^-22 pi/2 - pi/4 from the next draw's top 2 bits q and
    /// next 22 f. The polynomials for ln, sin and cos must hold to a few float ulps.
    void normalStreamIsBoxMullerOfItsBits()
    {
        uint64_t seed = 2024;
        const auto splitmix = [&seed] {
            uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            return z ^ (z >> 31);
        };
        for (int i = 0; i < 4; ++i)
            splitmix();
        uint32_t state[16][4];
        for (auto& s : state)
            for (int w = 0; w < 4; w += 2) {
                const uint64_t r = splitmix();
                s[w] = static_cast<uint32_t>(r);
                s[w + 1] = static_cast<uint32_t>(r >> 32);
            }
        const auto rotate = [](uint32_t x, int k) { return (x << k) | (x >> (32 - k)); };
        const auto next = [&rotate](uint32_t* s) {
            const uint32_t result = rotate(s[0] + s[3], 7) + s[0], t = s[1] << 9;
            s[2] ^= s[0];
            s[3] ^= s[1];
            s[1] ^= s[2];
            s[0] ^= s[3];
            s[2] ^= t;
            s[3] = rotate(s[3], 11);
            return result;
        };
        const int blocks = 4096;
        std::vector<float> z(static_cast<size_t>(blocks) * 32);
        NormalStream(2024).fill(z.data(), static_cast<int64_t>(z.size()));
        const double pi = 3.14159265358979323846;
        double worst = 0;
        for (int b = 0; b < blocks; ++b)
            for (int g = 0; g < 16; ++g) {
                const uint32_t a = next(state[g]), c = next(state[g]);
                const double r = std::sqrt(-2.0 * std::log(((a >> 8) + 1.0) * 0x1.0p-24));
                const double theta = (c >> 30) * pi / 2 + (((c >> 8) & 0x3fffff) + 0.5) * 0x1.0p-22 * pi / 2 - pi / 4;
                const double expected[2] = {r * std::cos(theta), r * std::sin(theta)};
                for (int k = 0; k < 2; ++k) {
                    const double got = z[static_cast<size_t>(32 * b + 16 * k + g)];
                    // Relative to the pair's radius (sin and cos hold to an ulp of 1). Deterministic:
                    // 2.85 ulps with these polynomials fused (3.14 rounded apart, as the portable
                    // kernel is on a CPU without FMA); a 4% change in the last term of cos gives
                    // 4.05, of sin 25, one in ln's third 41.
                    worst = std::max(worst, std::fabs(got - expected[k]) / std::max(r, 1e-3));
                }
            }
        qInfo("largest error: %.2f float ulps of the radius", worst / 0x1.0p-24);
        QVERIFY2(worst < 3.5 * 0x1.0p-24, qPrintable(QString::number(worst / 0x1.0p-24) + " float ulps"));
    }

    void normalStreamIsReproducibleAndScales()
    {
        std::vector<float> a(1000), b(1000), c(1000);
        NormalStream(9).fill(a.data(), 1000);
        NormalStream(9).fill(b.data(), 1000, 2.0f, 0.5f);
        NormalStream(10).fill(c.data(), 1000);
        int differ = 0;
        for (size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(b[i], 2.0f + 0.5f * a[i]);
            differ += a[i] != c[i];
        }
        QVERIFY(differ > 990);
        // below(bound) is uniform: each of 10 values about a tenth of the time.
        NormalStream stream(3);
        std::vector<int> counts(10, 0);
        for (int i = 0; i < 100000; ++i)
            ++counts[static_cast<size_t>(stream.below(10))];
        for (int count : counts)
            QVERIFY2(std::abs(count - 10000) < 400, qPrintable(QString::number(count)));
    }

    /// Noise drawn elsewhere (the distillation's student core draws the teacher's):
    /// one step from a known state against the closed form
    ///   v = -lr (g + tau/N theta) + sqrt(2 (1-m) lr T / N) z,  theta' = theta + v,
    /// with z given for two parameters (3 values, then 5000: past the update's 4096-value
    /// blocks and its 16-value vectors); the next step draws noise of its own; the one
    /// after, given z again, adds m times the velocity before; a buffer of the wrong size
    /// is refused.
    void sghmcTakesGivenStandardNoise_data()
    {
        QTest::addColumn<double>("m");
        QTest::newRow("SGHMC, momentum 0.3") << 0.3;
        QTest::newRow("SGLD, momentum 0") << 0.0;
    }
    void sghmcTakesGivenStandardNoise()
    {
        QFETCH(double, m);
        const double lr = 0.01, tau = 2.0, n = 50.0, temperature = 0.7;
        const int64_t sizes[2] = {3, 5000};
        std::vector<torch::Tensor> params;
        std::vector<double> start, g;
        for (int64_t size : sizes) {
            auto p = torch::linspace(-1.0, 2.0, size).to(at::kFloat).requires_grad_(true);
            p.mutable_grad() = torch::linspace(0.3, -0.2, size).to(at::kFloat);
            for (int64_t i = 0; i < size; ++i) {
                start.push_back(p[i].item<float>());
                g.push_back(p.grad()[i].item<float>());
            }
            params.push_back(p);
        }
        Sghmc sampler(params, SghmcOptions(lr).momentum(m).prior_precision(tau).num_data(n).temperature(temperature),
                      makeGenerator(3));
        std::vector<float> z(start.size());
        for (size_t i = 0; i < z.size(); ++i)
            z[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)) * 2.0);
        sampler.useStandardNoise(z.data(), static_cast<int64_t>(z.size()));
        sampler.step();
        const double noiseSd = std::sqrt(2.0 * (1.0 - m) * lr * temperature / n);
        const auto value = [&](size_t i) {
            return i < 3 ? params[0][int64_t(i)].item<double>() : params[1][int64_t(i - 3)].item<double>();
        };
        std::vector<double> afterOne(start.size()), v1(start.size());
        double worst = 0;
        for (size_t i = 0; i < start.size(); ++i) {
            v1[i] = -lr * (g[i] + tau / n * start[i]) + noiseSd * z[i];
            afterOne[i] = start[i] + v1[i];
            worst = std::max(worst, std::abs(value(i) - afterOne[i]));
        }
        QVERIFY2(worst < 1e-6, qPrintable(QString("largest error %1").arg(worst)));
        // Bit for bit the scalar loop's float operations in their order, whichever CPU
        // kernel ran (no fused multiply-adds): a run's numbers do not depend on the CPU.
        const float lrF = static_cast<float>(lr), mF = static_cast<float>(m),
                    decayF = static_cast<float>(tau / n), sdF = static_cast<float>(noiseSd);
        int differ = 0;
        for (size_t i = 0; i < start.size(); ++i) {
            const float th = static_cast<float>(start[i]), gr = static_cast<float>(g[i]);
            const float eps = 0.0f + sdF * z[i];
            const float v = mF == 0.0f ? -lrF * (gr + decayF * th) + eps : mF * 0.0f - lrF * (gr + decayF * th) + eps;
            const float expected = th + v;
            const float got = i < 3 ? params[0][int64_t(i)].item<float>() : params[1][int64_t(i - 3)].item<float>();
            differ += std::memcmp(&expected, &got, sizeof got) != 0;
        }
        QCOMPARE(differ, 0);
        // The next step's noise is the sampler's own: neither z again nor none.
        sampler.step();
        int asGiven = 0, noiseless = 0;
        for (size_t i = 0; i < start.size(); ++i) {
            const double drift = m * v1[i] - lr * (g[i] + tau / n * afterOne[i]);
            asGiven += std::abs(value(i) - (afterOne[i] + drift + noiseSd * z[i])) < 1e-6;
            noiseless += std::abs(value(i) - (afterOne[i] + drift)) < 1e-6;
        }
        QVERIFY2(asGiven < 50 && noiseless < 50, qPrintable(QString("%1 %2").arg(asGiven).arg(noiseless)));
        // A third step with z again carries the second step's velocity, read off the values.
        std::vector<double> afterTwo(start.size());
        for (size_t i = 0; i < start.size(); ++i)
            afterTwo[i] = value(i);
        sampler.useStandardNoise(z.data(), static_cast<int64_t>(z.size()));
        sampler.step();
        worst = 0;
        for (size_t i = 0; i < start.size(); ++i) {
            const double v2 = afterTwo[i] - afterOne[i];
            const double v3 = m * v2 - lr * (g[i] + tau / n * afterTwo[i]) + noiseSd * z[i];
            worst = std::max(worst, std::abs(value(i) - (afterTwo[i] + v3)));
        }
        QVERIFY2(worst < 1e-6, qPrintable(QString("third step: largest error %1").arg(worst)));
        sampler.useStandardNoise(z.data(), static_cast<int64_t>(z.size()) - 1);
        QVERIFY_THROWS_EXCEPTION(c10::Error, sampler.step());
        sampler.useStandardNoise(z.data(), static_cast<int64_t>(z.size()) + 1);  // z has room: still refused
        QVERIFY_THROWS_EXCEPTION(c10::Error, sampler.step());
    }

    /// The student's core draws the teacher's noise two steps ahead: with the overlap the
    /// buffer the sampler gets for each step holds exactly the one-core run's values, and
    /// fresh ones every step; a step out of turn is refused.
    void teacherNoiseIsTheSameWithAndWithoutOverlap()
    {
        auto g = makeGenerator(23);
        Mlp teacher(6, std::vector<int64_t>{5}, 3), student(6, std::vector<int64_t>{5}, 3);
        const auto calibration = torch::randn({40, 6}, g);
        const int64_t count = 6 * 5 + 5 + 5 * 3 + 3;
        std::vector<std::vector<float>> seen[2];
        for (int overlap = 0; overlap < 2; ++overlap) {
            Mlp t(6, std::vector<int64_t>{5}, 3), s(6, std::vector<int64_t>{5}, 3);
            {
                torch::NoGradGuard noGrad;
                for (size_t i = 0; i < t->parameters().size(); ++i) {
                    t->parameters()[i].copy_(teacher->parameters()[i]);
                    s->parameters()[i].copy_(student->parameters()[i]);
                }
            }
            MlpStudentSteps steps(*t, *s, calibration, 0.1, StudentSgd{0.9, 1e-4}, 8, 11, overlap == 1, true);
            for (long long step = 1; step <= 6; ++step) {
                const float* noise = steps.teacherNoiseFor(step, count);
                QVERIFY(noise != nullptr);
                seen[overlap].emplace_back(noise, noise + count);
                steps.submit(8, 0.01);
            }
            steps.drain();
            QVERIFY_THROWS_EXCEPTION(c10::Error, steps.teacherNoiseFor(9, count));
            QVERIFY_THROWS_EXCEPTION(c10::Error, steps.teacherNoiseFor(7, count + 1));
        }
        for (size_t k = 0; k < seen[0].size(); ++k) {
            QVERIFY(seen[0][k] == seen[1][k]);
            if (k > 0)
                QVERIFY(seen[0][k] != seen[0][k - 1]);
        }
        QVERIFY(seen[0][0] != seen[0][3]);  // the buffer of step 1, drawn again for step 4
    }

    void sgmcmcRecoversConjugatePosterior_data()
    {
        QTest::addColumn<double>("momentum");
        QTest::newRow("SGHMC") << 0.5;
        QTest::newRow("SGLD") << 0.0;
    }
    void sgmcmcRecoversConjugatePosterior()
    {
        QFETCH(double, momentum);
        const auto c = makeConjugate();
        const double n = static_cast<double>(c.X.size(0));
        auto w = torch::zeros({2}, torch::dtype(torch::kDouble).requires_grad(true));
        auto gen = makeGenerator(7);
        // The sampler sees the mean NLL gradient; the likelihood is Gaussian with sd sigma.
        Sghmc sampler({w}, SghmcOptions(0.02).momentum(momentum).prior_precision(c.tau).num_data(n), gen);
        std::vector<torch::Tensor> samples;
        for (int it = 0; it < 60000; ++it) {
            sampler.zero_grad();
            auto r = c.y - c.X.mv(w);
            auto meanNll = (r * r).sum() / (2 * c.sigma * c.sigma * n);
            meanNll.backward();
            sampler.step();
            if (it >= 2000 && it % 5 == 0)
                samples.push_back(w.detach().clone());
        }
        auto s = torch::stack(samples);
        auto mean = s.mean(0);
        auto centred = s - mean;
        auto cov = centred.t().mm(centred) / static_cast<double>(s.size(0) - 1);
        // Posterior sds are ~0.07; the Monte Carlo error of the mean over ~11600 correlated
        // draws is well under 0.01, discretisation bias of lr 0.02/N is a few percent.
        for (int i = 0; i < 2; ++i) {
            QVERIFY2(std::abs(mean[i].item<double>() - c.mean[i].item<double>()) < 0.015,
                     qPrintable(QString("mean[%1] %2 vs exact %3").arg(i).arg(mean[i].item<double>()).arg(c.mean[i].item<double>())));
            const double exactVar = c.cov[i][i].item<double>();
            const double var = cov[i][i].item<double>();
            QVERIFY2(std::abs(var / exactVar - 1.0) < 0.2,
                     qPrintable(QString("var[%1] %2 vs exact %3").arg(i).arg(var).arg(exactVar)));
        }
        // A sampler that ignores the injected noise collapses to the mode: variance ~ 0.
        QVERIFY(cov[0][0].item<double>() > 0.5 * c.cov[0][0].item<double>());
    }

    void bbviLandsNearExactPosteriorMean()
    {
        // Linear "network" = BayesLinear with 1 output as regression mean: train the
        // variational Gaussian on the same conjugate model by hand (local reparam).
        const auto c = makeConjugate();
        const double n = static_cast<double>(c.X.size(0));
        BayesLinear layer(2, 1, -9.0);
        {
            torch::NoGradGuard g;
            layer->biasMean.zero_();
            layer->biasLogVar.fill_(-30.0);  // effectively no bias
        }
        auto x = c.X.to(torch::kFloat), y = c.y.to(torch::kFloat);
        NormalStream noise(3);
        torch::optim::Adam adam({layer->weightMean, layer->weightLogVar}, torch::optim::AdamOptions(0.01));
        for (int it = 0; it < 4000; ++it) {
            adam.zero_grad();
            auto out = layer->forwardLocalAutograd(x, noise).squeeze(1);
            auto nll = (y - out).pow(2).sum() / (2 * c.sigma * c.sigma * n);
            // KL of the weights only (bias pinned).
            auto mu = layer->weightMean, lv = layer->weightLogVar;
            auto kl = 0.5 * (c.tau * lv.exp() + c.tau * mu.pow(2) - 1.0 - std::log(c.tau) - lv).sum();
            (nll + kl / n).backward();
            adam.step();
        }
        for (int i = 0; i < 2; ++i)
            QVERIFY2(std::abs(layer->weightMean[0][i].item<double>() - c.mean[i].item<double>()) < 0.03,
                     qPrintable(QString("BBVI mean[%1] %2 vs exact %3")
                                    .arg(i).arg(layer->weightMean[0][i].item<double>()).arg(c.mean[i].item<double>())));
    }

    void sgmcmcWithoutDataSamplesThePrior_data()
    {
        QTest::addColumn<double>("momentum");
        QTest::addColumn<double>("priorPrecision");
        QTest::addColumn<double>("numData");
        QTest::newRow("SGHMC, tau 2, N 10") << 0.5 << 2.0 << 10.0;
        QTest::newRow("SGLD, tau 2, N 10") << 0.0 << 2.0 << 10.0;
        QTest::newRow("SGHMC, tau 0.5, N 1") << 0.5 << 0.5 << 1.0;
        QTest::newRow("SGLD, tau 0.5, N 1") << 0.0 << 0.5 << 1.0;
    }
    void sgmcmcWithoutDataSamplesThePrior()
    {
        // With a zero likelihood gradient the target is the prior N(0, 1/tau) itself, and
        // only the sampler's (tau/N) theta term keeps the chain there: without it the chain
        // is a random walk whose variance grows without bound, with its sign flipped it
        // diverges. 2000 coordinates are 2000 independent chains, started away from 0.
        QFETCH(double, momentum);
        QFETCH(double, priorPrecision);
        QFETCH(double, numData);
        const int chains = 2000;
        auto theta = torch::full({chains}, 1.5, torch::dtype(torch::kDouble).requires_grad(true));
        theta.mutable_grad() = torch::zeros_like(theta);
        // Step size lr/N with lr tau/N = 0.02 in every row (so the rows differ only in where
        // tau and N enter): the discretisation inflates the variance by about 1%; the
        // relaxation time is about 50 steps.
        const double lr = 0.02 * numData / priorPrecision;
        auto gen = makeGenerator(101);
        Sghmc sampler({theta}, SghmcOptions(lr).momentum(momentum).prior_precision(priorPrecision).num_data(numData),
                      gen);
        std::vector<torch::Tensor> draws;
        for (int it = 1; it <= 4500; ++it) {
            sampler.step();
            if (it > 500 && it % 10 == 0)
                draws.push_back(theta.detach().clone());
        }
        auto s = torch::stack(draws);
        const double mean = s.mean().item<double>(), var = s.var().item<double>();
        const double priorVar = 1.0 / priorPrecision;
        // About 80000 effectively independent draws: Monte Carlo errors of ~0.4% of the
        // variance and ~0.004 sd on the mean.
        QVERIFY2(std::abs(mean) < 0.03 * std::sqrt(priorVar), qPrintable(QString("mean %1, prior mean 0").arg(mean)));
        QVERIFY2(std::abs(var / priorVar - 1.0) < 0.05,
                 qPrintable(QString("variance %1, prior variance %2").arg(var).arg(priorVar)));
    }

    void sgmcmcWeighsPriorAndDataAlike_data()
    {
        QTest::addColumn<double>("momentum");
        QTest::newRow("SGHMC") << 0.5;
        QTest::newRow("SGLD") << 0.0;
    }
    void sgmcmcWeighsPriorAndDataAlike()
    {
        // Three points of a linear-Gaussian model (noise sd 1) and a prior of precision 2:
        // the posterior precision tau I + X^T X = [[4.25, 1], [1, 4.25]] is half prior, so
        // dropping the prior moves the mean and doubles the variance. Worked by hand:
        //   X^T X = [[2.25, 1], [1, 2.25]], X^T y = [2.5, 0.5],
        //   cov = [[4.25, -1], [-1, 4.25]] / 17.0625, mean = cov X^T y.
        const double xs[3][2] = {{1.0, 0.5}, {-0.5, 1.0}, {1.0, 1.0}};
        const double ys[3] = {1.0, -1.0, 1.0};
        const double tau = 2.0, n = 3.0;
        const double det = 4.25 * 4.25 - 1.0;
        const double exactCov[2][2] = {{4.25 / det, -1.0 / det}, {-1.0 / det, 4.25 / det}};
        const double xty[2] = {1.0 * 1.0 - 0.5 * -1.0 + 1.0 * 1.0, 0.5 * 1.0 + 1.0 * -1.0 + 1.0 * 1.0};
        const double exactMean[2] = {exactCov[0][0] * xty[0] + exactCov[0][1] * xty[1],
                                     exactCov[1][0] * xty[0] + exactCov[1][1] * xty[1]};
        QFETCH(double, momentum);
        auto X = torch::from_blob(const_cast<double*>(&xs[0][0]), {3, 2}, torch::kDouble).clone();
        auto y = torch::from_blob(const_cast<double*>(ys), {3}, torch::kDouble).clone();
        const auto xtx = X.t().mm(X), xtyT = X.t().mv(y);
        // 1000 independent chains as the rows of w; the mean NLL gradient is written by hand.
        const int chains = 1000;
        auto w = torch::zeros({chains, 2}, torch::dtype(torch::kDouble).requires_grad(true));
        w.mutable_grad() = torch::zeros_like(w);
        // Step lr/N = 0.004: lr/N times the largest posterior precision 5.25 is 0.021.
        auto gen = makeGenerator(202);
        Sghmc sampler({w}, SghmcOptions(0.004 * n).momentum(momentum).prior_precision(tau).num_data(n), gen);
        std::vector<torch::Tensor> draws;
        for (int it = 1; it <= 4000; ++it) {
            {
                torch::NoGradGuard g;
                w.mutable_grad().copy_((w.mm(xtx) - xtyT) / n);
            }
            sampler.step();
            if (it > 1000 && it % 10 == 0)
                draws.push_back(w.detach().clone());
        }
        auto s = torch::stack(draws).reshape({-1, 2});
        auto mean = s.mean(0);
        auto centred = s - mean;
        auto cov = centred.t().mm(centred) / static_cast<double>(s.size(0) - 1);
        // Posterior sds ~0.5; ~40000 effective draws.
        for (int i = 0; i < 2; ++i) {
            QVERIFY2(std::abs(mean[i].item<double>() - exactMean[i]) < 0.02,
                     qPrintable(QString("mean[%1] %2 vs exact %3").arg(i).arg(mean[i].item<double>()).arg(exactMean[i])));
            for (int j = 0; j < 2; ++j)
                QVERIFY2(std::abs(cov[i][j].item<double>() - exactCov[i][j]) < 0.012,
                         qPrintable(QString("cov[%1][%2] %3 vs exact %4")
                                        .arg(i).arg(j).arg(cov[i][j].item<double>()).arg(exactCov[i][j])));
        }
    }

    void sgmcmcCollectsExactlyTheScheduledDraws_data()
    {
        QTest::addColumn<int>("burnIn");
        QTest::addColumn<int>("thinning");
        QTest::addColumn<int>("samples");
        QTest::newRow("burn-in 7, thinning 3, 4 samples") << 7 << 3 << 4;
        QTest::newRow("no burn-in, every step, 5 samples") << 0 << 1 << 5;
        QTest::newRow("burn-in 5, thinning 4, 1 sample") << 5 << 4 << 1;
    }
    void sgmcmcCollectsExactlyTheScheduledDraws()
    {
        // Draws are taken after steps B + T, B + 2T, ..., B + S T, and the predictive is the
        // mean of exactly those. The chain is replayed step by step (same seed, same
        // sampler) so each visited draw is checked against the network after that step.
        QFETCH(int, burnIn);
        QFETCH(int, thinning);
        QFETCH(int, samples);
        SgmcmcConfig config;
        config.learningRate = 0.05;  // large steps: every step visibly changes the output
        config.burnIn = burnIn;
        config.thinning = thinning;
        config.samples = samples;
        auto dataGen = makeGenerator(8);
        TrainingSet data{torch::randn({12, 2}, dataGen), torch::randint(0, 3, {12}, dataGen, torch::kLong)};
        auto evalInputs = torch::randn({5, 2}, dataGen);
        auto freshNet = [] {
            Mlp net(2, std::vector<int64_t>{6}, 3);
            auto g = makeGenerator(9);
            initialiseFrom(*net, g);
            return net;
        };

        std::vector<long long> iterations;
        std::vector<torch::Tensor> visited;
        auto gen = makeGenerator(10);
        const auto out = runSgmcmc(freshNet(), data, evalInputs, config, gen, {}, "sghmc",
                                   [&](long long it, const torch::Tensor& probs) {
                                       iterations.push_back(it);
                                       visited.push_back(probs.clone());
                                   });
        std::vector<long long> expected;
        for (int k = 1; k <= samples; ++k)
            expected.push_back(burnIn + static_cast<long long>(k) * thinning);
        auto listed = [](const std::vector<long long>& v) {
            QStringList s;
            for (auto i : v)
                s << QString::number(i);
            return s.join(", ");
        };
        QVERIFY2(iterations == expected, qPrintable(QString("draws after steps [%1], expected [%2]")
                                                        .arg(listed(iterations), listed(expected))));

        // The predictive is their mean, accumulated in double and returned as float.
        auto mean = torch::zeros({5, 3}, torch::kDouble);
        for (const auto& p : visited)
            mean += p.to(torch::kDouble);
        mean /= static_cast<double>(samples);
        QVERIFY2(torch::allclose(out.predictive.to(torch::kDouble), mean, 0, 1e-6),
                 qPrintable(QString("max diff %1").arg((out.predictive.to(torch::kDouble) - mean).abs().max().item<double>())));

        // Replay: the same sampler on the same network and noise, softmax after every step.
        Mlp net = freshNet();
        FlatParameters flat(*net);
        auto replayGen = makeGenerator(10);
        Sghmc sampler({flat.tensor()},
                      SghmcOptions(config.learningRate).momentum(config.momentum).prior_precision(config.priorPrecision)
                          .num_data(12.0),
                      replayGen);
        std::vector<torch::Tensor> after{torch::softmax(traceMlp(*net, evalInputs).logits, 1)};  // after[t]: after step t
        for (long long t = 1; t <= expected.back(); ++t) {
            auto trace = traceMlp(*net, data.x);
            setMlpGradients(*net, trace, backpropagateMlp(*net, trace, crossEntropyWithGradient(trace.logits, data.y).second));
            sampler.step();
            after.push_back(torch::softmax(traceMlp(*net, evalInputs).logits, 1));
        }
        for (int k = 0; k < samples; ++k) {
            const auto t = expected[static_cast<size_t>(k)];
            QVERIFY2(torch::allclose(visited[static_cast<size_t>(k)], after[static_cast<size_t>(t)], 0, 1e-6),
                     qPrintable(QString("draw %1 is not the network after step %2").arg(k).arg(t)));
            // One step earlier or later is a different network: the check can tell them apart.
            QVERIFY((after[static_cast<size_t>(t)] - after[static_cast<size_t>(t - 1)]).abs().max().item<double>() > 1e-3);
        }
    }

    void chainKeepsTheLastSamplesAndVisitsEveryRowOncePerEpoch_data()
    {
        QTest::addColumn<int>("keepLast");
        QTest::addColumn<double>("expectedMean");
        // 10 rows in batches of 4: 3 steps an epoch; 8 steps; burn-in 3, thinning 2: samples
        // after steps 5 and 7. A fake network reports the step as its "probabilities".
        QTest::newRow("all samples: (5 + 7) / 2") << 0 << 6.0;
        QTest::newRow("the last one: 7") << 1 << 7.0;
    }
    void chainKeepsTheLastSamplesAndVisitsEveryRowOncePerEpoch()
    {
        QFETCH(int, keepLast);
        QFETCH(double, expectedMean);
        struct Counting : ChainNetwork {
            torch::Tensor theta = torch::zeros({1}).requires_grad_();
            long long steps = 0;
            std::vector<std::vector<int64_t>> rows{{}};  // rows seen, per epoch
            int torn = 0;  // rows whose columns or label are not row i's
            std::vector<at::Tensor> parameters() override { return {theta}; }
            double potentialAndGradient(const at::Tensor& x, const at::Tensor& y) override
            {
                ++steps;
                for (int64_t i = 0; i < x.size(0); ++i) {
                    const auto row = static_cast<int64_t>(x[i][0].item<float>());
                    rows.back().push_back(row);
                    if (x[i][1].item<float>() != static_cast<float>(100 + row) || y[i].item<int64_t>() != row)
                        ++torn;
                }
                theta.mutable_grad() = torch::zeros({1});
                return 0.0;
            }
            at::Tensor probabilities(const at::Tensor&) override
            {
                return torch::full({1, 1}, static_cast<double>(steps));
            }
        } network;
        // Row i is (i, 100 + i) with label i: a minibatch must bring whole rows with their labels.
        const auto i = torch::arange(10, torch::kFloat);
        TrainingSet data{torch::stack({i, i + 100}, 1), torch::arange(10, torch::kLong)};
        ChainConfig config;
        config.batchSize = 4;
        config.steps = 8;
        config.burnIn = 3;
        config.thinning = 2;
        config.keepLast = keepLast;
        ChainHooks hooks;
        std::vector<int> epochsSeen;
        hooks.onEpoch = [&](int epoch) {
            epochsSeen.push_back(epoch);
            network.rows.emplace_back();
        };
        auto gen = makeGenerator(4);
        const auto run = runChain(network, data, torch::zeros({1, 1}), config, gen, {}, "sghmc", hooks);
        QCOMPARE(network.steps, 8LL);
        QCOMPARE(run.predictive.item<double>(), expectedMean);
        QCOMPARE(run.samplesKept, keepLast > 0 ? 1 : 2);
        QCOMPARE(epochsSeen, (std::vector<int>{1, 2, 3}));  // 3 + 3 + 2 steps
        for (int e = 0; e < 2; ++e) {
            auto seen = network.rows[static_cast<size_t>(e)];
            std::sort(seen.begin(), seen.end());
            QCOMPARE(seen, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
        }
        QCOMPARE(network.rows[2].size(), size_t{8});  // the third epoch stops after 2 batches of 4
        QCOMPARE(network.torn, 0);
    }

};

QTEST_APPLESS_MAIN(TestSgmcmc)
#include "tst_sgmcmc.moc"
