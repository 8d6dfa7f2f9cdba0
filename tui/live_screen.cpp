#include "tui/live_screen.h"

#define NCURSES_WIDECHAR 1
#include <curses.h>

#include <cstdio>
#include <cwchar>

namespace gilscope::tui {

namespace {

// UTF-8 to wide characters for ncursesw (the text was escaped for display already); a
// byte the locale cannot decode shows as '?'.
std::wstring widen(const std::string& text) {
    std::wstring out;
    std::mbstate_t state{};
    const char* p = text.data();
    size_t left = text.size();
    while (left > 0) {
        wchar_t wc = 0;
        const size_t n = std::mbrtowc(&wc, p, left, &state);
        if (n == static_cast<size_t>(-1) || n == static_cast<size_t>(-2)) {
            out += L'?';
            state = {};
            ++p;
            --left;
            continue;
        }
        out += wc;
        const size_t used = n == 0 ? 1 : n;
        p += used;
        left -= used;
    }
    return out;
}

void line(int y, const std::string& text, attr_t attr = A_NORMAL) {
    if (y >= LINES) return;
    const std::wstring w = widen(text);
    attron(attr);
    mvaddnwstr(y, 0, w.c_str(), COLS);
    if (attr & A_REVERSE) // a bar across the whole width
        for (int x = getcurx(stdscr); x < COLS && getcury(stdscr) == y; ++x)
            addch(' ');
    attroff(attr);
}

} // namespace

void drawLiveFrame(const LiveFrame& frame) {
    erase();
    line(0, frame.status, A_REVERSE);
    line(1, frame.choices);
    line(2, frame.note, A_BOLD);
    line(3, "  OWN%       OWN  TOTAL%     TOTAL  FUNCTION", A_BOLD | A_UNDERLINE);
    if (frame.table) {
        int y = 4;
        for (const LiveRow& r : frame.table->rows) {
            if (y >= LINES) break;
            char figures[96];
            std::snprintf(figures, sizeof figures, "%6.1f %9llu %6.1f %9llu  ", r.ownPct,
                          static_cast<unsigned long long>(r.own), r.totalPct,
                          static_cast<unsigned long long>(r.total));
            line(y++, figures + r.function + "  (" + r.where + ")" +
                          (r.instruction.empty() ? "" : "  [" + r.instruction + "]"));
        }
        if (frame.table->rows.empty()) line(4, "  (" + frame.empty + ")");
    }
    refresh();
}

} // namespace gilscope::tui
