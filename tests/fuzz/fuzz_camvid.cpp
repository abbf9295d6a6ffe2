// CamVid list files and frame/label PNG pairs. The first byte picks the reader: 0 = a
// list file; otherwise the next 4 bytes give the frame's PNG length, then the frame,
// then the label image. Only InputError may come out; a decoded frame must hold labels
// in range and sizes that agree.
#include "base/core/input_error.h"
#include "datasets/camvid_reader.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size)
{
    if (size < 1)
        return 0;
    try {
        if (data[0] == 0) {
            const auto pairs = lcs::parseCamvidList(fuzzText(data + 1, size - 1), "fuzz.txt", "root");
            LCS_FUZZ_REQUIRE(!pairs.empty());
            for (const auto& p : pairs)
                LCS_FUZZ_REQUIRE(!p.image.empty() && !p.label.empty());
            return 0;
        }
        if (size < 5)
            return 0;
        const size_t imageLength = (size_t{data[1]} << 24) | (size_t{data[2]} << 16) | (size_t{data[3]} << 8) | data[4];
        if (imageLength > size - 5)
            return 0;
        const auto image = fuzzText(data + 5, imageLength);
        const auto label = fuzzText(data + 5 + imageLength, size - 5 - imageLength);
        const int side = data[0] % 3 == 0 ? 0 : 8 * (data[0] % 7 + 1);
        const auto frame = lcs::decodeCamvidFrame(image, label, {"frame.png", "label.png"}, side, side);
        LCS_FUZZ_REQUIRE(frame.height > 0 && frame.width > 0);
        LCS_FUZZ_REQUIRE(frame.rgb.size() == size_t(frame.height) * frame.width * 3);
        LCS_FUZZ_REQUIRE(frame.labels.size() == size_t(frame.height) * frame.width);
        for (const auto v : frame.labels)
            LCS_FUZZ_REQUIRE(v < lcs::kCamvidClasses);
    } catch (const lcs::InputError&) {
    }
    return 0;
}
