#pragma once

#include <string>

#include "base/io/model_info.h"
#include "engine/decision/calibrations.h"
#include "engine/models/classifier.h"
#include "engine/models/mlp.h"

namespace lcs {

/// Saves a network's weights to `path` (a LibTorch archive) and then the sidecar
/// `path + ".json"` (`info` with the architecture of `spec` filled in), each atomically.
/// The sidecar is written last and records the weights' size and checksum, so it acts as
/// the manifest of the pair: a save killed between the two renames, or weights from
/// another save, are detected by the loader. Parameters and buffers (e.g. BatchNorm
/// statistics) are saved. An "mlp" file holds the Mlp's own parameters, whether it was
/// the synthetic experiment's Mlp or an image FlatMlp. Throws OutputError naming the file
/// when it cannot be written (nothing half-written is left behind).
void saveModel(const torch::nn::Module& model, const ModelSpec& spec, const ModelInfo& info, const std::string& path);

/// The same for the synthetic experiment's networks (spec from the Mlp's sizes).
void saveModel(const Mlp& model, const ModelInfo& info, const std::string& path);

struct LoadedClassifier {
    Classifier model;
    ModelSpec spec;
    ModelInfo info;

    /// Class probabilities for raw inputs [N, *info.inputDims()] (points as they are,
    /// pixels in [0, 1]): the sidecar's standardisation, then the network in eval mode;
    /// what the TorchScript file's forward computes. Float on the CPU.
    at::Tensor probabilities(const at::Tensor& raw) const;
    /// A residual q's (info.residualOnPredictive): softmax(log p + f(x)), `predictive` p
    /// [N, C] the predictive at the same rows; what forward(x, p) computes.
    at::Tensor probabilities(const at::Tensor& raw, const at::Tensor& predictive) const;
    /// The predictive as the file's calibration leaves it (softmax-affine or isotonic;
    /// as given without one), before a residual q corrects it.
    at::Tensor calibratedPredictive(const at::Tensor& predictive) const;
};
/// Reads the sidecar, checks the weights' checksum, rebuilds the network (an "mlp"
/// sidecar gives a FlatMlp) and loads its parameters and buffers, checking each shape.
/// Throws InputError naming the file and the field.
LoadedClassifier loadClassifier(const std::string& path);

struct LoadedMlp {
    Mlp model{nullptr};
    ModelInfo info;
};
/// loadClassifier for a file that must hold an MLP; refuses other architectures by name.
LoadedMlp loadMlp(const std::string& path);

ModelSpec modelSpecFromInfo(const ModelInfo& info);

/// A fitted calibration as a saved model's predictive calibration (ModelInfo's
/// predictiveCalibration, scale and shift or isotonic knots): softmax-affine for
/// temperature, offsets, Platt and vector scaling; the constant rule as its class shares
/// (scale 0, so softmax(log shares) whatever p is; their Bayes decision is the cheapest
/// constant one); isotonic as its knots.
void setPredictiveCalibration(const FittedCalibration& calibration, int classes, ModelInfo& info);

/// Saves the decision rule a run kept as one model (role "kept_rule", its decision_rule
/// naming it): q itself, with `modelInfoOfQ`, where `rule` is "q"; otherwise P ("P") or
/// `calibration` of P inside the residual form forward(x, p) = softmax(calibrated log p +
/// f(x)) over f = one linear layer of zeros with q's inputs, so that `decide` with the
/// predictive applies it. `modelInfoOfQ` gives the rest of the sidecar (experiment, costs, seed,
/// input columns). A calibration rule without its fitted calibration is a logic error.
void saveKeptRule(const Mlp& q, const ModelInfo& modelInfoOfQ, const std::string& rule,
                  const FittedCalibration* calibration, const std::string& path);

} // namespace lcs
