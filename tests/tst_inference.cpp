// Posterior approximations: samplers against a known posterior, hand-written gradients
// against autograd, KFAC factors against brute force, Laplace samples' covariance.
#include <cmath>

#include <QtTest/QtTest>

#include <torch/torch.h>

#include "inference/methods.h"
#include "inference/sghmc.h"
#include "models/mlp.h"

using namespace lcs;

namespace {

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

class TestInference : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { at::set_num_threads(1); }

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
        auto gen = makeGenerator(3);
        torch::optim::Adam adam({layer->weightMean, layer->weightLogVar}, torch::optim::AdamOptions(0.01));
        for (int it = 0; it < 4000; ++it) {
            adam.zero_grad();
            auto out = layer->forwardLocalAutograd(x, gen).squeeze(1);
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

    void mlpHandGradientsMatchAutograd()
    {
        auto gen = makeGenerator(11);
        Mlp net(3, std::vector<int64_t>{7, 5}, 4);
        initialiseFrom(*net, gen);
        auto x = torch::randn({9, 3}, gen);
        auto y = torch::randint(0, 4, {9}, gen, torch::kLong);
        auto trace = net->trace(x);
        auto [loss, dLogits] = crossEntropyWithGradient(trace.logits, y);
        net->setGradients(trace, net->backpropagate(trace, dLogits));
        std::vector<torch::Tensor> manual;
        for (auto& p : net->parameters())
            manual.push_back(p.grad().clone());
        auto reference = torch::nn::functional::cross_entropy(net->forward(x), y);
        QVERIFY(std::abs(reference.item<double>() - loss.item<double>()) < 1e-6);
        auto grads = torch::autograd::grad({reference}, net->parameters());
        for (size_t i = 0; i < grads.size(); ++i)
            QVERIFY2(torch::allclose(manual[i], grads[i], 1e-4, 1e-6), qPrintable(QString("parameter %1").arg(i)));
    }

    void bbviHandGradientsMatchAutograd()
    {
        BayesMlp net(2, std::vector<int64_t>{6}, 3, -2.0);  // larger variances than the default, so dVar matters
        auto x = torch::randn({8, 2}, makeGenerator(5));
        auto y = torch::tensor({0, 1, 2, 0, 1, 2, 0, 1}, torch::kLong);
        const double tau = 1.5, n = 40;
        auto genA = makeGenerator(99);
        net->lossAndGradients(x, y, tau, n, genA);
        std::vector<torch::Tensor> manual;
        for (auto& p : net->parameters())
            manual.push_back(p.grad().clone());
        auto genB = makeGenerator(99);  // same noise
        auto loss = torch::nn::functional::cross_entropy(net->forwardLocalAutograd(x, genB), y) + net->kl(tau) / n;
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
