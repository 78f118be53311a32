// printable(): damaged bytes from files are escaped, readable text is left alone.
#include "util/printable.h"

#include <gtest/gtest.h>

#include <string>

using opsched::printable;

namespace {

struct Case {
    std::string in, out;
};

TEST(Printable, EscapesWhatATerminalCannotShow)
{
    const Case cases[] = {
        { "plain ascii, punctuation: ;'\"{}", "plain ascii, punctuation: ;'\"{}" },
        { "two\nlines\tand a tab", "two\nlines\tand a tab" },
        { std::string("nul\0byte", 8), "nul\\x00byte" },
        { "bell\x07 esc\x1b[31m del\x7f", "bell\\x07 esc\\x1b[31m del\\x7f" },
        { "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x99\x82", "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x99\x82" }, // UTF-8 stays
        { "lone \xff\xfe bytes", "lone \\xff\\xfe bytes" },
        { "cut \xe2\x86", "cut \\xe2\\x86" }, // truncated sequence
        { "overlong \xc0\xaf", "overlong \\xc0\\xaf" }, // '/' spelt in two bytes
        { "surrogate \xed\xa0\x80", "surrogate \\xed\\xa0\\x80" },
        { "c1 control \xc2\x85", "c1 control \\xc2\\x85" },
        { "", "" },
    };
    for (const auto& c : cases)
        EXPECT_EQ(printable(c.in), c.out) << c.out;
}

} // namespace
