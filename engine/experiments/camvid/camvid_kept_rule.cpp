#include "engine/experiments/camvid/camvid_kept_rule.h"

#include <algorithm>
#include <cstdio>
#include <random>
#include <stdexcept>

#include <ATen/ATen.h>

#include "base/core/seeds.h"
#include "engine/core/training_loop.h"
#include "engine/decision/baselines.h"

namespace lcs {
namespace {

// Streams of the choice's seed: the pixel sample (per frame), the folds, the evidence.
constexpr uint64_t kChoiceStream = 0xc4a;

std::string figure(double v)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.4f", v);
    return b;
}

} // namespace

const CamvidScoredRule* CamvidKeptRule::rule(const std::string& name) const
{
    for (const auto& r : scored)
        if (r.rule == name)
            return &r;
    return nullptr;
}

CamvidRuleChooser::CamvidRuleChooser(const CostMatrix& costs, int64_t frames, int64_t ignoreLabel, uint64_t seed,
                                     std::vector<int> iouClasses)
    : m_costs(costs), m_frames(frames), m_choiceFrames(frames / 2), m_ignore(ignoreLabel), m_seed(seed),
      m_iouClasses(std::move(iouClasses))
{
    if (!applies(frames))
        throw std::invalid_argument("CamvidRuleChooser: " + std::to_string(frames) + " frames, fewer than " +
                                    std::to_string(kCamvidChoiceFewestFrames));
}

void CamvidRuleChooser::add(const at::Tensor& pS, const at::Tensor& dS, const at::Tensor& pQ, const at::Tensor& dQ,
                            const at::Tensor& labels)
{
    if (m_seen >= m_frames)
        throw std::logic_error("CamvidRuleChooser: more frames than the " + std::to_string(m_frames) + " announced");
    const auto rowsS = classRows(pS).to(at::kFloat).contiguous();
    const auto y = labels.reshape({-1}).to(at::kLong).contiguous();
    const auto decisionsS = dS.reshape({-1}).to(at::kLong).contiguous();
    const auto decisionsQ = dQ.reshape({-1}).to(at::kLong).contiguous();
    if (m_seen < m_choiceFrames) {
        // A sample of the frame's labelled pixels, without replacement (a partial
        // Fisher-Yates from the frame's own stream: the same pixels on every rerun).
        std::vector<int64_t> labelled;
        const int64_t* yv = y.data_ptr<int64_t>();
        for (int64_t i = 0; i < y.numel(); ++i)
            if (yv[i] != m_ignore)
                labelled.push_back(i);
        std::mt19937_64 engine(mixSeed(m_seed, kChoiceStream, static_cast<uint64_t>(m_seen)));
        const auto take = std::min<size_t>(labelled.size(), static_cast<size_t>(kCamvidChoicePixelsPerFrame));
        for (size_t k = 0; k < take; ++k) {
            const size_t j = k + static_cast<size_t>(
                                     (static_cast<unsigned __int128>(engine()) * (labelled.size() - k)) >> 64);
            std::swap(labelled[k], labelled[j]);
        }
        const int64_t classes = rowsS.size(1);
        const float* p = rowsS.data_ptr<float>();
        for (size_t k = 0; k < take; ++k) {
            const int64_t i = labelled[k];
            m_probabilities.insert(m_probabilities.end(), p + i * classes, p + (i + 1) * classes);
            m_labels.push_back(yv[i]);
            m_group.push_back(m_seen);
            m_decisionsS.push_back(decisionsS.data_ptr<int64_t>()[i]);
            m_decisionsQ.push_back(decisionsQ.data_ptr<int64_t>()[i]);
        }
        ++m_seen;
        return;
    }
    if (!m_chosen)
        choose();
    if (m_nothingToChooseOn) {
        ++m_seen;
        return;
    }
    // Every rule on the scored frame; the kept one's confusion beside S's for the evidence.
    std::vector<std::vector<int64_t>> confusion;
    confusion.push_back(m_scored[0].add(rowsS, decisionsS, y));
    confusion.push_back(m_scored[1].add(classRows(pQ).to(at::kFloat), decisionsQ, y));
    const auto s = toClassProbabilities(rowsS);
    for (size_t c = 0; c < m_result.calibrations.size(); ++c) {
        const auto& fit = m_result.calibrations[c];
        if (fit.hasProbabilities()) {
            const auto calibrated = fit.probabilities(s);
            confusion.push_back(m_scored[c + 2].add(probabilitiesTensor(calibrated),
                                                    at::tensor(bayesDecisionsOf(calibrated, m_costs), at::kLong), y));
        } else {
            confusion.push_back(m_scored[c + 2].add(rowsS, at::tensor(fit.decisions(s, m_costs), at::kLong), y));
        }
    }
    size_t kept = 0;
    for (size_t r = 0; r < m_result.scored.size(); ++r)
        if (m_result.scored[r].rule == m_result.choice.kept)
            kept = r;
    m_evidence->add(confusion[0], confusion[kept]);
    ++m_seen;
}

void CamvidRuleChooser::choose()
{
    m_chosen = true;
    if (m_labels.empty()) {  // every choice pixel void: the evaluation goes on without a choice
        m_nothingToChooseOn = true;
        return;
    }
    ClassProbabilities p;
    p.classes = m_costs.numClasses();
    p.rows = static_cast<int64_t>(m_labels.size());
    p.values = m_probabilities;
    std::vector<CalibrationKind> offered;
    for (auto kind : calibrationsFor(p.classes)) {
        try {
            m_result.calibrations.push_back(fitCalibration(kind, p, m_labels, m_costs));
            offered.push_back(kind);
        } catch (const std::invalid_argument&) {
            // The choice pixels hold one class only: nothing to calibrate against.
        }
    }
    const int folds = static_cast<int>(std::min<int64_t>(kDefaultFolds, m_choiceFrames));
    // S first: the guard moves off S only for a rule that beats it beyond one standard
    // error of the paired difference over frames, a calibration counting one more pixel
    // at its dearest change (as every experiment's choice does).
    m_result.choice = chooseRuleByCrossValidation(p, {{"S", m_decisionsS}, {"q", m_decisionsQ, false}}, m_labels,
                                                  m_costs, offered, folds, mixSeed(m_seed, kChoiceStream, 1 << 20),
                                                  kSelectionGuard, m_group);
    m_result.choiceFrames = m_choiceFrames;
    m_result.choicePixels = p.rows;
    for (const char* name : {"S", "q"}) {
        m_result.scored.push_back({name, {}});
        m_scored.emplace_back(m_costs, m_ignore);
    }
    for (const auto& fit : m_result.calibrations) {
        m_result.scored.push_back({fit.name(), {}});
        m_scored.emplace_back(m_costs, m_ignore);
    }
    m_evidence.emplace(m_costs);
    // The sample has served its purpose.
    m_probabilities = {};
}

std::optional<CamvidKeptRule> CamvidRuleChooser::result() const
{
    if (m_seen != m_frames || !m_chosen)
        throw std::logic_error("CamvidRuleChooser: " + std::to_string(m_seen) + " of " + std::to_string(m_frames) +
                               " frames handed over");
    if (m_nothingToChooseOn)
        return std::nullopt;
    CamvidKeptRule out = m_result;
    out.scoredFrames = m_frames - m_choiceFrames;
    for (size_t r = 0; r < out.scored.size(); ++r)
        out.scored[r].metrics = m_scored[r].result();
    out.evidence = m_evidence->compare("S", out.choice.kept, m_iouClasses,
                                       mixSeed(m_seed, kChoiceStream, 1 << 21));
    return out;
}

CamvidStudentAgainstQ::CamvidStudentAgainstQ(const CostMatrix& costs, int64_t frames, int64_t ignoreLabel,
                                             uint64_t seed, std::vector<int> iouClasses)
    : m_seed(seed), m_iouClasses(std::move(iouClasses)), m_changes(costs, ignoreLabel), m_frames(costs)
{
    if (CamvidRuleChooser::applies(frames))
        m_chooser.emplace(costs, frames, ignoreLabel, seed, m_iouClasses);
}

void CamvidStudentAgainstQ::add(const at::Tensor& pS, const at::Tensor& dS, std::vector<int64_t> confusionS,
                                const at::Tensor& pQ, const at::Tensor& dQ, std::vector<int64_t> confusionQ,
                                const at::Tensor& labels)
{
    m_changes.add(dS, dQ, labels);
    m_frames.add(std::move(confusionS), std::move(confusionQ));
    if (m_chooser)
        m_chooser->add(pS, dS, pQ, dQ, labels);
}

std::optional<GroupedComparison> CamvidStudentAgainstQ::evidence() const
{
    if (m_frames.groups() == 0)
        return std::nullopt;
    return m_frames.compare("S", "q", m_iouClasses, seedFor(m_seed, {kEvidenceStream}));
}

std::optional<CamvidKeptRule> CamvidStudentAgainstQ::keptRule() const
{
    if (!m_chooser)
        return std::nullopt;
    return m_chooser->result();
}

std::string camvidKeptRuleSummary(const CamvidKeptRule& k)
{
    std::string rules;
    for (const auto& r : k.scored)
        rules += (rules.empty() ? "" : ", ") + r.rule;
    std::string out = "decisions kept: " + k.kept() + ", chosen among " + rules + " on the split's first " +
                      std::to_string(k.choiceFrames) + " frames (" + std::to_string(k.choicePixels) +
                      " labelled pixels, at most " + std::to_string(kCamvidChoicePixelsPerFrame) +
                      " a frame): " + k.choice.reason + "\n";
    out += "on the other " + std::to_string(k.scoredFrames) + " frames (not used to choose), decision cost:";
    for (const auto& r : k.scored)
        out += " " + r.rule + " " + figure(r.metrics.averageCost) + (r.rule == k.kept() ? " (kept)" : "") + ";";
    out.back() = '\n';
    return out;
}

} // namespace lcs
