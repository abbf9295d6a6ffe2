#include "datasets/synthetic.h"

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include <ATen/ATen.h>

#include "base/core/seeds.h"

namespace lcs {

namespace {

class Stream {
public:
    explicit Stream(uint64_t seed) : m_engine(seed) {}
    double uniform() { return static_cast<double>(m_engine() >> 11) * 0x1.0p-53; }
    double normal()
    {
        if (m_hasSpare) {
            m_hasSpare = false;
            return m_spare;
        }
        double u1 = 0;
        do
            u1 = uniform();
        while (u1 <= 0.0);
        const double u2 = uniform();
        const double r = std::sqrt(-2.0 * std::log(u1));
        const double t = 2.0 * M_PI * u2;
        m_spare = r * std::sin(t);
        m_hasSpare = true;
        return r * std::cos(t);
    }

private:
    std::mt19937_64 m_engine;
    double m_spare = 0;
    bool m_hasSpare = false;
};

void appendGaussian(Stream& s, int count, double mean, int label, std::vector<float>& x, std::vector<int64_t>& y)
{
    for (int i = 0; i < count; ++i) {
        x.push_back(static_cast<float>(mean + s.normal()));
        x.push_back(static_cast<float>(mean + s.normal()));
        y.push_back(label);
    }
}

std::pair<at::Tensor, at::Tensor> toTensors(const std::vector<float>& x, const std::vector<int64_t>& y)
{
    const auto n = static_cast<int64_t>(y.size());
    return {at::tensor(x, at::kFloat).reshape({n, 2}), at::tensor(y, at::kLong)};
}

} // namespace

SyntheticData makeSyntheticData(const SyntheticDataConfig& c, uint64_t seed, int replicate)
{
    if (c.trainNegative < 0 || c.trainPositive < 0 || c.testNegative < 0 || c.testPositive < 0 || c.calibration < 0 ||
        c.validationNegative < 0 || c.validationPositive < 0)
        throw std::invalid_argument("synthetic data: point counts must be >= 0");
    if (!(c.boxMax > c.boxMin))
        throw std::invalid_argument("synthetic data: calibration box needs boxMax > boxMin");
    SyntheticData d;
    // Separate streams for train, test and calibration so that changing one count does
    // not reshuffle the others.
    auto labelled = [&](uint64_t stream, int negatives, int positives) {
        Stream s(mixSeed(seed, static_cast<uint64_t>(replicate), stream));
        std::vector<float> x;
        std::vector<int64_t> y;
        appendGaussian(s, negatives, -1.0, 0, x, y);
        appendGaussian(s, positives, +1.0, 1, x, y);
        return toTensors(x, y);
    };
    std::tie(d.trainX, d.trainY) = labelled(1, c.trainNegative, c.trainPositive);
    std::tie(d.testX, d.testY) = labelled(2, c.testNegative, c.testPositive);
    {
        Stream s(mixSeed(seed, static_cast<uint64_t>(replicate), 3));
        std::vector<float> x;
        for (int i = 0; i < 2 * c.calibration; ++i)
            x.push_back(static_cast<float>(c.boxMin + (c.boxMax - c.boxMin) * s.uniform()));
        d.calibrationX = at::tensor(x, at::kFloat).reshape({c.calibration, 2});
    }
    if (c.validationNegative + c.validationPositive > 0)
        std::tie(d.validationX, d.validationY) = labelled(4, c.validationNegative, c.validationPositive);
    return d;
}

at::Tensor syntheticGrid(const SyntheticDataConfig& c, int resolution)
{
    if (resolution < 2)
        throw std::invalid_argument("synthetic grid: resolution must be >= 2");
    auto axis = at::linspace(c.boxMin, c.boxMax, resolution, at::kFloat);
    auto yy = axis.unsqueeze(1).expand({resolution, resolution});
    auto xx = axis.unsqueeze(0).expand({resolution, resolution});
    return at::stack({xx.reshape(-1), yy.reshape(-1)}, 1).contiguous();
}

} // namespace lcs
