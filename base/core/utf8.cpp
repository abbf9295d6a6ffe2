#include "base/core/utf8.h"

namespace lcs {

size_t firstInvalidUtf8(std::string_view text)
{
    const size_t n = text.size();
    size_t i = 0;
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
    while (i < n) {
        const unsigned char b = byte(i);
        if (b < 0x80) {
            ++i;
            continue;
        }
        // The sequence's length and the range its second byte must lie in (Unicode's
        // table 3-7 of well-formed sequences): this is what excludes overlong forms,
        // surrogates and code points above U+10FFFF.
        size_t length = 0;
        unsigned char low = 0x80, high = 0xBF;
        if (b >= 0xC2 && b <= 0xDF) {
            length = 2;
        } else if (b >= 0xE0 && b <= 0xEF) {
            length = 3;
            if (b == 0xE0)
                low = 0xA0;
            else if (b == 0xED)
                high = 0x9F;
        } else if (b >= 0xF0 && b <= 0xF4) {
            length = 4;
            if (b == 0xF0)
                low = 0x90;
            else if (b == 0xF4)
                high = 0x8F;
        } else {
            return i;  // a continuation byte alone, C0/C1, or F5 and above
        }
        if (i + length > n)
            return i;
        if (byte(i + 1) < low || byte(i + 1) > high)
            return i;
        for (size_t k = 2; k < length; ++k)
            if (byte(i + k) < 0x80 || byte(i + k) > 0xBF)
                return i;
        i += length;
    }
    return std::string_view::npos;
}

} // namespace lcs
