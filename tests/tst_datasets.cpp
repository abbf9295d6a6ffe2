// Data readers on small files the test writes (IDX raw and gzip, CIFAR-10 binary, CamVid
// folders and lists), their refusals, and the image transforms of the paper's
// experiments (label corruption, rotation) against hand-computed results.
#include <QtTest/QtTest>

#include <ATen/ATen.h>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <zlib.h>

#include "base/core/atomic_file.h"
#include "base/core/input_error.h"
#include "datasets/camvid_reader.h"
#include "datasets/cifar_reader.h"
#include "datasets/idx_reader.h"
#include "datasets/image_data.h"
#include "tests/tiny_idx.h"

using namespace lcs;

namespace {

std::string gzipped(const std::string& raw)
{
    z_stream zs{};
    deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&zs, raw.size()) + 64, '\0');
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
    zs.avail_in = static_cast<uInt>(raw.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    deflate(&zs, Z_FINISH);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

std::string cifarRecord(uint8_t label, uint8_t fill)
{
    std::string r(kCifarRecordBytes, static_cast<char>(fill));
    r[0] = static_cast<char>(label);
    return r;
}

void writePng(const QString& path, const cv::Mat& image)
{
    QDir().mkpath(QFileInfo(path).path());
    QVERIFY(cv::imwrite(path.toStdString(), image));
}

/// A 4x6 frame whose label at (r, c) is (r + c) % 11, except maxLabel at the bottom left.
void writeCamvidPair(const QString& dir, const QString& split, const QString& name, int rows = 4, int cols = 6,
                     int maxLabel = 10)
{
    cv::Mat frame(rows, cols, CV_8UC3), label(rows, cols, CV_8UC1);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            frame.at<cv::Vec3b>(r, c) = cv::Vec3b(uchar(10 * c), uchar(20 * r), 200);  // BGR on disk
            label.at<uchar>(r, c) = static_cast<uchar>((r + c) % 11);
        }
    label.at<uchar>(rows - 1, 0) = static_cast<uchar>(maxLabel);
    writePng(dir + "/" + split + "/" + name, frame);
    writePng(dir + "/" + split + "annot/" + name, label);
}

} // namespace

class TestDatasets : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void idxReadsRawAndGzip()
    {
        const std::vector<uint8_t> values{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        const auto raw = idxBytes({3, 2, 2}, values);
        for (const auto& bytes : {raw, gzipped(raw), gzipped(raw.substr(0, 7)) + gzipped(raw.substr(7))}) {
            const auto array = parseIdx(gunzipIfCompressed(bytes, "t"), "t");
            QCOMPARE(array.shape, (std::vector<int64_t>{3, 2, 2}));
            QCOMPARE(array.values, values);
        }
    }

    void idxRefusesBadFiles_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("fragment");
        auto row = [](const char* name, const std::string& b, const char* fragment) {
            QTest::newRow(name) << QByteArray(b.data(), static_cast<int>(b.size())) << fragment;
        };
        const auto good = idxBytes({2, 2}, {1, 2, 3, 4});
        row("short", "\0\0", "shorter than the 4-byte header");
        row("magic", std::string("\1\0\x08\1\0\0\0\1x", 9), "two zero bytes");
        row("type float", idxBytes({1}, {0, 0, 0, 0}, 0x0D), "0x0d is not supported");
        row("no dimensions", std::string("\0\0\x08\0", 4), "0 dimensions");
        row("five dimensions", idxBytes({1, 1, 1, 1, 1}, {7}), "5 dimensions");
        row("zero dimension", idxBytes({2, 0}, {}), "dimension 1 is 0");
        row("header cut", good.substr(0, 9), "truncated IDX header");
        row("data cut", good.substr(0, good.size() - 1), "truncated file");
        row("extra data", good + "x", "extra bytes after the data");
        row("huge dimensions", idxBytes({65536, 65536}, {}), "more than");
        row("gzip cut", gzipped(good).substr(0, 12), "truncated");
        auto corrupt = gzipped(good);
        corrupt[12] = static_cast<char>(~corrupt[12]);
        corrupt[13] = static_cast<char>(~corrupt[13]);
        row("gzip corrupt", corrupt, "corrupt");
        row("gzip then garbage", gzipped(good) + "garbage!", "corrupt");
    }
    void idxRefusesBadFiles()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, fragment);
        try {
            parseIdx(gunzipIfCompressed(bytes.toStdString(), "f.gz"), "f.idx");
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains(fragment), e.what());
        }
    }

    void gzipBombIsCapped()
    {
        const auto bomb = gzipped(std::string(1 << 20, '\0'));
        QVERIFY(bomb.size() < 5000);
        QVERIFY_THROWS_EXCEPTION(InputError, gunzipIfCompressed(bomb, "bomb.gz", 1 << 16));
        QCOMPARE(gunzipIfCompressed(bomb, "bomb.gz", 1 << 20).size(), size_t(1) << 20);
    }

    void idxFolderLoadsStandardised()
    {
        QTemporaryDir tmp;
        for (bool gz : {false, true}) {
            const auto dir = tmp.path() + (gz ? "/gz" : "/raw");
            writeIdxFolder(dir, 20, 7, gz ? gzipped : std::function<std::string(const std::string&)>());
            const auto data = loadImageDataset(dir.toStdString());
            QCOMPARE(data.train.size(), 20);
            QCOMPARE(data.test.size(), 7);
            QCOMPARE(data.inputShape, (std::vector<int64_t>{1, 2, 2}));
            QCOMPARE(data.classes(), 10);
            QCOMPARE(data.classNames[3], std::string("3"));
            QCOMPARE(data.train.labels[13].item<int64_t>(), 3);
            // Standardised with the training set's statistics: mean 0, std 1 there.
            QVERIFY(std::abs(data.train.images.mean().item<double>()) < 1e-5);
            QVERIFY(std::abs(data.train.images.std().item<double>() - 1.0) < 1e-4);
            // And the test set through the same affine map: pixel 0 of test image 0 is 5/255.
            const double expected = (5.0 / 255.0 - data.channelMean[0]) / data.channelStd[0];
            QVERIFY(std::abs(data.test.images[0][0][0][0].item<double>() - expected) < 1e-5);
        }
        const auto limited = loadImageDataset((tmp.path() + "/raw").toStdString(), {5, 3, 1});
        QCOMPARE(limited.train.size(), 5);
        QCOMPARE(limited.test.size(), 3);
    }

    // A preview keeps the fraction (rounded up) of what the whole run keeps, and only rows
    // the whole run has too: its figures come from the same images, fewer of them.
    void previewKeepsAFractionOfTheWholeRunsRows()
    {
        QTemporaryDir tmp;
        const auto dir = (tmp.path() + "/idx").toStdString();
        writeIdxFolder(QString::fromStdString(dir), 40, 20);
        const auto raw = [](const ImageSet& set, const ImageDataset& d) {
            return set.images.mul(d.channelStd[0]).add(d.channelMean[0]).mul(255).round().flatten(1);
        };
        const auto contains = [](const at::Tensor& rows, const at::Tensor& row, int64_t label, const at::Tensor& labels) {
            for (int64_t i = 0; i < rows.size(0); ++i)
                if (labels[i].item<int64_t>() == label && rows[i].equal(row))
                    return true;
            return false;
        };
        ImageDataLimits whole{30, 0, 5};
        for (const double fraction : {0.25, 0.5, 1.0}) {
            ImageDataLimits preview = whole;
            preview.fraction = fraction;
            const auto full = loadImageDataset(dir, whole);
            const auto part = loadImageDataset(dir, preview);
            QCOMPARE(part.train.size(), static_cast<int64_t>(std::ceil(fraction * 30)));
            QCOMPARE(part.test.size(), static_cast<int64_t>(std::ceil(fraction * 20)));
            for (const auto& [set, fullSet] : {std::pair{&part.train, &full.train}, std::pair{&part.test, &full.test}}) {
                const auto rows = raw(*set, part);
                const auto fullRows = raw(*fullSet, full);
                for (int64_t i = 0; i < rows.size(0); ++i)
                    QVERIFY2(contains(fullRows, rows[i], set->labels[i].item<int64_t>(), fullSet->labels),
                             qPrintable(QStringLiteral("row %1 of a %2 preview").arg(i).arg(fraction)));
            }
        }
        for (const double bad : {0.0, -0.1, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
            ImageDataLimits preview = whole;
            preview.fraction = bad;
            QVERIFY_THROWS_EXCEPTION(InputError, loadImageDataset(dir, preview));
        }
    }

    void idxFolderRefusals()
    {
        QTemporaryDir tmp;
        const auto dir = tmp.path() + "/d";
        writeIdxFolder(dir, 6, 3);
        writeFileAtomically((dir + "/t10k-labels-idx1-ubyte").toStdString(), idxBytes({4}, {0, 1, 2, 3}));
        try {
            loadImageDataset(dir.toStdString());
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("holds 3 images but"), e.what());
        }
        writeFileAtomically((dir + "/t10k-labels-idx1-ubyte").toStdString(), idxBytes({3}, {0, 11, 2}));
        try {
            loadImageDataset(dir.toStdString());
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("label 11 of item 2 is out of range"), e.what());
        }
        QFile::remove(dir + "/t10k-labels-idx1-ubyte");
        try {
            loadImageDataset(dir.toStdString());
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("t10k-labels-idx1-ubyte (or t10k-labels-idx1-ubyte.gz) is missing"),
                     e.what());
        }
        try {
            loadImageDataset(tmp.path().toStdString());
            QFAIL("accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("neither an MNIST-like IDX folder"), e.what());
        }
    }

    void cifarBatches()
    {
        const auto bytes = cifarRecord(3, 7) + cifarRecord(9, 200);
        const auto batch = parseCifarBatch(bytes, "b.bin");
        QCOMPARE(batch.size(), size_t(2));
        QCOMPARE(int(batch.labels[1]), 9);
        QCOMPARE(int(batch.pixels[kCifarImageBytes + 5]), 200);
        auto refused = [](const std::string& b, const char* fragment) {
            try {
                parseCifarBatch(b, "b.bin");
                QFAIL("accepted");
            } catch (const InputError& e) {
                QVERIFY2(QString(e.what()).contains(fragment), e.what());
            }
        };
        refused("", "empty file");
        refused(bytes.substr(0, bytes.size() - 1), "record 2 is cut short");
        refused(cifarRecord(1, 0) + cifarRecord(10, 0), "record 2 has label 10");
        QCOMPARE(parseCifarClassNames("a\nb\r\n\n c \nd\ne\nf\ng\nh\ni\nj", "m")[2], std::string("c"));
        QVERIFY_THROWS_EXCEPTION(InputError, parseCifarClassNames("a\nb\n", "m"));
    }

    void cifarFolder()
    {
        QTemporaryDir tmp;
        const auto dir = tmp.path().toStdString();
        QVERIFY_THROWS_EXCEPTION(InputError, findCifarFiles(dir, CifarSplit::Train));
        // Any subset of the five training batches, read in order.
        writeFileAtomically(dir + "/data_batch_3.bin", cifarRecord(2, 30));
        writeFileAtomically(dir + "/data_batch_1.bin", cifarRecord(1, 10) + cifarRecord(4, 11));
        writeFileAtomically(dir + "/test_batch.bin", cifarRecord(5, 50));
        const auto train = readCifarDirectory(dir, CifarSplit::Train);
        QCOMPARE(train.batch.labels, (std::vector<uint8_t>{1, 4, 2}));
        QCOMPARE(train.classNames[1], std::string("automobile"));
        const auto data = loadImageDataset(dir);
        QCOMPARE(data.inputShape, (std::vector<int64_t>{3, 32, 32}));
        QCOMPARE(data.test.labels[0].item<int64_t>(), 5);
    }

    void sharedCifarSubset()
    {
        const QString dir = QString(qgetenv("LCS_SOURCE_DIR")) + "/../shared/datasets/cifar-10-batches-bin";
        if (!QFileInfo(dir + "/data_batch_1.bin").exists())
            QSKIP("../shared/datasets is not here");
        const auto raw = readFile((dir + "/data_batch_1.bin").toStdString(), kMaxCifarBatchBytes);
        const auto data = loadImageDataset(dir.toStdString(), {100, 50, 0});
        QCOMPARE(data.classNames[9], std::string("truck"));
        QCOMPARE(data.train.size(), 100);
        // Each colour channel standardised with its own training statistics.
        for (int64_t c = 0; c < 3; ++c) {
            const auto channel = data.train.images.select(1, c);
            QVERIFY(std::abs(channel.mean().item<double>()) < 1e-5);
            QVERIFY(std::abs(channel.std().item<double>() - 1.0) < 1e-4);
            QVERIFY(data.channelStd[c] > 0.1 && data.channelStd[c] < 0.5);
        }
        const auto full = readCifarDirectory(dir.toStdString(), CifarSplit::Train);
        QCOMPARE(full.batch.size(), size_t(10000));
        QCOMPARE(int(full.batch.labels[0]), int(static_cast<uint8_t>(raw[0])));
    }

    void debianFashionMnist()
    {
        if (!QFileInfo::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"))
            QSKIP("dataset-fashion-mnist is not installed");
        const auto data = loadImageDataset("fashion-mnist", {500, 200, 0});
        QCOMPARE(data.inputShape, (std::vector<int64_t>{1, 28, 28}));
        QCOMPARE(data.classNames[9], std::string("Ankle boot"));
        QCOMPARE(data.test.size(), 200);
        QVERIFY(data.train.labels.bincount().size(0) == 10);
    }

    void camvidFolderAndList()
    {
        QTemporaryDir tmp;
        const auto dir = tmp.path();
        writeCamvidPair(dir, "train", "b.png");
        writeCamvidPair(dir, "train", "a.png");
        const auto pairs = findCamvidSplit(dir.toStdString(), "train");
        QCOMPARE(pairs.size(), size_t(2));
        QVERIFY(QString::fromStdString(pairs[0].label).endsWith("trainannot/a.png"));
        const auto frame = readCamvidFrame(pairs[0]);
        QCOMPARE(frame.height, 4);
        QCOMPARE(frame.width, 6);
        QCOMPARE(int(frame.labels[1 * 6 + 3]), 4);
        // RGB order in memory: the frame was written as BGR (10c, 20r, 200).
        QCOMPARE(int(frame.rgb[(1 * 6 + 3) * 3 + 0]), 200);
        QCOMPARE(int(frame.rgb[(1 * 6 + 3) * 3 + 2]), 30);
        // Nearest-neighbour labels when resized: still class indices of the original.
        const auto small = readCamvidFrame(pairs[0], 2, 3);
        QCOMPARE(small.labels.size(), size_t(6));
        for (auto v : small.labels)
            QVERIFY(v <= 10);
        // A list file of the user's own split name, paths relative to the folder.
        writeCamvidPair(dir, "mine", "x.png");
        writeFileAtomically((dir + "/holdout.txt").toStdString(), "mine/x.png mineannot/x.png\n\n");
        QCOMPARE(findCamvidSplit(dir.toStdString(), "holdout").size(), size_t(1));
    }

    void camvidRefusals()
    {
        QTemporaryDir tmp;
        const auto dir = tmp.path();
        auto refused = [&](const char* split, const char* fragment) {
            try {
                for (const auto& p : findCamvidSplit(dir.toStdString(), split))
                    readCamvidFrame(p);
                QFAIL(qPrintable(QString("split %1 accepted").arg(split)));
            } catch (const InputError& e) {
                QVERIFY2(QString(e.what()).contains(fragment), e.what());
            }
        };
        refused("val", "split \"val\" not found");
        writeCamvidPair(dir, "a", "f.png");
        QFile::remove(dir + "/aannot/f.png");
        refused("a", "has no label image");
        writeCamvidPair(dir, "b", "f.png", 4, 6, 11);
        writeCamvidPair(dir, "b", "g.png", 4, 6, 12);
        refused("b", "label 12 at pixel");
        writeCamvidPair(dir, "c", "f.png");
        writePng(dir + "/cannot/f.png", cv::Mat(3, 6, CV_8UC1, cv::Scalar(1)));
        refused("c", "but its frame");
        writeCamvidPair(dir, "d", "f.png");
        writePng(dir + "/dannot/f.png", cv::Mat(4, 6, CV_8UC3, cv::Scalar(1, 2, 3)));
        refused("d", "colour label image");
        writeCamvidPair(dir, "e", "f.png");
        writeFileAtomically((dir + "/eannot/f.png").toStdString(), "not a png at all");
        refused("e", "not a PNG file");
        writeFileAtomically((dir + "/g.txt").toStdString(), "one two three\n");
        refused("g", "line 1 has 3 fields");
        writeFileAtomically((dir + "/h.txt").toStdString(), "\n \n");
        refused("h", "lists no frames");
        QDir().mkpath(dir + "/i");
        QDir().mkpath(dir + "/iannot");
        refused("i", "no .png frames");
    }

    void labelCorruptionChangesExactlyTheRate()
    {
        auto generator = at::make_generator<at::CPUGeneratorImpl>(7);
        const auto clean = at::zeros({1000}, at::kLong);
        // With a million classes a redrawn label is (almost surely) not 0 again, so the
        // number changed is the number chosen: round(0.3 * 1000).
        const auto wide = corruptLabels(clean, 0.3, 1000000, generator);
        QCOMPARE(wide.ne(0).sum().item<int64_t>(), 300);
        QCOMPARE(clean.sum().item<int64_t>(), 0);
        // With 10 classes a chosen label stays 0 one time in ten: about 0.7 * 0.9 changed.
        const auto ten = corruptLabels(clean, 0.7, 10, generator);
        const auto changed = ten.ne(0).sum().item<int64_t>();
        QVERIFY2(changed >= 590 && changed <= 670, qPrintable(QString::number(changed)));
        QVERIFY(ten.max().item<int64_t>() == 9);
        QCOMPARE(corruptLabels(clean, 0.0, 10, generator).ne(0).sum().item<int64_t>(), 0);
        QVERIFY_THROWS_EXCEPTION(InputError, corruptLabels(clean, 1.5, 10, generator));
        // Seeded: the same generator state gives the same labels.
        auto g1 = at::make_generator<at::CPUGeneratorImpl>(3), g2 = at::make_generator<at::CPUGeneratorImpl>(3);
        QVERIFY(corruptLabels(clean, 0.5, 10, g1).equal(corruptLabels(clean, 0.5, 10, g2)));
    }

    void rotationMovesPixelsAsOnScreen()
    {
        // One bright pixel right of centre; +90 degrees (counter-clockwise) moves it above.
        auto image = at::zeros({1, 1, 3, 3});
        image[0][0][1][2] = 1.0;
        const auto quarter = rotateImages(image, at::full({1}, 90.0));
        QVERIFY(std::abs(quarter[0][0][0][1].item<double>() - 1.0) < 1e-5);
        QVERIFY(std::abs(quarter.sum().item<double>() - 1.0) < 1e-5);
        const auto half = rotateImages(image, at::full({1}, 180.0));
        QVERIFY(std::abs(half[0][0][1][0].item<double>() - 1.0) < 1e-5);
        QVERIFY(rotateImages(image, at::zeros({1})).allclose(image, 1e-6, 1e-6));
        auto generator = at::make_generator<at::CPUGeneratorImpl>(1);
        const auto angles = randomAngles(2000, 30.0, generator);
        QVERIFY(angles.abs().max().item<double>() <= 30.0);
        QVERIFY(angles.min().item<double>() < -28.0 && angles.max().item<double>() > 28.0);
        QCOMPARE(rotatedCopies(at::ones({4, 3, 8, 8}), 3, 30.0, generator).size(0), 12);
    }
};

QTEST_GUILESS_MAIN(TestDatasets)
#include "tst_datasets.moc"
