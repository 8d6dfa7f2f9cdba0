#include "core/analysis/module_color.h"

#include "core/util/file_name.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace gilscope {

namespace {

// "python3.12" or "python3.13t": a standard library directory.
bool isStdlibDir(std::string_view p) {
    if (p.substr(0, 6) != "python") return false;
    std::string_view rest = p.substr(6);
    if (!rest.empty() && rest.back() == 't') rest.remove_suffix(1);
    const size_t dot = rest.find('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == rest.size()) return false;
    return std::all_of(rest.begin(), rest.end(),
                       [](char c) { return c == '.' || (c >= '0' && c <= '9'); }) &&
           rest.find('.', dot + 1) == std::string_view::npos;
}

std::string_view withoutPy(std::string_view s) {
    if (s.size() > 3 && s.substr(s.size() - 3) == ".py") s.remove_suffix(3);
    return s;
}

// FNV-1a: a hash that is the same in every build (std::hash and qHash need not be).
uint32_t fnv1a(std::string_view s) {
    uint32_t h = 2166136261u;
    for (unsigned char c : s) {
        h ^= c;
        h *= 16777619u;
    }
    return h;
}

} // namespace

ModuleLocation locateModule(std::string_view file) {
    struct Part {
        std::string_view text;
        size_t end; // offset just past it in `file`
    };
    std::vector<Part> parts;
    for (size_t start = 0; start <= file.size();) {
        const size_t slash = std::min(file.find('/', start), file.size());
        if (slash > start) parts.push_back({file.substr(start, slash - start), slash});
        start = slash + 1;
    }
    // The directory right after site-packages / dist-packages / pythonX.Y is the package.
    for (size_t i = parts.size() >= 2 ? parts.size() - 1 : 0; i-- > 0;) {
        const std::string_view dir = parts[i].text;
        const bool installed = dir == "site-packages" || dir == "dist-packages";
        if (installed || isStdlibDir(dir))
            return {installed ? ModuleOrigin::ThirdParty : ModuleOrigin::Stdlib,
                    std::string(withoutPy(parts[i + 1].text)),
                    std::string(file.substr(0, parts[i + 1].end))};
    }
    if (parts.empty() || file.back() == '/') return {ModuleOrigin::User, std::string(file), {}};
    const std::string_view base = withoutPy(parts.back().text);
    return {ModuleOrigin::User, std::string(base.empty() ? file : base), std::string(file)};
}

std::string moduleOf(std::string_view file) {
    return locateModule(file).name;
}

Rgb rgbFromHsv(int hue, int saturation, int value) {
    const double h = (((hue % 360) + 360) % 360) / 60.0;
    const double s = std::clamp(saturation, 0, 255) / 255.0;
    const double v = std::clamp(value, 0, 255) / 255.0;
    const int sector = static_cast<int>(h);
    const double f = h - sector;
    const double p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    double r = v, g = t, b = p;
    switch (sector) {
    case 1:
        r = q, g = v, b = p;
        break;
    case 2:
        r = p, g = v, b = t;
        break;
    case 3:
        r = p, g = q, b = v;
        break;
    case 4:
        r = t, g = p, b = v;
        break;
    case 5:
        r = v, g = p, b = q;
        break;
    default:
        break;
    }
    auto byte = [](double x) { return static_cast<uint8_t>(std::lround(x * 255)); };
    return {byte(r), byte(g), byte(b)};
}

Rgb moduleColor(std::string_view file) {
    return colorOfModule(moduleOf(file));
}

Rgb colorOfModule(std::string_view module) {
    return rgbFromHsv(static_cast<int>(fnv1a(module) % 360u), 110, 235);
}

Rgb colorOfLibrary(std::string_view library) {
    return rgbFromHsv(195 + static_cast<int>(fnv1a(library) % 30u), 45, 200);
}

Rgb frameColor(std::string_view file, bool native) {
    if (!native) return moduleColor(file);
    return colorOfLibrary(fileName(file));
}

Rgb changeColor(double points, double fullChange) {
    const double strength = std::min(std::abs(points) / fullChange, 1.0);
    return rgbFromHsv(points >= 0 ? 0 : 220, static_cast<int>(20 + 200 * strength),
                      static_cast<int>(225 - 25 * strength));
}

std::string cssHex(Rgb c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
    return buf;
}

} // namespace gilscope
