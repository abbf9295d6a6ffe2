#pragma once

#include <cstddef>
#include <string_view>

/// UTF-8 checks for text read from users' files: every name a file gives ends up in a
/// JSON results file, whose writer refuses invalid UTF-8, so it is refused on reading,
/// where the message can name the row, rather than after a whole run.
namespace lcs {

/// The offset of the first byte that does not begin a well-formed UTF-8 sequence (an
/// overlong form, a surrogate, a code point above U+10FFFF, a stray continuation byte or
/// a sequence cut off), or npos when all of `text` is well-formed.
size_t firstInvalidUtf8(std::string_view text);

inline bool isValidUtf8(std::string_view text) { return firstInvalidUtf8(text) == std::string_view::npos; }

/// The characters (code points) of well-formed UTF-8 `text`: what a limit on a name's
/// length counts, so that "at most 100 characters" means characters, not bytes.
inline size_t utf8Length(std::string_view text)
{
    size_t n = 0;
    for (const char c : text)
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;  // every byte but a continuation
    return n;
}

} // namespace lcs
