#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

/// CamVid in the 12-class layout of SegNet and the paper: RGB frames and 8-bit label
/// images whose value is the class index (0..10, 11 = void/unlabelled). A split is
/// either listed in `DIR/SPLIT.txt` (lines "image label", relative to DIR) or laid out as
/// `DIR/SPLIT/*.png` with `DIR/SPLITannot/` holding a label image of the same name. Any
/// split name works (train, val, test, or one of the user's own). OpenCV is used in the
/// .cpp only: this header, like every engine header, stays OpenCV-free.
namespace lcs {

inline constexpr int kCamvidClasses = 12;
inline constexpr int kCamvidVoid = 11;
inline constexpr size_t kMaxCamvidFileBytes = size_t{64} << 20;
inline constexpr int kMaxCamvidSide = 8192;
inline constexpr size_t kMaxCamvidListLines = 100000;

const std::array<const char*, kCamvidClasses>& camvidClassNames();
/// The SegNet colours (RGB) of the 12 classes, for overlays and legends.
const std::array<std::array<uint8_t, 3>, kCamvidClasses>& camvidColours();

struct CamvidPair {
    std::string image;
    std::string label;
};

/// Parses a list file's text: one "image label" pair per non-empty line, paths relative
/// to `root` (absolute paths are kept). Refuses lines without exactly two fields.
std::vector<CamvidPair> parseCamvidList(const std::string& text, const std::string& source, const std::string& root);

/// The frames of `split` under `dir` (list file first, then the folder layout), sorted
/// by name for the folder layout. Throws InputError naming a missing folder, a frame
/// without a label image, or an empty split.
std::vector<CamvidPair> findCamvidSplit(const std::string& dir, const std::string& split);

struct CamvidFrame {
    int height = 0;
    int width = 0;
    std::vector<uint8_t> rgb;     ///< height * width * 3, interleaved RGB, row-major
    std::vector<uint8_t> labels;  ///< height * width, values 0..11
};

/// Decodes a frame and its label image from encoded bytes (PNG, or anything OpenCV
/// reads). The label image must be 8-bit with one channel (or three equal channels),
/// the same size as the frame, with every value < 12. When height and width are > 0
/// both are resized (bilinear for the frame, nearest for labels).
CamvidFrame decodeCamvidFrame(const std::string& imageBytes, const std::string& labelBytes,
                              const CamvidPair& names, int height = 0, int width = 0);

/// Reads and decodes one pair from disk (each file capped at kMaxCamvidFileBytes).
CamvidFrame readCamvidFrame(const CamvidPair& pair, int height = 0, int width = 0);

/// PNG bytes of an interleaved RGB image (for overlays; written with writeFileAtomically).
std::string encodeRgbPng(const std::vector<uint8_t>& rgb, int height, int width);

/// One entry of a colour legend: a name and its RGB colour.
struct LegendEntry {
    std::string name;
    std::array<uint8_t, 3> rgb;
};
/// PNG bytes of a strip of equally wide panels (interleaved RGB, height x width) with a
/// title above each panel and the legend below, wrapped to the strip's width: an image
/// that says what it shows without the command that wrote it.
std::string encodeTitledStripPng(const std::vector<uint8_t>& rgb, int height, int width,
                                 const std::vector<std::string>& titles, const std::vector<LegendEntry>& legend);

} // namespace lcs
