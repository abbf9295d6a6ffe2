// Posterior approximations: samplers against a known posterior, hand-written gradients
// against autograd, KFAC factors against brute force, Laplace samples' covariance.
#include <cmath>
#include <limits>

#include <QtTest/QtTest>

#include <torch/torch.h>

#include "engine/core/thin_gemm.h"
#include "engine/core/threads.h"
#include "engine/fastpath/mlp_backward.h"
#include "engine/inference/methods.h"
#include "engine/inference/sghmc.h"
#include "engine/models/mlp.h"

using namespace lcs;

namespace {

/// E[sigmoid(d)] for d ~ N(mean, variance), by the trapezoid rule over 12 standard
/// deviations in plain doubles: the exact two-class predictive of a Gaussian logit gap.
double expectedSigmoid(double mean, double variance)
{
    const double sd = std::sqrt(variance);
    const int steps = 4800;
    const double lo = -12.0, h = 24.0 / steps;
    double sum = 0;
    for (int i = 0; i <= steps; ++i) {
        const double t = lo + i * h;
        const double weight = (i == 0 || i == steps) ? 0.5 : 1.0;
        sum += weight * std::exp(-0.5 * t * t) / (1.0 + std::exp(-(mean + sd * t)));
    }
    return sum * h / std::sqrt(2.0 * M_PI);
}

} // namespace

class TestInference : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { lcs::configureThreads(1); }

    void bbviPredictiveIsTheGaussianExpectation()
    {
        // Through the real runBbvi, without training: a linear softmax model (no hidden
        // layer) with every weight and bias variance 1/4 (sd 1/2; taking the variance for
        // the sd would halve it). The two-class predictive at
        // x is E[sigmoid(z1 - z0)] with z1 - z0 Gaussian, mean (mu_1 - mu_0).x + mb_1 - mb_0
        // and variance sum_j x_j^2 (s2_1j + s2_0j) + s2_b1 + s2_b0, computed here by quadrature.
        BbviConfig config;
        config.iterations = 0;
        config.initialLogVariance = std::log(0.25);
        config.samples = 20000;
        TrainingSet data{torch::zeros({1, 2}), torch::zeros({1}, torch::kLong)};
        // The origin and two rings: far from it the mean gap grows like |x| and its sd like
        // sqrt(1 + |x|^2), so the predictive there is most sensitive to the sd.
        auto evalInputs = torch::tensor({{0.0f, 0.0f}, {2.0f, 0.0f}, {0.0f, 2.0f}, {-2.0f, 0.0f}, {0.0f, -2.0f},
                                         {5.0f, 0.0f}, {3.5f, 3.5f}, {0.0f, 5.0f}, {-3.5f, 3.5f},
                                         {-5.0f, 0.0f}, {-3.5f, -3.5f}, {0.0f, -5.0f}, {3.5f, -3.5f}});
        auto gen = makeGenerator(12);
        const auto out = runBbvi(2, {}, 2, data, evalInputs, config, gen, {});
        auto net = std::dynamic_pointer_cast<BayesMlpImpl>(out.model);
        QVERIFY(net && net->layers.size() == 1);
        const auto& l = net->layers[0];
        auto mu = l->weightMean.to(torch::kDouble), s2 = l->weightLogVar.exp().to(torch::kDouble);
        auto mb = l->biasMean.to(torch::kDouble), s2b = l->biasLogVar.exp().to(torch::kDouble);
        double largestGap = 0;  // between the right answer and the variance used as sd
        for (int64_t i = 0; i < evalInputs.size(0); ++i) {
            double mean = mb[1].item<double>() - mb[0].item<double>();
            double var = s2b[1].item<double>() + s2b[0].item<double>();
            double varIfSdWereVar = std::pow(s2b[1].item<double>(), 2) + std::pow(s2b[0].item<double>(), 2);
            for (int j = 0; j < 2; ++j) {
                const double x = evalInputs[i][j].item<double>();
                mean += x * (mu[1][j].item<double>() - mu[0][j].item<double>());
                var += x * x * (s2[1][j].item<double>() + s2[0][j].item<double>());
                varIfSdWereVar += x * x * (std::pow(s2[1][j].item<double>(), 2) + std::pow(s2[0][j].item<double>(), 2));
            }
            const double exact = expectedSigmoid(mean, var);
            const double got = out.predictive[i][1].item<double>();
            largestGap = std::max(largestGap, std::abs(expectedSigmoid(mean, varIfSdWereVar) - exact));
            // 20000 draws: Monte Carlo sd at most 0.5 / sqrt(20000) = 0.0035.
            QVERIFY2(std::abs(got - exact) < 0.012,
                     qPrintable(QString("x %1: predictive %2, exact %3").arg(i).arg(got).arg(exact)));
        }
        // The check above can tell sd 1/2 from sd 1/4 at these points.
        QVERIFY2(largestGap > 0.05, qPrintable(QString("largest gap %1").arg(largestGap)));
    }

    void bayesLinearSampledOutputsHaveTheLayersMoments()
    {
        // forwardSampled draws one weight sample shared by all rows, so for inputs x, x' and
        // output j (closed form, per weight variance s2 and bias variance s2b):
        //   E[out_j(x)] = mu_j . x + mb_j,
        //   Cov[out_j(x), out_j(x')] = sum_k x_k x'_k s2_jk + s2b_j.
        // The variances below are all != 1, so using a variance as the sd on either the
        // weight or the bias line changes them; x = 0 isolates the bias.
        BayesLinear layer(2, 3, 0.0);
        const double mu[3][2] = {{0.5, -1.0}, {0.0, 2.0}, {-1.5, 0.3}};
        const double s2[3][2] = {{0.25, 4.0}, {2.0, 0.5}, {3.0, 0.2}};
        const double mb[3] = {1.0, -0.5, 0.0};
        const double s2b[3] = {4.0, 0.25, 2.0};
        {
            torch::NoGradGuard g;
            for (int j = 0; j < 3; ++j) {
                for (int k = 0; k < 2; ++k) {
                    layer->weightMean[j][k] = mu[j][k];
                    layer->weightLogVar[j][k] = std::log(s2[j][k]);
                }
                layer->biasMean[j] = mb[j];
                layer->biasLogVar[j] = std::log(s2b[j]);
            }
        }
        const double xs[3][2] = {{0.0, 0.0}, {1.0, -2.0}, {0.5, 0.5}};
        auto x = torch::tensor({{0.0f, 0.0f}, {1.0f, -2.0f}, {0.5f, 0.5f}});
        auto gen = makeGenerator(37);
        const int draws = 20000;
        std::vector<torch::Tensor> outs;
        for (int d = 0; d < draws; ++d)
            outs.push_back(layer->forwardSampled(x, gen).to(torch::kDouble));
        auto s = torch::stack(outs);  // [draws, rows, outputs]
        auto mean = s.mean(0);
        auto centred = s - mean;
        for (int j = 0; j < 3; ++j) {
            for (int r = 0; r < 3; ++r) {
                const double exactMean = mu[j][0] * xs[r][0] + mu[j][1] * xs[r][1] + mb[j];
                const double exactVar = xs[r][0] * xs[r][0] * s2[j][0] + xs[r][1] * xs[r][1] * s2[j][1] + s2b[j];
                // 20000 draws: the mean to 0.007 sd, covariances to ~1% of sd x sd.
                QVERIFY2(std::abs(mean[r][j].item<double>() - exactMean) < 0.04 * std::sqrt(exactVar),
                         qPrintable(QString("output %1 at x %2: mean %3, exact %4").arg(j).arg(r)
                                        .arg(mean[r][j].item<double>()).arg(exactMean)));
                for (int r2 = 0; r2 < 3; ++r2) {
                    const double exactCov =
                        xs[r][0] * xs[r2][0] * s2[j][0] + xs[r][1] * xs[r2][1] * s2[j][1] + s2b[j];
                    const double exactVar2 =
                        xs[r2][0] * xs[r2][0] * s2[j][0] + xs[r2][1] * xs[r2][1] * s2[j][1] + s2b[j];
                    const double cov =
                        (centred.select(2, j).select(1, r) * centred.select(2, j).select(1, r2)).sum().item<double>()
                        / (draws - 1.0);
                    QVERIFY2(std::abs(cov - exactCov) < 0.05 * std::sqrt(exactVar * exactVar2),
                             qPrintable(QString("output %1, x %2 and x %3: covariance %4, exact %5")
                                            .arg(j).arg(r).arg(r2).arg(cov).arg(exactCov)));
                }
            }
        }
    }

    void kfacSampledFisherIsTheExpectationOverTheModelsLabels()
    {
        // G of the true Fisher is E_x E_{y~p(y|x)}[g g^T]. Enumerating the classes by hand:
        // on the logits g = p - e_y, so the last layer's G is mean_n (diag p_n - p_n p_n^T);
        // the hidden layer's g is relu'(s_n) * W2^T (p_n - e_y).
        auto gen = makeGenerator(19);
        Mlp net(3, std::vector<int64_t>{4}, 3);
        initialiseFrom(*net, gen);
        const int64_t rows = 10;
        auto x = 2.0 * torch::randn({rows, 3}, gen, torch::kFloat);
        const int draws = 2000;
        const auto factors = kfacSampledFisherFactors(net, x, draws, gen);
        QCOMPARE(factors.size(), size_t(2));

        auto layers = net->linearLayers();
        auto W1 = layers[0]->weight.detach().to(torch::kDouble), b1 = layers[0]->bias.detach().to(torch::kDouble);
        auto W2 = layers[1]->weight.detach().to(torch::kDouble), b2 = layers[1]->bias.detach().to(torch::kDouble);
        auto xd = x.to(torch::kDouble);
        auto A1 = torch::zeros({4, 4}, torch::kDouble), A2 = torch::zeros({5, 5}, torch::kDouble);
        auto G1 = torch::zeros({4, 4}, torch::kDouble), G2 = torch::zeros({3, 3}, torch::kDouble);
        for (int64_t n = 0; n < rows; ++n) {
            auto s = W1.mv(xd[n]) + b1;
            auto h = s.clamp_min(0);
            auto p = torch::softmax(W2.mv(h) + b2, 0);
            auto a1 = torch::cat({xd[n], torch::ones({1}, torch::kDouble)});
            auto a2 = torch::cat({h, torch::ones({1}, torch::kDouble)});
            A1 += torch::outer(a1, a1);
            A2 += torch::outer(a2, a2);
            for (int64_t y = 0; y < 3; ++y) {
                auto g2 = p.clone();
                g2[y] -= 1.0;
                auto g1 = W2.t().mv(g2) * s.gt(0).to(torch::kDouble);
                const double py = p[y].item<double>();
                G2 += py * torch::outer(g2, g2);
                G1 += py * torch::outer(g1, g1);
            }
        }
        const double nd = static_cast<double>(rows);
        const torch::Tensor exactA[2] = {A1 / nd, A2 / nd}, exactG[2] = {G1 / nd, G2 / nd};
        for (size_t l = 0; l < 2; ++l) {
            QVERIFY2(torch::allclose(factors[l].A.to(torch::kDouble), exactA[l], 1e-5, 1e-5),
                     qPrintable(QString("A of layer %1").arg(l)));
            // 20000 labels per layer: entry errors ~0.003. One draw (errors ~0.1), a sum over
            // the draws (x2000) or the training labels would all be far off.
            const double err = (factors[l].G.to(torch::kDouble) - exactG[l]).abs().max().item<double>();
            QVERIFY2(err < 0.015, qPrintable(QString("G of layer %1: max error %2 (largest entry %3)")
                                                 .arg(l).arg(err).arg(exactG[l].abs().max().item<double>())));
        }
    }

    void kfacPrecisionMatchesDenseLaplace_data()
    {
        QTest::addColumn<double>("tau");
        QTest::newRow("tau -> 0: N times the dense Fisher") << 1e-8;
        QTest::newRow("tau 1: damped as Ritter et al.") << 1.0;
    }
    void kfacPrecisionMatchesDenseLaplace()
    {
        // A one-layer softmax net on N = 16 copies of one input, where KFAC is exact: the
        // dense Fisher of one point, enumerated over the classes, is
        //   F = sum_y p_y vec(g_y a^T) vec(g_y a^T)^T = (a a^T) (x) E[g g^T],  g_y = p - e_y,
        // and the Laplace precision N F + tau I. KFAC's (sqrt(N) A + sqrt(tau) I) (x)
        // (sqrt(N) G + sqrt(tau) I) equals N A (x) G + sqrt(N tau) (A (x) I + I (x) G) + tau I.
        // The training labels are the model's least likely class, so an empirical Fisher
        // (on those labels) is far from the true one.
        QFETCH(double, tau);
        const int64_t n = 16;
        Mlp net(2, std::vector<int64_t>{}, 3);
        {
            torch::NoGradGuard g;
            auto layer = net->linearLayers()[0];
            layer->weight.copy_(torch::tensor({{1.0f, -0.5f}, {0.2f, 0.8f}, {-1.0f, 0.3f}}));
            layer->bias.copy_(torch::tensor({0.1f, -0.2f, 0.3f}));
        }
        const double x0[2] = {1.0, -0.5};
        // Hand: logits (1.35, -0.4, -0.85) -> p ~ (0.79, 0.14, 0.09); class 2 least likely.
        double logits[3] = {1.0 * x0[0] - 0.5 * x0[1] + 0.1, 0.2 * x0[0] + 0.8 * x0[1] - 0.2,
                            -1.0 * x0[0] + 0.3 * x0[1] + 0.3};
        double z = 0, p[3];
        for (double l : logits)
            z += std::exp(l);
        for (int k = 0; k < 3; ++k)
            p[k] = std::exp(logits[k]) / z;
        TrainingSet data{torch::tensor({float(x0[0]), float(x0[1])}).repeat({n, 1}), torch::full({n}, 2, torch::kLong)};

        KfacConfig config;
        config.map.iterations = 0;  // keep the weights above as the "MAP"
        config.map.priorPrecision = tau;
        config.fisherLabelDraws = 2000;  // 32000 labels: G to ~1%
        auto gen = makeGenerator(29);
        const auto posterior = fitKfacLaplace(net, data, config, gen, {});
        QCOMPARE(posterior.size(), size_t(1));
        QVERIFY(torch::allclose(posterior[0].mean, torch::tensor({{1.0f, -0.5f, 0.1f}, {0.2f, 0.8f, -0.2f},
                                                                  {-1.0f, 0.3f, 0.3f}})));
        const auto kfac = torch::kron(posterior[0].aTilde, posterior[0].gTilde);

        // Dense Laplace by enumeration, in vec_col([W b]) order: entry j*3 + i is W~[i][j].
        const double a[3] = {x0[0], x0[1], 1.0};
        double dense[9][9] = {}, ggT[3][3] = {};
        for (int y = 0; y < 3; ++y) {
            double g[3] = {p[0], p[1], p[2]};
            g[y] -= 1.0;
            for (int r = 0; r < 3; ++r)
                for (int c = 0; c < 3; ++c)
                    ggT[r][c] += p[y] * g[r] * g[c];
            double v[9];
            for (int j = 0; j < 3; ++j)
                for (int i = 0; i < 3; ++i)
                    v[j * 3 + i] = g[i] * a[j];
            for (int r = 0; r < 9; ++r)
                for (int c = 0; c < 9; ++c)
                    dense[r][c] += n * p[y] * v[r] * v[c];
        }
        // Expected: N F + tau I, plus KFAC's cross terms sqrt(N tau) (A (x) I + I (x) G).
        double maxErr = 0, maxEntry = 0;
        for (int r = 0; r < 9; ++r) {
            for (int c = 0; c < 9; ++c) {
                const int jr = r / 3, ir = r % 3, jc = c / 3, ic = c % 3;
                const double crossTerms = std::sqrt(n * tau) * (a[jr] * a[jc] * (ir == ic) + (jr == jc) * ggT[ir][ic]);
                const double expected = dense[r][c] + crossTerms + tau * (r == c);
                maxErr = std::max(maxErr, std::abs(kfac[r][c].item<double>() - expected));
                maxEntry = std::max(maxEntry, std::abs(expected));
            }
        }
        // G from 32000 sampled labels is within ~2% of E[g g^T]; N A instead of sqrt(N) A,
        // an undamped or an empirical Fisher is off by a factor of 4 or more.
        QVERIFY2(maxErr < 0.05 * maxEntry, qPrintable(QString("max error %1, largest entry %2").arg(maxErr).arg(maxEntry)));
    }

    // The hand-written gradients against autograd's: a small network with gradients made
    // fresh, and the distillation's shapes through existing gradient buffers (as the
    // samplers' flat ones are: written in place, the thin kernels' path for all three
    // products where the CPU has AVX-512).
    /// A NaN weight reaches the loss, where the chain stops on it, rather than being
    /// zeroed by the ReLU: the fast path's ReLU passes NaN on, as LibTorch's does.
    void fastPathLossShowsANaNWeight()
    {
        auto gen = makeGenerator(5);
        Mlp net(4, std::vector<int64_t>{6}, 3);
        {
            torch::NoGradGuard noGrad;
            net->linearLayers()[0]->weight[0][0].fill_(std::numeric_limits<float>::quiet_NaN());
        }
        const auto x = torch::randn({5, 4}, gen);
        const auto y = torch::tensor({0, 1, 2, 0, 1}, torch::kLong);
        QVERIFY(std::isnan(crossEntropyGradients(*net, x, y)));
    }

    /// The targets' softmax against hand-computed rows: logits 0, ln 2, ln 3 give 1/6,
    /// 2/6, 3/6; 1000, 999, 1000 give e/(2e+1), 1/(2e+1), e/(2e+1) (a softmax without the
    /// row's largest logit taken out would give inf/inf); a double tensor takes LibTorch's.
    void rowSoftmaxMatchesTheClosedForm()
    {
        const double l2 = std::log(2.0), l3 = std::log(3.0), e = std::exp(1.0);
        const auto exact = torch::tensor({0.0, l2, l3, 1000.0, 999.0, 1000.0}, torch::kDouble).view({2, 3});
        const auto logits = exact.to(torch::kFloat);
        const auto expected =
            torch::tensor({1 / 6.0, 2 / 6.0, 3 / 6.0, e / (2 * e + 1), 1 / (2 * e + 1), e / (2 * e + 1)}, torch::kDouble)
                .view({2, 3});
        const auto p = rowSoftmax(logits);
        QCOMPARE(p.scalar_type(), at::kFloat);
        QVERIFY2(torch::allclose(p.to(torch::kDouble), expected, 0, 1e-6), qPrintable(QString::number(
                     (p.to(torch::kDouble) - expected).abs().max().item<double>())));
        const auto pd = rowSoftmax(exact);
        QVERIFY(torch::allclose(pd, expected, 0, 1e-12));
    }

    void mlpHandGradientsMatchAutograd_data()
    {
        QTest::addColumn<int>("inputs");
        QTest::addColumn<int>("hidden");
        QTest::addColumn<int>("classes");
        QTest::addColumn<int>("rows");
        QTest::addColumn<bool>("buffers");
        QTest::addColumn<double>("lossTolerance");
        QTest::addColumn<double>("relativeTolerance");
        QTest::newRow("3-7-5-4, 9 rows") << 3 << 7 << 4 << 9 << false << 1e-6 << 1e-4;
        QTest::newRow("784-200-10, 64 rows, gradient buffers") << 784 << 200 << 10 << 64 << true << 1e-5 << 1e-3;
    }
    void mlpHandGradientsMatchAutograd()
    {
        QFETCH(int, inputs);
        QFETCH(int, hidden);
        QFETCH(int, classes);
        QFETCH(int, rows);
        QFETCH(bool, buffers);
        QFETCH(double, lossTolerance);
        QFETCH(double, relativeTolerance);
        auto gen = makeGenerator(11);
        Mlp net(inputs, inputs == 3 ? std::vector<int64_t>{hidden, 5} : std::vector<int64_t>{hidden}, classes);
        initialiseFrom(*net, gen);
        if (buffers)
            for (auto& p : net->parameters())
                p.mutable_grad() = torch::full_like(p, std::nanf(""));
        auto x = torch::randn({rows, inputs}, gen);
        auto y = torch::randint(0, classes, {rows}, gen, torch::kLong);
        auto trace = traceMlp(*net, x);
        auto [loss, dLogits] = crossEntropyWithGradient(trace.logits, y);
        setMlpGradients(*net, trace, backpropagateMlp(*net, trace, dLogits));
        std::vector<torch::Tensor> manual;
        for (auto& p : net->parameters())
            manual.push_back(p.grad().clone());
        auto reference = torch::nn::functional::cross_entropy(net->forward(x), y);
        QVERIFY(std::abs(reference.item<double>() - loss.item<double>()) < lossTolerance);
        auto grads = torch::autograd::grad({reference}, net->parameters());
        for (size_t i = 0; i < grads.size(); ++i)
            QVERIFY2(torch::allclose(manual[i], grads[i], relativeTolerance, 1e-6),
                     qPrintable(QString("parameter %1").arg(i)));
    }

    // A full batch's gradient in the units-as-rows layout (MAP's and SGHMC's full-batch
    // steps) against autograd: a standardised 57-50-40-3 network on 600 rows, so both
    // hidden layers' ReLU and the kept layouts are crossed; the same rows again give the
    // same gradient, and rows changed in place are read afresh.
    void fullBatchGradientsMatchAutograd()
    {
        auto gen = makeGenerator(23);
        Mlp net(57, std::vector<int64_t>{50, 40}, 3);
        initialiseFrom(*net, gen);
        net->inputMean = torch::randn({57}, gen);
        net->inputStd = torch::rand({57}, gen).add_(0.5);
        auto x = torch::randn({600, 57}, gen).mul_(2.0);
        auto y = torch::randint(0, 3, {600}, gen, torch::kLong);
        FullBatchGradients gradients;
        const auto checkAgainstAutograd = [&] {
            const double loss = gradients(*net, x, y);
            std::vector<torch::Tensor> manual;
            for (auto& p : net->parameters())
                manual.push_back(p.grad().clone());
            auto reference = torch::nn::functional::cross_entropy(net->forward(x), y);
            QVERIFY2(std::abs(reference.item<double>() - loss) < 1e-5,
                     qPrintable(QString("loss %1 against %2").arg(loss).arg(reference.item<double>())));
            auto grads = torch::autograd::grad({reference}, net->parameters());
            for (size_t i = 0; i < grads.size(); ++i)
                QVERIFY2(torch::allclose(manual[i], grads[i], 1e-4, 1e-6),
                         qPrintable(QString("parameter %1: max diff %2")
                                        .arg(i)
                                        .arg((manual[i] - grads[i]).abs().max().item<double>())));
        };
        checkAgainstAutograd();
        checkAgainstAutograd();  // the kept layouts
        {
            torch::NoGradGuard noGrad;
            x.mul_(-0.5);  // same storage and shape, a new version
        }
        checkAgainstAutograd();
    }

    // The thin kernels against a plain loop in double, at shapes whose every edge differs:
    // rows past a multiple of the 8-row tile, columns past the 32-column panel and the
    // 16-lane vector, inner sizes past the 16 x 16 transpose blocks. Each result within
    // 1e-5 of the sum of its terms' magnitudes: a term left out, added twice or taken
    // from the wrong place moves it by about 1/k of that, 1e-4 or more here.
    void thinProductsMatchAPlainLoop_data()
    {
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("k");
        QTest::newRow("a minibatch at MLP-200 on 784 pixels") << 64 << 200 << 784;
        QTest::newRow("9 rows, 33 columns") << 9 << 33 << 4000;
        QTest::newRow("65 rows, 17 columns, k 8 past a block") << 65 << 17 << 1000;
        QTest::newRow("one row, 1100 columns") << 1 << 1100 << 1000;
        QTest::newRow("7 rows, 15 columns, k 7 past a block") << 7 << 15 << 10007;
        QTest::newRow("130 rows, 31 columns, k 263") << 130 << 31 << 263;
        QTest::newRow("the output layer of MLP-200: 10 columns") << 64 << 10 << 200;
    }
    void thinProductsMatchAPlainLoop()
    {
        QFETCH(int, m);
        QFETCH(int, n);
        QFETCH(int, k);
        if (!thinGemmAvailable())
            QSKIP("this CPU has no AVX-512: the products stay LibTorch's");
        auto gen = makeGenerator(static_cast<uint64_t>(m * 7919 + n * 31 + k));
        const auto x = torch::randn({m, k}, gen), w = torch::randn({n, k}, gen), bias = torch::randn({n}, gen);
        const auto g = torch::randn({m, n}, gen);
        // The results inside NaN guards: a store past either end would show there.
        constexpr int64_t guard = 64;
        auto yBuffer = torch::full({guard + m * n + guard}, std::nanf(""));
        auto dwBuffer = torch::full({guard + n * k + guard}, std::nanf(""));
        auto dxBuffer = torch::full({guard + m * k + guard}, std::nanf(""));
        auto y = yBuffer.narrow(0, guard, m * n).view({m, n}), dw = dwBuffer.narrow(0, guard, n * k).view({n, k});
        auto dx = dxBuffer.narrow(0, guard, m * k).view({m, k});
        QVERIFY(thinLinearForward(y.data_ptr<float>(), x.data_ptr<float>(), w.data_ptr<float>(),
                                  bias.data_ptr<float>(), m, n, k));
        QVERIFY(thinWeightGradient(dw.data_ptr<float>(), g.data_ptr<float>(), x.data_ptr<float>(), m, n, k));
        QVERIFY(thinInputGradient(dx.data_ptr<float>(), g.data_ptr<float>(), w.data_ptr<float>(), m, n, k));
        for (const auto& buffer : {yBuffer, dwBuffer, dxBuffer}) {
            const int64_t size = buffer.size(0);
            QVERIFY(buffer.narrow(0, 0, guard).isnan().all().item<bool>());
            QVERIFY(buffer.narrow(0, size - guard, guard).isnan().all().item<bool>());
        }
        const auto xa = x.accessor<float, 2>(), wa = w.accessor<float, 2>(), ga = g.accessor<float, 2>();
        const auto ya = y.accessor<float, 2>(), dwa = dw.accessor<float, 2>(), dxa = dx.accessor<float, 2>();
        const auto ba = bias.accessor<float, 1>();
        // The largest |got(r, c) - offset(c) - sum_t term(r, c, t)| over the terms' magnitudes.
        const auto worstError = [](int rows, int cols, int inner, auto term, auto got, auto offset) {
            double worst = 0;
            for (int r = 0; r < rows; ++r)
                for (int c = 0; c < cols; ++c) {
                    double sum = offset(c), size = std::abs(offset(c));
                    for (int t = 0; t < inner; ++t) {
                        const double product = term(r, c, t);
                        sum += product;
                        size += std::abs(product);
                    }
                    worst = std::max(worst, std::abs(got(r, c) - sum) / std::max(size, 1e-30));
                }
            return worst;
        };
        const auto noOffset = [](int) { return 0.0; };
        double worst = worstError(
            m, n, k, [&](int i, int j, int l) { return static_cast<double>(xa[i][l]) * wa[j][l]; },
            [&](int i, int j) { return static_cast<double>(ya[i][j]); }, [&](int j) { return double(ba[j]); });
        QVERIFY2(worst < 1e-5, qPrintable(QString("forward: error %1 of the terms' magnitudes").arg(worst)));
        worst = worstError(
            n, k, m, [&](int j, int l, int i) { return static_cast<double>(ga[i][j]) * xa[i][l]; },
            [&](int j, int l) { return static_cast<double>(dwa[j][l]); }, noOffset);
        QVERIFY2(worst < 1e-5, qPrintable(QString("weight gradient: error %1 of the terms' magnitudes").arg(worst)));
        worst = worstError(
            m, k, n, [&](int i, int l, int j) { return static_cast<double>(ga[i][j]) * wa[j][l]; },
            [&](int i, int l) { return static_cast<double>(dxa[i][l]); }, noOffset);
        QVERIFY2(worst < 1e-5, qPrintable(QString("input gradient: error %1 of the terms' magnitudes").arg(worst)));
    }

    // The units-as-rows product (BBVI's layers: m units, n a batch's rows) against a plain
    // loop in double, a read as it lies and transposed, at shapes past every tile edge:
    // each result within 1e-5 of its terms' magnitudes, nothing written past c's ends.
    void thinUnitsProductMatchesAPlainLoop_data()
    {
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("k");
        QTest::addColumn<bool>("transposed");
        QTest::newRow("50 units of 57 inputs over 2,000 rows") << 50 << 2000 << 57 << false;
        QTest::newRow("a weight gradient: 50 x 57 over 600 rows") << 50 << 57 << 600 << false;
        QTest::newRow("the output layer: 3 units of 50") << 3 << 2000 << 50 << false;
        QTest::newRow("an input gradient: W^T, 40 x 300 from 64 units") << 40 << 300 << 64 << true;
        QTest::newRow("9 units, 33 columns, transposed") << 9 << 33 << 1000 << true;
    }
    void thinUnitsProductMatchesAPlainLoop()
    {
        QFETCH(int, m);
        QFETCH(int, n);
        QFETCH(int, k);
        QFETCH(bool, transposed);
        if (!thinGemmAvailable())
            QSKIP("this CPU has no AVX-512: the products stay LibTorch's");
        auto gen = makeGenerator(static_cast<uint64_t>(m * 131 + n * 7 + k));
        const auto a = transposed ? torch::randn({k, m}, gen) : torch::randn({m, k}, gen);
        const auto b = torch::randn({k, n}, gen);
        constexpr int64_t guard = 64;
        auto buffer = torch::full({guard + m * n + guard}, std::nanf(""));
        auto c = buffer.narrow(0, guard, m * n).view({m, n});
        QVERIFY(thinProduct(c.data_ptr<float>(), a.data_ptr<float>(), transposed ? 1 : k, transposed ? m : 1,
                            b.data_ptr<float>(), m, n, k));
        QVERIFY(buffer.narrow(0, 0, guard).isnan().all().item<bool>());
        QVERIFY(buffer.narrow(0, guard + m * n, guard).isnan().all().item<bool>());
        const auto aa = a.accessor<float, 2>(), ba = b.accessor<float, 2>(), ca = c.accessor<float, 2>();
        double worst = 0;
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) {
                double sum = 0, size = 0;
                for (int l = 0; l < k; ++l) {
                    const double term = static_cast<double>(transposed ? aa[l][i] : aa[i][l]) * ba[l][j];
                    sum += term;
                    size += std::abs(term);
                }
                worst = std::max(worst, std::abs(ca[i][j] - sum) / std::max(size, 1e-30));
            }
        QVERIFY2(worst < 1e-5, qPrintable(QString("error %1 of the terms' magnitudes").arg(worst)));
        // Under 2^16 multiply-adds the kernel declines and leaves c as it was.
        QVERIFY(!thinProduct(c.data_ptr<float>(), a.data_ptr<float>(), k, 1, b.data_ptr<float>(), 2, 2, 2));
    }

    // Beyond 256 rows a product is no longer thin (a whole data set's forward): the
    // kernels decline it, as they do a product under 2^16 multiply-adds (the synthetic
    // experiment's 2-50-2 at 128 rows keeps LibTorch's products).
    void thinProductsDeclineWhatIsNotThin()
    {
        std::vector<float> x(300 * 784, 1.0f), w(200 * 784, 1.0f), y(300 * 200, 0.0f);
        QVERIFY(!thinLinearForward(y.data(), x.data(), w.data(), nullptr, 300, 200, 784));
        QVERIFY(!thinLinearForward(y.data(), x.data(), w.data(), nullptr, 128, 50, 2));
        QVERIFY(!thinLinearForward(y.data(), x.data(), w.data(), nullptr, 128, 2, 50));
        QVERIFY(!thinInputGradient(x.data(), y.data(), w.data(), 128, 2, 50));
        QVERIFY(!thinWeightGradient(w.data(), y.data(), x.data(), 300, 200, 784));
        QVERIFY(!thinInputGradient(x.data(), y.data(), w.data(), 300, 200, 784));
        QCOMPARE(thinLinearForward(y.data(), x.data(), w.data(), nullptr, 256, 200, 784), thinGemmAvailable());
        QCOMPARE(y[0], thinGemmAvailable() ? 784.0f : 0.0f);
    }

    void bbviKlUsesEachLayersPriorPrecision_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<double>("precision");
        // The fan-in prior ignores the isotropic precision: N(0, 1) on biases whatever it is.
        QTest::newRow("fan-in (authors' code)") << static_cast<int>(BbviPrior::Kind::FanIn) << 3.0;
        QTest::newRow("isotropic tau 2.5 (paper's text)") << static_cast<int>(BbviPrior::Kind::Isotropic) << 2.5;
    }
    void bbviKlUsesEachLayersPriorPrecision()
    {
        QFETCH(int, kind);
        QFETCH(double, precision);
        BbviPrior prior;
        prior.kind = static_cast<BbviPrior::Kind>(kind);
        prior.precision = precision;
        // 3 inputs -> 2 hidden -> 4 classes: the fan-ins (3, 2) differ from the fan-outs
        // (2, 4), so a prior scaled by the wrong dimension gives another number.
        BayesMlp net(3, std::vector<int64_t>{2}, 4, -2.0);
        {
            torch::NoGradGuard g;
            for (auto& l : net->layers) {
                l->weightMean.fill_(0.5);
                l->weightLogVar.fill_(std::log(0.25));
                l->biasMean.fill_(-1.0);
                l->biasLogVar.fill_(0.0);
            }
        }
        // Hand sum: each element contributes 0.5 (tau s2 + tau mu^2 - 1 - log tau - log s2).
        auto element = [](double tau, double mu, double s2) {
            return 0.5 * (tau * s2 + tau * mu * mu - 1.0 - std::log(tau) - std::log(s2));
        };
        const bool fanIn = prior.kind == BbviPrior::Kind::FanIn;
        const double expected = 6 * element(fanIn ? 3.0 : precision, 0.5, 0.25) +  // layer 0: 2 x 3 weights
                                2 * element(fanIn ? 1.0 : precision, -1.0, 1.0) +  // its 2 biases
                                8 * element(fanIn ? 2.0 : precision, 0.5, 0.25) +  // layer 1: 4 x 2 weights
                                4 * element(fanIn ? 1.0 : precision, -1.0, 1.0);   // its 4 biases
        QCOMPARE_LE(std::abs(net->kl(prior).item<double>() - expected), 1e-5 * std::abs(expected));
    }

    void bbviWeightsUntouchedByDataFollowThePrior_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<double>("weightVariance");
        // 4 inputs, 2 classes: fan-in 4, fan-out 2.
        QTest::newRow("fan-in: 1/4") << static_cast<int>(BbviPrior::Kind::FanIn) << 0.25;
        QTest::newRow("isotropic tau 2: 1/2") << static_cast<int>(BbviPrior::Kind::Isotropic) << 0.5;
    }
    void bbviWeightsUntouchedByDataFollowThePrior()
    {
        // Through the real runBbvi: every training input is 0, so the weights never touch
        // the likelihood and their variational posterior must become the prior itself
        // (mean 0, variance 1/precision of that layer's prior).
        QFETCH(int, kind);
        QFETCH(double, weightVariance);
        BbviConfig config;
        config.prior.kind = static_cast<BbviPrior::Kind>(kind);
        config.prior.precision = 2.0;
        config.iterations = 3000;
        config.learningRate = 0.05;
        config.samples = 1;
        TrainingSet data{torch::zeros({8, 4}), torch::tensor({0, 1, 0, 1, 0, 1, 0, 1}, torch::kLong)};
        auto gen = makeGenerator(4);
        const auto out = runBbvi(4, {}, 2, data, torch::zeros({1, 4}), config, gen, {});
        auto net = std::dynamic_pointer_cast<BayesMlpImpl>(out.model);
        QVERIFY(net && net->layers.size() == 1);
        const double variance = net->layers[0]->weightLogVar.exp().mean().item<double>();
        const double largestMean = net->layers[0]->weightMean.abs().max().item<double>();
        QVERIFY2(std::abs(variance - weightVariance) < 0.05 * weightVariance,
                 qPrintable(QString("weight variance %1, prior %2").arg(variance).arg(weightVariance)));
        QVERIFY2(largestMean < 0.05, qPrintable(QString("largest |weight mean| %1").arg(largestMean)));
    }

    void bbviHandGradientsMatchAutograd_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("inputs");
        QTest::addColumn<int>("hidden");
        QTest::newRow("fan-in") << static_cast<int>(BbviPrior::Kind::FanIn) << 8 << 2 << 6;
        QTest::newRow("isotropic") << static_cast<int>(BbviPrior::Kind::Isotropic) << 8 << 2 << 6;
        // 600 rows of 57 inputs into 50 units: every product of the first layer goes
        // through the thin kernel (units as rows, 600 columns), where the CPU has it.
        QTest::newRow("fan-in, 600 rows of 57 into 50 units") << static_cast<int>(BbviPrior::Kind::FanIn) << 600 << 57 << 50;
        QTest::newRow("three layers") << static_cast<int>(BbviPrior::Kind::Isotropic) << 300 << 40 << 64;
    }
    void bbviHandGradientsMatchAutograd()
    {
        QFETCH(int, kind);
        QFETCH(int, rows);
        QFETCH(int, inputs);
        QFETCH(int, hidden);
        BbviPrior prior;
        prior.kind = static_cast<BbviPrior::Kind>(kind);
        prior.precision = 1.5;
        const std::vector<int64_t> layers = rows == 300 ? std::vector<int64_t>{hidden, hidden} : std::vector<int64_t>{hidden};
        BayesMlp net(inputs, layers, 3, -2.0);  // larger variances than the default, so dVar matters
        auto x = torch::randn({rows, inputs}, makeGenerator(5));
        auto y = torch::arange(rows, torch::kLong).remainder(3);
        const double n = 40;
        NormalStream noiseA(99);
        net->lossAndGradients(BbviInputs(x), y, prior, n, noiseA);
        std::vector<torch::Tensor> manual;
        for (auto& p : net->parameters())
            manual.push_back(p.grad().clone());
        NormalStream noiseB(99);  // same noise
        auto loss = torch::nn::functional::cross_entropy(net->forwardLocalAutograd(x, noiseB), y) + net->kl(prior) / n;
        auto grads = torch::autograd::grad({loss}, net->parameters());
        for (size_t i = 0; i < grads.size(); ++i)
            QVERIFY2(torch::allclose(manual[i], grads[i], 1e-4, 1e-5),
                     qPrintable(QString("parameter %1: max diff %2").arg(i).arg((manual[i] - grads[i]).abs().max().item<double>())));
    }

    void kfacFactorsEqualBruteForce()
    {
        auto gen = makeGenerator(17);
        Mlp net(3, std::vector<int64_t>{4}, 3);
        initialiseFrom(*net, gen);
        auto x = torch::randn({6, 3}, gen);
        auto y = torch::randint(0, 3, {6}, gen, torch::kLong);
        const auto factors = kfacFactors(net, x, y);
        auto layers = net->linearLayers();
        QCOMPARE(factors.size(), layers.size());
        // Brute force: per sample, the layer's input (with 1 for the bias) and the gradient
        // of that sample's NLL w.r.t. the layer's bias, which equals dNLL/d(pre-activation).
        for (size_t l = 0; l < layers.size(); ++l) {
            auto A = torch::zeros_like(factors[l].A);
            auto G = torch::zeros_like(factors[l].G);
            for (int64_t n = 0; n < x.size(0); ++n) {
                auto xn = x.slice(0, n, n + 1);
                torch::Tensor h = xn, input;
                for (size_t k = 0; k < layers.size(); ++k) {
                    if (k == l)
                        input = h.detach();
                    h = layers[k]->forward(h);
                    if (k + 1 < layers.size())
                        h = torch::relu(h);
                }
                auto nll = torch::nn::functional::cross_entropy(h, y.slice(0, n, n + 1));
                auto gW = torch::autograd::grad({nll}, {layers[l]->weight, layers[l]->bias});
                auto a = torch::cat({input.squeeze(0), torch::ones({1})});
                auto g = gW[1];
                A += torch::outer(a, a);
                G += torch::outer(g, g);
                // The single-sample Fisher block is exactly a a^T (x) g g^T in vec_col order.
                auto vecGrad = torch::cat({gW[0], gW[1].unsqueeze(1)}, 1).t().reshape(-1);
                QVERIFY(torch::allclose(torch::outer(vecGrad, vecGrad), torch::kron(torch::outer(a, a), torch::outer(g, g)),
                                        1e-4, 1e-6));
            }
            A /= static_cast<double>(x.size(0));
            G /= static_cast<double>(x.size(0));
            QVERIFY2(torch::allclose(factors[l].A, A, 1e-4, 1e-6), qPrintable(QString("A of layer %1").arg(l)));
            QVERIFY2(torch::allclose(factors[l].G, G, 1e-4, 1e-6), qPrintable(QString("G of layer %1").arg(l)));
        }
    }

    void matrixNormalSamplesHaveKroneckerCovariance()
    {
        auto gen = makeGenerator(23);
        // Row covariance U (2x2) and column covariance V (3x3), both SPD.
        auto U = torch::tensor({{1.0, 0.3}, {0.3, 0.5}}, torch::kDouble);
        auto V = torch::tensor({{0.8, -0.2, 0.1}, {-0.2, 1.2, 0.0}, {0.1, 0.0, 0.4}}, torch::kDouble);
        auto mean = torch::tensor({{1.0, 2.0, 3.0}, {-1.0, 0.0, 0.5}}, torch::kDouble);
        auto cu = torch::linalg::cholesky(U), cv = torch::linalg::cholesky(V);
        const int draws = 40000;
        std::vector<torch::Tensor> vecs;
        for (int i = 0; i < draws; ++i)
            vecs.push_back(sampleMatrixNormal(mean, cu, cv, gen).t().reshape(-1));  // vec_col
        auto s = torch::stack(vecs);
        auto m = s.mean(0);
        auto centred = s - m;
        auto cov = centred.t().mm(centred) / (draws - 1.0);
        auto expected = torch::kron(V, U);
        QVERIFY(torch::allclose(m, mean.t().reshape(-1), 0, 0.03));
        const double maxErr = (cov - expected).abs().max().item<double>();
        QVERIFY2(maxErr < 0.04, qPrintable(QString("max covariance error %1").arg(maxErr)));
        // Swapping the row and column factors gives a visibly different covariance.
        QVERIFY((cov - torch::kron(U, V)).abs().max().item<double>() > 0.2);
    }

    void predictiveAverageIsTheMean()
    {
        PredictiveAverage avg;
        avg.add(torch::tensor({{0.2f, 0.8f}}));
        avg.add(torch::tensor({{0.6f, 0.4f}}));
        QCOMPARE(avg.count(), 2);
        QVERIFY(torch::allclose(avg.mean(), torch::tensor({{0.4f, 0.6f}})));
        PredictiveAverage empty;
        QVERIFY_THROWS_EXCEPTION(c10::Error, empty.mean());
    }
};

QTEST_APPLESS_MAIN(TestInference)
#include "tst_inference.moc"