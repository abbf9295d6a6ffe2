#include "datasets/cifar_reader.h"


#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "datasets/file_checks.h"

namespace lcs {
namespace {

std::string trimmed(const std::string& s)
{
    const char* space = " \t\r\n\v\f";
    const auto first = s.find_first_not_of(space);
    if (first == std::string::npos)
        return {};
    return s.substr(first, s.find_last_not_of(space) - first + 1);
}

} // namespace

CifarBatch parseCifarBatch(const std::string& bytes, const std::string& source)
{
    if (bytes.empty())
        throw InputError(source + ": empty file (a CIFAR-10 batch holds records of " +
                         std::to_string(kCifarRecordBytes) + " bytes)");
    if (bytes.size() % kCifarRecordBytes != 0)
        throw InputError(source + ": " + std::to_string(bytes.size()) + " bytes is not a whole number of " +
                         std::to_string(kCifarRecordBytes) + "-byte CIFAR-10 records (record " +
                         std::to_string(bytes.size() / kCifarRecordBytes + 1) + " is cut short)");
    const size_t n = bytes.size() / kCifarRecordBytes;
    CifarBatch out;
    out.labels.resize(n);
    out.pixels.resize(n * kCifarImageBytes);
    const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
    for (size_t i = 0; i < n; ++i) {
        const uint8_t* record = data + i * kCifarRecordBytes;
        if (record[0] >= kCifarClasses)
            throw InputError(source + ": record " + std::to_string(i + 1) + " has label " +
                             std::to_string(record[0]) + " (CIFAR-10 labels are 0 to 9)");
        out.labels[i] = record[0];
        std::copy(record + 1, record + kCifarRecordBytes, out.pixels.begin() + static_cast<long>(i * kCifarImageBytes));
    }
    return out;
}

std::vector<std::string> parseCifarClassNames(const std::string& text, const std::string& source)
{
    std::vector<std::string> names;
    size_t start = 0;
    while (start <= text.size()) {
        const auto end = text.find('\n', start);
        const auto line = trimmed(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (!line.empty()) {
            if (line.size() > 64)
                throw InputError(source + ": class name on line " + std::to_string(names.size() + 1) +
                                 " is longer than 64 characters");
            names.push_back(line);
            if (names.size() > static_cast<size_t>(kCifarClasses))
                break;
        }
        if (end == std::string::npos)
            break;
        start = end + 1;
    }
    if (names.size() != static_cast<size_t>(kCifarClasses))
        throw InputError(source + ": expected " + std::to_string(kCifarClasses) + " class names, one per line, found " +
                         (names.size() > static_cast<size_t>(kCifarClasses) ? "more" : std::to_string(names.size())));
    return names;
}

std::vector<std::string> cifar10ClassNames()
{
    return {"airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"};
}

CifarFiles findCifarFiles(const std::string& dir, CifarSplit split)
{
    if (!isDirectory(dir))
        throw InputError(dir + ": no such directory (expected a CIFAR-10 binary folder with data_batch_1.bin .. "
                               "data_batch_5.bin and test_batch.bin)");
    CifarFiles files;
    if (split == CifarSplit::Train) {
        for (int k = 1; k <= 5; ++k) {
            const auto path = dir + "/data_batch_" + std::to_string(k) + ".bin";
            if (isRegularFile(path))
                files.batches.push_back(path);
        }
        if (files.batches.empty())
            throw InputError(dir + ": no training batch (data_batch_1.bin .. data_batch_5.bin) in this folder");
    } else {
        const auto path = dir + "/test_batch.bin";
        if (!isRegularFile(path))
            throw InputError(dir + ": test_batch.bin is missing from this folder");
        files.batches.push_back(path);
    }
    const auto meta = dir + "/batches.meta.txt";
    if (isRegularFile(meta))
        files.classNamesFile = meta;
    return files;
}

CifarData readCifarDirectory(const std::string& dir, CifarSplit split)
{
    const auto files = findCifarFiles(dir, split);
    CifarData data;
    for (const auto& path : files.batches) {
        auto batch = parseCifarBatch(readFile(path, kMaxCifarBatchBytes), path);
        data.batch.labels.insert(data.batch.labels.end(), batch.labels.begin(), batch.labels.end());
        data.batch.pixels.insert(data.batch.pixels.end(), batch.pixels.begin(), batch.pixels.end());
    }
    data.classNames = files.classNamesFile.empty() ? cifar10ClassNames()
                                                   : parseCifarClassNames(readFile(files.classNamesFile, 1 << 16),
                                                                          files.classNamesFile);
    return data;
}

} // namespace lcs
