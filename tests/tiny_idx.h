#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <QDir>
#include <QString>

#include "base/core/atomic_file.h"

/// The bytes of an IDX file: magic (type, rank), big-endian dimensions, values.
inline std::string idxBytes(const std::vector<uint32_t>& shape, const std::vector<uint8_t>& values,
                            uint8_t type = 0x08)
{
    std::string b{'\0', '\0', static_cast<char>(type), static_cast<char>(shape.size())};
    for (auto d : shape)
        for (int s = 24; s >= 0; s -= 8)
            b.push_back(static_cast<char>((d >> s) & 0xff));
    b.append(values.begin(), values.end());
    return b;
}

/// An MNIST-like folder of 2 x 2 images, labels 0..9 in turn; `gzip` (when given)
/// compresses every file, written with a .gz suffix.
inline void writeIdxFolder(const QString& dir, int train, int test,
                           const std::function<std::string(const std::string&)>& gzip = {})
{
    QDir().mkpath(dir);
    auto write = [&](const char* name, const std::string& bytes) {
        lcs::writeFileAtomically((dir + "/" + name).toStdString() + (gzip ? ".gz" : ""), gzip ? gzip(bytes) : bytes);
    };
    auto images = [](int n, int offset) {
        std::vector<uint8_t> v(static_cast<size_t>(n) * 4);
        for (size_t i = 0; i < v.size(); ++i)
            v[i] = static_cast<uint8_t>((i * 37 + static_cast<size_t>(offset)) % 256);
        return v;
    };
    auto labels = [](int n) {
        std::vector<uint8_t> v(static_cast<size_t>(n));
        for (int i = 0; i < n; ++i)
            v[static_cast<size_t>(i)] = static_cast<uint8_t>(i % 10);
        return v;
    };
    write("train-images-idx3-ubyte", idxBytes({uint32_t(train), 2, 2}, images(train, 0)));
    write("train-labels-idx1-ubyte", idxBytes({uint32_t(train)}, labels(train)));
    write("t10k-images-idx3-ubyte", idxBytes({uint32_t(test), 2, 2}, images(test, 5)));
    write("t10k-labels-idx1-ubyte", idxBytes({uint32_t(test)}, labels(test)));
}
